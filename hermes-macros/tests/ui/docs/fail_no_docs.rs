use hermes_core::tool;

#[tool]
fn undocumented(city: String) -> String {
    city
}

fn main() {}
