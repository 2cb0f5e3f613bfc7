//! Checks on the procedural content generator (`horde_bake::gen`) and the
//! committed default content set in `assets/`.
//!
//! The default set is generated once per test process, into memory and into
//! Cargo's per-target temporary directory, and shared by the tests below. The
//! validator test needs the npm package: `npm ci --prefix tests/gltf-validator`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use glam::{Mat4, Quat, Vec3};
use gltf::animation::util::ReadOutputs;
use horde_bake::gen::clips::CLIP_NAMES;
use horde_bake::gen::rig::{Joint, JOINT_COUNT};
use horde_bake::gen::units::UnitKind;
use horde_bake::gen::{generate, write_default_set, Content, Generated, DEFAULT_SET};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The default set, written once into a fresh temporary directory.
fn generated_set() -> &'static [(PathBuf, Generated)] {
    static SET: OnceLock<Vec<(PathBuf, Generated)>> = OnceLock::new();
    SET.get_or_init(|| {
        let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gen-default-set");
        std::fs::create_dir_all(&directory).expect("create temporary directory");
        write_default_set(&directory).expect("generate the default set")
    })
}

/// Each unit of the default set, imported: (name, document, buffers).
fn imported_units() -> impl Iterator<Item = (&'static str, gltf::Document, Vec<gltf::buffer::Data>)>
{
    generated_set()
        .iter()
        .map(|(_, generated)| generated)
        .filter(|generated| matches!(generated.content, Content::Unit(_)))
        .map(|generated| {
            let (document, buffers) = import(generated);
            (generated.content.name(), document, buffers)
        })
}

fn import(generated: &Generated) -> (gltf::Document, Vec<gltf::buffer::Data>) {
    let (document, buffers, _) = gltf::import_slice(&generated.glb)
        .unwrap_or_else(|error| panic!("{} does not import: {error}", generated.content.name()));
    (document, buffers)
}

fn first_primitive(document: &gltf::Document) -> gltf::Primitive<'_> {
    document
        .meshes()
        .next()
        .and_then(|mesh| mesh.primitives().next())
        .expect("a mesh with a primitive")
}

#[test]
fn default_set_matches_committed_assets() {
    let assets = workspace_root().join("assets");
    for (path, generated) in generated_set() {
        let file_name = path.file_name().expect("generated files have names");
        let committed = std::fs::read(assets.join(file_name)).unwrap_or_else(|error| {
            panic!("assets/{} missing: {error}", file_name.to_string_lossy())
        });
        assert!(
            committed == generated.glb,
            "assets/{} differs from what gen produces now; rebuild with \
             `cargo run -p horde-tools --bin gen -- all -o assets/` and commit",
            file_name.to_string_lossy()
        );
    }
}

#[test]
fn same_seed_gives_identical_bytes_and_seeds_vary_units() {
    for (content, seed, _) in DEFAULT_SET {
        let first = generate(content, seed).expect("generate");
        let second = generate(content, seed).expect("generate");
        assert!(
            first.glb == second.glb,
            "{} is not deterministic",
            content.name()
        );
    }
    for kind in [UnitKind::Knight, UnitKind::Skeleton] {
        let a = generate(Content::Unit(kind), 10).expect("generate");
        let b = generate(Content::Unit(kind), 11).expect("generate");
        assert!(
            a.glb != b.glb,
            "{kind:?}: seeds 10 and 11 give the same file"
        );
    }
}

#[test]
fn khronos_validator_reports_no_errors() {
    let validator = workspace_root().join("tests/gltf-validator");
    assert!(
        validator.join("node_modules/gltf-validator").is_dir(),
        "the glTF validator is not installed; run `npm ci --prefix tests/gltf-validator`"
    );
    let output = Command::new("node")
        .arg(validator.join("validate.mjs"))
        .args(generated_set().iter().map(|(path, _)| path))
        .output()
        .expect("run node (is Node.js installed?)");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "glTF validator found errors:\n{report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        report.matches(": 0 errors").count(),
        DEFAULT_SET.len(),
        "{report}"
    );
}

