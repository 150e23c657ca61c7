//! `calc`: safe arithmetic with a real parser (+ - * / parentheses, unary minus).

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Number;

use serde_json::Value;

use crate::{Tool, ToolContext, ToolError, ToolFuture, ToolOutput, ToolSpec, parse_args};

/// Longest expression accepted.
const MAX_LEN: usize = 1000;
/// Deepest nesting of parentheses and unary minus accepted.
const MAX_DEPTH: usize = 64;

/// The seed's safe calculator: `+ - * /`, parentheses, unary minus, decimal numbers,
/// nothing else. Parsed by recursive descent, never evaluated as code.
#[derive(Debug, Clone)]
pub struct Calc {
    spec: ToolSpec,
}

/// Arguments of [`Calc`].
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalcArgs {
    /// An arithmetic expression such as `2 * (3 + 4) / -5`: numbers, + - * /, parentheses.
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
            "Evaluate an arithmetic expression exactly as written: numbers, + - * /, \
             parentheses and unary minus. Use it instead of doing arithmetic in your head.",
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
        ToolFuture::ready(parse_args::<CalcArgs>(args).and_then(calculate))
    }
}

fn calculate(args: CalcArgs) -> Result<ToolOutput, ToolError> {
    let value = evaluate(&args.expression).map_err(|error| {
        ToolError::failed(format!(
            "cannot evaluate `{}`: {error}; fix the expression and call again",
            args.expression
        ))
    })?;
    ToolOutput::json(&CalcResult {
        expression: args.expression,
        result: to_number(value),
    })
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

/// Why an expression could not be evaluated. Positions are 0-based byte offsets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CalcError {
    /// Nothing to evaluate.
    #[error("the expression is empty")]
    Empty,
    /// Longer than 1000 characters.
    #[error("the expression is longer than {MAX_LEN} characters")]
    TooLong,
    /// A character or token that does not belong there.
    #[error("unexpected {found} at position {at}")]
    Unexpected {
        /// What was found.
        found: Found,
        /// Where.
        at: usize,
    },
    /// A `(` without its `)`.
    #[error("the parenthesis opened at position {at} is never closed")]
    Unclosed {
        /// Where the `(` is.
        at: usize,
    },
    /// Nested too deeply.
    #[error("the expression nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// Division by zero.
    #[error("division by zero at position {at}")]
    DivisionByZero {
        /// Where the `/` is.
        at: usize,
    },
    /// The value overflowed.
    #[error("the result is too large to represent")]
    Overflow,
}

/// What [`CalcError::Unexpected`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A character.
    Char(char),
    /// The end of the input.
    End,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Char(c) => write!(f, "`{c}`"),
            Self::End => f.write_str("end of expression"),
        }
    }
}

/// Evaluate an arithmetic expression.
///
/// ```
/// use hermes_core::demo::evaluate;
/// assert_eq!(evaluate("2 * (3 + 4) / -5"), Ok(-2.8));
/// assert!(evaluate("1 / 0").is_err());
/// ```
///
/// # Errors
///
/// A [`CalcError`] saying what is wrong and where.
pub fn evaluate(expression: &str) -> Result<f64, CalcError> {
    if expression.len() > MAX_LEN {
        return Err(CalcError::TooLong);
    }
    if expression.trim().is_empty() {
        return Err(CalcError::Empty);
    }
    let mut parser = Parser {
        input: expression.as_bytes(),
        source: expression,
        at: 0,
        depth: 0,
    };
    let value = parser.expression()?;
    parser.skip_space();
    if parser.at < parser.input.len() {
        return Err(parser.unexpected());
    }
    if value.is_finite() {
        Ok(value)
    } else {
        Err(CalcError::Overflow)
    }
}

