//! What the platform tests share: servers from the environment (skipped loudly, or a
//! failure under `CI`), benches whose policy grants or withholds `database:write`, and
//! unique names so tests sharing a server never meet.
//! Shared by the database, redis and docker tests; each uses a part.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hermes_core::{ApproveAll, Dispatcher, Policy};
use hermes_permissions::{PermissionEngine, ProfileSet};
use hermes_tools::{PlatformConfig, ToolsConfig};

use crate::common::Bench;

/// The server named by `var`, or `None` after saying loudly that the test is skipped.
///
/// # Panics
///
/// When `CI` is set and `var` is not: CI must run these tests.
pub fn server(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ if std::env::var_os("CI").is_some() => panic!(
            "CI is set but {var} is not: start the test servers with `eval \"$(scripts/services)\"`"
        ),
        _ => {
            eprintln!(
                "\n*** SKIPPED: {var} is not set. Run `eval \"$(scripts/services)\"` to run the tests against real servers. ***\n"
            );
            None
        }
    }
}

/// A name no other test uses: `prefix` and a counter, with the process id.
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{prefix}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A profile granting everything: writes allowed.
pub const OPEN: &str = "profiles:\n  open:\n    allow: [\"*\"]\n";
/// A profile granting reads of databases only.
pub const READ_ONLY: &str = "profiles:\n  open:\n    allow: [\"database:read\", \"file:read\"]\n";

/// A bench whose policy is the permission engine with the profile `open` of
/// `profiles`, and whose platform settings are `platform`.
pub fn engine_bench(profiles: &str, platform: PlatformConfig) -> Bench {
    let profiles = ProfileSet::from_yaml(profiles).unwrap();
    let mut bench = Bench::new();
    let config = ToolsConfig::builder()
        .workspace_root(bench.root())
        .platform(platform)
        .build();
    let registry = hermes_tools::builtin(config).unwrap();
    let engine = PermissionEngine::builder(profiles.get("open").unwrap())
        .workspace(bench.root())
        .build();
    let policy: Arc<dyn Policy> = Arc::new(engine);
    bench.dispatcher = Dispatcher::builder(registry)
        .approver(ApproveAll)
        .policy_arc(policy)
        .build()
        .unwrap();
    bench
}

/// A bench that may write (the engine grants `database:write`).
pub fn writer() -> Bench {
    engine_bench(OPEN, PlatformConfig::default())
}

/// A bench with the default policy: every statement read-only.
pub fn reader() -> Bench {
    Bench::new()
}
