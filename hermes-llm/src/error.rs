//! Configuration errors. Request failures are hermes-core's [`LlmError`](hermes_core::LlmError).

/// A backend that cannot be built as configured.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A required setting is missing.
    #[error("{what} is not set: {hint}")]
    Missing {
        /// The setting.
        what: &'static str,
        /// How to set it.
        hint: &'static str,
    },
    /// A setting has a value that cannot work.
    #[error("invalid {what} `{value}`: {reason}")]
    Invalid {
        /// The setting.
        what: &'static str,
        /// The value given.
        value: String,
        /// Why it cannot work.
        reason: String,
    },
    /// A local model could not be loaded.
    #[error("cannot load the model {path}: {reason}")]
    Model {
        /// The GGUF file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("could not build the HTTP client")]
    Client(#[source] reqwest::Error),
}
