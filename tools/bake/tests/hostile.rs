//! "An importer that trusts nothing": one synthetic file per class of hostile
//! or broken glTF. Each must give an error naming the file and the problem,
//! never a panic or a hang; the `bake` binary must exit non-zero and write no
//! output file.

mod support;

use horde_bake::{bake_prop, bake_unit, BakeOptions};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{skinned_strip, temp_dir, Synthetic};

fn quiet(_: &str) {}

/// The error of baking `path` as a unit; panics if it bakes.
fn unit_error(path: &Path) -> String {
    match bake_unit(path, &[], &BakeOptions::default(), &quiet) {
        Ok(_) => panic!("{} baked", path.display()),
        Err(error) => error.to_string(),
    }
}

/// Runs the `bake` binary on `input`; returns its stderr after checking the
/// exit status and that no output file appeared.
fn bake_cli_fails(input: &Path) -> String {
    let output = input.with_extension("horde");
    let run = Command::new(env!("CARGO_BIN_EXE_bake"))
        .arg(input)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run bake");
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(
        !run.status.success(),
        "bake exited 0 on {}",
        input.display()
    );
    assert!(
        !output.exists(),
        "bake wrote {} for a bad input",
        output.display()
    );
    let leftovers: Vec<PathBuf> = std::fs::read_dir(input.parent().expect("folder"))
        .expect("list")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| {
            path.to_string_lossy()
                .ends_with(horde_bake::output::TEMP_SUFFIX)
        })
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    stderr
}

/// Checks both the library error and the CLI for one hostile file.
fn refused(synthetic: &Synthetic, tag: &str, expected: &[&str]) {
    let dir = temp_dir(tag);
    let path = synthetic.write_glb(&dir, tag);
    let message = unit_error(&path);
    assert!(
        message.contains(&path.display().to_string()),
        "error does not name the file: {message}"
    );
    for part in expected {
        assert!(message.contains(part), "expected {part:?} in: {message}");
    }
    let stderr = bake_cli_fails(&path);
    assert!(
        stderr.contains(expected[0]),
        "CLI stderr lacks {:?}: {stderr}",
        expected[0]
    );
}

#[test]
fn the_synthetic_strip_bakes() {
    let dir = temp_dir("strip-ok");
    let path = skinned_strip(1.0).write_glb(&dir, "strip");
    let baked = bake_unit(&path, &[], &BakeOptions::default(), &quiet).expect("bake");
    assert_eq!(baked.asset.bone_names, ["root", "tip"]);
}

#[test]
fn node_listing_itself_as_child_is_a_cycle() {
    let mut s = skinned_strip(1.0);
    s.json["nodes"][1]["children"] = json!([1]);
    refused(&s, "self-child", &["node 1 lists itself as a child"]);
}

#[test]
fn node_cycle_is_refused() {
    let mut s = skinned_strip(1.0);
    // 0 -> 1 -> 3 -> 4 -> 3 would need two parents of 3; a pure cycle has no root.
    s.json["nodes"].as_array_mut().expect("nodes").extend([
        json!({"name": "a", "children": [4]}),
        json!({"name": "b", "children": [3]}),
    ]);
    refused(&s, "cycle", &["cycle"]);
}

#[test]
fn node_with_two_parents_is_refused() {
    let mut s = skinned_strip(1.0);
    s.json["nodes"][2]["children"] = json!([1]);
    refused(&s, "two-parents", &["node 1 has two parents"]);
}

/// The Khronos validator's SCENE_NON_ROOT_NODE: the tip joint is a root of
/// the scene and the child of the root joint.
#[test]
fn scene_root_that_is_a_child_is_refused() {
    let mut s = skinned_strip(1.0);
    s.json["scenes"][0]["nodes"] = json!([0, 2, 1]);
    refused(
        &s,
        "scene-root-child",
        &[
            "node 1 is listed as a root of scene 0 (scenes[0].nodes[2])",
            "a child of node 0 (nodes[0].children[0])",
        ],
    );
}

