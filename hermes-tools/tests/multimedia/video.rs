//! `video_info` and `video_frame` on a video made with ffmpeg: streams, duration,
//! frames saved and decoded back, timestamps past the end, and FFmpeg missing.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use crate::common::Bench;
use crate::fixtures;

/// A bench with the test video at `clip.mp4`.
fn with_video() -> Bench {
    let bench = Bench::new();
    fixtures::video(&bench.path("clip.mp4"));
    bench
}

/// The dimensions of the image at `path`, decoded with the image crate.
fn dimensions(path: &Path) -> (image::ImageFormat, u32, u32) {
    let reader = image::ImageReader::open(path)
        .unwrap()
        .with_guessed_format()
        .unwrap();
    let format = reader.format().unwrap();
    let image = reader.decode().unwrap();
    (format, image.width(), image.height())
}

#[tokio::test]
async fn describes_the_container_and_every_stream() {
    let bench = with_video();
    let out = bench.ok("video_info", json!({"path": "clip.mp4"})).await;
    assert_eq!(out["path"], "clip.mp4");
    assert!(out["container"].as_str().unwrap().contains("mp4"), "{out}");
    assert!(
        (out["duration_seconds"].as_f64().unwrap() - 2.0).abs() < 0.1,
        "{out}"
    );
    assert_eq!(
        (out["width"].as_u64(), out["height"].as_u64()),
        (Some(320), Some(240))
    );
    assert_eq!(out["fps"], 25.0);
    let streams = out["streams"].as_array().unwrap();
    assert_eq!(streams.len(), 2, "{out}");
    assert_eq!(
        (streams[0]["type"].as_str(), streams[0]["codec"].as_str()),
        (Some("video"), Some("h264"))
    );
    assert_eq!(streams[0]["pixel_format"], "yuv420p");
    assert_eq!(streams[0]["frames"], 50);
    assert_eq!(
        (streams[1]["type"].as_str(), streams[1]["codec"].as_str()),
        (Some("audio"), Some("aac"))
    );
    assert_eq!(streams[1]["sample_rate"], 44100);
    assert_eq!(streams[1]["channels"], 1);
    assert!(streams[1].get("fps").is_none());
    assert!(
        streams[1].get("frames").is_none(),
        "audio packets are not frames"
    );
    let size = std::fs::metadata(bench.path("clip.mp4")).unwrap().len();
    assert_eq!(out["size_bytes"].as_u64(), Some(size));
}

#[tokio::test]
async fn describes_audio_only_media_too() {
    let bench = Bench::new();
    let path = bench.path("tone.wav");
    fixtures::make(
        "sox",
        &[
            "-n",
            "-r",
            "8000",
            "-c",
            "1",
            "-b",
            "16",
            path.to_str().unwrap(),
            "synth",
            "1",
            "sine",
            "440",
        ],
    );
    let out = bench.ok("video_info", json!({"path": "tone.wav"})).await;
    assert!(out.get("width").is_none(), "{out}");
    assert_eq!(out["streams"][0]["type"], "audio");
    assert_eq!(out["streams"][0]["codec"], "pcm_s16le");
}

#[tokio::test]
async fn a_file_that_is_not_media_is_refused() {
    let bench = Bench::new();
    fixtures::noise(&bench.path("noise.mp4"));
    let message = bench
        .fails(
            "video_info",
            json!({"path": "noise.mp4"}),
            "failed",
            "not audio or video",
        )
        .await;
    // The absolute path is not shown; the workspace-relative one is.
    assert!(
        !message.contains(bench.root().to_str().unwrap()),
        "{message}"
    );
    assert!(message.contains("noise.mp4"), "{message}");
    assert!(!message.contains(" @ 0x"), "{message}");
}

#[tokio::test]
async fn saves_a_frame_that_decodes_at_the_video_size() {
    let bench = with_video();
    let out = bench
        .ok(
            "video_frame",
            json!({"path": "clip.mp4", "timestamp": 1.0, "output": "frame.png"}),
        )
        .await;
    assert_eq!(out["path"], "frame.png");
    assert_eq!(out["format"], "png");
    assert_eq!(
        (out["width"].as_u64(), out["height"].as_u64()),
        (Some(320), Some(240))
    );
    assert_eq!(out["timestamp_seconds"], 1.0);
    assert!((out["video_duration_seconds"].as_f64().unwrap() - 2.0).abs() < 0.1);
    assert_eq!(
        dimensions(&bench.path("frame.png")),
        (image::ImageFormat::Png, 320, 240)
    );
    let size = std::fs::metadata(bench.path("frame.png")).unwrap().len();
    assert_eq!(out["size_bytes"].as_u64(), Some(size));

    let out = bench
        .ok(
            "video_frame",
            json!({"path": "clip.mp4", "timestamp": "00:00:01.500", "output": "frame.jpg"}),
        )
        .await;
    assert_eq!(out["timestamp_seconds"], 1.5);
    assert_eq!(
        dimensions(&bench.path("frame.jpg")),
        (image::ImageFormat::Jpeg, 320, 240)
    );
    // No timestamp: the first frame.
    let out = bench
        .ok(
            "video_frame",
            json!({"path": "clip.mp4", "output": "first.png"}),
        )
        .await;
    assert_eq!(out["timestamp_seconds"], 0.0);
    assert_eq!(
        std::fs::read_dir(bench.root()).unwrap().count(),
        4,
        "temporary files left"
    );
}

