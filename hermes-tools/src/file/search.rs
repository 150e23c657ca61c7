//! `file_search`: files by name (glob) and by content (regex), with capped details and
//! exact totals.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use globset::{GlobBuilder, GlobMatcher};
use hermes_core::{
    Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool, Violation,
};
use regex::{Regex, RegexBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fs::{Stop, blocking, failure};
use super::text::{self, Kind};
use super::walk::{Gitignore, Hidden, walk};
use crate::common::Shared;
use crate::common::paths::{display, resolve, workspace_root};

/// Files larger than this are not searched for content.
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Characters of a matching line shown.
const MAX_LINE_CHARS: usize = 240;
/// Characters shown before the match in a long line.
const CONTEXT_BEFORE_MATCH: usize = 80;
/// The most memory a compiled regex may use.
const REGEX_SIZE_LIMIT: usize = 8 * 1024 * 1024;

/// Arguments of `file_search`: `glob`, `regex`, or both.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The directory (or file) to search: relative to the workspace root, or absolute
    /// inside it (default: the workspace root).
    #[serde(default = "here")]
    path: String,
    /// Only files whose name matches this glob (`*.rs`, `Cargo.*`); with a `/` it matches
    /// the path below `path` instead (`src/**/*.ts`).
    glob: Option<String>,
    /// Only files with a line matching this regular expression (Rust regex syntax); their
    /// matching lines are returned.
    regex: Option<String>,
    /// Match glob and regex ignoring case (default false).
    #[serde(default)]
    case_insensitive: bool,
    /// Search hidden files and directories too (default false).
    #[serde(default)]
    include_hidden: bool,
    /// Skip what `.gitignore` and `.ignore` files exclude (default true).
    #[serde(default = "yes")]
    respect_gitignore: bool,
    /// The most files listed (default 50, at most 500); totals count them all.
    #[serde(default = "default_max_files")]
    #[schemars(range(min = 1, max = 500))]
    max_files: usize,
    /// The most matching lines listed per file (default 20, at most 200).
    #[serde(default = "default_max_matches")]
    #[schemars(range(min = 1, max = 200))]
    max_matches_per_file: usize,
}

/// The default path: the workspace root.
fn here() -> String {
    ".".to_owned()
}

/// The default of respect_gitignore.
fn yes() -> bool {
    true
}

/// The default cap on files listed.
fn default_max_files() -> usize {
    50
}

/// The default cap on lines listed per file.
fn default_max_matches() -> usize {
    20
}

/// A matching line.
#[derive(Debug, Serialize)]
pub(crate) struct Line {
    /// 1-based.
    line: u64,
    /// The line, cut around the match when long.
    text: String,
}

/// A matching file.
#[derive(Debug, Serialize)]
pub(crate) struct Hit {
    /// Relative to the workspace.
    path: String,
    /// Matching lines in the file (content searches).
    #[serde(skip_serializing_if = "Option::is_none")]
    match_count: Option<usize>,
    /// The first matching lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    matches: Vec<Line>,
}

/// What `file_search` returns.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Output {
    /// The first matching files, in walk order.
    files: Vec<Hit>,
    /// Every matching file, listed or not.
    files_matched: usize,
    /// Every matching line, listed or not (content searches).
    #[serde(skip_serializing_if = "Option::is_none")]
    total_matches: Option<usize>,
    /// Some files or lines were left out of the lists.
    truncated: bool,
    /// Files not searched for content because they are binary.
    #[serde(skip_serializing_if = "is_zero")]
    skipped_binary: usize,
    /// Files not searched for content because they are over 16 MiB.
    #[serde(skip_serializing_if = "is_zero")]
    skipped_large: usize,
    /// Files or directories that could not be read.
    #[serde(skip_serializing_if = "is_zero")]
    unreadable: usize,
}

