//! The keyframed clips: the attacks, the hit, the death and the victory,
//! each a few key stances from the guard stance, eased between.

use super::*;

/// Easing between two key stances.
#[derive(Debug, Clone, Copy)]
pub(super) enum Ease {
    /// Slow out, slow in: ordinary motion.
    Smooth,
    /// Accelerating: strikes and falls.
    In,
    /// Decelerating: recoils and settling.
    Out,
}

impl Ease {
    fn apply(self, t: f32) -> f32 {
        match self {
            Ease::Smooth => t * t * (3.0 - 2.0 * t),
            Ease::In => t * t,
            Ease::Out => 1.0 - (1.0 - t) * (1.0 - t),
        }
    }
}

/// A key stance at a phase, reached from the previous key with an easing.
pub(super) type Key = (f32, Stance, Ease);

pub(super) fn keyed(keys: &[Key], phase: f32) -> Stance {
    let next = keys
        .iter()
        .position(|key| key.0 >= phase)
        .unwrap_or(keys.len() - 1);
    if next == 0 {
        return keys[0].1;
    }
    let (start, from, _) = keys[next - 1];
    let (end, to, ease) = keys[next];
    let t = ((phase - start) / (end - start)).clamp(0.0, 1.0);
    from.lerp(&to, ease.apply(t))
}

/// Overhead slash: wind the weapon up behind the right shoulder with the torso
/// turned away, then whip it down and across while stepping into it.
pub(super) fn slash_keys(guard: &Stance) -> Vec<Key> {
    let wind_up = guard.with(&[
        (Dof::ChestYaw, -25.0),
        (Dof::SpineYaw, -15.0),
        (Dof::SpineLean, -8.0),
        (Dof::HeadYaw, 15.0),
        (Dof::ArmSwingR, 155.0),
        (Dof::ArmSpreadR, 25.0),
        (Dof::ElbowR, 80.0),
        (Dof::WristR, 10.0),
        (Dof::ShrugR, 15.0),
        (Dof::ArmSwingL, 45.0),
        (Dof::LegSwingR, -12.0),
        (Dof::LegSwingL, 12.0),
    ]);
    let strike = guard.with(&[
        (Dof::ChestYaw, 30.0),
        (Dof::SpineYaw, 15.0),
        (Dof::SpineLean, 18.0),
        (Dof::HeadLean, -10.0),
        (Dof::ArmSwingR, 45.0),
        (Dof::ArmSpreadR, -25.0),
        (Dof::ElbowR, 5.0),
        (Dof::WristR, -55.0),
        (Dof::ArmSwingL, -10.0),
        (Dof::ArmSpreadL, 25.0),
        (Dof::HipsForward, 0.15),
        (Dof::LegSwingL, 30.0),
        (Dof::KneeL, 35.0),
        (Dof::LegSwingR, -20.0),
        (Dof::KneeR, 10.0),
    ]);
    vec![
        (0.0, *guard, Ease::Smooth),
        (0.35, wind_up, Ease::Smooth),
        (0.42, wind_up.add(&[(Dof::ArmSwingR, 8.0)]), Ease::Out),
        (0.56, strike, Ease::In),
        (0.68, strike.add(&[(Dof::ArmSwingR, -5.0)]), Ease::Out),
        (1.0, *guard, Ease::Smooth),
    ]
}

/// Lunging thrust: draw the weapon back along the hip, then drive it straight
/// forward at chest height with the arm extended and the front knee bent.
pub(super) fn thrust_keys(guard: &Stance) -> Vec<Key> {
    let draw = guard.with(&[
        (Dof::ChestYaw, -30.0),
        (Dof::SpineYaw, -10.0),
        (Dof::ArmSwingR, -35.0),
        (Dof::ArmSpreadR, 15.0),
        (Dof::ElbowR, 110.0),
        (Dof::WristR, -75.0),
        (Dof::ArmSwingL, 50.0),
        (Dof::LegSwingR, -15.0),
        (Dof::KneeR, 25.0),
        (Dof::LegSwingL, 15.0),
        (Dof::KneeL, 25.0),
        (Dof::HipsForward, -0.08),
    ]);
    let lunge = guard.with(&[
        (Dof::ChestYaw, 20.0),
        (Dof::SpineLean, 15.0),
        (Dof::ArmSwingR, 85.0),
        (Dof::ArmSpreadR, -5.0),
        (Dof::ElbowR, 5.0),
        (Dof::WristR, -88.0),
        (Dof::ArmSwingL, 10.0),
        (Dof::ArmSpreadL, 30.0),
        (Dof::LegSwingL, 45.0),
        (Dof::KneeL, 60.0),
        (Dof::LegSwingR, -30.0),
        (Dof::KneeR, 5.0),
        (Dof::HipsForward, 0.3),
    ]);
    vec![
        (0.0, *guard, Ease::Smooth),
        (0.35, draw, Ease::Smooth),
        (0.5, lunge, Ease::In),
        (0.65, lunge, Ease::Smooth),
        (1.0, *guard, Ease::Smooth),
    ]
}

