//! One id per call. A model (or server) that reuses an id within one message, or sends
//! none, would leave results that cannot be matched to their calls; such calls get an
//! id of their own before they run, in the transcript and in the results alike.

use std::collections::HashSet;

use crate::ToolCall;

/// Give every call of one message an id no other call of it has: a repeated or empty
/// id becomes `<id>_<n>` (`call_<n>` for an empty one), with the first free `n` from 2.
pub(super) fn make_unique(calls: &mut [ToolCall]) {
    // The usual message: a few calls with distinct ids, checked without allocating.
    let clean = calls.iter().enumerate().all(|(at, call)| {
        !call.id.is_empty() && calls[..at].iter().all(|earlier| earlier.id != call.id)
    });
    if clean {
        return;
    }
    let taken: HashSet<String> = calls.iter().map(|call| call.id.clone()).collect();
    let mut used: HashSet<String> = HashSet::with_capacity(calls.len());
    for call in calls.iter_mut() {
        if !call.id.is_empty() && used.insert(call.id.clone()) {
            continue;
        }
        let base = if call.id.is_empty() { "call" } else { &call.id };
        let fresh = (2..)
            .map(|n| format!("{base}_{n}"))
            .find(|id| !taken.contains(id) && !used.contains(id))
            .unwrap_or_default();
        tracing::debug!(
            was = call.id,
            now = fresh,
            "a tool call id was not unique in its message"
        );
        used.insert(fresh.clone());
        call.id = fresh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(calls: &[ToolCall]) -> Vec<&str> {
        calls.iter().map(|call| call.id.as_str()).collect()
    }

    #[test]
    fn repeated_and_empty_ids_get_their_own() {
        let mut calls: Vec<ToolCall> = ["a", "b", "a", "", "a_2", "a", ""]
            .into_iter()
            .map(|id| ToolCall::new(id, "t", "{}"))
            .collect();
        make_unique(&mut calls);
        assert_eq!(
            ids(&calls),
            ["a", "b", "a_3", "call_2", "a_2", "a_4", "call_3"]
        );
    }

    #[test]
    fn unique_ids_are_left_alone() {
        let mut calls = vec![ToolCall::new("x", "t", "{}"), ToolCall::new("y", "t", "{}")];
        make_unique(&mut calls);
        assert_eq!(ids(&calls), ["x", "y"]);
        let mut one = vec![ToolCall::new("", "t", "{}")];
        make_unique(&mut one);
        assert_eq!(ids(&one), ["call_2"]);
    }
}
