use hermes_core::tool;

/// Shout a text.
#[tool]
fn shout(text: &str, times: &[u8]) -> String {
    text.repeat(times.len())
}

fn main() {}
