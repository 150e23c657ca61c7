//! What the tools share: path resolution, subprocesses, output bounds, session state.
//! Each lives here once; a tool that needs one of these uses it from here.

#[cfg(any(feature = "system", feature = "code"))]
pub(crate) mod head_tail;
pub(crate) mod output;
pub(crate) mod paths;
#[cfg(any(feature = "system", feature = "code"))]
pub(crate) mod process;
pub(crate) mod session;

pub(crate) use session::Shared;
