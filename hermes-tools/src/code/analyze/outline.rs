//! One walk over a file's syntax tree: its definitions, with where each is and what it
//! belongs to, and the tally of its code and comment lines.

use serde::Serialize;
use tree_sitter::{Node, Parser};

use super::classify::{Kind, classify};
use super::language::Language;
use super::lines::{LineCounts, LineTally};

/// A definition, as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Definition {
    /// `function`, `method`, `class`, `struct`, `enum`, `trait`, `impl`, `interface`,
    /// `type`, `module`, `union` or `macro`.
    pub(crate) kind: &'static str,
    /// Its name.
    pub(crate) name: String,
    /// The definition it belongs to: the class, impl, trait or interface of a method,
    /// the function around a nested one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) parent: Option<String>,
    /// Its first line, 1-based.
    pub(crate) line: usize,
    /// Its last line, 1-based.
    pub(crate) end_line: usize,
}

/// What the walk found.
#[derive(Debug)]
pub(crate) struct Outline {
    /// The definitions, in source order, at most the number asked for.
    pub(crate) definitions: Vec<Definition>,
    /// How many definitions there are in all.
    pub(crate) total: usize,
    /// The file's line counts.
    pub(crate) lines: LineCounts,
    /// Whether the parser met syntax errors (the outline may then miss definitions).
    pub(crate) syntax_errors: bool,
}

/// A definition the walk is inside of.
#[derive(Debug)]
struct Open {
    /// The tree depth of its node.
    depth: usize,
    name: String,
    kind: Kind,
}

/// Outline `text`, keeping at most `max` definitions.
///
/// # Errors
///
/// When the grammar cannot be loaded or the parser gives up.
pub(crate) fn outline(text: &str, language: Language, max: usize) -> Result<Outline, String> {
    let mut parser = Parser::new();
    parser
        .set_language(&language.grammar())
        .map_err(|error| format!("the {language:?} grammar cannot be loaded: {error}"))?;
    let tree = parser
        .parse(text, None)
        .ok_or_else(|| "the parser gave up on this file".to_owned())?;
    let root = tree.root_node();
    let mut walk = Walk {
        language,
        text,
        max,
        definitions: Vec::new(),
        total: 0,
        open: Vec::new(),
        tally: LineTally::new(text.lines().count()),
    };
    let mut cursor = root.walk();
    let mut depth = 0;
    loop {
        let descend = walk.visit(cursor.node(), depth);
        if descend && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            walk.leave(depth);
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Ok(Outline {
                    lines: walk.tally.finish(text),
                    definitions: walk.definitions,
                    total: walk.total,
                    syntax_errors: root.has_error(),
                });
            }
            depth -= 1;
        }
    }
}

/// The walk's state.
#[derive(Debug)]
struct Walk<'a> {
    language: Language,
    text: &'a str,
    max: usize,
    definitions: Vec<Definition>,
    total: usize,
    open: Vec<Open>,
    tally: LineTally,
}

