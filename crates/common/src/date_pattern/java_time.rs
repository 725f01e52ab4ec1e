//! java.time's `DateTimeFormatter.ofPattern` letters, as Flink's
//! DATE_FORMAT and TO_TIMESTAMP read them (JDK 17, English).
//!
//! Follows `DateTimeFormatterBuilder.appendPattern`: its letter counts,
//! its errors (which Flink raises when the job runs; tidemark when the
//! query is planned), `''` quoting, `[optional]` sections and `p` padding.
//! A TIMESTAMP has no zone, so a zone or offset letter fails in Flink —
//! except inside an optional section, which then writes nothing.

use super::pieces::{Field, Form, Piece, Sign};

/// The pieces of a java.time pattern, or the message Java would give.
/// With `writing`, also refused: what Java refuses only when it writes a
/// TIMESTAMP (a zone letter outside an optional section, a field wider
/// than its pad in some year 0000-9999).
pub(super) fn compile(pattern: &str, writing: bool) -> Result<Vec<Piece>, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut pieces = Vec::new();
    // Open optional sections: where each starts in `pieces`, and whether a
    // zone letter in it means it writes nothing.
    let mut sections: Vec<(usize, bool)> = Vec::new();
    let mut pos = 0;
    while pos < chars.len() {
        let cur = chars[pos];
        if cur.is_ascii_alphabetic() {
            let mut letter = cur;
            let mut count = run(&chars, pos);
            pos += count;
            let mut pad = 0;
            if letter == 'p' {
                match chars.get(pos) {
                    Some(&c) if c.is_ascii_alphabetic() => {
                        pad = count;
                        letter = c;
                        count = run(&chars, pos);
                        pos += count;
                    }
                    _ => {
                        return Err(format!(
                            "pad letter 'p' must be followed by a pattern letter: {pattern}"
                        ))
                    }
                }
            }
            match field(letter, count)? {
                Some((field, form)) => {
                    let piece = Piece::Field { field, form, pad };
                    let widest = piece.widest();
                    if writing && pad > 0 && widest > pad {
                        return Err(format!(
                            "pad width {pad} is narrower than '{}' can write ({widest} characters)",
                            letter.to_string().repeat(count)
                        ));
                    }
                    pieces.push(piece);
                }
                None => match sections.last_mut() {
                    Some((_, empty)) => *empty = true,
                    None if !writing => {}
                    None => {
                        return Err(format!(
                            "letter '{letter}' is not supported: it writes a time zone, which a \
                             TIMESTAMP does not have (inside an optional section [...] it writes nothing)"
                        ))
                    }
                },
            }
        } else if cur == '\'' {
            let start = pos;
            pos += 1;
            while pos < chars.len() {
                if chars[pos] == '\'' {
                    if chars.get(pos + 1) == Some(&'\'') {
                        pos += 1;
                    } else {
                        break;
                    }
                }
                pos += 1;
            }
            if pos >= chars.len() {
                return Err(format!(
                    "pattern ends with an unterminated quote: {pattern}"
                ));
            }
            let text: String = chars[start + 1..pos].iter().collect();
            pieces.push(Piece::Literal(if text.is_empty() {
                "'".into()
            } else {
                text.replace("''", "'")
            }));
            pos += 1;
        } else {
            match cur {
                '[' => sections.push((pieces.len(), false)),
                ']' => match sections.pop() {
                    Some((start, true)) => pieces.truncate(start),
                    Some(_) => {}
                    None => return Err("']' without a '[' before it".into()),
                },
                '{' | '}' | '#' => return Err(format!("'{cur}' is reserved")),
                c => pieces.push(Piece::Literal(c.to_string())),
            }
            pos += 1;
        }
    }
    // Sections left open end with the pattern.
    while let Some((start, empty)) = sections.pop() {
        if empty {
            pieces.truncate(start);
        }
    }
    Ok(pieces)
}

fn run(chars: &[char], pos: usize) -> usize {
    chars[pos..]
        .iter()
        .take_while(|&&c| c == chars[pos])
        .count()
}