/// A flinch: snap back from a blow to the chest, arms thrown out, then recover.
pub(super) fn hit_keys(guard: &Stance) -> Vec<Key> {
    let recoil = guard.with(&[
        (Dof::SpineLean, -20.0),
        (Dof::ChestLean, -12.0),
        (Dof::ChestYaw, 15.0),
        (Dof::HeadLean, -30.0),
        (Dof::HeadRoll, 10.0),
        (Dof::ArmSpreadR, 65.0),
        (Dof::ArmSwingR, 50.0),
        (Dof::ArmSpreadL, 55.0),
        (Dof::HipsForward, -0.1),
        (Dof::KneeL, 25.0),
        (Dof::KneeR, 25.0),
        (Dof::LegSwingL, 15.0),
        (Dof::LegSwingR, 15.0),
    ]);
    vec![
        (0.0, *guard, Ease::Smooth),
        (0.2, recoil, Ease::Out),
        (1.0, *guard, Ease::Smooth),
    ]
}

/// A backward fall: knees buckle, the body topples with gravity's acceleration,
/// bounces once on impact and lies still on its back, limbs splayed. The last
/// fifth of the clip holds the final pose.
pub(super) fn die_keys(guard: &Stance) -> Vec<Key> {
    let buckle = guard.with(&[
        (Dof::SpineLean, 15.0),
        (Dof::HeadLean, -30.0),
        (Dof::ArmSpreadR, 30.0),
        (Dof::ArmSpreadL, 30.0),
        (Dof::KneeL, 45.0),
        (Dof::KneeR, 40.0),
        (Dof::LegSwingL, 25.0),
        (Dof::LegSwingR, 20.0),
        (Dof::HipsForward, -0.05),
    ]);
    let lying = Stance([0.0; DOF_COUNT]).with(&[
        (Dof::HipsLean, -90.0),
        (Dof::HipsForward, -0.85),
        (Dof::HeadYaw, 35.0),
        (Dof::HeadLean, 5.0),
        (Dof::ArmSwingR, 20.0),
        (Dof::ArmSpreadR, 70.0),
        (Dof::ElbowR, 25.0),
        // The weapon turns to lie along the arm instead of pointing at the sky.
        (Dof::WristR, -85.0),
        (Dof::ArmSwingL, 10.0),
        (Dof::ArmSpreadL, 55.0),
        (Dof::ElbowL, 40.0),
        (Dof::LegSwingL, 10.0),
        (Dof::KneeL, 20.0),
        (Dof::LegSpreadL, 12.0),
        (Dof::LegSpreadR, 8.0),
        (Dof::AnkleL, -20.0),
        (Dof::AnkleR, -30.0),
    ]);
    let bounce = lying.add(&[
        (Dof::HipsLean, 7.0),
        (Dof::SpineLean, 6.0),
        (Dof::HeadLean, 10.0),
    ]);
    vec![
        (0.0, *guard, Ease::Smooth),
        (0.2, buckle, Ease::Out),
        (0.62, lying, Ease::In),
        (0.7, bounce, Ease::Out),
        (0.8, lying, Ease::In),
        (1.0, lying, Ease::Smooth),
    ]
}

/// Victory: thrust the weapon straight up, pump it twice, and hold it aloft.
pub(super) fn victory_keys(guard: &Stance) -> Vec<Key> {
    let raised = guard.with(&[
        (Dof::SpineLean, -6.0),
        (Dof::HeadLean, -20.0),
        (Dof::ArmSwingR, 165.0),
        (Dof::ArmSpreadR, 15.0),
        (Dof::ElbowR, 10.0),
        (Dof::WristR, -85.0),
        (Dof::ShrugR, 10.0),
        (Dof::ArmSwingL, 30.0),
        (Dof::ArmSpreadL, 55.0),
        (Dof::ElbowL, 50.0),
    ]);
    let pump = raised.add(&[
        (Dof::ElbowR, 55.0),
        (Dof::ArmSwingR, -25.0),
        (Dof::KneeL, 20.0),
        (Dof::KneeR, 20.0),
        (Dof::LegSwingL, 10.0),
        (Dof::LegSwingR, 10.0),
    ]);
    vec![
        (0.0, *guard, Ease::Smooth),
        (0.2, raised, Ease::Out),
        (0.35, pump, Ease::Smooth),
        (0.5, raised, Ease::Out),
        (0.65, pump, Ease::Smooth),
        (0.8, raised, Ease::Out),
        (1.0, raised, Ease::Smooth),
    ]
}
