use hermes_core::tool;

/// Forecast the weather.
#[tool]
fn forecast(
    #[arg(minimum = 7, maximum = 1)] days: u8,
    #[arg(default = "kelvin", enum = ["celsius", "fahrenheit"])] unit: String,
) -> String {
    format!("{days} {unit}")
}

fn main() {}
