//! What the benches share: the `add` tool and its hand-written baseline.
#![allow(dead_code, reason = "each bench uses part of it")]

use std::collections::HashMap;

use hermes::{Message, Tool, ToolCall, ToolContext, ToolFuture, ToolOutput, ToolSpec, parse_args};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The arguments every bench sends.
pub(crate) const ARGS: &str = r#"{"a":2,"b":3}"#;
/// What a call of `add` comes to, as the serialized tool message.
pub(crate) const EXPECTED: &str =
    r#"{"role":"tool","tool_call_id":"call_1","name":"add","content":"5"}"#;

#[derive(Deserialize, JsonSchema)]
pub(crate) struct AddArgs {
    pub(crate) a: i64,
    pub(crate) b: i64,
}

pub(crate) fn add(args: &AddArgs) -> i64 {
    args.a + args.b
}

/// `add` as a synchronous tool named `name`.
pub(crate) struct SyncAdd(pub(crate) ToolSpec);

impl SyncAdd {
    pub(crate) fn named(name: &str) -> Self {
        Self(add_spec(name))
    }
}

impl Tool for SyncAdd {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn run<'a>(&'a self, args: Value, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(
            parse_args::<AddArgs>(args).and_then(|args| ToolOutput::json(&add(&args))),
        )
    }
}

pub(crate) fn add_spec(name: &str) -> ToolSpec {
    ToolSpec::builder(name, "Add two integers.")
        .parameters_for::<AddArgs>()
        .build()
        .unwrap()
}

/// The baseline's registry: a name to a compiled validator and a function.
pub(crate) type Handler = fn(&AddArgs) -> i64;

/// The least a dispatcher can do: look up, parse, validate, call, serialize.
pub(crate) struct Baseline(HashMap<String, (jsonschema::Validator, Handler)>);

impl Baseline {
    pub(crate) fn new() -> Self {
        let spec = add_spec("add");
        let validator = jsonschema::validator_for(spec.parameters()).unwrap();
        let mut tools: HashMap<String, (jsonschema::Validator, Handler)> = HashMap::new();
        tools.insert("add".to_owned(), (validator, add as Handler));
        Self(tools)
    }

    /// `call` for each of `calls`, one after the other.
    pub(crate) fn call_all(&self, calls: &[ToolCall]) -> Vec<String> {
        calls.iter().map(|call| self.call(call)).collect()
    }

    pub(crate) fn call(&self, call: &ToolCall) -> String {
        let (validator, handler) = self.0.get(call.name()).expect("known tool");
        let args: Value = serde_json::from_str(call.arguments()).expect("valid JSON");
        assert!(validator.is_valid(&args));
        let args: AddArgs = serde_json::from_value(args).expect("typed args");
        let content = serde_json::to_string(&handler(&args)).expect("serializable");
        serde_json::to_string(&Message::tool(call.id.clone(), call.name(), content))
            .expect("message")
    }
}

/// A current-thread runtime, as the gateway benches use.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A workspace on disk with `files` in it (each holding a line), as a permission check
/// meets it in use: the paths a model reads exist. Removed when dropped.
pub(crate) struct Workspace {
    dir: tempfile::TempDir,
}

impl Workspace {
    pub(crate) fn with_files(files: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "a line\n").unwrap();
        }
        Self { dir }
    }

    /// The workspace's absolute path, without symbolic links.
    pub(crate) fn root(&self) -> String {
        let root = std::fs::canonicalize(self.dir.path()).unwrap();
        root.to_str().unwrap().to_owned()
    }
}

/// A permission engine whose profile allows `file:read` under `allowed_paths` only,
/// with `workspace` as the working directory.
pub(crate) fn reader_engine<S: AsRef<str>>(
    workspace: &str,
    allowed_paths: &[S],
) -> hermes::permissions::PermissionEngine {
    use hermes::permissions::{PermissionEngine, Profile, Restrictions};
    let profile = Profile::builder("reader")
        .allow("file:read")
        .restrict(
            "file:read",
            Restrictions::builder()
                .allowed_paths(allowed_paths.iter().map(AsRef::as_ref))
                .build()
                .unwrap(),
        )
        .build()
        .unwrap();
    PermissionEngine::builder(profile)
        .workspace(workspace)
        .build()
}
