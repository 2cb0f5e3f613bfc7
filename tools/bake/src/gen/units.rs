//! Knights and skeletons: rig, body parts, held weapon and shield, per seed.
//!
//! A unit is built in its bind pose directly in model space: every part is placed
//! relative to the rig's joint positions, so proportions drawn from the seed move
//! the parts with the joints. Body parts bind `Smooth` to the joint whose bone
//! they cover and blend into neighbouring bones near joints; helmets and skulls
//! bind rigidly to the head, and weapons and shields rigidly to their own joints,
//! so they never bend or leave the hand.
//!
//! Held items are modelled in their joint's frame: the grip is at the joint, a
//! weapon's business end points along +Z (forward when the forearm is raised),
//! and a shield's face looks along -Y (forward when the forearm is raised);
//! `units/held.rs` builds them.

use std::f32::consts::PI;

use glam::{Mat4, Quat, Vec3};

use super::atlas::Cell;
use super::clips::{all_clips, Clip, Temperament};
use super::random::Rng;
use super::rig::{Joint, Proportions, Rig};
use super::shapes::{Binding, MeshData, Placement};
use super::skinning::{skin_weights, SkinWeights};

mod held;

/// Distance over which skin weights blend across a joint, metres.
const BLEND_RADIUS: f32 = 0.07;

/// A generated, rigged and animated unit.
#[derive(Debug, Clone)]
pub struct Unit {
    pub rig: Rig,
    pub mesh: MeshData,
    pub skin: SkinWeights,
    pub clips: Vec<Clip>,
    /// The seed-chosen variants, for logs: helmet, weapon and shield kinds.
    pub variants: Vec<&'static str>,
}

/// Which unit type to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    Knight,
    Skeleton,
}

pub fn build_unit(kind: UnitKind, seed: u64) -> Unit {
    let mut rng = Rng::new(seed, kind as u64 + 1);
    let (bulk, temperament) = match kind {
        UnitKind::Knight => (
            1.0,
            Temperament {
                hunch: 0.0,
                arm_swing: 1.0,
                body_radius: 0.13,
            },
        ),
        UnitKind::Skeleton => (
            0.45,
            Temperament {
                hunch: 14.0,
                arm_swing: 1.3,
                body_radius: 0.08,
            },
        ),
    };
    let rig = Rig::new(Proportions::random(&mut rng, bulk));
    let mut body = Body {
        rig: &rig,
        mesh: MeshData::default(),
        rng,
        variants: Vec::new(),
    };
    match kind {
        UnitKind::Knight => body.knight(),
        UnitKind::Skeleton => body.skeleton(),
    }
    let skin = skin_weights(&rig, &body.mesh, BLEND_RADIUS);
    let clips = all_clips(&rig, &temperament);
    Unit {
        mesh: body.mesh,
        skin,
        clips,
        variants: body.variants,
        rig,
    }
}

struct Body<'a> {
    rig: &'a Rig,
    mesh: MeshData,
    rng: Rng,
    variants: Vec<&'static str>,
}

/// Sides as (sign of X, shoulder, upper arm, lower arm, hand, upper leg, lower leg, foot).
const SIDES: [(f32, [Joint; 7]); 2] = [
    (
        1.0,
        [
            Joint::ShoulderL,
            Joint::UpperArmL,
            Joint::LowerArmL,
            Joint::HandL,
            Joint::UpperLegL,
            Joint::LowerLegL,
            Joint::FootL,
        ],
    ),
    (
        -1.0,
        [
            Joint::ShoulderR,
            Joint::UpperArmR,
            Joint::LowerArmR,
            Joint::HandR,
            Joint::UpperLegR,
            Joint::LowerLegR,
            Joint::FootR,
        ],
    ),
];

