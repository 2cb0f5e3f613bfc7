//! The battle demo's scene: two armies drawn up in regiments by the battle
//! plan (`horde_battle::plan`: a centre in rows, two wings, a reserve) on
//! opposite sides of a field of props, the battle set up over them, and the
//! camera presets.
//!
//! Layout: army 0 on the −x side facing +x, army 1 on the +x side facing
//! −x, a gap of [`GAP`] metres between their front rows, the front running
//! along z. Unit ids are army 0's regiments in order, then army 1's, each
//! regiment slot by slot: the layout the battle pass expects.
//!
//! The stage follows the armies' size (`stage.rs`): fog, field and draw
//! distance from the armies' box ([`BattleLayout::bounds`]) and the camera
//! presets on it. Props stand around the armies, in a ring as wide as a
//! tenth of the armies' extent (at least `MARGIN`), never in the armies'
//! box and never in a preset camera's view of the armies
//! ([`ViewCorridors`]): a candidate position that is draws again, up to
//! `PROP_TRIES` times, after which the prop is left out.
//!
//! Variety: every unit has its own scale (±8 %), tint and hit points; the
//! generated content's three knight variants (helmet, weapon, shield,
//! proportions) fight in one army and its three skeleton variants in the
//! other, one variant per regiment, chosen by the seed; or the `--model`
//! files do.

use std::path::PathBuf;

use anyhow::{bail, Result};
use glam::Vec3;
use horde::asset::{Asset, BoneEncoding};
use horde::camera::Camera;
use horde::gpu_types::AnimParams;
use horde::renderer::Renderer;
use horde::scene::{rgba8, static_asset, PropPlacement, Scene};
use horde::world::UnitSpawn;
use horde_bake::cache::CacheOptions;
use horde_battle::config::{
    STATE_ADVANCING, STATE_CHARGING, STATE_ENGAGED, STATE_FLED, STATE_HOLDING, STATE_PURSUING,
    STATE_ROUTING,
};
use horde_battle::fronts::melee_fronts;
pub use horde_battle::plan::GAP;
use horde_battle::plan::{battle_plan, plan_extent, regiment_size, BattlePlan, PlanExtent};
use horde_battle::terrain::Terrain;
use horde_battle::{Battle, BattleRules, BattleStats};

use crate::clip_map::{cast_army_types, ArmyType, ClipMapping};
use crate::crowd::{
    field_prop, generated_unit_types, prop_types, scattered_prop, CrowdOptions, Rng,
};
use crate::ground_texture::tinted_meadow;
use crate::presets::{preset_camera, Preset, SceneBounds};
use crate::stage::{Stage, ViewCorridors};
use crate::window::HudLine;

/// Units are scaled to stand this tall (before their ±8 % variety).
const UNIT_HEIGHT: f32 = 1.8;
/// The least width of the ring of props around the armies, in metres.
const MARGIN: f32 = 40.0;
/// The field's colour (linear): a darker green than the crowd scene's, so
/// that both armies, the pale skeletons too, stand out against it when
/// their units are a pixel each.
const FIELD_TINT: Vec3 = Vec3::new(0.13, 0.2, 0.07);
/// Positions a prop draws before it is left out.
const PROP_TRIES: u32 = 32;
/// Metres around the armies' box no prop stands in.
const PROP_CLEARANCE: f32 = 4.0;

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
    /// Regiments per army, and units in a regiment (about).
    pub regiments_per_army: [u32; 2],
    pub regiment_size: u32,
    /// Half the field's size (x, z), in metres.
    pub field_half_extent: f32,
    /// Half the armies' extent across the field (z).
    pub front_half_width: f32,
    /// The armies' names, by unit type ([`army_names`]).
    pub armies: [String; 2],
    /// The ground the battle is fought on (the battle's own copy is on the
    /// GPU).
    pub terrain: Terrain,
    /// Where the armies stand.
    pub layout: BattleLayout,
    /// Fog, field and draw distance for the armies' size.
    pub stage: Stage,
}

/// Where the armies stand, from the unit count and spacing alone (no
/// assets): what the presets, the fog and the props' keep-out are built
/// from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BattleLayout {
    /// Half the extent (x, z) of the box the armies stand in, and where
    /// the presets' stretch of front begins (`horde_battle::plan::plan_extent`).
    pub extent: PlanExtent,
    /// Metres between neighbouring slots.
    pub spacing: f32,
}