#[test]
fn every_file_imports_with_normals_uvs_and_a_textured_material() {
    for (path, generated) in generated_set() {
        gltf::import(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let (document, _) = import(generated);
        let name = generated.content.name();
        let primitive = first_primitive(&document);
        for semantic in [
            gltf::Semantic::Positions,
            gltf::Semantic::Normals,
            gltf::Semantic::TexCoords(0),
        ] {
            assert!(
                primitive.get(&semantic).is_some(),
                "{name}: no {semantic:?}"
            );
        }
        let pbr = primitive.material().pbr_metallic_roughness();
        assert!(
            pbr.base_color_texture().is_some(),
            "{name}: no base colour texture"
        );
        assert_eq!(pbr.base_color_factor(), [1.0; 4], "{name}");
        let image = document.images().next().expect("an atlas image");
        assert!(
            matches!(
                image.source(),
                gltf::image::Source::View {
                    mime_type: "image/png",
                    ..
                }
            ),
            "{name}: atlas is not a PNG embedded in a buffer view"
        );
        let vertices = generated.vertex_count;
        match generated.content {
            Content::Unit(_) => {
                assert!(
                    (3000..=5000).contains(&vertices),
                    "{name}: {vertices} vertices"
                )
            }
            Content::Prop(_) => {
                assert!(
                    (200..=5000).contains(&vertices),
                    "{name}: {vertices} vertices"
                );
                assert_eq!(document.skins().count(), 0, "{name}: props are not skinned");
                assert_eq!(
                    document.animations().count(),
                    0,
                    "{name}: props are not animated"
                );
            }
        }
    }
}

#[test]
fn skin_weights_are_normalised_and_held_items_are_rigid() {
    for (name, document, buffers) in imported_units() {
        let primitive = first_primitive(&document);
        let reader = primitive.reader(|buffer| Some(&buffers[buffer.index()]));
        let joints: Vec<[u16; 4]> = reader
            .read_joints(0)
            .expect("JOINTS_0")
            .into_u16()
            .collect();
        let weights: Vec<[f32; 4]> = reader
            .read_weights(0)
            .expect("WEIGHTS_0")
            .into_f32()
            .collect();
        assert_eq!(joints.len(), weights.len());
        let mut blended = 0;
        let mut max_influences = 0;
        for (vertex, (joints, weights)) in joints.iter().zip(&weights).enumerate() {
            let sum: f32 = weights.iter().sum();
            assert!(
                (sum - 1.0).abs() < 1e-3,
                "{name}: vertex {vertex} weights sum to {sum}"
            );
            assert!(
                weights.iter().all(|&w| (0.0..=1.0).contains(&w)),
                "{name}: vertex {vertex}"
            );
            assert!(
                joints.iter().all(|&j| usize::from(j) < JOINT_COUNT),
                "{name}: vertex {vertex}"
            );
            let influences = weights.iter().filter(|&&w| w > 0.0).count();
            blended += usize::from(influences > 1);
            max_influences = max_influences.max(influences);
            for held in [Joint::Weapon, Joint::Shield] {
                let on_held = joints
                    .iter()
                    .zip(weights)
                    .any(|(&j, &w)| w > 0.0 && usize::from(j) == held.index());
                assert!(
                    !on_held || weights[0] == 1.0,
                    "{name}: vertex {vertex} blends into {held:?}"
                );
            }
        }
        // Smooth skinning has real work to do: a good share of vertices blend,
        // some of them across three or more bones.
        assert!(
            blended * 10 > joints.len(),
            "{name}: only {blended} of {} vertices blend",
            joints.len()
        );
        assert!(
            max_influences >= 3,
            "{name}: no vertex has 3 or more influences"
        );
    }
}

#[test]
fn rig_has_named_joints_and_inverse_bind_matrices_invert_the_bind_pose() {
    for (name, document, buffers) in imported_units() {
        let skin = document.skins().next().expect("a skin");
        let joints: Vec<_> = skin.joints().collect();
        assert_eq!(joints.len(), JOINT_COUNT, "{name}");
        for (joint, node) in Joint::ALL.iter().zip(&joints) {
            assert_eq!(node.name(), Some(joint.name()), "{name}");
        }
        let mesh_node = document
            .nodes()
            .find(|node| node.mesh().is_some())
            .expect("a mesh node");
        assert_eq!(
            mesh_node.transform().matrix(),
            Mat4::IDENTITY.to_cols_array_2d(),
            "{name}: mesh node is transformed"
        );
        let scene = document.default_scene().expect("a default scene");
        assert!(
            scene.nodes().any(|node| node.index() == mesh_node.index()),
            "{name}: mesh node is not a scene root"
        );

        let mut parents = vec![None; document.nodes().count()];
        for node in document.nodes() {
            for child in node.children() {
                parents[child.index()] = Some(node.index());
            }
        }
        let global = |mut index: usize| {
            let mut matrix = Mat4::IDENTITY;
            loop {
                let node = document.nodes().nth(index).expect("node index in range");
                matrix = Mat4::from_cols_array_2d(&node.transform().matrix()) * matrix;
                match parents[index] {
                    Some(parent) => index = parent,
                    None => return matrix,
                }
            }
        };
        let reader = skin.reader(|buffer| Some(&buffers[buffer.index()]));
        let inverse_binds: Vec<[[f32; 4]; 4]> = reader
            .read_inverse_bind_matrices()
            .expect("inverse binds")
            .collect();
        for (node, inverse_bind) in joints.iter().zip(inverse_binds) {
            let inverse_bind = Mat4::from_cols_array_2d(&inverse_bind);
            assert!(
                inverse_bind.determinant().abs() > 0.5,
                "{name}: degenerate inverse bind"
            );
            let product = global(node.index()) * inverse_bind;
            assert!(
                product.abs_diff_eq(Mat4::IDENTITY, 1e-5),
                "{name}: {:?} inverse bind is not the inverse of its bind global",
                node.name()
            );
        }
        let head = global(joints[Joint::Head.index()].index()).w_axis;
        assert!(
            (1.45..1.75).contains(&head.y),
            "{name}: head joint at {head}"
        );
    }
}

/// Key times and outputs of one channel (translations padded to four floats).
struct Channel {
    times: Vec<f32>,
    values: Vec<[f32; 4]>,
    node: usize,
    rotation: bool,
}

fn channels(animation: &gltf::Animation, buffers: &[gltf::buffer::Data]) -> Vec<Channel> {
    animation
        .channels()
        .map(|channel| {
            assert_eq!(
                channel.sampler().interpolation(),
                gltf::animation::Interpolation::Linear
            );
            let reader = channel.reader(|buffer| Some(&buffers[buffer.index()]));
            let times: Vec<f32> = reader.read_inputs().expect("inputs").collect();
            let (values, rotation) = match reader.read_outputs().expect("outputs") {
                ReadOutputs::Rotations(rotations) => (rotations.into_f32().collect(), true),
                ReadOutputs::Translations(translations) => (
                    translations.map(|[x, y, z]| [x, y, z, 0.0]).collect(),
                    false,
                ),
                _ => panic!("only rotation and translation channels are expected"),
            };
            Channel {
                times,
                values,
                node: channel.target().node().index(),
                rotation,
            }
        })
        .collect()
}

#[test]
fn clips_have_expected_names_lengths_and_loops() {
    let expected_durations = [2.0, 1.0, 0.7, 1.0, 1.0, 0.5, 1.5, 2.0];
    for (name, document, buffers) in imported_units() {
        let names: Vec<_> = document
            .animations()
            .map(|a| a.name().unwrap_or("").to_string())
            .collect();
        assert_eq!(names, CLIP_NAMES, "{name}");
        for (animation, expected) in document.animations().zip(expected_durations) {
            let clip = animation.name().unwrap_or_default();
            let channels = channels(&animation, &buffers);
            assert_eq!(
                channels.iter().filter(|c| c.rotation).count(),
                JOINT_COUNT,
                "{name} {clip}"
            );
            for channel in &channels {
                let duration = *channel.times.last().expect("keys");
                assert!(
                    (duration - expected).abs() < 1e-4,
                    "{name} {clip}: {duration} s"
                );
                assert_eq!(channel.times[0], 0.0);
                assert!(
                    channel.times.windows(2).all(|w| w[0] < w[1]),
                    "{name} {clip}: key times not increasing"
                );
                if channel.rotation {
                    assert!(
                        channel
                            .values
                            .iter()
                            .all(|q| (Quat::from_array(*q).length() - 1.0).abs() < 1e-4),
                        "{name} {clip}: non-unit rotation"
                    );
                }
                let (first, last) = (channel.values[0], *channel.values.last().expect("keys"));
                if matches!(clip, "idle" | "walk" | "run") {
                    assert_eq!(
                        first, last,
                        "{name} {clip}: node {} does not loop",
                        channel.node
                    );
                }
                if clip == "die" {
                    // The fall ends early and holds still.
                    let second_last = channel.values[channel.values.len() - 2];
                    assert_eq!(
                        second_last, last,
                        "{name} die: node {} still moving at the end",
                        channel.node
                    );
                }
            }
            if clip == "die" {
                let hips = channels
                    .iter()
                    .find(|c| !c.rotation)
                    .expect("hips translation");
                let lying = hips.values.last().expect("keys")[1];
                assert!(
                    lying < 0.35,
                    "{name} die: hips end {lying} m above ground, not lying down"
                );
            }
        }
    }
}

#[test]
fn motion_is_large_enough_to_read_from_a_distance() {
    for (name, document, buffers) in imported_units() {
        for animation in document.animations() {
            let clip = animation.name().unwrap_or_default();
            let biggest_turn = channels(&animation, &buffers)
                .iter()
                .filter(|c| c.rotation)
                .flat_map(|c| {
                    let first = Quat::from_array(c.values[0]);
                    c.values
                        .iter()
                        .map(move |q| first.angle_between(Quat::from_array(*q)))
                })
                .fold(0.0f32, f32::max)
                .to_degrees();
            let minimum = if clip == "idle" { 5.0 } else { 40.0 };
            assert!(
                biggest_turn > minimum,
                "{name} {clip}: largest joint turn {biggest_turn} degrees"
            );
        }
    }
}

#[test]
fn units_stand_on_the_ground_in_the_bind_pose() {
    for (name, document, buffers) in imported_units() {
        let primitive = first_primitive(&document);
        let reader = primitive.reader(|buffer| Some(&buffers[buffer.index()]));
        let (mut low, mut high) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for position in reader.read_positions().expect("positions") {
            low = low.min(Vec3::from(position));
            high = high.max(Vec3::from(position));
        }
        assert!(low.y.abs() < 0.01, "{name}: lowest point at y = {}", low.y);
        assert!(
            (1.65..2.0).contains(&high.y),
            "{name}: top at y = {}",
            high.y
        );
    }
}
