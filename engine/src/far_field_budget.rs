//! The frame-budget controller: adapts the far-field size
//! (`RenderSettings::far_field_px`) and with it the LOD threshold, so the
//! GPU frame time meets a budget (`RenderSettings::budget_ms`), from the
//! profiler's timestamps (or a cost model, `BudgetSource`).
//!
//! A larger far-field size sends more units from the raster (about 0.5 G
//! skinned vertices/s on an H100) to the compute rasterizer (about 100x
//! faster), and a larger LOD threshold gives every unit a coarser LOD, so
//! the frame time falls as the size grows; the controller searches that
//! monotonic curve. One variable moves both: the LOD threshold is scaled by
//! `(size / start size)^LOD_THRESHOLD_EXPONENT`, so at the size the user
//! chose the user's threshold holds, and under pressure detail goes
//! everywhere a little rather than all at once.
//!
//! The control law: step, then look. A frame's time is known
//! `FRAMES_IN_FLIGHT` frames after it was recorded, and the curve can be
//! steep (in a battle, halving the frame time can take a 1.4x larger
//! size), so a controller that steps every frame on a lagging (or
//! filtered) measurement overshoots and settles into a limit cycle. This
//! one:
//! 1. After a change, ignores the `FRAMES_IN_FLIGHT` measurements of frames
//!    recorded before it, then averages the next `SAMPLES` (noise).
//! 2. Dead band: with the average between `1 - 2 * DEAD_BAND` and 1 times
//!    the budget nothing changes, so a converged controller holds still
//!    instead of hunting, and holds below the budget, not around it.
//! 3. Step: multiplicative, `size *= (average / aim)^GAIN` with the aim at
//!    the band's centre, the factor clamped to `1 / MAX_STEP..=MAX_STEP`,
//!    the size to `min_px..=max_px`. In log space each step cuts the
//!    error by `1 - GAIN * slope`, where the slope is how many times faster
//!    the frame time falls than the size grows: a gain of 0.35 converges
//!    for slopes up to 5.
//!
//! 4. Bracket: where the curve jumps over the band (a crowd of units all a
//!    few pixels tall: one step sends half a million of them to the
//!    raster), stepping back and forth would spend every other decision
//!    over budget. A step towards detail that lands over the budget marks
//!    that size; later steps towards detail go at most halfway (in ratio)
//!    to it, and none once within 2 %: a bisection that ends on the cheap
//!    side. The mark expires after `BRACKET_DECISIONS`, so a scene that
//!    grew cheaper gets its detail back.
//! 5. Direction: the curve falls where compute outruns the raster (desktop
//!    GPUs), but rises where it does not (lavapipe runs the compute
//!    rasterizer on the CPU, far slower than its raster). After a step made
//!    over budget of at least `SIGNIFICANT_STEP` whose effect is beyond
//!    noise (`SIGNIFICANT_CHANGE`), the sign of the measured slope sets
//!    which way later steps go over budget, so on such a device the
//!    controller shrinks the far field instead of growing it into the worst
//!    frame; a device known to be such starts from a rising curve
//!    ([`BudgetController::with_rising_curve`]), and the renderer never
//!    grows its far field past the start. Under budget a step goes towards
//!    detail, a smaller size (finer LODs, more meshes), whichever way the
//!    curve goes (on a rising curve that is cheaper too), and teaches
//!    nothing: a flat curve's drift would read as a slope.
//!
//! 6. Relief: past the largest size the far field has nothing left to
//!    take, and a frame still over budget has one more thing to give, one
//!    that costs the picture least for the time it saves (the far field's
//!    supersampling, `renderer/budget.rs` says what it costs). With
//!    [`BudgetController::with_relief`] the controlled size runs on past
//!    `max_px`, up to `max_px * RELIEF_REACH`: a size past `max_px` is the
//!    far field at `max_px` with the relief taken. The frame time falls at
//!    `max_px` in one step and is flat beyond, a cliff that the bracket (4.)
//!    already handles: the relief is taken over budget and given back under
//!    it only where the frame then stays under, probed again when the mark
//!    expires. A step over budget that would cross `max_px` stops at it, so
//!    the largest size is measured without the relief before it is taken.
//!
//! The tests below simulate a crowd whose frame time falls (or rises) with
//! the far-field size, with the measurement delay and noise, and check that
//! it converges into the band and holds still.

