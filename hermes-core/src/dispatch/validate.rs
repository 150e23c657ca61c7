//! Step 3: check the arguments against the tool's compiled schema.

use jsonschema::Validator;
use serde_json::Value;

use crate::{ToolError, Violation};

/// Every violation, in the validator's order. The fast path (`is_valid`) allocates nothing.
pub(crate) fn arguments(validator: &Validator, args: &Value) -> Result<(), ToolError> {
    if validator.is_valid(args) {
        return Ok(());
    }
    let violations: Vec<Violation> = validator
        .iter_errors(args)
        .map(|error| {
            Violation::new(
                error.instance_path().as_str(),
                error.kind().keyword(),
                error.to_string(),
            )
        })
        .collect();
    Err(ToolError::InvalidArguments { violations })
}
