//! `code_analyze`: outlines of real files in each language.

use serde_json::{Value, json};

use crate::common::Bench;

/// `kind parent.name@line` for each definition.
fn outline(value: &Value) -> Vec<String> {
    value["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|definition| {
            let name = match definition["parent"].as_str() {
                Some(parent) => format!("{parent}.{}", definition["name"].as_str().unwrap()),
                None => definition["name"].as_str().unwrap().to_owned(),
            };
            format!(
                "{} {name}@{}",
                definition["kind"].as_str().unwrap(),
                definition["line"]
            )
        })
        .collect()
}

async fn analyze(bench: &Bench, name: &str, text: &str) -> Value {
    std::fs::write(bench.path(name), text).unwrap();
    bench.ok("code_analyze", json!({"path": name})).await
}

#[tokio::test]
async fn outlines_rust_with_line_counts() {
    let bench = Bench::new();
    let text = "//! A crate.\n\n/// A point.\npub struct Point { x: i32 }\n\nimpl Point {\n    pub fn new() -> Self {\n        Point { x: 0 }\n    }\n}\n\ntrait Shape {\n    fn area(&self) -> f64;\n}\n\nimpl Shape for Point {\n    fn area(&self) -> f64 { 0.0 }\n}\n\nenum Color { Red }\n\nfn main() {}\n";
    let value = analyze(&bench, "lib.rs", text).await;
    assert_eq!(value["language"], "rust");
    assert_eq!(
        value["lines"],
        json!({"total": 22, "blank": 6, "comment": 2, "code": 14})
    );
    assert_eq!(
        outline(&value),
        [
            "struct Point@4",
            "impl Point@6",
            "method Point.new@7",
            "trait Shape@12",
            "method Shape.area@13",
            "impl Shape for Point@16",
            "method Shape for Point.area@17",
            "enum Color@20",
            "function main@22",
        ]
    );
    assert_eq!(value["definitions"][1]["end_line"], 10);
    assert_eq!(value["syntax_errors"], false);
    assert_eq!(value["truncated"], false);
}

#[tokio::test]
async fn outlines_python_javascript_typescript_and_go() {
    let bench = Bench::new();
    let python = analyze(
        &bench,
        "shop.py",
        "# Shop.\nimport os\n\nclass Cart:\n    def add(self, item):\n        pass\n\n    async def pay(self):\n        pass\n\ndef main():\n    pass\n",
    )
    .await;
    assert_eq!(
        outline(&python),
        [
            "class Cart@4",
            "method Cart.add@5",
            "method Cart.pay@8",
            "function main@11"
        ]
    );
    assert_eq!(python["lines"]["comment"], 1);

    let javascript = analyze(
        &bench,
        "app.js",
        "// app\nclass App {\n  start() {}\n}\nfunction boot() {}\nconst stop = () => {};\n",
    )
    .await;
    assert_eq!(javascript["language"], "javascript");
    assert_eq!(
        outline(&javascript),
        [
            "class App@2",
            "method App.start@3",
            "function boot@5",
            "function stop@6"
        ]
    );

    let typescript = analyze(
        &bench,
        "model.ts",
        "export interface User {\n  name: string;\n  greet(): string;\n}\nexport type Id = number;\nexport enum Role { Admin }\nexport class Repo {\n  find(id: Id): User | undefined { return undefined; }\n}\n",
    )
    .await;
    assert_eq!(
        outline(&typescript),
        [
            "interface User@1",
            "method User.greet@3",
            "type Id@5",
            "enum Role@6",
            "class Repo@7",
            "method Repo.find@8"
        ]
    );

    let tsx = analyze(
        &bench,
        "View.tsx",
        "export function View(props: { n: number }) {\n  return <div>{props.n}</div>;\n}\n",
    )
    .await;
    assert_eq!(tsx["language"], "tsx");
    assert_eq!(outline(&tsx), ["function View@1"]);
    assert_eq!(tsx["syntax_errors"], false);

    let go = analyze(
        &bench,
        "main.go",
        "package main\n\n// Stack holds ints.\ntype Stack struct {\n\titems []int\n}\n\nfunc (s *Stack) Push(v int) {\n\ts.items = append(s.items, v)\n}\n\ntype Sizer interface {\n\tSize() int\n}\n\nfunc main() {}\n",
    )
    .await;
    assert_eq!(
        outline(&go),
        [
            "struct Stack@4",
            "method Stack.Push@8",
            "interface Sizer@12",
            "method Sizer.Size@13",
            "function main@16"
        ]
    );
}

#[tokio::test]
async fn caps_definitions_and_needs_a_language() {
    let bench = Bench::new();
    let text: String = (0..30)
        .map(|i| format!("def f{i}():\n    pass\n"))
        .collect();
    std::fs::write(bench.path("many.py"), &text).unwrap();
    let value = bench
        .ok(
            "code_analyze",
            json!({"path": "many.py", "max_definitions": 5}),
        )
        .await;
    assert_eq!(value["definitions"].as_array().unwrap().len(), 5);
    assert_eq!(value["definitions_total"], 30);
    assert_eq!(value["truncated"], true);

    std::fs::write(bench.path("script"), "def main():\n    pass\n").unwrap();
    bench
        .fails(
            "code_analyze",
            json!({"path": "script"}),
            "failed",
            "give `language`",
        )
        .await;
    let value = bench
        .ok(
            "code_analyze",
            json!({"path": "script", "language": "python"}),
        )
        .await;
    assert_eq!(outline(&value), ["function main@1"]);

    std::fs::write(bench.path("broken.py"), "def f(:\n").unwrap();
    let value = bench.ok("code_analyze", json!({"path": "broken.py"})).await;
    assert_eq!(value["syntax_errors"], true);

    bench
        .fails(
            "code_analyze",
            json!({"path": "../outside.rs"}),
            "failed",
            "outside the workspace",
        )
        .await;
    bench
        .fails(
            "code_analyze",
            json!({"path": "script", "language": "cobol"}),
            "invalid_arguments",
            "language",
        )
        .await;
}
