//! The time functions of the library: EXTRACT, FLOOR and CEIL of a
//! timestamp to a unit, TIMESTAMPDIFF and TIMESTAMPADD, DATE_FORMAT,
//! FROM_UNIXTIME, UNIX_TIMESTAMP, TO_TIMESTAMP and TO_TIMESTAMP_LTZ, over whole arrays of wall-clock timestamps, instants
//! or text.

use arrow::array::{
    Array, ArrayRef, AsArray, Int32Array, Int64Array, StringArray, StringBuilder,
    TimestampMillisecondArray,
};
use arrow::compute::kernels::temporal::{date_part, DatePart};
use arrow::compute::{cast, kernels::numeric};
use arrow::datatypes::{DataType, Int64Type, TimestampMillisecondType};
use chrono::{Datelike, NaiveDate};
use std::sync::Arc;
use tidemark_common::date_pattern::{read_default_timestamp, DatePattern};
use tidemark_common::expr::TimeUnit;
use tidemark_common::Result;

/// TO_TIMESTAMP(text, format): text read with the chrono `format` the
/// binder translated (the first row's; it is a literal), NULL where it
/// does not match.
pub(crate) fn to_timestamp(text: &StringArray, format: &StringArray) -> ArrayRef {
    let format = if format.is_empty() {
        ""
    } else {
        format.value(0)
    };
    let parsed: TimestampMillisecondArray = text
        .iter()
        .map(|t| {
            let t = t?.trim();
            chrono::NaiveDateTime::parse_from_str(t, format)
                .ok()
                .or_else(|| {
                    chrono::NaiveDate::parse_from_str(t, format)
                        .ok()
                        .and_then(|d| d.and_hms_opt(0, 0, 0))
                })
                .map(|dt| dt.and_utc().timestamp_millis())
                // As Flink: text in the default form is read even
                // when another format was given.
                .or_else(|| crate::formats::text::parse_timestamp(t, false, chrono_tz::UTC))
        })
        .collect();
    Arc::new(parsed)
}

/// TO_TIMESTAMP_LTZ(epoch, precision): an instant from seconds, or from
/// milliseconds (`millis`).
pub(crate) fn to_timestamp_ltz(epoch: &ArrayRef, millis: bool) -> ArrayRef {
    let v = epoch.as_primitive::<Int64Type>();
    let factor = if millis { 1 } else { 1_000 };
    // Outside years 0000-9999 Flink gives NULL.
    const FIRST: i64 = -62_167_219_200_000;
    const LAST: i64 = 253_402_300_799_999;
    let ts: TimestampMillisecondArray = v
        .iter()
        .map(|x| {
            x.and_then(|x| x.checked_mul(factor))
                .filter(|t| (FIRST..=LAST).contains(t))
        })
        .collect();
    Arc::new(ts.with_timezone(tidemark_common::LTZ_ARROW_TZ))
}

pub(crate) fn extract(v: &ArrayRef, unit: TimeUnit) -> Result<ArrayRef> {
    let part = match unit {
        TimeUnit::Year => DatePart::Year,
        TimeUnit::Quarter => DatePart::Quarter,
        TimeUnit::Month => DatePart::Month,
        TimeUnit::Week => DatePart::Week,
        TimeUnit::Day => DatePart::Day,
        TimeUnit::Hour => DatePart::Hour,
        TimeUnit::Minute => DatePart::Minute,
        TimeUnit::Second => DatePart::Second,
        TimeUnit::DayOfWeek => DatePart::DayOfWeekSunday0,
        TimeUnit::DayOfYear => DatePart::DayOfYear,
    };
    let part = cast(&date_part(v.as_ref(), part)?, &DataType::Int64)?;
    Ok(if unit == TimeUnit::DayOfWeek {
        // Flink counts Sunday as 1.
        numeric::add_wrapping(&part, &Int64Array::new_scalar(1))?
    } else {
        part
    })
}

