//! The two numbers every benchmark report is made of: the median of a
//! series of runs (robust to the one run a busy machine slowed down) and
//! integers with their thousands grouped, so that 5000000 reads as 5 M.

/// The median of `values`; NaN for none, the mean of the middle two for an
/// even count.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// `1234567` as `1,234,567`.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `rows` per `seconds`, rounded and grouped; `-` when the time is not a
/// positive number (a run too short to measure).
pub fn per_second(rows: u64, seconds: f64) -> String {
    if seconds > 0.0 && seconds.is_finite() {
        group((rows as f64 / seconds).round() as u64)
    } else {
        "-".into()
    }
}

/// KiB as MiB with one decimal.
pub fn mib(kib: u64) -> String {
    format!("{:.1}", kib as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_no_runs() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[7.5]), 7.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn median_ignores_one_slow_run() {
        assert_eq!(median(&[1.0, 1.1, 9.0]), 1.1);
    }

    #[test]
    fn grouping() {
        for (n, text) in [
            (0, "0"),
            (999, "999"),
            (1_000, "1,000"),
            (5_000_000, "5,000,000"),
            (12_345_678, "12,345,678"),
        ] {
            assert_eq!(group(n), text, "{n}");
        }
    }

    #[test]
    fn rates() {
        assert_eq!(per_second(5_000_000, 2.0), "2,500,000");
        assert_eq!(per_second(10, 0.0), "-");
        assert_eq!(mib(12_800), "12.5");
    }
}
