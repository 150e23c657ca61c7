//! Media made for the tests: images with the image crate, PDFs with lopdf, audio and
//! video with sox, espeak-ng and ffmpeg (which scripts/system-deps installs).

use std::path::Path;
use std::process::Command;

use image::{DynamicImage, ImageEncoder, Rgba, RgbaImage};
use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, Object, Stream, dictionary};

/// Run a program that makes a test file; panic with its output if it fails.
pub fn make(program: &str, args: &[&str]) {
    let output = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|error| {
            panic!("cannot run {program} (scripts/system-deps installs it): {error}")
        });
    assert!(
        output.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A `width` x `height` RGBA image: red on the left half, blue on the right, half
/// transparent at the bottom.
pub fn picture(width: u32, height: u32) -> DynamicImage {
    DynamicImage::ImageRgba8(RgbaImage::from_fn(width, height, |x, y| {
        let alpha = if y < height / 2 { 255 } else { 128 };
        if x < width / 2 {
            Rgba([255, 0, 0, alpha])
        } else {
            Rgba([0, 0, 255, alpha])
        }
    }))
}

/// A PNG of [`picture`] at `path`, whatever its extension.
pub fn png(path: &Path, width: u32, height: u32) {
    picture(width, height)
        .save_with_format(path, image::ImageFormat::Png)
        .unwrap();
}

/// A JPEG at `path` whose EXIF says the camera is a "Hermes" "Test Cam".
pub fn jpeg_with_exif(path: &Path) {
    let image = DynamicImage::ImageRgb8(picture(64, 48).to_rgb8());
    let mut encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(
        std::fs::File::create(path).unwrap(),
        90,
    );
    encoder.set_exif_metadata(exif_block()).unwrap();
    encoder
        .write_image(image.as_bytes(), 64, 48, image.color().into())
        .unwrap();
}

/// A big-endian TIFF block with Make "Hermes" and Model "Test Cam".
fn exif_block() -> Vec<u8> {
    let make = b"Hermes\0";
    let model = b"Test Cam\0";
    let entries = 2u16;
    let data = 8 + 2 + 12 * u32::from(entries) + 4;
    let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
    tiff.extend_from_slice(&entries.to_be_bytes());
    for (tag, value, offset) in [(0x010Fu16, &make[..], data), (0x0110, &model[..], data + 7)] {
        tiff.extend_from_slice(&tag.to_be_bytes());
        tiff.extend_from_slice(&2u16.to_be_bytes());
        tiff.extend_from_slice(&u32::try_from(value.len()).unwrap().to_be_bytes());
        tiff.extend_from_slice(&offset.to_be_bytes());
    }
    tiff.extend_from_slice(&0u32.to_be_bytes());
    tiff.extend_from_slice(make);
    tiff.extend_from_slice(model);
    tiff
}

/// A BMP header declaring `width` x `height` pixels of 24 bits, with no pixels after
/// it: what a decompression bomb looks like to a decoder.
pub fn bmp_header(path: &Path, width: i32, height: i32) {
    let mut bmp = b"BM".to_vec();
    bmp.extend_from_slice(&54u32.to_le_bytes()); // file size (a lie)
    bmp.extend_from_slice(&0u32.to_le_bytes());
    bmp.extend_from_slice(&54u32.to_le_bytes()); // pixel data offset
    bmp.extend_from_slice(&40u32.to_le_bytes()); // BITMAPINFOHEADER
    bmp.extend_from_slice(&width.to_le_bytes());
    bmp.extend_from_slice(&height.to_le_bytes());
    bmp.extend_from_slice(&1u16.to_le_bytes()); // planes
    bmp.extend_from_slice(&24u16.to_le_bytes()); // bits per pixel
    bmp.extend_from_slice(&[0; 24]); // no compression, sizes, resolution, palette
    std::fs::write(path, bmp).unwrap();
}

/// Bytes that are no known format.
pub fn noise(path: &Path) {
    let bytes: Vec<u8> = (0..4096u32)
        .map(|n| (n.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(path, bytes).unwrap();
}

/// A PDF whose page N shows the lines of `pages[N - 1]`, with Title, Author, Producer
/// and CreationDate set; every second page's content stream compressed.
pub fn pdf(pages: &[&[&str]]) -> Document {
    let mut document = Document::with_version("1.5");
    let pages_id = document.new_object_id();
    let font = document.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let resources = document.add_object(dictionary! {
        "Font" => dictionary! { "F1" => font },
    });
    let mut kids = Vec::new();
    for (index, lines) in pages.iter().enumerate() {
        let mut operations = vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), 12.into()]),
            Operation::new("Td", vec![72.into(), 720.into()]),
        ];
        for line in *lines {
            operations.push(Operation::new("Tj", vec![Object::string_literal(*line)]));
            operations.push(Operation::new("ET", vec![]));
            operations.push(Operation::new("BT", vec![]));
        }
        operations.push(Operation::new("ET", vec![]));
        let content = Content { operations }.encode().unwrap();
        let mut stream = Stream::new(Dictionary::new(), content);
        if index % 2 == 1 {
            stream.compress().unwrap();
        }
        let content_id = document.add_object(stream);
        let page = document.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content_id,
        });
        kids.push(Object::Reference(page));
    }
    let count = i64::try_from(kids.len()).unwrap();
    document.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids,
            "Count" => count,
            "Resources" => resources,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        }),
    );
    let catalog = document.add_object(dictionary! {
        "Type" => "Catalog",
        "Pages" => pages_id,
    });
    let info = document.add_object(dictionary! {
        "Title" => Object::string_literal("Quarterly Report"),
        "Author" => lopdf::text_string("Zoë Hermès"),
        "Producer" => Object::string_literal("hermes tests"),
        "CreationDate" => Object::string_literal("D:20240131120000+02'00'"),
    });
    document.trailer.set("Root", catalog);
    document.trailer.set("Info", info);
    document
}

