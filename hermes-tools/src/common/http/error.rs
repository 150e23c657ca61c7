//! Transport failures as errors the model can act on.

use std::error::Error as StdError;
use std::io;
use std::time::Duration;

use hermes_core::ToolError;

use super::client::{TooManyRedirects, UrlError};
use super::resolve::LookupError;

/// `error`, from a request to `url` with `timeout`, as a message for the model.
pub(crate) fn request_failed(error: reqwest::Error, url: &str, timeout: Duration) -> ToolError {
    let error = error.without_url();
    if let Some(lookup) = find::<LookupError>(&error) {
        return match lookup {
            LookupError::Unresolved(unresolved) => {
                ToolError::failed(format!("cannot reach `{url}`: {unresolved}"))
            }
            LookupError::Blocked { host, blocked } => ToolError::failed(format!(
                "refused to connect to `{url}`: `{host}` resolves to {blocked}"
            )),
        };
    }
    if let Some(url_error) = find::<UrlError>(&error) {
        return ToolError::failed(format!(
            "refused to follow a redirect from `{url}`: {url_error}"
        ));
    }
    if let Some(too_many) = find::<TooManyRedirects>(&error) {
        return ToolError::failed(format!("`{url}`: {too_many}"));
    }
    if error.is_timeout() {
        return ToolError::failed(format!(
            "the request to `{url}` timed out after {} s; try again later or allow a longer timeout",
            timeout.as_secs()
        ));
    }
    if let Some(io_error) = find::<io::Error>(&error) {
        if io_error.kind() == io::ErrorKind::ConnectionRefused {
            return ToolError::failed(format!(
                "the connection to `{url}` was refused: nothing listens there; check the host and port"
            ));
        }
    }
    if error.is_connect() {
        return ToolError::failed_with(
            format!("cannot connect to `{url}`; check the host and port, or try later"),
            error,
        );
    }
    if error.is_body() || error.is_decode() {
        return ToolError::failed_with(
            format!("the response from `{url}` broke off while being read; try again"),
            error,
        );
    }
    ToolError::failed_with(format!("the request to `{url}` failed"), error)
}

/// A refused or malformed URL, as a message for the model.
pub(crate) fn url_refused(error: UrlError) -> ToolError {
    match error {
        UrlError::Blocked(blocked) => ToolError::failed(format!("refused to connect: {blocked}")),
        other => ToolError::failed(other.to_string()),
    }
}

/// A failed host lookup, as a message for the model.
pub(crate) fn lookup_failed(error: LookupError) -> ToolError {
    match error {
        LookupError::Unresolved(unresolved) => ToolError::failed(unresolved.to_string()),
        LookupError::Blocked { host, blocked } => ToolError::failed(format!(
            "refused to connect to `{host}`: it resolves to {blocked}"
        )),
    }
}

/// The first error of type `T` in `error`'s chain of sources.
fn find<'a, T: StdError + 'static>(error: &'a (dyn StdError + 'static)) -> Option<&'a T> {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(found) = error.downcast_ref::<T>() {
            return Some(found);
        }
        current = error.source();
    }
    None
}