struct Parser<'a> {
    input: &'a [u8],
    source: &'a str,
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    /// expression := term (('+' | '-') term)*
    fn expression(&mut self) -> Result<f64, CalcError> {
        let mut value = self.term()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.at += 1;
            let rhs = self.term()?;
            value = if op == b'+' { value + rhs } else { value - rhs };
        }
        Ok(value)
    }

    /// term := unary (('*' | '/') unary)*
    fn term(&mut self) -> Result<f64, CalcError> {
        let mut value = self.unary()?;
        while let Some(op @ (b'*' | b'/')) = self.peek() {
            let at = self.at;
            self.at += 1;
            let rhs = self.unary()?;
            value = if op == b'*' {
                value * rhs
            } else if rhs == 0.0 {
                return Err(CalcError::DivisionByZero { at });
            } else {
                value / rhs
            };
        }
        Ok(value)
    }

    /// unary := '-' unary | primary
    fn unary(&mut self) -> Result<f64, CalcError> {
        if self.peek() == Some(b'-') {
            self.at += 1;
            return self.nested(|parser| parser.unary().map(|value| -value));
        }
        self.primary()
    }

    /// primary := number | '(' expression ')'
    fn primary(&mut self) -> Result<f64, CalcError> {
        match self.peek() {
            Some(b'(') => {
                let open = self.at;
                self.at += 1;
                let value = self.nested(Self::expression)?;
                if self.peek() != Some(b')') {
                    return Err(if self.at >= self.input.len() {
                        CalcError::Unclosed { at: open }
                    } else {
                        self.unexpected()
                    });
                }
                self.at += 1;
                Ok(value)
            }
            Some(b'0'..=b'9' | b'.') => self.number(),
            _ => Err(self.unexpected()),
        }
    }

    /// number := digits ('.' digits?)? | '.' digits
    fn number(&mut self) -> Result<f64, CalcError> {
        let start = self.at;
        let digits = |parser: &mut Self| {
            let from = parser.at;
            while parser.input.get(parser.at).is_some_and(u8::is_ascii_digit) {
                parser.at += 1;
            }
            parser.at - from
        };
        let whole = digits(self);
        let mut fraction = 0;
        if self.input.get(self.at) == Some(&b'.') {
            self.at += 1;
            fraction = digits(self);
        }
        if whole + fraction == 0 {
            self.at = start;
            return Err(self.unexpected());
        }
        self.source[start..self.at]
            .parse::<f64>()
            .map_err(|_| CalcError::Unexpected {
                found: Found::Char('.'),
                at: start,
            })
    }

    fn nested(
        &mut self,
        inner: impl FnOnce(&mut Self) -> Result<f64, CalcError>,
    ) -> Result<f64, CalcError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(CalcError::TooDeep);
        }
        let value = inner(self);
        self.depth -= 1;
        value
    }

    /// The next non-space byte, without consuming it.
    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.input.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.input.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn unexpected(&self) -> CalcError {
        let found = self.source[self.at..]
            .chars()
            .next()
            .map_or(Found::End, Found::Char);
        CalcError::Unexpected { found, at: self.at }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(evaluate("1 + 2 * 3"), Ok(7.0));
        assert_eq!(evaluate("(1 + 2) * 3"), Ok(9.0));
        assert_eq!(evaluate("10 - 4 - 3"), Ok(3.0));
        assert_eq!(evaluate("64 / 4 / 2"), Ok(8.0));
        assert_eq!(evaluate("-3 * -(2 + 1)"), Ok(9.0));
        assert_eq!(evaluate("--4"), Ok(4.0));
        assert_eq!(evaluate("0.5 + .25 + 2."), Ok(2.75));
        assert_eq!(evaluate("  7  "), Ok(7.0));
    }

    #[test]
    fn rejects_what_is_not_arithmetic() {
        let unexpected = |expr: &str, c: char, at: usize| {
            assert_eq!(
                evaluate(expr),
                Err(CalcError::Unexpected {
                    found: Found::Char(c),
                    at
                }),
                "{expr}"
            );
        };
        unexpected("2 ** 3", '*', 3);
        unexpected("2 % 3", '%', 2);
        unexpected("+2", '+', 0);
        unexpected("abs(2)", 'a', 0);
        unexpected("1e5", 'e', 1);
        unexpected("__import__('os')", '_', 0);
        unexpected("1 2", '2', 2);
        unexpected("(1))", ')', 3);
        assert_eq!(
            evaluate("1 +"),
            Err(CalcError::Unexpected {
                found: Found::End,
                at: 3
            })
        );
        assert_eq!(evaluate("(1 + 2"), Err(CalcError::Unclosed { at: 0 }));
        assert_eq!(evaluate(""), Err(CalcError::Empty));
        assert_eq!(
            evaluate("."),
            Err(CalcError::Unexpected {
                found: Found::Char('.'),
                at: 0
            })
        );
    }

    #[test]
    fn errors_instead_of_panics() {
        assert_eq!(
            evaluate("1 / (2 - 2)"),
            Err(CalcError::DivisionByZero { at: 2 })
        );
        assert_eq!(evaluate(&"(".repeat(500)), Err(CalcError::TooDeep));
        assert_eq!(evaluate(&"-".repeat(500)), Err(CalcError::TooDeep));
        assert_eq!(evaluate(&"1".repeat(1001)), Err(CalcError::TooLong));
        let huge = format!("{0} * {0} * {0}", "9".repeat(300));
        assert_eq!(evaluate(&huge), Err(CalcError::Overflow));
    }

    #[test]
    fn integral_results_are_integers() {
        assert_eq!(to_number(14.0).to_string(), "14");
        assert_eq!(to_number(-2.8).to_string(), "-2.8");
        assert_eq!(to_number(1e300).to_string(), "1e+300");
    }
}
