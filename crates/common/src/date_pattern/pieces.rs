//! A compiled date pattern: literal text and fields, each with the form
//! it is written in, and how a field's value is found and written for one
//! moment. Both Java dialects compile to these pieces.

use super::calendar::Day;

/// A calendar or clock value a pattern letter writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Field {
    /// 0 BC, 1 AD.
    Era,
    YearOfEra,
    /// The proleptic year.
    Year,
    WeekBasedYear,
    WeekOfWeekBasedYear,
    WeekOfMonth,
    Quarter,
    Month,
    DayOfYear,
    DayOfMonth,
    /// java.time's `F` in JDK 17: (day of month - 1) % 7 + 1.
    AlignedDayOfWeekInMonth,
    /// SimpleDateFormat's `F`: (day of month - 1) / 7 + 1.
    DayOfWeekInMonth,
    /// 1 Monday to 7 Sunday; written as text by `E`.
    DayOfWeek,
    /// 1 Sunday to 7 Saturday (`e`, `c`).
    LocalDayOfWeek,
    /// 0 AM, 1 PM.
    AmPm,
    /// The English day period (`B`): midnight, noon, morning, ...
    DayPeriod,
    /// 0 to 23 (`H`).
    HourOfDay,
    /// 1 to 24 (`k`).
    ClockHourOfDay,
    /// 0 to 11 (`K`).
    HourOfAmPm,
    /// 1 to 12 (`h`).
    ClockHourOfAmPm,
    Minute,
    Second,
    /// Milliseconds of the second (SimpleDateFormat's `S`).
    MilliOfSecond,
    NanoOfSecond,
    MilliOfDay,
    NanoOfDay,
    ModifiedJulianDay,
    /// The zone offset in seconds (SimpleDateFormat's `Z`, `X`).
    Offset,
}

/// java.time's `SignStyle` as its patterns use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sign {
    /// `-` when negative.
    Normal,
    /// Never a sign (the values are never negative).
    NotNegative,
    /// `-` when negative, `+` when wider than the minimum width.
    ExceedsPad,
}

