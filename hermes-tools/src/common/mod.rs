//! What the tools share: path resolution, subprocesses, output bounds, session state.
//! Each lives here once; a tool that needs one of these uses it from here.

pub(crate) mod output;
pub(crate) mod paths;
pub(crate) mod process;
pub(crate) mod session;

pub(crate) use session::Shared;
