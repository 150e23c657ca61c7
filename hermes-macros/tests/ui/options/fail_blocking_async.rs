use hermes_core::tool;

/// Read a file.
#[tool(blocking)]
async fn read(path: String) -> String {
    path
}

fn main() {}
