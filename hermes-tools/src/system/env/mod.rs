//! The session's environment variables: `env_get` and `env_set`, the rules for names
//! and values ([`names`]) and which values are secrets ([`secrets`]).

mod get;
pub(crate) mod names;
mod secrets;
mod set;

pub(crate) use get::EnvGet;
pub(crate) use set::EnvSet;
