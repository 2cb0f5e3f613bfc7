//! A log whose size does not grow with the run: it keeps every entry until
//! it holds its capacity, then drops every other one and keeps only every
//! second entry from there on, and so on (the stride doubles each time). A
//! 20,000-frame soak then reports as many samples as a 2,000-frame one,
//! spread evenly over the whole run, and its memory stays flat.

/// At most `capacity` entries, one per `stride` indices (see the module doc).
#[derive(Clone, Debug)]
pub struct StridedLog<T> {
    stride: u64,
    capacity: usize,
    entries: Vec<(u64, T)>,
}

impl<T> StridedLog<T> {
    /// Keeps entries whose index is a multiple of `stride` (at least 1), at
    /// most `capacity` (at least 2) of them.
    pub fn new(stride: u64, capacity: usize) -> StridedLog<T> {
        StridedLog {
            stride: stride.max(1),
            capacity: capacity.max(2),
            entries: Vec::new(),
        }
    }

    /// Whether an entry at `index` would be kept now.
    pub fn wants(&self, index: u64) -> bool {
        index % self.stride == 0
    }

    /// Adds the entry at `index` if the stride keeps it. Indices increase.
    pub fn push(&mut self, index: u64, value: T) {
        if self.wants(index) {
            self.make_room();
            if self.wants(index) {
                self.entries.push((index, value));
            }
        }
    }

    /// Adds the entry at `index` whatever the stride (the run's last), unless
    /// the last entry kept has that index.
    pub fn push_last(&mut self, index: u64, value: T) {
        if self.entries.last().is_some_and(|(last, _)| *last == index) {
            return;
        }
        self.make_room();
        self.entries.push((index, value));
    }

    /// The entry added last, with its index.
    pub fn last(&self) -> Option<&(u64, T)> {
        self.entries.last()
    }

    /// The entries kept, oldest first.
    pub fn into_values(self) -> Vec<T> {
        self.entries.into_iter().map(|(_, value)| value).collect()
    }

    /// When full, doubles the stride and drops the entries off it.
    fn make_room(&mut self) {
        if self.entries.len() >= self.capacity {
            self.stride = self.stride.saturating_mul(2);
            let stride = self.stride;
            self.entries.retain(|(index, _)| index % stride == 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_run_stays_bounded_and_evenly_spread() {
        let mut log = StridedLog::new(1, 256);
        for index in 0..20_000u64 {
            log.push(index, index);
        }
        log.push_last(19_999, 19_999);
        let values = log.into_values();
        assert!(values.len() <= 257, "{}", values.len());
        assert!(values.len() > 128, "{}", values.len());
        assert_eq!(values[0], 0);
        assert_eq!(values.last(), Some(&19_999));
        let body = &values[..values.len() - 1];
        let gaps: Vec<u64> = body.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().all(|&g| g == gaps[0]), "{gaps:?}");
        assert!(body.last().is_some_and(|&last| last > 19_000));
    }

    #[test]
    fn a_short_run_keeps_every_entry_on_its_stride() {
        let mut log = StridedLog::new(10, 256);
        for index in 1..=300u64 {
            log.push(index, index);
        }
        log.push_last(300, 300);
        let values = log.into_values();
        assert_eq!(values.len(), 30);
        assert_eq!(values.last(), Some(&300));
    }
}
