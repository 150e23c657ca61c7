//! `memory_save`, `memory_recall`, `memory_search`: a store, as tools for the model.
//! Each call works in the namespace of its session (`session:<id>`), so sessions do not
//! read each other's facts.

use std::sync::Arc;
use std::time::Duration;

use hermes_core::memory::{MemoryError, MemoryStore};
use hermes_core::{Error, Scope, Tool, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// The three memory tools over `store`.
///
/// # Errors
///
/// A spec the registry would refuse (a bug of this crate; its tests build them).
pub fn memory_tools(store: Arc<dyn MemoryStore>) -> Result<Vec<Arc<dyn Tool>>, Error> {
    Ok(vec![
        Arc::new(Memory::new(MemoryOp::Save, &store)?),
        Arc::new(Memory::new(MemoryOp::Recall, &store)?),
        Arc::new(Memory::new(MemoryOp::Search, &store)?),
    ])
}

/// The namespace of the session `ctx` serves.
fn namespace(ctx: &ToolContext) -> String {
    format!("session:{}", ctx.session_id())
}

fn tool_error(error: MemoryError) -> ToolError {
    match error {
        MemoryError::Invalid(message) => ToolError::failed(message),
        other => ToolError::failed_with(
            "the memory is unavailable right now; go on without it",
            other,
        ),
    }
}

/// Which operation a memory tool performs.
#[derive(Debug, Clone, Copy)]
enum MemoryOp {
    Save,
    Recall,
    Search,
}

/// Arguments of all three tools; each schema lists only its own.
#[derive(Debug, Deserialize)]
struct Args {
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    fact: Option<String>,
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct SaveArgs {
    /// A short name for the fact, e.g. `user_diet`; saving under a key replaces it.
    #[schemars(length(min = 1, max = 200))]
    key: String,
    /// The fact, in a sentence or two.
    #[schemars(length(min = 1, max = 16384))]
    fact: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct RecallArgs {
    /// The fact's key.
    #[schemars(length(min = 1, max = 200))]
    key: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct SearchArgs {
    /// Words to look for in the facts.
    #[schemars(length(min = 1, max = 500))]
    query: String,
    /// The most facts returned (default 5).
    #[schemars(range(min = 1, max = 50))]
    limit: Option<usize>,
}

/// One memory tool.
#[derive(Debug)]
struct Memory {
    op: MemoryOp,
    store: Arc<dyn MemoryStore>,
    spec: ToolSpec,
}

impl Memory {
    fn new(op: MemoryOp, store: &Arc<dyn MemoryStore>) -> Result<Self, Error> {
        let builder = match op {
            MemoryOp::Save => ToolSpec::builder(
                "memory_save",
                "Remember a fact for later conversations: saves `fact` under `key` (replacing \
                 what the key held). Personal data such as emails and phone numbers is masked \
                 before it is stored. Returns the key and when it was saved.",
            )
            .parameters_for::<SaveArgs>()
            .scope(Scope::Write),
            MemoryOp::Recall => ToolSpec::builder(
                "memory_recall",
                "Recall the fact saved under `key`. Returns {found, key, fact, updated_at}; \
                 found is false when nothing was saved under it.",
            )
            .parameters_for::<RecallArgs>()
            .scope(Scope::Read),
            MemoryOp::Search => ToolSpec::builder(
                "memory_search",
                "Search the saved facts for words of `query`, best matches first. Returns \
                 {facts: [{key, fact, updated_at}]}, empty when nothing matches.",
            )
            .parameters_for::<SearchArgs>()
            .scope(Scope::Read),
        };
        let spec = builder
            .tag("memory")
            .timeout(Duration::from_secs(10))
            .max_result_bytes(64 * 1024)
            .build()?;
        Ok(Self {
            op,
            store: Arc::clone(store),
            spec,
        })
    }
}

impl TypedTool for Memory {
    type Args = Args;
    type Output = Value;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Value, ToolError> {
        let namespace = namespace(ctx);
        let key = args.key.unwrap_or_default();
        match self.op {
            MemoryOp::Save => {
                let fact = self
                    .store
                    .save_fact(&namespace, &key, &args.fact.unwrap_or_default())
                    .await
                    .map_err(tool_error)?;
                Ok(json!({"saved": true, "key": fact.key, "updated_at": fact.updated_at}))
            }
            MemoryOp::Recall => match self
                .store
                .recall(&namespace, &key)
                .await
                .map_err(tool_error)?
            {
                Some(fact) => Ok(
                    json!({"found": true, "key": fact.key, "fact": fact.text, "updated_at": fact.updated_at}),
                ),
                None => Ok(json!({"found": false, "key": key})),
            },
            MemoryOp::Search => {
                let facts = self
                    .store
                    .search(
                        &namespace,
                        &args.query.unwrap_or_default(),
                        args.limit.unwrap_or(5),
                    )
                    .await
                    .map_err(tool_error)?;
                let facts: Vec<Value> = facts
                    .into_iter()
                    .map(|fact| json!({"key": fact.key, "fact": fact.text, "updated_at": fact.updated_at}))
                    .collect();
                Ok(json!({"facts": facts}))
            }
        }
    }
}
