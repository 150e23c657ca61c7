//! `image_transform`: resize, crop, rotate, flip, make a thumbnail or change the format
//! of an image, written to a new file (an existing one only with `overwrite: true`).

use std::io::BufWriter;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{
    Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool, Violation,
};
use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::blocking::{Stop, blocking};
use super::destination::{self, Destination, Overwrite};
use super::source::{self, Source};
use super::{FAMILY_TAG, raster, result_cap};
use crate::common::Shared;

/// The most operations one call applies.
const MAX_OPERATIONS: usize = 16;
/// The JPEG quality when the call gives none.
const DEFAULT_QUALITY: u8 = 85;

/// Arguments of `image_transform`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    /// The image to read: relative to the workspace root, or absolute inside it.
    #[schemars(length(min = 1, max = 4096))]
    input: String,
    /// The file to write; its extension chooses the format unless `format` is given.
    #[schemars(length(min = 1, max = 4096))]
    output: String,
    /// What to do, in order (none: only convert the format).
    #[serde(default)]
    #[schemars(length(max = 16))]
    operations: Vec<Operation>,
    /// The output format; default: from the output's extension.
    format: Option<Format>,
    /// JPEG quality, 1 to 100 (default 85); ignored by other formats.
    #[schemars(range(min = 1, max = 100))]
    quality: Option<u8>,
    /// Replace the output file if it exists (default false: an existing file is left
    /// alone and the call fails).
    #[serde(default)]
    overwrite: bool,
}

/// One step of a transformation.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Operation {
    /// Scale to `width` x `height`: `fit` (default) keeps the aspect ratio within the
    /// box, `exact` stretches, `fill` covers the box and crops the overflow.
    Resize {
        /// Target width in pixels.
        #[schemars(range(min = 1, max = 32768))]
        width: u32,
        /// Target height in pixels.
        #[schemars(range(min = 1, max = 32768))]
        height: u32,
        /// How the aspect ratio is treated.
        #[serde(default)]
        mode: ResizeMode,
    },
    /// Keep the rectangle at (`x`, `y`) of `width` x `height` pixels.
    Crop {
        /// Left edge, in pixels from the left.
        x: u32,
        /// Top edge, in pixels from the top.
        y: u32,
        /// Width in pixels.
        #[schemars(range(min = 1))]
        width: u32,
        /// Height in pixels.
        #[schemars(range(min = 1))]
        height: u32,
    },
    /// Turn clockwise by 90, 180 or 270 degrees.
    Rotate {
        /// 90, 180 or 270.
        degrees: u32,
    },
    /// Mirror the image.
    Flip {
        /// `horizontal` (left-right) or `vertical` (top-bottom).
        direction: FlipDirection,
    },
    /// Shrink (never enlarge) to fit `max_side` pixels on the longer side, fast.
    Thumbnail {
        /// The longest side, in pixels.
        #[schemars(range(min = 1, max = 32768))]
        max_side: u32,
    },
    /// Convert to shades of grey.
    Grayscale,
}

/// How `resize` treats the aspect ratio.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ResizeMode {
    /// Fit within the box, keeping the ratio.
    #[default]
    Fit,
    /// Exactly the box, stretching.
    Exact,
    /// Cover the box, keeping the ratio, cropping the rest.
    Fill,
}

/// Which way `flip` mirrors.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FlipDirection {
    /// Left becomes right.
    Horizontal,
    /// Top becomes bottom.
    Vertical,
}

/// The formats written.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Format {
    /// PNG, lossless.
    Png,
    /// JPEG, lossy (see `quality`), no transparency.
    Jpeg,
    /// GIF, 256 colours.
    Gif,
    /// WebP, lossless.
    Webp,
    /// BMP.
    Bmp,
    /// TIFF.
    Tiff,
}

impl Format {
    /// The `image` crate's format.
    fn image_format(self) -> ImageFormat {
        match self {
            Self::Png => ImageFormat::Png,
            Self::Jpeg => ImageFormat::Jpeg,
            Self::Gif => ImageFormat::Gif,
            Self::Webp => ImageFormat::WebP,
            Self::Bmp => ImageFormat::Bmp,
            Self::Tiff => ImageFormat::Tiff,
        }
    }

    /// The format an extension names, if it is one written here.
    fn from_extension(extension: &str) -> Option<Self> {
        match extension {
            "png" => Some(Self::Png),
            "jpg" | "jpeg" => Some(Self::Jpeg),
            "gif" => Some(Self::Gif),
            "webp" => Some(Self::Webp),
            "bmp" => Some(Self::Bmp),
            "tif" | "tiff" => Some(Self::Tiff),
            _ => None,
        }
    }
}