const MS_PER_DAY: i64 = 86_400_000;
/// `NaiveDate::num_days_from_ce` of 1970-01-01.
const EPOCH_DAYS_FROM_CE: i64 = 719_163;

/// FLOOR / CEIL of a wall-clock timestamp to a unit; NULL past the
/// representable range. Weeks start on Sunday, as in Flink.
pub(crate) fn truncate_time(v: &ArrayRef, unit: TimeUnit, ceil: bool) -> ArrayRef {
    let ts = v.as_primitive::<TimestampMillisecondType>();
    let out: TimestampMillisecondArray = ts.unary_opt(|t| {
        let floor = floor_time(t, unit)?;
        if ceil && floor != t {
            next_boundary(floor, unit)
        } else {
            Some(floor)
        }
    });
    Arc::new(out.with_timezone_opt(ts.timezone()))
}

fn fixed_unit(unit: TimeUnit) -> Option<i64> {
    match unit {
        TimeUnit::Second => Some(1_000),
        TimeUnit::Minute => Some(60_000),
        TimeUnit::Hour => Some(3_600_000),
        TimeUnit::Day => Some(MS_PER_DAY),
        TimeUnit::Week => Some(7 * MS_PER_DAY),
        _ => None,
    }
}

fn date_of(days: i64) -> Option<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(i32::try_from(days + EPOCH_DAYS_FROM_CE).ok()?)
}

fn millis_of(date: NaiveDate) -> Option<i64> {
    (i64::from(date.num_days_from_ce()) - EPOCH_DAYS_FROM_CE).checked_mul(MS_PER_DAY)
}

fn floor_time(t: i64, unit: TimeUnit) -> Option<i64> {
    if unit == TimeUnit::Week {
        // 1970-01-04 was a Sunday.
        let sunday = 3 * MS_PER_DAY;
        let week = 7 * MS_PER_DAY;
        return t.checked_sub(t.checked_sub(sunday)?.rem_euclid(week));
    }
    if let Some(u) = fixed_unit(unit) {
        return t.checked_sub(t.rem_euclid(u));
    }
    let date = date_of(t.div_euclid(MS_PER_DAY))?;
    let month = match unit {
        TimeUnit::Year => 1,
        TimeUnit::Quarter => (date.month0() / 3) * 3 + 1,
        _ => date.month(),
    };
    millis_of(NaiveDate::from_ymd_opt(date.year(), month, 1)?)
}

fn next_boundary(floor: i64, unit: TimeUnit) -> Option<i64> {
    if let Some(u) = fixed_unit(unit) {
        return floor.checked_add(u);
    }
    let date = date_of(floor.div_euclid(MS_PER_DAY))?;
    let months = match unit {
        TimeUnit::Year => 12,
        TimeUnit::Quarter => 3,
        _ => 1,
    };
    millis_of(date.checked_add_months(chrono::Months::new(months))?)
}

/// DATE_FORMAT over wall-clock timestamps with the pattern the binder
/// checked.
pub(crate) fn date_format(v: &ArrayRef, pattern: &DatePattern) -> ArrayRef {
    let ts = v.as_primitive::<TimestampMillisecondType>();
    write_pattern(ts.iter().map(|t| t.map(|t| (t, 0))), ts.len(), pattern)
}

/// DATE_FORMAT of text, as Flink does it: the text read as
/// SimpleDateFormat reads `yyyy-MM-dd HH:mm:ss` (NULL where that fails),
/// then written with a SimpleDateFormat pattern in UTC, whatever the
/// session zone.
pub(crate) fn date_format_text(text: &StringArray, pattern: &DatePattern) -> ArrayRef {
    let values = text
        .iter()
        .map(|t| t.and_then(read_default_timestamp).map(|wall| (wall, 0)));
    write_pattern(values, text.len(), pattern)
}

