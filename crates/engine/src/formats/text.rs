//! The rules by which text becomes a typed value, shared by every format,
//! CAST and the connectors: integers, Java's floats and doubles, decimals,
//! booleans, dates, times and timestamps, each as Flink reads them.
//!
//! Flink's behaviour that is kept on purpose:
//! - INT, BIGINT, DOUBLE, BOOLEAN and TIMESTAMP text is trimmed; DECIMAL and
//!   STRING text is not.
//! - BOOLEAN is `true` in any case, and anything else is `false`.
//! - DOUBLE takes Java's syntax (`1d`, `.5`, `NaN`, `-Infinity`, `1e400` is
//!   Infinity); DECIMAL rounds HALF_UP to its scale.
//! - TIMESTAMP is `yyyy-MM-dd HH:mm:ss[.f…]` with 0-9 fraction digits; a day
//!   past the end of its month is clamped to the last day, and `24:00:00`
//!   is midnight of the next day. TIMESTAMP_LTZ text ends in `Z` and is UTC.
//! - TINYINT, SMALLINT and FLOAT text is trimmed; a small integer that does
//!   not fit is an error, a FLOAT is rounded once from the text.
//! - DATE and TIME follow the format ([`TextDialect`]): the csv format reads
//!   a DATE as `Date.valueOf` (a day past the month's end rolls over) and a
//!   TIME as `ISO_LOCAL_TIME`; the json format as `ISO_LOCAL_DATE` and
//!   `HH:mm:ss[.f]`; CAST reads both leniently (trimmed, one-digit fields,
//!   a time after a day dropped).
//!
//! Where tidemark goes further than Flink:
//! - TIMESTAMP_LTZ text without `Z` is a wall-clock time in the session
//!   time zone.

use crate::time::zone::local_to_instant;
use chrono::NaiveDate;

/// Which format's rules a [`Parser`] reads DATE and TIME text by: Flink's
/// csv and json formats read them differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TextDialect {
    /// A DATE as Java's `Date.valueOf` (`2024-3-1`; a day past the month's
    /// end rolls over, `2024-02-30` is 2024-03-01); a TIME as
    /// `ISO_LOCAL_TIME` (`12:34`, `12:34:56`, `12:34:56.`, `12:34:56.5`).
    Csv,
    /// A DATE as `ISO_LOCAL_DATE` (`2024-03-01` only, a day that exists); a
    /// TIME as `HH:mm:ss[.f]`, with `24:00:00` read as midnight.
    Json,
}

/// State the value parsers keep between rows.
pub(crate) struct Parser {
    pub(super) tz: chrono_tz::Tz,
    /// The rules DATE and TIME text is read by.
    pub(super) dialect: TextDialect,
    /// The last date parsed and its day number: timestamp columns mostly
    /// repeat the date of the row before.
    last_date: Option<([u8; 10], i64)>,
}

/// Epoch milliseconds of a timestamp written as the CSV format reads it
/// (CAST from STRING uses the same rules); a date alone is its midnight.
pub(crate) fn parse_timestamp(text: &str, ltz: bool, tz: chrono_tz::Tz) -> Option<i64> {
    let mut parser = Parser {
        tz,
        dialect: TextDialect::Csv,
        last_date: None,
    };
    let trimmed = text.trim();
    if trimmed.len() == 10 {
        return parser.timestamp(format!("{trimmed} 00:00:00").as_bytes(), ltz);
    }
    parser.timestamp(trimmed.as_bytes(), ltz)
}

impl Parser {
    /// Value parsers for the session time zone `tz`.
    pub(crate) fn new(tz: chrono_tz::Tz) -> Self {
        Parser {
            tz,
            dialect: TextDialect::Csv,
            last_date: None,
        }
    }

    /// The same parsers, reading DATE and TIME by `dialect`'s rules.
    pub(crate) fn with_dialect(mut self, dialect: TextDialect) -> Self {
        self.dialect = dialect;
        self
    }

    /// A DATE field, by the format's rules.
    pub(super) fn date(&self, text: &[u8]) -> Option<i32> {
        match self.dialect {
            TextDialect::Csv => parse_date_rolling(text),
            TextDialect::Json => parse_iso_date(text),
        }
    }

    /// A TIME(`precision`) field, by the format's rules.
    pub(super) fn time(&self, text: &[u8], precision: u8) -> Option<i32> {
        let shape = match self.dialect {
            TextDialect::Csv => TimeShape::IsoLocal,
            TextDialect::Json => TimeShape::Seconds,
        };
        parse_time_shaped(text, precision, shape)
    }

