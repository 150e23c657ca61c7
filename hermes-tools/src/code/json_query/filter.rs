//! A jq filter compiled by jaq, with the standard library minus what reaches outside
//! the query (`env`, `halt`, `halt_error`: the host's secrets, the host's process),
//! and errors that say where, in lines and columns.

use jaq_core::box_iter::box_once;
use jaq_core::load::{Arena, File, Loader, lex};
use jaq_core::{Compiler, Error, Exn, Native, compile};
use jaq_json::Val;

/// A compiled filter.
pub(super) type Filter = jaq_core::Filter<Native<Val>>;

/// The longest filter accepted, in bytes.
pub(super) const MAX_FILTER_LEN: usize = 10_000;
/// The deepest bracket nesting accepted: the parser recurses, and its stack is finite.
const MAX_NESTING: usize = 200;

/// Standard filters that reach outside the query, replaced by ones that refuse.
const WITHHELD: &[&str] = &["env", "halt", "halt_error"];

/// Compile `code`.
///
/// # Errors
///
/// What is wrong and where, for the model.
pub(super) fn compile(code: &str) -> Result<Filter, String> {
    if code.len() > MAX_FILTER_LEN {
        return Err(format!(
            "the filter is {} bytes long, more than {MAX_FILTER_LEN}; simplify it",
            code.len()
        ));
    }
    check_nesting(code)?;
    let arena = Arena::default();
    let loader = Loader::new(jaq_std::defs().chain(jaq_json::defs()));
    let modules = loader
        .load(&arena, File { code, path: () })
        .map_err(|errors| {
            let messages = errors
                .into_iter()
                .flat_map(|(_file, error)| load_error(code, error));
            join(messages)
        })?;
    Compiler::default()
        .with_funs(functions())
        .compile(modules)
        .map_err(|errors| {
            let messages = errors.into_iter().flat_map(|(_file, undefined)| {
                undefined
                    .into_iter()
                    .map(|(name, kind)| undefined_error(code, name, &kind))
            });
            join(messages)
        })
}

/// The native filters: jaq's standard ones, with [`WITHHELD`] ones refusing.
fn functions() -> impl Iterator<Item = jaq_std::Filter<Native<Val>>> {
    let allowed = jaq_std::funs::<Val>()
        .chain(jaq_json::funs())
        .filter(|(name, _, _)| !WITHHELD.contains(name));
    let refusing: [jaq_std::Filter<Native<Val>>; 3] = [
        ("env", jaq_std::v(0), Native::new(|_, _| refuse("env"))),
        ("halt", jaq_std::v(0), Native::new(|_, _| refuse("halt"))),
        (
            "halt_error",
            jaq_std::v(1),
            Native::new(|_, _| refuse("halt_error")),
        ),
    ];
    allowed.chain(refusing)
}

/// The error a withheld filter raises.
fn refuse<'a>(name: &str) -> jaq_core::ValXs<'a, Val> {
    box_once(Err(Exn::from(Error::str(format!(
        "`{name}` is not available in json_query"
    )))))
}

