//! Characters from other exporters in a battle, without a GPU: one
//! synthetic file per clip-naming family (FBX2glTF, Blender, Mixamo,
//! Quaternius, KayKit, Synty), each the generated knight with its clips
//! renamed the family's way, sets up a battle without `--clip-map` and
//! warns once per role it fell back on; `--clip-map ARMY:role=clip` maps
//! each army's model, and a clip one model lacks is an error naming it; the
//! armies are named by their unit types.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use horde::anim::Role;
use horde_bake::cache::CacheOptions;
use horde_bake::gen::units::UnitKind;
use horde_bake::gen::{generate, Content};
use horde_battle::BattleRules;
use horde_tools::battle::{army_names, battle_scene, BattleOptions, BattleScene};
use horde_tools::clip_map::ClipMapping;
use serde_json::Value;

/// Every warning logged in this test binary.
struct Warnings(Mutex<Vec<String>>);

impl log::Log for Warnings {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= log::Level::Warn
    }

    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            if let Ok(mut lines) = self.0.lock() {
                lines.push(record.args().to_string());
            }
        }
    }

    fn flush(&self) {}
}

fn warnings() -> &'static Warnings {
    static WARNINGS: OnceLock<&'static Warnings> = OnceLock::new();
    WARNINGS.get_or_init(|| {
        let warnings: &'static Warnings = Box::leak(Box::new(Warnings(Mutex::new(Vec::new()))));
        log::set_logger(warnings).expect("the only logger");
        log::set_max_level(log::LevelFilter::Warn);
        warnings
    })
}

/// The warnings so far that mention `text`.
fn warnings_about(text: &str) -> Vec<String> {
    warnings()
        .0
        .lock()
        .expect("warnings")
        .iter()
        .filter(|line| line.contains(text))
        .cloned()
        .collect()
}

/// A fresh directory for this test's files.
fn test_dir(tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/test-output/clip-roles")
        .join(tag);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the test directory");
    dir
}

/// The generated knight as `dir/stem.glb` with its clips renamed:
/// `(new name, generated clip)` pairs, a generated clip copied as often as
/// it is named, the others dropped.
fn knight_with_clips(dir: &Path, stem: &str, clips: &[(&str, &str)]) -> PathBuf {
    let glb = generate(Content::Unit(UnitKind::Knight), 2)
        .expect("generate the knight")
        .glb;
    let chunk = |at: usize| {
        let length = u32::from_le_bytes(glb[at..at + 4].try_into().expect("length")) as usize;
        (&glb[at + 8..at + 8 + length], at + 8 + length)
    };
    let (json, bin_at) = chunk(12);
    let (bin, _) = chunk(bin_at);
    let mut json: Value = serde_json::from_slice(json).expect("the GLB's JSON");
    let generated = json["animations"].as_array().expect("animations").clone();
    json["animations"] = clips
        .iter()
        .map(|&(name, source)| {
            let mut animation = generated
                .iter()
                .find(|animation| animation["name"] == source)
                .unwrap_or_else(|| panic!("the knight has no clip {source}"))
                .clone();
            animation["name"] = Value::from(name);
            animation
        })
        .collect();
    let mut json = serde_json::to_vec(&json).expect("JSON");
    json.resize(json.len().next_multiple_of(4), b' ');
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    let total = 12 + 8 + json.len() + 8 + bin.len();
    out.extend_from_slice(&(total as u32).to_le_bytes());
    for (kind, data) in [(b"JSON", json.as_slice()), (b"BIN\0", bin)] {
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
    }
    let path = dir.join(format!("{stem}.glb"));
    std::fs::write(&path, out).expect("write the GLB");
    path
}

/// A clip-naming family: its clips (name, the generated clip it plays) and
/// the roles a battle falls back on with it.
struct Family {
    stem: &'static str,
    clips: &'static [(&'static str, &'static str)],
    fallbacks: &'static [Role],
}

/// Quaternius characters converted by FBX2glTF: armature-prefixed, `Punch`
/// for the attack, `Yes` and `Wave` to celebrate.
const FBX2GLTF: Family = Family {
    stem: "fbx2gltf_character",
    clips: &[
        ("CharacterArmature|Death", "die"),
        ("CharacterArmature|HitReact", "hit"),
        ("CharacterArmature|Idle", "idle"),
        ("CharacterArmature|Punch", "attack_slash"),
        ("CharacterArmature|Run", "run"),
        ("CharacterArmature|Walk", "walk"),
        ("CharacterArmature|Wave", "victory"),
        ("CharacterArmature|Weapon", "attack_thrust"),
        ("CharacterArmature|Yes", "victory"),
    ],
    fallbacks: &[],
};

/// Blender's export of a robot: inflected names, no hit reaction.
const BLENDER: Family = Family {
    stem: "blender_robot",
    clips: &[
        ("Dance", "victory"),
        ("Death", "die"),
        ("Idle", "idle"),
        ("Punch", "attack_slash"),
        ("Running", "run"),
        ("ThumbsUp", "victory"),
        ("Walking", "walk"),
        ("Wave", "victory"),
        ("Yes", "victory"),
    ],
    fallbacks: &[Role::Hit],
};

