//! `image_info`: what an image is (format, dimensions, colour type) and the EXIF data it
//! carries, read from its header without decoding the pixels.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use image::ImageDecoder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::blocking::blocking;
use super::source::{self, Source};
use super::{FAMILY_TAG, exif, raster, result_cap};
use crate::common::Shared;

/// Arguments of `image_info`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    /// The image: relative to the workspace root, or absolute inside it.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
}

/// What `image_info` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The image, relative to the workspace.
    path: String,
    /// The format, told from the content (`png`, `jpeg`, ...).
    format: String,
    /// Width in pixels.
    width: u32,
    /// Height in pixels.
    height: u32,
    /// The colour type pixels decode to (`rgb8`, `rgba8`, `l8`, ...).
    color_type: String,
    /// Channels per pixel.
    channels: u8,
    /// Bits per pixel, decoded.
    bits_per_pixel: u16,
    /// Whether there is an alpha channel.
    has_alpha: bool,
    /// The file's size in bytes.
    size_bytes: u64,
    /// The EXIF fields of the main image (tag name to value), when the file has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    exif: Option<BTreeMap<String, String>>,
    /// Something to know: EXIF that could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// The `image_info` tool.
#[derive(Debug)]
pub(crate) struct ImageInfo {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl ImageInfo {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let description = format!(
            "Describe an image file in the workspace without changing it. Returns its format \
             (told from the content, not the name), width and height in pixels, color_type \
             (rgb8, rgba8, l8...), channels, bits_per_pixel, has_alpha, size_bytes and, when \
             the file carries EXIF metadata, its fields (camera, date, orientation, GPS...) as \
             `exif`. Reads {}.",
            raster::FORMATS
        );
        let spec = ToolSpec::builder("image_info", description)
            .parameters_for::<Args>()
            .tag(FAMILY_TAG)
            .scope(Scope::Read)
            .permission("file:read")
            .arg_kind("path", ArgKind::Path(Access::Read))
            .timeout(Duration::from_secs(30))
            .max_result_bytes(result_cap(shared))
            .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for ImageInfo {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let source = source::open(&self.shared, ctx, &args.path, raster::MAX_FILE_BYTES).await?;
        blocking("image_info", move || describe(source)).await
    }
}

/// Read the header (and EXIF block) of `source`. Blocking.
fn describe(source: Source) -> Result<Output, ToolError> {
    let (format, mut decoder) = raster::open(&source.path, &source.shown)?;
    let (width, height) = decoder.dimensions();
    let color = decoder.color_type();
    let (exif, note) = match decoder.exif_metadata() {
        Ok(Some(raw)) => match exif::fields(raw) {
            Ok(fields) => (Some(fields), None),
            Err(why) => (None, Some(why)),
        },
        Ok(None) => (None, None),
        Err(error) => (
            None,
            Some(format!("the EXIF block cannot be read: {error}")),
        ),
    };
    Ok(Output {
        path: source.shown,
        format: raster::format_name(format),
        width,
        height,
        color_type: format!("{color:?}").to_lowercase(),
        channels: color.channel_count(),
        bits_per_pixel: color.bits_per_pixel(),
        has_alpha: color.has_alpha(),
        size_bytes: source.size,
        exif,
        note,
    })
}
