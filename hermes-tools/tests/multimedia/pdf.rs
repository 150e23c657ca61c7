//! `pdf_read`: text per page, page ranges, metadata, the size cap, and PDFs it cannot
//! read (encrypted, broken, not a PDF).

use serde_json::{Value, json};

use crate::common::Bench;
use crate::fixtures;

/// The page numbers in a result.
fn numbers(out: &Value) -> Vec<u64> {
    out["pages"]
        .as_array()
        .map(|pages| {
            pages
                .iter()
                .filter_map(|page| page["page"].as_u64())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn reads_the_text_of_every_page_and_the_metadata() {
    let bench = Bench::new();
    fixtures::save_pdf(
        &bench.path("report.pdf"),
        &[
            &["Introduction", "Revenue grew."],
            &["Second page here"],
            &["Conclusion"],
        ],
    );
    let out = bench.ok("pdf_read", json!({"path": "report.pdf"})).await;
    assert_eq!(out["path"], "report.pdf");
    assert_eq!(out["page_count"], 3);
    assert_eq!(out["pdf_version"], "1.5");
    assert_eq!(numbers(&out), [1, 2, 3]);
    let first = out["pages"][0]["text"].as_str().unwrap();
    assert!(
        first.contains("Introduction") && first.contains("Revenue grew."),
        "{first}"
    );
    // Page 2's content stream is compressed.
    assert!(
        out["pages"][1]["text"]
            .as_str()
            .unwrap()
            .contains("Second page here")
    );
    assert!(
        out["pages"][2]["text"]
            .as_str()
            .unwrap()
            .contains("Conclusion")
    );
    assert_eq!(out["truncated"], false);
    let metadata = &out["metadata"];
    assert_eq!(metadata["Title"], "Quarterly Report");
    assert_eq!(metadata["Author"], "Zoë Hermès");
    assert_eq!(metadata["Producer"], "hermes tests");
    assert_eq!(metadata["CreationDate"], "2024-01-31T12:00:00+02:00");
}

#[tokio::test]
async fn returns_the_pages_asked_for() {
    let bench = Bench::new();
    fixtures::save_pdf(
        &bench.path("five.pdf"),
        &[&["one"], &["two"], &["three"], &["four"], &["five"]],
    );
    let out = bench
        .ok(
            "pdf_read",
            json!({"path": "five.pdf", "first_page": 2, "last_page": 3}),
        )
        .await;
    assert_eq!(numbers(&out), [2, 3]);
    assert!(out["pages"][0]["text"].as_str().unwrap().contains("two"));
    assert!(out["pages"][1]["text"].as_str().unwrap().contains("three"));
    let tail = bench
        .ok(
            "pdf_read",
            json!({"path": "five.pdf", "first_page": 4, "last_page": 99}),
        )
        .await;
    assert_eq!(numbers(&tail), [4, 5]);
    let meta = bench
        .ok(
            "pdf_read",
            json!({"path": "five.pdf", "include_text": false}),
        )
        .await;
    assert_eq!(meta["page_count"], 5);
    assert!(meta.get("pages").is_none(), "{meta}");
    assert_eq!(meta["metadata"]["Title"], "Quarterly Report");
}

#[tokio::test]
async fn ranges_outside_the_document_are_refused() {
    let bench = Bench::new();
    fixtures::save_pdf(&bench.path("two.pdf"), &[&["a"], &["b"]]);
    bench
        .fails(
            "pdf_read",
            json!({"path": "two.pdf", "first_page": 3}),
            "failed",
            "has 2 page(s)",
        )
        .await;
    bench
        .fails(
            "pdf_read",
            json!({"path": "two.pdf", "first_page": 2, "last_page": 1}),
            "invalid_arguments",
            "before first_page",
        )
        .await;
    bench
        .fails(
            "pdf_read",
            json!({"path": "two.pdf", "first_page": 0}),
            "invalid_arguments",
            "",
        )
        .await;
    bench
        .fails(
            "pdf_read",
            json!({"path": "two.pdf", "first_page": "one"}),
            "invalid_arguments",
            "",
        )
        .await;
}

#[tokio::test]
async fn text_past_the_cap_is_cut_at_a_page_and_continues() {
    let bench = Bench::with_config(|config| config.max_output_bytes(1024));
    let line = "All work and no play makes Jack a dull boy. ".repeat(8);
    let lines: Vec<&str> = vec![line.as_str(); 1];
    let pages: Vec<&[&str]> = vec![&lines[..]; 6];
    fixtures::save_pdf(&bench.path("long.pdf"), &pages);
    let out = bench.ok("pdf_read", json!({"path": "long.pdf"})).await;
    assert_eq!(out["truncated"], true);
    let next = out["next_page"].as_u64().unwrap();
    let got = numbers(&out);
    assert!(!got.is_empty() && got.len() < 6, "{got:?}");
    assert_eq!(next, got.last().unwrap() + 1);
    assert!(out["note"].as_str().unwrap().contains("first_page"));
    let rest = bench
        .ok("pdf_read", json!({"path": "long.pdf", "first_page": next}))
        .await;
    assert_eq!(numbers(&rest).first(), Some(&next));
}

#[tokio::test]
async fn an_encrypted_pdf_is_refused_with_a_reason() {
    let bench = Bench::new();
    fixtures::encrypted_pdf(&bench.path("locked.pdf"));
    bench
        .fails(
            "pdf_read",
            json!({"path": "locked.pdf"}),
            "failed",
            "encrypted with a password",
        )
        .await;
}

#[tokio::test]
async fn broken_and_fake_pdfs_are_refused() {
    let bench = Bench::new();
    fixtures::noise(&bench.path("noise.pdf"));
    bench
        .fails(
            "pdf_read",
            json!({"path": "noise.pdf"}),
            "failed",
            "cannot be read as a PDF",
        )
        .await;
    fixtures::save_pdf(&bench.path("whole.pdf"), &[&["some text"]]);
    let bytes = std::fs::read(bench.path("whole.pdf")).unwrap();
    std::fs::write(bench.path("cut.pdf"), &bytes[..bytes.len() / 3]).unwrap();
    let report = bench.report("pdf_read", json!({"path": "cut.pdf"})).await;
    // Either refused, or read as far as it goes; never a crash.
    let content: Value = serde_json::from_str(&report.message.content).unwrap();
    if !report.is_success() {
        assert_eq!(content["error"]["kind"], "failed", "{content}");
    }
    std::fs::write(bench.path("empty.pdf"), b"").unwrap();
    bench
        .fails(
            "pdf_read",
            json!({"path": "empty.pdf"}),
            "failed",
            "empty.pdf",
        )
        .await;
}

#[tokio::test]
async fn reads_a_pdf_made_by_groff() {
    let bench = Bench::new();
    let source = bench.path("review.ms");
    std::fs::write(
        &source,
        ".TL\nAnnual Hermes Review\n.AU\nAda Lovelace\n.PP\nThe engine computes Bernoulli \
         numbers.\n.bp\n.PP\nSecond page of the review.\n",
    )
    .unwrap();
    let output = std::process::Command::new("groff")
        .args(["-ms", "-Tpdf", source.to_str().unwrap()])
        .output()
        .expect("groff (scripts/system-deps installs it)");
    assert!(
        output.status.success(),
        "groff -Tpdf failed (the groff package brings gropdf): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::write(bench.path("review.pdf"), output.stdout).unwrap();
    let out = bench.ok("pdf_read", json!({"path": "review.pdf"})).await;
    assert_eq!(out["page_count"], 2);
    assert!(
        out["metadata"]["Producer"]
            .as_str()
            .unwrap()
            .contains("gropdf"),
        "{out}"
    );
    // groff's fonts use an encoding with Differences and a partial ToUnicode map.
    let first = out["pages"][0]["text"].as_str().unwrap();
    assert_eq!(
        first,
        "Annual Hermes Review\nAda Lovelace\nThe engine computes Bernoulli numbers."
    );
    let second = out["pages"][1]["text"].as_str().unwrap();
    assert!(second.ends_with("Second page of the review."), "{second}");
}

#[tokio::test]
async fn reads_text_set_in_a_composite_font_through_its_unicode_map() {
    let bench = Bench::new();
    fixtures::cid_pdf(&bench.path("cid.pdf"), "hello composite fonts");
    let out = bench.ok("pdf_read", json!({"path": "cid.pdf"})).await;
    assert_eq!(out["page_count"], 1);
    assert_eq!(out["pages"][0]["text"], "hello composite fonts");
    assert!(out["metadata"].as_object().unwrap().is_empty(), "{out}");
}
