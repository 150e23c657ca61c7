//! `archive`: round trips, and every way a hostile archive is refused with nothing left
//! behind: zip-slip, absolute paths, links out, bombs.

use std::io::{Cursor, Write};
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;
use serde_json::json;
use tar::EntryType;
use zip::write::SimpleFileOptions;

use crate::common::Bench;

/// A zip archive of `(name, content)` entries, names as given.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, content) in entries {
        zip.start_file(*name, SimpleFileOptions::default()).unwrap();
        zip.write_all(content).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A raw tar entry: name and link target written byte for byte, unchecked.
struct Raw<'a> {
    name: &'a str,
    kind: EntryType,
    link: &'a str,
    content: &'a [u8],
}

impl<'a> Raw<'a> {
    fn file(name: &'a str, content: &'a [u8]) -> Self {
        Self {
            name,
            kind: EntryType::Regular,
            link: "",
            content,
        }
    }

    fn link(name: &'a str, kind: EntryType, link: &'a str) -> Self {
        Self {
            name,
            kind,
            link,
            content: b"",
        }
    }
}

/// A tar.gz archive of raw entries.
fn tar_gz_of(entries: &[Raw<'_>]) -> Vec<u8> {
    let mut tar = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::default()));
    for entry in entries {
        let mut header = tar::Header::new_gnu();
        let gnu = header.as_gnu_mut().unwrap();
        gnu.name[..entry.name.len()].copy_from_slice(entry.name.as_bytes());
        gnu.linkname[..entry.link.len()].copy_from_slice(entry.link.as_bytes());
        header.set_entry_type(entry.kind);
        header.set_size(entry.content.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append(&header, entry.content).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

/// Names directly in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn sample(bench: &Bench) {
    std::fs::create_dir_all(bench.path("docs/sub")).unwrap();
    std::fs::write(bench.path("docs/a.md"), "# A\n").unwrap();
    std::fs::write(bench.path("docs/sub/b.txt"), "b".repeat(10_000)).unwrap();
    std::fs::write(bench.path("top.txt"), "top").unwrap();
}

async fn round_trip(archive: &str, format: &str) {
    let bench = Bench::new();
    sample(&bench);
    let created = bench
        .ok(
            "archive",
            json!({"action": "create", "archive": archive, "sources": ["docs", "top.txt"]}),
        )
        .await;
    assert_eq!(created["action"], "create");
    assert_eq!(created["format"], format);
    assert_eq!(
        (created["files"].as_u64(), created["directories"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(created["bytes"], 4 + 10_000 + 3);
    assert!(created["archive_bytes"].as_u64().unwrap() < 10_000);
    let extracted = bench
        .ok(
            "archive",
            json!({"action": "extract", "archive": archive, "destination": "out/here"}),
        )
        .await;
    assert_eq!(extracted["action"], "extract");
    assert_eq!(extracted["destination"], "out/here");
    assert_eq!(extracted["files"], 3);
    assert_eq!(extracted["bytes"], 4 + 10_000 + 3);
    for file in ["docs/a.md", "docs/sub/b.txt", "top.txt"] {
        assert_eq!(
            std::fs::read(bench.path(&format!("out/here/{file}"))).unwrap(),
            std::fs::read(bench.path(file)).unwrap(),
            "{file}"
        );
    }
    assert_eq!(names(&bench.path("out/here")), ["docs", "top.txt"]);
}

#[tokio::test]
async fn zip_round_trip() {
    round_trip("backup.zip", "zip").await;
}

#[tokio::test]
async fn tar_gz_round_trip() {
    round_trip("backup.tgz", "tar.gz").await;
}

#[cfg(unix)]
#[tokio::test]
async fn modes_survive_and_links_are_skipped_both_ways() {
    use std::os::unix::fs::PermissionsExt;

    for archive in ["tools.zip", "tools.tar.gz"] {
        let bench = Bench::new();
        std::fs::create_dir(bench.path("bin")).unwrap();
        std::fs::write(bench.path("bin/run"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(
            bench.path("bin/run"),
            std::fs::Permissions::from_mode(0o750),
        )
        .unwrap();
        std::os::unix::fs::symlink("run", bench.path("bin/alias")).unwrap();
        let created = bench
            .ok(
                "archive",
                json!({"action": "create", "archive": archive, "sources": ["bin"]}),
            )
            .await;
        assert_eq!(created["skipped"][0]["entry"], "bin/alias", "{created}");
        bench
            .ok(
                "archive",
                json!({"action": "extract", "archive": archive, "destination": "x"}),
            )
            .await;
        let mode = std::fs::metadata(bench.path("x/bin/run"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o750, "{archive}");
        assert!(bench.path("x/bin/alias").symlink_metadata().is_err());
    }
}

#[tokio::test]
async fn format_comes_from_the_name_or_the_content() {
    let bench = Bench::new();
    std::fs::write(bench.path("a.txt"), "a").unwrap();
    bench
        .fails(
            "archive",
            json!({"action": "create", "archive": "a.rar", "sources": ["a.txt"]}),
            "invalid_arguments",
            "pass format",
        )
        .await;
    bench
        .ok(
            "archive",
            json!({"action": "create", "archive": "blob", "format": "tar.gz", "sources": ["a.txt"]}),
        )
        .await;
    let out = bench
        .ok(
            "archive",
            json!({"action": "extract", "archive": "blob", "destination": "x"}),
        )
        .await;
    assert_eq!(out["format"], "tar.gz");
    assert_eq!(std::fs::read_to_string(bench.path("x/a.txt")).unwrap(), "a");
}

#[tokio::test]
async fn existing_archives_and_files_need_overwrite() {
    let bench = Bench::new();
    sample(&bench);
    let create = json!({"action": "create", "archive": "a.zip", "sources": ["top.txt"]});
    bench.ok("archive", create.clone()).await;
    bench
        .fails(
            "archive",
            json!({"action": "create", "archive": "a.zip", "sources": ["docs"]}),
            "failed",
            "overwrite: true",
        )
        .await;
    let extract = json!({"action": "extract", "archive": "a.zip", "destination": "."});
    bench
        .fails("archive", extract.clone(), "failed", "top.txt")
        .await;
    std::fs::write(bench.path("top.txt"), "changed").unwrap();
    let out = bench
        .ok(
            "archive",
            json!({"action": "extract", "archive": "a.zip", "destination": ".", "overwrite": true}),
        )
        .await;
    assert_eq!(out["replaced"], 1);
    assert_eq!(
        std::fs::read_to_string(bench.path("top.txt")).unwrap(),
        "top"
    );
    assert!(
        !names(bench.root())
            .iter()
            .any(|name| name.starts_with(".hermes"))
    );
}

/// Put `bytes` in the workspace as `name`, extract it to `dest`, and check the refusal
/// mentions `needle` and left nothing behind.
async fn refused(bench: &Bench, name: &str, bytes: &[u8], needle: &str) {
    std::fs::write(bench.path(name), bytes).unwrap();
    let before = names(bench.root());
    bench
        .fails(
            "archive",
            json!({"action": "extract", "archive": name, "destination": "dest/inner"}),
            "failed",
            needle,
        )
        .await;
    assert_eq!(
        names(bench.root()),
        before,
        "{name}: something was left behind"
    );
}

#[tokio::test]
async fn zip_slip_is_refused() {
    let bench = Bench::new();
    let evil = zip_of(&[("fine.txt", b"ok"), ("../../evil.txt", b"pwned")]);
    refused(&bench, "slip.zip", &evil, "climbs out").await;
    assert!(!bench.path("../evil.txt").exists());
    let evil = tar_gz_of(&[
        Raw::file("fine.txt", b"ok"),
        Raw::file("a/../../evil.txt", b"pwned"),
    ]);
    refused(&bench, "slip.tar.gz", &evil, "climbs out").await;
}

#[tokio::test]
async fn absolute_entries_are_refused() {
    let bench = Bench::new();
    let target = bench.path("abs-target.txt");
    let name = target.to_str().unwrap().to_owned();
    let evil = zip_of(&[(name.as_str(), b"pwned")]);
    refused(&bench, "abs.zip", &evil, "absolute path").await;
    let evil = tar_gz_of(&[Raw::file("/tmp/hermes-evil.txt", b"pwned")]);
    refused(&bench, "abs.tgz", &evil, "absolute path").await;
    assert!(!target.exists());
}

#[tokio::test]
async fn links_pointing_out_are_refused_links_inside_are_skipped() {
    let bench = Bench::new();
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    zip.add_symlink("sneaky", "../../../etc", SimpleFileOptions::default())
        .unwrap();
    zip.start_file("sneaky/passwd", SimpleFileOptions::default())
        .unwrap();
    zip.write_all(b"root::0:0::/:/bin/sh").unwrap();
    let evil = zip.finish().unwrap().into_inner();
    refused(&bench, "link.zip", &evil, "symbolic link to `../../../etc`").await;

    let evil = tar_gz_of(&[Raw::link("etc", EntryType::Symlink, "/etc")]);
    refused(&bench, "symlink.tgz", &evil, "outside the destination").await;
    let evil = tar_gz_of(&[Raw::link("shadow", EntryType::Link, "../../etc/shadow")]);
    refused(&bench, "hardlink.tgz", &evil, "hard link").await;

    let fine = tar_gz_of(&[
        Raw::file("a.txt", b"content"),
        Raw::link("b.txt", EntryType::Link, "a.txt"),
        Raw::link("c.txt", EntryType::Symlink, "a.txt"),
    ]);
    std::fs::write(bench.path("fine.tgz"), fine).unwrap();
    let out = bench
        .ok(
            "archive",
            json!({"action": "extract", "archive": "fine.tgz", "destination": "ok"}),
        )
        .await;
    assert_eq!(out["files"], 2);
    assert_eq!(out["skipped"][0]["entry"], "c.txt");
    assert_eq!(
        std::fs::read_to_string(bench.path("ok/b.txt")).unwrap(),
        "content"
    );
    assert!(bench.path("ok/c.txt").symlink_metadata().is_err());
}

#[cfg(unix)]
#[tokio::test]
async fn a_link_already_in_the_destination_is_not_written_through() {
    let bench = Bench::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(bench.path("dest")).unwrap();
    std::os::unix::fs::symlink(outside.path(), bench.path("dest/sub")).unwrap();
    std::fs::write(bench.path("a.zip"), zip_of(&[("sub/x.txt", b"pwned")])).unwrap();
    bench
        .fails(
            "archive",
            json!({"action": "extract", "archive": "a.zip", "destination": "dest"}),
            "failed",
            "symbolic link in the destination",
        )
        .await;
    assert!(names(outside.path()).is_empty());
    assert_eq!(names(&bench.path("dest")), ["sub"]);
}

#[tokio::test]
async fn a_high_compression_ratio_is_refused() {
    let bench = Bench::new();
    let zeros = vec![0u8; 8 * 1024 * 1024];
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("zeros.bin", options).unwrap();
    zip.write_all(&zeros).unwrap();
    let bomb = zip.finish().unwrap().into_inner();
    assert!(bomb.len() < 100_000);
    refused(&bench, "bomb.zip", &bomb, "expands more than").await;
    let bomb = tar_gz_of(&[Raw::file("zeros.bin", &zeros)]);
    refused(&bench, "bomb.tgz", &bomb, "expands more than").await;
}

#[tokio::test]
async fn too_many_entries_are_refused() {
    let bench = Bench::new();
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for n in 0..10_001 {
        zip.start_file(format!("f{n}"), options).unwrap();
    }
    let many = zip.finish().unwrap().into_inner();
    refused(&bench, "many.zip", &many, "10001 entries").await;
}

#[tokio::test]
async fn damaged_archives_are_reported() {
    let bench = Bench::new();
    refused(
        &bench,
        "junk.zip",
        b"PK\x03\x04 this is not really a zip",
        "damaged",
    )
    .await;
    refused(&bench, "junk.tgz", b"\x1f\x8b nope", "damaged").await;
}

#[tokio::test]
async fn create_and_extract_need_their_arguments() {
    let bench = Bench::new();
    bench
        .fails(
            "archive",
            json!({"action": "create", "archive": "a.zip"}),
            "invalid_arguments",
            "sources",
        )
        .await;
    bench
        .fails(
            "archive",
            json!({"action": "extract", "archive": "a.zip"}),
            "invalid_arguments",
            "destination",
        )
        .await;
    bench
        .fails(
            "archive",
            json!({"action": "create", "archive": "a.zip", "sources": ["missing"]}),
            "failed",
            "does not exist",
        )
        .await;
}
