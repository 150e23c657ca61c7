//! rig's side of `scripts/bench-peers`: one `add(a, b)` tool call, from the model's
//! argument string `{"a":2,"b":3}` to the text the model is shown, timed in batches.
//!
//! Version: rig-core and rig-agent 0.44.0, the newest that build with rustc 1.95 (0.45
//! and 0.46 ask for rustc 1.97.1). In 0.44 the agent runtime is the `rig-agent` crate;
//! `rig-core` holds the `Tool` trait and the erased handlers.
//!
//! Entry point: `rig_agent::tool::ToolSet::execute(name, args, &mut ToolContext)`.
//! rig's agent loop (`dispatch_tool_call` in rig-agent's `agent/engine.rs`, private)
//! fires its `on_dispatch` hook, finds the tool's key in the turn's catalog and sends
//! the call over its bus to the registration's erased handler, which parses the string
//! into the typed `Args`, runs `Tool::call` and makes a `ToolResult`. `ToolSet::execute`
//! is the public path onto that same handler (`execute_tool`, then
//! `RegisteredTool::execute`, then `serve_inline_with`): the same parse, call and
//! result, without the hook stack (an agent with no hooks does nothing there) and
//! without the bus hop. The model-facing text is `ToolResult::output().render()`, the
//! rendering the agent also records on its tool span. rig does not check arguments
//! against the JSON schema; serde's typed parse is its only check.
//!
//! Usage: `peer-rig [ITERATIONS] [BATCHES]`; prints one JSON line.

use std::hint::black_box;
use std::time::Instant;

use rig_agent::tool::{ToolContext, ToolSet};
use rig_core::tool::Tool;
use serde::Deserialize;

const ARGS: &str = r#"{"a":2,"b":3}"#;

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

/// `add` written against rig's typed tool trait.
struct Add;

/// `add` cannot fail; rig still asks for an error type.
#[derive(Debug)]
struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("never")
    }
}

impl std::error::Error for Never {}

impl Tool for Add {
    const NAME: &'static str = "add";
    type Args = AddArgs;
    type Output = i64;
    type Error = Never;

    fn description(&self) -> String {
        "Add two integers.".to_owned()
    }

    fn parameters(&self) -> serde_json::Value {
        serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        })
    }

    async fn call(&self, _context: &mut ToolContext, args: AddArgs) -> Result<i64, Never> {
        Ok(args.a + args.b)
    }
}

async fn call_once(tools: &ToolSet, context: &mut ToolContext) -> String {
    let result = tools
        .execute(black_box("add"), black_box(ARGS), context)
        .await;
    result.output().render()
}

fn main() {
    let mut argv = std::env::args().skip(1);
    let iterations: u64 = argv.next().and_then(|s| s.parse().ok()).unwrap_or(200_000);
    let batches: usize = argv.next().and_then(|s| s.parse().ok()).unwrap_or(5);

    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("peer-rig: cannot build a runtime: {error}");
            std::process::exit(2);
        }
    };
    let tools = ToolSet::from_tools(vec![Add]);
    let mut context = ToolContext::new();

    let mut per_batch: Vec<f64> = runtime.block_on(async {
        let first = call_once(&tools, &mut context).await;
        if first != "5" {
            eprintln!("peer-rig: expected \"5\", got {first:?}");
            std::process::exit(1);
        }
        for _ in 0..iterations / 10 {
            black_box(call_once(&tools, &mut context).await);
        }
        let mut per_batch = Vec::with_capacity(batches);
        for _ in 0..batches {
            let start = Instant::now();
            for _ in 0..iterations {
                black_box(call_once(&tools, &mut context).await);
            }
            per_batch.push(start.elapsed().as_nanos() as f64 / iterations as f64);
        }
        per_batch
    });
    per_batch.sort_by(f64::total_cmp);
    let median = per_batch[per_batch.len() / 2];
    let batches_json: Vec<String> = per_batch.iter().map(|ns| format!("{ns:.1}")).collect();
    println!(
        "{{\"name\": \"rig\", \"version\": \"rig-core 0.44.0, rig-agent 0.44.0\", \"ns_per_call\": {median:.1}, \"iterations\": {iterations}, \"batches\": [{}]}}",
        batches_json.join(", ")
    );
}
