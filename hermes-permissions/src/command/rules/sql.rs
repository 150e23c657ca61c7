//! Destructive SQL: `DROP`, `TRUNCATE`, `DELETE FROM` without `WHERE`,
//! `ALTER TABLE ... DROP`.
//!
//! SQL is only looked for where it will be executed: when the whole text is
//! SQL (its first word is a SQL keyword), in the arguments, here-documents
//! and here-strings of a SQL client, and in what `echo`/`printf`/`cat` pipe
//! into a SQL client. `echo "drop table x"` on its own is just text.

use std::sync::LazyLock;

use regex::{Match, Regex};

use super::super::engine::{Engine, Finding};
use super::context::snippet;
use super::{Ctx, Invocation, Rule, SQL_DELETE_ALL, SQL_DROP, SQL_TRUNCATE};

/// First words that make a text SQL rather than shell.
const SQL_START: &[&str] = &[
    "select", "insert", "update", "delete", "drop", "truncate", "alter", "create", "grant",
    "revoke", "with", "replace", "merge", "begin", "start", "use", "explain",
];

fn compile(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

static DROP: LazyLock<Option<Regex>> = LazyLock::new(|| {
    compile(
        r"\bdrop\s+(?:temporary\s+|materialized\s+)?(?:table|database|schema|index|view|user|role)\b",
    )
});
static ALTER_DROP: LazyLock<Option<Regex>> =
    LazyLock::new(|| compile(r"\balter\s+table\b[^;]*?\bdrop\b"));
// `truncate -s 0 file` is coreutils, so the table name may not start with `-`.
static TRUNCATE: LazyLock<Option<Regex>> =
    LazyLock::new(|| compile(r"\btruncate\s+(?:table\s+)?[^\s;\-]"));
static DELETE: LazyLock<Option<Regex>> = LazyLock::new(|| compile(r"\bdelete\s+from\b"));
static WHERE: LazyLock<Option<Regex>> = LazyLock::new(|| compile(r"\bwhere\b"));

fn find<'t>(regex: &LazyLock<Option<Regex>>, text: &'t str) -> Option<Match<'t>> {
    regex.as_ref()?.find(text)
}

/// SQL clients whose arguments and standard input are executed as SQL.
pub(crate) fn is_client(program: &str) -> bool {
    matches!(
        program,
        "psql"
            | "mysql"
            | "mariadb"
            | "sqlite3"
            | "sqlcmd"
            | "clickhouse-client"
            | "clickhouse"
            | "cockroach"
            | "duckdb"
    )
}

/// A destructive statement found in some SQL.
struct SqlHit {
    rule: &'static Rule,
    keyword: &'static str,
    reason: String,
}

/// Look for a destructive statement in lowercased SQL text.
fn check(sql: &str) -> Option<SqlHit> {
    for statement in sql.split(';') {
        let quote = |m: Match<'_>| {
            let from = statement.get(m.start()..).unwrap_or_default();
            snippet(
                [from
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .as_str()]
                .into_iter(),
            )
        };
        if let Some(m) = find(&DROP, statement) {
            return Some(SqlHit {
                rule: &SQL_DROP,
                keyword: "drop",
                reason: format!(
                    "`{}` permanently removes a database object and its data",
                    quote(m)
                ),
            });
        }
        if let Some(m) = find(&ALTER_DROP, statement) {
            return Some(SqlHit {
                rule: &SQL_DROP,
                keyword: "alter",
                reason: format!(
                    "`{}` permanently removes part of a table and its data",
                    quote(m)
                ),
            });
        }
        if let Some(m) = find(&TRUNCATE, statement) {
            return Some(SqlHit {
                rule: &SQL_TRUNCATE,
                keyword: "truncate",
                reason: format!("`{}` removes every row of a table", quote(m)),
            });
        }
        if let Some(m) = find(&DELETE, statement)
            && find(&WHERE, statement.get(m.end()..).unwrap_or_default()).is_none()
        {
            return Some(SqlHit {
                rule: &SQL_DELETE_ALL,
                keyword: "delete",
                reason: format!(
                    "`{}` has no where clause, so it removes every row of the table",
                    quote(m)
                ),
            });
        }
    }
    None
}

/// The whole text is SQL: check it as such.
pub(crate) fn whole_text(engine: &mut Engine, source: &str) {
    let lower = source.to_lowercase();
    let first: String = lower
        .trim_start()
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect();
    if !SQL_START.contains(&first.as_str()) {
        return;
    }
    if let Some(hit) = check(&lower) {
        let class = format!("{}:{}", hit.rule.id, hit.keyword);
        engine.offer(Finding::new(hit.rule, hit.reason, class));
    }
}

/// Check `sql` run by the client `inv`; `origin` says where it came from.
pub(crate) fn check_text(
    ctx: &mut Ctx<'_, '_>,
    inv: &Invocation<'_>,
    sql: &str,
    origin: &str,
) -> bool {
    match check(sql) {
        Some(hit) => {
            ctx.hit(
                hit.rule,
                inv,
                format!("{} (in {origin} of `{}`)", hit.reason, inv.program),
            );
            true
        }
        None => false,
    }
}

/// A SQL client: its arguments (`-c`, `-e`, positional SQL) and inline input.
pub(crate) fn client(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    for arg in inv.args() {
        if check_text(ctx, inv, &arg.text, "the arguments") {
            return;
        }
    }
    if let Some(input) = ctx.stdin_text() {
        check_text(ctx, inv, &input.to_lowercase(), "the inline input");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(sql: &str) -> Option<&'static str> {
        check(sql).map(|hit| hit.rule.id)
    }

    #[test]
    fn patterns_compile() {
        for regex in [&DROP, &ALTER_DROP, &TRUNCATE, &DELETE, &WHERE] {
            assert!(regex.is_some());
        }
    }

    #[test]
    fn destructive_statements() {
        assert_eq!(rule("drop table users"), Some("dangerous.sql-drop"));
        assert_eq!(
            rule("drop   database if exists prod"),
            Some("dangerous.sql-drop")
        );
        assert_eq!(
            rule("alter table t drop column c"),
            Some("dangerous.sql-drop")
        );
        assert_eq!(rule("truncate table t"), Some("dangerous.sql-truncate"));
        assert_eq!(rule("truncate t"), Some("dangerous.sql-truncate"));
        assert_eq!(rule("delete from t"), Some("dangerous.sql-delete-all"));
        assert_eq!(
            rule("delete from t where id = 1; delete from u"),
            Some("dangerous.sql-delete-all")
        );
    }

    #[test]
    fn harmless_statements() {
        assert_eq!(rule("delete from t where id = 1"), None);
        assert_eq!(rule("delete from t\nwhere id = 1"), None);
        assert_eq!(rule("select * from dropped_tables"), None);
        assert_eq!(rule("truncate -s 0 file.log"), None);
        assert_eq!(rule("alter table t add column c int"), None);
        assert_eq!(rule("create table drop_log (id int)"), None);
    }
}
