//! `image_transform`: operations in order, every output format, the output never
//! overwritten unless asked, and bad requests refused before anything is written.

use std::path::Path;

use image::{GenericImageView, ImageFormat, ImageReader};
use serde_json::json;

use crate::common::Bench;
use crate::fixtures;

/// The format and dimensions of the image at `path`, decoded for real.
fn decoded(path: &Path) -> (ImageFormat, u32, u32) {
    let reader = ImageReader::open(path)
        .unwrap()
        .with_guessed_format()
        .unwrap();
    let format = reader.format().unwrap();
    let image = reader.decode().unwrap();
    (format, image.width(), image.height())
}

#[tokio::test]
async fn resizes_within_a_box_keeping_the_aspect_ratio() {
    let bench = Bench::new();
    fixtures::png(&bench.path("wide.png"), 200, 100);
    let out = bench
        .ok(
            "image_transform",
            json!({
                "input": "wide.png",
                "output": "small.png",
                "operations": [{"op": "resize", "width": 100, "height": 100}]
            }),
        )
        .await;
    assert_eq!(out["path"], "small.png");
    assert_eq!(
        (out["width"].as_u64(), out["height"].as_u64()),
        (Some(100), Some(50))
    );
    assert_eq!(
        (out["input_width"].as_u64(), out["input_height"].as_u64()),
        (Some(200), Some(100))
    );
    assert_eq!(
        decoded(&bench.path("small.png")),
        (ImageFormat::Png, 100, 50)
    );
    let size = std::fs::metadata(bench.path("small.png")).unwrap().len();
    assert_eq!(out["size_bytes"].as_u64(), Some(size));
}

#[tokio::test]
async fn applies_operations_in_order() {
    let bench = Bench::new();
    fixtures::png(&bench.path("in.png"), 200, 100);
    // Crop the left (red) half, then turn it: 100x100 -> crop 100x40 -> rotate -> 40x100.
    let out = bench
        .ok(
            "image_transform",
            json!({
                "input": "in.png",
                "output": "out.png",
                "operations": [
                    {"op": "crop", "x": 0, "y": 0, "width": 100, "height": 40},
                    {"op": "rotate", "degrees": 90},
                    {"op": "flip", "direction": "vertical"}
                ]
            }),
        )
        .await;
    assert_eq!(out["operations"], 3);
    let image = image::open(bench.path("out.png")).unwrap();
    assert_eq!((image.width(), image.height()), (40, 100));
    assert!(
        image
            .pixels()
            .all(|(_, _, pixel)| pixel.0[..3] == [255, 0, 0]),
        "the crop kept only red pixels"
    );
}

#[tokio::test]
async fn writes_every_format_from_the_extension_or_the_format_argument() {
    let bench = Bench::new();
    fixtures::png(&bench.path("in.png"), 64, 32);
    for (output, format) in [
        ("out.jpg", ImageFormat::Jpeg),
        ("out.gif", ImageFormat::Gif),
        ("out.webp", ImageFormat::WebP),
        ("out.bmp", ImageFormat::Bmp),
        ("out.tiff", ImageFormat::Tiff),
    ] {
        let out = bench
            .ok(
                "image_transform",
                json!({"input": "in.png", "output": output, "operations": [{"op": "grayscale"}]}),
            )
            .await;
        assert_eq!(decoded(&bench.path(output)), (format, 64, 32), "{output}");
        assert_eq!(out["input_format"], "png");
    }
    let out = bench
        .ok(
            "image_transform",
            json!({"input": "in.png", "output": "no-extension", "format": "jpeg", "quality": 40}),
        )
        .await;
    assert_eq!(out["format"], "jpeg");
    assert_eq!(decoded(&bench.path("no-extension")).0, ImageFormat::Jpeg);
}

#[tokio::test]
async fn makes_thumbnails_that_never_enlarge() {
    let bench = Bench::new();
    fixtures::png(&bench.path("big.png"), 300, 150);
    fixtures::png(&bench.path("tiny.png"), 20, 10);
    let out = bench
        .ok(
            "image_transform",
            json!({"input": "big.png", "output": "thumb.png", "operations": [{"op": "thumbnail", "max_side": 64}]}),
        )
        .await;
    assert_eq!(
        (out["width"].as_u64(), out["height"].as_u64()),
        (Some(64), Some(32))
    );
    let out = bench
        .ok(
            "image_transform",
            json!({"input": "tiny.png", "output": "thumb2.png", "operations": [{"op": "thumbnail", "max_side": 64}]}),
        )
        .await;
    assert_eq!(
        (out["width"].as_u64(), out["height"].as_u64()),
        (Some(20), Some(10))
    );
    let out = bench
        .ok(
            "image_transform",
            json!({"input": "big.png", "output": "filled.png", "operations": [{"op": "resize", "width": 50, "height": 50, "mode": "fill"}]}),
        )
        .await;
    assert_eq!(
        (out["width"].as_u64(), out["height"].as_u64()),
        (Some(50), Some(50))
    );
}

