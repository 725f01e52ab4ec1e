//! The engine's clock, an injectable service: `PROCTIME()` columns read it,
//! and processing-time windows fire as it advances. The system clock is the
//! wall clock; the fake clock starts at a given instant and advances a fixed
//! step per row read, so tests of processing-time queries are deterministic.

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
}

impl Clock {
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
    }
}
