//! The calculator's recursive-descent parser, which evaluates as it parses. It reads
//! bytes, so every position in an error is a 0-based byte offset into the expression.
//!
//! ```text
//! expression := term (('+' | '-') term)*
//! term       := unary (('*' | '/' | '%') unary)*
//! unary      := ('+' | '-') unary | power
//! power      := primary ('**' unary)?          right-associative; -2**2 is -(2**2)
//! primary    := number | name '(' expression (',' expression)* ')' | name
//!             | '(' expression ')'
//! number     := digits ('.' digits?)? exponent? | '.' digits exponent?
//! exponent   := ('e' | 'E') ('+' | '-')? digits
//! ```

use std::fmt;

use super::functions::{self, Function};

/// Longest expression accepted, in bytes.
pub(crate) const MAX_LEN: usize = 1000;
/// Deepest nesting (parentheses, signs, powers, calls) accepted.
pub(crate) const MAX_DEPTH: usize = 64;

/// Why an expression could not be evaluated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CalcError {
    /// Nothing to evaluate.
    #[error("the expression is empty")]
    Empty,
    /// Longer than 1000 bytes.
    #[error("the expression is {len} bytes long, more than {MAX_LEN}; split the computation")]
    TooLong {
        /// Its length.
        len: usize,
    },
    /// Something that does not belong where it is.
    #[error("unexpected {found} at position {at}; expected {expected}")]
    Unexpected {
        /// What was found.
        found: Found,
        /// Where.
        at: usize,
        /// What would have fit.
        expected: &'static str,
    },
    /// A `(` without its `)`.
    #[error("the parenthesis opened at position {at} is never closed; add a `)`")]
    Unclosed {
        /// Where the `(` is.
        at: usize,
    },
    /// Nested deeper than 64 levels.
    #[error("the expression nests deeper than {MAX_DEPTH} levels; simplify it")]
    TooDeep,
    /// A division or modulo by zero, or zero to a negative power.
    #[error("division by zero at position {at}")]
    DivisionByZero {
        /// Where the operator is.
        at: usize,
    },
    /// A value too large for a 64-bit float.
    #[error("the value overflows at position {at} (larger than about 1.8e308)")]
    Overflow {
        /// Where the operator, function or number is.
        at: usize,
    },
    /// A name that is neither a function nor a constant.
    #[error(
        "unknown name `{name}` at position {at}; known names: {}",
        functions::known_names()
    )]
    UnknownName {
        /// The name.
        name: String,
        /// Where it starts.
        at: usize,
    },
    /// A function called with the wrong number of arguments.
    #[error("`{}` called with {given} argument(s) at position {at}; call it as {}", function.name, function.signature)]
    Arity {
        /// The function.
        function: &'static Function,
        /// How many arguments it was given.
        given: usize,
        /// Where its name starts.
        at: usize,
    },
    /// Arguments outside a function's or an operator's domain.
    #[error("{reason} (at position {at})")]
    Domain {
        /// Why.
        reason: &'static str,
        /// Where the function or operator is.
        at: usize,
    },
}

