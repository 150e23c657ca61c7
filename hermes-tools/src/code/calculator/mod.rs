//! `calculator`: safe arithmetic, parsed by recursive descent and never run as code:
//! the evaluator of the seed's `calc` (`hermes_core::demo`), with `**`, `%`, a few
//! functions and constants, and its result shape: `{"expression": .., "result": ..}`.

use hermes_core::demo::{CalcResult, calculate};
use hermes_core::{Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

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
    type Output = CalcResult;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: CalculatorArgs,
        _ctx: &ToolContext,
    ) -> Result<CalcResult, ToolError> {
        calculate(args.expression)
    }
}