/// [`pdf`] saved at `path`.
pub fn save_pdf(path: &Path, pages: &[&[&str]]) {
    pdf(pages).save(path).unwrap();
}

/// [`pdf`] encrypted with a user password, saved at `path`.
pub fn encrypted_pdf(path: &Path) {
    let mut document = pdf(&[&["secret text"]]);
    document.trailer.set(
        "ID",
        Object::Array(vec![
            Object::string_literal("0123456789abcdef"),
            Object::string_literal("0123456789abcdef"),
        ]),
    );
    let state = lopdf::EncryptionState::try_from(lopdf::EncryptionVersion::V2 {
        document: &document,
        owner_password: "owner",
        user_password: "user",
        key_length: 128,
        permissions: lopdf::Permissions::default(),
    })
    .unwrap();
    document.encrypt(&state).unwrap();
    document.save(path).unwrap();
}

/// A 2-second 320x240 25 fps H.264 video with a 440 Hz AAC track, at `path` (.mp4).
pub fn video(path: &Path) {
    make(
        "ffmpeg",
        &[
            "-nostdin",
            "-v",
            "error",
            "-f",
            "lavfi",
            "-i",
            "testsrc=duration=2:size=320x240:rate=25",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:duration=2",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
            "-shortest",
            "-y",
            path.to_str().unwrap(),
        ],
    );
}

/// A one-page PDF whose text is set in a composite (Type0, Identity-H) font: two-byte
/// codes, letter `a` = 1, `b` = 2..., space = 0x20, readable only through its
/// ToUnicode map.
pub fn cid_pdf(path: &Path, text: &str) {
    let mut document = Document::with_version("1.7");
    let pages_id = document.new_object_id();
    let cmap = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n\
        1 begincodespacerange <0000> <FFFF> endcodespacerange\n\
        1 beginbfchar <0020> <0020> endbfchar\n\
        1 beginbfrange <0001> <001A> <0061> endbfrange\n\
        endcmap end end\n"
        .to_vec();
    let to_unicode = document.add_object(Stream::new(Dictionary::new(), cmap));
    let font = document.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type0",
        "BaseFont" => "Hermes-Sans",
        "Encoding" => "Identity-H",
        "ToUnicode" => to_unicode,
    });
    let codes: Vec<u8> = text
        .chars()
        .flat_map(|c| {
            let code: u16 = if c == ' ' {
                0x20
            } else {
                c as u16 - 'a' as u16 + 1
            };
            code.to_be_bytes()
        })
        .collect();
    let content = Content {
        operations: vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), 12.into()]),
            Operation::new("Td", vec![72.into(), 720.into()]),
            Operation::new(
                "Tj",
                vec![Object::String(codes, lopdf::StringFormat::Hexadecimal)],
            ),
            Operation::new("ET", vec![]),
        ],
    };
    let content_id = document.add_object(Stream::new(Dictionary::new(), content.encode().unwrap()));
    let page = document.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "Contents" => content_id,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
    });
    document.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => vec![Object::Reference(page)],
            "Count" => 1,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        }),
    );
    let catalog = document.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    document.trailer.set("Root", catalog);
    document.save(path).unwrap();
}
