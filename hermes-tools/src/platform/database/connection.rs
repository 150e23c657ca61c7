//! Connection strings: which dialect they speak, how they read with the password masked,
//! and where a SQLite file is once confined to the workspace.

use std::path::PathBuf;

use hermes_core::{ToolContext, ToolError};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::common::{Shared, paths};

/// The SQL dialects `database_query` speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Dialect {
    /// PostgreSQL (`postgres://` or `postgresql://`).
    Postgresql,
    /// MySQL or MariaDB (`mysql://` or `mariadb://`).
    Mysql,
    /// SQLite (`sqlite:path` or a file path).
    Sqlite,
}

impl Dialect {
    /// The dialect a connection string's scheme names, if it names one.
    fn of_scheme(connection: &str) -> Option<Self> {
        let scheme = connection.split_once(':')?.0.to_ascii_lowercase();
        match scheme.as_str() {
            "postgres" | "postgresql" => Some(Self::Postgresql),
            "mysql" | "mariadb" => Some(Self::Mysql),
            "sqlite" => Some(Self::Sqlite),
            _ => None,
        }
    }

    /// `postgresql`, `mysql` or `sqlite`.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Postgresql => "postgresql",
            Self::Mysql => "mysql",
            Self::Sqlite => "sqlite",
        }
    }
}

/// A connection string from the model, understood.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// A server: the URL as given (sqlx parses it), its dialect.
    Server {
        /// The dialect.
        dialect: Dialect,
        /// The URL, password included.
        url: String,
    },
    /// A SQLite file, resolved inside the workspace.
    Sqlite(PathBuf),
}

impl Target {
    /// Understand `connection`, checking it against `dialect` when the call gave one.
    ///
    /// # Errors
    ///
    /// A message for the model: an unknown scheme, a dialect that contradicts the
    /// scheme, a SQLite path outside the workspace.
    pub(crate) fn parse(
        shared: &Shared,
        ctx: &ToolContext,
        connection: &str,
        dialect: Option<Dialect>,
    ) -> Result<Self, ToolError> {
        let connection = connection.trim();
        let named = Dialect::of_scheme(connection);
        let dialect = match (named, dialect) {
            (Some(named), Some(given)) if named != given => {
                return Err(ToolError::failed(format!(
                    "the connection string `{}` is for {}, not {}; fix `dialect` or the string",
                    mask(connection),
                    named.as_str(),
                    given.as_str()
                )));
            }
            (Some(named), _) => named,
            (None, Some(Dialect::Sqlite)) => return sqlite_file(shared, ctx, connection),
            (None, _) => {
                return Err(ToolError::failed(format!(
                    "`{}` is not a connection string this tool knows; use \
                     postgres://user:password@host:port/db, mysql://user:password@host:port/db \
                     or sqlite:path/to/file.db",
                    mask(connection)
                )));
            }
        };
        if dialect == Dialect::Sqlite {
            let rest = &connection[connection.find(':').map_or(0, |at| at + 1)..];
            let rest = rest.strip_prefix("//").unwrap_or(rest);
            let path = rest.split_once('?').map_or(rest, |(path, _)| path);
            return sqlite_file(shared, ctx, path);
        }
        Ok(Self::Server {
            dialect,
            url: connection.to_owned(),
        })
    }

    /// The dialect spoken.
    pub(crate) fn dialect(&self) -> Dialect {
        match self {
            Self::Server { dialect, .. } => *dialect,
            Self::Sqlite(_) => Dialect::Sqlite,
        }
    }

    /// What pools are keyed by: the URL, or the file's resolved path.
    pub(crate) fn key(&self) -> String {
        match self {
            Self::Server { url, .. } => url.clone(),
            Self::Sqlite(path) => format!("sqlite:{}", path.display()),
        }
    }

    /// How the target may be shown: the password masked.
    pub(crate) fn display(&self) -> String {
        match self {
            Self::Server { url, .. } => mask(url),
            Self::Sqlite(path) => format!("sqlite:{}", path.display()),
        }
    }

    /// The password in the URL, if any, to scrub from error messages.
    pub(crate) fn password(&self) -> Option<&str> {
        match self {
            Self::Server { url, .. } => password_span(url).map(|(start, end)| &url[start..end]),
            Self::Sqlite(_) => None,
        }
    }
}

fn sqlite_file(shared: &Shared, ctx: &ToolContext, raw: &str) -> Result<Target, ToolError> {
    if raw.is_empty() || raw == ":memory:" {
        return Err(ToolError::failed(
            "give the SQLite database as a file path (an in-memory database would be empty)",
        ));
    }
    paths::resolve(shared, ctx, raw).map(Target::Sqlite)
}

/// Where the password of `url` (`scheme://user:password@host/...`) lies, if it has one.
fn password_span(url: &str) -> Option<(usize, usize)> {
    let authority_start = url.find("://")? + 3;
    let rest = &url[authority_start..];
    let authority_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_len];
    let at = authority.rfind('@')?;
    let colon = authority[..at].find(':')?;
    Some((authority_start + colon + 1, authority_start + at))
}

/// `url` with its password replaced by `****`; also the `password=` query parameter.
pub(crate) fn mask(url: &str) -> String {
    let mut masked = match password_span(url) {
        Some((start, end)) => format!("{}****{}", &url[..start], &url[end..]),
        None => url.to_owned(),
    };
    if let Some(query_start) = masked.find('?') {
        let (head, query) = masked.split_at(query_start + 1);
        let query = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) if name.eq_ignore_ascii_case("password") => {
                    format!("{name}=****")
                }
                _ => pair.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("&");
        masked = format!("{head}{query}");
    }
    masked
}

/// `message` with every occurrence of `password` masked.
pub(crate) fn scrub(message: &str, password: Option<&str>) -> String {
    match password {
        Some(password) if password.len() >= 2 => message.replace(password, "****"),
        _ => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked() {
        assert_eq!(
            mask("postgres://me:s3cret@db:5432/app"),
            "postgres://me:****@db:5432/app"
        );
        assert_eq!(mask("mysql://me:p@ss@db/app"), "mysql://me:****@db/app");
        assert_eq!(mask("postgres://me@db/app"), "postgres://me@db/app");
        assert_eq!(
            mask("postgres://db/app?user=me&password=x1"),
            "postgres://db/app?user=me&password=****"
        );
        assert_eq!(scrub("bad s3cret here", Some("s3cret")), "bad **** here");
    }

    #[test]
    fn schemes_name_dialects() {
        assert_eq!(
            Dialect::of_scheme("postgresql://x"),
            Some(Dialect::Postgresql)
        );
        assert_eq!(Dialect::of_scheme("MARIADB://x"), Some(Dialect::Mysql));
        assert_eq!(Dialect::of_scheme("sqlite:a.db"), Some(Dialect::Sqlite));
        assert_eq!(Dialect::of_scheme("a.db"), None);
    }
}