    /// Epoch milliseconds of `yyyy-MM-dd HH:mm:ss[.fffffffff]`; for
    /// TIMESTAMP_LTZ with an optional `Z`. Like Flink, no `T` separator.
    pub(super) fn timestamp(&mut self, text: &[u8], ltz: bool) -> Option<i64> {
        let t = java_trim(text);
        let (t, utc) = match t.split_last() {
            Some((b'Z', rest)) if ltz => (rest, true),
            _ => (t, false),
        };
        if t.len() < 19
            || t[4] != b'-'
            || t[7] != b'-'
            || t[10] != b' '
            || t[13] != b':'
            || t[16] != b':'
        {
            return None;
        }
        let mut hour = two_digits(t[11], t[12])?;
        let minute = two_digits(t[14], t[15])?;
        let second = two_digits(t[17], t[18])?;
        let mut millis = 0;
        let mut fraction_is_zero = true;
        match &t[19..] {
            [] => {}
            // Milliseconds, as most timestamps are written.
            [b'.', a, b, c] => {
                let (a, b, c) = (digit(*a)?, digit(*b)?, digit(*c)?);
                millis = a * 100 + b * 10 + c;
                fraction_is_zero = millis == 0;
            }
            [b'.', frac @ ..] if frac.len() <= 9 => {
                for (i, &d) in frac.iter().enumerate() {
                    if !d.is_ascii_digit() {
                        return None;
                    }
                    if i < 3 {
                        millis += u32::from(d - b'0') * [100, 10, 1][i];
                    }
                    fraction_is_zero &= d == b'0';
                }
            }
            _ => return None,
        }
        if minute > 59 || second > 59 {
            return None;
        }
        let mut days = self.days_from_epoch(&t[..10])?;
        // As Java's resolver does: 24:00:00 is the midnight that ends the day.
        if hour == 24 && minute == 0 && second == 0 && fraction_is_zero {
            hour = 0;
            days += 1;
        } else if hour > 23 {
            return None;
        }
        let wall = days * 86_400_000
            + i64::from((hour * 60 + minute) * 60 + second) * 1000
            + i64::from(millis);
        if !ltz || utc || self.tz == chrono_tz::UTC {
            return Some(wall);
        }
        local_to_instant(wall, self.tz)
    }

    /// The day number of a `yyyy-MM-dd` date; the last one is kept, as
    /// timestamp columns mostly repeat the date of the row before.
    fn days_from_epoch(&mut self, date: &[u8]) -> Option<i64> {
        if let Some((text, days)) = &self.last_date {
            if text[..] == *date {
                return Some(*days);
            }
        }
        let year = digits(&date[0..4])? as i32;
        let month = digits(&date[5..7])?;
        let day = digits(&date[8..10])?;
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            return None;
        }
        // As Java's default resolver does, a day past the end of its month
        // is the month's last day (2019-02-29 is 2019-02-28).
        let resolved = (28..=day)
            .rev()
            .find_map(|d| NaiveDate::from_ymd_opt(year, month, d))
            .or_else(|| NaiveDate::from_ymd_opt(year, month, day))?;
        let days = resolved.signed_duration_since(UNIX_EPOCH_DATE).num_days();
        self.last_date = Some((date.try_into().ok()?, days));
        Some(days)
    }
}

const UNIX_EPOCH_DATE: NaiveDate = match NaiveDate::from_ymd_opt(1970, 1, 1) {
    Some(d) => d,
    None => NaiveDate::MIN,
};

/// One decimal digit's value.
fn digit(b: u8) -> Option<u32> {
    let d = b.wrapping_sub(b'0');
    (d < 10).then_some(u32::from(d))
}

/// Two decimal digits' value.
fn two_digits(tens: u8, ones: u8) -> Option<u32> {
    Some(digit(tens)? * 10 + digit(ones)?)
}

/// Digits only, as a number.
fn digits(text: &[u8]) -> Option<u32> {
    text.iter().try_fold(0u32, |acc, &d| {
        d.is_ascii_digit().then(|| acc * 10 + u32::from(d - b'0'))
    })
}

/// Java's `String.trim`: strips every byte up to and including space.
pub(crate) fn java_trim(text: &[u8]) -> &[u8] {
    let start = text.iter().position(|&b| b > b' ').unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|&b| b > b' ')
        .map_or(start, |i| i + 1);
    &text[start..end]
}

/// As Flink's CSV format reads BOOLEAN: `true` in any case is true and any
/// other text is false, never an error. Invalid UTF-8 is the one exception,
/// so that it is reported like in every other column.
pub(super) fn parse_boolean(text: &[u8]) -> Option<bool> {
    let t = java_trim(text);
    if t.eq_ignore_ascii_case(b"true") {
        Some(true)
    } else if t.is_ascii() || std::str::from_utf8(t).is_ok() {
        Some(false)
    } else {
        None
    }
}

/// A decimal integer with an optional sign, trimmed; None past i64.
pub(crate) fn parse_i64(text: &[u8]) -> Option<i64> {
    // Up to 16 plain digits, nearly every field, eight at a time: no sign,
    // no space, no overflow to check for, and no branch on each digit.
    match text.len() {
        1..=8 => {
            if let Some(value) = eight_digits(text) {
                return i64::try_from(value).ok();
            }
        }
        9..=16 => {
            let (high, low) = text.split_at(text.len() - 8);
            if let (Some(high), Some(low)) = (eight_digits(high), eight_digits(low)) {
                return i64::try_from(high * 100_000_000 + low).ok();
            }
        }
        _ => {}
    }
    parse_i64_in_full(text)
}

