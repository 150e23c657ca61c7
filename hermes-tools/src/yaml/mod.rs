//! Tools defined in YAML files, without Rust: each `http_wrapper` tool is one HTTP
//! request, its parameters a JSON Schema the gateway validates like any other tool's.
//!
//! ```yaml
//! tools:
//!   - name: jira_create_issue
//!     description: Create a Jira issue; returns its key and URL.
//!     type: http_wrapper
//!     endpoint: https://example.atlassian.net/rest/api/2/issue
//!     method: POST
//!     auth: {type: basic, username_env: JIRA_USER, password_env: JIRA_API_TOKEN}
//!     parameters:
//!       - {name: project, type: string, required: true, description: Project key.}
//!       - {name: summary, type: string, required: true}
//!       - {name: issue_type, type: string, enum: [Bug, Task, Story], default: Task}
//!     request_template: |
//!       {"fields": {"project": {"key": "{{project}}"}, "summary": "{{summary}}",
//!                   "issuetype": {"name": "{{issue_type}}"}}}
//!     response_mapping: {success_field: key, output_fields: [key, self]}
//!     tags: [jira]
//!     timeout_seconds: 30
//! ```
//!
//! - **Loading** ([`ToolFile::load`]) is all or nothing: unknown keys, wrong types,
//!   duplicate names, unknown placeholders and bad templates are reported together, each
//!   with file, line and column, and none of the file's tools is registered. The parser
//!   refuses files over 1 MiB and YAML with more than a few hundred aliases (no alias
//!   bombs).
//! - **Secrets** come only from the environment variables the `auth` block names, read at
//!   call time; a missing one is a clear error naming the variable, and a secret's value
//!   is scrubbed from results and errors.
//! - **Templates** are filled in as JSON trees, never by splicing text: a value holding
//!   `"` or a newline stays inside its string (see the `template` module's rules for
//!   absent values). Path and query placeholders are percent-encoded; the endpoint's
//!   scheme and host cannot be templated. The endpoint is the operator's choice, so it may
//!   be on loopback or a private network: the SSRF guard applies to URLs from the model.
//! - **Results**: `{"status": 200, "data": ...}`, where `data` is the JSON body (or the
//!   `output_fields` of `response_mapping`, by their dotted paths), or the text of a
//!   non-JSON body. A non-2xx status, or a JSON body without the `success_field`, is an
//!   error carrying the status and the start of the body.
//! - **Hot reload** ([`Watcher`]): a changed file is reloaded and swapped in at once
//!   ([`Registry::swap_source`](hermes_core::Registry::swap_source)); calls in flight
//!   finish on the version they started with; a broken edit is reported and the previous
//!   version keeps serving.
//!
//! Tools that send anything but GET or HEAD have the `write` scope; every tool needs the
//! `external:api` permission and carries the tags `source:yaml` and `external` (so the
//! gateway fences its results as outside content).

mod auth;
mod definition;
mod endpoint;
mod error;
mod file;
mod placeholder;
mod raw;
mod response;
mod template;
mod tool;
mod watch;

pub use error::{LoadError, Problem};
pub use file::ToolFile;
pub use watch::{Watcher, WatcherBuilder};
