//! When the sweep skips a point (the module doc of `stress`): by its own
//! frames over the bound, or, for the baselines whose frame grows linearly
//! in units by construction, by prediction from the size before.

use horde::renderer::Strategy;

/// Whether `strategy`'s frame grows linearly in the unit count by
/// construction: the baselines that draw every unit at full detail. Only
/// these may be skipped by prediction from a smaller size.
pub fn linear_in_units(strategy: Strategy) -> bool {
    matches!(strategy, Strategy::Naive | Strategy::Instanced)
}

/// What the sweep learned of a (strategy, camera) at a smaller size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeBefore {
    /// A frame took `frame_ms` at `units` (measured, or for a point skipped
    /// by prediction, predicted).
    Frame { units: u32, frame_ms: f64 },
    /// The point at `units` failed (a renderer or frame error).
    Failed { units: u32 },
}

/// When the sweep skips a point; see the module doc.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkipRule {
    pub max_frame_ms: f64,
}

impl SkipRule {
    /// Why `strategy` is skipped at `units` without rendering, or `None` to
    /// render it (and let its own frames decide): only a strategy
    /// [`linear_in_units`] is skipped here.
    pub fn before_rendering(
        &self,
        strategy: Strategy,
        units: u32,
        before: Option<SizeBefore>,
    ) -> Option<String> {
        if !linear_in_units(strategy) {
            return None;
        }
        match before? {
            SizeBefore::Frame {
                units: before_units,
                frame_ms,
            } => {
                let predicted = frame_ms * f64::from(units) / f64::from(before_units.max(1));
                (predicted > self.max_frame_ms).then(|| {
                    format!(
                        "predicted {predicted:.0} ms per frame, over the {:.0} ms bound \
                         ({strategy} draws every unit, so its frame grows linearly in units \
                         from {frame_ms:.0} ms at {before_units})",
                        self.max_frame_ms
                    )
                })
            }
            SizeBefore::Failed {
                units: before_units,
            } => Some(format!(
                "failed at {before_units} units, and {strategy} draws every unit"
            )),
        }
    }

    /// Why a point is skipped after `what` took `frame_ms` there, or `None`
    /// to go on measuring it.
    pub fn after_frames(&self, what: &str, frame_ms: f64) -> Option<String> {
        (frame_ms > self.max_frame_ms).then(|| {
            format!(
                "{what} took {frame_ms:.0} ms, over the {:.0} ms bound",
                self.max_frame_ms
            )
        })
    }
}
