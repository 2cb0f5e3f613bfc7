//! The battle demo's scene: two armies drawn up in lanes on opposite sides of
//! a field of props, the battle set up over them, and the camera presets.
//!
//! Layout: each army stands in `lanes` files side by side along z, `ranks`
//! deep along x; army 0 on the −x side facing +x, army 1 on the +x side
//! facing −x, a gap of [`GAP`] metres between their front ranks. Unit ids are
//! army 0's lanes in order, then army 1's, each lane front rank first: the
//! layout the battle pass expects (`horde_battle`). The lanes are
//! twice as many as the ranks are deep, so the front is wide and the armies
//! meet along a long line.
//!
//! Variety: every unit has its own scale (±8 %), tint and hit points; the
//! generated content's three knight variants (helmet, weapon, shield,
//! proportions) fight in one army and its three skeleton variants in the
//! other, mixed at random through the ranks; or the `--model` files do.

use std::path::PathBuf;

use anyhow::{bail, Result};
use glam::Vec3;
use horde::asset::{Asset, BoneEncoding};
use horde::camera::Camera;
use horde::gpu_types::AnimParams;
use horde::renderer::Renderer;
use horde::scene::{rgba8, Scene};
use horde::world::UnitSpawn;
use horde_bake::cache::CacheOptions;
use horde_battle::{Battle, BattleRules, BattleSetup, LaneSetup};

use crate::camera_rig::{preset_camera, Preset, SceneBounds};
use crate::clip_map::{cast_army_types, ArmyType, ClipMapping};
use crate::crowd::{
    field_prop, generated_unit_types, prop_types, scattered_prop, CrowdOptions, Rng,
};
use crate::window::HudLine;

/// Metres between the armies' front ranks when the battle begins.
pub const GAP: f32 = 30.0;
/// Units are scaled to stand this tall (before their ±8 % variety).
const UNIT_HEIGHT: f32 = 1.8;
/// Margin of open field around the armies, in metres.
const MARGIN: f32 = 40.0;

/// What the battle is made of.
#[derive(Clone, Debug)]
pub struct BattleOptions {
    pub units: u32,
    pub props: u32,
    pub seed: u64,
    pub encoding: BoneEncoding,
    /// glTF or `.horde` files of the armies' unit types (army 0 takes the
    /// first, army 1 the second, or both the only one); empty: the generated
    /// knight and skeleton.
    pub models: Vec<PathBuf>,
    pub cache: CacheOptions,
    pub rules: BattleRules,
    /// `[ARMY:]role=clip` mappings that override the clips the roles (idle,
    /// walk, run, attack, hit, die, victory) find by name.
    pub clip_map: Vec<ClipMapping>,
}

/// The scene with its battle, and where things stand.
pub struct BattleScene {
    /// The units, props and the battle, its simulation.
    pub scene: Scene,
    /// The battle's rules, as its simulation got them.
    pub rules: BattleRules,
    /// Files per army and their depth in ranks.
    pub lanes_per_army: u32,
    pub ranks: u32,
    /// Half the field's size (x, z), in metres.
    pub field_half_extent: f32,
    /// Half the armies' extent across the field (z).
    pub front_half_width: f32,
    /// The armies' names, by unit type ([`army_names`]).
    pub armies: [String; 2],
}

/// Files per army for `per_army` units: twice as wide as deep.
fn lanes_for(per_army: u32) -> u32 {
    ((per_army as f32 * 2.0).sqrt().ceil() as u32).clamp(1, per_army.max(1))
}

/// The generated variants of each army, by file stem in `assets/`.
const ARMY_VARIANTS: [[&str; 3]; 2] = [
    ["knight", "knight_2", "knight_3"],
    ["skeleton", "skeleton_2", "skeleton_3"],
];