/// Leave zero counts out of the output.
fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// The `file_search` tool.
#[derive(Debug)]
pub(crate) struct FileSearch {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl FileSearch {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let spec = ToolSpec::builder(
            "file_search",
            "Find files in the workspace by name (`glob`) and/or content (`regex`, line by \
             line). Returns matching files with, for content searches, their matching line \
             numbers and lines (long lines cut), plus exact totals; at most max_files files and \
             max_matches_per_file lines each are listed (`truncated` says more exist). Skips \
             binary files, files over 16 MiB, hidden files (unless include_hidden) and \
             .gitignore'd files (unless respect_gitignore is false).",
        )
        .parameters_for::<Args>()
        .tag(super::FAMILY_TAG)
        .scope(Scope::Read)
        .permission("file:read")
        .arg_kind("path", ArgKind::Path(Access::Read))
        .timeout(Duration::from_secs(60))
        .max_result_bytes(super::result_cap(shared))
        .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for FileSearch {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let query = Query::of(&args)?;
        let path = resolve(&self.shared, ctx, &args.path)?;
        let shown = display(&self.shared, ctx, &path);
        let root = workspace_root(&self.shared, ctx);
        let budget = self.shared.config.max_output_bytes();
        let stop = Stop::of("file_search", ctx);
        blocking("file_search", move || {
            std::fs::metadata(&path).map_err(|error| failure("search", &shown, error))?;
            search(&path, &root, &query, &args, budget, &stop)
        })
        .await
    }
}

/// The compiled glob and regex.
#[derive(Debug)]
struct Query {
    /// The glob, and whether it matches whole relative paths (it has a `/`).
    glob: Option<(GlobMatcher, bool)>,
    /// Matched against each line.
    regex: Option<Regex>,
}

impl Query {
    /// Compile the query of `args`.
    fn of(args: &Args) -> Result<Self, ToolError> {
        let invalid = |path: &str, message: String| ToolError::InvalidArguments {
            violations: vec![Violation::new(path, "format", message)],
        };
        if args.glob.is_none() && args.regex.is_none() {
            return Err(invalid(
                "",
                "give a glob (file names), a regex (file contents), or both".to_owned(),
            ));
        }
        let glob = match &args.glob {
            Some(pattern) => {
                let glob = GlobBuilder::new(pattern)
                    .case_insensitive(args.case_insensitive)
                    .literal_separator(true)
                    .build()
                    .map_err(|error| {
                        invalid("/glob", format!("`{pattern}` is not a valid glob: {error}"))
                    })?;
                Some((glob.compile_matcher(), pattern.contains('/')))
            }
            None => None,
        };
        let regex = match &args.regex {
            Some(pattern) => Some(
                RegexBuilder::new(pattern)
                    .case_insensitive(args.case_insensitive)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|error| invalid("/regex", format!("not a valid regex: {error}")))?,
            ),
            None => None,
        };
        Ok(Self { glob, regex })
    }

    /// Whether the file at `path` (`relative` below the searched directory) passes the glob.
    fn names(&self, path: &Path, relative: &Path) -> bool {
        match &self.glob {
            None => true,
            Some((glob, true)) => glob.is_match(relative),
            Some((glob, false)) => path.file_name().is_some_and(|name| glob.is_match(name)),
        }
    }
}