use crate::config::FRAMES_IN_FLIGHT;

/// Measurements averaged for one decision.
pub const SAMPLES: u32 = 2;
/// Half the width of the band below the budget within which the size holds,
/// relative to the budget.
pub const DEAD_BAND: f32 = 0.05;
/// Exponent of the multiplicative step.
pub const GAIN: f32 = 0.35;
/// Largest factor by which the size changes in one step.
pub const MAX_STEP: f32 = 1.25;
/// The LOD threshold scales as the far-field size to this power.
pub const LOD_THRESHOLD_EXPONENT: f32 = 0.5;
/// A step large enough, and a change in frame time clear enough of noise,
/// both as natural logarithms, to tell which way the curve goes.
pub const SIGNIFICANT_STEP: f32 = 0.09;
pub const SIGNIFICANT_CHANGE: f32 = 0.06;
/// Decisions a size found over budget stays marked.
pub const BRACKET_DECISIONS: u32 = 150;
/// Within this ratio (as a natural logarithm) of the marked size, steps
/// towards detail stop.
pub const BRACKET_TIGHT: f32 = 0.02;
/// How far past `max_px` the controlled size runs with the relief on: one
/// full step.
pub const RELIEF_REACH: f32 = MAX_STEP;

/// The controller's state.
#[derive(Clone, Copy, Debug)]
pub struct BudgetController {
    /// Target GPU milliseconds per frame.
    pub budget_ms: f32,
    /// Bounds of the far-field size, pixels.
    pub min_px: f32,
    pub max_px: f32,
    /// The largest controlled size: `max_px`, or past it with the relief
    /// ([`BudgetController::with_relief`]).
    reach_px: f32,
    /// The smallest size a step towards detail goes to (under budget), from
    /// above: `min_px` unless [`BudgetController::with_detail_floor`] set
    /// it. Over budget the size may go below it, where the curve rises.
    detail_floor_px: f32,
    /// The average the last decision was made on, once there was one.
    measured_ms: Option<f32>,
    /// Measurements still to ignore: frames recorded before the last change.
    stale: u32,
    /// Sum and count of the measurements gathered for the next decision.
    sum_ms: f32,
    samples: u32,
    /// The current far-field size.
    px: f32,
    /// The size the controller started at, where the LOD threshold is the
    /// user's.
    start_px: f32,
    /// The size and averaged time of the last decision.
    last_decision: Option<(f32, f32)>,
    /// 1 while a larger size is cheaper (the usual case), -1 where the
    /// measured curve rises.
    direction: f32,
    /// A size found over budget after a step towards detail, and the
    /// decisions it stays marked.
    over_budget: Option<(f32, u32)>,
    /// The last step went towards detail.
    stepped_to_detail: bool,
}

impl BudgetController {
    /// A controller for `budget_ms` starting at `start_px` within
    /// `min_px..=max_px`.
    pub fn new(budget_ms: f32, start_px: f32, min_px: f32, max_px: f32) -> BudgetController {
        let min_px = min_px.max(f32::MIN_POSITIVE);
        let max_px = max_px.max(min_px);
        let px = start_px.clamp(min_px, max_px);
        BudgetController {
            budget_ms: budget_ms.max(f32::MIN_POSITIVE),
            min_px,
            max_px,
            reach_px: max_px,
            detail_floor_px: min_px,
            measured_ms: None,
            stale: 0,
            sum_ms: 0.0,
            samples: 0,
            px,
            start_px: px,
            last_decision: None,
            direction: 1.0,
            over_budget: None,
            stepped_to_detail: false,
        }
    }