/// What `image_transform` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The file written, relative to the workspace.
    path: String,
    /// Its format.
    format: String,
    /// Its width in pixels.
    width: u32,
    /// Its height in pixels.
    height: u32,
    /// Its size in bytes.
    size_bytes: u64,
    /// The input's format.
    input_format: String,
    /// The input's width in pixels.
    input_width: u32,
    /// The input's height in pixels.
    input_height: u32,
    /// How many operations were applied.
    operations: usize,
}

/// The `image_transform` tool.
#[derive(Debug)]
pub(crate) struct ImageTransform {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl ImageTransform {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let description = format!(
            "Transform an image into a new file: apply `operations` in order (resize with \
             mode fit/exact/fill, crop, rotate 90/180/270, flip, thumbnail, grayscale) and \
             write it as png, jpeg, gif, webp, bmp or tiff (from the output's extension, or \
             `format`). An existing output is not replaced unless `overwrite` is true. Returns \
             the output's path, format, width, height and size_bytes, with the input's format \
             and dimensions. Reads {}; images over {} megapixels are refused.",
            raster::FORMATS,
            raster::MAX_PIXELS / 1_000_000
        );
        let spec = ToolSpec::builder("image_transform", description)
            .parameters_for::<Args>()
            .tag(FAMILY_TAG)
            .scope(Scope::Write)
            .permission("file:read")
            .permission("file:write")
            .arg_kind("input", ArgKind::Path(Access::Read))
            .arg_kind("output", ArgKind::Path(Access::Write))
            .timeout(Duration::from_secs(120))
            .max_result_bytes(result_cap(shared))
            .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for ImageTransform {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        check(&args)?;
        let source = source::open(&self.shared, ctx, &args.input, raster::MAX_FILE_BYTES).await?;
        let destination = destination::prepare(
            &self.shared,
            ctx,
            &args.output,
            Overwrite::from_flag(args.overwrite),
        )
        .await?;
        if destination.path == source.path {
            return Err(ToolError::failed(format!(
                "the output `{}` is the input; write to another file",
                destination.shown
            )));
        }
        let format = match args.format {
            Some(format) => format,
            None => output_format(&destination)?,
        };
        let plan = Plan {
            operations: args.operations,
            format,
            quality: args.quality.unwrap_or(DEFAULT_QUALITY),
        };
        let stop = Stop::of("image_transform", ctx);
        blocking("image_transform", move || {
            transform(&source, &destination, &plan, &stop)
        })
        .await
    }
}

/// What to do to the image, checked.
#[derive(Debug)]
struct Plan {
    /// The steps, in order.
    operations: Vec<Operation>,
    /// The output format.
    format: Format,
    /// The JPEG quality.
    quality: u8,
}

/// Refuse arguments the schema lets through but no image can satisfy.
fn check(args: &Args) -> Result<(), ToolError> {
    let mut violations = Vec::new();
    if args.operations.len() > MAX_OPERATIONS {
        violations.push(Violation::new(
            "/operations",
            "maxItems",
            format!("at most {MAX_OPERATIONS} operations per call; split the work"),
        ));
    }
    if args
        .quality
        .is_some_and(|quality| !(1..=100).contains(&quality))
    {
        violations.push(Violation::new("/quality", "maximum", "quality is 1 to 100"));
    }
    for (index, operation) in args.operations.iter().enumerate() {
        let at = format!("/operations/{index}");
        match *operation {
            Operation::Rotate { degrees } if ![90, 180, 270].contains(&degrees) => {
                violations.push(Violation::new(
                    format!("{at}/degrees"),
                    "enum",
                    format!("rotate by 90, 180 or 270 degrees, not {degrees}"),
                ));
            }
            Operation::Resize { width, height, .. } => {
                if let Err(limit) = raster::check_size(width, height) {
                    violations.push(Violation::new(
                        at,
                        "maximum",
                        format!("{width}x{height} is {limit}"),
                    ));
                }
            }
            _ => {}
        }
    }
    if violations.is_empty() {
        Ok(())
    } else {
        Err(ToolError::InvalidArguments { violations })
    }
}

/// The format the output's extension names.
fn output_format(destination: &Destination) -> Result<Format, ToolError> {
    let extension = destination.extension().unwrap_or_default();
    Format::from_extension(&extension).ok_or_else(|| {
        ToolError::failed(format!(
            "cannot tell the output format from `{}`; end the name in .png, .jpg, .gif, .webp, \
             .bmp or .tiff, or pass `format`",
            destination.shown
        ))
    })
}

/// Decode, apply the plan, encode to a temporary file and put it in place. Blocking.
fn transform(
    source: &Source,
    destination: &Destination,
    plan: &Plan,
    stop: &Stop,
) -> Result<Output, ToolError> {
    let (input_format, mut image) = raster::decode(&source.path, &source.shown)?;
    let (input_width, input_height) = (image.width(), image.height());
    for operation in &plan.operations {
        stop.check()?;
        image = apply(image, *operation, &source.shown)?;
    }
    stop.check()?;
    let image = encodable(image, plan.format);
    let temp = destination.temp()?;
    let failed = |error: &dyn std::fmt::Display| {
        ToolError::failed(format!("cannot write `{}`: {error}", destination.shown))
    };
    let mut writer = BufWriter::new(temp.file());
    let written = match plan.format {
        Format::Jpeg => {
            image.write_with_encoder(JpegEncoder::new_with_quality(&mut writer, plan.quality))
        }
        other => image.write_to(&mut writer, other.image_format()),
    };
    written.map_err(|error| failed(&error))?;
    writer
        .into_inner()
        .map_err(|error| failed(&error.into_error()))?;
    stop.check()?;
    let size_bytes = destination.commit(temp)?;
    Ok(Output {
        path: destination.shown.clone(),
        format: raster::format_name(plan.format.image_format()),
        width: image.width(),
        height: image.height(),
        size_bytes,
        input_format: raster::format_name(input_format),
        input_width,
        input_height,
        operations: plan.operations.len(),
    })
}

/// `image` after `operation`.
///
/// # Errors
///
/// When a crop does not fit in the image, or a result would be too large.
fn apply(
    image: DynamicImage,
    operation: Operation,
    shown: &str,
) -> Result<DynamicImage, ToolError> {
    let (width, height) = (image.width(), image.height());
    Ok(match operation {
        Operation::Resize {
            width: w,
            height: h,
            mode,
        } => match mode {
            ResizeMode::Fit => image.resize(w, h, FilterType::Lanczos3),
            ResizeMode::Exact => image.resize_exact(w, h, FilterType::Lanczos3),
            ResizeMode::Fill => image.resize_to_fill(w, h, FilterType::Lanczos3),
        },
        Operation::Crop {
            x,
            y,
            width: w,
            height: h,
        } => {
            let fits = x
                .checked_add(w)
                .zip(y.checked_add(h))
                .is_some_and(|(right, bottom)| right <= width && bottom <= height);
            if !fits {
                return Err(ToolError::failed(format!(
                    "the crop {w}x{h} at ({x}, {y}) does not fit in `{shown}`, which is \
                     {width}x{height} at that step; keep x + width <= {width} and y + height <= \
                     {height}"
                )));
            }
            image.crop_imm(x, y, w, h)
        }
        Operation::Rotate { degrees: 90 } => image.rotate90(),
        Operation::Rotate { degrees: 180 } => image.rotate180(),
        Operation::Rotate { degrees: 270 } => image.rotate270(),
        Operation::Rotate { degrees } => {
            return Err(ToolError::failed(format!(
                "cannot rotate by {degrees} degrees; use 90, 180 or 270"
            )));
        }
        Operation::Flip {
            direction: FlipDirection::Horizontal,
        } => image.fliph(),
        Operation::Flip {
            direction: FlipDirection::Vertical,
        } => image.flipv(),
        Operation::Thumbnail { max_side } if width.max(height) <= max_side => image,
        Operation::Thumbnail { max_side } => image.thumbnail(max_side, max_side),
        Operation::Grayscale => image.grayscale(),
    })
}

/// `image` in a colour type the encoder of `format` accepts.
fn encodable(image: DynamicImage, format: Format) -> DynamicImage {
    use DynamicImage as D;
    let alpha = image.color().has_alpha();
    match (format, &image) {
        (Format::Jpeg, D::ImageLuma8(_)) => image,
        (Format::Jpeg, _) => D::ImageRgb8(image.to_rgb8()),
        (Format::Png | Format::Tiff, D::ImageRgb32F(_) | D::ImageRgba32F(_)) => {
            D::ImageRgba16(image.to_rgba16())
        }
        (Format::Tiff, D::ImageLumaA8(_) | D::ImageLumaA16(_)) => D::ImageRgba8(image.to_rgba8()),
        (Format::Png | Format::Tiff, _) => image,
        (
            Format::Bmp,
            D::ImageLuma8(_) | D::ImageLumaA8(_) | D::ImageRgb8(_) | D::ImageRgba8(_),
        ) => image,
        (Format::Gif, _) => D::ImageRgba8(image.to_rgba8()),
        (_, D::ImageRgb8(_) | D::ImageRgba8(_)) => image,
        _ if alpha => D::ImageRgba8(image.to_rgba8()),
        _ => D::ImageRgb8(image.to_rgb8()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_name_formats() {
        assert!(matches!(Format::from_extension("jpg"), Some(Format::Jpeg)));
        assert!(matches!(Format::from_extension("tif"), Some(Format::Tiff)));
        assert!(Format::from_extension("xcf").is_none());
    }

    #[test]
    fn jpeg_gets_no_alpha() {
        let image = DynamicImage::new_rgba8(2, 2);
        assert!(!encodable(image, Format::Jpeg).color().has_alpha());
    }
}