/// The value of 1 to 8 ASCII digits, None if any byte is not one. The
/// digits are read into one word, led by '0's to eight, checked all at
/// once (each byte's high half 3 and low half at most 9), and combined in
/// three steps: pairs of digits, then fours, then the eight.
#[inline]
fn eight_digits(text: &[u8]) -> Option<u64> {
    const ZEROS: u64 = u64::from_le_bytes([b'0'; 8]);
    const HIGH_HALVES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    let n = text.len();
    if !(1..=8).contains(&n) {
        return None;
    }
    // The text's bytes at places 0..n of the word (the first digit
    // lowest), read as two loads that may overlap: an overlapping byte is
    // the same byte in both, at the same place.
    let text_bytes = if n >= 4 {
        let first = text
            .first_chunk::<4>()
            .map_or(0, |b| u32::from_le_bytes(*b));
        let last = text.last_chunk::<4>().map_or(0, |b| u32::from_le_bytes(*b));
        u64::from(first) | u64::from(last) << (8 * (n - 4))
    } else if n >= 2 {
        let first = text
            .first_chunk::<2>()
            .map_or(0, |b| u16::from_le_bytes(*b));
        let last = text.last_chunk::<2>().map_or(0, |b| u16::from_le_bytes(*b));
        u64::from(first) | u64::from(last) << (8 * (n - 2))
    } else {
        u64::from(text[0])
    };
    // Moved up to the word's top, '0's below: the most significant digit
    // lowest, as a number's digits read left to right in little-endian.
    let v = text_bytes << (8 * (8 - n)) | ZEROS.checked_shr(8 * n as u32).unwrap_or(0);
    if v & HIGH_HALVES != ZEROS || v.wrapping_add(0x0606_0606_0606_0606) & HIGH_HALVES != ZEROS {
        return None;
    }
    let v = v - ZEROS;
    let v = (v.wrapping_mul(10) + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100) + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    Some((v.wrapping_mul(10_000) + (v >> 32)) & 0xFFFF_FFFF)
}

/// [`parse_i64`] for any text: trimmed as Java trims, with a sign, and
/// checked for overflow.
fn parse_i64_in_full(text: &[u8]) -> Option<i64> {
    let t = java_trim(text);
    let (negative, body) = match t.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, t),
    };
    if body.is_empty() {
        return None;
    }
    let mut magnitude: u64 = 0;
    for &d in body {
        if !d.is_ascii_digit() {
            return None;
        }
        magnitude = magnitude
            .checked_mul(10)?
            .checked_add(u64::from(d - b'0'))?;
    }
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// Java float text (`Double.parseDouble`, `Float.parseFloat`), trimmed:
/// its sign, and NaN, Infinity or the number without a `d`/`f` suffix.
enum JavaFloat<'t> {
    NaN,
    Infinity,
    Number(&'t [u8]),
}

fn java_float_text(text: &[u8]) -> Option<(bool, JavaFloat<'_>)> {
    let t = java_trim(text);
    let (negative, body) = match t.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, t),
    };
    let value = match body {
        b"NaN" => JavaFloat::NaN,
        b"Infinity" => JavaFloat::Infinity,
        _ => JavaFloat::Number(match body.split_last()? {
            (b'd' | b'D' | b'f' | b'F', rest) => rest,
            _ => body,
        }),
    };
    Some((negative, value))
}