/// Each `(wall clock, offset)` written with `pattern`; NULL for NULL, and
/// where a padded field is wider than its pad (Java fails there; the
/// binder refuses such pads for years 0000-9999).
fn write_pattern(
    values: impl Iterator<Item = Option<(i64, i64)>>,
    len: usize,
    pattern: &DatePattern,
) -> ArrayRef {
    let mut out = StringBuilder::with_capacity(len, len * 24);
    let mut buf = String::new();
    for v in values {
        buf.clear();
        match v {
            Some((wall, offset)) if pattern.write(wall, offset, &mut buf) => out.append_value(&buf),
            _ => out.append_null(),
        }
    }
    Arc::new(out.finish())
}

/// UNIX_TIMESTAMP(text, format): like Java's SimpleDateFormat.parse, text
/// after the pattern is ignored; what does not parse is `i64::MIN`, as
/// Flink gives.
pub(crate) fn unix_timestamp(s: &StringArray, format: &str, tz: chrono_tz::Tz) -> ArrayRef {
    let out: Int64Array = s
        .iter()
        .map(|t| {
            let t = t?;
            let wall = chrono::NaiveDateTime::parse_and_remainder(t, format)
                .map(|(dt, _)| dt)
                .or_else(|_| {
                    chrono::NaiveDate::parse_and_remainder(t, format)
                        .map(|(d, _)| d.and_time(chrono::NaiveTime::MIN))
                })
                .ok()
                .map(|dt| dt.and_utc().timestamp_millis());
            let instant = wall.and_then(|w| {
                if tz == chrono_tz::UTC {
                    Some(w)
                } else {
                    crate::time::zone::local_to_instant(w, tz)
                }
            });
            // Java's long division truncates toward zero.
            Some(instant.map_or(i64::MIN, |ms| ms / 1000))
        })
        .collect();
    Arc::new(out)
}

/// TIMESTAMPDIFF(unit, t1, t2) over two arrays of the same timestamp
/// kind: Flink computes on the stored milliseconds, so a TIMESTAMP_LTZ
/// counts in UTC whatever the session zone.
pub(crate) fn timestamp_diff(unit: TimeUnit, t1: &ArrayRef, t2: &ArrayRef) -> Result<ArrayRef> {
    let (t1, t2) = (
        t1.as_primitive::<TimestampMillisecondType>(),
        t2.as_primitive::<TimestampMillisecondType>(),
    );
    let out: Int32Array = arrow::compute::binary(t1, t2, |a, b| diff_units(unit, a, b))?;
    Ok(Arc::new(out))
}

/// The whole `unit`s from `start` to `end`, narrowed to INT by wrapping as
/// Java's `(int)` cast does.
fn diff_units(unit: TimeUnit, start: i64, end: i64) -> i32 {
    let count = match unit {
        TimeUnit::Month => months_between(start, end),
        TimeUnit::Quarter => months_between(start, end) / 3,
        TimeUnit::Year => months_between(start, end) / 12,
        // Flink counts weeks from the seconds already narrowed to INT, so
        // past 68 years the week count comes from the wrapped seconds.
        TimeUnit::Week => i64::from((end.wrapping_sub(start) / 1000) as i32) / (7 * 86_400),
        // Integer division truncates toward zero, as Flink's does.
        other => end.wrapping_sub(start) / fixed_unit(other).unwrap_or(1),
    };
    count as i32
}

/// Flink's month count from `start` to `end`: the calendar months between
/// the two days (a month from the 31st ends on the month's last day), one
/// less when that lands on `end`'s day but `end`'s time of day is earlier
/// than `start`'s. The time correction is one-sided, as in Flink, so going
/// backwards a shorter time of day makes the count one more negative.
fn months_between(start: i64, end: i64) -> i64 {
    let (start_day, start_ms) = (start.div_euclid(MS_PER_DAY), start.rem_euclid(MS_PER_DAY));
    let (end_day, end_ms) = (end.div_euclid(MS_PER_DAY), end.rem_euclid(MS_PER_DAY));
    let (Some(from), Some(to)) = (date_of(start_day), date_of(end_day)) else {
        return 0;
    };
    let mut months = calendar_months(from, to);
    if add_months(from, months) == Some(to) && end_ms < start_ms {
        months -= 1;
    }
    months
}