/// Mixamo animations merged in Blender: phrases, no victory.
const MIXAMO: Family = Family {
    stem: "mixamo_fighter",
    clips: &[
        ("Armature|Breathing Idle", "idle"),
        ("Armature|Walking", "walk"),
        ("Armature|Running", "run"),
        ("Armature|Punching", "attack_slash"),
        ("Armature|Mma Kick", "attack_thrust"),
        ("Armature|Hit Reaction", "hit"),
        ("Armature|Dying", "die"),
    ],
    fallbacks: &[Role::Victory],
};

/// Quaternius' own glTF: underscores, `HitRecieve` as spelled, no victory.
const QUATERNIUS: Family = Family {
    stem: "quaternius_knight",
    clips: &[
        ("Idle", "idle"),
        ("Walk", "walk"),
        ("Run", "run"),
        ("Sword_Slash", "attack_slash"),
        ("Punch_Left", "attack_thrust"),
        ("HitRecieve", "hit"),
        ("Death", "die"),
    ],
    fallbacks: &[Role::Victory],
};

/// KayKit: variant letters and weapon prefixes.
const KAYKIT: Family = Family {
    stem: "kaykit_rogue",
    clips: &[
        ("1H_Melee_Attack_Chop", "attack_slash"),
        ("Cheer", "victory"),
        ("Death_A", "die"),
        ("Hit_A", "hit"),
        ("Idle", "idle"),
        ("Running_A", "run"),
        ("Walking_A", "walk"),
    ],
    fallbacks: &[],
};

/// Synty: `A_` prefixes, direction and variant tags, no run, no victory.
const SYNTY: Family = Family {
    stem: "synty_soldier",
    clips: &[
        ("A_Idle_Base", "idle"),
        ("A_Walk_F_Masc", "walk"),
        ("A_Attack_Sword_01", "attack_slash"),
        ("A_Hit_F_01", "hit"),
        ("A_Death_F_01", "die"),
    ],
    fallbacks: &[Role::Run, Role::Victory],
};

fn options(models: Vec<PathBuf>, clip_map: Vec<ClipMapping>) -> BattleOptions {
    BattleOptions {
        units: 20,
        props: 2,
        seed: 3,
        encoding: horde::asset::BoneEncoding::Mat3x4F32,
        models,
        cache: CacheOptions::default(),
        rules: BattleRules::default(),
        clip_map,
    }
}

fn mappings(texts: &[&str]) -> Vec<ClipMapping> {
    texts
        .iter()
        .map(|text| text.parse().unwrap_or_else(|err| panic!("{text}: {err}")))
        .collect()
}

/// The clip of `state` in unit type `unit_type`'s controller.
fn state_clip(battle: &BattleScene, unit_type: usize, state: &str) -> String {
    let controller = battle.scene.controllers[unit_type]
        .as_ref()
        .expect("a controller");
    let index = controller.state_named(state).expect("the state") as usize;
    let clip = controller.states[index].clip as usize;
    battle.scene.unit_types[unit_type]
        .animation
        .as_ref()
        .expect("clips")
        .clips[clip]
        .name
        .clone()
}

#[test]
fn every_naming_family_fights_without_a_clip_map() {
    warnings();
    let dir = test_dir("families");
    for family in [FBX2GLTF, BLENDER, MIXAMO, QUATERNIUS, KAYKIT, SYNTY] {
        let path = knight_with_clips(&dir, family.stem, family.clips);
        let battle = battle_scene(&options(vec![path.clone()], Vec::new()))
            .unwrap_or_else(|err| panic!("{}: {err:#}", family.stem));
        assert_eq!(
            battle.armies,
            [
                format!("{} army (blue)", family.stem),
                format!("{} army (salmon)", family.stem)
            ]
        );
        let attack = state_clip(&battle, 0, "attack");
        assert!(
            family
                .clips
                .iter()
                .any(|&(name, source)| name == attack && source.starts_with("attack")),
            "{}: the attack plays {attack}",
            family.stem
        );
        let warned = warnings_about(&path.display().to_string());
        let warned_roles: Vec<&str> = Role::ALL
            .iter()
            .map(|role| role.name())
            .filter(|role| {
                let count = warned
                    .iter()
                    .filter(|line| line.contains(&format!("no {role} clip")))
                    .count();
                assert!(count <= 1, "{}: {role} warned {count} times", family.stem);
                count == 1
            })
            .collect();
        let expected: Vec<&str> = family.fallbacks.iter().map(|role| role.name()).collect();
        assert_eq!(warned_roles, expected, "{}: {warned:?}", family.stem);
        assert_eq!(warned.len(), expected.len(), "{warned:?}");
    }
}

