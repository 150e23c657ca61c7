//! Reading `pytest -q -rfE` output: the closing counts line, the `FAILED`/`ERROR` lines
//! of the short summary, and the `E` lines and location of each failure's section.

use super::summary::{Summary, count_before};

/// The summary of pytest output, or `None` without a closing counts line.
pub(super) fn parse(output: &str) -> Option<Summary> {
    let closing = output.lines().rev().find(|line| is_closing(line))?;
    let count = |word: &str| count_before(closing, word).unwrap_or(0);
    let mut summary = Summary {
        passed: count("passed") + count("xpassed"),
        failed: count("failed") + count("error") + count("errors"),
        ignored: count("skipped") + count("xfailed"),
        failures: Vec::new(),
    };
    let sections = sections(output);
    for line in output.lines() {
        let Some(rest) = line
            .strip_prefix("FAILED ")
            .or_else(|| line.strip_prefix("ERROR "))
        else {
            continue;
        };
        let (node, short) = rest.split_once(" - ").unwrap_or((rest, ""));
        let detail = sections
            .iter()
            .find(|(header, _)| matches_node(header, node))
            .map(|(_, detail)| detail.as_str())
            .filter(|detail| !detail.is_empty());
        summary.fail(node, detail.unwrap_or(short));
    }
    Some(summary)
}

/// Whether `line` is pytest's closing line: `2 failed, 1 passed in 0.02s`, framed by
/// `=` or not, or `no tests ran in 0.01s`.
fn is_closing(line: &str) -> bool {
    let line = line.trim().trim_matches('=').trim();
    let Some((counts, time)) = line.rsplit_once(" in ") else {
        return false;
    };
    let time = time.split_whitespace().next().unwrap_or("");
    time.ends_with('s')
        && time.trim_end_matches('s').parse::<f64>().is_ok()
        && (counts == "no tests ran"
            || counts.split(", ").all(|part| {
                part.split_once(' ')
                    .is_some_and(|(number, _)| number.parse::<u64>().is_ok())
            }))
}

/// The `___ header ___` sections of the FAILURES and ERRORS blocks: each header with
/// its `E` lines and the location line (`path:line: Error`).
fn sections(output: &str) -> Vec<(String, String)> {
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    let mut inside = false;
    for line in output.lines() {
        if line.starts_with('=') {
            inside = line.contains(" FAILURES ") || line.contains(" ERRORS ");
            continue;
        }
        if !inside {
            continue;
        }
        if line.starts_with("___") && line.ends_with("___") {
            let header = line.trim_matches('_').trim();
            let header = header.strip_prefix("ERROR at setup of ").unwrap_or(header);
            sections.push((header.to_owned(), Vec::new()));
        } else if let Some((_, detail)) = sections.last_mut() {
            if let Some(error) = line.strip_prefix("E ") {
                detail.push(error.trim().to_owned());
            } else if is_location(line) {
                detail.push(format!("at {line}"));
            }
        }
    }
    sections
        .into_iter()
        .map(|(header, detail)| (header, detail.join("\n")))
        .collect()
}

/// `tests/test_x.py:6: AssertionError`.
fn is_location(line: &str) -> bool {
    let mut parts = line.splitn(3, ':');
    matches!(
        (parts.next(), parts.next(), parts.next()),
        (Some(path), Some(number), Some(_))
            if path.ends_with(".py") && number.parse::<u64>().is_ok()
    )
}

/// Whether a section header (`TestGroup.test_m`, `test_f[1]`) names the node id
/// (`tests/test_x.py::TestGroup::test_m`).
fn matches_node(header: &str, node: &str) -> bool {
    node.split_once("::")
        .is_some_and(|(_, name)| name.replace("::", ".") == header)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str =
        ".FsF                                                                     [100%]
=================================== FAILURES ===================================
__________________________________ test_fails __________________________________

    def test_fails():
        x = 3
>       assert x == 4, \"math is off\"
E       AssertionError: math is off
E       assert 3 == 4

tests/test_math.py:6: AssertionError
_________________________ TestGroup.test_method_fails __________________________

self = <test_math.TestGroup object at 0x7fecb8535690>

    def test_method_fails(self):
>       raise ValueError(\"boom\")
E       ValueError: boom

tests/test_math.py:12: ValueError
=========================== short test summary info ============================
FAILED tests/test_math.py::test_fails - AssertionError: math is off
FAILED tests/test_math.py::TestGroup::test_method_fails - ValueError: boom
2 failed, 1 passed, 1 skipped in 0.02s
";

    #[test]
    fn reads_counts_and_failures() {
        let summary = parse(OUTPUT).unwrap();
        assert_eq!((summary.passed, summary.failed, summary.ignored), (1, 2, 1));
        assert_eq!(summary.failures[0].name, "tests/test_math.py::test_fails");
        assert_eq!(
            summary.failures[0].message,
            "AssertionError: math is off\nassert 3 == 4\nat tests/test_math.py:6: AssertionError"
        );
        assert_eq!(
            summary.failures[1].name,
            "tests/test_math.py::TestGroup::test_method_fails"
        );
        assert!(summary.failures[1].message.starts_with("ValueError: boom"));
    }

    #[test]
    fn closing_lines() {
        assert!(is_closing("1 passed in 0.01s"));
        assert!(is_closing("===== 3 passed, 1 warning in 1.20s ====="));
        assert!(is_closing("no tests ran in 0.00s"));
        assert!(is_closing("1 passed in 61.02s (0:01:01)"));
        assert!(!is_closing("it ran in 0.01s"));
        assert_eq!(parse("collected 0 items\n"), None);
    }
}
