//! Step 2: parse the model's argument string.

use serde_json::Value;

use crate::ToolError;

pub(crate) fn arguments(raw: &str) -> Result<Value, ToolError> {
    serde_json::from_str(raw).map_err(|err| {
        let full = err.to_string();
        // serde_json appends " at line L column C"; keep the message, report the position apart.
        let message = full
            .rsplit_once(" at line ")
            .map_or(full.as_str(), |(message, _)| message)
            .to_owned();
        ToolError::BadJson {
            message,
            line: err.line(),
            column: err.column(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_message_and_position() {
        let err = arguments("{\"a\": 1,\n \"b\": }").unwrap_err();
        let ToolError::BadJson {
            message,
            line,
            column,
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!((*line, *column), (2, 7));
        assert_eq!(message, "expected value");
        assert!(
            err.to_string()
                .contains("expected value at line 2 column 7")
        );
    }
}
