//! Which shadow cascades a frame draws, and which it keeps from an earlier
//! frame (`RenderSettings::shadow_cascades_in_turn`).
//!
//! The nearest cascade is drawn every frame; the farther ones take turns,
//! one a frame. At the 1M presets cascades 1 and 2 cost 2.1-2.6 ms of a
//! 12.6-14.5 ms frame (H200, `benches/results/near_field/`), and their
//! texels are 0.2 m and more: a unit's step in a frame is a fraction of one.
//!
//! A kept cascade is looked up with the matrix it was drawn with: the
//! receivers' `FrameGlobals` carry each cascade as it was last drawn, not as
//! this frame's view fits it, and `shadow.glsl` picks the first cascade
//! whose map holds the receiver. So a kept cascade shows its casters where
//! they stood a frame ago, in the right place, and where the camera has
//! moved past what it covers, the next cascade (or none) answers. The fit
//! snaps each cascade to whole texels, so a camera moving without turning
//! keeps their grid.
//!
//! A cascade is drawn whatever its turn when its depths hold nothing the
//! receivers may use: on the first frame, after frames without shadows, and
//! when the cascade count changes. A replay draws the cascades its frame
//! drew (without advancing the turn), so a replay with the frame's settings
//! draws the frame again; the reference's settings draw every cascade.

use crate::shadow::Cascade;

/// The cascades the receivers' depths hold, and whose turn it is.
#[derive(Default)]
pub struct CascadeTurns {
    /// Per cascade: the cascade last drawn into the receivers' depths, while
    /// they hold it.
    kept: Vec<Option<Cascade>>,
    /// Frames drawn with shadows since the depths last held nothing.
    turn: u64,
}

/// One frame's cascades: those fitted to its view, which of them it draws,
/// and what the receivers look up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CascadePlan {
    /// The frame's view's cascades, nearest first.
    pub fitted: Vec<Cascade>,
    /// The cascades drawn, by index, ascending (cascade 0 whenever there
    /// are any).
    pub drawn: Vec<usize>,
    /// Per cascade, what the receivers look up: the fitted cascade where it
    /// is drawn, the kept one elsewhere.
    pub receivers: Vec<Cascade>,
}

impl CascadePlan {
    /// The cascades drawn, with their indices.
    pub fn draws(&self) -> impl Iterator<Item = (usize, &Cascade)> + '_ {
        self.drawn.iter().map(|&index| (index, &self.fitted[index]))
    }
}

impl CascadeTurns {
    /// Plans a frame whose view fits `fitted` (empty: no shadows). With
    /// `in_turn`, cascade 0 and one farther cascade in turn are drawn and
    /// the others kept; without, every one. `replay`: the frame is a replay
    /// of the last, whose turn it repeats.
    pub fn plan(&mut self, fitted: Vec<Cascade>, in_turn: bool, replay: bool) -> CascadePlan {
        if fitted.is_empty() {
            // A replay without shadows (the unit mask) leaves the depths.
            if !replay {
                self.kept.clear();
                self.turn = 0;
            }
            return CascadePlan::default();
        }
        if self.kept.len() != fitted.len() {
            self.kept = vec![None; fitted.len()];
        }
        if !replay {
            self.turn += 1;
        }
        let farther = fitted.len() as u64 - 1;
        let in_turn_now = |index: usize| farther > 0 && index as u64 == 1 + self.turn % farther;
        let drawn: Vec<usize> = (0..fitted.len())
            .filter(|&index| {
                !in_turn || index == 0 || self.kept[index].is_none() || in_turn_now(index)
            })
            .collect();
        for &index in &drawn {
            self.kept[index] = Some(fitted[index]);
        }
        // Every cascade is drawn now or kept.
        let receivers = self.kept.iter().flatten().copied().collect();
        CascadePlan {
            fitted,
            drawn,
            receivers,
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Mat4;

    use super::*;

    fn cascades(count: usize, frame: u32) -> Vec<Cascade> {
        (0..count)
            .map(|index| Cascade {
                view_proj: Mat4::from_translation(glam::vec3(frame as f32, index as f32, 0.0)),
                near: index as f32,
                far: index as f32 + 1.0,
                half_width: 1.0,
                depth_range: 1.0,
                map_size: 64,
            })
            .collect()
    }

    #[test]
    fn the_farther_cascades_take_turns_and_are_looked_up_as_drawn() {
        let mut turns = CascadeTurns::default();
        let first = turns.plan(cascades(3, 0), true, false);
        assert_eq!(first.drawn, [0, 1, 2], "nothing kept yet: every cascade");
        assert_eq!(first.receivers, first.fitted);
        let mut drawn_at = [0u32; 3];
        for frame in 1..=6 {
            let plan = turns.plan(cascades(3, frame), true, false);
            assert_eq!(plan.drawn.len(), 2, "frame {frame}: {:?}", plan.drawn);
            assert_eq!(plan.drawn[0], 0);
            for (index, drawn_at) in drawn_at.iter_mut().enumerate() {
                if plan.drawn.contains(&index) {
                    *drawn_at = frame;
                }
                // The receivers look each cascade up as it was drawn.
                assert_eq!(plan.receivers[index], cascades(3, *drawn_at)[index]);
                assert!(frame - *drawn_at <= 1, "cascade {index} kept two frames");
            }
            // A replay repeats its frame's cascades.
            let replay = turns.plan(cascades(3, frame), true, true);
            assert_eq!(replay.drawn, plan.drawn);
            assert_eq!(replay.receivers, plan.receivers);
        }
    }

    #[test]
    fn every_cascade_is_drawn_out_of_turn_or_after_frames_without_shadows() {
        let mut turns = CascadeTurns::default();
        turns.plan(cascades(3, 0), true, false);
        assert_eq!(turns.plan(cascades(3, 1), false, true).drawn, [0, 1, 2]);
        // The unit mask's replay has no shadows and keeps the depths.
        assert!(turns.plan(Vec::new(), true, true).drawn.is_empty());
        assert_eq!(turns.plan(cascades(3, 2), true, false).drawn.len(), 2);
        // A frame without shadows leaves nothing to keep.
        assert!(turns.plan(Vec::new(), true, false).receivers.is_empty());
        assert_eq!(turns.plan(cascades(3, 3), true, false).drawn, [0, 1, 2]);
        // Nor does a change of the cascade count.
        assert_eq!(turns.plan(cascades(2, 4), true, false).drawn, [0, 1]);
        // With two cascades the farther one's turn is every frame.
        assert_eq!(turns.plan(cascades(2, 5), true, false).drawn, [0, 1]);
        assert_eq!(turns.plan(cascades(1, 6), true, false).drawn, [0]);
    }
}