#[test]
fn clip_maps_name_their_army_and_the_model_that_lacks_a_clip() {
    let dir = test_dir("per-army");
    let fbx = knight_with_clips(&dir, FBX2GLTF.stem, FBX2GLTF.clips);
    let blender = knight_with_clips(&dir, BLENDER.stem, BLENDER.clips);
    let models = vec![fbx.clone(), blender.clone()];

    // One mapping for both armies fails on the model without the clip.
    let err = battle_scene(&options(
        models.clone(),
        mappings(&["attack=CharacterArmature|Weapon"]),
    ))
    .err()
    .expect("the Blender robot has no such clip")
    .to_string();
    assert!(
        err.contains(&format!("{} (army 2) has no clip", blender.display())),
        "{err}"
    );
    assert!(
        err.contains("ThumbsUp") && err.contains("--clip-map 1:attack=CharacterArmature|Weapon"),
        "{err}"
    );

    // Per army, by number and by model name, each maps its own clips.
    let battle = battle_scene(&options(
        models.clone(),
        mappings(&[
            "1:attack=CharacterArmature|Weapon",
            "blender_robot:victory=Dance",
        ]),
    ))
    .expect("per-army mappings");
    assert_eq!(state_clip(&battle, 0, "attack"), "CharacterArmature|Weapon");
    assert_eq!(state_clip(&battle, 0, "victory"), "CharacterArmature|Yes");
    assert_eq!(state_clip(&battle, 1, "attack"), "Punch");
    assert_eq!(state_clip(&battle, 1, "victory"), "Dance");
    assert_eq!(
        battle.armies,
        ["fbx2gltf_character army", "blender_robot army"]
    );

    // A model name no army has, and two armies of one type mapped apart.
    let err = battle_scene(&options(models, mappings(&["goblin:attack=Punch"])))
        .err()
        .expect("no goblin")
        .to_string();
    assert!(err.contains("no army's model is named \"goblin\""), "{err}");
    let err = battle_scene(&options(
        vec![blender],
        mappings(&["1:victory=Dance", "2:victory=Wave"]),
    ))
    .err()
    .expect("one type cannot play two victories")
    .to_string();
    assert!(err.contains("both cast victory"), "{err}");
}

#[test]
fn a_character_without_attack_or_stance_is_refused() {
    let dir = test_dir("refused");
    let path = knight_with_clips(&dir, "dancer", &[("Idle", "idle"), ("Dance", "victory")]);
    let err = battle_scene(&options(vec![path.clone()], Vec::new()))
        .err()
        .expect("no attack")
        .to_string();
    assert!(
        err.contains(&path.display().to_string()) && err.contains("no clip for attack"),
        "{err}"
    );
}

#[test]
fn clip_map_arguments_are_checked() {
    let parsed: ClipMapping = "2:Attack=CharacterArmature|Punch".parse().expect("parses");
    assert_eq!(parsed.to_string(), "2:attack=CharacterArmature|Punch");
    for (text, expected) in [
        ("attack", "expected [ARMY:]role=clip"),
        ("3:attack=Punch", "army 3 does not exist"),
        ("0:attack=Punch", "army 0 does not exist"),
        ("dance=Dance", "unknown role \"dance\""),
        (":attack=Punch", "empty army"),
        ("attack=", "no clip name"),
    ] {
        let err = text.parse::<ClipMapping>().expect_err(text);
        assert!(err.contains(expected), "{text}: {err}");
    }
}

#[test]
fn armies_are_named_by_unit_type() {
    assert_eq!(
        army_names(&["knight", "skeleton"]),
        ["knight army", "skeleton army"]
    );
    assert_eq!(
        army_names(&["Knight", "Knight"]),
        ["Knight army (blue)", "Knight army (salmon)"]
    );
}

/// `battle --model` with the Blender robot, no `--clip-map`: the headless
/// battle runs on the GPU with validation on, warns once (no hit clip) and
/// reports its armies by unit type.
#[test]
fn battle_binary_fights_with_a_blender_character() {
    let dir = test_dir("binary");
    let model = knight_with_clips(&dir, BLENDER.stem, BLENDER.clips);
    let report = dir.join("report.json");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_battle"))
        .args([
            "--headless",
            "--units",
            "20",
            "--props",
            "2",
            "--frames",
            "6",
        ])
        .args(["--width", "64", "--height", "48", "--validation"])
        .arg("--model")
        .arg(&model)
        .arg("--report")
        .arg(&report)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run battle");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "battle failed:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let fell_back: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains(" clip; "))
        .collect();
    assert_eq!(fell_back.len(), 1, "{stderr}");
    assert!(fell_back[0].contains("no hit clip; hit plays the idle clip \"Idle\""));
    let json: Value =
        serde_json::from_slice(&std::fs::read(&report).expect("the report")).expect("JSON");
    assert_eq!(
        json["armies"],
        serde_json::json!(["blender_robot army (blue)", "blender_robot army (salmon)"])
    );
    assert_eq!(json["validation_errors"], 0, "{json}");
}
