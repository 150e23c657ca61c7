use hermes_core::tool;

/// Query the weather.
#[tool(timeout = "15 sec", scope = "admin", name = "weather query", max_result_bytes = 10)]
fn weather(city: String) -> String {
    city
}

fn main() {}
