//! Column values as JSON: integers, floats, text, booleans, null and JSON as themselves;
//! timestamps, dates, times, UUIDs and exact decimals as strings; bytes as base64
//! (`{"base64": ..}`); a type this module does not know as its text, or base64.

use base64::Engine as _;
use serde_json::{Number, Value, json};
use sqlx::mysql::MySqlRow;
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::types::chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use sqlx::types::{JsonValue, Uuid};
use sqlx::{Row, TypeInfo, ValueRef};

/// A float as JSON: a number, or its name when not finite.
fn float(value: f64) -> Value {
    Number::from_f64(value).map_or_else(|| Value::String(value.to_string()), Value::Number)
}

/// Bytes as JSON.
fn bytes(value: &[u8]) -> Value {
    json!({"base64": base64::engine::general_purpose::STANDARD.encode(value)})
}

/// Text, or bytes when they are not UTF-8.
fn text_or_bytes(value: &[u8]) -> Value {
    match std::str::from_utf8(value) {
        Ok(text) => Value::String(text.to_owned()),
        Err(_) => bytes(value),
    }
}

fn naive_datetime(value: NaiveDateTime) -> Value {
    Value::String(value.format("%Y-%m-%dT%H:%M:%S%.f").to_string())
}

fn datetime(value: DateTime<Utc>) -> Value {
    Value::String(value.to_rfc3339())
}

/// Decode one value as `T`, then make it JSON; `None` when it does not decode as `T`.
macro_rules! decoded {
    ($row:expr, $index:expr, $ty:ty, $make:expr) => {
        $row.try_get_unchecked::<$ty, _>($index).ok().map($make)
    };
}

/// Column `index` of a PostgreSQL row.
pub(crate) fn postgres(row: &PgRow, index: usize) -> Value {
    let Ok(raw) = row.try_get_raw(index) else {
        return Value::Null;
    };
    if raw.is_null() {
        return Value::Null;
    }
    let type_name = raw.type_info().name().to_owned();
    let value = match type_name.as_str() {
        "BOOL" => decoded!(row, index, bool, Value::Bool),
        "INT2" => decoded!(row, index, i16, Value::from),
        "INT4" => decoded!(row, index, i32, Value::from),
        "INT8" => decoded!(row, index, i64, Value::from),
        "OID" => decoded!(row, index, sqlx::postgres::types::Oid, |oid| Value::from(
            oid.0
        )),
        "FLOAT4" => decoded!(row, index, f32, |v| float(f64::from(v))),
        "FLOAT8" => decoded!(row, index, f64, float),
        "NUMERIC" => raw
            .as_bytes()
            .ok()
            .and_then(postgres_numeric)
            .map(Value::String),
        "JSON" | "JSONB" => decoded!(row, index, JsonValue, |v| v),
        "BYTEA" => decoded!(row, index, Vec<u8>, |v| bytes(&v)),
        "UUID" => decoded!(row, index, Uuid, |v| Value::String(v.to_string())),
        "TIMESTAMP" => decoded!(row, index, NaiveDateTime, naive_datetime),
        "TIMESTAMPTZ" => decoded!(row, index, DateTime<Utc>, datetime),
        "DATE" => decoded!(row, index, NaiveDate, |v| Value::String(v.to_string())),
        "TIME" => decoded!(row, index, NaiveTime, |v| Value::String(v.to_string())),
        "VOID" => Some(Value::Null),
        "TEXT" | "VARCHAR" | "BPCHAR" | "NAME" | "CITEXT" | "UNKNOWN" => {
            decoded!(row, index, String, Value::String)
        }
        "TEXT[]" | "VARCHAR[]" | "NAME[]" => decoded!(row, index, Vec<String>, Value::from),
        "INT4[]" => decoded!(row, index, Vec<i32>, Value::from),
        "INT8[]" => decoded!(row, index, Vec<i64>, Value::from),
        "BOOL[]" => decoded!(row, index, Vec<bool>, Value::from),
        _ => None,
    };
    // Enums, domains and other text-like types arrive as UTF-8; the rest as base64.
    value.unwrap_or_else(|| raw.as_bytes().map_or(Value::Null, text_or_bytes))
}