#[tokio::test]
async fn an_existing_output_is_kept_unless_overwrite_is_set() {
    let bench = Bench::new();
    fixtures::png(&bench.path("in.png"), 16, 16);
    std::fs::write(bench.path("taken.png"), b"precious").unwrap();
    let args = json!({"input": "in.png", "output": "taken.png"});
    bench
        .fails("image_transform", args.clone(), "failed", "overwrite: true")
        .await;
    assert_eq!(std::fs::read(bench.path("taken.png")).unwrap(), b"precious");
    let mut args = args;
    args["overwrite"] = json!(true);
    bench.ok("image_transform", args).await;
    assert_eq!(
        decoded(&bench.path("taken.png")),
        (ImageFormat::Png, 16, 16)
    );
    let left = std::fs::read_dir(bench.root()).unwrap().count();
    assert_eq!(left, 2, "a temporary file was left behind");
}

#[tokio::test]
async fn a_crop_outside_the_image_is_refused_and_writes_nothing() {
    let bench = Bench::new();
    fixtures::png(&bench.path("in.png"), 50, 40);
    let message = bench
        .fails(
            "image_transform",
            json!({
                "input": "in.png",
                "output": "out.png",
                "operations": [{"op": "crop", "x": 30, "y": 0, "width": 30, "height": 10}]
            }),
            "failed",
            "does not fit",
        )
        .await;
    assert!(message.contains("50x40"), "{message}");
    assert!(!bench.path("out.png").exists());
}

#[tokio::test]
async fn impossible_operations_are_invalid_arguments() {
    let bench = Bench::new();
    fixtures::png(&bench.path("in.png"), 10, 10);
    for (operations, needle) in [
        (json!([{"op": "rotate", "degrees": 45}]), "90, 180 or 270"),
        (json!([{"op": "resize", "width": 40000, "height": 10}]), ""),
        (
            json!([{"op": "resize", "width": 30000, "height": 30000}]),
            "megapixels",
        ),
        (json!([{"op": "sharpen"}]), ""),
        (
            json!([{"op": "crop", "x": 0, "y": 0, "width": 0, "height": 5}]),
            "",
        ),
        (json!("resize"), ""),
    ] {
        bench
            .fails(
                "image_transform",
                json!({"input": "in.png", "output": "out.png", "operations": operations}),
                "invalid_arguments",
                needle,
            )
            .await;
    }
    bench
        .fails(
            "image_transform",
            json!({"input": "in.png", "output": "out.png", "quality": 0}),
            "invalid_arguments",
            "",
        )
        .await;
    assert!(!bench.path("out.png").exists());
}

#[tokio::test]
async fn unusable_outputs_are_refused() {
    let bench = Bench::new();
    fixtures::png(&bench.path("in.png"), 10, 10);
    std::fs::create_dir(bench.path("dir")).unwrap();
    for (output, needle) in [
        ("out.xcf", "cannot tell the output format"),
        ("missing/out.png", "does not exist"),
        ("dir", "is a directory"),
        ("in.png", "already exists"),
    ] {
        bench
            .fails(
                "image_transform",
                json!({"input": "in.png", "output": output}),
                "failed",
                needle,
            )
            .await;
    }
    bench
        .fails(
            "image_transform",
            json!({"input": "in.png", "output": "in.png", "overwrite": true}),
            "failed",
            "is the input",
        )
        .await;
    assert_eq!(std::fs::read_dir(bench.root()).unwrap().count(), 2);
}

#[tokio::test]
async fn a_bomb_is_refused_before_decoding() {
    let bench = Bench::new();
    // Within the side limit, beyond the pixel budget.
    fixtures::bmp_header(&bench.path("bomb.bmp"), 20_000, 20_000);
    bench
        .fails(
            "image_transform",
            json!({"input": "bomb.bmp", "output": "out.png"}),
            "failed",
            "decompression bomb",
        )
        .await;
    assert!(!bench.path("out.png").exists());
}
