//! Memory over a long run, for the soak: the process's resident set (from
//! `/proc/self/status`) and the GPU memory gpu-allocator has handed out and
//! reserved, sampled every N rendered frames.
//!
//! The log holds at most [`MAX_SAMPLES`] samples whatever the run's length
//! (a [`StridedLog`]), so a 20,000-frame soak does not itself grow with the
//! frame count and the samples still span the whole run evenly.

use horde::context::Context;
use horde::profiler::percentile;

use crate::strided::StridedLog;

/// The most samples a [`MemoryLog`] keeps.
pub const MAX_SAMPLES: usize = 256;

/// Memory in use after one rendered frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MemorySample {
    /// Frames rendered when the sample was taken.
    pub frame: u32,
    /// The process's resident set size, 0 where `/proc` is missing.
    pub rss_bytes: u64,
    /// Bytes of live gpu-allocator allocations.
    pub gpu_allocated_bytes: u64,
    /// Bytes of the memory blocks gpu-allocator holds.
    pub gpu_reserved_bytes: u64,
}

/// Samples taken every N frames, at most [`MAX_SAMPLES`] of them.
#[derive(Clone, Debug)]
pub struct MemoryLog {
    samples: StridedLog<MemorySample>,
}

impl MemoryLog {
    /// A log that samples every `every` frames (at least 1).
    pub fn new(every: u32) -> MemoryLog {
        MemoryLog {
            samples: StridedLog::new(u64::from(every), MAX_SAMPLES),
        }
    }

    /// Samples when `frame` frames have been rendered and the stride says so;
    /// the caller also calls [`MemoryLog::sample`] after the last frame.
    pub fn after_frame(&mut self, ctx: &Context, frame: u32) {
        if self.samples.wants(u64::from(frame)) {
            self.samples.push(u64::from(frame), measure(ctx, frame));
        }
    }

    /// Takes a sample now whatever the stride (after the last frame); a
    /// repeat of the last sample's frame is ignored.
    pub fn sample(&mut self, ctx: &Context, frame: u32) {
        if self
            .samples
            .last()
            .is_none_or(|(last, _)| *last != u64::from(frame))
        {
            self.samples
                .push_last(u64::from(frame), measure(ctx, frame));
        }
    }

    /// The samples, oldest first.
    pub fn into_samples(self) -> Vec<MemorySample> {
        self.samples.into_values()
    }
}

fn measure(ctx: &Context, frame: u32) -> MemorySample {
    let gpu = ctx.memory_usage();
    MemorySample {
        frame,
        rss_bytes: process_rss_bytes().unwrap_or(0),
        gpu_allocated_bytes: gpu.allocated_bytes,
        gpu_reserved_bytes: gpu.reserved_bytes,
    }
}

/// The process's resident set size in bytes (`VmRSS` in `/proc/self/status`),
/// `None` where there is no `/proc` (not Linux).
pub fn process_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kib: u64 = line
        .trim_start_matches("VmRSS:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// How memory changed between the sample after warm-up and the last, for the
/// log and the soak test.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MemoryTrend {
    /// The sample after warm-up (the first at or after a quarter of the run).
    pub start: MemorySample,
    pub end: MemorySample,
    /// RSS growth per rendered frame between them, in bytes (negative when
    /// it shrank).
    pub rss_bytes_per_frame: f64,
    /// The median of the growth per frame between consecutive samples from
    /// `start` to `end`: a leak grows every interval and moves it, a single
    /// step (a driver cache or an allocator arena growing once) does not.
    pub rss_median_bytes_per_frame: f64,
}

/// The trend over `samples`, `None` with fewer than two samples.
pub fn memory_trend(samples: &[MemorySample]) -> Option<MemoryTrend> {
    let end = *samples.last()?;
    let warm = end.frame / 4;
    let first = samples.iter().position(|s| s.frame >= warm)?;
    let start = samples[first];
    if start.frame >= end.frame {
        return None;
    }
    let frames = f64::from(end.frame - start.frame);
    let mut growths: Vec<f64> = samples[first..]
        .windows(2)
        .filter(|pair| pair[1].frame > pair[0].frame)
        .map(|pair| {
            (pair[1].rss_bytes as f64 - pair[0].rss_bytes as f64)
                / f64::from(pair[1].frame - pair[0].frame)
        })
        .collect();
    growths.sort_by(f64::total_cmp);
    Some(MemoryTrend {
        start,
        end,
        rss_bytes_per_frame: (end.rss_bytes as f64 - start.rss_bytes as f64) / frames,
        rss_median_bytes_per_frame: percentile(&growths, 0.5),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rss_is_read_on_linux() {
        let rss = process_rss_bytes().expect("/proc/self/status has VmRSS");
        assert!(rss > 1 << 20, "{rss} bytes");
    }

    #[test]
    fn the_trend_starts_after_warm_up() {
        let samples: Vec<MemorySample> = (0..=10)
            .map(|i| MemorySample {
                frame: i * 10,
                rss_bytes: u64::from(i) * 1000,
                ..MemorySample::default()
            })
            .collect();
        let trend = memory_trend(&samples).expect("trend");
        assert_eq!(trend.start.frame, 30);
        assert_eq!(trend.end.frame, 100);
        assert!((trend.rss_bytes_per_frame - 100.0).abs() < 1e-9);
        assert!((trend.rss_median_bytes_per_frame - 100.0).abs() < 1e-9);
        assert_eq!(memory_trend(&samples[..1]), None);
    }

    #[test]
    fn a_single_step_moves_the_mean_growth_but_not_the_median() {
        let samples: Vec<MemorySample> = (0..=10)
            .map(|i| MemorySample {
                frame: i * 10,
                rss_bytes: (1 << 30) + u64::from(i) * 1000 + if i >= 6 { 1 << 24 } else { 0 },
                ..MemorySample::default()
            })
            .collect();
        let trend = memory_trend(&samples).expect("trend");
        assert!(trend.rss_bytes_per_frame > 200_000.0, "{trend:?}");
        assert!(
            (trend.rss_median_bytes_per_frame - 100.0).abs() < 1e-9,
            "{trend:?}"
        );
    }
}
