//! Flink's print format: how a changelog row and each SQL value look on
//! stdout, byte for byte as Flink's print connector and SQL client show them
//! (`+I[k, 1970-01-01 00:00:05.000, 4, 1.0E7, <NULL>]`).
//!
//! This module owns the text form of values: NULL as `<NULL>`, BOOLEAN as
//! `TRUE`/`FALSE`, DECIMAL with exactly its scale, TIMESTAMP(p) with exactly
//! p fractional digits, TIMESTAMP_LTZ as the wall-clock time in the session
//! zone, DOUBLE as Java's `Double.toString` and FLOAT as `Float.toString`
//! (shortest digits, the layout of Java 19 and later), DATE as `2024-03-01`
//! and TIME(p) as `12:34:56` with the fraction Flink shows. Error messages
//! that name a value use it too.

pub use crate::formats::encode::Changelog;
use crate::time::zone::to_wall_clock;
use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, Time32MillisecondType, TimestampMillisecondType,
};
use chrono::{Datelike, NaiveDate};
use std::fmt::Write;
use tidemark_common::{Error, Result, RowKind, SqlType};

/// Appends one line per row (each ending in '\n') to `out`:
/// `{kind}[{v1}, {v2}, ...]`. (A caller printing batch after batch keeps
/// a [`Changelog`] instead, and with it its room.)
pub fn write_changelog(
    batch: &RecordBatch,
    types: &[SqlType],
    kinds: &[RowKind],
    tz: chrono_tz::Tz,
    out: &mut String,
) -> Result<()> {
    Changelog::default().write(batch, types, kinds, tz, out)
}

/// A TIMESTAMP as Flink prints it, or a TIMESTAMP_LTZ as the wall-clock
/// time in `tz` (`ty` is one of the two).
pub(crate) fn write_instant(
    epoch_ms: i64,
    ty: &SqlType,
    tz: chrono_tz::Tz,
    out: &mut String,
) -> Result<()> {
    match ty {
        SqlType::TimestampLtz(p) => {
            let local = to_wall_clock(epoch_ms, tz).ok_or_else(|| out_of_range(epoch_ms))?;
            write_timestamp(local, *p, out)
        }
        SqlType::Timestamp(p) => write_timestamp(epoch_ms, *p, out),
        other => Err(Error::Internal(format!(
            "printing a {other} as a timestamp"
        ))),
    }
}

/// One value as Flink prints it (used also for error messages naming a
/// value).
pub fn format_value(
    array: &dyn Array,
    ty: &SqlType,
    row: usize,
    tz: chrono_tz::Tz,
    out: &mut String,
) -> Result<()> {
    if row >= array.len() {
        return Err(Error::Internal(format!(
            "printing row {row} of a column of {} rows",
            array.len()
        )));
    }
    // A NullArray has no validity buffer, so `is_null` alone would call its
    // rows valid.
    if matches!(ty, SqlType::Null) || array.is_null(row) {
        out.push_str("<NULL>");
        return Ok(());
    }
    let mismatch = || {
        Error::Internal(format!(
            "printing a {ty} value from an Arrow column of type {}",
            array.data_type()
        ))
    };
    match ty {
        SqlType::Boolean => {
            let a = array.as_boolean_opt().ok_or_else(mismatch)?;
            out.push_str(if a.value(row) { "TRUE" } else { "FALSE" });
        }
        SqlType::TinyInt => {
            let a = array.as_primitive_opt::<Int8Type>().ok_or_else(mismatch)?;
            push_integer(out, a.value(row));
        }
        SqlType::SmallInt => {
            let a = array.as_primitive_opt::<Int16Type>().ok_or_else(mismatch)?;
            push_integer(out, a.value(row));
        }
        SqlType::Int => {
            let a = array.as_primitive_opt::<Int32Type>().ok_or_else(mismatch)?;
            push_integer(out, a.value(row));
        }
        SqlType::Float => {
            let a = array
                .as_primitive_opt::<Float32Type>()
                .ok_or_else(mismatch)?;
            write_java_float(a.value(row), out);
        }
        SqlType::BigInt => {
            let a = array.as_primitive_opt::<Int64Type>().ok_or_else(mismatch)?;
            push_integer(out, a.value(row));
        }
        SqlType::Double => {
            let a = array
                .as_primitive_opt::<Float64Type>()
                .ok_or_else(mismatch)?;
            write_java_double(a.value(row), out);
        }
        SqlType::Decimal(_, scale) => {
            let a = array
                .as_primitive_opt::<Decimal128Type>()
                .ok_or_else(mismatch)?;
            write_decimal(a.value(row), *scale, out);
        }
        SqlType::String => {
            if let Some(a) = array.as_string_opt::<i32>() {
                out.push_str(a.value(row));
            } else if let Some(a) = array.as_string_opt::<i64>() {
                out.push_str(a.value(row));
            } else if let Some(a) = array.as_string_view_opt() {
                out.push_str(a.value(row));
            } else {
                return Err(mismatch());
            }
        }
        SqlType::Timestamp(_) | SqlType::TimestampLtz(_) => {
            let a = array
                .as_primitive_opt::<TimestampMillisecondType>()
                .ok_or_else(mismatch)?;
            write_instant(a.value(row), ty, tz, out)?;
        }
        SqlType::Date => {
            let a = array
                .as_primitive_opt::<Date32Type>()
                .ok_or_else(mismatch)?;
            write_date(a.value(row), out)?;
        }
        SqlType::Time(p) => {
            let a = array
                .as_primitive_opt::<Time32MillisecondType>()
                .ok_or_else(mismatch)?;
            write_time(a.value(row), *p, TimeFraction::Shown, out);
        }
        SqlType::Null => out.push_str("<NULL>"),
    }
    Ok(())
}

