//! The engine's clock, an injectable service: `PROCTIME()` columns read it,
//! processing-time windows fire as it advances, and idleness (spec §8) is
//! measured on it. The system clock is the wall clock. The fake clock
//! starts at a given instant and advances a fixed step per row read, so
//! tests of processing-time queries are deterministic; it stands still
//! while nothing is read. The scripted clock is a replay's: it moves only
//! when every input waits, straight to the next instant at which something
//! happens (a row arrives, a split's idle timeout ends), so a run over
//! recorded arrivals makes the same decisions at the same rows every time.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Clock {
    System,
    /// Row `n` (counting from 0 over the whole source) is read at
    /// `start + n * step`.
    Fake {
        start: i64,
        step: i64,
        rows: i64,
    },
    /// The time a replay has reached, shared by every source of a run.
    Scripted(ScriptedTime),
}

/// The scripted clock's time, shared by the sources of one run.
#[derive(Clone, Debug)]
pub struct ScriptedTime(Arc<AtomicI64>);

impl ScriptedTime {
    /// A clock that has not started: it starts at the first instant
    /// anything waits for.
    pub fn new() -> Self {
        ScriptedTime(Arc::new(AtomicI64::new(i64::MIN)))
    }

    fn get(&self) -> i64 {
        self.0.load(Ordering::Relaxed)
    }
}

impl Default for ScriptedTime {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for ScriptedTime {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ScriptedTime {}

/// How long the system clock waits at most when every input has nothing
/// for now, before they are asked again.
const POLL: Duration = Duration::from_millis(100);

impl Clock {
    /// The time now: the wall clock; for the fake clock the time the next
    /// row will be read at; for the scripted clock the time reached.
    pub fn now(&self) -> i64 {
        match self {
            Clock::System => chrono::Utc::now().timestamp_millis(),
            Clock::Fake { start, step, rows } => start.saturating_add(step.saturating_mul(*rows)),
            Clock::Scripted(t) => t.get(),
        }
    }

    /// The processing time of each of the next `n` rows.
    pub fn next_times(&mut self, n: usize) -> Vec<i64> {
        match self {
            Clock::System => vec![chrono::Utc::now().timestamp_millis(); n],
            Clock::Fake { start, step, rows } => {
                let times = (0..n as i64)
                    .map(|i| start.saturating_add(step.saturating_mul(*rows + i)))
                    .collect();
                *rows += n as i64;
                times
            }
            Clock::Scripted(t) => vec![t.get(); n],
        }
    }

    /// Waits while every input has nothing for now; `until`: the next
    /// instant at which something is known to happen, if one is. The
    /// system clock sleeps a little (at most until then); the fake clock
    /// stands still (and sleeps as the system clock, so that a followed
    /// input is not asked in a busy loop); the scripted clock moves to
    /// `until` at once.
    pub fn wait(&self, until: Option<i64>) {
        match self {
            Clock::Scripted(t) => {
                if let Some(until) = until {
                    t.0.fetch_max(until, Ordering::Relaxed);
                } else {
                    std::thread::sleep(POLL);
                }
            }
            Clock::System | Clock::Fake { .. } => {
                let left = until
                    .map(|u| u.saturating_sub(self.now()).max(0) as u64)
                    .map_or(POLL, |ms| POLL.min(Duration::from_millis(ms)));
                std::thread::sleep(left);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_clock_advances_per_row_across_batches() {
        let mut clock = Clock::Fake {
            start: 1_000,
            step: 250,
            rows: 0,
        };
        assert_eq!(clock.next_times(2), [1_000, 1_250]);
        assert_eq!(clock.next_times(3), [1_500, 1_750, 2_000]);
        assert_eq!(clock.now(), 2_250);
    }

    #[test]
    fn the_scripted_clock_moves_only_when_waiting_and_never_back() {
        let mut clock = Clock::Scripted(ScriptedTime::new());
        let shared = clock.clone();
        clock.wait(Some(5_000));
        assert_eq!(shared.now(), 5_000);
        assert_eq!(clock.next_times(2), [5_000, 5_000]);
        clock.wait(Some(3_000));
        assert_eq!(shared.now(), 5_000);
    }
}
