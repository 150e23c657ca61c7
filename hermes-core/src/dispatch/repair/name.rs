//! Tool names: `TERMINAL` -> terminal, `web-search` -> web_search, `write file` ->
//! write_file, `TodoTool_tool` -> todo, `"calc"` -> calc, `terminall` -> terminal, and an
//! abbreviation of exactly one name: `CALC` -> calculator.

use crate::dispatch::lookup::edit_distance;

/// Least similarity (1 - distance / length) for a fuzzy match.
const SIMILARITY: f64 = 0.8;

/// The one registered name `wanted` stands for, if it is unambiguous.
pub(crate) fn repair(wanted: &str, names: &[&str]) -> Option<String> {
    let target = canonical(wanted);
    if target.is_empty() {
        return None;
    }
    let same: Vec<&&str> = names
        .iter()
        .filter(|name| canonical(name) == target)
        .collect();
    if let [only] = same.as_slice() {
        return Some((**only).to_owned());
    }
    if !same.is_empty() {
        return None;
    }
    let mut scored: Vec<(f64, &str)> = names
        .iter()
        .map(|name| {
            let other = canonical(name);
            let longest = target.chars().count().max(other.chars().count()).max(1);
            let similarity = 1.0 - edit_distance(&target, &other) as f64 / longest as f64;
            (similarity, *name)
        })
        .filter(|(similarity, _)| *similarity >= SIMILARITY)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    match scored.as_slice() {
        [(best, name)] => Some((*name).to_owned()).filter(|_| *best >= SIMILARITY),
        [(best, name), (second, _), ..] if best > second => Some((*name).to_owned()),
        [] => abbreviation(&target, names),
        _ => None,
    }
}

/// Shortest abbreviation repaired: `calc` for `calculator`.
const MIN_ABBREVIATION: usize = 4;

/// The one name `target` abbreviates (is the start of), if exactly one.
fn abbreviation(target: &str, names: &[&str]) -> Option<String> {
    if target.chars().count() < MIN_ABBREVIATION {
        return None;
    }
    let mut starting = names
        .iter()
        .filter(|name| canonical(name).starts_with(target));
    match (starting.next(), starting.next()) {
        (Some(only), None) => Some((*only).to_owned()),
        _ => None,
    }
}

/// A name reduced to what tells tools apart: no quotes or attribute debris, snake
/// case, no `tool` suffix.
fn canonical(name: &str) -> String {
    let debris = |c: char| {
        matches!(
            c,
            '"' | '\'' | '`' | '<' | '>' | '/' | ':' | '(' | ')' | '{' | '}' | '[' | ']'
        ) || c.is_whitespace()
    };
    let mut core = name.trim_matches(debris);
    // `name="terminal"`, `tool_call name=terminal`
    if let Some((_, value)) = core.rsplit_once('=') {
        core = value.trim_matches(debris);
    }
    let mut snake = String::with_capacity(core.len() + 4);
    let mut after_lower = false;
    for c in core.chars() {
        if c.is_uppercase() {
            if after_lower {
                snake.push('_');
            }
            snake.extend(c.to_lowercase());
            after_lower = false;
        } else if matches!(c, '-' | '.' | '_') || c.is_whitespace() {
            if !snake.ends_with('_') {
                snake.push('_');
            }
            after_lower = false;
        } else {
            snake.push(c);
            after_lower = c.is_lowercase() || c.is_ascii_digit();
        }
    }
    let mut trimmed = snake.trim_matches('_').to_owned();
    while let Some(shorter) = trimmed.strip_suffix("_tool") {
        trimmed = shorter.to_owned();
    }
    trimmed
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &[
        "terminal",
        "web_search",
        "write_file",
        "todo",
        "read_file",
        "calculator",
    ];

    #[test]
    fn the_examples() {
        let cases = [
            ("TERMINAL", Some("terminal")),
            ("web-search", Some("web_search")),
            ("write file", Some("write_file")),
            ("WriteFile", Some("write_file")),
            ("TodoTool_tool", Some("todo")),
            ("todo_tool", Some("todo")),
            ("\"calculator\"", Some("calculator")),
            ("<tool_call name=\"calculator\">", Some("calculator")),
            ("CALC", Some("calculator")),
            ("calc_tool", Some("calculator")),
            ("terminall", Some("terminal")),
            ("web_serch", Some("web_search")),
            ("xyz_no_such_tool", None),
            ("file", None),
            ("write", Some("write_file")),
            ("calculate", Some("calculator")),
            ("cal", None),
            ("", None),
        ];
        for (wanted, expected) in cases {
            assert_eq!(repair(wanted, NAMES).as_deref(), expected, "{wanted}");
        }
    }

    #[test]
    fn an_abbreviation_of_two_names_is_not_repaired() {
        assert_eq!(repair("read", &["read_file", "read_url"]), None);
        assert_eq!(repair("env", &["env_get", "env_set"]), None);
    }

    #[test]
    fn ambiguity_is_not_repaired() {
        // One edit from both: no single best candidate.
        assert_eq!(repair("read_fil", &["read_file", "read_fill"]), None);
    }
}