/// The unit types, and the range of them each army draws from.
fn load_types(options: &BattleOptions) -> Result<(Vec<Asset>, [std::ops::Range<u32>; 2])> {
    if options.models.is_empty() {
        let names: Vec<&str> = ARMY_VARIANTS.iter().flatten().copied().collect();
        let types = generated_unit_types(
            &names,
            &CrowdOptions {
                units: options.units,
                encoding: options.encoding,
                lod_error: None,
                samples: false,
                seed: options.seed,
                cache: options.cache.clone(),
            },
        )?;
        return Ok((types, [0..3, 3..6]));
    }
    if options.models.len() > 2 {
        bail!(
            "--model was given {} times; a battle has two armies (give one or two)",
            options.models.len()
        );
    }
    let types = crate::crowd::models(&options.models, options.encoding, &options.cache)?;
    let last = types.len() as u32 - 1;
    Ok((types, [0..1, last..last + 1]))
}

/// Builds the armies, the props and the battle.
pub fn battle_scene(options: &BattleOptions) -> Result<BattleScene> {
    let (unit_types, army_types) = load_types(options)?;
    let army_types_of = unit_types
        .iter()
        .enumerate()
        .map(|(index, asset)| ArmyType {
            asset,
            armies: (0..2)
                .filter(|&army| army_types[army as usize].contains(&(index as u32)))
                .collect(),
            source: options
                .models
                .get(index)
                .map_or_else(|| asset.name.clone(), |path| path.display().to_string()),
        })
        .collect::<Vec<_>>();
    let controllers = cast_army_types(&army_types_of, &options.clip_map)?
        .into_iter()
        .map(Some)
        .collect();
    let names = army_names(
        &army_types
            .clone()
            .map(|types| unit_types[types.start as usize].name.as_str()),
    );
    let mut prop_types = prop_types(&options.cache)?;
    let scattered_types = prop_types.len() as u32;
    let mut rng = Rng::new(options.seed);
    let spacing = options.rules.spacing;
    let armies = [options.units.div_ceil(2), options.units / 2];
    let lanes_per_army = lanes_for(armies[0]);
    let ranks = armies[0].div_ceil(lanes_per_army);
    let lane_z = |lane: u32| (lane as f32 - (lanes_per_army - 1) as f32 / 2.0) * spacing;
    let mut units = Vec::with_capacity(options.units as usize);
    let mut lanes = Vec::new();
    let mut health = Vec::with_capacity(options.units as usize);
    for (army, &count) in armies.iter().enumerate() {
        let army = army as u32;
        let types = army_types[army as usize].clone();
        let (side, heading) = if army == 0 {
            (-1.0, std::f32::consts::FRAC_PI_2)
        } else {
            (1.0, -std::f32::consts::FRAC_PI_2)
        };
        let colour = if army == 0 {
            Vec3::new(0.55, 0.7, 1.0)
        } else {
            Vec3::new(1.0, 0.6, 0.5)
        };
        for lane in 0..lanes_per_army {
            let in_lane = count / lanes_per_army + u32::from(lane < count % lanes_per_army);
            if in_lane == 0 {
                continue;
            }
            lanes.push(LaneSetup {
                army,
                home_z: lane_z(lane),
                first_unit: units.len() as u32,
                unit_count: in_lane,
            });
            for rank in 0..in_lane {
                let unit_type = types.start + rng.below(types.len() as u32);
                let height = unit_types[unit_type as usize].bounds.height.max(1e-3);
                let x = side * (GAP / 2.0 + rank as f32 * spacing) + (rng.unit() - 0.5) * 0.4;
                let z = lane_z(lane) + (rng.unit() - 0.5) * 0.4;
                units.push(UnitSpawn {
                    unit_type,
                    team: army,
                    position: Vec3::new(x, 0.0, z),
                    heading,
                    scale: UNIT_HEIGHT / height * (0.92 + 0.16 * rng.unit()),
                    tint: rgba8(colour * (0.8 + 0.2 * rng.unit())),
                    params: AnimParams::default(),
                });
                health.push(90 + rng.below(41) as i32);
            }
        }
    }
    let depth = GAP / 2.0 + ranks as f32 * spacing;
    let front_half_width = lanes_per_army as f32 * spacing / 2.0;
    let field_half_extent = depth.max(front_half_width) + MARGIN;
    let mut props = Vec::with_capacity(options.props as usize + 1);
    for _ in 0..options.props {
        let prop_type = rng.below(scattered_types);
        // Props stand on the flanks and behind the armies, never where
        // units march.
        let mut position = Vec3::new(
            (rng.unit() * 2.0 - 1.0) * field_half_extent,
            0.0,
            (rng.unit() * 2.0 - 1.0) * field_half_extent,
        );
        if position.z.abs() < front_half_width + 4.0 {
            let flank = front_half_width + 4.0 + rng.unit() * (MARGIN - 8.0);
            position.z = if position.z < 0.0 { -flank } else { flank };
        }
        props.push(scattered_prop(&mut rng, &prop_types, prop_type, position));
    }
    props.push(field_prop(&mut prop_types, field_half_extent * 2.0 + 200.0));
    Ok(BattleScene {
        scene: Scene {
            controllers,
            unit_types,
            prop_types,
            units,
            props,
            simulation: Some(horde_battle::start(BattleSetup {
                rules: options.rules,
                lanes,
                health,
            })),
        },
        rules: options.rules,
        lanes_per_army,
        ranks,
        field_half_extent,
        front_half_width,
        armies: names,
    })
}

