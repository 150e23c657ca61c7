//! Reading JavaScript test output from `npm test`: node's test runner (its TAP output,
//! the default off a terminal in node 20, or its spec output, the default later), Jest
//! (and Vitest's Jest-like summary), or Mocha's counts.

use super::summary::{Summary, count_before};

/// The summary of `npm test` output, or `None` when no known runner reported.
pub(super) fn parse(output: &str) -> Option<Summary> {
    node_tap(output)
        .or_else(|| node_spec(output))
        .or_else(|| jest(output))
        .or_else(|| mocha(output))
}

/// The counts of node's runner: `# pass 1` (TAP) or `ℹ pass 1` (spec) lines.
fn node_counts(output: &str, marker: &str) -> Option<Summary> {
    let count = |word: &str| {
        output.lines().rev().find_map(|line| {
            let rest = line.strip_prefix(marker)?.strip_prefix(word)?;
            rest.trim().parse::<u64>().ok()
        })
    };
    Some(Summary {
        passed: count("pass ")?,
        failed: count("fail ")? + count("cancelled ").unwrap_or(0),
        ignored: count("skipped ").unwrap_or(0) + count("todo ").unwrap_or(0),
        failures: Vec::new(),
    })
}

/// node's TAP: `not ok 2 - name` followed by a YAML block with `failureType` and
/// `error`; suites that failed only through their subtests are left out.
fn node_tap(output: &str) -> Option<Summary> {
    let mut summary = node_counts(output, "# ")?;
    let lines: Vec<&str> = output.lines().collect();
    for (index, line) in lines.iter().enumerate() {
        let Some(name) = not_ok_name(line) else {
            continue;
        };
        let block = yaml_block(&lines[index + 1..]);
        if block
            .iter()
            .any(|line| line.contains("failureType: 'subtestsFailed'"))
        {
            continue;
        }
        summary.fail(name, &yaml_error(&block));
    }
    Some(summary)
}

/// `name` of a TAP `not ok N - name` line (at any indent).
fn not_ok_name(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("not ok ")?;
    let (_, name) = rest.split_once(" - ")?;
    Some(name.split(" # ").next().unwrap_or(name).trim())
}

/// The lines of the YAML block (`---` to `...`) at the start of `lines`, dedented.
fn yaml_block<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let mut iter = lines.iter();
    let Some(start) = iter.next().filter(|line| line.trim() == "---") else {
        return Vec::new();
    };
    let indent = start.len() - start.trim_start().len();
    iter.take_while(|line| line.trim() != "...")
        .map(|line| line.get(indent..).unwrap_or(line.trim_start()))
        .collect()
}

/// The `error:` of a YAML block: inline (`error: 'boom'`) or a block (`error: |-`).
fn yaml_error(block: &[&str]) -> String {
    let Some(at) = block.iter().position(|line| line.starts_with("error:")) else {
        return String::new();
    };
    let value = block[at].trim_start_matches("error:").trim();
    if value != "|-" && value != "|" {
        return value.trim_matches('\'').replace("''", "'");
    }
    block[at + 1..]
        .iter()
        .take_while(|line| line.is_empty() || line.starts_with(' '))
        .map(|line| line.trim())
        .collect::<Vec<_>>()
        .join("\n")
}

/// node's spec output: `ℹ pass 1` counts and the `✖ failing tests:` section, where each
/// `✖ name (1.2ms)` is followed by its indented error (stack lines left out).
fn node_spec(output: &str) -> Option<Summary> {
    let mut summary = node_counts(output, "ℹ ")?;
    let Some((_, failing)) = output.split_once("✖ failing tests:") else {
        return Some(summary);
    };
    let mut current: Option<(&str, Vec<&str>)> = None;
    for line in failing.lines() {
        if let Some(rest) = line.strip_prefix("✖ ") {
            if let Some((name, message)) = current.take() {
                summary.fail(name, &message.join("\n"));
            }
            let name = rest.rsplit_once(" (").map_or(rest, |(name, _)| name);
            current = Some((name.trim(), Vec::new()));
        } else if let Some((_, message)) = current.as_mut() {
            let trimmed = line.trim();
            if line.starts_with("  ") && !trimmed.starts_with("at ") {
                message.push(trimmed);
            }
        }
    }
    if let Some((name, message)) = current {
        summary.fail(name, &message.join("\n"));
    }
    Some(summary)
}