impl BattleLayout {
    /// The layout of `units` units (half per army, army 0 the odd one) at
    /// `spacing` metres.
    pub fn new(units: u32, spacing: f32) -> BattleLayout {
        let spacing = if spacing.is_finite() {
            spacing.clamp(0.01, 100.0)
        } else {
            1.6
        };
        BattleLayout {
            extent: plan_extent(units, spacing),
            spacing,
        }
    }

    /// Half the armies' extent across the field (z), in metres.
    pub fn front_half_width(&self) -> f32 {
        self.extent.half_extent[1]
    }

    /// The box the armies stand in, with the jitter of their places and 2 m
    /// of margin: what the camera presets frame.
    pub fn bounds(&self) -> SceneBounds {
        let [half_x, half_z] = self.extent.half_extent;
        SceneBounds {
            center: Vec3::ZERO,
            half_extent: Vec3::new(half_x + 2.2, 0.0, half_z + 2.2),
            front_near_end: Some(self.extent.front_stretch_start),
        }
    }
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

/// Builds the armies as the battle plan draws them up from the seed, the
/// props and the battle.
pub fn battle_scene(options: &BattleOptions) -> Result<BattleScene> {
    let layout = BattleLayout::new(options.units, options.rules.spacing);
    let rules = BattleRules {
        spacing: layout.spacing,
        ..options.rules
    };
    let mut plan = battle_plan(options.units, options.seed, rules);
    // Hills and valleys under the whole field.
    let field_half = Stage::for_armies(&layout.bounds()).field_size / 2.0;
    plan.setup.terrain = Terrain::generate(options.seed, field_half, RELIEF);
    battle_scene_of(options, plan)
}

/// The default battle's relief, lowest to highest ground, in metres
/// (less on a small field: `Terrain::generate`).
pub const RELIEF: f32 = 24.0;

/// Builds the armies of `plan` (tests draw up their own), the props and the
/// battle, on the plan's terrain; `options.units` and `options.rules` are
/// the plan's.
pub fn battle_scene_of(options: &BattleOptions, plan: BattlePlan) -> Result<BattleScene> {
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
    let rules = plan.setup.rules;
    let layout = BattleLayout::new(plan.units.len() as u32, rules.spacing);
    let colours = [Vec3::new(0.55, 0.7, 1.0), Vec3::new(1.0, 0.6, 0.5)];
    let regiment_types: Vec<u32> = plan
        .setup
        .regiments
        .iter()
        .map(|regiment| {
            let types = &army_types[regiment.army.min(1) as usize];
            types.start + rng.below(types.len() as u32)
        })
        .collect();
    let terrain = plan.setup.terrain.clone();
    let mut units = Vec::with_capacity(plan.units.len());
    for unit in &plan.units {
        let unit_type = regiment_types[unit.regiment as usize];
        let height = unit_types[unit_type as usize].bounds.height.max(1e-3);
        units.push(UnitSpawn {
            unit_type,
            team: unit.army,
            position: Vec3::new(
                unit.position[0],
                terrain.height(unit.position),
                unit.position[1],
            ),
            heading: unit.heading,
            scale: UNIT_HEIGHT / height * (0.92 + 0.16 * rng.unit()),
            tint: rgba8(colours[unit.army.min(1) as usize] * (0.8 + 0.2 * rng.unit())),
            params: AnimParams::default(),
        });
    }
    let mut regiments_per_army = [0u32; 2];
    for regiment in &plan.setup.regiments {
        regiments_per_army[regiment.army.min(1) as usize] += 1;
    }
    let bounds = layout.bounds();
    let mut stage = Stage::for_armies(&bounds);
    stage.environment.ground_bottom = terrain.heights.iter().copied().fold(0.0, f32::min);
    stage.environment.ground_top = terrain.heights.iter().copied().fold(0.0, f32::max);
    let corridors = ViewCorridors::new(&bounds);
    let front_half_width = layout.front_half_width();
    let half = bounds.half_extent;
    let ring = MARGIN.max(bounds.radius() * 0.1);
    let (reach_x, reach_z) = (half.x + ring, half.z + ring);
    let mut props = Vec::with_capacity(options.props as usize + 1);
    let mut left_out = 0u32;
    for _ in 0..options.props {
        let prop_type = rng.below(scattered_types);
        let bounds = &prop_types[prop_type as usize].bounds;
        let placed = (0..PROP_TRIES).find_map(|_| {
            let (x, z) = (
                (rng.unit() * 2.0 - 1.0) * reach_x,
                (rng.unit() * 2.0 - 1.0) * reach_z,
            );
            let position = Vec3::new(x, terrain.height([x, z]), z);
            let prop = scattered_prop(&mut rng, &prop_types, prop_type, position);
            let (center, radius) = prop_sphere(bounds, &prop);
            let inside = position.x.abs() < half.x + PROP_CLEARANCE
                && position.z.abs() < half.z + PROP_CLEARANCE;
            (!inside && !corridors.blocked(center, radius)).then_some(prop)
        });
        match placed {
            Some(prop) => props.push(prop),
            None => left_out += 1,
        }
    }
    if left_out > 0 {
        log::info!("{left_out} props found no place outside the armies and their views");
    }
    let (ground_texture, tint) = tinted_meadow(options.seed, FIELD_TINT);
    let field = if terrain.heights.iter().all(|&h| h == 0.0) {
        field_prop(&mut prop_types, stage.field_size, tint)
    } else {
        terrain_prop(&mut prop_types, &terrain, tint)
    };
    let ground_prop_types = vec![field.prop_type];
    props.push(field);
    Ok(BattleScene {
        scene: Scene {
            controllers,
            unit_types,
            prop_types,
            units,
            props,
            simulation: Some(horde_battle::start(plan.setup)),
            ground_prop_types,
            ground_texture: Some(ground_texture),
        },
        rules,
        regiments_per_army,
        regiment_size: regiment_size(plan.units.len().div_ceil(2) as u32),
        field_half_extent: stage.field_size / 2.0,
        front_half_width,
        armies: names,
        layout,
        stage,
        terrain,
    })
}

/// The ground's prop: the terrain's mesh, where it lies, tinted by height
/// from a darker green in the valleys to a paler, drier one on the
/// hilltops (the mesh's V is its relative height), times `tint`.
fn terrain_prop(prop_types: &mut Vec<Asset>, terrain: &Terrain, tint: u32) -> PropPlacement {
    let mut asset = static_asset("terrain", &terrain.mesh());
    let ramp: Vec<u8> = (0..TERRAIN_RAMP_TEXELS)
        .flat_map(|texel| {
            let t = (texel as f32 + 0.5) / TERRAIN_RAMP_TEXELS as f32;
            let colour = TERRAIN_LOW.lerp(TERRAIN_HIGH, t) * 255.0;
            let [r, g, b] = colour.round().to_array().map(|c| c as u8);
            // Two texels a row, so the ramp is never sampled across an edge.
            [r, g, b, 255, r, g, b, 255]
        })
        .collect();
    asset.textures.push(horde::asset::Texture {
        width: 2,
        height: TERRAIN_RAMP_TEXELS,
        rgba8: ramp,
    });
    asset.materials[0].base_color_texture = Some(0);
    prop_types.push(asset);
    PropPlacement {
        prop_type: prop_types.len() as u32 - 1,
        position: Vec3::ZERO,
        heading: 0.0,
        scale: 1.0,
        tint,
    }
}

/// The ground's colour ramp (sRGB in 0..=1, times the field's tint): from the
/// lowest ground to the highest, in this many texels.
const TERRAIN_LOW: Vec3 = Vec3::new(0.74, 0.85, 0.68);
const TERRAIN_HIGH: Vec3 = Vec3::new(1.0, 0.96, 0.78);
const TERRAIN_RAMP_TEXELS: u32 = 32;

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

/// A placed prop's bounding sphere, its centre and radius: its type's sphere
/// scaled, its offset counted into the radius across the ground (so the
/// prop's heading does not matter).
pub fn prop_sphere(
    bounds: &horde::asset::Bounds,
    prop: &horde::world::PropPlacement,
) -> (Vec3, f32) {
    let [x, y, z] = bounds.sphere_center;
    let across = Vec3::new(x, 0.0, z).length();
    (
        prop.position + Vec3::Y * y * prop.scale,
        (bounds.sphere_radius + across) * prop.scale,
    )
}

/// Camera presets of the battle, as the window's number keys have them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BattleCamera {
    /// Both armies whole, from high up across the front line (`1`).
    Overview,
    /// Along the front line, from above and beyond its end (`2`).
    Front,
    /// At eye height at the front line's end, looking along it (`3`).
    Ground,
}

