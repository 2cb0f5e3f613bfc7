//! The frame-budget controller of the far field: adapts
//! `RenderSettings::far_field_px` so the GPU frame time meets a budget
//! (`RenderSettings::budget_ms`), from the profiler's timestamps.
//!
//! A larger far-field size sends more units from the raster (about 0.5 G
//! skinned vertices/s on an H100) to the compute rasterizer (about 100x
//! faster), so the frame time falls as the size grows; the controller
//! searches that monotonic curve. The control law, once per frame:
//! 1. Filter: an exponential moving average of the measured GPU frame
//!    milliseconds (`SMOOTHING`), since single frames are noisy and the
//!    measurement is `FRAMES_IN_FLIGHT` frames late.
//! 2. Dead band: within `DEAD_BAND` of the budget nothing changes, so a
//!    converged controller holds still instead of hunting.
//! 3. Step: multiplicative, `size *= (filtered / budget)^GAIN`, the ratio
//!    clamped to `1 / MAX_STEP..=MAX_STEP` per frame, and the size to
//!    `min_px..=max_px`. A gain below 1 and the rate limit damp it: with a
//!    two-frame delay an undamped proportional step overshoots and
//!    oscillates; this one approaches from one side.
//!
//! The test below simulates a crowd whose frame time falls with the
//! far-field size, with the measurement delay and noise, and checks that
//! it converges within the dead band without oscillating.

/// Weight of the newest measurement in the moving average.
pub const SMOOTHING: f32 = 0.25;
/// Relative distance from the budget within which the size holds.
pub const DEAD_BAND: f32 = 0.05;
/// Exponent of the multiplicative step.
pub const GAIN: f32 = 0.5;
/// Largest factor by which the size changes in one frame.
pub const MAX_STEP: f32 = 1.1;

/// The controller's state.
#[derive(Clone, Copy, Debug)]
pub struct BudgetController {
    /// Target GPU milliseconds per frame.
    pub budget_ms: f32,
    /// Bounds of the far-field size, pixels.
    pub min_px: f32,
    pub max_px: f32,
    /// The filtered frame time, once a frame was measured.
    filtered_ms: Option<f32>,
    /// The current far-field size.
    px: f32,
}

impl BudgetController {
    /// A controller for `budget_ms` starting at `start_px` within
    /// `min_px..=max_px`.
    pub fn new(budget_ms: f32, start_px: f32, min_px: f32, max_px: f32) -> BudgetController {
        let min_px = min_px.max(f32::MIN_POSITIVE);
        let max_px = max_px.max(min_px);
        BudgetController {
            budget_ms: budget_ms.max(f32::MIN_POSITIVE),
            min_px,
            max_px,
            filtered_ms: None,
            px: start_px.clamp(min_px, max_px),
        }
    }

    /// The current far-field size.
    pub fn far_field_px(&self) -> f32 {
        self.px
    }

    /// Takes one frame's measured GPU milliseconds and returns the size for
    /// the next frame. Non-finite or non-positive measurements are ignored.
    pub fn update(&mut self, measured_ms: f32) -> f32 {
        if !(measured_ms.is_finite() && measured_ms > 0.0) {
            return self.px;
        }
        let filtered = match self.filtered_ms {
            Some(previous) => previous + SMOOTHING * (measured_ms - previous),
            None => measured_ms,
        };
        self.filtered_ms = Some(filtered);
        let ratio = filtered / self.budget_ms;
        if (ratio - 1.0).abs() <= DEAD_BAND {
            return self.px;
        }
        let step = ratio.powf(GAIN).clamp(1.0 / MAX_STEP, MAX_STEP);
        self.px = (self.px * step).clamp(self.min_px, self.max_px);
        self.px
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crowd whose projected unit sizes spread log-uniformly over
    /// 1..1000 px: the units larger than the far-field size are drawn as
    /// meshes (expensive), the rest by the far field (cheap).
    fn frame_ms(px: f32) -> f32 {
        let units = 1.0e6f32;
        let fraction_far = (px.max(1.0).ln() / 1000f32.ln()).clamp(0.0, 1.0);
        let mesh_ms_per_unit = 150.0 / units;
        let far_ms_per_unit = 1.5 / units;
        1.0 + units * ((1.0 - fraction_far) * mesh_ms_per_unit + fraction_far * far_ms_per_unit)
    }

    /// Runs `frames` frames with a two-frame measurement delay and ±3 %
    /// deterministic noise; returns the sizes and frame times.
    fn simulate(budget_ms: f32, start_px: f32, frames: usize) -> (Vec<f32>, Vec<f32>) {
        let mut controller = BudgetController::new(budget_ms, start_px, 1.0, 1000.0);
        let mut sizes = Vec::new();
        let mut times = Vec::new();
        let mut seed = 7u32;
        for frame in 0..frames {
            let px = controller.far_field_px();
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let noise = 1.0 + 0.03 * ((seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0);
            times.push(frame_ms(px) * noise);
            sizes.push(px);
            if frame >= 2 {
                controller.update(times[frame - 2]);
            }
        }
        (sizes, times)
    }

    #[test]
    fn converges_to_the_budget_from_either_side() {
        for (budget, start) in [(40.0, 12.0), (40.0, 600.0), (100.0, 2.0), (10.0, 12.0)] {
            let (sizes, _) = simulate(budget, start, 400);
            let settled = frame_ms(*sizes.last().unwrap());
            assert!(
                (settled / budget - 1.0).abs() < 2.0 * DEAD_BAND,
                "budget {budget} from {start} px: {settled:.2} ms at {:.2} px",
                sizes.last().unwrap()
            );
        }
    }

    #[test]
    fn holds_still_once_converged() {
        let (sizes, _) = simulate(40.0, 12.0, 600);
        // Over the last 300 frames: no more than a few small corrections,
        // and never a reversal of direction back and forth (hunting).
        let tail = &sizes[300..];
        let changes = tail.windows(2).filter(|w| w[0] != w[1]).count();
        let reversals = tail
            .windows(3)
            .filter(|w| (w[1] - w[0]) * (w[2] - w[1]) < 0.0)
            .count();
        let spread = tail.iter().fold(0.0f32, |a, &b| a.max(b))
            / tail.iter().fold(f32::MAX, |a, &b| a.min(b));
        assert!(changes <= 10, "{changes} changes after convergence");
        assert!(reversals <= 2, "{reversals} reversals after convergence");
        assert!(spread < 1.25, "size spread {spread}");
    }

    #[test]
    fn ignores_bad_measurements_and_stays_in_bounds() {
        let mut controller = BudgetController::new(16.0, 12.0, 4.0, 64.0);
        assert_eq!(controller.update(f32::NAN), 12.0);
        assert_eq!(controller.update(-1.0), 12.0);
        for _ in 0..200 {
            controller.update(1000.0);
        }
        assert_eq!(controller.far_field_px(), 64.0);
        for _ in 0..400 {
            controller.update(0.1);
        }
        assert_eq!(controller.far_field_px(), 4.0);
    }
}
