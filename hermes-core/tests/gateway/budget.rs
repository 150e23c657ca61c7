//! Result budgets: one result over the spill threshold, or a message's results over the
//! turn budget, go to files in the session's scratch dir; the model gets a preview and
//! the path.

use std::path::PathBuf;
use std::sync::Arc;

use hermes_core::{
    Dispatcher, FnTool, ResultBudget, RunContext, ToolCall, ToolError, ToolOutput, ToolSpec,
};
use serde::Deserialize;
use serde_json::json;

use crate::common::registry_with;

#[derive(Deserialize, schemars::JsonSchema)]
struct Size {
    bytes: usize,
    /// The letter to fill with.
    letter: String,
}

/// `dump(bytes, letter)`: `BEGIN`, that many letters, `END`.
fn dump(max_result_bytes: usize) -> impl hermes_core::Tool {
    let spec = ToolSpec::builder("dump", "Print a lot.")
        .parameters_for::<Size>()
        .max_result_bytes(max_result_bytes)
        .build()
        .unwrap();
    FnTool::new(spec, |args: Size, _ctx| async move {
        Ok::<_, ToolError>(ToolOutput::text(format!(
            "BEGIN{}END",
            args.letter.repeat(args.bytes)
        )))
    })
}

fn budget(scratch: &std::path::Path) -> ResultBudget {
    let mut budget = ResultBudget::default().with_scratch_dir(scratch);
    budget.spill_bytes = 10_000;
    budget.turn_bytes = 12_000;
    budget.preview_bytes = 500;
    budget
}

fn call(id: &str, bytes: usize, letter: &str) -> ToolCall {
    ToolCall::new(
        id,
        "dump",
        json!({"bytes": bytes, "letter": letter}).to_string(),
    )
}

/// The path a spilled result names.
fn spilled_path(content: &str) -> PathBuf {
    let start = content.find("saved in full to ").expect("a spill notice") + 17;
    let end = content[start..].find(". Its beginning").unwrap() + start;
    PathBuf::from(&content[start..end])
}

#[tokio::test]
async fn a_result_over_the_spill_threshold_is_saved_whole() {
    let scratch = tempfile::tempdir().unwrap();
    let dispatcher = Dispatcher::builder(registry_with([Arc::new(dump(4000)) as _]))
        .result_budget(budget(scratch.path()))
        .build()
        .unwrap();
    let run = RunContext::new().with_session("s-1");
    let report = dispatcher.dispatch(&call("c/1", 50_000, "x"), &run).await;
    assert!(report.is_success());
    let content = &report.message.content;
    assert!(content.contains("this result is 50008 bytes"), "{content}");
    assert!(
        content.len() < 1000,
        "a preview, not the result: {}",
        content.len()
    );
    let path = spilled_path(content);
    assert!(
        path.starts_with(scratch.path().join("s-1")),
        "{}",
        path.display()
    );
    let file_name = path.file_name().unwrap().to_str().unwrap();
    assert!(
        file_name.contains("-c_1-"),
        "the id is made file-safe: {file_name}"
    );
    let saved = std::fs::read_to_string(&path).unwrap();
    assert_eq!(saved.len(), 50_008);
    assert!(saved.starts_with("BEGIN") && saved.ends_with("END"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // Between the tool's cap and the spill threshold: cut, head and tail kept, no file.
    let report = dispatcher.dispatch(&call("c2", 6000, "y"), &run).await;
    let content = &report.message.content;
    assert!(content.starts_with("BEGIN") && content.ends_with("END"));
    assert!(content.contains("bytes cut by hermes"), "{content}");
    assert_eq!(
        std::fs::read_dir(scratch.path().join("s-1"))
            .unwrap()
            .count(),
        1
    );
}

#[tokio::test]
async fn over_the_turn_budget_the_largest_results_spill_first() {
    let scratch = tempfile::tempdir().unwrap();
    let dispatcher = Dispatcher::builder(registry_with([Arc::new(dump(9000)) as _]))
        .result_budget(budget(scratch.path()))
        .build()
        .unwrap();
    // 3000 + 8000 + 4000 + 100 = 15100 > 12000: spilling the 8000 fits the rest.
    let calls = [
        call("a", 3000, "a"),
        call("b", 8000, "b"),
        call("c", 4000, "c"),
        call("d", 100, "d"),
    ];
    let reports = dispatcher.dispatch_all(&calls, &RunContext::new()).await;
    let spilled: Vec<bool> = reports
        .iter()
        .map(|report| report.message.content.contains("saved in full"))
        .collect();
    assert_eq!(spilled, [false, true, false, false]);
    let total: usize = reports.iter().map(|r| r.message.content.len()).sum();
    assert!(total <= 12_000, "{total}");
    let saved = std::fs::read_to_string(spilled_path(&reports[1].message.content)).unwrap();
    assert_eq!(saved, format!("BEGIN{}END", "b".repeat(8000)));

    // Five of about 4000 (each fine alone): the turn holds two, the three largest spill.
    let calls: Vec<ToolCall> = (0..5)
        .map(|i| call(&format!("e{i}"), 4000 + i, "e"))
        .collect();
    let reports = dispatcher.dispatch_all(&calls, &RunContext::new()).await;
    let total: usize = reports.iter().map(|r| r.message.content.len()).sum();
    assert!(total <= 12_000, "{total}");
    let spilled: Vec<bool> = reports
        .iter()
        .map(|report| report.message.content.contains("saved in full"))
        .collect();
    assert_eq!(spilled, [false, false, true, true, true]);
}

#[tokio::test]
async fn budgets_must_leave_room_for_a_preview() {
    let mut bad = ResultBudget::default();
    bad.preview_bytes = 0;
    let err = Dispatcher::builder(hermes_core::Registry::new())
        .result_budget(bad)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("preview_bytes"), "{err}");
    let mut bad = ResultBudget::default();
    bad.turn_bytes = 10;
    let err = Dispatcher::builder(hermes_core::Registry::new())
        .result_budget(bad)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("turn_bytes"), "{err}");
}

#[tokio::test]
async fn an_unwritable_scratch_dir_falls_back_to_cutting() {
    let scratch = tempfile::tempdir().unwrap();
    let blocker = scratch.path().join("not-a-dir");
    std::fs::write(&blocker, "a file where the dir should be").unwrap();
    let dispatcher = Dispatcher::builder(registry_with([Arc::new(dump(4000)) as _]))
        .result_budget(budget(&blocker))
        .build()
        .unwrap();
    let report = dispatcher
        .dispatch(&call("c1", 50_000, "x"), &RunContext::new())
        .await;
    assert!(report.is_success());
    let content = &report.message.content;
    assert!(content.contains("bytes cut by hermes"), "{content}");
    assert!(content.len() < 4200);
}
