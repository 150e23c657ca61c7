//! The languages `code_execute` runs, and how: the file the snippet goes in, the
//! compile step (Rust) and the command that runs it.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A language `code_execute` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Language {
    /// Python 3, run by `python3` (unbuffered, so a timeout keeps the output so far).
    Python,
    /// JavaScript, run by `node` (as an ES module when it has `import`/`export` lines).
    Javascript,
    /// A Bash script, run by `bash`.
    Bash,
    /// A Rust program with a `main`, compiled by `rustc` (edition 2021, unoptimised).
    Rust,
}

/// How to run one snippet in its scratch directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Plan {
    /// The file name the snippet is written to.
    pub(super) source: &'static str,
    /// The compile command, when the language has one.
    pub(super) compile: Option<Vec<String>>,
    /// The command that runs it.
    pub(super) run: Vec<String>,
}

impl Language {
    /// The name the model uses.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Python => "python",
            Self::Javascript => "javascript",
            Self::Bash => "bash",
            Self::Rust => "rust",
        }
    }

    /// How to run `code` in `dir`.
    pub(super) fn plan(self, code: &str, dir: &Path) -> Plan {
        let owned = |parts: &[&str]| parts.iter().map(|part| (*part).to_owned()).collect();
        match self {
            Self::Python => Plan {
                source: "main.py",
                compile: None,
                run: owned(&["python3", "-u", "main.py"]),
            },
            Self::Javascript => {
                let source = if is_module(code) {
                    "main.mjs"
                } else {
                    "main.js"
                };
                Plan {
                    source,
                    compile: None,
                    run: owned(&["node", source]),
                }
            }
            Self::Bash => Plan {
                source: "main.sh",
                compile: None,
                run: owned(&["bash", "main.sh"]),
            },
            Self::Rust => Plan {
                source: "main.rs",
                compile: Some(owned(&[
                    "rustc",
                    "--edition",
                    "2021",
                    "-C",
                    "opt-level=0",
                    "-o",
                    "main",
                    "main.rs",
                ])),
                run: vec![dir.join("main").to_string_lossy().into_owned()],
            },
        }
    }
}

/// Whether JavaScript `code` is an ES module: a line starts with `import ` or `export `.
fn is_module(code: &str) -> bool {
    code.lines().map(str::trim_start).any(|line| {
        line.starts_with("import ") || line.starts_with("import{") || line.starts_with("export ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_name_files_and_commands() {
        let dir = Path::new("/tmp/x");
        let rust = Language::Rust.plan("fn main() {}", dir);
        assert_eq!(rust.source, "main.rs");
        assert_eq!(rust.run, ["/tmp/x/main"]);
        assert!(rust.compile.is_some_and(|compile| compile[0] == "rustc"));
        assert_eq!(
            Language::Python.plan("", dir).run,
            ["python3", "-u", "main.py"]
        );
        assert_eq!(
            Language::Javascript.plan("console.log(1)", dir).source,
            "main.js"
        );
        assert_eq!(
            Language::Javascript
                .plan("import fs from 'node:fs';\nconsole.log(1)", dir)
                .source,
            "main.mjs"
        );
    }
}