/// Java's `Double.parseDouble` on trimmed text: `1.5`, `-2`, `.5`, `5.`,
/// `1e3`, `1d`, `NaN`, `-Infinity`; out-of-range exponents give ±Infinity
/// or ±0. Hexadecimal floats are not read.
pub(crate) fn parse_java_double(text: &[u8]) -> Option<f64> {
    // Most fields are digits and a point alone, which read the same with
    // or without the trimming and the checks for a sign, NaN, Infinity or
    // a suffix.
    if let Some(v) = short_decimal(text) {
        return Some(v);
    }
    let (negative, value) = java_float_text(text)?;
    let magnitude = match value {
        JavaFloat::NaN => f64::NAN,
        JavaFloat::Infinity => f64::INFINITY,
        JavaFloat::Number(number) => match short_decimal(number) {
            Some(v) => v,
            None if is_java_decimal_float(number) => {
                std::str::from_utf8(number).ok()?.parse::<f64>().ok()?
            }
            None => return None,
        },
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// Java's `Float.parseFloat` on trimmed text: the syntax of
/// [`parse_java_double`], rounded once, straight to the nearest float.
pub(crate) fn parse_java_float(text: &[u8]) -> Option<f32> {
    let (negative, value) = java_float_text(text)?;
    let magnitude = match value {
        JavaFloat::NaN => f32::NAN,
        JavaFloat::Infinity => f32::INFINITY,
        JavaFloat::Number(number) if is_java_decimal_float(number) => {
            std::str::from_utf8(number).ok()?.parse::<f32>().ok()?
        }
        JavaFloat::Number(_) => return None,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// Year, month and day of `yyyy-M-d`: four digits, then one or two each.
fn year_month_day(text: &[u8]) -> Option<(i32, u32, u32)> {
    let mut parts = text.splitn(3, |&b| b == b'-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if y.len() != 4 || !(1..=2).contains(&m.len()) || !(1..=2).contains(&d.len()) {
        return None;
    }
    Some((digits(y)? as i32, digits(m)?, digits(d)?))
}

fn days_since_epoch(date: NaiveDate) -> Option<i32> {
    i32::try_from(date.signed_duration_since(UNIX_EPOCH_DATE).num_days()).ok()
}

/// A day as `yyyy-M-d` that exists, in days since 1970-01-01.
pub(crate) fn parse_date(text: &[u8]) -> Option<i32> {
    let (y, m, d) = year_month_day(text)?;
    days_since_epoch(NaiveDate::from_ymd_opt(y, m, d)?)
}

/// A DATE as Flink's csv format reads it, with Java's `Date.valueOf`:
/// `yyyy-M-d` with a month of 1 to 12 and a day of 1 to 31, counted from
/// the first of the month, so that 2024-02-30 is 2024-03-01.
pub(crate) fn parse_date_rolling(text: &[u8]) -> Option<i32> {
    let (y, m, d) = year_month_day(text)?;
    if !(1..=31).contains(&d) {
        return None;
    }
    let first = NaiveDate::from_ymd_opt(y, m, 1)?;
    days_since_epoch(first.checked_add_days(chrono::Days::new(u64::from(d - 1)))?)
}

/// A DATE as Java's `ISO_LOCAL_DATE` reads it (Flink's json format):
/// `yyyy-MM-dd`, a day that exists.
pub(crate) fn parse_iso_date(text: &[u8]) -> Option<i32> {
    if text.len() != 10 {
        return None;
    }
    parse_date(text)
}

/// A DATE as Flink's CAST reads text: trimmed, and a time after the day
/// (`2024-03-01 10:00:00`) is dropped.
pub(crate) fn parse_date_lenient(text: &[u8]) -> Option<i32> {
    let t = java_trim(text);
    let day = t.split(|&b| b == b' ' || b == b'T').next()?;
    parse_date(day)
}

/// The shapes of time-of-day text the readers take.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TimeShape {
    /// CAST: trimmed, `H:m:s[.f]` with fields of one or two digits.
    Cast,
    /// Java's `ISO_LOCAL_TIME` (Flink's csv format): `HH:mm[:ss[.f]]`, the
    /// fraction of 0 to 9 digits.
    IsoLocal,
    /// `HH:mm:ss[.f]` (Flink's json format), `24:00:00` as midnight.
    Seconds,
}

/// A time of day as CAST reads text (trimmed; hours, minutes and seconds
/// of one or two digits; a fraction of 1 to 9 digits), in milliseconds
/// since midnight with the digits past `precision` cut; None for text of
/// another shape or a time past 23:59:59.999999999.
pub(crate) fn parse_time(text: &[u8], precision: u8) -> Option<i32> {
    parse_time_shaped(text, precision, TimeShape::Cast)
}

fn parse_time_shaped(text: &[u8], precision: u8, shape: TimeShape) -> Option<i32> {
    let t = if shape == TimeShape::Cast {
        java_trim(text)
    } else {
        text
    };
    let (clock, fraction) = match t.iter().position(|&b| b == b'.') {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let fields: Vec<&[u8]> = clock.split(|&b| b == b':').collect();
    let width_ok = |f: &[u8]| match shape {
        TimeShape::Cast => (1..=2).contains(&f.len()),
        _ => f.len() == 2,
    };
    let (h, m, sec) = match (fields.as_slice(), shape) {
        ([h, m, s], _) if width_ok(h) && width_ok(m) && width_ok(s) => {
            (digits(h)?, digits(m)?, digits(s)?)
        }
        // ISO_LOCAL_TIME takes the seconds as optional, and a fraction
        // only after them.
        ([h, m], TimeShape::IsoLocal) if width_ok(h) && width_ok(m) && fraction.is_none() => {
            (digits(h)?, digits(m)?, 0)
        }
        _ => return None,
    };
    let mut millis = 0;
    let mut fraction_is_zero = true;
    if let Some(frac) = fraction {
        let empty_ok = shape != TimeShape::Cast;
        if (frac.is_empty() && !empty_ok) || frac.len() > 9 || !frac.iter().all(u8::is_ascii_digit)
        {
            return None;
        }
        for (i, &d) in frac.iter().enumerate() {
            if i < 3 {
                millis += u32::from(d - b'0') * [100, 10, 1][i];
            }
            fraction_is_zero &= d == b'0';
        }
    }
    if m > 59 || sec > 59 {
        return None;
    }
    let h = match h {
        0..=23 => h,
        // As Java's default (smart) resolver: 24:00:00 ends the day.
        24 if shape == TimeShape::Seconds && m == 0 && sec == 0 && fraction_is_zero => 0,
        _ => return None,
    };
    Some(truncate_time(
        ((h * 60 + m) * 60 + sec) as i32 * 1000 + millis as i32,
        precision,
    ))
}

/// Milliseconds since midnight with the digits past `precision` cut.
pub(crate) fn truncate_time(ms_of_day: i32, precision: u8) -> i32 {
    let unit = 10i32.pow(u32::from(3 - precision.min(3)));
    ms_of_day - ms_of_day.rem_euclid(unit)
}

/// `digits [. digits]` with at most 15 digits, the common case, read
/// without the general algorithm: the digits as an integer and the power
/// of ten are both exact in an f64, so the one division is rounded
/// correctly and gives the value `str::parse` gives.
fn short_decimal(t: &[u8]) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    // More digits than an f64 holds exactly go to the general parser;
    // sixteen bytes at most also keep the u64 mantissa from overflowing.
    if t.len() > 16 {
        return None;
    }
    let (mut mantissa, mut point) = (0u64, None::<usize>);
    for (i, &b) in t.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d < 10 {
            mantissa = mantissa * 10 + u64::from(d);
        } else if b == b'.' && point.is_none() {
            point = Some(i);
        } else {
            return None;
        }
    }
    let digits = t.len() - usize::from(point.is_some());
    if digits == 0 || digits > 15 {
        return None;
    }
    let fraction = point.map_or(0, |p| t.len() - 1 - p);
    Some(mantissa as f64 / POW10[fraction])
}

/// `digits [. digits] [e [sign] digits]` with a digit before or after the
/// point; what Java and Rust both read the same way.
fn is_java_decimal_float(t: &[u8]) -> bool {
    let int_len = t.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut rest = &t[int_len..];
    let mut frac_len = 0;
    if let Some((b'.', after)) = rest.split_first() {
        frac_len = after.iter().take_while(|b| b.is_ascii_digit()).count();
        rest = &after[frac_len..];
    }
    if int_len + frac_len == 0 {
        return false;
    }
    match rest.split_first() {
        None => true,
        Some((b'e' | b'E', exp)) => {
            let exp = match exp.split_first() {
                Some((b'+' | b'-', digits)) => digits,
                _ => exp,
            };
            !exp.is_empty() && exp.iter().all(u8::is_ascii_digit)
        }
        Some(_) => false,
    }
}

/// Java's `new BigDecimal(text)` (no trimming) rounded HALF_UP to `scale`,
/// as the unscaled value; None when it does not parse or needs more than
/// `precision` digits.
pub(crate) fn parse_decimal(text: &[u8], precision: u8, scale: i8) -> Option<i128> {
    let (negative, body) = match text.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, text),
    };
    let int_len = body.iter().take_while(|b| b.is_ascii_digit()).count();
    let (int_digits, mut rest) = body.split_at(int_len);
    let mut frac_digits: &[u8] = &[];
    if let Some((b'.', after)) = rest.split_first() {
        let n = after.iter().take_while(|b| b.is_ascii_digit()).count();
        frac_digits = &after[..n];
        rest = &after[n..];
    }
    if int_digits.is_empty() && frac_digits.is_empty() {
        return None;
    }
    let exponent: i64 = match rest.split_first() {
        None => 0,
        Some((b'e' | b'E', exp)) => {
            let (sign, digits) = match exp.split_first() {
                Some((b'-', d)) => (-1, d),
                Some((b'+', d)) => (1, d),
                _ => (1, exp),
            };
            // BigDecimal takes an int exponent.
            if digits.is_empty() || digits.len() > 10 || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let e = sign
                * digits
                    .iter()
                    .fold(0i64, |a, &d| a * 10 + i64::from(d - b'0'));
            i32::try_from(e).ok()?;
            e
        }
        Some(_) => return None,
    };
    // The value is 0.D × 10^point for the digits D; the unscaled result
    // keeps the first `point + scale` of them and rounds on the next one.
    let all_digits = || int_digits.iter().chain(frac_digits);
    let n_digits = (int_digits.len() + frac_digits.len()) as i64;
    let keep = int_digits.len() as i64 + exponent + i64::from(scale);
    let limit = 10i128.checked_pow(u32::from(precision))?;
    let mut unscaled: i128 = 0;
    // Checked steps: one more digit past the limit can overflow i128.
    for &d in all_digits().take(keep.clamp(0, n_digits) as usize) {
        unscaled = unscaled
            .checked_mul(10)?
            .checked_add(i128::from(d - b'0'))?;
        if unscaled >= limit {
            return None;
        }
    }
    if unscaled != 0 {
        for _ in n_digits..keep {
            unscaled = unscaled.checked_mul(10)?;
            if unscaled >= limit {
                return None;
            }
        }
    }
    let round_digit = if (0..n_digits).contains(&keep) {
        all_digits().nth(keep as usize).copied().unwrap_or(b'0')
    } else {
        b'0'
    };
    if round_digit >= b'5' {
        unscaled += 1;
        if unscaled >= limit {
            return None;
        }
    }
    Some(if negative { -unscaled } else { unscaled })
}

