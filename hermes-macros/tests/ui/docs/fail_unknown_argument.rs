use hermes_core::tool;

/// Query the weather.
///
/// # Arguments
/// * `cty` - The city.
#[tool]
fn weather(city: String) -> String {
    city
}

fn main() {}