    /// Steps towards detail stop at `floor_px` (clamped to the bounds):
    /// the far field's size under which meshes cost more for no better
    /// picture. Over budget on a rising curve (lavapipe) the size still
    /// goes down to `min_px`.
    pub fn with_detail_floor(self, floor_px: f32) -> BudgetController {
        BudgetController {
            detail_floor_px: floor_px.clamp(self.min_px, self.max_px),
            ..self
        }
    }

    /// Starts from a curve that rises (a device whose compute rasterizer is
    /// slower than its raster: lavapipe): over budget the first steps
    /// shrink the size. Steps made over budget may still turn it.
    pub fn with_rising_curve(self) -> BudgetController {
        BudgetController {
            direction: -1.0,
            ..self
        }
    }

    /// Lets the controlled size run past `max_px` (module doc, 6.): the
    /// frame may then be relieved of what costs the picture least.
    pub fn with_relief(self) -> BudgetController {
        BudgetController {
            reach_px: self.max_px * RELIEF_REACH,
            ..self
        }
    }

    /// The current far-field size.
    pub fn far_field_px(&self) -> f32 {
        self.px.min(self.max_px)
    }

    /// The frame is relieved: the size runs past `max_px`
    /// ([`BudgetController::with_relief`]).
    pub fn relieved(&self) -> bool {
        self.px > self.max_px
    }

    /// The factor on the LOD threshold at the current size.
    pub fn lod_threshold_scale(&self) -> f32 {
        (self.far_field_px() / self.start_px).powf(LOD_THRESHOLD_EXPONENT)
    }

    /// The averaged frame time of the last decision, once there was one.
    pub fn measured_ms(&self) -> Option<f32> {
        self.measured_ms
    }

    /// Takes the newest measured GPU milliseconds (of the frame recorded
    /// `FRAMES_IN_FLIGHT` frames ago) and returns the far-field size for the
    /// next frame. Non-finite or non-positive measurements are ignored.
    pub fn update(&mut self, measured_ms: f32) -> f32 {
        self.decide(measured_ms);
        self.far_field_px()
    }

    /// [`BudgetController::update`]'s decision on the controlled size.
    fn decide(&mut self, measured_ms: f32) {
        if !(measured_ms.is_finite() && measured_ms > 0.0) {
            return;
        }
        if self.stale > 0 {
            self.stale -= 1;
            return;
        }
        self.sum_ms += measured_ms;
        self.samples += 1;
        if self.samples < SAMPLES {
            return;
        }
        let average = self.sum_ms / self.samples as f32;
        (self.sum_ms, self.samples) = (0.0, 0);
        self.measured_ms = Some(average);
        // Only a step made over budget teaches the direction: under budget
        // the frame is cheap whichever way the size goes, and a drift of the
        // scene (a battle growing busier, the first frames' warm-up) read as
        // the size's effect turned the 10k overview's controller away from
        // its floor into coarser LODs for nothing (H100,
        // benches/results/near_field/).
        if let (Some((last_px, last_ms)), false) = (self.last_decision, self.stepped_to_detail) {
            let (step, change) = ((self.px / last_px).ln(), (average / last_ms).ln());
            if step.abs() >= SIGNIFICANT_STEP && change.abs() >= SIGNIFICANT_CHANGE {
                self.direction = -(step * change).signum();
            }
        }
        self.last_decision = Some((self.px, average));
        self.over_budget = self
            .over_budget
            .filter(|&(_, left)| left > 1)
            .map(|(px, left)| (px, left - 1));
        let ratio = average / self.budget_ms;
        if ratio > 1.0 && self.stepped_to_detail {
            self.over_budget = Some((self.px, BRACKET_DECISIONS));
        }
        self.stepped_to_detail = false;
        if (1.0 - 2.0 * DEAD_BAND..=1.0).contains(&ratio) {
            return;
        }
        // Towards detail is always a smaller size (finer LODs, more units
        // drawn as meshes); towards a cheaper frame is the way the curve
        // falls.
        let aim = 1.0 - DEAD_BAND;
        let to_detail = ratio < 1.0;
        let direction = if to_detail { 1.0 } else { self.direction };
        let step = (ratio / aim)
            .powf(GAIN * direction)
            .clamp(1.0 / MAX_STEP, MAX_STEP);
        let mut px = (self.px * step).clamp(self.min_px, self.reach_px);
        if to_detail {
            px = px.max(self.detail_floor_px.min(self.px));
        } else if self.px < self.max_px {
            // The relief only from the largest size, measured: a step that
            // would cross it stops there.
            px = px.min(self.max_px);
        }
        if let (true, Some((over, _))) = (to_detail, self.over_budget) {
            let halfway = (self.px * over).sqrt();
            if (over / self.px).ln().abs() < BRACKET_TIGHT {
                px = self.px;
            } else if (px / self.px).ln().abs() > (halfway / self.px).ln().abs() {
                px = halfway;
            }
        }
        if px != self.px {
            self.stale = FRAMES_IN_FLIGHT;
            self.stepped_to_detail = to_detail;
        }
        self.px = px;
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
        simulate_plant(frame_ms, budget_ms, start_px, frames)
    }

