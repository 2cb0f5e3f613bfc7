//! GPU profiler: named timestamp scopes around each pass, read back without
//! stalling.
//!
//! - One query pool holds `2 * MAX_PROFILER_SCOPES` timestamps per frame slot.
//!   A scope writes a timestamp at its start (top of pipe) and its end (bottom of
//!   pipe), and opens a debug-utils label of the same name for captures.
//! - A slot's queries are read when the slot comes round again, after its fence
//!   has signalled, so the results are always ready and the CPU never waits:
//!   they describe the frame `FRAMES_IN_FLIGHT` frames ago.
//! - Ticks are scaled by `timestampPeriod` to milliseconds. A history of recent
//!   frames per scope gives the median and 95th percentile. A scope opened
//!   several times in a frame (a pass run once per shadow cascade) counts
//!   as the sum of its times in that frame.
//! - Each scope also times its recording on the CPU (the commands and the
//!   Rust around them), so a slow frame on the CPU names its pass too.
//! - Devices without timestamps report "n/a" instead of numbers.
//! - A frame begun with [`Profiler::begin_unmeasured_frame`] (the quality
//!   measurement's replays, `renderer/replay.rs`) keeps its debug labels and
//!   CPU crash marker but writes no timestamps and adds nothing to the
//!   history: the statistics describe the frames the application renders.
//! - The name of the last scope opened is kept as a crash marker: a fatal
//!   GPU error (device lost, out of device memory) names that pass.
//! - Passes without a dependency between them may overlap on the GPU, and
//!   then a scope's time includes some of its neighbour's. For measuring
//!   passes one at a time, [`Profiler::serialize`] (or `HORDE_PROFILE_SERIAL=1`)
//!   makes each scope wait for all earlier work first. It changes what it
//!   measures, so it is off by default; the renderer's `frame` scope gives
//!   the whole frame either way.

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use ash::vk;

use crate::config::{FRAMES_IN_FLIGHT, MAX_PROFILER_SCOPES};
use crate::context::Context;
use crate::owned::{Owned, QueryPool};
use crate::Error;

/// Frames of history kept per scope for the median and p95.
const HISTORY: usize = 512;

/// A scope opened by [`Profiler::begin`]; pass it to [`Profiler::end`].
#[must_use]
#[derive(Debug)]
pub struct Scope {
    index: Option<u32>,
    name: &'static str,
    opened: Instant,
}

/// Summary of one scope over the recorded history.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ScopeStats {
    pub name: String,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub samples: usize,
    /// Median CPU milliseconds spent recording the scope (0 in results
    /// written before it was measured).
    #[serde(default)]
    pub cpu_median_ms: f64,
}

/// Timestamp queries per frame slot.
pub struct Profiler {
    /// Destroyed when the profiler drops; the owner waits for the device.
    pool: Option<QueryPool>,
    period_ns: f64,
    /// Scope names recorded in each slot, in query order.
    slot_scopes: Vec<Vec<&'static str>>,
    current_slot: usize,
    /// Most recent completed frame: scope name and milliseconds.
    last: Vec<(&'static str, f64)>,
    history: BTreeMap<&'static str, VecDeque<f64>>,
    /// CPU recording milliseconds per scope, recent frames.
    cpu_history: BTreeMap<&'static str, VecDeque<f64>>,
    /// CPU recording milliseconds per scope in the frame being recorded.
    cpu_frame: BTreeMap<&'static str, f64>,
    /// Each scope first waits for all earlier GPU work (see the module doc).
    pub serialize: bool,
    /// The crash marker: the last scope opened, that is the last pass
    /// recorded, named in fatal GPU errors.
    last_opened: Option<&'static str>,
    /// Whether the frame being recorded is timed (see the module doc).
    measuring: bool,
}

impl Profiler {
    /// Creates the query pool, or a profiler that reports "n/a" when the
    /// device has no timestamps.
    pub fn new(ctx: &Context) -> Result<Profiler, Error> {
        let mut profiler = Profiler::without_timestamps();
        let Some(period) = ctx.limits.timestamp_period_ns else {
            log::info!("profiler: the device has no timestamps; GPU times report n/a");
            return Ok(profiler);
        };
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(FRAMES_IN_FLIGHT * MAX_PROFILER_SCOPES * 2);
        // SAFETY: valid create info.
        let pool = unsafe { ctx.device.create_query_pool(&info, None) }?;
        profiler.pool = Some(Owned::new(ctx, pool, "profiler timestamps"));
        profiler.period_ns = f64::from(period);
        Ok(profiler)
    }