#[test]
fn channel_target_out_of_range_is_refused_before_the_gltf_crate() {
    let mut s = skinned_strip(1.0);
    s.json["animations"][0]["channels"][0]["target"]["node"] = json!(99);
    refused(
        &s,
        "channel-target",
        &["animations[0].channels[0].target.node = 99 is out of range"],
    );
}

#[test]
fn channel_sampler_out_of_range_is_refused() {
    let mut s = skinned_strip(1.0);
    s.json["animations"][0]["channels"][0]["sampler"] = json!(5);
    refused(
        &s,
        "channel-sampler",
        &["channels[0].sampler = 5 is out of range"],
    );
}

#[test]
fn accessor_index_out_of_range_is_refused() {
    let mut s = skinned_strip(1.0);
    s.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(1000);
    refused(
        &s,
        "accessor-index",
        &["attributes.POSITION = 1000 is out of range"],
    );
}

#[test]
fn buffer_view_outside_its_buffer_is_refused() {
    let mut s = skinned_strip(1.0);
    s.json["bufferViews"][3]["byteOffset"] = json!(1 << 20);
    refused(
        &s,
        "view-outside",
        &["bufferViews[3]", "lies outside buffer 0"],
    );
}

#[test]
fn accessor_past_its_buffer_view_is_refused() {
    let mut s = skinned_strip(1.0);
    s.json["accessors"][0]["count"] = json!(600);
    refused(
        &s,
        "accessor-long",
        &["accessors[0] needs 7200 bytes of bufferView 0, which has 72"],
    );
}

#[test]
fn accessor_without_view_cannot_declare_unbounded_zeros() {
    let mut s = skinned_strip(1.0);
    let accessor = s.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"].clone();
    let index = accessor.as_u64().expect("index") as usize;
    s.json["accessors"][index]
        .as_object_mut()
        .expect("accessor")
        .remove("bufferView");
    s.json["accessors"][index]["count"] = json!(1u64 << 40);
    refused(&s, "zeros", &["declares", "over the"]);
}

#[test]
fn clip_too_long_for_the_bone_texture_is_refused_before_sampling() {
    let mut s = skinned_strip(1.0);
    let times: Vec<u8> = [0.0f32, 1e9].iter().flat_map(|t| t.to_le_bytes()).collect();
    let input = support::push_accessor(&mut s, &times, 5126, "SCALAR", 2, json!({}));
    s.json["animations"][0]["samplers"][0]["input"] = json!(input);
    refused(
        &s,
        "long-clip",
        &[
            "the clips need",
            "more than the 1024x4096 bone texture holds",
        ],
    );
}

#[test]
fn declared_buffer_longer_than_its_data_is_refused() {
    let mut s = skinned_strip(1.0);
    s.json["buffers"][0]["byteLength"] = json!(s.bin.len() + 4096);
    s.json["bufferViews"][0]["byteLength"] = json!(s.bin.len() + 4000);
    refused(&s, "short-bin", &["buffers[0]: holds", "byteLength says"]);
}

fn gltf_with_uri(tag: &str, uri: &str) -> PathBuf {
    let dir = temp_dir(tag);
    skinned_strip(1.0).write_gltf(&dir, tag, Some(uri))
}

fn uri_refused(tag: &str, uri: &str, expected: &str) {
    let path = gltf_with_uri(tag, uri);
    let message = unit_error(&path);
    assert!(
        message.contains(expected),
        "{uri:?}: expected {expected:?} in: {message}"
    );
    assert!(message.contains(&path.display().to_string()), "{message}");
    bake_cli_fails(&path);
}

#[test]
fn uri_with_dot_dot_is_outside_the_folder() {
    uri_refused("dotdot", "../secret.bin", "outside the glTF's folder");
    uri_refused(
        "dotdot-encoded",
        "%2e%2e/secret.bin",
        "outside the glTF's folder",
    );
}

