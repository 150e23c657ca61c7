//! The [`Registry`]: the set of tools an agent may call, swapped atomically on change.

mod snapshot;

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use arc_swap::ArcSwap;
use serde_json::Value;
use tokio_util::task::TaskTracker;

pub use snapshot::Availability;
pub(crate) use snapshot::{Entries, Entry, Snapshot};

use crate::{Error, Tool};

/// The tools an agent may call. Cheap to clone: clones share one set.
///
/// Reads (every dispatched call) load an immutable snapshot without locking; changes
/// build a new snapshot and swap it in. A call in flight holds its own `Arc` of the tool,
/// so [`replace`](Registry::replace) and [`unregister`](Registry::unregister) never
/// interrupt it, and the old tool's `teardown` runs only after that call ends.
///
/// ```
/// use hermes_core::{Registry, demo::Calc};
///
/// let registry = Registry::new();
/// registry.register(Calc::new())?;
/// assert_eq!(registry.names(), ["calc"]);
/// assert!(registry.register(Calc::new()).is_err()); // names are unique
/// # Ok::<(), hermes_core::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct Registry {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    current: ArcSwap<Snapshot>,
    /// Serialises writers; readers never take it.
    writer: Mutex<()>,
    teardowns: TaskTracker,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a tool.
    ///
    /// # Errors
    ///
    /// [`Error::DuplicateTool`] if the name is taken; [`Error::InvalidSchema`] if the
    /// parameters schema does not compile.
    pub fn register(&self, tool: impl Tool) -> Result<(), Error> {
        self.register_arc(Arc::new(tool))
    }

    /// Add a shared tool; see [`register`](Self::register).
    ///
    /// # Errors
    ///
    /// As [`register`](Self::register).
    pub fn register_arc(&self, tool: Arc<dyn Tool>) -> Result<(), Error> {
        let entry = self.entry(tool)?;
        self.update(|entries| {
            let name = entry.spec().name().to_owned();
            if entries.contains_key(&name) {
                return Err(Error::DuplicateTool { name });
            }
            entries.insert(name, entry);
            Ok(())
        })
    }

    /// Add a tool, or swap it for the one registered under the same name. Returns the
    /// tool it replaced. Calls in flight on the old tool finish on it.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSchema`] if the parameters schema does not compile; the registry
    /// is then unchanged.
    pub fn replace(&self, tool: impl Tool) -> Result<Option<Arc<dyn Tool>>, Error> {
        self.replace_arc(Arc::new(tool))
    }

    /// [`replace`](Self::replace) for a shared tool.
    ///
    /// # Errors
    ///
    /// As [`replace`](Self::replace).
    pub fn replace_arc(&self, tool: Arc<dyn Tool>) -> Result<Option<Arc<dyn Tool>>, Error> {
        let entry = self.entry(tool)?;
        self.update(|entries| {
            let old = entries.insert(entry.spec().name().to_owned(), entry);
            Ok(old.map(|old| Arc::clone(old.tool())))
        })
    }

    /// Remove a tool and return it. Calls in flight finish.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownTool`] if no tool has that name.
    pub fn unregister(&self, name: &str) -> Result<Arc<dyn Tool>, Error> {
        self.update(|entries| {
            entries
                .remove(name)
                .map(|old| Arc::clone(old.tool()))
                .ok_or_else(|| Error::UnknownTool {
                    name: name.to_owned(),
                })
        })
    }

    /// The tool registered under `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.lookup(name).map(|entry| Arc::clone(entry.tool()))
    }

    /// Whether a tool has that name.
    pub fn contains(&self, name: &str) -> bool {
        self.shared.current.load().entries.contains_key(name)
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.shared.current.load().entries.len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The registered names, sorted.
    pub fn names(&self) -> Vec<String> {
        let snapshot = self.shared.current.load();
        snapshot.names().into_iter().map(str::to_owned).collect()
    }

    /// The registered tools, sorted by name.
    pub fn list(&self) -> Vec<Arc<dyn Tool>> {
        let snapshot = self.shared.current.load();
        snapshot
            .names()
            .into_iter()
            .filter_map(|name| snapshot.entries.get(name))
            .map(|entry| Arc::clone(entry.tool()))
            .collect()
    }

    /// The OpenAI function objects of every tool, sorted by name. Built once per change,
    /// so calling this every round costs one `Arc` clone.
    pub fn schemas(&self) -> Arc<[Value]> {
        Arc::clone(&self.shared.current.load().schemas)
    }

    /// Whether the tool can serve calls (its setup state).
    pub fn availability(&self, name: &str) -> Option<Availability> {
        self.lookup(name).map(|entry| entry.availability())
    }

    /// Run `setup` of every tool that has not run it yet, and report each tool's state,
    /// sorted by name. Without this, setup runs lazily before a tool's first call.
    pub async fn prepare(&self) -> Vec<(String, Availability)> {
        let snapshot = self.shared.current.load_full();
        let mut report = Vec::with_capacity(snapshot.entries.len());
        for name in snapshot.names() {
            if let Some(entry) = snapshot.entries.get(name) {
                // The error is recorded in the entry; availability() reports it.
                let _ = entry.ensure_ready().await;
                report.push((name.to_owned(), entry.availability()));
            }
        }
        report
    }

    /// Remove every tool and wait until each one that was set up has been torn down
    /// (after its calls in flight end).
    pub async fn shutdown(&self) {
        let _ = self.update(|entries| {
            entries.clear();
            Ok(())
        });
        self.shared.teardowns.close();
        self.shared.teardowns.wait().await;
        self.shared.teardowns.reopen();
    }

    /// Swap every tool registered from `source` (a YAML file's path, a plugin's name...)
    /// for `tools`, in one step: a request sees either the old set or the new one, never a
    /// mix. Calls in flight finish on the tools they started with; tools left out stop
    /// being offered at once. Tools registered without a source, or from another source,
    /// are never touched.
    ///
    /// ```
    /// use hermes_core::{Registry, demo::Calc};
    ///
    /// let registry = Registry::new();
    /// let swap = registry.swap_source("tools.yaml", vec![std::sync::Arc::new(Calc::new())])?;
    /// assert_eq!(swap.added, ["calc"]);
    /// assert_eq!(registry.source_of("calc").as_deref(), Some("tools.yaml"));
    /// let swap = registry.swap_source("tools.yaml", Vec::new())?;
    /// assert_eq!(swap.removed, ["calc"]);
    /// # Ok::<(), hermes_core::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::DuplicateTool`] if a name appears twice in `tools` or belongs to a tool
    /// not from `source`; [`Error::InvalidSchema`] if a schema does not compile. The
    /// registry is then unchanged.
    pub fn swap_source(
        &self,
        source: &str,
        tools: Vec<Arc<dyn Tool>>,
    ) -> Result<SourceSwap, Error> {
        let tag: Arc<str> = Arc::from(source);
        let mut fresh = Vec::with_capacity(tools.len());
        for tool in tools {
            fresh.push(Arc::new(Entry::new(
                tool,
                self.shared.teardowns.clone(),
                Some(Arc::clone(&tag)),
            )?));
        }
        self.update(|entries| {
            let mut swap = SourceSwap::default();
            let mut incoming = std::collections::HashSet::with_capacity(fresh.len());
            for entry in &fresh {
                let name = entry.spec().name();
                if !incoming.insert(name) {
                    return Err(Error::DuplicateTool {
                        name: name.to_owned(),
                    });
                }
                match entries.get(name) {
                    Some(old) if old.source().map(AsRef::as_ref) != Some(source) => {
                        return Err(Error::DuplicateTool {
                            name: name.to_owned(),
                        });
                    }
                    Some(_) => swap.replaced.push(name.to_owned()),
                    None => swap.added.push(name.to_owned()),
                }
            }
            entries.retain(|name, entry| {
                let ours = entry.source().map(AsRef::as_ref) == Some(source);
                if ours && !incoming.contains(name.as_str()) {
                    swap.removed.push(name.clone());
                    return false;
                }
                true
            });
            for entry in &fresh {
                entries.insert(entry.spec().name().to_owned(), Arc::clone(entry));
            }
            swap.added.sort_unstable();
            swap.replaced.sort_unstable();
            swap.removed.sort_unstable();
            Ok(swap)
        })
    }

    /// The source a tool was registered from with [`swap_source`](Self::swap_source);
    /// `None` for tools registered one by one, or unknown names.
    pub fn source_of(&self, name: &str) -> Option<String> {
        self.lookup(name)
            .and_then(|entry| entry.source().map(|source| source.to_string()))
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<Arc<Entry>> {
        self.shared.current.load().entries.get(name).cloned()
    }

    pub(crate) fn snapshot(&self) -> Arc<Snapshot> {
        self.shared.current.load_full()
    }

    fn entry(&self, tool: Arc<dyn Tool>) -> Result<Arc<Entry>, Error> {
        Entry::new(tool, self.shared.teardowns.clone(), None).map(Arc::new)
    }

    /// Apply `change` to a copy of the current entries and swap it in if it succeeds.
    fn update<T>(&self, change: impl FnOnce(&mut Entries) -> Result<T, Error>) -> Result<T, Error> {
        let _writer = self
            .shared
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut entries = self.shared.current.load().entries.clone();
        let outcome = change(&mut entries)?;
        self.shared.current.store(Arc::new(Snapshot::new(entries)));
        Ok(outcome)
    }
}

/// What [`Registry::swap_source`] changed: tool names, each list sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SourceSwap {
    /// Names the source did not have before.
    pub added: Vec<String>,
    /// Names the source had and still has (their tools were swapped for the new ones).
    pub replaced: Vec<String>,
    /// Names the source no longer has.
    pub removed: Vec<String>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.names())
            .finish()
    }
}