impl BattleCamera {
    /// The rig's preset of this camera.
    pub fn preset(self) -> Preset {
        match self {
            BattleCamera::Overview => Preset::Overview,
            BattleCamera::Front => Preset::FrontLine,
            BattleCamera::Ground => Preset::GroundLevel,
        }
    }
}

impl BattleScene {
    /// Where the armies stand: the box the camera presets frame.
    pub fn bounds(&self) -> SceneBounds {
        self.layout.bounds()
    }

    /// The camera of `preset` for this battle (the window's number keys),
    /// for an image `width` x `height`: the preset over flat ground, its eye
    /// and its target lifted by the terrain's height under each.
    pub fn camera(&self, preset: BattleCamera, width: u32, height: u32) -> Camera {
        let aspect = width as f32 / height.max(1) as f32;
        let flat = preset_camera(&self.bounds(), preset.preset(), aspect);
        let lift = |p: Vec3| p + Vec3::Y * self.terrain.height([p.x, p.z]);
        Camera {
            position: lift(flat.position),
            target: lift(flat.target),
            ..flat
        }
    }
}

/// Regiments of one army by what they are doing, as the HUD and the report
/// show them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RegimentsByState {
    /// Holding their ground (reserves, the rallied, the winners).
    pub holding: u32,
    /// Advancing, charging or pursuing.
    pub advancing: u32,
    pub engaged: u32,
    /// Routing or fled.
    pub routing: u32,
    pub destroyed: u32,
}