#[test]
fn absolute_uri_is_outside_the_folder() {
    uri_refused("absolute", "/etc/passwd", "outside the glTF's folder");
    uri_refused("proc", "/proc/self/environ", "outside the glTF's folder");
}

#[test]
fn other_schemes_are_unsupported() {
    uri_refused(
        "file-scheme",
        "file:///etc/passwd",
        "unsupported URI scheme \"file\"",
    );
    uri_refused(
        "http-scheme",
        "https://example.com/a.bin",
        "unsupported URI scheme \"https\"",
    );
}

#[test]
fn link_out_of_the_folder_is_refused() {
    let dir = temp_dir("symlink");
    let outside = temp_dir("symlink-target");
    let s = skinned_strip(1.0);
    std::fs::write(outside.join("real.bin"), &s.bin).expect("write");
    std::os::unix::fs::symlink(outside.join("real.bin"), dir.join("link.bin")).expect("link");
    let path = s.write_gltf(&dir, "linked", Some("link.bin"));
    let message = unit_error(&path);
    assert!(message.contains("outside the glTF's folder"), "{message}");
}

#[test]
fn buffer_file_larger_than_byte_length_is_read_only_to_byte_length() {
    let dir = temp_dir("big-bin");
    let s = skinned_strip(1.0);
    let path = s.write_gltf(&dir, "big", None);
    // A 1 GiB sparse tail: only byteLength bytes may be read.
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("big.bin"))
        .expect("open");
    file.set_len(1 << 30).expect("grow");
    let started = std::time::Instant::now();
    bake_unit(&path, &[], &BakeOptions::default(), &quiet).expect("bakes from the first bytes");
    assert!(started.elapsed().as_secs() < 60);
}

#[test]
fn buffer_file_shorter_than_byte_length_is_refused() {
    let dir = temp_dir("short-file");
    let mut s = skinned_strip(1.0);
    let full = s.bin.len();
    s.json["buffers"][0]["byteLength"] = json!(full);
    let path = s.write_gltf(&dir, "short", None);
    std::fs::write(dir.join("short.bin"), &s.bin[..full / 2]).expect("truncate bin");
    let message = unit_error(&path);
    assert!(
        message.contains(&format!("byteLength says {full}")),
        "{message}"
    );
}

#[test]
fn missing_buffer_file_is_named() {
    let path = gltf_with_uri("missing", "nowhere.bin");
    let message = unit_error(&path);
    assert!(
        message.contains("missing file \"nowhere.bin\""),
        "{message}"
    );
}

#[test]
fn non_regular_inputs_are_refused() {
    let message = unit_error(Path::new("/dev/zero"));
    assert!(message.contains("not a regular file"), "{message}");
    let dir = temp_dir("fifo");
    let fifo = dir.join("pipe.glb");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let message = unit_error(&fifo);
    assert!(message.contains("not a regular file"), "{message}");
    let message = unit_error(&dir);
    assert!(message.contains("not a regular file"), "{message}");
    bake_cli_fails(&fifo);
}

#[test]
fn oversized_input_is_refused_before_reading() {
    let dir = temp_dir("huge");
    let path = dir.join("huge.glb");
    let file = std::fs::File::create(&path).expect("create");
    file.set_len(horde_bake::source::MAX_INPUT_BYTES + 1)
        .expect("sparse");
    let message = unit_error(&path);
    assert!(message.contains("exceed the"), "{message}");
}

#[test]
fn truncated_glb_reports_expected_and_actual_lengths() {
    let dir = temp_dir("truncated");
    let glb = skinned_strip(1.0).glb();
    let path = dir.join("cut.glb");
    std::fs::write(&path, &glb[..glb.len() - 100]).expect("write");
    let message = unit_error(&path);
    assert!(
        message.contains(&format!(
            "truncated GLB: the header's declared length needs {} bytes, the file has {}",
            glb.len(),
            glb.len() - 100
        )),
        "{message}"
    );
    bake_cli_fails(&path);
    std::fs::write(&path, &glb[..7]).expect("write");
    assert!(unit_error(&path).contains("truncated GLB: the header needs 12 bytes, the file has 7"));
}

