use hermes_core::tool;

struct Opaque;

/// Use an opaque value.
#[tool]
fn opaque(value: Opaque) -> u8 {
    let _ = value;
    1
}

fn main() {}