/// Java's `Double.toString(v)`: `1.0`, `-0.0`, `1.0E7`, `1.234E-5`, `0.001`,
/// `NaN`, `Infinity`.
pub fn java_double_to_string(v: f64) -> String {
    let mut out = String::new();
    write_java_double(v, &mut out);
    out
}

/// The start of Java's text for a double or float: `NaN`, or the sign
/// and then `Infinity` or `0.0` when the value is one of those. Whether
/// the text is complete.
fn java_sign_or_special(
    nan: bool,
    negative: bool,
    infinite: bool,
    zero: bool,
    out: &mut String,
) -> bool {
    if nan {
        out.push_str("NaN");
        return true;
    }
    if negative {
        out.push('-');
    }
    let special = match (infinite, zero) {
        (true, _) => "Infinity",
        (_, true) => "0.0",
        _ => return false,
    };
    out.push_str(special);
    true
}

/// Writes `v` the way Java's `Double.toString` does on the JVM Flink runs
/// on: the shortest decimal that reads back as `v` (whole numbers below 2^63
/// as their exact digits, as Java 17 prints them), in plain notation for
/// 1e-3 ≤ |v| < 1e7 and as `d.dddE±n` otherwise, always with a digit after
/// the point.
pub fn write_java_double(v: f64, out: &mut String) {
    let abs = v.abs();
    if java_sign_or_special(
        v.is_nan(),
        v.is_sign_negative(),
        abs.is_infinite(),
        abs == 0.0,
        out,
    ) {
        return;
    }
    // The common case: a fraction in Java's plain range, whose shortest
    // digits are written as Java does: `3486.75`, `0.0012`. zmij finds
    // the same shortest digits as ryu, about three times as fast, and
    // writes them plainly from 1e-5 to 1e16. Where the shortest is one
    // digit, Java picks the closest of one or two digits, but here that
    // is the same number: two decimals of two digits differ by 1 % or
    // more, and only one of them reads back as a double of 53 bits.
    // (Below 1e7, a cast truncates exactly, without a call for `fract`.)
    if (1e-3..1e7).contains(&abs) && (abs as i64) as f64 != abs {
        let mut buffer = zmij::Buffer::new();
        out.push_str(buffer.format_finite(abs));
        return;
    }
    write_java_digits(abs, integral_digits(abs), out);
}

/// Writes `v` the way Java's `Float.toString` does on the JVM Flink runs
/// on: as [`write_java_double`] does for a double, with a float's digits
/// (`0.1`, `1.0E10`, `3.4028235E38`; whole numbers below 2^63 as Java 17
/// prints them, `9.9999998E16` for `1e17f`).
pub fn write_java_float(v: f32, out: &mut String) {
    let abs = v.abs();
    if java_sign_or_special(
        v.is_nan(),
        v.is_sign_negative(),
        abs.is_infinite(),
        abs == 0.0,
        out,
    ) {
        return;
    }
    write_java_digits(abs, integral_float_digits(abs), out);
}