/// Walk `dir` for files matching `query`, listing within `budget` bytes.
fn search(
    dir: &Path,
    root: &Path,
    query: &Query,
    args: &Args,
    budget: usize,
    stop: &Stop,
) -> Result<Output, ToolError> {
    let mut output = Output {
        total_matches: query.regex.is_some().then_some(0),
        ..Output::default()
    };
    let mut used = 0;
    let walker = walk(
        dir,
        Hidden::from_flag(args.include_hidden),
        Gitignore::from_flag(args.respect_gitignore),
        None,
    );
    for item in walker {
        stop.check()?;
        let Ok(item) = item else {
            output.unreadable += 1;
            continue;
        };
        if !item.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        let path = item.path();
        let relative = path.strip_prefix(dir).unwrap_or(path);
        if !query.names(path, relative) {
            continue;
        }
        let mut hit = Hit {
            path: super::shown_under(root, path),
            match_count: None,
            matches: Vec::new(),
        };
        if let Some(regex) = &query.regex {
            let count = match scan(path, regex, args.max_matches_per_file, &mut hit.matches) {
                Scan::Matched(count) => count,
                Scan::NoMatch => continue,
                Scan::Binary => {
                    output.skipped_binary += 1;
                    continue;
                }
                Scan::Large => {
                    output.skipped_large += 1;
                    continue;
                }
                Scan::Unreadable => {
                    output.unreadable += 1;
                    continue;
                }
            };
            output.truncated |= count > hit.matches.len();
            output.total_matches = output.total_matches.map(|total| total + count);
            hit.match_count = Some(count);
        }
        output.files_matched += 1;
        used += hit.path.len()
            + 40
            + hit
                .matches
                .iter()
                .map(|line| line.text.len() + 20)
                .sum::<usize>();
        if output.files.len() < args.max_files && used <= budget {
            output.files.push(hit);
        } else {
            output.truncated = true;
        }
    }
    Ok(output)
}

/// What searching one file's content found.
enum Scan {
    /// This many matching lines (the first ones pushed to the list).
    Matched(usize),
    /// No line matched.
    NoMatch,
    /// Not text.
    Binary,
    /// Over the size limit.
    Large,
    /// Could not be read.
    Unreadable,
}

/// Search the file at `path` line by line, listing up to `max` matching lines.
fn scan(path: &Path, regex: &Regex, max: usize, matches: &mut Vec<Line>) -> Scan {
    let Ok(file) = File::open(path) else {
        return Scan::Unreadable;
    };
    match file.metadata() {
        Ok(metadata) if metadata.len() > MAX_FILE_BYTES => return Scan::Large,
        Ok(_) => {}
        Err(_) => return Scan::Unreadable,
    }
    let mut bytes = Vec::new();
    if file.take(MAX_FILE_BYTES).read_to_end(&mut bytes).is_err() {
        return Scan::Unreadable;
    }
    let head = &bytes[..bytes.len().min(text::SNIFF_BYTES)];
    let Kind::Text(encoding) = text::classify(head) else {
        return Scan::Binary;
    };
    let decoded = text::decode(&bytes, encoding);
    let mut count = 0;
    for (index, line) in decoded.text.lines().enumerate() {
        let Some(found) = regex.find(line) else {
            continue;
        };
        count += 1;
        if matches.len() < max {
            matches.push(Line {
                line: index as u64 + 1,
                text: excerpt(line, found.start()),
            });
        }
    }
    if count == 0 {
        Scan::NoMatch
    } else {
        Scan::Matched(count)
    }
}

/// `line` cut to [`MAX_LINE_CHARS`] characters around the match starting at byte `at`.
fn excerpt(line: &str, at: usize) -> String {
    let line = line.trim_end_matches('\r');
    if line.chars().count() <= MAX_LINE_CHARS {
        return line.to_owned();
    }
    let before = line[..at.min(line.len())].chars().count();
    let skip = before.saturating_sub(CONTEXT_BEFORE_MATCH);
    let shown: String = line.chars().skip(skip).take(MAX_LINE_CHARS).collect();
    let lead = if skip > 0 { "..." } else { "" };
    format!("{lead}{shown}...")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_around_the_match() {
        let line = format!("{}needle{}", "a".repeat(1000), "b".repeat(1000));
        let shown = excerpt(&line, 1000);
        assert!(
            shown.starts_with("...") && shown.contains("needle"),
            "{shown}"
        );
        assert!(shown.chars().count() <= MAX_LINE_CHARS + 6);
        assert_eq!(excerpt("short", 0), "short");
    }
}
