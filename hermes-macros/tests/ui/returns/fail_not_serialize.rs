use hermes_core::tool;

struct Secret;

/// Make a secret.
#[tool]
fn secret(name: String) -> Secret {
    let _ = name;
    Secret
}

fn main() {}