impl PartialEq for Function {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
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
/// assert_eq!(evaluate("-2**2 + max(1, 2.5)"), Ok(-1.5));
/// assert!(evaluate("1 / 0").is_err());
/// ```
///
/// # Errors
///
/// A [`CalcError`] saying what is wrong and where.
pub fn evaluate(expression: &str) -> Result<f64, CalcError> {
    if expression.len() > MAX_LEN {
        return Err(CalcError::TooLong {
            len: expression.len(),
        });
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
    if parser.peek().is_some() {
        return Err(parser.unexpected("an operator or the end of the expression"));
    }
    Ok(value)
}

/// The parser's state: the input and how far it has read.
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
            let at = self.at;
            self.at += 1;
            let rhs = self.term()?;
            value = finite(if op == b'+' { value + rhs } else { value - rhs }, at)?;
        }
        Ok(value)
    }

    /// term := unary (('*' | '/' | '%') unary)*
    fn term(&mut self) -> Result<f64, CalcError> {
        let mut value = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(b'*') if self.input.get(self.at + 1) != Some(&b'*') => b'*',
                Some(op @ (b'/' | b'%')) => op,
                _ => return Ok(value),
            };
            let at = self.at;
            self.at += 1;
            let rhs = self.unary()?;
            value = match op {
                b'*' => finite(value * rhs, at)?,
                _ if rhs == 0.0 => return Err(CalcError::DivisionByZero { at }),
                b'/' => finite(value / rhs, at)?,
                _ => finite(floored_modulo(value, rhs), at)?,
            };
        }
    }

    /// unary := ('+' | '-') unary | power
    fn unary(&mut self) -> Result<f64, CalcError> {
        match self.peek() {
            Some(sign @ (b'+' | b'-')) => {
                self.at += 1;
                let value = self.nested(Self::unary)?;
                Ok(if sign == b'-' { -value } else { value })
            }
            _ => self.power(),
        }
    }

    /// power := primary ('**' unary)?
    fn power(&mut self) -> Result<f64, CalcError> {
        let base = self.primary()?;
        if self.peek() != Some(b'*') || self.input.get(self.at + 1) != Some(&b'*') {
            return Ok(base);
        }
        let at = self.at;
        self.at += 2;
        let exponent = self.nested(Self::unary)?;
        if base == 0.0 && exponent < 0.0 {
            return Err(CalcError::DivisionByZero { at });
        }
        let value = base.powf(exponent);
        if value.is_nan() {
            return Err(CalcError::Domain {
                reason: "a negative number to a fractional power is not real",
                at,
            });
        }
        finite(value, at)
    }

    /// primary := number | name '(' arguments ')' | name | '(' expression ')'
    fn primary(&mut self) -> Result<f64, CalcError> {
        match self.peek() {
            Some(b'(') => {
                let open = self.at;
                self.at += 1;
                let value = self.nested(Self::expression)?;
                self.close(open)?;
                Ok(value)
            }
            Some(b'0'..=b'9' | b'.') => self.number(),
            Some(byte) if byte.is_ascii_alphabetic() || byte == b'_' => self.name(),
            _ => Err(self.unexpected("a number, a name or `(`")),
        }
    }

    /// A function call or a constant.
    fn name(&mut self) -> Result<f64, CalcError> {
        let start = self.at;
        while self
            .input
            .get(self.at)
            .is_some_and(|byte| byte.is_ascii_alphanumeric() || *byte == b'_')
        {
            self.at += 1;
        }
        let name = &self.source[start..self.at];
        if self.peek() != Some(b'(') {
            return functions::constant(name).ok_or_else(|| CalcError::UnknownName {
                name: name.to_owned(),
                at: start,
            });
        }
        let Some(function) = functions::function(name) else {
            return Err(CalcError::UnknownName {
                name: name.to_owned(),
                at: start,
            });
        };
        let open = self.at;
        self.at += 1;
        let args = self.nested(|parser| parser.arguments(open))?;
        if !function.takes(args.len()) {
            return Err(CalcError::Arity {
                function,
                given: args.len(),
                at: start,
            });
        }
        let value =
            (function.apply)(&args).map_err(|reason| CalcError::Domain { reason, at: start })?;
        finite(value, start)
    }

    /// arguments := (expression (',' expression)*)? ')'
    fn arguments(&mut self, open: usize) -> Result<Vec<f64>, CalcError> {
        let mut args = Vec::new();
        if self.peek() == Some(b')') {
            self.at += 1;
            return Ok(args);
        }
        loop {
            args.push(self.expression()?);
            if self.peek() == Some(b',') {
                self.at += 1;
                continue;
            }
            self.close(open)?;
            return Ok(args);
        }
    }

    /// The `)` of the `(` at `open`.
    fn close(&mut self, open: usize) -> Result<(), CalcError> {
        match self.peek() {
            Some(b')') => {
                self.at += 1;
                Ok(())
            }
            None => Err(CalcError::Unclosed { at: open }),
            Some(_) => Err(self.unexpected("an operator, `,` or `)`")),
        }
    }

    /// number := digits ('.' digits?)? exponent? | '.' digits exponent?
    fn number(&mut self) -> Result<f64, CalcError> {
        let start = self.at;
        let whole = self.digits();
        let mut fraction = 0;
        if self.input.get(self.at) == Some(&b'.') {
            self.at += 1;
            fraction = self.digits();
        }
        if whole + fraction == 0 {
            self.at = start;
            return Err(self.unexpected("a number"));
        }
        if matches!(self.input.get(self.at), Some(b'e' | b'E')) {
            let mark = self.at;
            self.at += 1;
            if matches!(self.input.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                // Not an exponent after all: `2e` reads as `2` then the name `e`.
                self.at = mark;
            }
        }
        let value =
            self.source[start..self.at]
                .parse::<f64>()
                .map_err(|_| CalcError::Unexpected {
                    found: Found::Char('.'),
                    at: start,
                    expected: "a number",
                })?;
        finite(value, start)
    }

    /// Skip ASCII digits; how many.
    fn digits(&mut self) -> usize {
        let from = self.at;
        while self.input.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        self.at - from
    }

    /// Run `inner` one level deeper, refusing to go past [`MAX_DEPTH`].
    fn nested<T>(
        &mut self,
        inner: impl FnOnce(&mut Self) -> Result<T, CalcError>,
    ) -> Result<T, CalcError> {
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
        while self.input.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
        self.input.get(self.at).copied()
    }

    fn unexpected(&self, expected: &'static str) -> CalcError {
        let found = self
            .source
            .get(self.at..)
            .and_then(|rest| rest.chars().next())
            .map_or(Found::End, Found::Char);
        CalcError::Unexpected {
            found,
            at: self.at,
            expected,
        }
    }
}

