//! Demo tools for examples, tests and the `hermes` CLI until the built-in families land.

mod calc;

pub use calc::{Calc, CalcArgs, CalcError, CalcResult, Found, evaluate};
