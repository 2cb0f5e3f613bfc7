//! The quality measurement of a window's presented frames
//! (`WindowOptions::quality_every_s`): every so often, the frame just
//! presented is replayed offscreen beside its supersampled reference
//! (`crate::quality::measure_presented`), and the FLIP and unit coverage go
//! to the log, the HUD and the [`WindowReport`](super::WindowReport).

use horde::camera::Camera;

use super::{App, HudLine};

impl App {
    /// With `quality_every_s`, measures the frame just presented when the
    /// last measurement is that old (the first after the first frame). A
    /// failure is logged and ends the measurements, not the window.
    pub(super) fn measure_quality(&mut self, now: std::time::Instant, camera: &Camera) {
        let (Some(every), Some(running)) = (self.options.quality_every_s, self.running.as_mut())
        else {
            return;
        };
        if self
            .quality
            .as_ref()
            .is_some_and(|(at, _)| (now - *at).as_secs_f32() < every)
        {
            return;
        }
        let extent = running.swapchain.extent;
        match crate::quality::measure_presented(
            &running.ctx,
            &mut running.renderer,
            camera,
            &mut running.quality_targets,
            extent,
        ) {
            Ok(measured) => {
                let (mean, p95) = (measured.flip.mean, measured.flip.p95);
                log::info!(
                    "quality: FLIP mean {mean:.4}, p95 {p95:.4}, unit coverage {:?}",
                    measured.coverage_ratio
                );
                self.report
                    .quality
                    .push((mean, p95, measured.coverage_ratio));
                let coverage = measured
                    .coverage_ratio
                    .map_or_else(|| "no units".to_owned(), |ratio| format!("{ratio:.3}"));
                let line = HudLine {
                    label: "quality".to_owned(),
                    value: format!("FLIP {mean:.3} (p95 {p95:.3}), coverage {coverage}"),
                };
                self.quality = Some((now, line));
            }
            Err(error) => {
                log::error!("quality measurement failed, no more are taken: {error:#}");
                self.options.quality_every_s = None;
            }
        }
    }
}
