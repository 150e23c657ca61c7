//! `calculator`: Python's precedence, functions, and errors that say where.

use serde_json::json;

use crate::common::Bench;

#[tokio::test]
async fn evaluates_a_table_of_expressions() {
    let bench = Bench::new();
    for (expression, result) in [
        ("2 * (3 + 4) / -5", json!(-2.8)),
        ("1 + 2 * 3", json!(7)),
        ("-2**2", json!(-4)),
        ("(-2)**2", json!(4)),
        ("2**3**2", json!(512)),
        ("2**-2", json!(0.25)),
        ("-7 % 3", json!(2)),
        ("7.5 % 2", json!(1.5)),
        ("10 / 4", json!(2.5)),
        ("+5 - -5", json!(10)),
        ("sqrt(16) + abs(-3)", json!(7)),
        ("round(2.5)", json!(2)),
        ("round(1.23456, 2)", json!(1.23)),
        ("round(1234, -2)", json!(1200)),
        ("min(3, 1, 2) * max(4, 9, -1)", json!(9)),
        ("floor(-2.5) + ceil(2.1)", json!(0)),
        ("1e3 / 8", json!(125)),
        ("2**53 + 1", json!(9_007_199_254_740_992.0)),
    ] {
        let value = bench
            .ok("calculator", json!({"expression": expression}))
            .await;
        assert_eq!(
            value,
            json!({"expression": expression, "result": result}),
            "{expression}"
        );
    }
}

#[tokio::test]
async fn errors_say_what_and_where() {
    let bench = Bench::new();
    for (expression, needle) in [
        ("1 / 0", "division by zero at position 2"),
        ("5 % (2 - 2)", "division by zero at position 2"),
        ("10**400", "overflows at position 2"),
        ("(1 + 2", "parenthesis opened at position 0 is never closed"),
        ("(1 + 2))", "unexpected `)` at position 7"),
        ("foo(2)", "unknown name `foo` at position 0"),
        ("sqrt(-4)", "not real"),
        ("round(1, 2, 3)", "call it as round(x[, digits])"),
        ("2 +", "unexpected end of expression at position 3"),
        ("__import__('os')", "unknown name `__import__`"),
        ("   ", "the expression is empty"),
    ] {
        bench
            .fails(
                "calculator",
                json!({"expression": expression}),
                "failed",
                needle,
            )
            .await;
    }
    let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
    bench
        .fails(
            "calculator",
            json!({"expression": deep}),
            "failed",
            "deeper than 64",
        )
        .await;
    bench
        .fails(
            "calculator",
            json!({"expression": ""}),
            "invalid_arguments",
            "expression",
        )
        .await;
    let long = "1+".repeat(600);
    bench
        .fails(
            "calculator",
            json!({"expression": long}),
            "invalid_arguments",
            "expression",
        )
        .await;
}
