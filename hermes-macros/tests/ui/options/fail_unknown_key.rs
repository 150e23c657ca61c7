use hermes_core::tool;

/// Query the weather.
#[tool(timout = "15s", scope = "read")]
fn weather(city: String) -> String {
    city
}

fn main() {}
