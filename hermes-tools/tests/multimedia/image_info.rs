//! `image_info`: format, dimensions and colour told from the content, EXIF, and the
//! refusals (not an image, a decompression bomb).

use serde_json::json;

use crate::common::Bench;
use crate::fixtures;

#[tokio::test]
async fn describes_a_png_without_decoding_it() {
    let bench = Bench::new();
    fixtures::png(&bench.path("logo.png"), 40, 30);
    let out = bench.ok("image_info", json!({"path": "logo.png"})).await;
    assert_eq!(out["path"], "logo.png");
    assert_eq!(out["format"], "png");
    assert_eq!(
        (out["width"].as_u64(), out["height"].as_u64()),
        (Some(40), Some(30))
    );
    assert_eq!(out["color_type"], "rgba8");
    assert_eq!(out["channels"], 4);
    assert_eq!(out["bits_per_pixel"], 32);
    assert_eq!(out["has_alpha"], true);
    let size = std::fs::metadata(bench.path("logo.png")).unwrap().len();
    assert_eq!(out["size_bytes"].as_u64(), Some(size));
    assert!(out.get("exif").is_none(), "{out}");
}

#[tokio::test]
async fn reads_the_exif_of_a_jpeg() {
    let bench = Bench::new();
    fixtures::jpeg_with_exif(&bench.path("photo.jpg"));
    let out = bench.ok("image_info", json!({"path": "photo.jpg"})).await;
    assert_eq!(out["format"], "jpeg");
    assert_eq!(out["color_type"], "rgb8");
    assert_eq!(out["has_alpha"], false);
    assert_eq!(out["exif"]["Make"], "Hermes", "{out}");
    assert_eq!(out["exif"]["Model"], "Test Cam", "{out}");
}

#[tokio::test]
async fn the_format_comes_from_the_content_not_the_name() {
    let bench = Bench::new();
    fixtures::png(&bench.path("misnamed.jpg"), 8, 8);
    let out = bench
        .ok("image_info", json!({"path": "misnamed.jpg"}))
        .await;
    assert_eq!(out["format"], "png");
}

#[tokio::test]
async fn random_bytes_named_png_are_not_an_image() {
    let bench = Bench::new();
    fixtures::noise(&bench.path("fake.png"));
    let message = bench
        .fails(
            "image_info",
            json!({"path": "fake.png"}),
            "failed",
            "not an image in a format this tool reads",
        )
        .await;
    assert!(message.contains("fake.png"), "{message}");
}

#[tokio::test]
async fn a_header_declaring_huge_dimensions_is_refused_as_a_bomb() {
    let bench = Bench::new();
    fixtures::bmp_header(&bench.path("bomb.bmp"), 60_000, 60_000);
    bench
        .fails(
            "image_info",
            json!({"path": "bomb.bmp"}),
            "failed",
            "decompression bomb",
        )
        .await;
}

#[tokio::test]
async fn a_truncated_image_is_described_by_its_header_but_not_transformed() {
    let bench = Bench::new();
    fixtures::png(&bench.path("whole.png"), 64, 64);
    let bytes = std::fs::read(bench.path("whole.png")).unwrap();
    std::fs::write(bench.path("cut.png"), &bytes[..bytes.len() / 2]).unwrap();
    let out = bench.ok("image_info", json!({"path": "cut.png"})).await;
    assert_eq!(out["width"], 64);
    let message = bench
        .fails(
            "image_transform",
            json!({"input": "cut.png", "output": "out.png"}),
            "failed",
            "cut.png",
        )
        .await;
    assert!(
        message.contains("truncated") || message.contains("corrupt"),
        "{message}"
    );
    assert!(!bench.path("out.png").exists());
    let left: Vec<_> = std::fs::read_dir(bench.root()).unwrap().collect();
    assert_eq!(left.len(), 2, "a temporary file was left behind");
}

#[tokio::test]
async fn tells_every_supported_format_apart() {
    let bench = Bench::new();
    let picture = fixtures::picture(12, 10);
    for (name, format, expected) in [
        ("a.gif", image::ImageFormat::Gif, "gif"),
        ("a.webp", image::ImageFormat::WebP, "webp"),
        ("a.bmp", image::ImageFormat::Bmp, "bmp"),
        ("a.tiff", image::ImageFormat::Tiff, "tiff"),
    ] {
        picture.save_with_format(bench.path(name), format).unwrap();
        let out = bench.ok("image_info", json!({"path": name})).await;
        assert_eq!(out["format"], expected, "{out}");
        assert_eq!(
            (out["width"].as_u64(), out["height"].as_u64()),
            (Some(12), Some(10))
        );
    }
}