/// `value`, unless an operation at `at` made it infinite.
fn finite(value: f64, at: usize) -> Result<f64, CalcError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(CalcError::Overflow { at })
    }
}

/// Python's `%`: the result has the sign of the divisor.
fn floored_modulo(value: f64, divisor: f64) -> f64 {
    let remainder = value % divisor;
    if remainder != 0.0 && (remainder < 0.0) != (divisor < 0.0) {
        remainder + divisor
    } else {
        remainder
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_follows_python() {
        for (expression, expected) in [
            ("1 + 2 * 3", 7.0),
            ("-2**2", -4.0),
            ("2**-1", 0.5),
            ("2**3**2", 512.0),
            ("(-2)**2", 4.0),
            ("-7 % 3", 2.0),
            ("7 % -3", -2.0),
            ("2 * 3 % 4", 2.0),
            ("+-+3", -3.0),
            ("1e3 + .5e1", 1005.0),
            ("2 * pi / pi + e - e", 2.0),
            ("max(1, min(4, 3), -2)", 3.0),
            ("round(2.675, 1) + round(0.5)", 2.7),
        ] {
            let value = evaluate(expression).unwrap();
            assert!((value - expected).abs() < 1e-12, "{expression} = {value}");
        }
    }

    #[test]
    fn errors_say_where() {
        assert_eq!(evaluate("1 % 0"), Err(CalcError::DivisionByZero { at: 2 }));
        assert_eq!(
            evaluate("0 ** -1"),
            Err(CalcError::DivisionByZero { at: 2 })
        );
        assert_eq!(evaluate("10**400"), Err(CalcError::Overflow { at: 2 }));
        assert_eq!(evaluate("1e999"), Err(CalcError::Overflow { at: 0 }));
        assert_eq!(evaluate("max(1, 2"), Err(CalcError::Unclosed { at: 3 }));
        assert!(matches!(
            evaluate("(-8) ** 0.5"),
            Err(CalcError::Domain { at: 5, .. })
        ));
        assert!(matches!(
            evaluate("sqrt(-1)"),
            Err(CalcError::Domain { at: 0, .. })
        ));
        assert!(matches!(
            evaluate("sqrt(1, 2)"),
            Err(CalcError::Arity { given: 2, .. })
        ));
        assert!(matches!(
            evaluate("min()"),
            Err(CalcError::Arity { given: 0, .. })
        ));
        assert!(matches!(
            evaluate("2 * foo(1)"),
            Err(CalcError::UnknownName { at: 4, .. })
        ));
        assert!(matches!(
            evaluate("1 2"),
            Err(CalcError::Unexpected { at: 2, .. })
        ));
        assert!(matches!(
            evaluate("2e"),
            Err(CalcError::Unexpected { at: 1, .. })
        ));
        assert!(matches!(
            evaluate("2 *** 3"),
            Err(CalcError::Unexpected { at: 4, .. })
        ));
        assert_eq!(evaluate(&"(".repeat(100)), Err(CalcError::TooDeep));
        assert_eq!(evaluate(&"-".repeat(100)), Err(CalcError::TooDeep));
        assert_eq!(evaluate(&"2**".repeat(100)), Err(CalcError::TooDeep));
        assert_eq!(evaluate(" "), Err(CalcError::Empty));
    }
}
