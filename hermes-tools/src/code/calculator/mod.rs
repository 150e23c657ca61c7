//! `calculator`: safe arithmetic, parsed by recursive descent and never run as code.
//! It extends the seed's `calc` (`hermes_core::demo`) with `**`, `%`, a few functions
//! and constants, and keeps its result shape: `{"expression": .., "result": ..}`.

mod functions;
mod parser;

use hermes_core::{Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Number;

use super::FAMILY_TAG;

/// The `calculator` tool.
#[derive(Debug)]
pub(crate) struct Calculator {
    spec: ToolSpec,
}

/// The arguments of `calculator`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CalculatorArgs {
    /// An arithmetic expression such as `-2**2 + sqrt(16) * (7 % 3) / max(1, 2.5)`:
    /// numbers (`1.5`, `.5`, `2e-3`), `+ - * / % **`, parentheses, the functions sqrt,
    /// abs, floor, ceil, round(x[, digits]), min, max, exp, ln, log10 and the constants
    /// pi and e.
    #[schemars(length(min = 1, max = 1000))]
    expression: String,
}

/// What `calculator` returns.
#[derive(Debug, Serialize)]
pub(crate) struct CalculatorResult {
    /// The expression, as given.
    expression: String,
    /// Its value: an integer when it is one (and exactly representable), else a float.
    result: Number,
}

impl Calculator {
    /// The tool.
    pub(crate) fn new() -> Result<Self, hermes_core::Error> {
        let spec = ToolSpec::builder(
            "calculator",
            "Evaluate an arithmetic expression exactly, with Python's operators and precedence. \
             It knows + - * / % ** (-2**2 is -4, ** is right-associative, % takes the divisor's \
             sign), parentheses, sqrt, abs, floor, ceil, round (half to even), min, max, exp, \
             ln, log10, pi and e. Use it instead of doing arithmetic in your head; errors give \
             the 0-based position of the problem.",
        )
        .parameters_for::<CalculatorArgs>()
        .tag(FAMILY_TAG)
        .tag("math")
        .scope(Scope::Read)
        .max_result_bytes(4 * 1024)
        .build()?;
        Ok(Self { spec })
    }
}

impl TypedTool for Calculator {
    type Args = CalculatorArgs;
    type Output = CalculatorResult;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: CalculatorArgs,
        _ctx: &ToolContext,
    ) -> Result<CalculatorResult, ToolError> {
        let value = parser::evaluate(&args.expression).map_err(|error| {
            ToolError::failed(format!(
                "cannot evaluate `{}`: {error}; fix the expression and call again",
                args.expression
            ))
        })?;
        Ok(CalculatorResult {
            expression: args.expression,
            result: to_number(value),
        })
    }
}

/// An integer when the value is one (and exactly representable), else a float; as the
/// seed's `calc` answers.
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
        assert_eq!(to_number(-0.0).to_string(), "0");
        assert_eq!(to_number(-2.8).to_string(), "-2.8");
        assert_eq!(to_number(1e300).to_string(), "1e+300");
    }
}