#[cfg(test)]
mod tests {
    use super::*;
    // The rules are read through the csv format, whose reader they were
    // written for: a value that does not parse is its parse error.
    use crate::formats::csv::testing::{cols, read_all, rows, TempCsv};
    use crate::formats::csv::{CsvOptions, CsvSource};
    use crate::formats::open_file;
    use arrow::array::AsArray;
    use arrow::datatypes::TimestampMillisecondType;
    use tidemark_common::{Error, Result, SqlType};
    use SqlType::{
        BigInt, Boolean, Date, Decimal, Double, Float, Int, SmallInt, Time, Timestamp,
        TimestampLtz, TinyInt,
    };

    #[test]
    fn plain_digits_read_as_any_integer_text_does() {
        let texts = [
            "0",
            "7",
            "00042",
            "123456789012345678",
            "999999999999999999",
            "1234567890123456789",
            "9223372036854775807",
            "9223372036854775808",
            "12a",
            "1 2",
            " 12",
            "12 ",
            "-5",
            "+5",
            "",
            "1.0",
            "١٢",
            "/",
            ":",
        ];
        for text in texts {
            assert_eq!(
                parse_i64(text.as_bytes()),
                parse_i64_in_full(text.as_bytes()),
                "{text:?}"
            );
        }
        assert_eq!(parse_i64(b"000123"), Some(123));
        assert_eq!(
            parse_i64(b"123456789012345678"),
            Some(123_456_789_012_345_678)
        );
        assert_eq!(parse_i64(b"12:"), None);
    }

    #[test]
    fn digits_read_eight_at_a_time_read_as_one_at_a_time() {
        // Runs of digits of every length to 20, some with one byte
        // changed to a byte next to the digits, a sign, a space or a
        // byte past ASCII, at every place.
        let mut rng = crate::ops::testing::Rng(0x6469_6769_7473);
        let odd = [
            b'/', b':', b' ', b'-', b'+', b'.', 0x80, 0xB0, 0xF9, 0xFF, 0, b'a',
        ];
        for len in 1..=20 {
            for _ in 0..400 {
                let mut text: Vec<u8> = (0..len).map(|_| b'0' + rng.below(10) as u8).collect();
                if rng.below(2) == 0 {
                    let at = rng.below(len as u64) as usize;
                    text[at] = odd[rng.below(odd.len() as u64) as usize];
                }
                assert_eq!(parse_i64(&text), parse_i64_in_full(&text), "{text:?}");
            }
            let nines = vec![b'9'; len];
            assert_eq!(parse_i64(&nines), parse_i64_in_full(&nines), "{len} nines");
        }
    }