/// The digits of a finite, positive double or float as Java writes them:
/// `integral` (a whole number's, as Java 17 prints it) when there are
/// some, else the shortest that reads back, where Java picks among the
/// decimals of length 1 *or 2* the one closest to `abs` (so
/// `Double.MIN_VALUE` is 4.9E-324 and the smallest float 1.4E-45, where
/// the shortest are 5E-324 and 1E-45).
fn write_java_digits<F>(abs: F, integral: Option<(Vec<u8>, i32)>, out: &mut String)
where
    F: ryu::Float + std::fmt::LowerExp + std::str::FromStr + PartialEq,
{
    if let Some((digits, exp)) = integral {
        lay_out_java(&digits, exp, out);
        return;
    }
    let mut ryu_buf = ryu::Buffer::new();
    let (mut digits, mut exp) = shortest_digits(ryu_buf.format_finite(abs));
    if digits.len() == 1 {
        let two = format!("{abs:.1e}");
        if two.parse::<F>().is_ok_and(|v| v == abs) {
            (digits, exp) = shortest_digits(&two);
        }
    }
    lay_out_java(&digits, exp, out);
}

/// Java 17's digits for a whole float below 2^63, as [`integral_digits`]
/// for a double: the exact integer with the digits a float's 24 bits
/// cannot tell apart rounded away.
fn integral_float_digits(abs: f32) -> Option<(Vec<u8>, i32)> {
    if abs < 1.0 || abs.fract() != 0.0 || abs >= 9_223_372_036_854_775_808.0 {
        return None;
    }
    let value = abs as u64;
    let bin_exp = 63 - value.leading_zeros() as i32;
    let dropped = if bin_exp > 26 {
        ((bin_exp - 25) as u64 * 30_103 / 100_000) as u32
    } else {
        0
    };
    Some(whole_number_digits(value, dropped))
}

/// The significant digits and decimal exponent of the whole number
/// `value` with its last `dropped` digits, which its float type cannot tell
/// apart, rounded half up: the tail both `integral_*digits` share.
fn whole_number_digits(value: u64, dropped: u32) -> (Vec<u8>, i32) {
    let (kept, exp_shift) = if dropped > 0 {
        let pow10 = 10u64.pow(dropped);
        let rounded = value / pow10 + u64::from(value % pow10 >= pow10 / 2);
        (rounded, dropped as i32)
    } else {
        (value, 0)
    };
    let mut digits = kept.to_string().into_bytes();
    let exp = digits.len() as i32 - 1 + exp_shift;
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, exp)
}

/// The digits Java 17's `Double.toString` (the JVM Flink runs on) prints
/// for a whole number below 2^63: not the shortest decimal, but the exact
/// integer, with only the low digits the double cannot tell apart rounded
/// away (`100000000000000848.0` prints as `1.00000000000000848E17`, where the
/// shortest form is `1.0000000000000085E17`). Java 19 and later print the
/// shortest form; tidemark prints what Flink prints.
fn integral_digits(abs: f64) -> Option<(Vec<u8>, i32)> {
    if abs < 1.0 || abs.fract() != 0.0 || abs >= 9_223_372_036_854_775_808.0 {
        return None;
    }
    let bits = abs.to_bits();
    let bin_exp = ((bits >> 52) & 0x7ff) as i32 - 1023;
    let significand = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let value = if bin_exp >= 52 {
        significand << (bin_exp - 52)
    } else {
        significand >> (52 - bin_exp)
    };
    // Above 2^55 the double's spacing exceeds 1 by enough that its last
    // floor((bin_exp - 54) · log10 2) digits carry nothing: rounded half up.
    let dropped = if bin_exp > 55 {
        ((bin_exp - 54) as u64 * 30_103 / 100_000) as u32
    } else {
        0
    };
    Some(whole_number_digits(value, dropped))
}

