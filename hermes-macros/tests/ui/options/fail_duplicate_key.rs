use hermes_core::tool;

/// Query the weather.
#[tool(scope = "read", scope = "write", permissions = ["network"])]
fn weather(city: String) -> String {
    city
}

fn main() {}
