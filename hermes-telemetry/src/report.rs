//! [`Report`]: what the calls of a period came to.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::row::{LlmCallRow, ToolCallRow};

/// How many tools `top_tools` lists.
pub const TOP_TOOLS: usize = 10;
/// The name model tokens are charged to when the model called no tool (it answered).
pub const ANSWER: &str = "(answer)";

/// A usage report over a period: the shape `hermes telemetry report --json` prints
/// and the dashboard reads.
///
/// ```json
/// {"period": "24h", "total_calls": 3, "success_rate": 0.667,
///  "top_tools": [{"name": "calc", "calls": 2, "avg_latency_ms": 1.5, "error_rate": 0.5}],
///  "error_breakdown": {"timeout": 1},
///  "token_consumption": {"total": 120, "by_tool": {"calc": 100, "(answer)": 20}},
///  "latency_ms": {"calc": {"p50": 1.0, "p95": 2.0}}}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Report {
    /// The period covered, ending now: `24h`, `90m`, `45s`.
    pub period: String,
    /// Tool calls in the period.
    pub total_calls: u64,
    /// The share of them that succeeded, from 0 to 1; `null` when there were none.
    pub success_rate: Option<f64>,
    /// The most called tools, most calls first (ties by name), at most ten.
    pub top_tools: Vec<ToolStats>,
    /// Failed calls by error kind (`timeout`, `denied`...).
    pub error_breakdown: BTreeMap<String, u64>,
    /// Model tokens, in all and charged to tools.
    pub token_consumption: TokenConsumption,
    /// Latency percentiles of every tool called in the period.
    pub latency_ms: BTreeMap<String, Percentiles>,
}

/// One tool's calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolStats {
    /// The tool.
    pub name: String,
    /// Its calls.
    pub calls: u64,
    /// Mean time in the gateway, in milliseconds.
    pub avg_latency_ms: f64,
    /// The share of its calls that failed, from 0 to 1.
    pub error_rate: f64,
}

/// Model tokens of the period.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TokenConsumption {
    /// Prompt and completion tokens of every model call.
    pub total: u64,
    /// The same tokens charged to tools: a round's tokens are split evenly among the
    /// tool calls the model made in it (the first calls take the remainder); a round
    /// without tool calls is charged to `(answer)`. The values add up to `total`.
    pub by_tool: BTreeMap<String, u64>,
}

/// Latency percentiles of one tool, in milliseconds (nearest rank).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Percentiles {
    /// The median.
    pub p50: f64,
    /// The 95th percentile.
    pub p95: f64,
}

/// `24h`, `90m` or `45s`: the largest unit that divides the period.
pub fn period_label(period: Duration) -> String {
    let secs = period.as_secs();
    match secs {
        0 => format!("{}ms", period.as_millis()),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

#[derive(Default)]
struct Tally {
    calls: u64,
    errors: u64,
    durations_us: Vec<i64>,
}

pub(crate) fn build(period: Duration, tools: &[ToolCallRow], llm: &[LlmCallRow]) -> Report {
    let mut by_tool: HashMap<&str, Tally> = HashMap::new();
    let mut error_breakdown = BTreeMap::new();
    for row in tools {
        let tally = by_tool.entry(&row.tool).or_default();
        tally.calls += 1;
        tally.durations_us.push(row.duration_us);
        if row.outcome != "ok" {
            tally.errors += 1;
            *error_breakdown.entry(row.outcome.clone()).or_insert(0) += 1;
        }
    }
    let total_calls = tools.len() as u64;
    let failed: u64 = error_breakdown.values().sum();
    let mut stats: Vec<ToolStats> = Vec::with_capacity(by_tool.len());
    let mut latency_ms = BTreeMap::new();
    for (name, tally) in &mut by_tool {
        tally.durations_us.sort_unstable();
        let sum: i64 = tally.durations_us.iter().sum();
        stats.push(ToolStats {
            name: (*name).to_owned(),
            calls: tally.calls,
            avg_latency_ms: round3(sum as f64 / tally.calls as f64 / 1000.0),
            error_rate: round3(tally.errors as f64 / tally.calls as f64),
        });
        latency_ms.insert(
            (*name).to_owned(),
            Percentiles {
                p50: nearest_rank(&tally.durations_us, 50),
                p95: nearest_rank(&tally.durations_us, 95),
            },
        );
    }
    stats.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)));
    stats.truncate(TOP_TOOLS);
    Report {
        period: period_label(period),
        total_calls,
        success_rate: (total_calls > 0)
            .then(|| round3((total_calls - failed) as f64 / total_calls as f64)),
        top_tools: stats,
        error_breakdown,
        token_consumption: tokens(llm),
        latency_ms,
    }
}

fn tokens(llm: &[LlmCallRow]) -> TokenConsumption {
    let mut consumption = TokenConsumption::default();
    for row in llm {
        let tokens = row.tokens();
        consumption.total += tokens;
        if tokens == 0 {
            continue;
        }
        if row.tools.is_empty() {
            *consumption.by_tool.entry(ANSWER.to_owned()).or_insert(0) += tokens;
            continue;
        }
        let n = row.tools.len() as u64;
        let (share, mut remainder) = (tokens / n, tokens % n);
        for tool in &row.tools {
            let extra = u64::from(remainder > 0);
            remainder -= extra;
            *consumption.by_tool.entry(tool.clone()).or_insert(0) += share + extra;
        }
    }
    consumption
}

