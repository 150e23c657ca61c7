//! A demo tool for examples and tests that need one tool and nothing else, and the
//! arithmetic evaluator behind it (which hermes-tools' `calculator` uses too).

mod calc;

pub use calc::{Calc, CalcArgs, CalcError, CalcResult, Found, Function, calculate, evaluate};