impl Body<'_> {
    fn at(&self, joint: Joint) -> Vec3 {
        self.rig.position(joint)
    }

    fn bulk(&self) -> f32 {
        self.rig.proportions.bulk
    }

    /// A capsule limb from `from` to `to`, binding smoothly to `joint`.
    fn limb(&mut self, joint: Joint, from: Vec3, to: Vec3, radii: (f32, f32), cell: Cell) {
        let placement = Placement::along(from, to, Vec3::ONE, cell, Binding::Smooth(joint));
        // Thin bones need fewer sides to look round at crowd distances.
        let (columns, rows) = if radii.0 < 0.03 { (8, 10) } else { (12, 12) };
        self.mesh.capsule(
            columns,
            rows,
            placement,
            from.distance(to),
            radii.0,
            radii.1,
        );
    }

    /// A sphere of radii `radii` centred at `centre`.
    fn ball(&mut self, centre: Vec3, radii: Vec3, cell: Cell, binding: Binding) {
        let placement = Placement::new(
            Mat4::from_scale_rotation_translation(radii, Quat::IDENTITY, centre),
            cell,
            binding,
        );
        let (columns, rows) = if radii.max_element() < 0.04 {
            (8, 6)
        } else {
            (12, 8)
        };
        self.mesh.sphere(columns, rows, placement);
    }

    fn block(&mut self, centre: Vec3, half: Vec3, cell: Cell, binding: Binding) {
        let placement = Placement::new(Mat4::from_translation(centre), cell, binding);
        self.mesh.cuboid(2, placement, half);
    }

    /// An open ring of the torso: a lathe from `bottom` to `top` height with an
    /// elliptical cross-section (depth/width ratio `depth`), radius by `profile`.
    fn torso_ring(
        &mut self,
        bottom: f32,
        top: f32,
        depth: f32,
        cell: Cell,
        binding: Binding,
        profile: impl Fn(f32) -> f32,
    ) {
        let placement = Placement::new(Mat4::from_scale(Vec3::new(1.0, 1.0, depth)), cell, binding);
        self.mesh.lathe(20, 8, placement, |v| {
            (profile(v), bottom + (top - bottom) * v)
        });
    }

    fn knight(&mut self) {
        let b = self.bulk();
        let team = if self.rng.unit() < 0.5 {
            Cell::CLOTH_RED
        } else {
            Cell::CLOTH_BLUE
        };
        let hips = self.at(Joint::Hips);
        let spine = self.at(Joint::Spine);
        let chest = self.at(Joint::Chest);
        let neck = self.at(Joint::Neck);
        let head = self.at(Joint::Head);

        // Skirt of mail under a tabard, belt, abdomen and breastplate.
        self.torso_ring(
            hips.y - 0.24,
            spine.y - 0.02,
            0.78,
            team,
            Binding::Smooth(Joint::Hips),
            |v| b * (0.2 - 0.04 * v),
        );
        self.torso_ring(
            spine.y - 0.06,
            spine.y + 0.01,
            0.8,
            Cell::LEATHER,
            Binding::Smooth(Joint::Hips),
            |_| b * 0.17,
        );
        self.torso_ring(
            spine.y - 0.04,
            chest.y + 0.04,
            0.74,
            Cell::STEEL,
            Binding::Smooth(Joint::Spine),
            |v| b * (0.155 + 0.02 * v),
        );
        self.torso_ring(
            chest.y - 0.02,
            neck.y + 0.02,
            0.72,
            Cell::STEEL,
            Binding::Smooth(Joint::Chest),
            |v| {
                // Widest across the chest, rounding in to the neck.
                b * (0.175 + 0.04 * (PI * v * 0.8).sin() - 0.11 * v.powi(4))
            },
        );
        // A gold cross on the breastplate.
        let plate_front = chest.z + b * 0.72 * 0.2;
        self.block(
            Vec3::new(0.0, chest.y + 0.1, plate_front),
            Vec3::new(0.018, 0.09, 0.012),
            Cell::GOLD,
            Binding::Smooth(Joint::Chest),
        );
        self.block(
            Vec3::new(0.0, chest.y + 0.13, plate_front),
            Vec3::new(0.06, 0.018, 0.012),
            Cell::GOLD,
            Binding::Smooth(Joint::Chest),
        );
        self.limb(
            Joint::Neck,
            neck - Vec3::Y * 0.03,
            head + Vec3::Y * 0.04,
            (0.06 * b, 0.055 * b),
            Cell::DARK_STEEL,
        );

        for (side, [_, upper_arm, lower_arm, hand, upper_leg, lower_leg, foot]) in SIDES {
            let (elbow, wrist) = (self.at(lower_arm), self.at(hand));
            let (hip, knee, ankle) = (self.at(upper_leg), self.at(lower_leg), self.at(foot));
            let shoulder_ball = self.at(upper_arm);
            self.ball(
                shoulder_ball + Vec3::new(side * 0.015, 0.02, 0.0),
                Vec3::new(0.095, 0.075, 0.1) * b,
                Cell::STEEL,
                Binding::Smooth(upper_arm),
            );
            self.limb(
                upper_arm,
                shoulder_ball,
                elbow,
                (0.052 * b, 0.047 * b),
                Cell::DARK_STEEL,
            );
            self.ball(
                elbow + Vec3::new(0.0, 0.0, -0.01),
                Vec3::splat(0.05 * b),
                Cell::STEEL,
                Binding::Smooth(lower_arm),
            );
            self.limb(lower_arm, elbow, wrist, (0.047 * b, 0.04 * b), Cell::STEEL);
            self.block(
                wrist - Vec3::Y * 0.045,
                Vec3::new(0.032, 0.05, 0.045) * b,
                Cell::DARK_STEEL,
                Binding::Smooth(hand),
            );

            self.limb(
                upper_leg,
                hip,
                knee,
                (0.078 * b, 0.062 * b),
                Cell::DARK_STEEL,
            );
            self.ball(
                knee + Vec3::new(0.0, 0.0, 0.025),
                Vec3::new(0.058, 0.06, 0.05) * b,
                Cell::STEEL,
                Binding::Smooth(lower_leg),
            );
            self.limb(lower_leg, knee, ankle, (0.058 * b, 0.045 * b), Cell::STEEL);
            let sole_half_height = ankle.y * 0.5;
            self.block(
                Vec3::new(ankle.x, sole_half_height, ankle.z + 0.04),
                Vec3::new(0.05 * b, sole_half_height, 0.11),
                Cell::DARK_STEEL,
                Binding::Smooth(foot),
            );
        }
        self.knight_helmet(head, team);
        self.weapon(Cell::STEEL, Cell::GOLD);
        if self.rng.unit() < 0.6 {
            self.variants.push("round shield");
            let radius = self.rng.range(0.26, 0.3);
            self.round_shield(radius, Some(team));
        } else {
            self.variants.push("tower shield");
            self.tower_shield(team);
        }
    }

    fn knight_helmet(&mut self, head: Vec3, team: Cell) {
        let b = self.bulk();
        let rigid = Binding::Rigid(Joint::Head);
        let crown = head + Vec3::Y * 0.1;
        match self.rng.index(3) {
            0 => {
                self.variants.push("great helm");
                let placement = Placement::new(
                    Mat4::from_scale_rotation_translation(
                        Vec3::new(1.0, 1.0, 1.08),
                        Quat::IDENTITY,
                        head - Vec3::Y * 0.04,
                    ),
                    Cell::STEEL,
                    rigid,
                );
                self.mesh
                    .cylinder(20, 4, placement, 0.26, 0.112 * b.max(0.9), 0.1 * b.max(0.9));
                let face = head.z + 0.118;
                self.block(
                    Vec3::new(0.0, crown.y, face),
                    Vec3::new(0.085, 0.012, 0.01),
                    Cell::SHADOW,
                    rigid,
                );
                self.block(
                    Vec3::new(0.0, crown.y - 0.05, face),
                    Vec3::new(0.012, 0.05, 0.008),
                    Cell::GOLD,
                    rigid,
                );
            }
            1 => {
                self.variants.push("bascinet");
                self.ball(crown, Vec3::new(0.115, 0.14, 0.125), Cell::STEEL, rigid);
                // Pointed visor: a cone jutting forward, with eye slits above it.
                let visor_base = crown + Vec3::new(0.0, -0.04, 0.07);
                let placement = Placement::along(
                    visor_base,
                    visor_base + Vec3::Z,
                    Vec3::ONE,
                    Cell::STEEL,
                    rigid,
                );
                self.mesh.cylinder(12, 3, placement, 0.13, 0.075, 0.01);
                self.block(
                    crown + Vec3::new(0.0, 0.025, 0.115),
                    Vec3::new(0.07, 0.01, 0.012),
                    Cell::SHADOW,
                    rigid,
                );
            }
            _ => {
                self.variants.push("kettle hat");
                self.ball(
                    crown + Vec3::Y * 0.01,
                    Vec3::new(0.11, 0.11, 0.115),
                    Cell::STEEL,
                    rigid,
                );
                self.ball(
                    head + Vec3::new(0.0, 0.06, 0.04),
                    Vec3::new(0.085, 0.09, 0.085),
                    Cell::SHADOW,
                    rigid,
                );
                let brim = Placement::new(Mat4::from_translation(crown), Cell::STEEL, rigid);
                self.mesh.cylinder(24, 1, brim, 0.012, 0.19, 0.17);
            }
        }
        if self.rng.unit() < 0.5 {
            self.variants.push("plume");
            self.ball(
                crown + Vec3::new(0.0, 0.16, -0.03),
                Vec3::new(0.025, 0.07, 0.11),
                team,
                rigid,
            );
        }
    }

    fn skeleton(&mut self) {
        let bone = 0.022;
        let hips = self.at(Joint::Hips);
        let spine = self.at(Joint::Spine);
        let chest = self.at(Joint::Chest);
        let neck = self.at(Joint::Neck);
        let head = self.at(Joint::Head);

        // Pelvis and tattered loincloth.
        self.ball(
            hips - Vec3::Y * 0.03,
            Vec3::new(0.13, 0.07, 0.08),
            Cell::BONE,
            Binding::Smooth(Joint::Hips),
        );
        // The hem is torn into tatters: its height dips in a sawtooth around the waist.
        let (waist, hem) = (hips.y + 0.01, hips.y - 0.24);
        let placement = Placement::new(
            Mat4::from_scale(Vec3::new(1.0, 1.0, 0.7)),
            Cell::RAGS,
            Binding::Smooth(Joint::Hips),
        );
        self.mesh.surface(28, 4, placement, |u, v| {
            let angle = 2.0 * PI * u;
            let tatter = 0.09 * (7.0 * u).fract();
            let height = hem + tatter + (waist - hem - tatter) * v;
            let radius = 0.17 - 0.03 * v;
            Vec3::new(radius * angle.cos(), height, -radius * angle.sin())
        });

        // Vertebrae from pelvis to skull, each bound to the bone it sits on.
        let vertebrae = 9;
        for index in 0..vertebrae {
            let t = index as f32 / (vertebrae - 1) as f32;
            let centre = hips.lerp(neck + Vec3::Y * 0.06, t) - Vec3::Z * 0.04;
            let joint = if centre.y < spine.y {
                Joint::Hips
            } else if centre.y < chest.y {
                Joint::Spine
            } else if centre.y < neck.y {
                Joint::Chest
            } else {
                Joint::Neck
            };
            self.ball(
                centre,
                Vec3::new(0.028, 0.018, 0.024),
                Cell::DARK_BONE,
                Binding::Smooth(joint),
            );
        }

        // Ribs: pairs of arcs from the spine round to the sternum, shortening
        // towards the bottom of the cage.
        let ribs = 5;
        for index in 0..ribs {
            let t = index as f32 / (ribs - 1) as f32;
            let height = chest.y + 0.2 - 0.21 * t;
            let width = 0.13 - 0.015 * (2.0 * t - 1.0).powi(2) * 2.0;
            let depth = 0.1 - 0.01 * t;
            for side in [1.0f32, -1.0] {
                let placement =
                    Placement::new(Mat4::IDENTITY, Cell::BONE, Binding::Smooth(Joint::Chest));
                self.mesh.tube(
                    5,
                    10,
                    placement,
                    |v| {
                        let angle = PI * (0.05 + 0.85 * v);
                        Vec3::new(
                            side * width * angle.sin(),
                            height - 0.05 * (1.0 - v),
                            -depth * angle.cos() - 0.01,
                        )
                    },
                    |_| 0.011,
                );
            }
        }
        self.block(
            Vec3::new(0.0, chest.y + 0.07, 0.095),
            Vec3::new(0.018, 0.11, 0.01),
            Cell::BONE,
            Binding::Smooth(Joint::Chest),
        );

        // Skull: cranium, eye sockets, nose hole and jaw.
        let rigid = Binding::Rigid(Joint::Head);
        let cranium = head + Vec3::new(0.0, 0.11, 0.0);
        self.ball(cranium, Vec3::new(0.095, 0.105, 0.115), Cell::BONE, rigid);
        for side in [1.0f32, -1.0] {
            self.ball(
                cranium + Vec3::new(side * 0.038, -0.025, 0.09),
                Vec3::new(0.028, 0.024, 0.022),
                Cell::SHADOW,
                rigid,
            );
        }
        self.ball(
            cranium + Vec3::new(0.0, -0.06, 0.105),
            Vec3::new(0.012, 0.016, 0.01),
            Cell::SHADOW,
            rigid,
        );
        self.block(
            head + Vec3::new(0.0, 0.02, 0.05),
            Vec3::new(0.055, 0.022, 0.05),
            Cell::DARK_BONE,
            rigid,
        );
        let helm = match self.rng.index(3) {
            0 => None,
            1 => Some(("rusty helm", Cell::RUST, false)),
            _ => Some(("horned helm", Cell::DARK_STEEL, true)),
        };
        self.variants
            .push(helm.map_or("bare skull", |(variant, _, _)| variant));
        if let Some((_, metal, horned)) = helm {
            self.ball(
                cranium + Vec3::Y * 0.02,
                Vec3::new(0.108, 0.1, 0.125),
                metal,
                rigid,
            );
            if horned {
                for side in [1.0f32, -1.0] {
                    let base = cranium + Vec3::new(side * 0.09, 0.04, 0.0);
                    let tip = base + Vec3::new(side * 0.08, 0.12, 0.03);
                    let placement = Placement::along(base, tip, Vec3::ONE, Cell::BONE, rigid);
                    self.mesh
                        .cylinder(8, 3, placement, base.distance(tip), 0.025, 0.004);
                }
            }
        }

        for (side, [shoulder, upper_arm, lower_arm, hand, upper_leg, lower_leg, foot]) in SIDES {
            let (collar, arm_top, elbow, wrist) = (
                self.at(shoulder),
                self.at(upper_arm),
                self.at(lower_arm),
                self.at(hand),
            );
            let (hip, knee, ankle) = (self.at(upper_leg), self.at(lower_leg), self.at(foot));
            self.limb(shoulder, collar, arm_top, (0.015, 0.015), Cell::BONE);
            self.ball(
                arm_top,
                Vec3::splat(0.034),
                Cell::BONE,
                Binding::Smooth(upper_arm),
            );
            self.limb(upper_arm, arm_top, elbow, (bone, bone * 0.85), Cell::BONE);
            self.ball(
                elbow,
                Vec3::splat(0.028),
                Cell::DARK_BONE,
                Binding::Smooth(lower_arm),
            );
            // Two forearm bones (radius and ulna) side by side.
            for offset in [-0.013f32, 0.013] {
                let shift = Vec3::new(0.0, 0.0, offset);
                self.limb(
                    lower_arm,
                    elbow + shift,
                    wrist + shift,
                    (0.012, 0.01),
                    Cell::BONE,
                );
            }
            self.block(
                wrist - Vec3::Y * 0.04,
                Vec3::new(0.02, 0.045, 0.035),
                Cell::BONE,
                Binding::Smooth(hand),
            );

            self.ball(
                hip,
                Vec3::splat(0.036),
                Cell::BONE,
                Binding::Smooth(upper_leg),
            );
            self.limb(upper_leg, hip, knee, (bone * 1.2, bone), Cell::BONE);
            self.ball(
                knee,
                Vec3::new(0.034, 0.03, 0.034),
                Cell::DARK_BONE,
                Binding::Smooth(lower_leg),
            );
            self.limb(lower_leg, knee, ankle, (bone, bone * 0.8), Cell::BONE);
            let sole_half_height = ankle.y * 0.35;
            self.block(
                Vec3::new(ankle.x + side * 0.005, sole_half_height, ankle.z + 0.05),
                Vec3::new(0.035, sole_half_height, 0.1),
                Cell::BONE,
                Binding::Smooth(foot),
            );
            self.ball(
                ankle,
                Vec3::splat(0.03),
                Cell::DARK_BONE,
                Binding::Smooth(foot),
            );
        }
        self.weapon(Cell::RUST, Cell::DARK_STEEL);
        if self.rng.unit() < 0.5 {
            self.variants.push("buckler");
            self.round_shield(0.2, None);
        } else {
            self.variants.push("no shield");
        }
    }
}