/// The most months `m` with `from + m months <= to` (for `to < from`, minus
/// the count from `to` to `from`).
fn calendar_months(from: NaiveDate, to: NaiveDate) -> i64 {
    if to < from {
        return -calendar_months(to, from);
    }
    let months =
        i64::from(to.year() - from.year()) * 12 + i64::from(to.month()) - i64::from(from.month());
    // Landing in `to`'s month past its day is one month too many.
    match add_months(from, months) {
        Some(d) if d > to => months - 1,
        _ => months,
    }
}

/// `date` moved by `months`, clamped to the month's last day.
fn add_months(date: NaiveDate, months: i64) -> Option<NaiveDate> {
    let step = chrono::Months::new(u32::try_from(months.unsigned_abs()).ok()?);
    if months < 0 {
        date.checked_sub_months(step)
    } else {
        date.checked_add_months(step)
    }
}

/// TIMESTAMPADD(unit, n, ts): fixed units add milliseconds (wrapping, as
/// Java's long arithmetic); months, quarters and years move the date with
/// the month end clamped and keep the time of day, counting in INT as Flink
/// does (so a count past INT wraps). A result outside years 0000-9999 is
/// NULL.
pub(crate) fn timestamp_add(unit: TimeUnit, n: &ArrayRef, ts: &ArrayRef) -> Result<ArrayRef> {
    let n = n.as_primitive::<Int64Type>();
    let ts = ts.as_primitive::<TimestampMillisecondType>();
    let tz = ts.timezone().map(Arc::<str>::from);
    let months_per_unit = match unit {
        TimeUnit::Month => 1,
        TimeUnit::Quarter => 3,
        TimeUnit::Year => 12,
        _ => 0,
    };
    let out: TimestampMillisecondArray = if months_per_unit == 0 {
        let unit_ms = fixed_unit(unit).unwrap_or(1);
        n.iter()
            .zip(ts.iter())
            .map(|(n, t)| Some(t?.wrapping_add(n?.wrapping_mul(unit_ms))))
            .collect()
    } else {
        n.iter()
            .zip(ts.iter())
            .map(|(n, t)| {
                let (n, t) = (n?, t?);
                let months = (n as i32).wrapping_mul(months_per_unit);
                let (day, ms) = (t.div_euclid(MS_PER_DAY), t.rem_euclid(MS_PER_DAY));
                let date = add_months(date_of(day)?, i64::from(months))?;
                millis_of(date)?.checked_add(ms)
            })
            .collect()
    };
    // Past years 0000-9999 Flink prints garbage: NULL here.
    let out: TimestampMillisecondArray =
        out.unary_opt(|t| (FIRST_MS..=LAST_MS).contains(&t).then_some(t));
    Ok(Arc::new(out.with_timezone_opt(tz)))
}

/// 0000-01-01 00:00:00.000 and 9999-12-31 23:59:59.999.
const FIRST_MS: i64 = -62_167_219_200_000;
const LAST_MS: i64 = 253_402_300_799_999;

