//! The languages `code_analyze` reads, from a file's extension or named by the model,
//! with their tree-sitter grammars.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A language `code_analyze` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Language {
    /// Rust (`.rs`).
    Rust,
    /// Python (`.py`, `.pyi`).
    Python,
    /// JavaScript, JSX included (`.js`, `.mjs`, `.cjs`, `.jsx`).
    Javascript,
    /// TypeScript (`.ts`, `.mts`, `.cts`).
    Typescript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// Go (`.go`).
    Go,
}

impl Language {
    /// The language of `path`, from its extension.
    pub(crate) fn of(path: &Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match extension.as_str() {
            "rs" => Self::Rust,
            "py" | "pyi" => Self::Python,
            "js" | "mjs" | "cjs" | "jsx" => Self::Javascript,
            "ts" | "mts" | "cts" => Self::Typescript,
            "tsx" => Self::Tsx,
            "go" => Self::Go,
            _ => return None,
        })
    }

    /// The tree-sitter grammar.
    pub(crate) fn grammar(self) -> tree_sitter::Language {
        match self {
            Self::Rust => tree_sitter_rust::LANGUAGE.into(),
            Self::Python => tree_sitter_python::LANGUAGE.into(),
            Self::Javascript => tree_sitter_javascript::LANGUAGE.into(),
            Self::Typescript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Self::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Self::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_name_languages() {
        assert_eq!(Language::of(Path::new("src/lib.rs")), Some(Language::Rust));
        assert_eq!(Language::of(Path::new("App.TSX")), Some(Language::Tsx));
        assert_eq!(Language::of(Path::new("main.go")), Some(Language::Go));
        assert_eq!(Language::of(Path::new("README.md")), None);
        assert_eq!(Language::of(Path::new("Makefile")), None);
    }
}
