//! The calendar values a date pattern writes: a day as java.time sees it
//! (the proleptic Gregorian calendar) or as `java.util.GregorianCalendar`
//! does (the Julian calendar before 1582-10-15), and the week fields of
//! Flink's default locale (en_US: weeks start on Sunday, and the week that
//! holds 1 January is week 1).
//!
//! Plain integer arithmetic on days since 1970-01-01, so that no year in
//! an `i64` of milliseconds can fail.

/// The first day of the Gregorian calendar in `java.util.GregorianCalendar`
/// (1582-10-15), in days since 1970-01-01.
const GREGORIAN_CUTOVER: i64 = -141_427;

/// Flink's default locale's weeks: they start on Sunday, and a week with
/// at least this many days of a year or month is its first.
const MINIMAL_DAYS_IN_FIRST_WEEK: i64 = 1;

/// One calendar day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Day {
    /// Days since 1970-01-01.
    pub epoch_day: i64,
    /// The proleptic year (year 0 is 1 BC).
    pub year: i64,
    /// 1 to 12.
    pub month: i64,
    /// 1 to 31.
    pub day: i64,
    /// Days since the first of the month plus one: `day`, except after
    /// the ten days 1582 skipped.
    pub day_in_month: i64,
    /// 1 to 366 (up to 355 in 1582 of the Julian-Gregorian calendar).
    pub day_of_year: i64,
    /// Days in `year`.
    pub year_length: i64,
    /// 1 (Monday) to 7 (Sunday).
    pub iso_weekday: i64,
}

impl Day {
    /// `epoch_day` in the proleptic Gregorian calendar (java.time).
    pub fn gregorian(epoch_day: i64) -> Day {
        let (year, month, day) = civil_from_days(epoch_day);
        let jan1 = days_from_civil(year, 1, 1);
        let next = days_from_civil(year + 1, 1, 1);
        let first = days_from_civil(year, month, 1);
        Day::new(epoch_day, (year, month, day), first, jan1, next)
    }

    /// `epoch_day` as `java.util.GregorianCalendar` counts it: Julian
    /// before 1582-10-15, and 1582 one year of 355 days.
    pub fn historic(epoch_day: i64) -> Day {
        let (year, month, day) = if epoch_day < GREGORIAN_CUTOVER {
            julian_from_days(epoch_day)
        } else {
            civil_from_days(epoch_day)
        };
        let jan1 = |y: i64| {
            if y <= 1582 {
                days_from_julian(y, 1, 1)
            } else {
                days_from_civil(y, 1, 1)
            }
        };
        let first = if (year, month) <= (1582, 10) {
            days_from_julian(year, month, 1)
        } else {
            days_from_civil(year, month, 1)
        };
        Day::new(
            epoch_day,
            (year, month, day),
            first,
            jan1(year),
            jan1(year + 1),
        )
    }

    fn new(
        epoch_day: i64,
        (year, month, day): (i64, i64, i64),
        first_of_month: i64,
        jan1: i64,
        next_jan1: i64,
    ) -> Day {
        Day {
            epoch_day,
            year,
            month,
            day,
            day_in_month: epoch_day - first_of_month + 1,
            day_of_year: epoch_day - jan1 + 1,
            year_length: next_jan1 - jan1,
            iso_weekday: (epoch_day + 3).rem_euclid(7) + 1,
        }
    }

    /// 1 (Sunday) to 7 (Saturday).
    pub fn local_weekday(&self) -> i64 {
        (self.iso_weekday - 7).rem_euclid(7) + 1
    }

    /// The week of the month, counted as java.time's `WeekFields`.
    pub fn week_of_month(&self) -> i64 {
        let offset = start_of_week_offset(self.day_in_month, self.local_weekday());
        compute_week(offset, self.day_in_month)
    }

    /// The week-based year and the week in it, as java.time's
    /// `WeekFields` (and `GregorianCalendar`'s `getWeekYear`) count them.
    pub fn week_based(&self) -> (i64, i64) {
        let offset = start_of_week_offset(self.day_of_year, self.local_weekday());
        // Never week 0: with a first week of one day, 1 January is in week 1.
        let week = compute_week(offset, self.day_of_year);
        let new_year_week = compute_week(offset, self.year_length + MINIMAL_DAYS_IN_FIRST_WEEK);
        if week >= new_year_week {
            (self.year + 1, week - new_year_week + 1)
        } else {
            (self.year, week)
        }
    }
}

