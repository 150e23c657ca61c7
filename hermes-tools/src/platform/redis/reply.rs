//! Redis replies as JSON, within a byte budget: bulk strings as UTF-8 text or
//! `{"base64": ..}`, integers, doubles and booleans as themselves, nil as null, arrays
//! and sets as arrays, maps as objects (pairs when a key is not text), nested error
//! replies as `{"error": ..}`.

use base64::Engine as _;
use redis::Value as Reply;
use serde_json::{Map, Number, Value, json};

/// Turns replies into JSON, cutting what does not fit.
#[derive(Debug)]
pub(crate) struct Converter {
    remaining: usize,
    /// Whether something was left out.
    pub(crate) truncated: bool,
}

impl Converter {
    /// A converter that keeps about `budget` bytes of text.
    pub(crate) fn new(budget: usize) -> Self {
        Self {
            remaining: budget,
            truncated: false,
        }
    }

    fn spend(&mut self, bytes: usize) {
        self.remaining = self.remaining.saturating_sub(bytes);
    }

    /// `bytes` as text, or base64 when not UTF-8; cut to the budget.
    fn bulk(&mut self, bytes: &[u8]) -> Value {
        let keep = bytes.len().min(self.remaining.max(16));
        if keep < bytes.len() {
            self.truncated = true;
        }
        let kept = &bytes[..keep];
        self.spend(kept.len());
        match std::str::from_utf8(kept) {
            Ok(text) => Value::String(text.to_owned()),
            // A cut in the middle of a character: keep the valid part as text.
            Err(error) if keep < bytes.len() && error.error_len().is_none() => {
                Value::String(String::from_utf8_lossy(&kept[..error.valid_up_to()]).into_owned())
            }
            Err(_) => json!({"base64": base64::engine::general_purpose::STANDARD.encode(kept)}),
        }
    }

    fn items<'a>(&mut self, items: impl IntoIterator<Item = &'a Reply>) -> Value {
        let mut out = Vec::new();
        for item in items {
            if self.remaining == 0 {
                self.truncated = true;
                break;
            }
            self.spend(2);
            out.push(self.convert(item));
        }
        Value::Array(out)
    }

    fn pairs(&mut self, pairs: &[(Reply, Reply)]) -> Value {
        let text_keys = pairs.iter().all(|(key, _)| {
            matches!(key, Reply::SimpleString(_))
                || matches!(key, Reply::BulkString(bytes) if std::str::from_utf8(bytes).is_ok())
        });
        if text_keys {
            let mut object = Map::new();
            for (key, value) in pairs {
                if self.remaining == 0 {
                    self.truncated = true;
                    break;
                }
                let key = match self.convert(key) {
                    Value::String(key) => key,
                    other => other.to_string(),
                };
                let value = self.convert(value);
                object.insert(key, value);
            }
            Value::Object(object)
        } else {
            let flat: Vec<Reply> = pairs
                .iter()
                .map(|(key, value)| Reply::Array(vec![key.clone(), value.clone()]))
                .collect();
            self.items(flat.iter())
        }
    }

    /// `reply` as JSON.
    pub(crate) fn convert(&mut self, reply: &Reply) -> Value {
        match reply {
            Reply::Nil => Value::Null,
            Reply::Int(number) => Value::from(*number),
            Reply::BulkString(bytes) => self.bulk(bytes),
            Reply::SimpleString(text) => self.bulk(text.as_bytes()),
            Reply::Okay => Value::String("OK".to_owned()),
            Reply::Array(items) | Reply::Set(items) => self.items(items),
            Reply::Push { data, .. } => self.items(data),
            Reply::Map(pairs) => self.pairs(pairs),
            Reply::Attribute { data, .. } => self.convert(data),
            Reply::Double(number) => Number::from_f64(*number)
                .map_or_else(|| Value::String(number.to_string()), Value::Number),
            Reply::Boolean(flag) => Value::Bool(*flag),
            Reply::VerbatimString { text, .. } => self.bulk(text.as_bytes()),
            Reply::BigNumber(number) => Value::String(number.to_string()),
            Reply::ServerError(error) => {
                json!({"error": format!("{} {}", error.code(), error.details().unwrap_or_default())})
            }
        }
    }
}

/// A flat `[field, value, field, value...]` array (RESP2's HGETALL) as an object, when
/// every field is text; other values unchanged.
pub(crate) fn pair_up(value: Value) -> Value {
    match value {
        Value::Array(items)
            if items.len() % 2 == 0 && items.iter().step_by(2).all(Value::is_string) =>
        {
            let mut object = Map::new();
            let mut items = items.into_iter();
            while let (Some(Value::String(key)), Some(value)) = (items.next(), items.next()) {
                object.insert(key, value);
            }
            Value::Object(object)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_become_json() {
        let mut converter = Converter::new(1024);
        let reply = Reply::Array(vec![
            Reply::BulkString(b"text".to_vec()),
            Reply::BulkString(vec![0xff, 0x00]),
            Reply::Int(3),
            Reply::Nil,
            Reply::Okay,
        ]);
        assert_eq!(
            converter.convert(&reply),
            json!(["text", {"base64": "/wA="}, 3, null, "OK"])
        );
        assert!(!converter.truncated);
    }

    #[test]
    fn the_budget_cuts() {
        let mut converter = Converter::new(20);
        let reply = Reply::Array((0..100).map(Reply::Int).collect());
        let Value::Array(items) = converter.convert(&reply) else {
            panic!("not an array")
        };
        assert!(items.len() < 100);
        assert!(converter.truncated);
    }

    #[test]
    fn flat_pairs_pair_up() {
        assert_eq!(
            pair_up(json!(["a", "1", "b", "2"])),
            json!({"a": "1", "b": "2"})
        );
        assert_eq!(pair_up(json!(["a"])), json!(["a"]));
    }
}
