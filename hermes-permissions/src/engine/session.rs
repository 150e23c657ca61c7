//! What the engine remembers per session: its profile (the session layer), its working
//! directory, approvals granted for the session, and idempotent `write` results. Bounded.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use crate::Profile;

/// One session's state.
#[derive(Debug, Default)]
pub(crate) struct Session {
    pub(crate) profile: Option<Arc<Profile>>,
    pub(crate) workspace: Option<PathBuf>,
    pub(crate) grants: Bounded<()>,
    pub(crate) results: Bounded<String>,
    /// When it was last used (a counter), for eviction.
    touched: u64,
}

/// A map that forgets its oldest entries past a capacity.
#[derive(Debug, Default)]
pub(crate) struct Bounded<V> {
    entries: HashMap<String, V>,
    order: VecDeque<String>,
}

impl<V> Bounded<V> {
    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        self.entries.get(key)
    }

    pub(crate) fn insert(&mut self, key: String, value: V, capacity: usize) {
        if self.entries.insert(key.clone(), value).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > capacity.max(1) {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            self.entries.remove(&oldest);
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Every session, at most `max` of them (the least recently used goes first).
#[derive(Debug)]
pub(crate) struct Sessions {
    sessions: HashMap<String, Session>,
    clock: u64,
    max: usize,
}

impl Sessions {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            sessions: HashMap::new(),
            clock: 0,
            max: max.max(1),
        }
    }

    /// The session, made if new.
    pub(crate) fn entry(&mut self, id: &str) -> &mut Session {
        self.clock += 1;
        if !self.sessions.contains_key(id) && self.sessions.len() >= self.max {
            if let Some(oldest) = self
                .sessions
                .iter()
                .min_by_key(|(_, session)| session.touched)
                .map(|(id, _)| id.clone())
            {
                self.sessions.remove(&oldest);
            }
        }
        let session = self.sessions.entry(id.to_owned()).or_default();
        session.touched = self.clock;
        session
    }

    pub(crate) fn get(&self, id: &str) -> Option<&Session> {
        self.sessions.get(id)
    }

    pub(crate) fn remove(&mut self, id: &str) {
        self.sessions.remove(id);
    }

    pub(crate) fn len(&self) -> usize {
        self.sessions.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_forgets_the_oldest() {
        let mut map = Bounded::default();
        for i in 0..5 {
            map.insert(i.to_string(), i, 3);
        }
        assert_eq!(map.len(), 3);
        assert!(map.get("0").is_none() && map.get("4").is_some());
    }

    #[test]
    fn sessions_evict_the_least_recently_used() {
        let mut sessions = Sessions::new(2);
        sessions.entry("a");
        sessions.entry("b");
        sessions.entry("a");
        sessions.entry("c");
        assert_eq!(sessions.len(), 2);
        assert!(sessions.get("b").is_none() && sessions.get("a").is_some());
    }
}