/// Refuse filters nested deeper than [`MAX_NESTING`] before the parser recurses into them.
fn check_nesting(code: &str) -> Result<(), String> {
    let mut depth = 0usize;
    for (at, byte) in code.bytes().enumerate() {
        match byte {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(format!(
                        "the filter nests brackets deeper than {MAX_NESTING} levels (at {}); simplify it",
                        location(code, at)
                    ));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The messages of one load (lex or parse) error.
fn load_error(code: &str, error: jaq_core::load::Error<&str>) -> Vec<String> {
    match error {
        jaq_core::load::Error::Io(errors) => errors
            .into_iter()
            .map(|(path, message)| {
                format!("cannot load `{path}`: {message}; modules are not supported")
            })
            .collect(),
        jaq_core::load::Error::Lex(errors) => errors
            .into_iter()
            .map(|(expected, rest)| lex_error(code, &expected, rest))
            .collect(),
        jaq_core::load::Error::Parse(errors) => errors
            .into_iter()
            .map(|(expected, found)| {
                let what = if found.is_empty() {
                    "the end of the filter".to_owned()
                } else {
                    format!("`{found}`")
                };
                format!(
                    "syntax error at {}: expected {}, found {what}",
                    located(code, offset(code, found)),
                    expected.as_str()
                )
            })
            .collect(),
    }
}

/// The message of a lex error: `rest` is the input from where lexing failed.
fn lex_error(code: &str, expected: &lex::Expect<&str>, rest: &str) -> String {
    let at = offset(code, rest);
    match expected {
        lex::Expect::Delim(open) => {
            let closing = match *open {
                "(" => "`)`",
                "[" => "`]`",
                "{" => "`}`",
                "\"" => "a closing `\"`",
                _ => "its closing delimiter",
            };
            format!(
                "syntax error: `{open}` at {} is never closed; add {closing}",
                located(code, offset(code, open))
            )
        }
        lex::Expect::Digit => format!("syntax error at {}: expected a digit", located(code, at)),
        lex::Expect::Ident => format!(
            "syntax error at {}: expected a name after `$` or `@`",
            located(code, at)
        ),
        lex::Expect::Escape => format!(
            "syntax error at {}: invalid string escape (use \\\\, \\\", \\n, \\t, \\uXXXX or \\(...))",
            located(code, at)
        ),
        lex::Expect::Unicode => format!(
            "syntax error at {}: expected 4 hex digits of a code point after \\u",
            located(code, at)
        ),
        _ => format!(
            "syntax error at {}: unexpected character",
            located(code, at)
        ),
    }
}

/// The message of an undefined name.
fn undefined_error(code: &str, name: &str, kind: &compile::Undefined) -> String {
    let shown = match kind {
        compile::Undefined::Filter(arity) => format!("{name}/{arity}"),
        _ => name.to_owned(),
    };
    format!(
        "undefined {} `{shown}` at {}; check its name and number of arguments",
        kind.as_str(),
        located(code, offset(code, name))
    )
}

/// The byte offset of `part` in `code`, if `part` is a slice of it.
fn offset(code: &str, part: &str) -> Option<usize> {
    (part.as_ptr() as usize)
        .checked_sub(code.as_ptr() as usize)
        .filter(|at| *at <= code.len())
}

/// `line L, column C` for an offset, or `an unknown position`.
fn located(code: &str, at: Option<usize>) -> String {
    at.map_or_else(|| "an unknown position".to_owned(), |at| location(code, at))
}

/// `line L, column C` (both 1-based, columns in characters) of byte `at` in `code`.
fn location(code: &str, at: usize) -> String {
    let before = code.get(..at).unwrap_or(code);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit_once('\n')
        .map_or(before, |(_, last)| last)
        .chars()
        .count()
        + 1;
    format!("line {line}, column {column}")
}

/// Distinct messages, `; `-joined.
fn join(messages: impl Iterator<Item = String>) -> String {
    let mut unique: Vec<String> = Vec::new();
    for message in messages {
        if !unique.contains(&message) {
            unique.push(message);
        }
    }
    if unique.is_empty() {
        return "the filter could not be compiled".to_owned();
    }
    unique.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(code: &str) -> String {
        match compile(code) {
            Ok(_) => panic!("`{code}` compiled"),
            Err(message) => message,
        }
    }

    #[test]
    fn errors_say_where() {
        assert!(compile(".a | map(. + 1)").is_ok());
        let unclosed = error(".a | (1 + 2");
        assert!(
            unclosed.contains("`(` at line 1, column 6 is never closed"),
            "{unclosed}"
        );
        let undefined = error(".a |\n  foo(1)");
        assert!(
            undefined.contains("undefined filter `foo/1` at line 2, column 3"),
            "{undefined}"
        );
        let syntax = error(".a | | .b");
        assert!(
            syntax.contains("syntax error at line 1, column 6"),
            "{syntax}"
        );
        let variable = error("$nope");
        assert!(
            variable.contains("undefined variable `$nope`"),
            "{variable}"
        );
    }

    #[test]
    fn outside_reaching_filters_are_refused_and_depth_is_bounded() {
        assert!(compile("env").is_ok());
        assert!(compile("halt_error").is_ok());
        assert!(error(&"[".repeat(300)).contains("deeper than 200"));
        assert!(error(&".".repeat(MAX_FILTER_LEN + 1)).contains("more than"));
    }
}