#[tokio::test]
async fn frames_at_different_times_differ() {
    let bench = with_video();
    for (timestamp, output) in [(0.1, "a.png"), (1.9, "b.png")] {
        bench
            .ok(
                "video_frame",
                json!({"path": "clip.mp4", "timestamp": timestamp, "output": output}),
            )
            .await;
    }
    let a = image::open(bench.path("a.png")).unwrap().to_rgb8();
    let b = image::open(bench.path("b.png")).unwrap().to_rgb8();
    assert_ne!(a, b, "testsrc moves: two timestamps give two pictures");
}

#[tokio::test]
async fn a_timestamp_past_the_end_is_refused() {
    let bench = with_video();
    for timestamp in [json!(12), json!("00:00:05"), json!(2.0)] {
        bench
            .fails(
                "video_frame",
                json!({"path": "clip.mp4", "timestamp": timestamp, "output": "late.png"}),
                "failed",
                "beyond the end",
            )
            .await;
    }
    assert!(!bench.path("late.png").exists());
}

#[tokio::test]
async fn bad_timestamps_are_invalid_arguments() {
    let bench = with_video();
    for timestamp in [json!("soon"), json!(-1), json!("1:99"), json!(true)] {
        bench
            .fails(
                "video_frame",
                json!({"path": "clip.mp4", "timestamp": timestamp, "output": "x.png"}),
                "invalid_arguments",
                "",
            )
            .await;
    }
}

#[tokio::test]
async fn an_existing_frame_is_kept_unless_overwrite_is_set() {
    let bench = with_video();
    std::fs::write(bench.path("frame.png"), b"keep me").unwrap();
    let args = json!({"path": "clip.mp4", "timestamp": 0.5, "output": "frame.png"});
    bench
        .fails("video_frame", args.clone(), "failed", "already exists")
        .await;
    assert_eq!(std::fs::read(bench.path("frame.png")).unwrap(), b"keep me");
    let mut args = args;
    args["overwrite"] = json!(true);
    bench.ok("video_frame", args).await;
    assert_eq!(dimensions(&bench.path("frame.png")).1, 320);
}

#[tokio::test]
async fn unusable_outputs_and_inputs_are_refused() {
    let bench = with_video();
    bench
        .fails(
            "video_frame",
            json!({"path": "clip.mp4", "output": "frame.gif"}),
            "failed",
            ".png, .jpg or .jpeg",
        )
        .await;
    let wav = bench.path("tone.wav");
    fixtures::make(
        "sox",
        &[
            "-n",
            "-r",
            "8000",
            "-c",
            "1",
            wav.to_str().unwrap(),
            "synth",
            "1",
            "sine",
            "440",
        ],
    );
    bench
        .fails(
            "video_frame",
            json!({"path": "tone.wav", "output": "frame.png"}),
            "failed",
            "no video stream",
        )
        .await;
    fixtures::noise(&bench.path("noise.mp4"));
    bench
        .fails(
            "video_frame",
            json!({"path": "noise.mp4", "output": "frame.png"}),
            "failed",
            "not audio or video",
        )
        .await;
    assert!(!bench.path("frame.png").exists());
}

/// The variable that tells a child test it runs in a copy of this binary started by
/// [`in_child`] (alone, it does nothing).
const CHILD: &str = "HERMES_MULTIMEDIA_TEST_CHILD";

/// Run the ignored test `name` in a copy of this test binary whose PATH is `path` (the
/// tools look FFmpeg's programs up on PATH); it must pass.
fn in_child(name: &str, path: &Path) {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--ignored", "--test-threads=1"])
        .env("PATH", path)
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_video_tools_say_when_ffmpeg_is_missing() {
    in_child(
        "video::child_tools_without_ffmpeg_on_path",
        Path::new("/nonexistent-hermes-test"),
    );
}

#[tokio::test]
#[ignore = "run by the_video_tools_say_when_ffmpeg_is_missing, with an empty PATH"]
async fn child_tools_without_ffmpeg_on_path() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let bench = Bench::new();
    std::fs::write(bench.path("clip.mp4"), b"not really").unwrap();
    bench
        .fails(
            "video_info",
            json!({"path": "clip.mp4"}),
            "failed",
            "`ffprobe` from FFmpeg, which is not installed",
        )
        .await;
    bench
        .fails(
            "video_frame",
            json!({"path": "clip.mp4", "output": "f.png"}),
            "failed",
            "`ffmpeg` from FFmpeg, which is not installed",
        )
        .await;
}

#[test]
fn a_hanging_or_babbling_ffprobe_is_handled() {
    let programs = tempfile::tempdir().unwrap();
    for (name, script) in [
        (
            "ffprobe",
            "#!/bin/sh\ncase \"$*\" in *slow*) exec /bin/sleep 60;; esac\necho '{not json'\n",
        ),
        ("ffmpeg", "#!/bin/sh\nexit 0\n"),
    ] {
        let path = programs.path().join(name);
        std::fs::write(&path, script).unwrap();
        make_executable(&path);
    }
    in_child("video::child_fake_ffprobe", programs.path());
}

/// Let the owner run `path`.
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[tokio::test]
#[ignore = "run by a_hanging_or_babbling_ffprobe_is_handled, with fake FFmpeg programs"]
async fn child_fake_ffprobe() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let bench = Bench::with_config(|config| {
        config.command_timeouts(Duration::from_secs(1), Duration::from_secs(1))
    });
    std::fs::write(bench.path("slow.mp4"), b"x").unwrap();
    std::fs::write(bench.path("fast.mp4"), b"x").unwrap();
    bench
        .fails(
            "video_info",
            json!({"path": "slow.mp4"}),
            "failed",
            "ffprobe ran past 1 s and was stopped",
        )
        .await;
    bench
        .fails(
            "video_info",
            json!({"path": "fast.mp4"}),
            "failed",
            "ffprobe's report on `fast.mp4` cannot be read",
        )
        .await;
}
