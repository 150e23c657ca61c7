use hermes_core::tool;

/// Forecast the weather.
#[tool]
fn forecast(
    #[arg(default = 3, minimum = "one", maxmum = 7)] days: u8,
    #[arg(default = 1 + 2)] hours: u8,
    #[arg(enum = [])] unit: String,
) -> String {
    format!("{days} {hours} {unit}")
}

fn main() {}
