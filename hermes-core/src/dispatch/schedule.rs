//! Which calls of one message must wait for which: calls that touch the same resource
//! (a path, the shell, a URL or host, a declared resource such as a process id or a
//! database) run in call order when either of them writes; reads run side by side.
//! And which calls are duplicates of an earlier one.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use super::idempotency::write_canonical;

use crate::{ArgKind, Scope, ToolSpec};

/// What one call touches, read from its tool's parameter kinds and its arguments.
#[derive(Debug, Default)]
pub(crate) struct Footprint {
    resources: Vec<Resource>,
    writes: bool,
}

#[derive(Debug, PartialEq)]
enum Resource {
    /// A lexically normalised absolute path; a path and anything under it overlap.
    Path(PathBuf),
    /// Anything else, compared exactly.
    Named(String),
}

impl Resource {
    fn overlaps(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Path(a), Self::Path(b)) => a.starts_with(b) || b.starts_with(a),
            (Self::Named(a), Self::Named(b)) => a == b,
            _ => false,
        }
    }
}

impl Footprint {
    /// What a call of `spec` with `args` touches. A shell command can touch anything,
    /// so all commands share one resource; a writing tool whose parameters name no
    /// resource is ordered with its own other calls.
    pub(crate) fn of(spec: &ToolSpec, args: &Value) -> Self {
        let mut resources = Vec::new();
        for (name, kind) in spec.arg_kinds() {
            let values: Vec<String> = match args.get(name) {
                Some(Value::Array(items)) => items.iter().filter_map(scalar).collect(),
                Some(value) => scalar(value).into_iter().collect(),
                None => continue,
            };
            for value in values {
                resources.push(match kind {
                    ArgKind::Path(_) => Resource::Path(normalize(&value)),
                    ArgKind::Command => Resource::Named("command".to_owned()),
                    ArgKind::Url => Resource::Named(format!("url:{value}")),
                    ArgKind::Host => {
                        Resource::Named(format!("host:{}", value.to_ascii_lowercase()))
                    }
                    ArgKind::Resource => Resource::Named(format!("resource:{value}")),
                });
            }
        }
        let writes = spec.scope() != Scope::Read;
        if writes && resources.is_empty() {
            resources.push(Resource::Named(format!("tool:{}", spec.name())));
        }
        Self { resources, writes }
    }

    /// Whether the two must run in call order.
    pub(crate) fn conflicts(&self, other: &Self) -> bool {
        (self.writes || other.writes)
            && self
                .resources
                .iter()
                .any(|mine| other.resources.iter().any(|theirs| mine.overlaps(theirs)))
    }
}

/// For each call, the earlier calls it must wait for.
pub(crate) fn dependencies(footprints: &[Option<Footprint>]) -> Vec<Vec<usize>> {
    footprints
        .iter()
        .enumerate()
        .map(|(i, mine)| {
            let Some(mine) = mine else { return Vec::new() };
            footprints[..i]
                .iter()
                .enumerate()
                .filter(|(_, theirs)| theirs.as_ref().is_some_and(|theirs| mine.conflicts(theirs)))
                .map(|(j, _)| j)
                .collect()
        })
        .collect()
}

/// For each call, the earlier call with the same key it duplicates.
pub(crate) fn duplicates(keys: &[String]) -> Vec<Option<usize>> {
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(keys.len());
    keys.iter()
        .enumerate()
        .map(|(i, key)| match first.get(key.as_str()) {
            Some(&j) => Some(j),
            None => {
                first.insert(key, i);
                None
            }
        })
        .collect()
}

