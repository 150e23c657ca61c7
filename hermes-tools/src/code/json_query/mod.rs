//! `json_query`: a jq filter run by jaq on a JSON value, JSON text or a JSON file.

mod filter;
mod input;
mod run;

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Access, ArgKind, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{FAMILY_TAG, text_file};
use crate::common::Shared;
use run::{Limits, QueryError, Runaways};

/// The largest file queried, in bytes.
const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;
/// How long one query may run.
const QUERY_TIME: Duration = Duration::from_secs(10);

/// The `json_query` tool.
#[derive(Debug)]
pub(crate) struct JsonQuery {
    spec: ToolSpec,
    shared: Arc<Shared>,
    runaways: Runaways,
}

/// The arguments of `json_query`: a filter and one of `input` or `path`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct JsonQueryArgs {
    /// A jq filter, e.g. `.items[] | select(.price > 10) | {name, price}`. jq's standard
    /// library is available except `env`, `halt`, `input`/`inputs` and modules.
    #[schemars(length(min = 1, max = 10000))]
    filter: String,
    /// The JSON to query: any JSON value, or a string holding JSON text (one value, or
    /// several separated by whitespace as in JSON Lines; each is queried in turn).
    /// Give this or `path`.
    input: Option<Value>,
    /// A file of JSON text to query instead (relative to the workspace, at most 32 MiB).
    path: Option<String>,
    /// Collect every input value into one array and query that, like `jq --slurp`.
    #[serde(default)]
    slurp: bool,
    /// The most outputs to return.
    #[serde(default = "default_max_outputs")]
    #[schemars(range(min = 1, max = 1000))]
    max_outputs: usize,
}

fn default_max_outputs() -> usize {
    100
}

/// What `json_query` returns.
#[derive(Debug, Serialize)]
pub(crate) struct JsonQueryReport {
    /// Every output of the filter, in order, as JSON values.
    outputs: Vec<Value>,
    /// How many outputs are shown.
    count: usize,
    /// Whether outputs were left out (see `note`).
    truncated: bool,
    /// Why outputs were left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

impl JsonQuery {
    /// The tool.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, hermes_core::Error> {
        let spec = ToolSpec::builder(
            "json_query",
            "Run a jq filter on JSON and get its outputs as a JSON array: give the JSON as \
             `input` (a value, or a string of JSON text or JSON Lines) or as a file `path`. \
             Use it to pick, filter, count or reshape JSON exactly instead of reading it by \
             eye; errors give the line and column in the filter.",
        )
        .parameters_for::<JsonQueryArgs>()
        .tag(FAMILY_TAG)
        .scope(Scope::Read)
        .permission("file:read")
        .arg_kind("path", ArgKind::Path(Access::Read))
        .timeout(QUERY_TIME + Duration::from_secs(20))
        .max_result_bytes(256 * 1024)
        .build()?;
        Ok(Self {
            spec,
            shared: Arc::clone(shared),
            runaways: Runaways::default(),
        })
    }

    /// The input values of a call.
    async fn inputs(
        &self,
        ctx: &ToolContext,
        input: Option<Value>,
        path: Option<String>,
    ) -> Result<Vec<Value>, ToolError> {
        match (input, path) {
            (Some(input), None) => input::from_argument(input).map_err(ToolError::failed),
            (None, Some(path)) => {
                let file = text_file::read(&self.shared, ctx, &path, MAX_FILE_BYTES).await?;
                let shown = format!("`{}`", file.shown);
                tokio::task::spawn_blocking(move || input::parse_stream(&file.text, &shown))
                    .await
                    .map_err(|error| ToolError::failed_with("reading the file stopped", error))?
                    .map_err(ToolError::failed)
            }
            (Some(_), Some(_)) => Err(ToolError::failed("give `input` or `path`, not both")),
            (None, None) => Err(ToolError::failed(
                "give the JSON to query as `input` (a value or JSON text) or as a file `path`",
            )),
        }
    }
}

impl TypedTool for JsonQuery {
    type Args = JsonQueryArgs;
    type Output = JsonQueryReport;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: JsonQueryArgs,
        ctx: &ToolContext,
    ) -> Result<JsonQueryReport, ToolError> {
        let mut inputs = self.inputs(ctx, args.input, args.path).await?;
        if args.slurp {
            inputs = vec![Value::Array(inputs)];
        }
        let limits = Limits {
            max_outputs: args.max_outputs.clamp(1, 1000),
            max_bytes: self.shared.config.max_output_bytes(),
            time: QUERY_TIME,
        };
        let outputs = run::run(args.filter, inputs, limits, &self.runaways, ctx)
            .await
            .map_err(|error| explain(error, self.spec.name()))?;
        Ok(JsonQueryReport {
            count: outputs.values.len(),
            truncated: outputs.cut.is_some(),
            outputs: outputs.values,
            note: outputs.cut,
        })
    }
}

/// A query's failure, for the model.
fn explain(error: QueryError, tool: &str) -> ToolError {
    match error {
        QueryError::Compile(message) => {
            ToolError::failed(format!("the filter does not compile: {message}"))
        }
        QueryError::Runtime {
            message,
            input,
            outputs,
        } => ToolError::failed(format!(
            "the filter failed on input {input} after {outputs} output(s): {message}; fix the \
             filter (`.a?` skips values that cannot be indexed, `// x` supplies a default, \
             `try f catch .` inspects the error)"
        )),
        QueryError::Output(message) => ToolError::failed(message),
        QueryError::TimedOut(after) => ToolError::failed(format!(
            "the filter ran longer than {} s and was stopped; it may loop forever (`repeat`, \
             recursion) or work on too much at once",
            after.as_secs()
        )),
        QueryError::Cancelled => ToolError::Cancelled {
            tool: tool.to_owned(),
        },
        QueryError::Busy(message) => ToolError::failed(message),
    }
}
