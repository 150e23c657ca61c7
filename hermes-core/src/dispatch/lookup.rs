//! Step 1: find the tool by name (repairing a name the model got slightly wrong), or
//! say which names come close.

use std::sync::Arc;

use super::repair::{Repair, RepairKind, repair_name};
use crate::ToolError;
use crate::registry::{Entry, Registry};

/// How many close names an unknown-tool error lists at most.
const MAX_SUGGESTIONS: usize = 3;

/// The tool called `name`; with `repair`, the one tool `name` unambiguously stands for
/// (and what was repaired).
pub(crate) fn find(
    registry: &Registry,
    name: &str,
    repair: bool,
) -> Result<(Arc<Entry>, Option<Repair>), ToolError> {
    if let Some(entry) = registry.lookup(name) {
        return Ok((entry, None));
    }
    let snapshot = registry.snapshot();
    let names = snapshot.names();
    if repair {
        if let Some(entry) =
            repair_name(name, &names).and_then(|fixed| snapshot.entries.get(&fixed).cloned())
        {
            let detail = format!("{name:?} -> {:?}", entry.spec().name());
            return Ok((entry, Some(Repair::new(RepairKind::Name, detail))));
        }
    }
    let close = close_names(name, &names);
    Err(ToolError::NotFound {
        name: name.to_owned(),
        close,
        available: names.into_iter().map(str::to_owned).collect(),
    })
}

/// Registered names within a small edit distance of `wanted` (ignoring case), or
/// containing it, best first.
pub(crate) fn close_names(wanted: &str, names: &[&str]) -> Vec<String> {
    let wanted = wanted.to_ascii_lowercase();
    let mut scored: Vec<(usize, &str)> = names
        .iter()
        .filter_map(|&name| {
            let lower = name.to_ascii_lowercase();
            let distance = edit_distance(&wanted, &lower);
            let limit = (wanted.len().max(lower.len()) / 3).max(2);
            let related = lower.contains(&wanted) || (lower.len() >= 3 && wanted.contains(&lower));
            (distance <= limit || related).then_some((distance, name))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, name)| name.to_owned())
        .collect()
}

/// Levenshtein distance over chars, two rows.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("calc", "calc"), 0);
    }

    #[test]
    fn suggests_typos_and_case() {
        let names = ["calc", "file_read", "file_write", "web_search"];
        assert_eq!(close_names("clac", &names), ["calc"]);
        assert_eq!(close_names("FILE_WRITE", &names)[0], "file_write");
        assert_eq!(close_names("search", &names), ["web_search"]);
        assert!(close_names("xyz_no_such_tool", &names).is_empty());
    }
}
