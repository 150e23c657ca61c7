//! `hermes telemetry report` and `hermes dashboard`: the telemetry store, read back.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use hermes_telemetry::audit::{AuditTrail, JsonlAudit, SqliteAudit};
use hermes_telemetry::{TelemetryCollector, TelemetryStore};

use crate::cli::{DashboardArgs, ReportArgs, StoreArgs};
use crate::{Status, UsageError};

pub(crate) fn report(args: &ReportArgs, out: &mut dyn Write) -> anyhow::Result<Status> {
    let path = existing_store(&args.store)?;
    let store =
        TelemetryStore::open_read_only(&path).map_err(|error| UsageError(error.to_string()))?;
    let report = store.report(Duration::from_secs(u64::from(args.hours) * 3600))?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        write!(out, "{report}")?;
    }
    Ok(Status::Success)
}

pub(crate) async fn dashboard(args: &DashboardArgs, out: &mut dyn Write) -> anyhow::Result<Status> {
    let path = existing_store(&args.store)?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
        .await
        .map_err(|error| {
            UsageError(format!("cannot listen on 127.0.0.1:{}: {error}", args.port))
        })?;
    writeln!(
        out,
        "dashboard of {} on http://{}/ (Ctrl-C to stop)",
        path.display(),
        listener.local_addr()?
    )?;
    out.flush()?;
    hermes_telemetry::dashboard::serve(listener, path).await?;
    Ok(Status::Success)
}

/// The store named by `--db` or the default one; an error that says what to do when
/// there is none yet.
fn existing_store(args: &StoreArgs) -> anyhow::Result<PathBuf> {
    let path = match &args.db {
        Some(path) => path.clone(),
        None => crate::home::telemetry_db().map_err(UsageError)?,
    };
    if !path.is_file() {
        return Err(UsageError(format!(
            "no telemetry store at {}: `hermes run` records one, or pass --db FILE",
            path.display()
        ))
        .into());
    }
    Ok(path)
}

/// The collector `hermes run` records into, unless switched off. A store that cannot
/// be opened is reported and the run goes on without it.
pub(crate) fn collector(off: bool) -> Option<TelemetryCollector> {
    if off {
        return None;
    }
    let opened = crate::home::telemetry_db()
        .map_err(|error| error.to_string())
        .and_then(|path| TelemetryCollector::open(path).map_err(|error| error.to_string()));
    match opened {
        Ok(collector) => Some(collector),
        Err(error) => {
            tracing::warn!(%error, "telemetry is off for this run");
            None
        }
    }
}

/// The audit trail `--audit FILE` asks for: JSON Lines for `.jsonl`, else SQLite.
pub(crate) fn audit(path: &std::path::Path) -> anyhow::Result<AuditTrail> {
    let jsonl = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("jsonl"));
    let opened = if jsonl {
        JsonlAudit::open(path).map(AuditTrail::new)
    } else {
        SqliteAudit::open(path).map(AuditTrail::new)
    };
    Ok(opened.map_err(|error| UsageError(format!("--audit: {error}")))?)
}
