use hermes_core::tool;

struct Weather;

impl Weather {
    /// Query the weather.
    #[tool]
    fn query(&self, city: String) -> String {
        city
    }
}

fn main() {}
