//! [`Watcher`]: hot reload. Each watched file is re-read when it changes (debounced),
//! checked whole, and swapped into the registry in one step; a broken edit leaves the
//! previous version serving. Every reload is reported as an event.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use hermes_core::{AgentEvent, EventSink, Registry};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::task::JoinHandle;

use super::error::LoadError;
use super::file::ToolFile;

/// How long a file must be quiet before it is reloaded, by default: editors write a file
/// in several steps.
const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(200);

/// Keeps YAML files of tools in a registry up to date while it lives; dropping it stops
/// watching (the tools stay registered).
///
/// ```no_run
/// # async fn demo() -> Result<(), hermes_tools::yaml::LoadError> {
/// use hermes_core::{EventSink, Registry};
/// use hermes_tools::yaml::Watcher;
///
/// let registry = Registry::new();
/// let events = EventSink::new();
/// let watcher = Watcher::builder(registry.clone())
///     .events(events.clone())
///     .start(["tools/custom_tools.yaml"])?;
/// // Edit the file: `tools_reloaded` (or `tools_reload_failed`) events arrive in `events`.
/// # drop(watcher); Ok(()) }
/// ```
#[derive(Debug)]
pub struct Watcher {
    _watcher: RecommendedWatcher,
    task: JoinHandle<()>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Watcher {
    /// Start configuring a watcher over `registry`.
    pub fn builder(registry: Registry) -> WatcherBuilder {
        WatcherBuilder {
            registry,
            events: EventSink::new(),
            debounce: DEFAULT_DEBOUNCE,
        }
    }
}

/// Configures a [`Watcher`].
#[derive(Debug)]
#[must_use]
pub struct WatcherBuilder {
    registry: Registry,
    events: EventSink,
    debounce: Duration,
}

impl WatcherBuilder {
    /// Where reload events go (default: a sink nobody reads; they are also logged with
    /// `tracing`).
    pub fn events(mut self, events: EventSink) -> Self {
        self.events = events;
        self
    }

    /// How long a file must be quiet before it is reloaded (default 200 ms).
    pub fn debounce(mut self, debounce: Duration) -> Self {
        self.debounce = debounce;
        self
    }

    /// Load each file into the registry now, then watch them. Must be called inside a
    /// tokio runtime (the reloads run on it).
    ///
    /// # Errors
    ///
    /// The first file that does not load ([`ToolFile::load`], [`ToolFile::register`]);
    /// files before it stay registered. [`LoadError::Io`] if a file's directory cannot
    /// be watched.
    pub fn start<P: AsRef<Path>>(
        self,
        files: impl IntoIterator<Item = P>,
    ) -> Result<Watcher, LoadError> {
        let mut watched = HashMap::new();
        let mut dirs = BTreeSet::new();
        for path in files {
            let path = path.as_ref();
            let file = ToolFile::load(path)?;
            file.register(&self.registry)?;
            let key = watch_key(path).map_err(|source| LoadError::Io {
                file: path.to_path_buf(),
                source,
            })?;
            if let Some(dir) = key.parent() {
                dirs.insert(dir.to_path_buf());
            }
            watched.insert(key, file);
        }
        let (sender, receiver) = unbounded_channel();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let Ok(event) = event else { return };
                if matches!(
                    event.kind,
                    EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
                ) {
                    for path in event.paths {
                        // The receiver is gone only when the watcher is being dropped.
                        let _ = sender.send(path);
                    }
                }
            })
            .map_err(|error| watch_error(&dirs, error))?;
        for dir in &dirs {
            watcher
                .watch(dir, RecursiveMode::NonRecursive)
                .map_err(|error| watch_error(&dirs, error))?;
        }
        let reloader = Reloader {
            registry: self.registry,
            events: self.events,
            watched,
        };
        let task = tokio::spawn(reloader.run(receiver, self.debounce));
        Ok(Watcher {
            _watcher: watcher,
            task,
        })
    }
}

/// The path events will name for `path`: its directory made absolute and canonical,
/// joined with its file name (the file itself may be replaced, so it is not resolved).
fn watch_key(path: &Path) -> std::io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path"))?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.canonicalize()?,
        _ => std::env::current_dir()?,
    };
    Ok(dir.join(name))
}

fn watch_error(dirs: &BTreeSet<PathBuf>, error: notify::Error) -> LoadError {
    LoadError::Io {
        file: dirs.iter().next().cloned().unwrap_or_default(),
        source: std::io::Error::other(format!("cannot watch for changes: {error}")),
    }
}

/// The reload loop's state.
struct Reloader {
    registry: Registry,
    events: EventSink,
    /// The current version of each watched file, by the path events name.
    watched: HashMap<PathBuf, ToolFile>,
}

impl Reloader {
    async fn run(mut self, mut changes: UnboundedReceiver<PathBuf>, debounce: Duration) {
        while let Some(first) = changes.recv().await {
            let mut pending = BTreeSet::from([first]);
            // Wait until the files have been quiet for `debounce`.
            loop {
                match tokio::time::timeout(debounce, changes.recv()).await {
                    Ok(Some(path)) => {
                        pending.insert(path);
                    }
                    Ok(None) => return,
                    Err(_) => break,
                }
            }
            for path in pending {
                if self.watched.contains_key(&path) {
                    self.reload(&path);
                }
            }
        }
    }

    /// Load `key`'s file again and swap it in, or report why not.
    fn reload(&mut self, key: &Path) {
        let Some(current) = self.watched.get(key) else {
            return;
        };
        let source = current.source();
        let fresh = ToolFile::load(current.path()).and_then(|fresh| {
            fresh.register(&self.registry)?;
            Ok(fresh)
        });
        match fresh {
            Ok(fresh) => {
                let (added, changed, removed) = fresh.changes_since(current);
                tracing::info!(%source, ?added, ?changed, ?removed, "tools reloaded");
                self.events
                    .emit(AgentEvent::tools_reloaded(source, added, changed, removed));
                self.watched.insert(key.to_path_buf(), fresh);
            }
            Err(error) => {
                tracing::warn!(%source, %error, "tools not reloaded; the previous version keeps serving");
                self.events
                    .emit(AgentEvent::tools_reload_failed(source, error.to_string()));
            }
        }
    }
}