/// How a field is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// Digits, zero-padded to `min`.
    Number {
        min: usize,
        sign: Sign,
    },
    /// The last two digits of the absolute value.
    TwoDigits,
    Short,
    Full,
    Narrow,
    /// The first `n` digits of the nanoseconds.
    Fraction(usize),
    /// `+hhmm` (RFC 822, SimpleDateFormat's `Z`).
    OffsetRfc822,
    /// ISO 8601 with 1 (`+hh`), 2 (`+hhmm`) or 3 (`+hh:mm`) letters; `Z`
    /// when zero.
    OffsetIso(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Piece {
    Literal(String),
    Field {
        field: Field,
        form: Form,
        /// Spaces in front up to this width (java.time's `p`), 0 for none.
        pad: usize,
    },
}

/// One moment as a pattern sees it.
pub(super) struct Moment {
    pub day: Day,
    /// Milliseconds since midnight.
    pub millis: i64,
    /// Seconds east of UTC.
    pub offset: i64,
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const QUARTERS: [&str; 4] = ["1st quarter", "2nd quarter", "3rd quarter", "4th quarter"];

impl Field {
    pub fn value(self, m: &Moment) -> i64 {
        let d = &m.day;
        let hour = m.millis / 3_600_000;
        match self {
            Field::Era => i64::from(d.year >= 1),
            Field::YearOfEra if d.year >= 1 => d.year,
            Field::YearOfEra => 1 - d.year,
            Field::Year => d.year,
            Field::WeekBasedYear => d.week_based().0,
            Field::WeekOfWeekBasedYear => d.week_based().1,
            Field::WeekOfMonth => d.week_of_month(),
            Field::Quarter => (d.month - 1) / 3 + 1,
            Field::Month => d.month,
            Field::DayOfYear => d.day_of_year,
            Field::DayOfMonth => d.day,
            Field::AlignedDayOfWeekInMonth => (d.day - 1) % 7 + 1,
            Field::DayOfWeekInMonth => (d.day_in_month - 1) / 7 + 1,
            Field::DayOfWeek => d.iso_weekday,
            Field::LocalDayOfWeek => d.local_weekday(),
            Field::AmPm => hour / 12,
            Field::DayPeriod => m.millis / 60_000,
            Field::HourOfDay => hour,
            Field::ClockHourOfDay if hour == 0 => 24,
            Field::ClockHourOfDay => hour,
            Field::HourOfAmPm => hour % 12,
            Field::ClockHourOfAmPm if hour % 12 == 0 => 12,
            Field::ClockHourOfAmPm => hour % 12,
            Field::Minute => m.millis / 60_000 % 60,
            Field::Second => m.millis / 1000 % 60,
            Field::MilliOfSecond => m.millis % 1000,
            Field::NanoOfSecond => m.millis % 1000 * 1_000_000,
            Field::MilliOfDay => m.millis,
            Field::NanoOfDay => m.millis * 1_000_000,
            Field::ModifiedJulianDay => d.epoch_day + 40_587,
            Field::Offset => m.offset,
        }
    }

    /// The field's English text for `value`, or `None` for a field that
    /// has none.
    fn text(self, value: i64, form: Form) -> Option<&'static str> {
        let index = |n: i64| usize::try_from(n).unwrap_or(0);
        let narrow = |s: &'static str| if form == Form::Narrow { &s[..1] } else { s };
        Some(match self {
            Field::Era => match (value, form) {
                (0, Form::Full) => "Before Christ",
                (0, Form::Narrow) => "B",
                (0, _) => "BC",
                (_, Form::Full) => "Anno Domini",
                (_, Form::Narrow) => "A",
                _ => "AD",
            },
            Field::Quarter => {
                let q = index(value - 1).min(3);
                match form {
                    Form::Full => QUARTERS[q],
                    Form::Narrow => &"1234"[q..=q],
                    _ => ["Q1", "Q2", "Q3", "Q4"][q],
                }
            }
            Field::Month => {
                let name = MONTHS[index(value - 1).min(11)];
                match form {
                    Form::Short => &name[..3],
                    _ => narrow(name),
                }
            }
            Field::DayOfWeek | Field::LocalDayOfWeek => {
                let iso = if self == Field::LocalDayOfWeek {
                    (value + 5) % 7 + 1
                } else {
                    value
                };
                let name = DAYS[index(iso - 1).min(6)];
                match form {
                    Form::Short => &name[..3],
                    _ => narrow(name),
                }
            }
            Field::AmPm if value == 0 => "AM",
            Field::AmPm => "PM",
            // English day periods (CLDR), by minute of the day.
            Field::DayPeriod => match (value, form) {
                (0, Form::Narrow) => "mi",
                (0, _) => "midnight",
                (720, Form::Narrow) => "n",
                (720, _) => "noon",
                (360..=719, _) => "in the morning",
                (720..=1079, _) => "in the afternoon",
                (1080..=1259, _) => "in the evening",
                _ => "at night",
            },
            _ => return None,
        })
    }

    /// The least and greatest values over years 0000 to 9999, the range of
    /// a TIMESTAMP, for the widest text a padded field can write; (0, 59)
    /// stands for every field of at most two digits.
    pub fn range(self) -> (i64, i64) {
        match self {
            Field::YearOfEra => (1, 9999),
            Field::Year => (0, 9999),
            Field::WeekBasedYear => (0, 10_000),
            Field::ModifiedJulianDay => (-678_941, 2_973_483),
            Field::NanoOfSecond => (0, 999_000_000),
            Field::MilliOfDay => (0, 86_399_999),
            Field::NanoOfDay => (0, 86_399_999_000_000),
            Field::DayPeriod => (0, 1439),
            Field::DayOfYear => (1, 366),
            _ => (0, 59),
        }
    }
}

impl Piece {
    /// Writes the piece for `m`; false when the output is wider than the
    /// piece's pad (java.time fails there).
    pub fn write(&self, m: &Moment, out: &mut String) -> bool {
        match self {
            Piece::Literal(text) => out.push_str(text),
            Piece::Field { field, form, pad } => {
                let start = out.len();
                write_field(*field, *form, field.value(m), out);
                let width = out[start..].chars().count();
                if *pad > width {
                    out.insert_str(start, &" ".repeat(pad - width));
                } else if *pad > 0 && width > *pad {
                    return false;
                }
            }
        }
        true
    }

    /// The most characters the piece writes for a TIMESTAMP.
    pub fn widest(&self) -> usize {
        let Piece::Field { field, form, .. } = self else {
            return 0;
        };
        let (lo, hi) = field.range();
        let mut widest = 0;
        let mut probe = |v: i64| {
            let mut s = String::new();
            write_field(*field, *form, v, &mut s);
            widest = widest.max(s.chars().count());
        };
        if matches!(form, Form::Short | Form::Full | Form::Narrow) {
            (lo..=hi.min(lo + 1500)).for_each(&mut probe);
        } else {
            probe(lo);
            probe(hi);
        }
        widest
    }
}

fn write_field(field: Field, form: Form, value: i64, out: &mut String) {
    use std::fmt::Write as _;
    match form {
        Form::Number { min, sign } => {
            if value < 0 && sign != Sign::NotNegative {
                out.push('-');
            }
            let digits = value.unsigned_abs().to_string();
            if sign == Sign::ExceedsPad && value >= 0 && digits.len() > min {
                out.push('+');
            }
            for _ in digits.len()..min {
                out.push('0');
            }
            out.push_str(&digits);
        }
        Form::TwoDigits => {
            let _ = write!(out, "{:02}", value.unsigned_abs() % 100);
        }
        Form::Short | Form::Full | Form::Narrow => match field.text(value, form) {
            Some(text) => out.push_str(text),
            None => write_field(
                field,
                Form::Number {
                    min: 1,
                    sign: Sign::Normal,
                },
                value,
                out,
            ),
        },
        Form::Fraction(n) => {
            let nanos = format!("{:09}", value.rem_euclid(1_000_000_000));
            out.push_str(&nanos[..n.min(9)]);
        }
        Form::OffsetRfc822 | Form::OffsetIso(_) => {
            let minutes = value / 60;
            if minutes == 0 && matches!(form, Form::OffsetIso(_)) {
                out.push('Z');
                return;
            }
            out.push(if minutes < 0 { '-' } else { '+' });
            let (h, m) = (minutes.abs() / 60, minutes.abs() % 60);
            let _ = match form {
                Form::OffsetIso(1) => write!(out, "{h:02}"),
                Form::OffsetIso(3) => write!(out, "{h:02}:{m:02}"),
                _ => write!(out, "{h:02}{m:02}"),
            };
        }
    }
}
