//! The humanoid rig shared by every unit type.
//!
//! Layout: 21 joints in a fixed order ([`Joint::ALL`]); a joint's index is its
//! position in the glTF skin's `joints` array, and every parent precedes its
//! children, so one forward pass computes global transforms. The bind pose has
//! identity local rotations: each joint's local transform is a translation from
//! its parent, so the bind global of a joint is a pure translation to its model
//! position and its inverse bind matrix is the opposite translation.
//!
//! Coordinates: Y up, the unit faces +Z, metres, feet on y = 0. The unit's left is
//! +X, its right is -X. Arms hang slightly outward in the bind pose (an "A" pose),
//! because crowd clips rarely raise the arms and skin deforms least near its bind.
//!
//! Every joint also has a bone segment (head at the joint, tail where the bone
//! ends); skin weights are computed from vertex distances to these segments.

use glam::{Mat4, Quat, Vec3};

use super::random::Rng;

/// The joints of the humanoid rig, in skin order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Joint {
    Hips,
    Spine,
    Chest,
    Neck,
    Head,
    ShoulderL,
    UpperArmL,
    LowerArmL,
    HandL,
    ShoulderR,
    UpperArmR,
    LowerArmR,
    HandR,
    UpperLegL,
    LowerLegL,
    FootL,
    UpperLegR,
    LowerLegR,
    FootR,
    Weapon,
    Shield,
}

/// Number of joints in the rig.
pub const JOINT_COUNT: usize = 21;

impl Joint {
    pub const ALL: [Joint; JOINT_COUNT] = [
        Joint::Hips,
        Joint::Spine,
        Joint::Chest,
        Joint::Neck,
        Joint::Head,
        Joint::ShoulderL,
        Joint::UpperArmL,
        Joint::LowerArmL,
        Joint::HandL,
        Joint::ShoulderR,
        Joint::UpperArmR,
        Joint::LowerArmR,
        Joint::HandR,
        Joint::UpperLegL,
        Joint::LowerLegL,
        Joint::FootL,
        Joint::UpperLegR,
        Joint::LowerLegR,
        Joint::FootR,
        Joint::Weapon,
        Joint::Shield,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The glTF node name; the bake tool binds clips to joints by these names.
    pub fn name(self) -> &'static str {
        match self {
            Joint::Hips => "hips",
            Joint::Spine => "spine",
            Joint::Chest => "chest",
            Joint::Neck => "neck",
            Joint::Head => "head",
            Joint::ShoulderL => "shoulder_l",
            Joint::UpperArmL => "upper_arm_l",
            Joint::LowerArmL => "lower_arm_l",
            Joint::HandL => "hand_l",
            Joint::ShoulderR => "shoulder_r",
            Joint::UpperArmR => "upper_arm_r",
            Joint::LowerArmR => "lower_arm_r",
            Joint::HandR => "hand_r",
            Joint::UpperLegL => "upper_leg_l",
            Joint::LowerLegL => "lower_leg_l",
            Joint::FootL => "foot_l",
            Joint::UpperLegR => "upper_leg_r",
            Joint::LowerLegR => "lower_leg_r",
            Joint::FootR => "foot_r",
            Joint::Weapon => "weapon",
            Joint::Shield => "shield",
        }
    }

    /// The parent joint; `None` only for the root.
    pub fn parent(self) -> Option<Joint> {
        Some(match self {
            Joint::Hips => return None,
            Joint::Spine | Joint::UpperLegL | Joint::UpperLegR => Joint::Hips,
            Joint::Chest => Joint::Spine,
            Joint::Neck | Joint::ShoulderL | Joint::ShoulderR => Joint::Chest,
            Joint::Head => Joint::Neck,
            Joint::UpperArmL => Joint::ShoulderL,
            Joint::LowerArmL => Joint::UpperArmL,
            Joint::HandL => Joint::LowerArmL,
            Joint::UpperArmR => Joint::ShoulderR,
            Joint::LowerArmR => Joint::UpperArmR,
            Joint::HandR => Joint::LowerArmR,
            Joint::LowerLegL => Joint::UpperLegL,
            Joint::FootL => Joint::LowerLegL,
            Joint::LowerLegR => Joint::UpperLegR,
            Joint::FootR => Joint::LowerLegR,
            Joint::Weapon => Joint::HandR,
            Joint::Shield => Joint::HandL,
        })
    }

    /// Children in skin order.
    pub fn children(self) -> impl Iterator<Item = Joint> {
        Joint::ALL
            .into_iter()
            .filter(move |joint| joint.parent() == Some(self))
    }

    /// Props held by the hands; they are weighted rigidly and never blend.
    pub fn is_held_prop(self) -> bool {
        matches!(self, Joint::Weapon | Joint::Shield)
    }
}

/// Body measurements that vary per seed. All lengths in metres.
#[derive(Debug, Clone)]
pub struct Proportions {
    /// Overall scale against a 1.8 m reference body.
    pub height_scale: f32,
    /// Half the distance between the shoulder (upper arm) joints.
    pub shoulder_half_width: f32,
    /// Half the distance between the hip (upper leg) joints.
    pub hip_half_width: f32,
    /// Multiplier on limb and torso thickness.
    pub bulk: f32,
}