    /// A profiler that times nothing and reports "n/a".
    fn without_timestamps() -> Profiler {
        Profiler {
            pool: None,
            period_ns: 0.0,
            slot_scopes: vec![Vec::new(); FRAMES_IN_FLIGHT as usize],
            current_slot: 0,
            last: Vec::new(),
            history: BTreeMap::new(),
            cpu_history: BTreeMap::new(),
            cpu_frame: BTreeMap::new(),
            serialize: std::env::var("HORDE_PROFILE_SERIAL").is_ok_and(|v| v.trim() == "1"),
            last_opened: None,
            measuring: true,
        }
    }

    /// True when the device records timestamps.
    pub fn available(&self) -> bool {
        self.pool.is_some()
    }

    /// Reads the slot's previous results (its fence has signalled) and resets
    /// its queries. Call at the start of the slot's command buffer.
    pub fn begin_frame(&mut self, ctx: &Context, cmd: vk::CommandBuffer, slot: usize) {
        self.end_cpu_frame();
        self.current_slot = slot;
        self.measuring = true;
        self.read_slot(ctx, slot);
        let Some(pool) = self.pool.as_deref().copied() else {
            return;
        };
        let first = slot as u32 * MAX_PROFILER_SCOPES * 2;
        // SAFETY: outside any render pass, at the start of the command buffer.
        unsafe {
            ctx.device
                .cmd_reset_query_pool(cmd, pool, first, MAX_PROFILER_SCOPES * 2)
        };
    }

    /// As [`Profiler::begin_frame`] (the slot's previous results are read),
    /// for a frame whose scopes are labelled but not timed, so they stay
    /// out of the history and of [`Profiler::last_frame`].
    pub fn begin_unmeasured_frame(&mut self, ctx: &Context, slot: usize) {
        self.end_cpu_frame();
        self.current_slot = slot;
        self.read_slot(ctx, slot);
        self.measuring = false;
    }

    /// Reads the results the slot's last frame left, once; its fence must
    /// have signalled. [`Profiler::begin_frame`] calls it, and so does the
    /// renderer's `finish` for the frames still unread at the end of a run.
    pub fn read_slot(&mut self, ctx: &Context, slot: usize) {
        let Some(pool) = self.pool.as_deref().copied() else {
            return;
        };
        let names = std::mem::take(&mut self.slot_scopes[slot]);
        if names.is_empty() {
            return;
        }
        let mut ticks = vec![0u64; names.len() * 2];
        // SAFETY: the queries were written by a submission whose fence has
        // signalled, so they are available; the slice matches the count.
        let read = unsafe {
            ctx.device.get_query_pool_results(
                pool,
                slot as u32 * MAX_PROFILER_SCOPES * 2,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64,
            )
        };
        match read {
            Ok(()) => self.record(&names, &ticks),
            Err(err) => log::warn!("profiler: reading timestamps failed: {err}"),
        }
    }

    /// One frame's scopes: a name's times summed, in the order first opened.
    fn record(&mut self, names: &[&'static str], ticks: &[u64]) {
        self.last.clear();
        for (index, &name) in names.iter().enumerate() {
            let (start, end) = (ticks[index * 2], ticks[index * 2 + 1]);
            let ms = end.saturating_sub(start) as f64 * self.period_ns / 1e6;
            match self.last.iter_mut().find(|(n, _)| *n == name) {
                Some((_, sum)) => *sum += ms,
                None => self.last.push((name, ms)),
            }
        }
        for &(name, ms) in &self.last {
            push_sample(self.history.entry(name).or_default(), ms);
        }
    }

    /// Moves the CPU times of the frame just recorded into the history.
    fn end_cpu_frame(&mut self) {
        for (name, ms) in std::mem::take(&mut self.cpu_frame) {
            push_sample(self.cpu_history.entry(name).or_default(), ms);
        }
    }

    /// Opens a named scope: a timestamp and a debug label.
    pub fn begin(&mut self, ctx: &Context, cmd: vk::CommandBuffer, name: &'static str) -> Scope {
        let opened = Instant::now();
        self.last_opened = Some(name);
        ctx.begin_label(cmd, name);
        if self.serialize {
            let all = (
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE,
            );
            crate::memory::memory_barrier(ctx, cmd, all, all);
        }
        let Some(pool) = self.pool.as_deref().copied().filter(|_| self.measuring) else {
            return Scope {
                index: None,
                name,
                opened,
            };
        };
        let scopes = &mut self.slot_scopes[self.current_slot];
        if scopes.len() as u32 >= MAX_PROFILER_SCOPES {
            log::warn!("profiler: more than {MAX_PROFILER_SCOPES} scopes; '{name}' is not timed");
            return Scope {
                index: None,
                name,
                opened,
            };
        }
        let index = scopes.len() as u32;
        scopes.push(name);
        let query = self.current_slot as u32 * MAX_PROFILER_SCOPES * 2 + index * 2;
        // SAFETY: the query was reset at the start of this command buffer.
        unsafe {
            ctx.device
                .cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, pool, query)
        };
        Scope {
            index: Some(index),
            name,
            opened,
        }
    }

