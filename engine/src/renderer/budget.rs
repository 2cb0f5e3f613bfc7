//! The frame budget's hold on the renderer: before each frame the
//! controller (`far_field_budget.rs`) reads the last frame's GPU time (or the
//! cost model) and sets the far-field size, or, on a device without the far
//! field where impostors are on, the impostor threshold.
//!
//! Past the far field's largest size, a frame still over budget drops the
//! far field's supersampling (the controller's relief), the cheapest trade
//! left in picture for time. On an H100 at 1M units (with everything in
//! the far field at its largest) one sample a pixel saved 1.0 ms of the
//! overview's 25.3 ms for FLIP 0.034 → 0.047 against the supersampled
//! reference, and 3.2 ms of the ground's 25.1 for 0.0122 → 0.0131
//! (`benches/results/near_field/`, call 6); the props' and the shadows'
//! shares, the other candidates, are not the budget's to trade.

use super::{BudgetSource, BudgetStatus, Renderer};
use super::{
    BUDGET_MAX_IMPOSTOR_THRESHOLD_PX, BUDGET_MIN_FAR_FIELD_PX, BUDGET_MIN_IMPOSTOR_THRESHOLD_PX,
};
use crate::far_field_budget::BudgetController;

impl Renderer {
    /// The budget steers the impostor threshold rather than the far-field
    /// size: the device has no far field, and impostors are on.
    fn budget_steers_impostors(&self) -> bool {
        self.impostor.is_some()
            && self.settings.impostors
            && (self.far_field.is_none() || self.settings.far_field_px <= 0.0)
    }

    /// With a frame budget, sets the far-field size (or, without the far
    /// field, the impostor threshold) from the last frame's GPU time (or
    /// cost model); without one, forgets the controller.
    pub(super) fn follow_budget(&mut self) {
        let steers_impostors = self.budget_steers_impostors();
        let Some(budget_ms) = self
            .settings
            .budget_ms
            .filter(|_| self.far_field.is_some() || steers_impostors)
        else {
            self.budget = None;
            return;
        };
        let controller = self.budget.get_or_insert_with(|| {
            if steers_impostors {
                BudgetController::new(
                    budget_ms,
                    self.settings
                        .impostor_threshold_px
                        .max(BUDGET_MIN_IMPOSTOR_THRESHOLD_PX),
                    BUDGET_MIN_IMPOSTOR_THRESHOLD_PX,
                    BUDGET_MAX_IMPOSTOR_THRESHOLD_PX,
                )
            } else {
                // Towards detail, never below the size the budget starts
                // from: units up to it are drawn as well by the far field
                // (anti-aliased) as by the raster, at a hundredth of the
                // cost on an H100, so a smaller size would spend raster time
                // on nothing the picture shows. Where the far field is the
                // slower (a CPU device, lavapipe) the curve rises: the
                // budget shrinks it from the start and never grows it past
                // the start (learning that by measurement, a 200-unit
                // window battle's far field had grown to 128 px: 313 ms of
                // a 644 ms frame, against 35 ms at 15 px). A cost model
                // is its own curve.
                let start_px = self.settings.far_field_px.max(BUDGET_MIN_FAR_FIELD_PX);
                let measured_curve_rises = !self.far_field_outruns_raster
                    && matches!(self.settings.budget_source, BudgetSource::GpuTimestamps);
                let max_px = if measured_curve_rises {
                    start_px
                } else {
                    self.settings.budget_max_far_field_px.max(start_px)
                };
                let controller =
                    BudgetController::new(budget_ms, start_px, BUDGET_MIN_FAR_FIELD_PX, max_px)
                        .with_detail_floor(start_px);
                if measured_curve_rises {
                    controller.with_rising_curve()
                } else if self.settings.far_field_supersampling {
                    controller.with_relief()
                } else {
                    controller
                }
            }
        });
        controller.budget_ms = budget_ms;
        let measured = match self.settings.budget_source {
            BudgetSource::GpuTimestamps => self
                .profiler
                .last_frame()
                .iter()
                .find(|(name, _)| *name == "frame")
                .map(|&(_, ms)| ms as f32),
            // Nothing to model until the first statistics arrive.
            BudgetSource::Model(cost) => {
                Some(cost(&self.stats)).filter(|_| !self.stats.units_per_lod.is_empty())
            }
        };
        if let Some(ms) = measured {
            controller.update(ms);
        }
        if steers_impostors {
            self.settings.impostor_threshold_px = controller.far_field_px();
        } else {
            self.settings.far_field_px = controller.far_field_px();
        }
    }

    /// The budget controller's state, while a budget steers the frame.
    pub fn budget(&self) -> Option<BudgetStatus> {
        self.budget.as_ref().map(|controller| BudgetStatus {
            budget_ms: controller.budget_ms,
            measured_ms: controller.measured_ms(),
            far_field_px: controller.far_field_px(),
            lod_threshold_px: self.settings.lod_threshold_px * controller.lod_threshold_scale(),
            far_field_supersampling_dropped: self.far_field_supersampling_dropped(),
        })
    }

    /// The budget took the far field's supersampling off: the user's
    /// setting had it on, and the controller is relieved.
    pub(super) fn far_field_supersampling_dropped(&self) -> bool {
        self.settings.far_field_supersampling
            && self
                .budget
                .as_ref()
                .is_some_and(|controller| controller.relieved())
    }
}
