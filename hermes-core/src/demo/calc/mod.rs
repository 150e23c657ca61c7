//! `calc`: safe arithmetic with a real parser, never evaluated as code. The parser
//! ([`evaluate`]) is the one hermes-tools' `calculator` uses too.

mod functions;
mod parser;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

pub use functions::Function;
pub use parser::{CalcError, Found, evaluate};

use crate::{Tool, ToolContext, ToolError, ToolFuture, ToolOutput, ToolSpec, parse_args};

/// The seed's safe calculator as a tool: `+ - * / % **`, parentheses, signs, decimal
/// numbers and a few functions (see [`evaluate`]). Parsed by recursive descent, never
/// evaluated as code.
#[derive(Debug, Clone)]
pub struct Calc {
    spec: ToolSpec,
}

/// Arguments of [`Calc`].
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalcArgs {
    /// An arithmetic expression such as `2 * (3 + 4) / -5`: numbers, + - * / % **,
    /// parentheses, functions.
    #[schemars(length(min = 1, max = 1000))]
    pub expression: String,
}

/// Result of [`Calc`].
#[derive(Debug, Serialize)]
pub struct CalcResult {
    /// The expression evaluated.
    pub expression: String,
    /// Its value; an integer when exact.
    pub result: Number,
}

impl Calc {
    /// The tool, named `calc`.
    pub fn new() -> Self {
        let spec = ToolSpec::builder(
            "calc",
            "Evaluate an arithmetic expression exactly as written: numbers, + - * / % **, \
             parentheses, signs, and sqrt, abs, round, min, max. Use it instead of doing \
             arithmetic in your head.",
        )
        .parameters_for::<CalcArgs>()
        .tag("math")
        .build();
        // The spec is a constant of this crate; its name and schema are known to be valid.
        #[expect(clippy::expect_used, reason = "a fixed spec, checked by the tests")]
        let spec = spec.expect("calc's spec is valid");
        Self { spec }
    }
}

impl Default for Calc {
    fn default() -> Self {
        Self::new()
    }
}

/// Synchronous: answers inside `run`, so the gateway allocates nothing for the call.
impl Tool for Calc {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn run<'a>(&'a self, args: Value, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(parse_args::<CalcArgs>(args).and_then(calculate_args))
    }
}

fn calculate_args(args: CalcArgs) -> Result<ToolOutput, ToolError> {
    ToolOutput::json(&calculate(args.expression)?)
}

/// Evaluate `expression` into the result a calculator tool returns: the expression and
/// its value, an integer when it is one.
///
/// ```
/// let result = hermes_core::demo::calculate("2 ** 10".to_owned())?;
/// assert_eq!(serde_json::to_string(&result).unwrap(), r#"{"expression":"2 ** 10","result":1024}"#);
/// # Ok::<(), hermes_core::ToolError>(())
/// ```
///
/// # Errors
///
/// A failure for the model: what is wrong in the expression, and where.
pub fn calculate(expression: String) -> Result<CalcResult, ToolError> {
    match evaluate(&expression) {
        Ok(value) => Ok(CalcResult {
            expression,
            result: to_number(value),
        }),
        Err(error) => Err(ToolError::failed(format!(
            "cannot evaluate `{expression}`: {error}; fix the expression and call again"
        ))),
    }
}

/// An integer when the value is one (and exactly representable), else a float.
fn to_number(value: f64) -> Number {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if value.fract() == 0.0 && value.abs() < EXACT {
        #[expect(clippy::cast_possible_truncation, reason = "integral and below 2^53")]
        Number::from(value as i64)
    } else {
        Number::from_f64(value).unwrap_or_else(|| Number::from(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integral_results_are_integers() {
        assert_eq!(to_number(14.0).to_string(), "14");
        assert_eq!(to_number(-2.8).to_string(), "-2.8");
        assert_eq!(to_number(1e300).to_string(), "1e+300");
    }
}
