//! What the tools share: path resolution, checked directory handles, subprocesses,
//! output bounds, session state.
//! Each lives here once; a tool that needs one of these uses it from here. The HTTP
//! layer serves the network family and the YAML-configured tools.

#[cfg(any(
    feature = "file",
    feature = "multimedia",
    feature = "git",
    feature = "network"
))]
pub(crate) mod blocking;
// Each family uses part of it; only with all three is every part used.
#[cfg(any(feature = "file", feature = "network", feature = "multimedia"))]
#[cfg_attr(
    not(all(feature = "file", feature = "network", feature = "multimedia")),
    allow(dead_code)
)]
pub(crate) mod directory;
#[cfg(any(feature = "system", feature = "code", feature = "multimedia"))]
pub(crate) mod head_tail;
#[cfg(any(feature = "network", feature = "yaml"))]
pub(crate) mod http;
#[cfg(feature = "_family")]
pub(crate) mod output;
#[cfg(feature = "_family")]
// Redis and Docker take no paths: built alone, they leave it unused.
#[cfg_attr(
    not(any(
        feature = "system",
        feature = "file",
        feature = "code",
        feature = "network",
        feature = "multimedia",
        feature = "git",
        feature = "database"
    )),
    allow(dead_code)
)]
pub(crate) mod paths;
#[cfg(any(feature = "system", feature = "code", feature = "multimedia"))]
pub(crate) mod process;
#[cfg(feature = "_family")]
pub(crate) mod session;
#[cfg(any(feature = "file", feature = "git"))]
pub(crate) mod time;

#[cfg(feature = "_family")]
pub(crate) use session::Shared;
