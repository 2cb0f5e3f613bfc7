//! Which shadow cascades a frame draws, and which it keeps from an earlier
//! frame (`RenderSettings::shadow_cascades_in_turn`).
//!
//! The nearest cascade is drawn every frame; the farther ones take turns,
//! one a frame. At the 1M presets cascades 1 and 2 cost 2.1-2.6 ms of a
//! 12-14.5 ms frame (H200, `benches/results/near_field/` section 24), and
//! their casters are far from the camera: a frame-old far cascade does not
//! show there.
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
//! receivers may use: on the first frame, after frames without shadows,
//! when the cascade count changes, and when keeping it would show casters
//! more than [`MAX_KEPT_SECONDS`] old (frames rendered further apart, as
//! `battle --render-every 10` does, draw every cascade). A replay draws the
//! cascades its frame drew (without advancing the turn), so a replay with
//! the frame's settings draws the frame again; the reference's settings
//! draw every cascade.

use crate::shadow::Cascade;

/// The oldest a kept cascade's casters may be, seconds of the frames' `dt`:
/// a frame of 20 fps. At 30 fps the 1M and 10k presets' last frames with
/// cascades in turn were the same pictures as without
/// (`benches/results/near_field/` section 24); at `--render-every 200` (a
/// frame every 6.7 s) a kept cascade showed a regiment's shadow where it
/// had stood a frame before.
pub const MAX_KEPT_SECONDS: f32 = 0.05;

/// The cascades the receivers' depths hold, and whose turn it is.
#[derive(Default)]
pub struct CascadeTurns {
    /// Per cascade: the cascade last drawn into the receivers' depths, while
    /// they hold it, and the seconds of frames since.
    kept: Vec<Option<(Cascade, f32)>>,
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
    /// Plans a frame whose view fits `fitted` (empty: no shadows), `dt`
    /// seconds after the last. With `in_turn`, cascade 0 and one farther
    /// cascade in turn are drawn and the others kept, where they are at
    /// most [`MAX_KEPT_SECONDS`] old; without, every one. `replay`: the
    /// frame is a replay of the last, whose turn it repeats (its `dt` is 0).
    pub fn plan(
        &mut self,
        fitted: Vec<Cascade>,
        dt: f32,
        in_turn: bool,
        replay: bool,
    ) -> CascadePlan {
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
            for (_, age) in self.kept.iter_mut().flatten() {
                *age += dt;
            }
        }
        let farther = fitted.len() as u64 - 1;
        let in_turn_now = |index: usize| farther > 0 && index as u64 == 1 + self.turn % farther;
        let keepable =
            |kept: &Option<(Cascade, f32)>| kept.is_some_and(|(_, age)| age <= MAX_KEPT_SECONDS);
        let drawn: Vec<usize> = (0..fitted.len())
            .filter(|&index| {
                !in_turn || index == 0 || !keepable(&self.kept[index]) || in_turn_now(index)
            })
            .collect();
        for &index in &drawn {
            self.kept[index] = Some((fitted[index], 0.0));
        }
        // Every cascade is drawn now or kept.
        let receivers = self
            .kept
            .iter()
            .flatten()
            .map(|(cascade, _)| *cascade)
            .collect();
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

    /// A frame of 30 fps.
    const FRAME: f32 = 1.0 / 30.0;

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
        let first = turns.plan(cascades(3, 0), FRAME, true, false);
        assert_eq!(first.drawn, [0, 1, 2], "nothing kept yet: every cascade");
        assert_eq!(first.receivers, first.fitted);
        let mut drawn_at = [0u32; 3];
        for frame in 1..=6 {
            let plan = turns.plan(cascades(3, frame), FRAME, true, false);
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
            let replay = turns.plan(cascades(3, frame), 0.0, true, true);
            assert_eq!(replay.drawn, plan.drawn);
            assert_eq!(replay.receivers, plan.receivers);
        }
    }

    #[test]
    fn every_cascade_is_drawn_out_of_turn_or_after_frames_without_shadows() {
        let mut turns = CascadeTurns::default();
        turns.plan(cascades(3, 0), FRAME, true, false);
        assert_eq!(
            turns.plan(cascades(3, 1), 0.0, false, true).drawn,
            [0, 1, 2]
        );
        // The unit mask's replay has no shadows and keeps the depths.
        assert!(turns.plan(Vec::new(), 0.0, true, true).drawn.is_empty());
        assert_eq!(
            turns.plan(cascades(3, 2), FRAME, true, false).drawn.len(),
            2
        );
        // A frame without shadows leaves nothing to keep.
        assert!(turns
            .plan(Vec::new(), FRAME, true, false)
            .receivers
            .is_empty());
        assert_eq!(
            turns.plan(cascades(3, 3), FRAME, true, false).drawn,
            [0, 1, 2]
        );
        // Nor does a change of the cascade count.
        assert_eq!(turns.plan(cascades(2, 4), FRAME, true, false).drawn, [0, 1]);
        // With two cascades the farther one's turn is every frame.
        assert_eq!(turns.plan(cascades(2, 5), FRAME, true, false).drawn, [0, 1]);
        assert_eq!(turns.plan(cascades(1, 6), FRAME, true, false).drawn, [0]);
    }

    #[test]
    fn frames_further_apart_than_the_kept_age_draw_every_cascade() {
        let mut turns = CascadeTurns::default();
        turns.plan(cascades(3, 0), FRAME, true, false);
        for frame in 1..4 {
            let plan = turns.plan(cascades(3, frame), 2.0 * MAX_KEPT_SECONDS, true, false);
            assert_eq!(plan.drawn, [0, 1, 2], "frame {frame}");
        }
        // Two short frames: a cascade kept over one of them, drawn after.
        assert_eq!(
            turns
                .plan(cascades(3, 4), 0.6 * MAX_KEPT_SECONDS, true, false)
                .drawn
                .len(),
            2
        );
        assert_eq!(
            turns
                .plan(cascades(3, 5), 0.6 * MAX_KEPT_SECONDS, true, false)
                .drawn
                .len(),
            2
        );
    }
}