/// A call's identity for duplicate detection: the tool and its arguments with object
/// members sorted, so `{"a":1,"b":2}` and `{ "b": 2, "a": 1 }` are the same call.
pub(crate) fn call_key(tool: &str, args: &Value) -> String {
    let mut key = String::with_capacity(tool.len() + 64);
    key.push_str(tool);
    key.push('\0');
    write_canonical(&mut key, args);
    key
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// `path` made absolute (against the working directory) and cleaned of `.` and `..`
/// without touching the filesystem.
fn normalize(path: &str) -> PathBuf {
    let path = Path::new(path);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    let mut clean = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::ParentDir => {
                clean.pop();
            }
            Component::CurDir => {}
            other => clean.push(other),
        }
    }
    clean
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Access;

    fn file_tool(name: &str, scope: Scope) -> ToolSpec {
        ToolSpec::builder(name, "A file tool.")
            .scope(scope)
            .parameters(json!({"type": "object", "properties": {"path": {"type": "string"}}}))
            .arg_kind(
                "path",
                ArgKind::Path(if scope == Scope::Read {
                    Access::Read
                } else {
                    Access::Write
                }),
            )
            .build()
            .unwrap()
    }

    #[test]
    fn writes_to_the_same_path_conflict_however_it_is_spelt() {
        let write = file_tool("write_file", Scope::Write);
        let read = file_tool("read_file", Scope::Read);
        let a = Footprint::of(&write, &json!({"path": "/tmp/x/./a.txt"}));
        let b = Footprint::of(&write, &json!({"path": "/tmp/x/sub/../a.txt"}));
        let c = Footprint::of(&write, &json!({"path": "/tmp/x/b.txt"}));
        let dir = Footprint::of(&write, &json!({"path": "/tmp/x"}));
        let r = Footprint::of(&read, &json!({"path": "/tmp/x/a.txt"}));
        let r2 = Footprint::of(&read, &json!({"path": "/tmp/x/a.txt"}));
        assert!(a.conflicts(&b));
        assert!(!a.conflicts(&c));
        assert!(dir.conflicts(&a), "a directory and a file inside it");
        assert!(
            r.conflicts(&a),
            "a read after a write of the same file waits"
        );
        assert!(!r.conflicts(&r2), "reads run side by side");
    }

    #[test]
    fn commands_and_unnamed_writes() {
        let shell = ToolSpec::builder("terminal", "Run a command.")
            .scope(Scope::Dangerous)
            .parameters(json!({"type": "object", "properties": {"command": {"type": "string"}}}))
            .arg_kind("command", ArgKind::Command)
            .build()
            .unwrap();
        let one = Footprint::of(&shell, &json!({"command": "mkdir x"}));
        let two = Footprint::of(&shell, &json!({"command": "ls x"}));
        assert!(one.conflicts(&two));
        let todo = ToolSpec::builder("todo", "Keep a list.")
            .scope(Scope::Write)
            .build()
            .unwrap();
        let other = ToolSpec::builder("note", "Keep notes.")
            .scope(Scope::Write)
            .build()
            .unwrap();
        let t1 = Footprint::of(&todo, &json!({}));
        assert!(t1.conflicts(&Footprint::of(&todo, &json!({"x": 1}))));
        assert!(!t1.conflicts(&Footprint::of(&other, &json!({}))));
    }

    #[test]
    fn dependencies_point_back_only() {
        let write = file_tool("write_file", Scope::Write);
        let read = file_tool("read_file", Scope::Read);
        let prints = [
            Some(Footprint::of(&write, &json!({"path": "/a"}))),
            Some(Footprint::of(&read, &json!({"path": "/b"}))),
            None,
            Some(Footprint::of(&read, &json!({"path": "/a"}))),
            Some(Footprint::of(&write, &json!({"path": "/a"}))),
        ];
        assert_eq!(
            dependencies(&prints),
            [vec![], vec![], vec![], vec![0], vec![0, 3]]
        );
    }

    #[test]
    fn duplicate_keys_ignore_member_order_and_spacing() {
        let keys = [
            call_key("calc", &json!({"a": 1, "b": [1, {"y": 2, "x": 1}]})),
            call_key(
                "calc",
                &serde_json::from_str(r#"{ "b": [1, {"x": 1, "y": 2}], "a": 1 }"#).unwrap(),
            ),
            call_key("calc", &json!({"a": 2})),
            call_key("other", &json!({"a": 1, "b": [1, {"y": 2, "x": 1}]})),
        ];
        assert_eq!(duplicates(&keys), [None, Some(0), None, None]);
    }
}
