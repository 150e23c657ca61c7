//! The `system` family: shell commands (`terminal`), background processes
//! (`process_start`, `process_output`, `process_kill`, `process_list`), the session's
//! environment variables (`env_get`, `env_set`) and a description of the machine
//! (`system_info`).
//!
//! Commands go through [`screen`] before they run: the dangerous-command detector of
//! hermes-permissions refuses hardline commands outright and puts dangerous ones to a
//! human unless the call was approved already. They run through
//! [`crate::common::process`], with the variables the session set with `env_set` added
//! to their environment ([`shell`]).

mod env;
mod info;
mod process;
mod screen;
mod shell;
mod terminal;

use std::sync::Arc;

use hermes_core::{Error, Tool, ToolSpec, ToolSpecBuilder};

use crate::common::Shared;

/// The tag every tool of the family carries (the README's table reads it).
const FAMILY_TAG: &str = "family:system";

/// Every tool of the family.
///
/// # Errors
///
/// An invalid spec: the specs are constants of this crate, so a bug the tests catch.
pub(crate) fn tools(shared: &Arc<Shared>) -> Result<Vec<Arc<dyn Tool>>, Error> {
    let processes = Arc::new(process::ProcessTable::new());
    Ok(vec![
        Arc::new(terminal::Terminal::new(shared)?),
        Arc::new(process::ProcessStart::new(shared, &processes)?),
        Arc::new(process::ProcessOutput::new(shared, &processes)?),
        Arc::new(process::ProcessKill::new(shared, &processes)?),
        Arc::new(process::ProcessList::new(&processes)?),
        Arc::new(env::EnvGet::new(shared)?),
        Arc::new(env::EnvSet::new(shared)?),
        Arc::new(info::SystemInfo::new()?),
    ])
}

/// The result cap of a tool returning two output streams of `max_output` bytes each:
/// room for both, escaped as JSON, within the 256 KiB every built-in tool keeps to.
fn result_cap(max_output: usize) -> usize {
    (3 * max_output + 8 * 1024).min(256 * 1024)
}

/// Finish a spec of this family: tagged with [`FAMILY_TAG`].
fn fixed_spec(builder: ToolSpecBuilder) -> Result<ToolSpec, Error> {
    builder.tag(FAMILY_TAG).build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolsConfig;

    #[test]
    fn every_tool_is_built_and_tagged() {
        let shared = Arc::new(Shared::new(ToolsConfig::default()));
        let names: Vec<String> = tools(&shared)
            .unwrap()
            .iter()
            .map(|tool| tool.spec().name().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "terminal",
                "process_start",
                "process_output",
                "process_kill",
                "process_list",
                "env_get",
                "env_set",
                "system_info"
            ]
        );
        for tool in tools(&shared).unwrap() {
            assert!(tool.spec().tags().iter().any(|tag| tag == FAMILY_TAG));
        }
    }
}