    /// `simulate` with another curve of frame time over size.
    fn simulate_plant(
        plant: fn(f32) -> f32,
        budget_ms: f32,
        start_px: f32,
        frames: usize,
    ) -> (Vec<f32>, Vec<f32>) {
        let mut controller = BudgetController::new(budget_ms, start_px, 1.0, 1000.0);
        let mut sizes = Vec::new();
        let mut times = Vec::new();
        let mut seed = 7u32;
        for frame in 0..frames {
            let px = controller.far_field_px();
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let noise = 1.0 + 0.03 * ((seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0);
            times.push(plant(px) * noise);
            sizes.push(px);
            if frame >= 2 {
                controller.update(times[frame - 2]);
            }
        }
        (sizes, times)
    }

    /// Budgets and starting sizes: from below and above, near the cheap
    /// and the steep end of the curve.
    const CASES: [(f32, f32); 6] = [
        (40.0, 12.0),
        (40.0, 600.0),
        (100.0, 2.0),
        (10.0, 12.0),
        (20.0, 1000.0),
        (60.0, 1.0),
    ];

    #[test]
    fn converges_to_the_budget_from_either_side() {
        for (budget, start) in CASES {
            let (sizes, _) = simulate(budget, start, 200);
            let settled = frame_ms(*sizes.last().unwrap()) / budget;
            assert!(
                (1.0 - 3.0 * DEAD_BAND..=1.0 + DEAD_BAND / 2.0).contains(&settled),
                "budget {budget} from {start} px: {settled:.3} of it at {:.2} px",
                sizes.last().unwrap()
            );
        }
    }

    #[test]
    fn holds_still_once_converged() {
        for (budget, start) in CASES {
            let (sizes, _) = simulate(budget, start, 600);
            // Over the last 300 frames: a few corrections at most, never a
            // reversal of direction back and forth (hunting).
            let tail = &sizes[300..];
            let changes = tail.windows(2).filter(|w| w[0] != w[1]).count();
            let reversals = tail
                .windows(3)
                .filter(|w| (w[1] - w[0]) * (w[2] - w[1]) < 0.0)
                .count();
            let spread = tail.iter().fold(0.0f32, |a, &b| a.max(b))
                / tail.iter().fold(f32::MAX, |a, &b| a.min(b));
            let what = format!("budget {budget} from {start} px");
            assert!(changes <= 4, "{what}: {changes} changes after convergence");
            assert!(reversals <= 1, "{what}: {reversals} reversals");
            assert!(spread < 1.1, "{what}: size spread {spread}");
        }
    }

    /// lavapipe's case: the compute rasterizer is slower than the raster, so
    /// a larger far field costs more. Over budget, the controller finds that
    /// out and shrinks it: into the band, or to the smallest size where the
    /// budget is out of reach; under budget it shrinks it too, towards
    /// detail, which there is cheaper as well.
    #[test]
    fn turns_around_where_a_larger_far_field_costs_more() {
        fn rising(px: f32) -> f32 {
            5.0 + 2.0 * px
        }
        for budget in [4.0, 40.0] {
            let (sizes, _) = simulate_plant(rising, budget, 12.0, 300);
            assert_eq!(*sizes.last().unwrap(), 1.0, "{budget}: {:?}", &sizes[250..]);
        }
        // From over budget: the first step grows the size, the next learns.
        let (sizes, _) = simulate_plant(rising, 20.0, 12.0, 300);
        let settled = rising(*sizes.last().unwrap()) / 20.0;
        assert!(
            (1.0 - 3.0 * DEAD_BAND..=1.0 + DEAD_BAND / 2.0).contains(&settled),
            "{settled:.3} of the budget at {:.2} px",
            sizes.last().unwrap()
        );
    }

    /// A flat curve under budget (the 10k overview, every unit in the far
    /// field already) whose first frames are slow, and slower again after
    /// the first step: the steps taken over budget read as a rising curve.
    /// Under budget the controller still goes towards detail: it ends at or
    /// below the size it started from (its floor), not at its largest size
    /// and coarser LODs, where the H100's 10k overview ended.
    #[test]
    fn under_budget_goes_towards_detail_whatever_was_learned() {
        let mut controller =
            BudgetController::new(16.6, 100.0, 2.0, 128.0).with_detail_floor(100.0);
        let mut sizes = Vec::new();
        for frame in 0..600 {
            let ms = match frame {
                0..4 => 40.0,
                4..12 => 80.0,
                _ => 6.0,
            };
            controller.update(ms);
            sizes.push(controller.far_field_px());
        }
        assert!(*sizes.last().unwrap() <= 100.0, "{:?}", &sizes[..40]);
    }

    /// A curve with a cliff and no size inside the band: the controller
    /// settles on the cheap side of the cliff, and only its rare probes
    /// (when the mark expires) go over budget.
    #[test]
    fn settles_below_a_cliff_that_jumps_over_the_band() {
        fn cliff(px: f32) -> f32 {
            if px >= 3.0 {
                10.0
            } else {
                50.0
            }
        }
        let (sizes, times) = simulate_plant(cliff, 16.6, 12.0, 900);
        let over = times[300..].iter().filter(|&&ms| ms > 16.6).count();
        assert!(over * 20 <= 600, "{over} of 600 frames over budget");
        assert!(
            (3.0..3.2).contains(sizes.last().unwrap()),
            "{:?}",
            &sizes[880..]
        );
    }

    /// With a detail floor: under budget the size stops there; over budget
    /// on a rising curve (lavapipe) it still goes below, into the band.
    #[test]
    fn steps_towards_detail_stop_at_the_floor() {
        fn flat(_: f32) -> f32 {
            5.0
        }
        fn rising(px: f32) -> f32 {
            5.0 + 2.0 * px
        }
        let settle = |plant: fn(f32) -> f32, budget: f32| {
            let mut controller =
                BudgetController::new(budget, 110.0, 2.0, 128.0).with_detail_floor(100.0);
            let mut times = std::collections::VecDeque::from([plant(110.0); 2]);
            for _ in 0..600 {
                controller.update(times.pop_front().unwrap());
                times.push_back(plant(controller.far_field_px()));
            }
            controller.far_field_px()
        };
        assert_eq!(settle(flat, 16.6), 100.0);
        let below = settle(rising, 40.0);
        assert!(below < 100.0 && rising(below) <= 40.0, "{below}");
    }

    /// Told the curve rises, the controller never steps the wrong way
    /// first: over budget its sizes only shrink, into the band.
    #[test]
    fn a_curve_known_to_rise_is_never_climbed() {
        fn rising(px: f32) -> f32 {
            5.0 + 2.0 * px
        }
        let mut controller = BudgetController::new(20.0, 12.0, 1.0, 12.0).with_rising_curve();
        let mut times = std::collections::VecDeque::from([rising(12.0); 2]);
        let mut sizes = vec![controller.far_field_px()];
        for _ in 0..300 {
            controller.update(times.pop_front().unwrap());
            times.push_back(rising(controller.far_field_px()));
            sizes.push(controller.far_field_px());
        }
        assert!(sizes.windows(2).all(|w| w[1] <= w[0]), "{sizes:?}");
        let settled = rising(*sizes.last().unwrap()) / 20.0;
        assert!(
            (1.0 - 3.0 * DEAD_BAND..=1.0).contains(&settled),
            "{settled:.3} of the budget"
        );
    }

    /// Runs `frames` frames of `plant` (frame time at a frame index and
    /// the controlled size, with the relief taken past `max_px`) through a
    /// controller with the relief, two frames of delay; returns its sizes
    /// and relief.
    fn simulate_relief(
        plant: impl Fn(usize, f32, bool) -> f32,
        budget_ms: f32,
        frames: usize,
    ) -> Vec<(f32, bool)> {
        let mut controller = BudgetController::new(budget_ms, 100.0, 2.0, 128.0)
            .with_detail_floor(100.0)
            .with_relief();
        let mut times = std::collections::VecDeque::from([plant(0, 100.0, false); 2]);
        let mut states = Vec::new();
        for frame in 0..frames {
            controller.update(times.pop_front().unwrap());
            let state = (controller.far_field_px(), controller.relieved());
            times.push_back(plant(frame, state.0, state.1));
            states.push(state);
        }
        states
    }

    /// The 1M overview's case: every unit in the far field from 100 px on,
    /// over a 20 ms budget at the largest size; the relief saves 3 ms.
    fn overview(px: f32, relieved: bool) -> f32 {
        22.0 - 0.02 * (px - 100.0) - if relieved { 3.0 } else { 0.0 }
    }

    /// Over budget at the largest size, the relief is taken, and held:
    /// its rare probes back (when the bracket's mark expires) aside. It is
    /// taken only after the largest size was drawn without it.
    #[test]
    fn the_relief_is_taken_at_the_largest_size_and_held() {
        let states = simulate_relief(|_, px, relieved| overview(px, relieved), 20.0, 1200);
        let first_relief = states.iter().position(|&(_, relieved)| relieved);
        let first_largest = states.iter().position(|&state| state == (128.0, false));
        assert!(
            first_largest.is_some() && first_largest < first_relief,
            "{:?}",
            &states[..80]
        );
        assert_eq!(
            *states.last().unwrap(),
            (128.0, true),
            "{:?}",
            &states[1150..]
        );
        let unrelieved = states[300..].iter().filter(|(_, r)| !r).count();
        assert!(
            unrelieved * 20 <= 900,
            "{unrelieved} of 900 frames unrelieved"
        );
    }

    /// Within budget before the largest size, the relief is never taken;
    /// once the scene is cheap enough without it, it is given back.
    #[test]
    fn the_relief_is_taken_only_while_needed() {
        let states = simulate_relief(|_, px, relieved| overview(px, relieved), 23.0, 600);
        assert!(states.iter().all(|&(_, relieved)| !relieved));
        // The battle thins out after frame 400: 8 ms less.
        let thinning = |frame: usize, px: f32, relieved: bool| {
            overview(px, relieved) - if frame >= 400 { 8.0 } else { 0.0 }
        };
        let states = simulate_relief(thinning, 20.0, 1200);
        assert!(states[399].1, "{:?}", &states[390..400]);
        assert_eq!(
            *states.last().unwrap(),
            (100.0, false),
            "{:?}",
            &states[1150..]
        );
    }

    #[test]
    fn the_lod_threshold_follows_the_size() {
        let mut controller = BudgetController::new(10.0, 12.0, 3.0, 48.0);
        assert_eq!(controller.lod_threshold_scale(), 1.0);
        for _ in 0..100 {
            controller.update(1000.0);
        }
        assert_eq!(controller.far_field_px(), 48.0);
        assert!((controller.lod_threshold_scale() - 2.0).abs() < 1e-5);
        for _ in 0..200 {
            controller.update(0.01);
        }
        assert!((controller.lod_threshold_scale() - 0.5).abs() < 1e-5);
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