/// Days since 1970-01-01 of the first of a month as
/// `java.util.GregorianCalendar` counts it (Julian before 1582-10-15);
/// `None` for a year too far out to count in days.
pub(super) fn first_of_month(year: i64, month: i64) -> Option<i64> {
    if !(-1_000_000_000..=1_000_000_000).contains(&year) {
        return None;
    }
    let gregorian = days_from_civil(year, month, 1);
    Some(if gregorian < GREGORIAN_CUTOVER {
        days_from_julian(year, month, 1)
    } else {
        gregorian
    })
}

/// java.time's `WeekFields.startOfWeekOffset`.
fn start_of_week_offset(day: i64, weekday: i64) -> i64 {
    let week_start = (day - weekday).rem_euclid(7);
    if week_start + 1 > MINIMAL_DAYS_IN_FIRST_WEEK {
        7 - week_start
    } else {
        -week_start
    }
}

/// java.time's `WeekFields.computeWeek`.
fn compute_week(offset: i64, day: i64) -> i64 {
    (7 + offset + (day - 1)).div_euclid(7)
}

/// The proleptic Gregorian date of a day since 1970-01-01 (H. Hinnant's
/// `civil_from_days`).
fn civil_from_days(epoch_day: i64) -> (i64, i64, i64) {
    let z = epoch_day + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The Julian day number of 1970-01-01.
const JDN_EPOCH: i64 = 2_440_588;

/// The Julian-calendar date of a day since 1970-01-01.
fn julian_from_days(epoch_day: i64) -> (i64, i64, i64) {
    let c = epoch_day + JDN_EPOCH + 32_082;
    let d = (4 * c + 3).div_euclid(1461);
    let e = c - (1461 * d).div_euclid(4);
    let m = (5 * e + 2).div_euclid(153);
    let day = e - (153 * m + 2).div_euclid(5) + 1;
    let month = m + 3 - 12 * (m / 10);
    (d - 4800 + m / 10, month, day)
}

/// Days since 1970-01-01 of a Julian-calendar date.
fn days_from_julian(year: i64, month: i64, day: i64) -> i64 {
    let a = (14 - month) / 12;
    let y = year + 4800 - a;
    let m = month + 12 * a - 3;
    day + (153 * m + 2).div_euclid(5) + 365 * y + y.div_euclid(4) - 32_083 - JDN_EPOCH
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_weeks() {
        let g = |y, m, d| days_from_civil(y, m, d);
        // (epoch day, gregorian?, y, m, d, day of year, week year, week, week of month)
        let cases = [
            (g(2021, 1, 3), true, 2021, 1, 3, 3, 2021, 2, 2),
            (g(2020, 12, 28), true, 2020, 12, 28, 363, 2021, 1, 5),
            (g(1999, 7, 14), true, 1999, 7, 14, 195, 1999, 29, 3),
            (g(9999, 12, 31), true, 9999, 12, 31, 365, 10_000, 1, 5),
            (g(0, 6, 15), true, 0, 6, 15, 167, 0, 25, 3),
            (-150_463, false, 1558, 1, 8, 8, 1558, 2, 2),
            (-141_427, false, 1582, 10, 15, 278, 1582, 40, 1),
            (-141_428, false, 1582, 10, 4, 277, 1582, 40, 1),
            (-719_164, false, 1, 1, 1, 1, 1, 1, 1),
            (-719_528, false, 0, 1, 3, 3, 0, 1, 1),
        ];
        for (epoch_day, gregorian, y, m, d, doy, wy, w, wm) in cases {
            let day = if gregorian {
                Day::gregorian(epoch_day)
            } else {
                Day::historic(epoch_day)
            };
            assert_eq!(
                (day.year, day.month, day.day, day.day_of_year),
                (y, m, d, doy),
                "{epoch_day}"
            );
            assert_eq!(day.week_based(), (wy, w), "{epoch_day}");
            assert_eq!(day.week_of_month(), wm, "{epoch_day}");
        }
        for z in [-800_000, -141_428, -1, 0, 1, 2_932_896] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
            let (y, m, d) = julian_from_days(z);
            assert_eq!(days_from_julian(y, m, d), z);
        }
        assert_eq!(Day::historic(-141_427).year_length, 355);
        assert_eq!(Day::historic(-141_427).day_in_month, 5);
        assert_eq!(g(1970, 1, 1), 0);
    }
}