/// The field and form of `count` letters; `None` for a zone or offset
/// letter (valid, but with nothing to write for a TIMESTAMP).
fn field(letter: char, count: usize) -> Result<Option<(Field, Form)>, String> {
    let too_many = || format!("too many pattern letters: '{letter}'");
    let number = |min: usize, sign: Sign| {
        if (1..=19).contains(&min) {
            Ok(Form::Number { min, sign })
        } else {
            Err(format!("'{letter}' takes 1 to 19 letters"))
        }
    };
    let plain = Form::Number {
        min: 1,
        sign: Sign::Normal,
    };
    let fixed = |n: usize| Form::Number {
        min: n,
        sign: Sign::NotNegative,
    };
    let text = |count: usize| match count {
        3 => Ok(Form::Short),
        4 => Ok(Form::Full),
        5 => Ok(Form::Narrow),
        _ => Err(too_many()),
    };
    let year = |count: usize| match count {
        2 => Ok(Form::TwoDigits),
        1..=3 => number(count, Sign::Normal),
        _ => number(count, Sign::ExceedsPad),
    };
    let (field, form) = match letter {
        'G' => (
            Field::Era,
            match count {
                1..=3 => Form::Short,
                _ => text(count)?,
            },
        ),
        'y' => (Field::YearOfEra, year(count)?),
        'u' => (Field::Year, year(count)?),
        'Y' => (Field::WeekBasedYear, year(count)?),
        'M' | 'L' | 'Q' | 'q' => (
            if matches!(letter, 'M' | 'L') {
                Field::Month
            } else {
                Field::Quarter
            },
            match count {
                1 => plain,
                2 => fixed(2),
                _ => text(count)?,
            },
        ),
        'E' => (
            Field::DayOfWeek,
            match count {
                1..=3 => Form::Short,
                _ => text(count)?,
            },
        ),
        'e' | 'c' => (
            Field::LocalDayOfWeek,
            match count {
                1 => fixed(1),
                2 if letter == 'e' => fixed(2),
                2 => return Err("'cc' is not a valid pattern".into()),
                _ => text(count)?,
            },
        ),
        'w' | 'W' | 'F' | 'd' | 'h' | 'H' | 'k' | 'K' | 'm' | 's' | 'D' => {
            let (field, most) = match letter {
                'w' => (Field::WeekOfWeekBasedYear, 2),
                'W' => (Field::WeekOfMonth, 1),
                'F' => (Field::AlignedDayOfWeekInMonth, 1),
                'd' => (Field::DayOfMonth, 2),
                'h' => (Field::ClockHourOfAmPm, 2),
                'H' => (Field::HourOfDay, 2),
                'k' => (Field::ClockHourOfDay, 2),
                'K' => (Field::HourOfAmPm, 2),
                'm' => (Field::Minute, 2),
                's' => (Field::Second, 2),
                _ => (Field::DayOfYear, 3),
            };
            match count {
                1 if matches!(letter, 'w' | 'W') => (field, fixed(1)),
                1 => (field, plain),
                n if n <= most => (field, fixed(n)),
                _ => return Err(too_many()),
            }
        }
        'a' if count == 1 => (Field::AmPm, Form::Short),
        'a' => return Err(too_many()),
        'B' => (
            Field::DayPeriod,
            match count {
                1 => Form::Short,
                4 => Form::Full,
                5 => Form::Narrow,
                _ => return Err("'B' takes 1, 4 or 5 letters".into()),
            },
        ),
        'S' if count <= 9 => (Field::NanoOfSecond, Form::Fraction(count)),
        'S' => return Err("'S' takes 1 to 9 letters".into()),
        'n' => (Field::NanoOfSecond, number(count, Sign::NotNegative)?),
        'N' => (Field::NanoOfDay, number(count, Sign::NotNegative)?),
        'A' => (Field::MilliOfDay, number(count, Sign::NotNegative)?),
        'g' => (Field::ModifiedJulianDay, number(count, Sign::Normal)?),
        // Zones and offsets: checked as Java checks them, nothing to write.
        'z' if count <= 4 => return Ok(None),
        'V' if count == 2 => return Ok(None),
        'V' => return Err("'V' takes exactly 2 letters".into()),
        'v' if count == 1 || count == 4 => return Ok(None),
        'v' => return Err("'v' takes 1 or 4 letters".into()),
        'O' if count == 1 || count == 4 => return Ok(None),
        'O' => return Err("'O' takes 1 or 4 letters".into()),
        'Z' | 'X' | 'x' if count <= 5 => return Ok(None),
        'z' | 'Z' | 'X' | 'x' => return Err(too_many()),
        _ => return Err(format!("unknown pattern letter '{letter}'")),
    };
    Ok(Some((field, form)))
}
