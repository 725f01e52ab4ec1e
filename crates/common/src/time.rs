//! Event time: instants are `i64` milliseconds since the epoch, UTC.
//!
//! The watermark starts at [`NO_WATERMARK`] (−∞) and a bounded source ends
//! with [`FINAL_WATERMARK`] (+∞). All arithmetic on instants saturates so that
//! `window_end - 1 + lateness` never overflows, even at the extremes.

use crate::error::{Error, Result};

/// The watermark before any row was seen.
pub const NO_WATERMARK: i64 = i64::MIN;
/// The watermark a bounded source emits when it ends: everything fires.
pub const FINAL_WATERMARK: i64 = i64::MAX;

/// Start of the window of `size` (aligned with `offset`) that holds `ts`;
/// correct for negative timestamps.
pub fn window_start(ts: i64, offset: i64, size: i64) -> i64 {
    let rem = (ts.wrapping_sub(offset)).rem_euclid(size);
    ts.saturating_sub(rem)
}

/// Parses a duration as Flink writes it in options: `'3 s'`, `'3s'`,
/// `'500 ms'`, `'1 min'`, `'2 h'`, `'1 d'`; a bare number is milliseconds.
pub fn parse_duration_ms(text: &str) -> Result<i64> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: i64 = num
        .parse()
        .map_err(|_| Error::Execution(format!("cannot parse duration '{text}'")))?;
    let unit = unit.trim().to_ascii_lowercase();
    let factor = match unit.as_str() {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => 1,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000,
        "min" | "m" | "minute" | "minutes" => 60_000,
        "h" | "hour" | "hours" => 3_600_000,
        "d" | "day" | "days" => 86_400_000,
        _ => {
            return Err(Error::Execution(format!(
                "cannot parse duration '{text}': unknown unit '{unit}' (use ms, s, min, h or d)"
            )))
        }
    };
    n.checked_mul(factor)
        .ok_or_else(|| Error::Execution(format!("duration '{text}' is too large")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_start_aligns_negative_and_offset() {
        assert_eq!(window_start(4_999, 0, 5_000), 0);
        assert_eq!(window_start(5_000, 0, 5_000), 5_000);
        assert_eq!(window_start(-1, 0, 5_000), -5_000);
        assert_eq!(window_start(-5_000, 0, 5_000), -5_000);
        assert_eq!(window_start(1_000, 2_000, 5_000), -3_000);
        assert_eq!(window_start(2_000, 2_000, 5_000), 2_000);
        assert_eq!(window_start(i64::MIN, 0, 5_000), i64::MIN);
    }

    #[test]
    fn durations() -> Result<()> {
        for (text, ms) in [
            ("3 s", 3_000),
            ("3s", 3_000),
            ("500 ms", 500),
            ("1 min", 60_000),
            ("250", 250),
        ] {
            assert_eq!(parse_duration_ms(text)?, ms, "{text}");
        }
        assert!(parse_duration_ms("3 parsecs").is_err());
        assert!(parse_duration_ms("s").is_err());
        Ok(())
    }
}
