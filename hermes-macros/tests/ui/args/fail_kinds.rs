use hermes_core::tool;

/// Copy a file.
#[tool]
fn copy(
    #[arg(path = "append")] from: String,
    #[arg(path)] to: String,
    #[arg(command = "yes", url)] hook: String,
) -> String {
    format!("{from} {to} {hook}")
}

fn main() {}