/// The value at rank ceil(p/100 * n) of sorted microseconds, in milliseconds.
fn nearest_rank(sorted_us: &[i64], p: usize) -> f64 {
    if sorted_us.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted_us.len()).div_ceil(100).max(1);
    round3(sorted_us[rank - 1] as f64 / 1000.0)
}

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

impl fmt::Display for Report {
    /// The report as text tables, for people.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rate = self
            .success_rate
            .map_or_else(|| "-".to_owned(), |rate| format!("{:.1}%", rate * 100.0));
        writeln!(
            f,
            "last {}: {} tool calls, {} succeeded, {} tokens",
            self.period, self.total_calls, rate, self.token_consumption.total
        )?;
        if !self.top_tools.is_empty() {
            writeln!(
                f,
                "\n{:<28} {:>8} {:>10} {:>10} {:>10} {:>8} {:>10}",
                "TOOL", "CALLS", "AVG MS", "P50 MS", "P95 MS", "ERRORS", "TOKENS"
            )?;
            for tool in &self.top_tools {
                let p = self.latency_ms.get(&tool.name);
                writeln!(
                    f,
                    "{:<28} {:>8} {:>10.3} {:>10.3} {:>10.3} {:>7.1}% {:>10}",
                    tool.name,
                    tool.calls,
                    tool.avg_latency_ms,
                    p.map_or(0.0, |p| p.p50),
                    p.map_or(0.0, |p| p.p95),
                    tool.error_rate * 100.0,
                    self.token_consumption
                        .by_tool
                        .get(&tool.name)
                        .copied()
                        .unwrap_or(0),
                )?;
            }
        }
        if !self.error_breakdown.is_empty() {
            writeln!(f, "\n{:<28} {:>8}", "ERROR", "CALLS")?;
            for (kind, calls) in &self.error_breakdown {
                writeln!(f, "{kind:<28} {calls:>8}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: &str, outcome: &str, duration_us: i64) -> ToolCallRow {
        ToolCallRow {
            at_ms: 0,
            trace_id: "t".into(),
            session_id: "s".into(),
            user_id: None,
            tool: tool.into(),
            outcome: outcome.into(),
            duration_us,
            replayed: false,
        }
    }

    fn round(prompt: u64, completion: u64, tools: &[&str]) -> LlmCallRow {
        LlmCallRow {
            at_ms: 0,
            trace_id: "t".into(),
            session_id: "s".into(),
            user_id: None,
            round: 1,
            duration_us: 0,
            prompt_tokens: prompt,
            completion_tokens: completion,
            tools: tools.iter().map(|t| (*t).to_owned()).collect(),
            error: None,
        }
    }

    #[test]
    fn figures_of_a_small_period() {
        let mut tools: Vec<_> = (1..=20).map(|i| call("calc", "ok", i * 1000)).collect();
        tools.push(call("calc", "timeout", 30_000));
        tools.push(call("web", "denied", 100));
        let llm = [round(100, 1, &["calc", "calc", "web"]), round(50, 0, &[])];
        let report = build(Duration::from_secs(24 * 3600), &tools, &llm);
        assert_eq!(report.period, "24h");
        assert_eq!(report.total_calls, 22);
        assert_eq!(report.success_rate, Some(0.909));
        assert_eq!(report.top_tools[0].name, "calc");
        assert_eq!(report.top_tools[0].calls, 21);
        assert_eq!(report.top_tools[0].error_rate, 0.048);
        // (1+...+20 + 30) ms / 21
        assert_eq!(report.top_tools[0].avg_latency_ms, 11.429);
        assert_eq!(
            report.latency_ms["calc"],
            Percentiles {
                p50: 11.0,
                p95: 20.0
            }
        );
        assert_eq!(report.error_breakdown.len(), 2);
        assert_eq!(report.error_breakdown["timeout"], 1);
        // 101 tokens over three calls: 34, 34, 33; the answer round's 50 to (answer).
        assert_eq!(report.token_consumption.total, 151);
        assert_eq!(report.token_consumption.by_tool["calc"], 68);
        assert_eq!(report.token_consumption.by_tool["web"], 33);
        assert_eq!(report.token_consumption.by_tool[ANSWER], 50);
    }

    #[test]
    fn an_empty_period_has_no_success_rate_and_top_tools_stop_at_ten() {
        let report = build(Duration::from_secs(90 * 60), &[], &[]);
        assert_eq!(report.period, "90m");
        assert_eq!(report.success_rate, None);
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["success_rate"], serde_json::Value::Null);

        let tools: Vec<_> = (0..15)
            .flat_map(|i| (0..=i).map(move |_| call(&format!("t{i:02}"), "ok", 10)))
            .collect();
        let report = build(Duration::from_secs(45), &tools, &[]);
        assert_eq!(report.period, "45s");
        assert_eq!(report.top_tools.len(), TOP_TOOLS);
        assert_eq!(report.top_tools[0].name, "t14");
        assert_eq!(report.latency_ms.len(), 15);
    }

    #[test]
    fn the_json_has_exactly_the_documented_keys() {
        let report = build(Duration::from_secs(3600), &[call("a", "ok", 5)], &[]);
        let json = serde_json::to_value(&report).unwrap();
        let keys: Vec<_> = json.as_object().unwrap().keys().cloned().collect();
        assert_eq!(
            keys,
            [
                "error_breakdown",
                "latency_ms",
                "period",
                "success_rate",
                "token_consumption",
                "top_tools",
                "total_calls"
            ]
        );
        let tool: Vec<_> = json["top_tools"][0]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(tool, ["avg_latency_ms", "calls", "error_rate", "name"]);
    }
}