/// Jest's `Tests: 1 failed, 2 passed, 3 total` and its `● suite › name` failures.
fn jest(output: &str) -> Option<Summary> {
    let counts = output
        .lines()
        .rev()
        .find_map(|line| line.trim_start().strip_prefix("Tests:"))?;
    let mut summary = Summary {
        passed: count_before(counts, "passed").unwrap_or(0),
        failed: count_before(counts, "failed").unwrap_or(0),
        ignored: count_before(counts, "skipped").unwrap_or(0)
            + count_before(counts, "todo").unwrap_or(0),
        failures: Vec::new(),
    };
    let mut current: Option<(&str, Vec<&str>)> = None;
    for line in output.lines() {
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix("● ") {
            if let Some((name, message)) = current.take() {
                summary.fail(name, &message.join("\n"));
            }
            current = Some((name.trim(), Vec::new()));
        } else if ["Test Suites:", "Tests:", "Snapshots:", "Time:"]
            .iter()
            .any(|summary_line| trimmed.starts_with(summary_line))
        {
            // The closing summary: the last failure's message ended before it.
            if let Some((name, message)) = current.take() {
                summary.fail(name, &message.join("\n"));
            }
        } else if let Some((_, message)) = current.as_mut() {
            if !trimmed.is_empty() && !trimmed.starts_with("at ") {
                message.push(trimmed);
            }
        }
    }
    if let Some((name, message)) = current {
        summary.fail(name, &message.join("\n"));
    }
    Some(summary)
}

/// Mocha's `2 passing`, `1 failing`, `1 pending` counts (failures are left to the raw
/// output).
fn mocha(output: &str) -> Option<Summary> {
    let passed = output
        .lines()
        .find_map(|line| count_before(line, "passing"))?;
    let find = |word: &str| output.lines().find_map(|line| count_before(line, word));
    Some(Summary {
        passed,
        failed: find("failing").unwrap_or(0),
        ignored: find("pending").unwrap_or(0),
        failures: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAP: &str = "TAP version 13
# Subtest: adds
ok 1 - adds
  ---
  duration_ms: 0.683196
  ...
# Subtest: fails
not ok 2 - fails
  ---
  duration_ms: 0.800241
  failureType: 'testCodeFailure'
  error: |-
    Expected values to be strictly equal:

    3 !== 4

  code: 'ERR_ASSERTION'
  ...
# Subtest: skipped
ok 3 - skipped # SKIP
# Subtest: group
    # Subtest: inner fails
    not ok 1 - inner fails
      ---
      failureType: 'testCodeFailure'
      error: 'boom'
      ...
    1..1
not ok 4 - group
  ---
  type: 'suite'
  failureType: 'subtestsFailed'
  error: '1 subtest failed'
  ...
1..4
# tests 4
# suites 1
# pass 1
# fail 2
# cancelled 0
# skipped 1
# todo 0
";

    #[test]
    fn node_tap_output() {
        let summary = parse(TAP).unwrap();
        assert_eq!((summary.passed, summary.failed, summary.ignored), (1, 2, 1));
        let names: Vec<&str> = summary.failures.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["fails", "inner fails"]);
        assert_eq!(
            summary.failures[0].message,
            "Expected values to be strictly equal:\n\n3 !== 4"
        );
        assert_eq!(summary.failures[1].message, "boom");
    }

    #[test]
    fn node_spec_output() {
        let output = "✔ adds (0.7ms)\n✖ fails (0.8ms)\n  AssertionError: x\nℹ tests 2\nℹ pass 1\nℹ fail 1\nℹ skipped 0\n\n✖ failing tests:\n\ntest at t.js:4:1\n✖ fails (0.8ms)\n  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n  \n  3 !== 4\n  \n      at TestContext.<anonymous> (t.js:4:30)\n";
        let summary = parse(output).unwrap();
        assert_eq!((summary.passed, summary.failed), (1, 1));
        assert_eq!(summary.failures[0].name, "fails");
        assert!(summary.failures[0].message.contains("3 !== 4"));
        assert!(!summary.failures[0].message.contains("TestContext"));
    }

    #[test]
    fn jest_and_mocha_output() {
        let jest_output = "  ● math › fails\n\n    expect(received).toBe(expected)\n\n      at Object.<anonymous> (t.test.js:4:20)\n\nTests:       1 failed, 1 skipped, 2 passed, 4 total\n";
        let summary = parse(jest_output).unwrap();
        assert_eq!((summary.passed, summary.failed, summary.ignored), (2, 1, 1));
        assert_eq!(summary.failures[0].name, "math › fails");
        assert_eq!(
            summary.failures[0].message,
            "expect(received).toBe(expected)"
        );
        let mocha_output = "  2 passing (5ms)\n  1 failing\n";
        let summary = parse(mocha_output).unwrap();
        assert_eq!((summary.passed, summary.failed), (2, 1));
        assert_eq!(parse("npm ERR! missing script: test"), None);
    }
}
