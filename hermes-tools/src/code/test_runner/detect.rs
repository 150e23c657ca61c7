//! Which test runner a project uses, and the command that runs it.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The runner a call asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RunnerChoice {
    /// Tell from the project's files: `Cargo.toml`, then pytest's files
    /// (`pyproject.toml`, `setup.cfg`, `pytest.ini`, `tox.ini`, `test_*.py`,
    /// `tests/*.py`), then `package.json`.
    #[default]
    Auto,
    /// `cargo test`.
    Cargo,
    /// `python -m pytest`.
    Pytest,
    /// `npm test` (the package's `test` script).
    Npm,
}

/// A test runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Runner {
    /// `cargo test`.
    Cargo,
    /// pytest.
    Pytest,
    /// `npm test`.
    Npm,
}

/// The runner of the project in `dir`, and the file that told.
///
/// # Errors
///
/// A message for the model when no runner's files are there.
pub(super) async fn detect(dir: &Path) -> Result<(Runner, String), String> {
    if is_file(&dir.join("Cargo.toml")).await {
        return Ok((Runner::Cargo, "Cargo.toml".to_owned()));
    }
    for marker in [
        "pytest.ini",
        "pyproject.toml",
        "setup.cfg",
        "tox.ini",
        "conftest.py",
    ] {
        if is_file(&dir.join(marker)).await {
            return Ok((Runner::Pytest, marker.to_owned()));
        }
    }
    if let Some(file) = python_tests(dir).await {
        return Ok((Runner::Pytest, file));
    }
    if is_file(&dir.join("package.json")).await {
        return Ok((Runner::Npm, "package.json".to_owned()));
    }
    Err(format!(
        "found no Cargo.toml, pytest files (pyproject.toml, setup.cfg, pytest.ini, \
         test_*.py, tests/*.py) or package.json in {}; give the project's directory as \
         `path`, or pick a `runner`",
        dir.display()
    ))
}

/// A `test_*.py` or `*_test.py` at the root, or any `.py` file in `tests/`.
async fn python_tests(dir: &Path) -> Option<String> {
    for (folder, any) in [(dir.to_path_buf(), false), (dir.join("tests"), true)] {
        let Ok(mut entries) = tokio::fs::read_dir(&folder).await else {
            continue;
        };
        while let Ok(Some(entry)) = entries.next_entry().await {
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_test = name.ends_with(".py")
                && (any || name.starts_with("test_") || name.ends_with("_test.py"));
            if is_test {
                return Some(if any { format!("tests/{name}") } else { name });
            }
        }
    }
    None
}

async fn is_file(path: &Path) -> bool {
    tokio::fs::metadata(path)
        .await
        .is_ok_and(|metadata| metadata.is_file())
}

/// The command that runs `runner`'s tests in `dir`, with `filter` if given.
///
/// # Errors
///
/// For npm, a message when `package.json` is unreadable or has no `test` script.
pub(super) async fn command(
    runner: Runner,
    dir: &Path,
    filter: Option<&str>,
) -> Result<Vec<String>, String> {
    if filter.is_some_and(|filter| filter.starts_with('-')) {
        // It would be read as an option of the runner, not as a name.
        return Err("`filter` must not start with `-`; give part of a test's name".to_owned());
    }
    let mut words: Vec<String> = Vec::new();
    match runner {
        Runner::Cargo => {
            words
                .extend(["cargo", "test", "--no-fail-fast", "--color", "never"].map(str::to_owned));
            words.extend(filter.map(str::to_owned));
        }
        Runner::Pytest => {
            let venv = dir.join(".venv/bin/python");
            let python = if is_file(&venv).await {
                venv.to_string_lossy().into_owned()
            } else {
                "python3".to_owned()
            };
            words.push(python);
            words.extend(
                [
                    "-m",
                    "pytest",
                    "-q",
                    "-rfE",
                    "--color=no",
                    "-p",
                    "no:cacheprovider",
                ]
                .map(str::to_owned),
            );
            if let Some(filter) = filter {
                words.extend(["-k".to_owned(), filter.to_owned()]);
            }
        }
        Runner::Npm => {
            let script = test_script(dir).await?;
            words.extend(["npm", "test"].map(str::to_owned));
            if let Some(filter) = filter {
                words.push("--".to_owned());
                words.extend(npm_filter(&script, filter));
            }
        }
    }
    Ok(words)
}

/// The `test` script of `dir/package.json`.
async fn test_script(dir: &Path) -> Result<String, String> {
    let text = tokio::fs::read_to_string(dir.join("package.json"))
        .await
        .map_err(|error| format!("cannot read package.json: {error}"))?;
    let manifest: Value = serde_json::from_str(&text)
        .map_err(|error| format!("package.json is not valid JSON: {error}"))?;
    manifest
        .pointer("/scripts/test")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            "package.json has no `test` script; add one (e.g. `\"test\": \"node --test\"`) \
             or pick another runner"
                .to_owned()
        })
}

/// The arguments that pass `filter` to the runner the script `script` starts.
fn npm_filter(script: &str, filter: &str) -> Vec<String> {
    if script.contains("node --test") || script.contains("node  --test") {
        vec![format!("--test-name-pattern={filter}")]
    } else if script.contains("jest") || script.contains("vitest") {
        vec!["-t".to_owned(), filter.to_owned()]
    } else if script.contains("mocha") {
        vec!["--grep".to_owned(), filter.to_owned()]
    } else {
        vec![filter.to_owned()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_follow_the_runner() {
        assert_eq!(
            npm_filter("node --test", "adds"),
            ["--test-name-pattern=adds"]
        );
        assert_eq!(npm_filter("jest --ci", "adds"), ["-t", "adds"]);
        assert_eq!(npm_filter("mocha", "adds"), ["--grep", "adds"]);
        assert_eq!(npm_filter("ava", "adds"), ["adds"]);
    }

    #[tokio::test]
    async fn detects_by_files() {
        let dir = std::env::temp_dir().join(format!("hermes-detect-{}", std::process::id()));
        tokio::fs::create_dir_all(dir.join("tests")).await.unwrap();
        assert!(detect(&dir).await.is_err());
        tokio::fs::write(dir.join("package.json"), "{}")
            .await
            .unwrap();
        assert_eq!(detect(&dir).await.unwrap().0, Runner::Npm);
        tokio::fs::write(dir.join("tests/test_a.py"), "")
            .await
            .unwrap();
        assert_eq!(
            detect(&dir).await.unwrap(),
            (Runner::Pytest, "tests/test_a.py".to_owned())
        );
        tokio::fs::write(dir.join("Cargo.toml"), "").await.unwrap();
        assert_eq!(detect(&dir).await.unwrap().0, Runner::Cargo);
        let error = command(Runner::Npm, &dir, None).await.unwrap_err();
        assert!(error.contains("no `test` script"), "{error}");
        let error = command(Runner::Cargo, &dir, Some("--config=x"))
            .await
            .unwrap_err();
        assert!(error.contains("must not start with `-`"), "{error}");
        tokio::fs::remove_dir_all(&dir).await.unwrap();
    }
}