    /// Closes a scope opened by [`Profiler::begin`].
    pub fn end(&mut self, ctx: &Context, cmd: vk::CommandBuffer, scope: Scope) {
        if let (Some(pool), Some(index)) = (self.pool.as_deref().copied(), scope.index) {
            let query = self.current_slot as u32 * MAX_PROFILER_SCOPES * 2 + index * 2 + 1;
            // SAFETY: as in `begin`.
            unsafe {
                ctx.device.cmd_write_timestamp(
                    cmd,
                    vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    pool,
                    query,
                )
            };
        }
        ctx.end_label(cmd);
        if self.measuring {
            let cpu_ms = scope.opened.elapsed().as_secs_f64() * 1e3;
            *self.cpu_frame.entry(scope.name).or_default() += cpu_ms;
        }
    }

    /// The last scope opened (the last pass recorded), if any: the crash
    /// marker.
    pub fn last_opened(&self) -> Option<&'static str> {
        self.last_opened
    }

    /// `pass name -> ms` of the most recent completed frame; empty until the
    /// first frame's results come back, and always empty without timestamps.
    pub fn last_frame(&self) -> &[(&'static str, f64)] {
        &self.last
    }

    /// Milliseconds of one scope in the most recent completed frame, or "n/a".
    pub fn format_ms(&self, name: &str) -> String {
        if !self.available() {
            return "n/a".to_owned();
        }
        self.last
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, ms)| format!("{ms:.3}"))
            .unwrap_or_else(|| "n/a".to_owned())
    }

    /// Median, p95 and p99 per scope over the history, by scope name.
    pub fn stats(&self) -> Vec<ScopeStats> {
        self.history
            .iter()
            .map(|(name, samples)| {
                let sorted = sorted_samples(Some(samples));
                let cpu = sorted_samples(self.cpu_history.get(name));
                ScopeStats {
                    name: (*name).to_owned(),
                    median_ms: percentile(&sorted, 0.5),
                    p95_ms: percentile(&sorted, 0.95),
                    p99_ms: percentile(&sorted, 0.99),
                    samples: sorted.len(),
                    cpu_median_ms: percentile(&cpu, 0.5),
                }
            })
            .collect()
    }

    /// Forgets the history (for example after warm-up frames).
    pub fn clear_history(&mut self) {
        self.history.clear();
        self.cpu_history.clear();
        self.cpu_frame.clear();
    }
}

/// Appends `sample` to a history, dropping the oldest beyond `HISTORY`
/// (every scope, every frame: a ring, not a shift of the whole history).
fn push_sample(history: &mut VecDeque<f64>, sample: f64) {
    if history.len() == HISTORY {
        history.pop_front();
    }
    history.push_back(sample);
}

/// A history's samples in ascending order; none for no history.
fn sorted_samples(history: Option<&VecDeque<f64>>) -> Vec<f64> {
    let mut sorted: Vec<f64> = history.into_iter().flatten().copied().collect();
    sorted.sort_by(f64::total_cmp);
    sorted
}

/// The `q` quantile of sorted samples, nearest rank; 0 when empty.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

#[cfg(test)]
mod tests {
    use super::{percentile, Profiler};

    #[test]
    fn without_timestamps_every_pass_reports_na() {
        let mut profiler = Profiler::without_timestamps();
        profiler.record(&["draw"], &[0, 0]);
        assert!(!profiler.available());
        assert_eq!(profiler.format_ms("draw"), "n/a");
        assert_eq!(profiler.format_ms("cull"), "n/a");
    }

    #[test]
    fn ticks_scale_by_the_timestamp_period() {
        let mut profiler = Profiler::without_timestamps();
        profiler.period_ns = 2.0;
        profiler.record(&["cull", "draw"], &[100, 600, 1_000, 501_000]);
        assert_eq!(profiler.last_frame(), &[("cull", 0.001), ("draw", 1.0)]);
        let stats = profiler.stats();
        assert_eq!(stats.len(), 2);
        assert_eq!(stats[1].median_ms, 1.0);
    }

    #[test]
    fn a_scope_opened_twice_in_a_frame_counts_as_its_sum() {
        let mut profiler = Profiler::without_timestamps();
        profiler.period_ns = 1e6;
        let names = ["shadow far field", "shadow draw", "shadow far field"];
        profiler.record(&names, &[0, 2, 2, 3, 3, 7]);
        assert_eq!(
            profiler.last_frame(),
            &[("shadow far field", 6.0), ("shadow draw", 1.0)]
        );
        let stats = profiler.stats();
        let far_field = stats.iter().find(|s| s.name == "shadow far field").unwrap();
        assert_eq!((far_field.median_ms, far_field.samples), (6.0, 1));
    }

    #[test]
    fn percentiles_of_sorted_samples() {
        let samples: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&samples, 0.5), 51.0);
        assert_eq!(percentile(&samples, 0.95), 95.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}