impl Walk<'_> {
    /// Look at `node`; whether to go into its children.
    fn visit(&mut self, node: Node<'_>, depth: usize) -> bool {
        let (first, last) = (node.start_position().row, node.end_position().row);
        if node.kind().contains("comment") {
            self.tally.comment(first, last);
            return false;
        }
        if node.child_count() == 0 {
            if node.start_byte() < node.end_byte() {
                self.tally.code(first, last);
            }
            return false;
        }
        let enclosing = self.open.last().map(|open| open.kind);
        if let Some(found) = classify(self.language, node, self.text, enclosing) {
            self.total += 1;
            if self.definitions.len() < self.max {
                let parent = found
                    .owner
                    .clone()
                    .or_else(|| self.open.last().map(|open| open.name.clone()));
                self.definitions.push(Definition {
                    kind: found.kind.as_str(),
                    name: found.name.clone(),
                    parent,
                    line: first + 1,
                    end_line: last + 1,
                });
            }
            self.open.push(Open {
                depth,
                name: found.name,
                kind: found.kind,
            });
        }
        true
    }

    /// The walk leaves the node at `depth`.
    fn leave(&mut self, depth: usize) {
        while self.open.last().is_some_and(|open| open.depth >= depth) {
            self.open.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str, language: Language) -> Vec<String> {
        let outline = outline(text, language, 100).unwrap();
        assert!(!outline.syntax_errors, "{text}");
        outline
            .definitions
            .iter()
            .map(|d| match &d.parent {
                Some(parent) => format!("{} {parent}.{}@{}", d.kind, d.name, d.line),
                None => format!("{} {}@{}", d.kind, d.name, d.line),
            })
            .collect()
    }

    #[test]
    fn rust_items_and_methods() {
        let text = "/// A stack.\nstruct Stack;\n\nimpl Stack {\n    fn push(&mut self) {}\n}\n\ntrait Peek { fn peek(&self); }\nimpl Peek for Stack { fn peek(&self) {} }\nfn main() { fn inner() {} }\nenum E { A }\nmod m {}\nmacro_rules! mac { () => {} }\ntype T = u8;\n";
        assert_eq!(
            names(text, Language::Rust),
            [
                "struct Stack@2",
                "impl Stack@4",
                "method Stack.push@5",
                "trait Peek@8",
                "method Peek.peek@8",
                "impl Peek for Stack@9",
                "method Peek for Stack.peek@9",
                "function main@10",
                "function main.inner@10",
                "enum E@11",
                "module m@12",
                "macro mac@13",
                "type T@14",
            ]
        );
        let lines = outline(text, Language::Rust, 100).unwrap().lines;
        assert_eq!((lines.total, lines.blank, lines.comment), (14, 2, 1));
    }

    #[test]
    fn python_classes_and_nested_functions() {
        let text = "# comment\nclass A:\n    \"\"\"Doc.\"\"\"\n    @property\n    def x(self):\n        def helper():\n            pass\n        return 1\n\nasync def main():\n    pass\n";
        assert_eq!(
            names(text, Language::Python),
            [
                "class A@2",
                "method A.x@5",
                "function x.helper@6",
                "function main@10"
            ]
        );
    }

    #[test]
    fn scripts_and_go() {
        let js = "class A { m() {} }\nfunction f() {}\nconst g = () => 1;\nexport const h = function () {};\nconst n = 3;\n";
        assert_eq!(
            names(js, Language::Javascript),
            [
                "class A@1",
                "method A.m@1",
                "function f@2",
                "function g@3",
                "function h@4"
            ]
        );
        let ts = "interface I { m(): void }\ntype T = string;\nenum E { A }\nnamespace N { export function f(): void {} }\nabstract class C { abstract m(): void; }\n";
        assert_eq!(
            names(ts, Language::Typescript),
            [
                "interface I@1",
                "method I.m@1",
                "type T@2",
                "enum E@3",
                "module N@4",
                "function N.f@4",
                "class C@5",
                "method C.m@5"
            ]
        );
        let go = "package main\n\ntype S struct{}\ntype I interface { M() }\ntype ID = int\n\nfunc (s *S) Get() int { return 0 }\nfunc main() {}\n";
        assert_eq!(
            names(go, Language::Go),
            [
                "struct S@3",
                "interface I@4",
                "method I.M@4",
                "type ID@5",
                "method S.Get@7",
                "function main@8"
            ]
        );
    }

    #[test]
    fn definitions_are_capped_and_errors_flagged() {
        let text: String = (0..50)
            .map(|i| format!("def f{i}():\n    pass\n"))
            .collect();
        let outline = outline(&text, Language::Python, 10).unwrap();
        assert_eq!((outline.definitions.len(), outline.total), (10, 50));
        let broken = super::outline("def f(:\n", Language::Python, 10).unwrap();
        assert!(broken.syntax_errors);
    }
}