#[test]
fn image_without_source_is_refused_not_a_panic() {
    let mut s = skinned_strip(1.0);
    s.json["images"] = json!([{"name": "nothing"}]);
    s.json["textures"] = json!([{"source": 0}]);
    s.json["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    s.json["meshes"][0]["primitives"][0]["material"] = json!(0);
    refused(
        &s,
        "image-nothing",
        &["images[0]: needs exactly one of uri and bufferView"],
    );
}

#[test]
fn names_longer_than_the_format_allows_are_refused_by_the_writer() {
    let mut s = skinned_strip(1.0);
    s.json["nodes"][1]["name"] = json!("x".repeat(horde_asset::MAX_STRING_LEN + 1));
    let dir = temp_dir("long-name");
    let path = s.write_glb(&dir, "long");
    let stderr = bake_cli_fails(&path);
    assert!(stderr.contains("bone name 1"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "length 4097 exceeds {}",
            horde_asset::MAX_STRING_LEN
        )),
        "{stderr}"
    );
}

#[test]
fn props_get_the_same_checks() {
    let mut s = skinned_strip(1.0);
    s.json["nodes"][1]["children"] = json!([0]);
    let dir = temp_dir("prop-cycle");
    let path = s.write_glb(&dir, "prop");
    let message = match bake_prop(&path, &BakeOptions::default(), &quiet) {
        Ok(_) => panic!("baked"),
        Err(error) => error.to_string(),
    };
    assert!(message.contains("cycle"), "{message}");
}

/// A small deterministic fuzz of the importer (the cargo-fuzz target
/// `import_gltf` runs the open-ended one): byte flips, truncations and JSON
/// number rewrites of a valid GLB must give `Ok` or `Err`, never a panic, and
/// what imports must bake or fail cleanly. (Run with 60,000 rounds once; it
/// found float index accessors, count 0 and short strides, now refused.)
#[test]
fn mutated_files_never_panic_the_importer() {
    let dir = temp_dir("mutations");
    let valid = skinned_strip(1.0).glb();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..3000 {
        let mut bytes = valid.clone();
        match round % 4 {
            0 => {
                for _ in 0..1 + next() % 8 {
                    let at = (next() % bytes.len() as u64) as usize;
                    bytes[at] ^= 1 << (next() % 8);
                }
            }
            1 => bytes.truncate((next() % bytes.len() as u64) as usize),
            2 => {
                // A digit of the JSON chunk changed: indices, counts, offsets.
                let digits: Vec<usize> = (20..20 + 1200.min(bytes.len() - 20))
                    .filter(|&at| bytes[at].is_ascii_digit())
                    .collect();
                let at = digits[(next() % digits.len() as u64) as usize];
                bytes[at] = b'0' + (next() % 10) as u8;
            }
            _ => {
                let at = (next() % bytes.len() as u64) as usize;
                bytes.insert(at, (next() % 256) as u8);
            }
        }
        let path = dir.join(format!("m{round}.glb"));
        std::fs::write(&path, &bytes).expect("write");
        let outcome = std::panic::catch_unwind(|| {
            let imported = horde_bake::import::import_character(&path).is_ok();
            let _ = horde_bake::import::import_prop(&path);
            imported
        });
        assert!(
            outcome.is_ok(),
            "round {round}: the importer panicked on {}",
            path.display()
        );
        if outcome.unwrap_or(false) {
            // The rest of the pipeline must hold too; its panic guard would
            // report "internal error".
            if let Err(error) = bake_unit(&path, &[], &BakeOptions::default(), &quiet) {
                let message = error.to_string();
                assert!(
                    !message.contains("internal error"),
                    "round {round}: {message}"
                );
            }
        }
        std::fs::remove_file(&path).expect("remove");
    }
}
