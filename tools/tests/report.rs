//! `viewer --headless --frames 1 --report` (and 2): the report describes the
//! frames that were rendered (visible units per LOD, props, GPU times), though the
//! statistics reach the CPU frames late; the screenshot and the report are
//! written, with validation on and silent.

use std::path::Path;
use std::process::Command;

#[test]
fn a_one_frame_report_describes_that_frame() {
    report_describes_the_frames("1");
}

#[test]
fn a_two_frame_report_describes_those_frames() {
    report_describes_the_frames("2");
}

fn report_describes_the_frames(frames: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = root.join(format!("target/test-output/viewer-report-{frames}"));
    let _ = std::fs::remove_dir_all(&dir);
    let report = dir.join("nested/report.json");
    let screenshot = dir.join("shot.png");
    let run = Command::new(env!("CARGO_BIN_EXE_viewer"))
        .args(["--headless", "--frames", frames, "--units", "40"])
        .args(["--width", "320", "--height", "180", "--validation"])
        .arg("--report")
        .arg(&report)
        .arg("--screenshot")
        .arg(&screenshot)
        .env("HORDE_CACHE_DIR", root.join("target/horde-cache"))
        .output()
        .expect("run the viewer");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "viewer failed:\n{stderr}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("the report")).expect("JSON");
    let per_lod: Vec<u64> = json["visible"]["units_per_lod"]
        .as_array()
        .expect("units_per_lod")
        .iter()
        .map(|count| count.as_u64().expect("a count"))
        .collect();
    assert!(per_lod.iter().sum::<u64>() > 0, "no visible units: {json}");
    let props: u64 = json["visible"]["props_per_lod"]
        .as_array()
        .expect("props_per_lod")
        .iter()
        .map(|count| count.as_u64().expect("a count"))
        .sum();
    assert!(props > 0, "no visible props: {json}");
    let gpu = json["gpu_ms"].as_array().expect("gpu_ms");
    let frame = gpu
        .iter()
        .find(|scope| scope["name"] == "frame")
        .unwrap_or_else(|| panic!("no GPU times: {json}"));
    assert_eq!(
        frame["samples"].as_u64().map(|n| n.to_string()).as_deref(),
        Some(frames),
        "GPU times of every frame: {json}"
    );
    let image = image::open(&screenshot).expect("the screenshot");
    assert_eq!((image.width(), image.height()), (320, 180));
}
