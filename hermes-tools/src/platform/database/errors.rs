//! Failures in words the model can act on, never with the password in them.

use std::time::Duration;

use hermes_core::ToolError;

use super::connection::{Dialect, Target, scrub};
use super::run::Failure;
use crate::common::output::truncate_middle;

/// SQLSTATE of a write in a read-only transaction (PostgreSQL, MySQL, MariaDB).
const READ_ONLY_STATE: &str = "25006";

/// The most bytes of a server's message passed on.
const MAX_MESSAGE_BYTES: usize = 4096;

/// The message for `failure` on `target`.
pub(crate) fn explain(
    failure: &Failure,
    target: &Target,
    timeout: Duration,
    write: bool,
) -> ToolError {
    let password = target.password();
    let timed_out = || {
        ToolError::failed(format!(
            "the statement ran past its timeout of {} ms and was cancelled; make it cheaper \
             (a LIMIT, an index, a narrower WHERE) or raise timeout_ms",
            timeout.as_millis()
        ))
    };
    match failure {
        Failure::TimedOut => timed_out(),
        Failure::Connect(sqlx::Error::PoolTimedOut) => ToolError::failed(format!(
            "could not connect to {}: no connection within {} s (the server refused it or \
             did not answer); check that the server runs and the host and port are right",
            target.display(),
            super::pools::ACQUIRE_TIMEOUT.as_secs()
        )),
        Failure::Connect(error) => ToolError::failed(format!(
            "could not connect to {}: {}; check the host, port, database name, user and password",
            target.display(),
            scrub(&error.to_string(), password)
        )),
        Failure::Database(sqlx::Error::Database(error)) => {
            let code = error
                .code()
                .map(|code| code.into_owned())
                .unwrap_or_default();
            let message = truncate_middle(scrub(error.message(), password), MAX_MESSAGE_BYTES);
            let read_only = code == READ_ONLY_STATE
                || (target.dialect() == Dialect::Sqlite && message.contains("readonly"));
            if read_only && !write {
                return ToolError::failed(format!(
                    "the statement tried to change data, but this call is read-only: writing \
                     needs the permission database:write, which the policy does not grant \
                     ({message}); ask the user to grant database:write, or only read"
                ));
            }
            if is_timeout(target.dialect(), &code, &message) {
                return timed_out();
            }
            let code = if code.is_empty() {
                String::new()
            } else {
                format!(" ({code})")
            };
            ToolError::failed(format!(
                "{} refused the statement{code}: {message}; fix the SQL and call again",
                target.dialect().as_str()
            ))
        }
        Failure::Database(error) => ToolError::failed(format!(
            "the query against {} failed: {}",
            target.display(),
            scrub(&error.to_string(), password)
        )),
    }
}

/// Whether the server cancelled the statement for running too long.
fn is_timeout(dialect: Dialect, code: &str, message: &str) -> bool {
    match dialect {
        Dialect::Postgresql => code == "57014",
        Dialect::Mysql => {
            code == "70100"
                || message.contains("max_statement_time")
                || message.contains("maximum statement execution time")
        }
        Dialect::Sqlite => code == "9" || message.contains("interrupted"),
    }
}
