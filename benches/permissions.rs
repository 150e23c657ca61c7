//! Permission checks with many rules: a path judged against a profile with 100 path
//! rules, and a command line against 100 denied-command rules plus the
//! dangerous-command detector. The group's baseline matches the same path against the
//! same 100 globs compiled into one `globset::GlobSet`, with no normalisation.
//!
//! `cargo bench --bench permissions && scripts/bench-ratios`; figures in BENCHMARKS.md.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use hermes::permissions::{BareValue, Outcome, PermissionEngine, Profile, Restrictions};

fn bench_permissions(c: &mut Criterion) {
    let mut group = c.benchmark_group("permissions");
    let workspace = common::Workspace::with_files(&["project_099/src/main.rs"]);
    let root = workspace.root();
    let globs: Vec<String> = (0..100)
        .map(|i| format!("{root}/project_{i:03}/**"))
        .collect();
    let path = format!("{root}/project_099/src/main.rs");
    let path = path.as_str();
    // A file not written yet: the longest existing prefix is found one component at a
    // time.
    let new_file = format!("{root}/project_099/src/new/lib.rs");
    let new_file = new_file.as_str();

    let mut set = globset::GlobSetBuilder::new();
    for glob in &globs {
        set.add(globset::Glob::new(glob).unwrap());
    }
    let set = set.build().unwrap();
    assert!(set.is_match(path));
    group.bench_function("baseline", |b| b.iter(|| set.is_match(black_box(path))));

    let engine = common::reader_engine(&root, &globs);
    for (name, path) in [
        ("path_100_rules", path),
        ("path_100_rules_new_file", new_file),
    ] {
        assert_eq!(
            engine
                .check("file:read", BareValue::Path(path), "s")
                .decision,
            Outcome::Allow
        );
        group.bench_function(name, |b| {
            b.iter(|| engine.check("file:read", BareValue::Path(black_box(path)), "s"))
        });
    }

    let denied: Vec<String> = (0..100).map(|i| format!("tool_{i:03} --force")).collect();
    let profile = Profile::builder("commands")
        .allow("terminal:execute")
        .restrict(
            "terminal:execute",
            Restrictions::builder()
                .denied_commands(&denied)
                .build()
                .unwrap(),
        )
        .build()
        .unwrap();
    let engine = PermissionEngine::builder(profile)
        .workspace(root.as_str())
        .build();
    let command = "cargo test --workspace --features full -- --nocapture";
    assert_eq!(
        engine
            .check("terminal:execute", BareValue::Command(command), "s")
            .decision,
        Outcome::Allow
    );
    group.bench_function("command_100_rules", |b| {
        b.iter(|| {
            engine.check(
                "terminal:execute",
                BareValue::Command(black_box(command)),
                "s",
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench_permissions);
criterion_main!(benches);