impl RegimentsByState {
    /// Army `army`'s regiments by state, from the battle's counts.
    pub fn of(stats: &BattleStats, army: usize) -> RegimentsByState {
        let count = |state: u32| stats.counts.regiments[army][state as usize];
        RegimentsByState {
            holding: count(STATE_HOLDING),
            advancing: count(STATE_ADVANCING) + count(STATE_CHARGING) + count(STATE_PURSUING),
            engaged: count(STATE_ENGAGED),
            routing: count(STATE_ROUTING) + count(STATE_FLED),
            destroyed: count(horde_battle::config::STATE_DESTROYED),
        }
    }
}

/// The army left standing once the other has no regiment that fights, as
/// the battle last counted (None while both fight, or when neither does).
pub fn winner(stats: &BattleStats) -> Option<u32> {
    match stats.counts.standing {
        [0, 0] => None,
        [0, _] => Some(1),
        [_, 0] => Some(0),
        _ => None,
    }
}

/// What the marks debug view's colours mean (`MARK_*` of the battle's
/// config).
pub const STATE_COLOURS: &str = "holding grey, advancing blue, charging orange, engaged red, \
                                 pursuing purple, routing yellow, fled brown, fallen dark";

/// Advances the battle by the frame's (scaled) time and tells the HUD how it
/// stands, naming the armies `armies` ([`BattleScene::armies`]).
pub fn battle_hud(renderer: &mut Renderer, dt: f32, armies: &[String; 2]) -> Vec<HudLine> {
    let marks_shown = renderer.settings.color_by_mark;
    let Some(battle) = renderer.simulation_mut::<Battle>() else {
        return Vec::new();
    };
    battle.advance(dt);
    let line = |label: &str, value: String| HudLine {
        label: label.to_owned(),
        value,
    };
    let mut lines = vec![line("battle time", format!("{:.1} s", battle.seconds()))];
    if marks_shown {
        lines.push(line("marks (M)", STATE_COLOURS.to_owned()));
    }
    if let Some(stats) = &battle.stats {
        for (army, name) in armies.iter().enumerate() {
            let by_state = RegimentsByState::of(stats, army);
            lines.push(line(
                &format!("{name} alive"),
                stats.counts.alive[army].to_string(),
            ));
            lines.push(line(
                &format!("{name} regiments"),
                format!(
                    "{} advancing, {} engaged, {} routing, {} holding, {} destroyed",
                    by_state.advancing,
                    by_state.engaged,
                    by_state.routing,
                    by_state.holding,
                    by_state.destroyed
                ),
            ));
        }
        lines.push(line("fighting", stats.counts.fighting.to_string()));
        lines.push(line(
            "melee fronts",
            melee_fronts(&stats.regiments).to_string(),
        ));
        lines.push(line(
            "flank, rear attacks",
            format!(
                "{}, {}",
                stats.totals.flank_attacks, stats.totals.rear_attacks
            ),
        ));
        lines.push(line(
            "routs, rallies",
            format!("{}, {}", stats.totals.routs, stats.totals.rallies),
        ));
        let outcome = match (winner(stats), stats.counts.standing) {
            (Some(army), _) => Some(format!("{} wins", armies[army as usize])),
            (None, [0, 0]) => Some("no army stands".to_owned()),
            _ => None,
        };
        if let Some(outcome) = outcome {
            lines.push(line("outcome", outcome));
        }
    }
    lines
}