/// Splits a float's text (`123.45`, `1e-7`, `4.9e-324`) into its significant
/// digits, without leading or trailing zeros, and the decimal exponent of
/// the first digit: `("12345", 2)` for `123.45`.
fn shortest_digits(text: &str) -> (Vec<u8>, i32) {
    let (mantissa, exp10) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = int_part.bytes().chain(frac_part.bytes());
    let leading_zeros = all.clone().take_while(|&b| b == b'0').count();
    let mut digits: Vec<u8> = all.skip(leading_zeros).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    let exp = int_part.len() as i32 - leading_zeros as i32 - 1 + exp10;
    (digits, exp)
}

/// Java's layout of `0.d1d2… × 10^(exp+1)`.
fn lay_out_java(digits: &[u8], exp: i32, out: &mut String) {
    let push = |out: &mut String, d: &[u8]| out.extend(d.iter().map(|&b| b as char));
    if (-3..7).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() > int_len {
                push(out, &digits[..int_len]);
                out.push('.');
                push(out, &digits[int_len..]);
            } else {
                push(out, digits);
                out.extend(std::iter::repeat_n('0', int_len - digits.len()));
                out.push_str(".0");
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            push(out, digits);
        }
    } else {
        push(out, &digits[..1]);
        out.push('.');
        if digits.len() > 1 {
            push(out, &digits[1..]);
        } else {
            out.push('0');
        }
        out.push('E');
        push_display(out, exp);
    }
}

/// A DECIMAL with exactly `scale` fractional digits, never an exponent:
/// `11.00`, `-0.50`, `0.000`.
pub fn write_decimal(unscaled: i128, scale: i8, out: &mut String) {
    if unscaled < 0 {
        out.push('-');
    }
    let mut digits = String::new();
    push_display(&mut digits, unscaled.unsigned_abs());
    if scale <= 0 {
        out.push_str(&digits);
        if unscaled != 0 {
            out.extend(std::iter::repeat_n('0', scale.unsigned_abs() as usize));
        }
        return;
    }
    let scale = scale as usize;
    if digits.len() <= scale {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', scale - digits.len()));
        out.push_str(&digits);
    } else {
        let (int_part, frac_part) = digits.split_at(digits.len() - scale);
        out.push_str(int_part);
        out.push('.');
        out.push_str(frac_part);
    }
}

/// `YYYY-MM-DD HH:MM:SS` and then exactly `precision` fractional digits
/// (none for 0), as Flink prints TIMESTAMP(p); digits past milliseconds are
/// zeros since values are kept at millisecond precision.
pub fn write_timestamp(epoch_ms: i64, precision: u8, out: &mut String) -> Result<()> {
    let days = epoch_ms.div_euclid(MS_PER_DAY);
    let ms_of_day = epoch_ms.rem_euclid(MS_PER_DAY);
    let date = i32::try_from(days)
        .ok()
        .and_then(|d| d.checked_add(UNIX_EPOCH_DAYS_FROM_CE))
        .and_then(NaiveDate::from_num_days_from_ce_opt)
        .ok_or_else(|| out_of_range(epoch_ms))?;
    write_year(date.year(), out);
    // Digits pushed one by one: formatting machinery is most of the cost
    // of printing a row.
    let secs = (ms_of_day / 1000) as u32;
    out.push('-');
    push_two(out, date.month());
    out.push('-');
    push_two(out, date.day());
    out.push(' ');
    push_two(out, secs / 3600);
    out.push(':');
    push_two(out, secs / 60 % 60);
    out.push(':');
    push_two(out, secs % 60);
    if precision > 0 {
        let ms = (ms_of_day % 1000) as u32;
        let digits = [ms / 100, ms / 10 % 10, ms % 10];
        out.push('.');
        let p = usize::from(precision.min(9));
        for d in digits.iter().take(p) {
            out.push(char::from(b'0' + *d as u8));
        }
        out.extend(std::iter::repeat_n('0', p.saturating_sub(3)));
    }
    Ok(())
}

/// A year in Java's ISO layout: four digits at least, a sign past 9999 or
/// before 0.
fn write_year(year: i32, out: &mut String) {
    if year > 9999 {
        let _ = write!(out, "+{year}");
    } else if year < 0 {
        let _ = write!(out, "-{:04}", year.unsigned_abs());
    } else {
        let y = year as u32;
        push_two(out, y / 100);
        push_two(out, y % 100);
    }
}