/// PostgreSQL's binary NUMERIC (base-10000 digits) as exact decimal text.
fn postgres_numeric(raw: &[u8]) -> Option<String> {
    let word = |at: usize| -> Option<i32> {
        let pair: [u8; 2] = raw.get(at..at + 2)?.try_into().ok()?;
        Some(i32::from(i16::from_be_bytes(pair)))
    };
    let count = usize::try_from(word(0)?).ok()?;
    let weight = word(2)?;
    let sign = u16::try_from(word(4)? & 0xFFFF).ok()?;
    let scale = usize::try_from(word(6)?).ok()?;
    match sign {
        0xC000 => return Some("NaN".to_owned()),
        0xD000 => return Some("Infinity".to_owned()),
        0xF000 => return Some("-Infinity".to_owned()),
        _ => {}
    }
    let digits: Vec<i32> = (0..count).map(|i| word(8 + 2 * i)).collect::<Option<_>>()?;
    let digit = |position: i32| -> i32 {
        usize::try_from(position)
            .ok()
            .and_then(|at| digits.get(at).copied())
            .unwrap_or(0)
    };
    let mut integer = String::new();
    for position in 0..=weight.max(-1) {
        if integer.is_empty() {
            let first = digit(position);
            if first != 0 {
                integer = first.to_string();
            }
        } else {
            integer.push_str(&format!("{:04}", digit(position)));
        }
    }
    if integer.is_empty() {
        integer.push('0');
    }
    let mut fraction = String::new();
    let mut position = weight + 1;
    while fraction.len() < scale {
        fraction.push_str(&format!("{:04}", digit(position)));
        position += 1;
    }
    fraction.truncate(scale);
    let sign = if sign == 0x4000 { "-" } else { "" };
    Some(if scale == 0 {
        format!("{sign}{integer}")
    } else {
        format!("{sign}{integer}.{fraction}")
    })
}

/// Column `index` of a MySQL or MariaDB row.
pub(crate) fn mysql(row: &MySqlRow, index: usize) -> Value {
    let Ok(raw) = row.try_get_raw(index) else {
        return Value::Null;
    };
    if raw.is_null() {
        return Value::Null;
    }
    let type_name = raw.type_info().name().to_owned();
    let unsigned = type_name.ends_with("UNSIGNED");
    let base = type_name.trim_end_matches(" UNSIGNED");
    let value = match base {
        "BOOLEAN" => decoded!(row, index, bool, Value::Bool),
        "TINYINT" | "SMALLINT" | "MEDIUMINT" | "INT" | "BIGINT" | "YEAR" if unsigned => {
            decoded!(row, index, u64, Value::from)
        }
        "TINYINT" | "SMALLINT" | "MEDIUMINT" | "INT" | "BIGINT" | "YEAR" => {
            decoded!(row, index, i64, Value::from)
        }
        "FLOAT" => decoded!(row, index, f32, |v| float(f64::from(v))),
        "DOUBLE" => decoded!(row, index, f64, float),
        "JSON" => decoded!(row, index, JsonValue, |v| v),
        "DATETIME" => decoded!(row, index, NaiveDateTime, naive_datetime),
        "TIMESTAMP" => decoded!(row, index, DateTime<Utc>, datetime),
        "DATE" => decoded!(row, index, NaiveDate, |v| Value::String(v.to_string())),
        "TIME" => decoded!(row, index, NaiveTime, |v| Value::String(v.to_string())),
        "BINARY" | "VARBINARY" | "TINYBLOB" | "BLOB" | "MEDIUMBLOB" | "LONGBLOB" | "BIT"
        | "GEOMETRY" => decoded!(row, index, Vec<u8>, |v| bytes(&v)),
        _ => None,
    };
    // DECIMAL, text, ENUM and SET arrive as text; anything else as bytes.
    value.unwrap_or_else(|| {
        row.try_get_unchecked::<Vec<u8>, _>(index)
            .map_or(Value::Null, |raw| text_or_bytes(&raw))
    })
}

/// Column `index` of a SQLite row, by the value's own storage class.
pub(crate) fn sqlite(row: &SqliteRow, index: usize) -> Value {
    let Ok(raw) = row.try_get_raw(index) else {
        return Value::Null;
    };
    if raw.is_null() {
        return Value::Null;
    }
    let declared = row
        .columns()
        .get(index)
        .map(|column| sqlx::Column::type_info(column).name().to_owned())
        .unwrap_or_default();
    let storage = raw.type_info().name().to_owned();
    let value = match (storage.as_str(), declared.as_str()) {
        ("INTEGER", "BOOLEAN") => decoded!(row, index, bool, Value::Bool),
        ("INTEGER", _) => decoded!(row, index, i64, Value::from),
        ("REAL", _) => decoded!(row, index, f64, float),
        ("BLOB", _) => decoded!(row, index, Vec<u8>, |v| bytes(&v)),
        _ => decoded!(row, index, String, Value::String),
    };
    value.unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(words: &[i16]) -> Vec<u8> {
        words.iter().flat_map(|word| word.to_be_bytes()).collect()
    }

    #[test]
    fn numerics_keep_their_digits() {
        // 12345.678: digits [1, 2345, 6780], weight 1, scale 3.
        let raw = numeric(&[3, 1, 0, 3, 1, 2345, 6780]);
        assert_eq!(postgres_numeric(&raw).unwrap(), "12345.678");
        // -0.05: digits [500], weight -1, scale 2.
        let raw = numeric(&[1, -1, 0x4000, 2, 500]);
        assert_eq!(postgres_numeric(&raw).unwrap(), "-0.05");
        // 0
        let raw = numeric(&[0, 0, 0, 0]);
        assert_eq!(postgres_numeric(&raw).unwrap(), "0");
        // 20000: digits [2], weight 1, scale 0.
        let raw = numeric(&[1, 1, 0, 0, 2]);
        assert_eq!(postgres_numeric(&raw).unwrap(), "20000");
    }
}
