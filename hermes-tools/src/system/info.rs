//! `system_info`: what machine the tools run on: OS, kernel, host name, CPUs, memory,
//! disks, uptime and load.
//!
//! It needs no permission: it reads facts anyone on the machine can (`uname`, `free`,
//! `df`), none of them secrets. Environment variables, which can hold secrets, are
//! `env_get`'s, under `env:read`.

use std::time::Duration;

use hermes_core::{Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sysinfo::{CpuRefreshKind, Disks, MemoryRefreshKind, RefreshKind, System};

/// The most disks reported (containers can have dozens of mounts).
const MAX_DISKS: usize = 64;

/// `system_info` takes no arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SystemInfoArgs {}

/// The operating system.
#[derive(Debug, Serialize)]
pub(crate) struct Os {
    name: Option<String>,
    version: Option<String>,
    long_version: Option<String>,
    kernel: Option<String>,
    arch: String,
    hostname: Option<String>,
}

/// The processors.
#[derive(Debug, Serialize)]
pub(crate) struct Cpus {
    logical_cores: usize,
    physical_cores: Option<usize>,
    model: Option<String>,
    vendor: Option<String>,
}

/// Memory and swap, in bytes.
#[derive(Debug, Serialize)]
pub(crate) struct Memory {
    total_bytes: u64,
    used_bytes: u64,
    available_bytes: u64,
    swap_total_bytes: u64,
    swap_used_bytes: u64,
}

/// One mounted file system.
#[derive(Debug, Serialize)]
pub(crate) struct Disk {
    mount_point: String,
    file_system: String,
    total_bytes: u64,
    available_bytes: u64,
    removable: bool,
    read_only: bool,
}

/// Load averages over 1, 5 and 15 minutes.
#[derive(Debug, Serialize)]
pub(crate) struct Load {
    one: f64,
    five: f64,
    fifteen: f64,
}

/// The result of `system_info`.
#[derive(Debug, Serialize)]
pub(crate) struct SystemInfoOutput {
    os: Os,
    cpu: Cpus,
    memory: Memory,
    disks: Vec<Disk>,
    /// Set when more disks were mounted than listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    disks_total: Option<usize>,
    uptime_seconds: u64,
    boot_time_unix: u64,
    load_average: Load,
}

/// The `system_info` tool.
#[derive(Debug)]
pub(crate) struct SystemInfo {
    spec: ToolSpec,
}

impl SystemInfo {
    pub(crate) fn new() -> Result<Self, hermes_core::Error> {
        let spec = super::fixed_spec(
            ToolSpec::builder(
                "system_info",
                "Describe the machine the tools run on. Returns the OS (name, version, kernel, \
                 architecture, host name), CPUs (logical and physical cores, model), memory \
                 and swap (total, used, available, in bytes), mounted disks (mount point, file \
                 system, total and available bytes; at most 64), uptime, boot time and load \
                 averages. Takes no arguments.",
            )
            .parameters_for::<SystemInfoArgs>()
            .scope(Scope::Read)
            .timeout(Duration::from_secs(15))
            .max_result_bytes(64 * 1024),
        )?;
        Ok(Self { spec })
    }
}

impl TypedTool for SystemInfo {
    type Args = SystemInfoArgs;
    type Output = SystemInfoOutput;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        _args: SystemInfoArgs,
        _ctx: &ToolContext,
    ) -> Result<SystemInfoOutput, ToolError> {
        tokio::task::spawn_blocking(describe)
            .await
            .map_err(|error| {
                ToolError::failed_with("the system could not be described; try again", error)
            })
    }
}

/// Read everything. Blocking.
fn describe() -> SystemInfoOutput {
    let system = System::new_with_specifics(
        RefreshKind::nothing()
            .with_cpu(CpuRefreshKind::nothing())
            .with_memory(MemoryRefreshKind::everything()),
    );
    let first_cpu = system.cpus().first();
    let disks = Disks::new_with_refreshed_list();
    let all_disks = disks.list().len();
    let load = System::load_average();
    SystemInfoOutput {
        os: Os {
            name: System::name(),
            version: System::os_version(),
            long_version: System::long_os_version(),
            kernel: System::kernel_version(),
            arch: System::cpu_arch(),
            hostname: System::host_name(),
        },
        cpu: Cpus {
            logical_cores: system.cpus().len(),
            physical_cores: System::physical_core_count(),
            model: first_cpu
                .map(|cpu| cpu.brand().trim().to_owned())
                .filter(|brand| !brand.is_empty()),
            vendor: first_cpu
                .map(|cpu| cpu.vendor_id().trim().to_owned())
                .filter(|vendor| !vendor.is_empty()),
        },
        memory: Memory {
            total_bytes: system.total_memory(),
            used_bytes: system.used_memory(),
            available_bytes: system.available_memory(),
            swap_total_bytes: system.total_swap(),
            swap_used_bytes: system.used_swap(),
        },
        disks: disks
            .list()
            .iter()
            .take(MAX_DISKS)
            .map(|disk| Disk {
                mount_point: disk.mount_point().display().to_string(),
                file_system: disk.file_system().to_string_lossy().into_owned(),
                total_bytes: disk.total_space(),
                available_bytes: disk.available_space(),
                removable: disk.is_removable(),
                read_only: disk.is_read_only(),
            })
            .collect(),
        disks_total: (all_disks > MAX_DISKS).then_some(all_disks),
        uptime_seconds: System::uptime(),
        boot_time_unix: System::boot_time(),
        load_average: Load {
            one: load.one,
            five: load.five,
            fifteen: load.fifteen,
        },
    }
}
