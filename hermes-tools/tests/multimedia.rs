//! Behaviour tests of the `multimedia` family: every call goes through the gateway, on
//! real media generated in the test (the image and lopdf crates, sox, espeak-ng, ffmpeg)
//! in a temporary workspace.
#![cfg(feature = "multimedia")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    unreachable_pub
)]

mod common;

#[path = "multimedia/audio.rs"]
mod audio;
#[path = "multimedia/confinement.rs"]
mod confinement;
#[path = "multimedia/fixtures.rs"]
mod fixtures;
#[path = "multimedia/image_info.rs"]
mod image_info;
#[path = "multimedia/image_transform.rs"]
mod image_transform;
#[path = "multimedia/pdf.rs"]
mod pdf;
#[path = "multimedia/video.rs"]
mod video;