    #[test]
    fn casts_read_dates_and_times_leniently() {
        assert_eq!(parse_date_lenient(b" 2024-03-01 10:00:00 "), Some(19_783));
        assert_eq!(parse_date_lenient(b"2024-03-01T10:00"), Some(19_783));
        assert_eq!(parse_date_lenient(b"2024-02-30"), None);
        assert_eq!(parse_time(b" 1:2:3 ", 0), Some(3_723_000));
        assert_eq!(parse_time(b"12:34:56.789", 1), Some(45_296_700));
        assert_eq!(parse_time(b"25:00:00", 0), None);
        assert_eq!(parse_time(b"12:34:56.", 0), None);
        assert_eq!(truncate_time(45_296_789, 2), 45_296_780);
    }

    #[test]
    fn json_reads_dates_and_times_as_iso() {
        let json = Parser::new(chrono_tz::UTC).with_dialect(TextDialect::Json);
        // As Flink 2.3's json format reads them.
        assert_eq!(json.date(b"2024-03-01"), Some(19_783));
        assert_eq!(json.date(b"2024-3-1"), None);
        assert_eq!(json.date(b"2024-02-30"), None);
        assert_eq!(json.time(b"24:00:00", 0), Some(0));
        assert_eq!(json.time(b"12:34", 0), None);
        assert_eq!(json.time(b"12:34:56.123456789", 3), Some(45_296_123));
        assert_eq!(json.time(b"12:34:56Z", 0), None);
        let csv = Parser::new(chrono_tz::UTC);
        assert_eq!(csv.time(b"24:00:00", 0), None);
        assert_eq!(csv.date(b"2024-02-30"), Some(19_783));
    }

    #[test]
    fn floats_round_once() {
        // Just past halfway between 1 and the next float: read straight,
        // as Float.parseFloat reads it, it rounds up; through a double it
        // would land on halfway and round to even, down to 1.
        let text = "1.000000059604644775390625000000000000000000000000001";
        assert_eq!(parse_java_float(text.as_bytes()), Some(1.0 + f32::EPSILON));
        assert_eq!(parse_java_float(b"0x1p3"), None);
    }

    /// The date of the row before is remembered by its text: a row with
    /// the same date text reads as it would alone, and a different one is
    /// read afresh.
    #[test]
    fn timestamps_that_repeat_a_date_read_as_if_read_alone() {
        let texts = [
            "2020-02-30 00:00:00",
            "2020-02-30 24:00:00.000",
            "2020-02-30 23:59:59.999",
            "2020-02-3x 00:00:00",
            "2020-02-30 00:00:00.5",
            "2020-02-31 00:00:00.5",
            "2020-02-30 24:00:00.001",
            "2021-01-01 12:00:00.250",
        ];
        let mut in_turn = Parser::new(chrono_tz::UTC);
        for text in texts {
            let alone = Parser::new(chrono_tz::UTC).timestamp(text.as_bytes(), false);
            assert_eq!(in_turn.timestamp(text.as_bytes(), false), alone, "{text}");
        }
        assert_eq!(
            Parser::new(chrono_tz::UTC).timestamp(b"2020-02-30 24:00:00.000", false),
            Some(1_583_020_800_000)
        );
    }