/// `v` (below 100) as two digits.
fn push_two(out: &mut String, v: u32) {
    out.push(char::from(b'0' + (v / 10 % 10) as u8));
    out.push(char::from(b'0' + (v % 10) as u8));
}

/// `YYYY-MM-DD`, as Flink prints a DATE of `days` since 1970-01-01.
pub fn write_date(days: i32, out: &mut String) -> Result<()> {
    let date = days
        .checked_add(UNIX_EPOCH_DAYS_FROM_CE)
        .and_then(NaiveDate::from_num_days_from_ce_opt)
        .ok_or_else(|| {
            Error::Execution(format!(
                "date {days} days since 1970-01-01 is out of the printable range"
            ))
        })?;
    let year = date.year();
    if year > 9999 {
        let _ = write!(out, "+{year}");
    } else if year < 0 {
        let _ = write!(out, "-{:04}", year.unsigned_abs());
    } else {
        let _ = write!(out, "{year:04}");
    }
    let _ = write!(out, "-{:02}-{:02}", date.month(), date.day());
    Ok(())
}

/// How the fraction of a TIME is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TimeFraction {
    /// As Flink prints and casts to STRING a TIME(p) with p > 0: the
    /// digits up to the last that is not zero, at least one (`12:00:00.0`,
    /// `00:00:00.1`, `12:34:56.789`).
    Shown,
    /// As the csv and json formats write it (Java's ISO_LOCAL_TIME): no
    /// fraction when it is zero, else up to its last digit that is not zero.
    Iso,
}

/// `HH:mm:ss` and, by `fraction`, its fractional digits, of milliseconds
/// since midnight for a TIME(`precision`).
pub fn write_time(ms_of_day: i32, precision: u8, fraction: TimeFraction, out: &mut String) {
    let ms = ms_of_day.rem_euclid(MS_PER_DAY as i32);
    let secs = ms / 1000;
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    let mut frac = format!("{:03}", ms % 1000);
    frac.truncate(usize::from(precision.min(3)));
    while frac.ends_with('0') {
        frac.pop();
    }
    if frac.is_empty() && precision > 0 && fraction == TimeFraction::Shown {
        frac.push('0');
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(&frac);
    }
}

const MS_PER_DAY: i64 = 86_400_000;
/// `NaiveDate::num_days_from_ce` of 1970-01-01.
const UNIX_EPOCH_DAYS_FROM_CE: i32 = 719_163;

fn out_of_range(epoch_ms: i64) -> Error {
    Error::Execution(format!(
        "timestamp {epoch_ms} ms since 1970-01-01 is out of the printable range"
    ))
}

fn push_display(out: &mut String, v: impl std::fmt::Display) {
    let _ = write!(out, "{v}");
}

