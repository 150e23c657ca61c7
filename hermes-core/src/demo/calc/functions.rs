//! The functions and constants an expression may name.

/// A function the calculator knows.
#[derive(Debug)]
pub struct Function {
    /// Its name, as written.
    pub(super) name: &'static str,
    /// How it is called, for error messages (`round(x[, digits])`).
    pub(super) signature: &'static str,
    /// The fewest arguments it takes.
    pub(super) min_args: usize,
    /// The most arguments it takes; `None` for any number.
    pub(super) max_args: Option<usize>,
    /// Its value, or why the arguments are outside its domain.
    pub(super) apply: fn(&[f64]) -> Result<f64, &'static str>,
}

impl Function {
    /// Whether `count` arguments fit.
    pub(super) fn takes(&self, count: usize) -> bool {
        count >= self.min_args && self.max_args.is_none_or(|max| count <= max)
    }
}

/// Every function, by name.
pub(super) const FUNCTIONS: &[Function] = &[
    Function {
        name: "sqrt",
        signature: "sqrt(x)",
        min_args: 1,
        max_args: Some(1),
        apply: |args| match args {
            [x] if *x < 0.0 => Err("the square root of a negative number is not real"),
            [x] => Ok(x.sqrt()),
            _ => Err("sqrt takes one argument"),
        },
    },
    Function {
        name: "abs",
        signature: "abs(x)",
        min_args: 1,
        max_args: Some(1),
        apply: |args| unary(args, f64::abs),
    },
    Function {
        name: "floor",
        signature: "floor(x)",
        min_args: 1,
        max_args: Some(1),
        apply: |args| unary(args, f64::floor),
    },
    Function {
        name: "ceil",
        signature: "ceil(x)",
        min_args: 1,
        max_args: Some(1),
        apply: |args| unary(args, f64::ceil),
    },
    Function {
        name: "round",
        signature: "round(x[, digits])",
        min_args: 1,
        max_args: Some(2),
        apply: |args| match args {
            [x] => Ok(x.round_ties_even()),
            [x, digits] => round_to(*x, *digits),
            _ => Err("round takes one or two arguments"),
        },
    },
    Function {
        name: "min",
        signature: "min(x, ...)",
        min_args: 1,
        max_args: None,
        apply: |args| Ok(args.iter().copied().fold(f64::INFINITY, f64::min)),
    },
    Function {
        name: "max",
        signature: "max(x, ...)",
        min_args: 1,
        max_args: None,
        apply: |args| Ok(args.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
    },
    Function {
        name: "exp",
        signature: "exp(x)",
        min_args: 1,
        max_args: Some(1),
        apply: |args| unary(args, f64::exp),
    },
    Function {
        name: "ln",
        signature: "ln(x)",
        min_args: 1,
        max_args: Some(1),
        apply: |args| positive(args, f64::ln),
    },
    Function {
        name: "log10",
        signature: "log10(x)",
        min_args: 1,
        max_args: Some(1),
        apply: |args| positive(args, f64::log10),
    },
];

/// The named constants.
pub(super) const CONSTANTS: &[(&str, f64)] =
    &[("pi", std::f64::consts::PI), ("e", std::f64::consts::E)];

/// The function named `name`.
pub(super) fn function(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|function| function.name == name)
}

/// The constant named `name`.
pub(super) fn constant(name: &str) -> Option<f64> {
    CONSTANTS
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, value)| *value)
}

/// Every name, for the message about an unknown one.
pub(super) fn known_names() -> String {
    let functions = FUNCTIONS.iter().map(|function| function.signature);
    let constants = CONSTANTS.iter().map(|(name, _)| *name);
    functions.chain(constants).collect::<Vec<_>>().join(", ")
}

fn unary(args: &[f64], apply: fn(f64) -> f64) -> Result<f64, &'static str> {
    match args {
        [x] => Ok(apply(*x)),
        _ => Err("this function takes one argument"),
    }
}

fn positive(args: &[f64], apply: fn(f64) -> f64) -> Result<f64, &'static str> {
    match args {
        [x] if *x <= 0.0 => Err("the logarithm is defined for positive numbers only"),
        [x] => Ok(apply(*x)),
        _ => Err("this function takes one argument"),
    }
}

/// `x` rounded to `digits` decimal places (negative: to tens, hundreds...), half to
/// even as in Python.
fn round_to(x: f64, digits: f64) -> Result<f64, &'static str> {
    if digits.fract() != 0.0 {
        return Err("the number of digits must be a whole number");
    }
    if digits >= 16.0 {
        // Finer than an f64 holds: nothing to round.
        return Ok(x);
    }
    if digits <= -309.0 {
        return Ok(0.0);
    }
    #[expect(
        clippy::cast_possible_truncation,
        reason = "whole and within -308..=15, checked above"
    )]
    let digits = digits as i32;
    let scale = 10f64.powi(digits.abs());
    Ok(if digits >= 0 {
        (x * scale).round_ties_even() / scale
    } else {
        (x / scale).round_ties_even() * scale
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_follows_python() {
        assert_eq!(round_to(2.5, 0.0), Ok(2.0));
        assert_eq!(round_to(1.23456, 2.0), Ok(1.23));
        assert_eq!(round_to(1234.0, -2.0), Ok(1200.0));
        assert_eq!(round_to(1.5, 20.0), Ok(1.5));
        assert!(round_to(1.5, 0.5).is_err());
    }

    #[test]
    fn names_are_found() {
        assert!(function("sqrt").is_some_and(|f| f.takes(1) && !f.takes(2)));
        assert!(function("max").is_some_and(|f| f.takes(7) && !f.takes(0)));
        assert_eq!(constant("pi"), Some(std::f64::consts::PI));
        assert!(function("eval").is_none());
        assert!(known_names().contains("round(x[, digits])"));
    }
}