/// FROM_UNIXTIME(seconds, format): the instant on the session zone's wall
/// clock, written with the SimpleDateFormat pattern the binder checked
/// (`Z` and `X` write the zone's offset then); NULL past the range of
/// milliseconds.
pub(crate) fn from_unixtime(
    seconds: &ArrayRef,
    pattern: &DatePattern,
    tz: chrono_tz::Tz,
) -> ArrayRef {
    let seconds = seconds.as_primitive::<Int64Type>();
    let values = seconds.iter().map(|s| {
        let instant = s?.checked_mul(1000)?;
        let wall = crate::time::zone::to_wall_clock(instant, tz)?;
        Some((wall, (wall - instant) / 1000))
    });
    write_pattern(values, seconds.len(), pattern)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_and_ceil_of_times() {
        let ts = |s: &str| {
            chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.3f")
                .map(|d| d.and_utc().timestamp_millis())
                .unwrap_or(i64::MIN)
        };
        let cases = [
            (
                "2024-03-06 13:45:30.250",
                TimeUnit::Week,
                false,
                "2024-03-03 00:00:00.000",
            ),
            (
                "2024-03-06 13:45:30.250",
                TimeUnit::Week,
                true,
                "2024-03-10 00:00:00.000",
            ),
            (
                "2024-03-03 00:00:00.000",
                TimeUnit::Week,
                true,
                "2024-03-03 00:00:00.000",
            ),
            (
                "2024-03-06 13:45:30.250",
                TimeUnit::Quarter,
                true,
                "2024-04-01 00:00:00.000",
            ),
            (
                "2024-03-06 13:45:30.250",
                TimeUnit::Year,
                false,
                "2024-01-01 00:00:00.000",
            ),
            (
                "1969-12-31 23:59:59.999",
                TimeUnit::Hour,
                false,
                "1969-12-31 23:00:00.000",
            ),
            (
                "1969-12-31 23:59:59.999",
                TimeUnit::Second,
                true,
                "1970-01-01 00:00:00.000",
            ),
            (
                "1969-12-31 10:00:00.000",
                TimeUnit::Week,
                false,
                "1969-12-28 00:00:00.000",
            ),
            (
                "2024-12-31 00:00:00.000",
                TimeUnit::Month,
                true,
                "2025-01-01 00:00:00.000",
            ),
        ];
        // Past the representable range: NULL, not a panic.
        let edge: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![i64::MIN, i64::MAX]));
        for unit in [TimeUnit::Week, TimeUnit::Day, TimeUnit::Year] {
            for ceil in [false, true] {
                let _ = truncate_time(&edge, unit, ceil);
            }
        }
        for (t, unit, ceil, want) in cases {
            let arr: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![ts(t)]));
            let got = truncate_time(&arr, unit, ceil);
            let got = got.as_primitive::<TimestampMillisecondType>().value(0);
            assert_eq!(got, ts(want), "{t} {unit:?} ceil={ceil}");
        }
    }

    #[test]
    fn month_counts_follow_flink() {
        let ms = |s: &str| {
            chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.3f")
                .map(|d| d.and_utc().timestamp_millis())
                .unwrap_or(i64::MIN)
        };
        let cases = [
            ("2024-01-31 10:00:00.000", "2024-02-29 09:59:59.999", 0),
            ("2024-01-31 10:00:00.000", "2024-02-29 10:00:00.000", 1),
            ("2024-03-01 00:00:00.000", "2024-01-01 00:00:00.500", -2),
            ("2024-03-01 00:00:00.500", "2024-01-01 00:00:00.000", -3),
            ("2020-02-29 12:00:00.000", "2021-02-28 12:00:00.000", 12),
            ("2024-01-31 00:00:00.000", "2024-02-28 00:00:00.000", 0),
        ];
        for (a, b, want) in cases {
            assert_eq!(months_between(ms(a), ms(b)), want, "{a} to {b}");
        }
        assert_eq!(
            months_between(i64::MIN, i64::MAX),
            0,
            "no panic past the range"
        );
    }

    #[test]
    fn timestamp_add_past_year_9999_is_null() -> Result<()> {
        let n: ArrayRef = Arc::new(Int64Array::from(vec![i64::from(i32::MAX), 1]));
        let ts: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![0, 0]));
        for unit in [TimeUnit::Hour, TimeUnit::Week, TimeUnit::Quarter] {
            let out = timestamp_add(unit, &n, &ts)?;
            assert!(out.is_null(0) && out.is_valid(1), "{unit:?}");
        }
        Ok(())
    }
}