impl Proportions {
    /// Draws proportions around a base build; `bulk` centres the thickness range.
    pub fn random(rng: &mut Rng, bulk: f32) -> Self {
        Self {
            height_scale: rng.range(0.96, 1.04),
            shoulder_half_width: rng.range(0.18, 0.21),
            hip_half_width: rng.range(0.09, 0.11),
            bulk: bulk * rng.range(0.93, 1.07),
        }
    }
}

/// The rig in its bind pose: joint positions and bone segments in model space.
#[derive(Debug, Clone)]
pub struct Rig {
    /// Model-space position of each joint, indexed by [`Joint::index`].
    pub positions: [Vec3; JOINT_COUNT],
    /// Model-space end of each joint's bone segment.
    pub tails: [Vec3; JOINT_COUNT],
    pub proportions: Proportions,
}

impl Rig {
    pub fn new(proportions: Proportions) -> Self {
        let s = proportions.height_scale;
        let shoulder = proportions.shoulder_half_width;
        let hip = proportions.hip_half_width;
        // Reference positions for a 1.8 m body; the left side is +X.
        let mut positions = [Vec3::ZERO; JOINT_COUNT];
        let mut set = |joint: Joint, x: f32, y: f32, z: f32| {
            positions[joint.index()] = Vec3::new(x, y * s, z);
        };
        set(Joint::Hips, 0.0, 0.95, 0.0);
        set(Joint::Spine, 0.0, 1.06, 0.0);
        set(Joint::Chest, 0.0, 1.24, 0.0);
        set(Joint::Neck, 0.0, 1.50, 0.0);
        set(Joint::Head, 0.0, 1.58, 0.01);
        for (side, shoulder_joint, upper, lower, hand) in [
            (
                1.0,
                Joint::ShoulderL,
                Joint::UpperArmL,
                Joint::LowerArmL,
                Joint::HandL,
            ),
            (
                -1.0,
                Joint::ShoulderR,
                Joint::UpperArmR,
                Joint::LowerArmR,
                Joint::HandR,
            ),
        ] {
            set(shoulder_joint, side * 0.06, 1.44, 0.0);
            set(upper, side * shoulder, 1.43, 0.0);
            set(lower, side * (shoulder + 0.035), 1.15, 0.0);
            set(hand, side * (shoulder + 0.06), 0.89, 0.0);
        }
        for (side, upper, lower, foot) in [
            (1.0, Joint::UpperLegL, Joint::LowerLegL, Joint::FootL),
            (-1.0, Joint::UpperLegR, Joint::LowerLegR, Joint::FootR),
        ] {
            set(upper, side * hip, 0.91, 0.0);
            set(lower, side * hip, 0.50, 0.01);
            set(foot, side * hip, 0.09, 0.0);
        }
        let grip = Vec3::new(0.0, -0.075 * s, 0.0);
        positions[Joint::Weapon.index()] = positions[Joint::HandR.index()] + grip;
        positions[Joint::Shield.index()] = positions[Joint::HandL.index()] + grip;

        // Each bone ends at its (first) child; leaves get an explicit extent.
        let mut tails = [Vec3::ZERO; JOINT_COUNT];
        for joint in Joint::ALL {
            let head = positions[joint.index()];
            tails[joint.index()] = match joint {
                Joint::Hips => positions[Joint::Spine.index()],
                Joint::Chest => positions[Joint::Neck.index()],
                Joint::Head => head + Vec3::new(0.0, 0.2 * s, 0.0),
                Joint::HandL | Joint::HandR => head + Vec3::new(0.0, -0.1 * s, 0.0),
                Joint::FootL | Joint::FootR => head + Vec3::new(0.0, -0.06 * s, 0.14 * s),
                Joint::Weapon | Joint::Shield => head,
                _ => {
                    let child = joint
                        .children()
                        .next()
                        .expect("every non-leaf joint listed above has a child");
                    positions[child.index()]
                }
            };
        }
        Self {
            positions,
            tails,
            proportions,
        }
    }

    pub fn position(&self, joint: Joint) -> Vec3 {
        self.positions[joint.index()]
    }

    /// The bind-pose local translation of `joint` relative to its parent.
    pub fn local_translation(&self, joint: Joint) -> Vec3 {
        let parent_position = joint.parent().map_or(Vec3::ZERO, |p| self.position(p));
        self.position(joint) - parent_position
    }

    /// Inverse bind matrix of `joint`: the inverse of its bind global transform,
    /// which is the translation to its model position.
    pub fn inverse_bind(&self, joint: Joint) -> Mat4 {
        Mat4::from_translation(self.position(joint)).inverse()
    }

    /// Global joint transforms for local rotations `rotations` and a root
    /// translation offset `hips_offset` added to the hips' bind translation.
    pub fn global_transforms(
        &self,
        rotations: &[Quat; JOINT_COUNT],
        hips_offset: Vec3,
    ) -> [Mat4; JOINT_COUNT] {
        let mut globals = [Mat4::IDENTITY; JOINT_COUNT];
        for joint in Joint::ALL {
            let mut translation = self.local_translation(joint);
            if joint == Joint::Hips {
                translation += hips_offset;
            }
            let local = Mat4::from_rotation_translation(rotations[joint.index()], translation);
            globals[joint.index()] = match joint.parent() {
                Some(parent) => globals[parent.index()] * local,
                None => local,
            };
        }
        globals
    }
}
