//! `process_list`: the processes of the machine, with CPU and memory use, marking those
//! this session started.

use std::cmp::Ordering;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sysinfo::{ProcessRefreshKind, ProcessesToUpdate, System, ThreadKind};

use super::table::ProcessTable;

/// The arguments of `process_list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProcessListArgs {
    /// Only processes whose name contains this (case-insensitive), e.g. `python`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 256))]
    name: Option<String>,
    /// The order of the list.
    #[serde(default)]
    sort: SortBy,
    /// The most processes to return.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 500))]
    limit: usize,
}

fn default_limit() -> usize {
    50
}

/// How the list is ordered.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SortBy {
    /// Most CPU first.
    #[default]
    Cpu,
    /// Most memory first.
    Memory,
    /// By process id.
    Pid,
    /// By name.
    Name,
}

/// One process.
#[derive(Debug, Serialize)]
pub(crate) struct Listed {
    pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_pid: Option<u32>,
    name: String,
    /// CPU use over a short sample; 100 is one core.
    cpu_percent: f32,
    /// Resident memory.
    memory_bytes: u64,
    status: String,
    run_time_seconds: u64,
    /// The handle, when this session started it with process_start.
    #[serde(skip_serializing_if = "Option::is_none")]
    handle: Option<String>,
}

/// The result of `process_list`.
#[derive(Debug, Serialize)]
pub(crate) struct ProcessListOutput {
    processes: Vec<Listed>,
    /// How many processes matched in all.
    total: usize,
    truncated: bool,
}

/// The `process_list` tool.
#[derive(Debug)]
pub(crate) struct ProcessList {
    processes: Arc<ProcessTable>,
    spec: ToolSpec,
}

impl ProcessList {
    pub(crate) fn new(processes: &Arc<ProcessTable>) -> Result<Self, hermes_core::Error> {
        let spec = crate::system::fixed_spec(
            ToolSpec::builder(
                "process_list",
                "List the processes running on the machine, with their CPU and memory use. \
                 Each has pid, parent pid, name, CPU % (over a short sample; 100 is one \
                 core), resident memory in bytes, status, run time, and the handle of those \
                 this session started with process_start. \
                 Filter by a name substring; sorted by cpu (default), memory, pid or name; at \
                 most `limit` (default 50, at most 500) entries, with the total that matched.",
            )
            .parameters_for::<ProcessListArgs>()
            .scope(Scope::Read)
            .permission("process:manage")
            .timeout(Duration::from_secs(20))
            .max_result_bytes(128 * 1024),
        )?;
        Ok(Self {
            processes: Arc::clone(processes),
            spec,
        })
    }
}

impl TypedTool for ProcessList {
    type Args = ProcessListArgs;
    type Output = ProcessListOutput;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: ProcessListArgs,
        ctx: &ToolContext,
    ) -> Result<ProcessListOutput, ToolError> {
        let filter = args.name.unwrap_or_default().to_lowercase();
        let mut processes = tokio::task::spawn_blocking(move || sample(&filter))
            .await
            .map_err(|error| {
                ToolError::failed_with("the process list could not be read; try again", error)
            })?;
        let handles = self.processes.handles_of(ctx.session_id());
        for process in &mut processes {
            process.handle = handles.get(&process.pid).cloned();
        }
        processes.sort_by(|a, b| order(args.sort, a, b));
        let total = processes.len();
        processes.truncate(args.limit);
        Ok(ProcessListOutput {
            processes,
            total,
            truncated: total > args.limit,
        })
    }
}

/// The processes whose lowercased name contains `filter`, CPU sampled over sysinfo's
/// shortest interval. Blocking.
fn sample(filter: &str) -> Vec<Listed> {
    let kind = ProcessRefreshKind::nothing()
        .with_cpu()
        .with_memory()
        .without_tasks();
    let mut system = System::new();
    system.refresh_processes_specifics(ProcessesToUpdate::All, true, kind);
    std::thread::sleep(sysinfo::MINIMUM_CPU_UPDATE_INTERVAL);
    system.refresh_processes_specifics(ProcessesToUpdate::All, true, kind);
    system
        .processes()
        .values()
        .filter(|process| process.thread_kind() != Some(ThreadKind::Userland))
        .filter_map(|process| {
            let name = process.name().to_string_lossy().into_owned();
            name.to_lowercase().contains(filter).then(|| Listed {
                pid: process.pid().as_u32(),
                parent_pid: process.parent().map(sysinfo::Pid::as_u32),
                name,
                cpu_percent: (process.cpu_usage() * 10.0).round() / 10.0,
                memory_bytes: process.memory(),
                status: process.status().to_string().to_lowercase(),
                run_time_seconds: process.run_time(),
                handle: None,
            })
        })
        .collect()
}

fn order(sort: SortBy, a: &Listed, b: &Listed) -> Ordering {
    match sort {
        SortBy::Cpu => b
            .cpu_percent
            .total_cmp(&a.cpu_percent)
            .then(b.memory_bytes.cmp(&a.memory_bytes)),
        SortBy::Memory => b.memory_bytes.cmp(&a.memory_bytes),
        SortBy::Pid => a.pid.cmp(&b.pid),
        SortBy::Name => a.name.cmp(&b.name).then(a.pid.cmp(&b.pid)),
    }
    .then(a.pid.cmp(&b.pid))
}
