//! [`LoadError`]: why a file of tools did not load, with file, line and column.

use std::fmt;
use std::path::PathBuf;

/// Why a YAML file of tools was not loaded. Nothing of the file is registered then: a
/// file loads whole or not at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read.
    #[error("{}: cannot read the file: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a valid tools file: every problem found, in file order.
    #[error("{}", Problems { file, problems })]
    Invalid {
        /// The file.
        file: PathBuf,
        /// What is wrong, and where.
        problems: Vec<Problem>,
    },
    /// The tools are valid but could not join the registry (a name taken by another
    /// tool).
    #[error("{}: {source}", file.display())]
    Registry {
        /// The file.
        file: PathBuf,
        /// The registry's refusal.
        #[source]
        source: hermes_core::Error,
    },
}

/// One problem in a tools file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Problem {
    /// 1-based line (0 when the parser could not tell).
    pub line: u64,
    /// 1-based column (0 when the parser could not tell).
    pub column: u64,
    /// The tool it is about, when known.
    pub tool: Option<String>,
    /// What is wrong, and how to fix it.
    pub message: String,
}

impl Problem {
    pub(crate) fn new(
        (line, column): (u64, u64),
        tool: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            line,
            column,
            tool: tool.map(str::to_owned),
            message: message.into(),
        }
    }
}

/// Renders problems as `file:line:column: tool `x`: message`, one per line.
struct Problems<'a> {
    file: &'a PathBuf,
    problems: &'a [Problem],
}

impl fmt::Display for Problems<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        write!(
            f,
            "{}: {count} problem{} (nothing from this file was loaded)",
            self.file.display(),
            if count == 1 { "" } else { "s" }
        )?;
        for problem in self.problems {
            write!(
                f,
                "\n  {}:{}:{}: ",
                self.file.display(),
                problem.line,
                problem.column
            )?;
            if let Some(tool) = &problem.tool {
                write!(f, "tool `{tool}`: ")?;
            }
            f.write_str(&problem.message)?;
        }
        Ok(())
    }
}
