//! `java.text.SimpleDateFormat`'s letters, as Flink's FROM_UNIXTIME and
//! UNIX_TIMESTAMP read them (English): fewer letters than java.time, no
//! optional sections or padding, and other meanings for some (`u` is the
//! day of the week, `S` counts milliseconds, `F` the week's day in the
//! month, `Z` and `X` write the session zone's offset).

use super::pieces::{Field, Form, Piece, Sign};

/// The pieces of a SimpleDateFormat pattern, or the message Java would
/// give.
pub(super) fn compile(pattern: &str) -> Result<Vec<Piece>, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut pieces = Vec::new();
    let mut in_quote = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            // `''` is a quote, inside quoted text or out of it.
            if chars.get(i + 1) == Some(&'\'') {
                pieces.push(Piece::Literal("'".into()));
                i += 2;
            } else {
                in_quote = !in_quote;
                i += 1;
            }
            continue;
        }
        if in_quote || !c.is_ascii_alphabetic() {
            pieces.push(Piece::Literal(c.to_string()));
            i += 1;
            continue;
        }
        let count = chars[i..].iter().take_while(|&&x| x == c).count();
        let (field, form) = field(c, count)?;
        pieces.push(Piece::Field {
            field,
            form,
            pad: 0,
        });
        i += count;
    }
    if in_quote {
        return Err(format!("unterminated quote in '{pattern}'"));
    }
    Ok(pieces)
}

fn field(letter: char, count: usize) -> Result<(Field, Form), String> {
    let padded = Form::Number {
        min: count,
        sign: Sign::NotNegative,
    };
    let text = if count >= 4 { Form::Full } else { Form::Short };
    let month = match count {
        1 | 2 => padded,
        _ => text,
    };
    Ok(match letter {
        'G' => (Field::Era, Form::Short),
        'y' | 'Y' => (
            if letter == 'y' {
                Field::YearOfEra
            } else {
                Field::WeekBasedYear
            },
            if count == 2 { Form::TwoDigits } else { padded },
        ),
        'M' | 'L' => (Field::Month, month),
        'E' => (Field::DayOfWeek, text),
        'a' => (Field::AmPm, Form::Short),
        'd' => (Field::DayOfMonth, padded),
        'D' => (Field::DayOfYear, padded),
        'F' => (Field::DayOfWeekInMonth, padded),
        'w' => (Field::WeekOfWeekBasedYear, padded),
        'W' => (Field::WeekOfMonth, padded),
        'u' => (Field::DayOfWeek, padded),
        'H' => (Field::HourOfDay, padded),
        'k' => (Field::ClockHourOfDay, padded),
        'K' => (Field::HourOfAmPm, padded),
        'h' => (Field::ClockHourOfAmPm, padded),
        'm' => (Field::Minute, padded),
        's' => (Field::Second, padded),
        'S' => (Field::MilliOfSecond, padded),
        'Z' => (Field::Offset, Form::OffsetRfc822),
        'X' if count <= 3 => (Field::Offset, Form::OffsetIso(count)),
        'X' => return Err(format!("'X' takes 1 to 3 letters, not {count}")),
        'z' => {
            return Err(
                "letter 'z' (the zone's name) is not supported; use Z or X for its offset".into(),
            )
        }
        _ => return Err(format!("unknown pattern letter '{letter}'")),
    })
}

/// Text read as SimpleDateFormat reads `yyyy-MM-dd HH:mm:ss` leniently,
/// as Flink's DATE_FORMAT reads a STRING: each field any number of
/// digits, the separators exact, text after the seconds ignored (so
/// fractions are dropped), and a field past its range carried over (month
/// 13 is January of the next year). The wall-clock milliseconds since
/// 1970-01-01, counting dates before 1582-10-15 as Julian; `None` where
/// Java's parse fails.
pub fn read_default_timestamp(text: &str) -> Option<i64> {
    let mut rest = text;
    let mut fields = [0i64; 6];
    for (i, field) in fields.iter_mut().enumerate() {
        if i > 0 {
            rest = rest.strip_prefix(['-', '-', ' ', ':', ':'][i - 1])?;
        }
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        *field = rest.get(..digits)?.parse().ok()?;
        rest = &rest[digits..];
    }
    let [year, month, day, hour, minute, second] = fields;
    let year = year.checked_add((month - 1).div_euclid(12))?;
    let month = (month - 1).rem_euclid(12) + 1;
    let first = super::calendar::first_of_month(year, month)?;
    let millis = ((hour.checked_mul(60)?.checked_add(minute)?)
        .checked_mul(60)?
        .checked_add(second)?)
    .checked_mul(1000)?;
    first
        .checked_add(day - 1)?
        .checked_mul(86_400_000)?
        .checked_add(millis)
}