    #[test]
    fn short_decimals_read_as_the_general_parser_reads_them() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut texts: Vec<String> = [
            "0",
            "0.0",
            "1.",
            ".5",
            "123456789012345",
            "0.000000000000001",
            "999999999999999",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let digits = format!("{}", state % 10u64.pow(1 + (state >> 60) as u32 % 15));
            let point = (state >> 40) as usize % (digits.len() + 1);
            texts.push(format!("{}.{}", &digits[..point], &digits[point..]));
        }
        for text in &texts {
            let want: f64 = text.parse().unwrap();
            let got = parse_java_double(text.as_bytes()).unwrap();
            assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        }
    }

    #[test]
    fn long_decimals_go_to_the_general_parser_without_overflow() {
        // Found by the csv fuzz target: digits worth more than u64::MAX
        // overflowed the exact short path's mantissa (a panic where
        // overflow is checked) before its 15-digit limit was looked at.
        for text in [
            "1234567890123456",
            "12345678901234567890",
            "99999999999999999999",
            "99999999999999999999999999",
            "0.00000000000000000000000001",
            "18446744073709551616.5",
            "-123456789012345678901234567890",
            "000000000000000000000000000001",
        ] {
            let want: f64 = text.parse().unwrap();
            let got = parse_java_double(text.as_bytes()).unwrap();
            assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        }
        assert_eq!(parse_java_double(b"12345678901234567890x"), None);
    }

    #[test]
    fn field_values_as_flink_reads_them() -> Result<()> {
        // (type, text, printed value or None for a parse error)
        let cases: &[(SqlType, &str, Option<&str>)] = &[
            (TinyInt, " -128 ", Some("-128")),
            (TinyInt, "127", Some("127")),
            (TinyInt, "128", None),
            (TinyInt, "1.0", None),
            (SmallInt, "-32768", Some("-32768")),
            (SmallInt, "32768", None),
            (Float, " 0.1 ", Some("0.1")),
            (Float, "1e39", Some("Infinity")),
            (Float, "3.4028235E38", Some("3.4028235E38")),
            (Float, "1.5f", Some("1.5")),
            (Float, "-NaN", Some("NaN")),
            (Float, "1_0", None),
            (Float, "", None),
            (Date, "2024-03-01", Some("2024-03-01")),
            (Date, "2024-3-1", Some("2024-03-01")),
            (Date, "1969-12-31", Some("1969-12-31")),
            (Date, "2024-02-30", Some("2024-03-01")),
            (Date, "2023-02-29", Some("2023-03-01")),
            (Date, "2024-02-32", None),
            (Date, "2024-13-01", None),
            (Date, "2024-03-01 10:00:00", None),
            (Date, " 2024-03-01", None),
            (Date, "24-03-01", None),
            (Date, "", None),
            (Time(0), "12:34:56", Some("12:34:56")),
            (Time(0), "23:59:59.999", Some("23:59:59")),
            (Time(3), "00:00:00.1", Some("00:00:00.1")),
            (Time(3), "12:34:56.789123", Some("12:34:56.789")),
            (Time(3), "23:59:59", Some("23:59:59.0")),
            (Time(0), "1:2:3", None),
            (Time(0), "24:00:00", None),
            (Time(0), "12:60:00", None),
            (Time(0), "12:34", Some("12:34:00")),
            (Time(0), "12:34.5", None),
            (Time(0), "12:34:56.", Some("12:34:56")),
            (Time(0), "12:34:56.1234567890", None),
            (Time(0), "", None),
            (Int, " 7 ", Some("7")),
            (Int, "+7", Some("7")),
            (Int, "007", Some("7")),
            (Int, "-2147483648", Some("-2147483648")),
            (Int, "2147483648", None),
            (Int, "", None),
            (Int, "1.0", None),
            (Int, "1_000", None),
            (Int, "-", None),
            (BigInt, "-0", Some("0")),
            (BigInt, "-9223372036854775808", Some("-9223372036854775808")),
            (BigInt, "9223372036854775808", None),
            (BigInt, "99999999999999999999999", None),
            (Double, " 2.5 ", Some("2.5")),
            (Double, ".5", Some("0.5")),
            (Double, "5.", Some("5.0")),
            (Double, "1d", Some("1.0")),
            (Double, "1.5F", Some("1.5")),
            (Double, "1e400", Some("Infinity")),
            (Double, "1E+3", Some("1000.0")),
            (Double, "-0.0", Some("-0.0")),
            (Double, "NaN", Some("NaN")),
            (Double, "-NaN", Some("NaN")),
            (Double, "+Infinity", Some("Infinity")),
            (Double, "-Infinity", Some("-Infinity")),
            (Double, "inf", None),
            (Double, "nan", None),
            (Double, "1_000", None),
            (Double, "1e", None),
            (Double, ".", None),
            (Double, "0x1p3", None),
            (Double, "", None),
            (Decimal(5, 2), "1.005", Some("1.01")),
            (Decimal(5, 2), "-1.005", Some("-1.01")),
            (Decimal(5, 2), "1.004999", Some("1.00")),
            (Decimal(5, 2), "99.999", Some("100.00")),
            (Decimal(5, 2), "999.99", Some("999.99")),
            (Decimal(5, 2), "999.995", None),
            (Decimal(5, 2), "1234.5", None),
            (Decimal(5, 2), "00012.3", Some("12.30")),
            (Decimal(5, 2), "1e2", Some("100.00")),
            (Decimal(5, 2), "1E-1", Some("0.10")),
            (Decimal(5, 2), "1e-3", Some("0.00")),
            (Decimal(5, 2), "5e-3", Some("0.01")),
            (Decimal(5, 2), "1e3", None),
            (Decimal(5, 2), "0e999999", Some("0.00")),
            (Decimal(5, 2), "1e99999999999", None),
            (Decimal(5, 2), ".5", Some("0.50")),
            (Decimal(5, 2), "5.", Some("5.00")),
            (Decimal(5, 2), "+1.5", Some("1.50")),
            (Decimal(5, 2), "-0", Some("0.00")),
            (Decimal(5, 2), " 1.5", None),
            (Decimal(5, 2), "1.2.3", None),
            (Decimal(5, 2), "", None),
            (
                Decimal(38, 0),
                "99999999999999999999999999999999999999",
                Some("99999999999999999999999999999999999999"),
            ),
            (
                Decimal(38, 0),
                "99999999999999999999999999999999999999.5",
                None,
            ),
            (Decimal(3, 3), "0.9995", None),
            (Decimal(3, 3), "0.0005", Some("0.001")),
            (Boolean, " TRUE ", Some("TRUE")),
            (Boolean, "tRuE", Some("TRUE")),
            (Boolean, "false", Some("FALSE")),
            (Boolean, "yes", Some("FALSE")),
            (Boolean, "1", Some("FALSE")),
            (Boolean, "", Some("FALSE")),
            (SqlType::String, "  a b ", Some("  a b ")),
            (SqlType::String, "", Some("")),
            (
                Timestamp(3),
                "2020-01-01 00:00:00",
                Some("2020-01-01 00:00:00.000"),
            ),
            (
                Timestamp(3),
                " 2020-01-01 00:00:00 ",
                Some("2020-01-01 00:00:00.000"),
            ),
            (Timestamp(3), "2020-01-01T00:00:00", None),
            (
                Timestamp(3),
                "2020-01-01 00:00:00.",
                Some("2020-01-01 00:00:00.000"),
            ),
            (
                Timestamp(3),
                "2020-01-01 00:00:00.1",
                Some("2020-01-01 00:00:00.100"),
            ),
            (
                Timestamp(3),
                "2020-01-01 00:00:00.123456789",
                Some("2020-01-01 00:00:00.123"),
            ),
            (Timestamp(3), "2020-01-01 00:00:00.1234567891", None),
            (
                Timestamp(3),
                "2020-02-30 00:00:00",
                Some("2020-02-29 00:00:00.000"),
            ),
            (
                Timestamp(3),
                "2019-02-29 00:00:00",
                Some("2019-02-28 00:00:00.000"),
            ),
            (
                Timestamp(3),
                "2020-04-31 12:00:00",
                Some("2020-04-30 12:00:00.000"),
            ),
            (Timestamp(3), "2020-02-32 00:00:00", None),
            (Timestamp(3), "2020-13-01 00:00:00", None),
            (Timestamp(3), "2020-00-01 00:00:00", None),
            (
                Timestamp(3),
                "2020-01-01 24:00:00",
                Some("2020-01-02 00:00:00.000"),
            ),
            (
                Timestamp(3),
                "2020-12-31 24:00:00.000",
                Some("2021-01-01 00:00:00.000"),
            ),
            (Timestamp(3), "2020-01-01 24:00:01", None),
            (Timestamp(3), "2020-01-01 23:59:60", None),
            (Timestamp(3), "2020-01-01 23:60:00", None),
            (Timestamp(3), "2020-01-01 0:00:00", None),
            (Timestamp(3), "2020-1-01 00:00:00", None),
            (Timestamp(3), "2020-01-01 00:00", None),
            (Timestamp(3), "2020-01-01", None),
            (Timestamp(3), "+2020-01-01 00:00:00", None),
            (Timestamp(3), "2020-01-01 00:00:00Z", None),
            (Timestamp(3), "2020-01-01 00:00:00.12a", None),
            (Timestamp(3), "2020-01-01 00:00:00.1a3", None),
            (Timestamp(3), "2020-01-01 00:00:00.a23", None),
            (Timestamp(3), "2020-01-01 0a:00:00.123", None),
            (Timestamp(3), "", None),
            (
                Timestamp(3),
                "1969-12-31 23:59:59.999",
                Some("1969-12-31 23:59:59.999"),
            ),
            (
                Timestamp(3),
                "0001-01-01 00:00:00",
                Some("0001-01-01 00:00:00.000"),
            ),
            (
                Timestamp(0),
                "2020-01-02 03:04:05.987",
                Some("2020-01-02 03:04:05"),
            ),
            (
                TimestampLtz(3),
                "2020-01-01 00:00:00Z",
                Some("2020-01-01 00:00:00.000"),
            ),
            (
                TimestampLtz(3),
                "2020-01-01 00:00:00.5Z",
                Some("2020-01-01 00:00:00.500"),
            ),
            (
                TimestampLtz(3),
                "2020-01-01 00:00:00",
                Some("2020-01-01 00:00:00.000"),
            ),
            (TimestampLtz(3), "2020-01-01 00:00:00ZZ", None),
        ];
        for (ty, text, want) in cases {
            let data = format!("{text}\n");
            let columns = [("c", ty.clone())];
            let got = read_all(data.as_bytes(), &columns, CsvOptions::default(), 4);
            match (want, got) {
                (Some(want), Ok((got, _))) => {
                    assert_eq!(got, rows(&[(1, want)]), "{ty} from '{text}'")
                }
                (None, Err(e)) => assert_eq!(
                    e.to_string().lines().next().unwrap_or_default(),
                    format!("t.csv:1: field 'c': cannot parse '{text}' as {ty}"),
                    "{ty} from '{text}'"
                ),
                (want, got) => panic!("{ty} from '{text}': want {want:?}, got {got:?}"),
            }
        }
        Ok(())
    }

    #[test]
    fn ltz_text_without_z_is_in_the_session_zone() -> Result<()> {
        let file = TempCsv::new(
            b"2020-01-01 08:00:00\n2020-01-01 00:00:00Z\n2021-03-14 02:30:00\n2021-11-07 01:30:00\n",
        )?;
        let cases: &[(chrono_tz::Tz, [i64; 4])] = &[
            (
                chrono_tz::Asia::Shanghai,
                [
                    1_577_836_800_000,
                    1_577_836_800_000,
                    1_615_660_200_000,
                    1_636_219_800_000,
                ],
            ),
            // 02:30 does not exist on 2021-03-14 in New York: it moves on
            // to 03:30 EDT; 01:30 on 2021-11-07 happens twice: the first.
            (
                chrono_tz::America::New_York,
                [
                    1_577_883_600_000,
                    1_577_836_800_000,
                    1_615_707_000_000,
                    1_636_263_000_000,
                ],
            ),
        ];
        for (tz, want) in cases {
            let columns = cols(&[("l", TimestampLtz(3))]);
            let mut source = open_file(&file.0, "t.csv".into(), |input, name| {
                CsvSource::from_reader(input, name, columns, CsvOptions::default(), 8)
            })?;
            source.set_time_zone(*tz);
            let b = source
                .next_batch()?
                .ok_or_else(|| Error::Internal("no batch".into()))?;
            let got = b
                .batch
                .column(0)
                .as_primitive::<TimestampMillisecondType>()
                .values()
                .to_vec();
            assert_eq!(got, want.to_vec(), "{tz}");
        }
        Ok(())
    }
}
