//! Reading `cargo test` output: the `test result:` line of every test binary, summed,
//! and each failure's `---- name stdout ----` section.

use super::summary::{Summary, count_before};

/// The summary of `cargo test` output, or `None` when no test binary reported (the
/// build failed, say).
pub(super) fn parse(output: &str) -> Option<Summary> {
    let mut summary = Summary::default();
    let mut reported = false;
    let mut lines = output.lines().peekable();
    let mut in_list = false;
    while let Some(line) = lines.next() {
        if let Some(result) = line.strip_prefix("test result: ") {
            reported = true;
            in_list = false;
            summary.passed += count_before(result, "passed").unwrap_or(0);
            summary.failed += count_before(result, "failed").unwrap_or(0);
            summary.ignored += count_before(result, "ignored").unwrap_or(0);
        } else if let Some(name) = section_name(line) {
            let mut body = Vec::new();
            while let Some(next) = lines.peek() {
                if section_name(next).is_some()
                    || *next == "failures:"
                    || next.starts_with("test result: ")
                {
                    break;
                }
                body.push(*next);
                lines.next();
            }
            summary.fail(name, &body.join("\n"));
        } else if line == "failures:" {
            in_list = true;
        } else if in_list {
            match line.strip_prefix("    ") {
                Some(name) if !name.trim().is_empty() => summary.fail(name.trim(), ""),
                _ => in_list = !line.trim().is_empty(),
            }
        }
    }
    reported.then_some(summary)
}

/// `name` of a `---- name stdout ----` line.
fn section_name(line: &str) -> Option<&str> {
    line.strip_prefix("---- ")?
        .strip_suffix(" ----")?
        .strip_suffix(" stdout")
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "
running 3 tests
test tests::passes ... ok
test tests::skipped ... ignored
test tests::fails ... FAILED

failures:

---- tests::fails stdout ----

thread 'tests::fails' (17225) panicked at src/lib.rs:6:26:
assertion `left == right` failed: math is off
  left: 3
 right: 4
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    tests::fails

test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.07s


running 1 test
test src/lib.rs - add (line 3) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
";

    #[test]
    fn sums_binaries_and_reads_failures() {
        let summary = parse(OUTPUT).unwrap();
        assert_eq!((summary.passed, summary.failed, summary.ignored), (2, 1, 1));
        assert_eq!(summary.failures.len(), 1);
        let failure = &summary.failures[0];
        assert_eq!(failure.name, "tests::fails");
        assert!(
            failure.message.starts_with("thread 'tests::fails'"),
            "{}",
            failure.message
        );
        assert!(failure.message.contains("math is off"));
    }

    #[test]
    fn a_failed_build_reports_nothing() {
        assert_eq!(
            parse("error[E0308]: mismatched types\nerror: could not compile"),
            None
        );
    }
}