/// Names of the armies by their (first) unit type, "knight army"; where
/// both field one type, by the colour they are drawn in as well.
pub fn army_names(types: &[&str; 2]) -> [String; 2] {
    if types[0] == types[1] {
        [
            format!("{} army (blue)", types[0]),
            format!("{} army (salmon)", types[1]),
        ]
    } else {
        types.map(|name| format!("{name} army"))
    }
}

/// Camera presets of the battle, as the window's number keys have them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BattleCamera {
    /// High up and to the side, the whole battle in view (`1`).
    Overview,
    /// Along the front line, from above one end of it (`2`).
    Front,
    /// At eye height behind the first army, looking at the front (`3`).
    Ground,
}

impl BattleScene {
    /// Where the units stand: the box the camera presets frame.
    pub fn bounds(&self) -> SceneBounds {
        SceneBounds::around(self.scene.units.iter().map(|unit| unit.position), 2.0)
    }

    /// The camera of `preset` for this battle (the window's number keys).
    pub fn camera(&self, preset: BattleCamera) -> Camera {
        let preset = match preset {
            BattleCamera::Overview => Preset::Overview,
            BattleCamera::Front => Preset::FrontLine,
            BattleCamera::Ground => Preset::GroundLevel,
        };
        preset_camera(&self.bounds(), preset)
    }
}

/// Advances the battle by the frame's (scaled) time and tells the HUD how it
/// stands, naming the armies `armies` ([`BattleScene::armies`]).
pub fn battle_hud(renderer: &mut Renderer, dt: f32, armies: &[String; 2]) -> Vec<HudLine> {
    let Some(battle) = renderer.simulation_mut::<Battle>() else {
        return Vec::new();
    };
    battle.advance(dt);
    let line = |label: &str, value: String| HudLine {
        label: label.to_owned(),
        value,
    };
    let mut lines = vec![line("battle time", format!("{:.1} s", battle.seconds()))];
    if let Some(stats) = battle.stats {
        let alive = stats.counts.alive;
        for (army, alive) in armies.iter().zip(alive) {
            lines.push(line(&format!("{army} alive"), alive.to_string()));
        }
        lines.push(line("fighting", stats.counts.fighting.to_string()));
        let outcome = match alive {
            [0, 0] => Some("no army stands".to_owned()),
            [0, _] => Some(format!("{} wins", armies[1])),
            [_, 0] => Some(format!("{} wins", armies[0])),
            _ => None,
        };
        if let Some(outcome) = outcome {
            lines.push(line("outcome", outcome));
        }
    }
    lines
}