/// An integer's decimal digits (without the formatting machinery).
pub(crate) fn push_integer(out: &mut String, v: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(v));
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{
        ArrayRef, BooleanArray, Decimal128Array, Float64Array, Int32Array, Int64Array, NullArray,
        StringArray, TimestampMillisecondArray,
    };
    use std::sync::Arc;

    #[test]
    fn java_doubles() {
        // Java's Double.toString, as Flink prints DOUBLE. Whole numbers
        // below 2^63 print as Java 17 does (see `integral_digits`); for a few
        // other values Java 17 also prints a longer form (9.999999999999999E22
        // for 1.0E23, 5.6843418860808015E-14 for 2^-44), where this follows
        // the shortest form that Java 19 and later print.
        let cases = [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1e7, "1.0E7"),
            (9_999_999.0, "9999999.0"),
            (1.234e-5, "1.234E-5"),
            (0.001, "0.001"),
            (1e-4, "1.0E-4"),
            (0.002, "0.002"),
            (0.000_999_9, "9.999E-4"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (0.1 + 0.2, "0.30000000000000004"),
            (123_456.789, "123456.789"),
            (4.9e-324, "4.9E-324"),
            (2.0 * 4.9e-324, "9.9E-324"),
            (f64::MAX, "1.7976931348623157E308"),
            (f64::MIN_POSITIVE, "2.2250738585072014E-308"),
            (1e21, "1.0E21"),
            (1e22, "1.0E22"),
            (1e23, "1.0E23"),
            (12_345_678.0, "1.2345678E7"),
            (42.0, "42.0"),
            (100.0, "100.0"),
            (1e-5, "1.0E-5"),
            (9.223_372_036_854_776e18, "9.223372036854776E18"),
            (2f64.powi(-44), "5.684341886080802E-14"),
            (2.828_793_848_061_59e17, "2.82879384806159008E17"),
            (9_999_999.999_999_998, "9999999.999999998"),
            (123.0, "123.0"),
            (1.185_757_55e-316, "1.18575755E-316"),
            (-1.5, "-1.5"),
            (-1234.5678, "-1234.5678"),
            (0.5, "0.5"),
            (1_000_000.0, "1000000.0"),
            (
                f64::from_bits(0.001f64.to_bits() - 1),
                "9.999999999999998E-4",
            ),
            (f64::from_bits(1e7f64.to_bits() - 1), "9999999.999999998"),
            (2.5e-3, "0.0025"),
            (3.0e10, "3.0E10"),
            (-7.5e-7, "-7.5E-7"),
            (1.0 / 3.0, "0.3333333333333333"),
            (2.0 / 3.0, "0.6666666666666666"),
            (100.0 / 3.0, "33.333333333333336"),
            (1e100, "1.0E100"),
            (1.2e-100, "1.2E-100"),
            (6_543_210.5, "6543210.5"),
        ];
        for (v, want) in cases {
            assert_eq!(java_double_to_string(v), want, "{v:e}");
        }
    }

    #[test]
    fn the_plain_fraction_fast_path_writes_what_the_general_path_writes() {
        // splitmix64 over the bits of doubles of every magnitude, and over
        // cents and thousandths as prices are.
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        for i in 0..200_000 {
            let v = match i % 5 {
                0 => f64::from_bits(next()),
                1 => (next() % 2_000_000_000) as f64 / 100.0,
                2 => (next() % 20_000) as f64 / 1000.0 - 10.0,
                // One or two significant digits below 1: 0.5, 0.005, 0.12.
                3 => (next() % 100) as f64 / 10f64.powi((next() % 6) as i32 + 1),
                // Up to eight places: 123.456789, 0.0012345.
                _ => (next() % 10_000_000_000) as f64 / 10f64.powi((next() % 9) as i32),
            };
            if !v.is_finite() || v == 0.0 {
                continue;
            }
            let mut fast = String::new();
            write_java_double(v, &mut fast);
            let mut general = String::new();
            if v < 0.0 {
                general.push('-');
            }
            write_java_digits(v.abs(), integral_digits(v.abs()), &mut general);
            assert_eq!(fast, general, "{v:e}");
        }
    }

    #[test]
    fn decimals() {
        let cases: &[(i128, i8, &str)] = &[
            (1100, 2, "11.00"),
            (-50, 2, "-0.50"),
            (0, 3, "0.000"),
            (5, 3, "0.005"),
            (-5, 3, "-0.005"),
            (123, 0, "123"),
            (0, 0, "0"),
            (1234567899, 2, "12345678.99"),
            (12, -2, "1200"),
            (i128::MIN, 0, "-170141183460469231731687303715884105728"),
        ];
        for &(v, s, want) in cases {
            let mut out = String::new();
            write_decimal(v, s, &mut out);
            assert_eq!(out, want, "{v} scale {s}");
        }
    }

    #[test]
    fn timestamps() -> Result<()> {
        let cases: &[(i64, u8, &str)] = &[
            (0, 3, "1970-01-01 00:00:00.000"),
            (5_000, 3, "1970-01-01 00:00:05.000"),
            (-1, 3, "1969-12-31 23:59:59.999"),
            (-1, 0, "1969-12-31 23:59:59"),
            (1_577_934_245_987, 0, "2020-01-02 03:04:05"),
            (1_577_934_245_987, 1, "2020-01-02 03:04:05.9"),
            (1_577_934_245_987, 6, "2020-01-02 03:04:05.987000"),
            (1_577_934_245_000, 9, "2020-01-02 03:04:05.000000000"),
            (-2_208_988_800_000, 3, "1900-01-01 00:00:00.000"),
            (-62_135_596_800_000, 3, "0001-01-01 00:00:00.000"),
            (253_402_300_800_000, 3, "+10000-01-01 00:00:00.000"),
        ];
        for &(ms, p, want) in cases {
            let mut out = String::new();
            write_timestamp(ms, p, &mut out)?;
            assert_eq!(out, want, "{ms} ms, precision {p}");
        }
        let mut out = String::new();
        assert!(write_timestamp(i64::MAX, 3, &mut out).is_err());
        assert!(write_timestamp(i64::MIN, 3, &mut out).is_err());
        Ok(())
    }

    #[test]
    fn ltz_is_shown_in_the_session_zone() -> Result<()> {
        let shanghai: chrono_tz::Tz = chrono_tz::Asia::Shanghai;
        let arr = TimestampMillisecondArray::from(vec![1_577_836_800_000, -1]).with_timezone("UTC");
        let cases: &[(usize, chrono_tz::Tz, &str)] = &[
            (0, chrono_tz::UTC, "2020-01-01 00:00:00.000"),
            (0, shanghai, "2020-01-01 08:00:00.000"),
            (1, chrono_tz::UTC, "1969-12-31 23:59:59.999"),
            (1, chrono_tz::America::New_York, "1969-12-31 18:59:59.999"),
        ];
        for &(row, tz, want) in cases {
            let mut out = String::new();
            format_value(&arr, &SqlType::TimestampLtz(3), row, tz, &mut out)?;
            assert_eq!(out, want);
        }
        Ok(())
    }

    #[test]
    fn changelog_lines() -> Result<()> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(vec![Some("k"), None])),
            Arc::new(TimestampMillisecondArray::from(vec![0, 5_000])),
            Arc::new(Int64Array::from(vec![4, -1])),
            Arc::new(BooleanArray::from(vec![Some(true), Some(false)])),
            Arc::new(Float64Array::from(vec![Some(1e7), None])),
            Arc::new(Decimal128Array::from(vec![1100, -50]).with_precision_and_scale(10, 2)?),
            Arc::new(Int32Array::from(vec![Some(7), None])),
            Arc::new(NullArray::new(2)),
        ];
        let batch = RecordBatch::try_from_iter(
            columns
                .into_iter()
                .enumerate()
                .map(|(i, c)| (format!("c{i}"), c)),
        )?;
        let types = [
            SqlType::String,
            SqlType::Timestamp(3),
            SqlType::BigInt,
            SqlType::Boolean,
            SqlType::Double,
            SqlType::Decimal(10, 2),
            SqlType::Int,
            SqlType::Null,
        ];
        let mut out = String::new();
        write_changelog(
            &batch,
            &types,
            &[RowKind::Insert, RowKind::UpdateBefore],
            chrono_tz::UTC,
            &mut out,
        )?;
        assert_eq!(
            out,
            "+I[k, 1970-01-01 00:00:00.000, 4, TRUE, 1.0E7, 11.00, 7, <NULL>]\n\
             -U[<NULL>, 1970-01-01 00:00:05.000, -1, FALSE, <NULL>, -0.50, <NULL>, <NULL>]\n"
        );
        Ok(())
    }

    #[test]
    fn mismatches_are_errors_not_panics() -> Result<()> {
        let ints: ArrayRef = Arc::new(Int32Array::from(vec![1]));
        let batch = RecordBatch::try_from_iter([("a", ints.clone())])?;
        let cases: Vec<(&str, Result<()>)> = vec![
            (
                "wrong type",
                format_value(
                    &ints,
                    &SqlType::String,
                    0,
                    chrono_tz::UTC,
                    &mut String::new(),
                ),
            ),
            (
                "row past the end",
                format_value(&ints, &SqlType::Int, 1, chrono_tz::UTC, &mut String::new()),
            ),
            (
                "too few types",
                write_changelog(
                    &batch,
                    &[],
                    &[RowKind::Insert],
                    chrono_tz::UTC,
                    &mut String::new(),
                ),
            ),
            (
                "too few kinds",
                write_changelog(
                    &batch,
                    &[SqlType::Int],
                    &[],
                    chrono_tz::UTC,
                    &mut String::new(),
                ),
            ),
        ];
        for (name, result) in cases {
            assert!(
                matches!(result, Err(Error::Internal(_))),
                "{name}: {result:?}"
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod java17_tests {
    use super::java_double_to_string;

    #[test]
    fn whole_numbers_print_as_java_17_does() {
        let cases = [
            (100_000_000_000_000_848.0, "1.00000000000000848E17"),
            (282_879_384_806_159_008.0, "2.82879384806159008E17"),
            (1.0e7, "1.0E7"),
            (1.0e18, "1.0E18"),
            (1_234_567.0, "1234567.0"),
            (12_345_678.0, "1.2345678E7"),
            (-9_007_199_254_740_992.0, "-9.007199254740992E15"),
            (0.5, "0.5"),
        ];
        for (v, want) in cases {
            assert_eq!(java_double_to_string(v), want, "{v}");
        }
    }
}

#[cfg(test)]
mod float_date_time_tests {
    use super::{write_date, write_java_float, write_time, TimeFraction};

    #[test]
    fn java_floats_print_as_flink_prints_them() {
        // Each printed by Flink 2.3 (Java 17) from a FLOAT column.
        let cases = [
            (1e17f32, "9.9999998E16"),
            (1.0e10, "1.0E10"),
            (0.1, "0.1"),
            (1.0e-5, "1.0E-5"),
            (123_456_789.0, "1.23456792E8"),
            (16_777_217.0, "1.6777216E7"),
            (f32::MAX, "3.4028235E38"),
            (1.4e-45, "1.4E-45"),
            (9.999_999e-4, "9.999999E-4"),
            (0.001, "0.001"),
            (1.0e7, "1.0E7"),
            (9_999_999.0, "9999999.0"),
            (1_099_511_627_776.0, "1.09951163E12"),
            (33_554_436.0, "3.3554436E7"),
            (-0.0, "-0.0"),
            (f32::NAN, "NaN"),
            (f32::NEG_INFINITY, "-Infinity"),
            (f32::INFINITY, "Infinity"),
            (1.0e23, "1.0E23"),
            (2.0e-7, "2.0E-7"),
            (0.3, "0.3"),
            (100.0, "100.0"),
            (1.175_494_2e-38, "1.1754942E-38"),
            (8_589_973_504.0, "8.5899735E9"),
            (1.5, "1.5"),
            (-2.5, "-2.5"),
            (0.1 * 0.1, "0.010000001"),
            (1.0e10 / 3.0, "3.33333325E9"),
        ];
        for (v, want) in cases {
            let mut out = String::new();
            write_java_float(v, &mut out);
            assert_eq!(out, want, "{v:e}");
        }
        // Java 17 prints the smallest normal float as 1.17549435E-38; this
        // gives the shortest form that reads back, as Java 19 and later do.
        let mut out = String::new();
        write_java_float(f32::MIN_POSITIVE, &mut out);
        assert_eq!(out, "1.1754944E-38");
    }

    #[test]
    fn dates_and_times() {
        let date = |d| {
            let mut out = String::new();
            write_date(d, &mut out).map(|_| out)
        };
        assert_eq!(date(0).ok().as_deref(), Some("1970-01-01"));
        assert_eq!(date(19_783).ok().as_deref(), Some("2024-03-01"));
        assert_eq!(date(-1).ok().as_deref(), Some("1969-12-31"));
        assert!(date(i32::MAX).is_err());
        let time = |ms, p, f| {
            let mut out = String::new();
            write_time(ms, p, f, &mut out);
            out
        };
        let t = 45_296_789; // 12:34:56.789
        assert_eq!(time(t, 0, TimeFraction::Shown), "12:34:56");
        assert_eq!(time(t, 3, TimeFraction::Shown), "12:34:56.789");
        assert_eq!(time(t, 2, TimeFraction::Shown), "12:34:56.78");
        assert_eq!(time(t - 789, 3, TimeFraction::Shown), "12:34:56.0");
        assert_eq!(time(t - 789, 3, TimeFraction::Iso), "12:34:56");
        assert_eq!(time(100, 3, TimeFraction::Shown), "00:00:00.1");
        assert_eq!(time(100, 3, TimeFraction::Iso), "00:00:00.1");
        assert_eq!(time(86_399_999, 3, TimeFraction::Iso), "23:59:59.999");
    }
}
