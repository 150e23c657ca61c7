//! `audio_info`: WAV, FLAC, Ogg Vorbis and MP3 made with sox, espeak-ng and ffmpeg, and
//! files that are not audio.

use serde_json::{Value, json};

use crate::common::Bench;
use crate::fixtures::{self, make};

/// The duration in a result.
fn seconds(out: &Value) -> f64 {
    out["duration_seconds"]
        .as_f64()
        .unwrap_or_else(|| panic!("no duration: {out}"))
}

#[tokio::test]
async fn describes_a_pcm_wav() {
    let bench = Bench::new();
    let path = bench.path("tone.wav");
    make(
        "sox",
        &[
            "-n",
            "-r",
            "44100",
            "-c",
            "2",
            "-b",
            "16",
            path.to_str().unwrap(),
            "synth",
            "1.5",
            "sine",
            "440",
        ],
    );
    let out = bench.ok("audio_info", json!({"path": "tone.wav"})).await;
    assert_eq!(out["path"], "tone.wav");
    assert_eq!(out["format"], "wav");
    assert_eq!(out["codec"], "pcm_s16le");
    assert_eq!(out["sample_rate"], 44100);
    assert_eq!(out["channels"], 2);
    assert_eq!(out["bits_per_sample"], 16);
    assert_eq!(out["frames"], 66150);
    assert_eq!(seconds(&out), 1.5);
    assert_eq!(out["tracks"], 1);
    // 16-bit stereo at 44.1 kHz is about 1411 kbit/s.
    let rate = out["bit_rate"].as_u64().unwrap();
    assert!((1_400_000..1_450_000).contains(&rate), "{rate}");
}

#[tokio::test]
async fn describes_a_24_bit_flac_with_its_tags() {
    let bench = Bench::new();
    let path = bench.path("tone.flac");
    make(
        "sox",
        &[
            "-n",
            "-r",
            "48000",
            "-c",
            "1",
            "-b",
            "24",
            "--comment",
            "TITLE=Concert A",
            path.to_str().unwrap(),
            "synth",
            "2",
            "sine",
            "440",
        ],
    );
    let out = bench.ok("audio_info", json!({"path": "tone.flac"})).await;
    assert_eq!(out["format"], "flac");
    assert_eq!(out["codec"], "flac");
    assert_eq!(out["sample_rate"], 48000);
    assert_eq!(out["channels"], 1);
    assert_eq!(out["bits_per_sample"], 24);
    assert_eq!(seconds(&out), 2.0);
    assert_eq!(out["tags"]["tracktitle"], "Concert A", "{out}");
}

#[tokio::test]
async fn describes_speech_from_espeak() {
    let bench = Bench::new();
    let path = bench.path("hello.wav");
    make(
        "espeak-ng",
        &["-w", path.to_str().unwrap(), "hello from hermes"],
    );
    let out = bench.ok("audio_info", json!({"path": "hello.wav"})).await;
    assert_eq!(out["format"], "wav");
    assert_eq!(out["channels"], 1);
    assert_eq!(out["sample_rate"], 22050);
    let duration = seconds(&out);
    assert!(duration > 0.3 && duration < 10.0, "{duration}");
}

#[tokio::test]
async fn describes_ogg_vorbis_and_mp3() {
    let bench = Bench::new();
    let ogg = bench.path("tone.ogg");
    make(
        "sox",
        &[
            "-n",
            "-r",
            "44100",
            "-c",
            "2",
            ogg.to_str().unwrap(),
            "synth",
            "3",
            "sine",
            "330",
        ],
    );
    let out = bench.ok("audio_info", json!({"path": "tone.ogg"})).await;
    assert_eq!(
        (out["format"].as_str(), out["codec"].as_str()),
        (Some("ogg"), Some("vorbis"))
    );
    assert_eq!(
        (out["sample_rate"].as_u64(), out["channels"].as_u64()),
        (Some(44100), Some(2))
    );
    assert!((seconds(&out) - 3.0).abs() < 0.1, "{out}");

    let mp3 = bench.path("tone.mp3");
    make(
        "ffmpeg",
        &[
            "-nostdin",
            "-v",
            "error",
            "-f",
            "lavfi",
            "-i",
            "sine=frequency=440:duration=2",
            "-ar",
            "32000",
            "-c:a",
            "libmp3lame",
            "-b:a",
            "64k",
            "-y",
            mp3.to_str().unwrap(),
        ],
    );
    let out = bench.ok("audio_info", json!({"path": "tone.mp3"})).await;
    assert_eq!(
        (out["format"].as_str(), out["codec"].as_str()),
        (Some("mp3"), Some("mp3"))
    );
    assert_eq!(out["sample_rate"], 32000);
    assert!((seconds(&out) - 2.0).abs() < 0.15, "{out}");
    assert!(out.get("bits_per_sample").is_none(), "{out}");
}

#[tokio::test]
async fn files_that_are_not_audio_are_refused() {
    let bench = Bench::new();
    fixtures::noise(&bench.path("noise.wav"));
    bench
        .fails(
            "audio_info",
            json!({"path": "noise.wav"}),
            "failed",
            "noise.wav",
        )
        .await;
    fixtures::png(&bench.path("picture.mp3"), 4, 4);
    bench
        .fails(
            "audio_info",
            json!({"path": "picture.mp3"}),
            "failed",
            "not audio",
        )
        .await;
    std::fs::write(bench.path("empty.flac"), b"").unwrap();
    bench
        .fails(
            "audio_info",
            json!({"path": "empty.flac"}),
            "failed",
            "empty.flac",
        )
        .await;
}

#[tokio::test]
async fn a_truncated_wav_is_refused_or_shorter_never_a_crash() {
    let bench = Bench::new();
    let path = bench.path("whole.wav");
    make(
        "sox",
        &[
            "-n",
            "-r",
            "8000",
            "-c",
            "1",
            path.to_str().unwrap(),
            "synth",
            "1",
            "sine",
            "440",
        ],
    );
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(bench.path("head.wav"), &bytes[..20]).unwrap();
    bench
        .fails(
            "audio_info",
            json!({"path": "head.wav"}),
            "failed",
            "head.wav",
        )
        .await;
}
