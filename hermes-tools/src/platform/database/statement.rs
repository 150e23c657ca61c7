//! What a statement is, from its first words: enough to refuse the statements that would
//! step out of the transaction the tool runs each query in.

use super::connection::Dialect;

/// The statement's leading keywords, upper case, comments and blanks skipped.
fn leading_words(sql: &str, count: usize) -> Vec<String> {
    let mut rest = sql;
    loop {
        let trimmed = rest.trim_start();
        if let Some(line) = trimmed.strip_prefix("--") {
            rest = line.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(block) = trimmed.strip_prefix("/*") {
            rest = block.split_once("*/").map_or("", |(_, after)| after);
        } else {
            rest = trimmed;
            break;
        }
    }
    rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .take(count)
        .map(str::to_ascii_uppercase)
        .collect()
}

/// Why `sql` may not run through this tool in `dialect`, if it may not.
pub(crate) fn refusal(sql: &str, dialect: Dialect) -> Option<String> {
    let words = leading_words(sql, 3);
    let first = words.first().map(String::as_str).unwrap_or_default();
    let second = words.get(1).map(String::as_str).unwrap_or_default();
    let control = matches!(
        first,
        "BEGIN" | "START" | "COMMIT" | "END" | "ROLLBACK" | "ABORT" | "RELEASE" | "SAVEPOINT"
    ) || (first == "SET"
        && matches!(second, "TRANSACTION" | "SESSION" | "AUTOCOMMIT"))
        || (first == "XA");
    if control {
        return Some(format!(
            "`{first}` controls transactions or session modes; this tool runs each query in a \
             transaction of its own (committed only when writes are allowed), so send the \
             statement alone, without BEGIN/COMMIT/SET TRANSACTION"
        ));
    }
    if dialect == Dialect::Sqlite && several_statements(sql) {
        return Some(
            "send one statement per call (SQLite would run every statement of the text)".to_owned(),
        );
    }
    if dialect == Dialect::Sqlite && matches!(first, "ATTACH" | "DETACH" | "PRAGMA" | "VACUUM") {
        return Some(format!(
            "`{first}` is not allowed through this tool on SQLite (it can open other files or \
             change how the connection behaves); query the tables instead"
        ));
    }
    None
}

/// Whether `sql` holds more than one statement: text after a `;` that is outside
/// quotes and comments.
fn several_statements(sql: &str) -> bool {
    let mut chars = sql.chars().peekable();
    let mut ended = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' | '`' => {
                if ended {
                    return true;
                }
                for inner in chars.by_ref() {
                    if inner == c {
                        break;
                    }
                }
            }
            '-' if chars.peek() == Some(&'-') => {
                for inner in chars.by_ref() {
                    if inner == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut star = false;
                for inner in chars.by_ref() {
                    if star && inner == '/' {
                        break;
                    }
                    star = inner == '*';
                }
            }
            ';' => ended = true,
            c if c.is_whitespace() => {}
            _ if ended => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transaction_control_is_refused() {
        for sql in [
            "COMMIT",
            "  begin; insert into t values (1)",
            "-- note\nROLLBACK",
            "/* x */ set transaction read write",
            "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
        ] {
            assert!(refusal(sql, Dialect::Postgresql).is_some(), "{sql}");
        }
        assert!(refusal("ATTACH DATABASE '/etc/x' AS x", Dialect::Sqlite).is_some());
        assert!(refusal("PRAGMA query_only = OFF", Dialect::Sqlite).is_some());
        assert!(refusal("SELECT 1; ATTACH 'x' AS y", Dialect::Sqlite).is_some());
        assert!(refusal("SELECT ';' ; -- done", Dialect::Sqlite).is_none());
        for sql in [
            "SELECT 1",
            "insert into t values (1)",
            "SET search_path = x",
            "WITH a AS (SELECT 1) SELECT * FROM a",
        ] {
            assert!(refusal(sql, Dialect::Postgresql).is_none(), "{sql}");
        }
    }
}
