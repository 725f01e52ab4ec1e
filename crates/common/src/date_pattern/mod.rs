//! Java date patterns (`yyyy-MM-dd HH:mm:ss`) in the two dialects Flink
//! uses: java.time's `DateTimeFormatter` for DATE_FORMAT and TO_TIMESTAMP,
//! `java.text.SimpleDateFormat` for FROM_UNIXTIME and UNIX_TIMESTAMP.
//!
//! [`DatePattern::compile`] checks a pattern once (the front end when the
//! query is planned, the engine again per batch, so that plans keep the
//! pattern as written) into pieces that [`DatePattern::write`] writes for
//! each value, in English as Flink's default locale does. Reading text
//! still goes through chrono ([`java_to_chrono_pattern`]).

mod calendar;
mod java_time;
mod pieces;
mod reading;
mod simple;

pub use reading::java_to_chrono_pattern;
pub use simple::read_default_timestamp;

use calendar::Day;
use pieces::{Moment, Piece};

/// Which Java class's pattern letters a function takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `java.time.format.DateTimeFormatter` (DATE_FORMAT, TO_TIMESTAMP).
    JavaTime,
    /// `java.text.SimpleDateFormat` (FROM_UNIXTIME, UNIX_TIMESTAMP).
    Simple,
}

/// A compiled Java date pattern, ready to write values.
#[derive(Clone, Debug)]
pub struct DatePattern {
    pieces: Vec<Piece>,
    dialect: Dialect,
}

const MS_PER_DAY: i64 = 86_400_000;

impl DatePattern {
    /// Compiles `pattern`; the error says what is wrong with it, as Java
    /// would refuse it (Flink refuses it when the job runs).
    pub fn compile(pattern: &str, dialect: Dialect) -> Result<DatePattern, String> {
        let compiled = match dialect {
            Dialect::JavaTime => java_time::compile(pattern, true)?,
            Dialect::Simple => simple::compile(pattern)?,
        };
        // Neighbouring literal text as one piece.
        let mut pieces: Vec<Piece> = Vec::with_capacity(compiled.len());
        for piece in compiled {
            match (pieces.last_mut(), piece) {
                (Some(Piece::Literal(text)), Piece::Literal(more)) => text.push_str(&more),
                (_, piece) => pieces.push(piece),
            }
        }
        Ok(DatePattern { pieces, dialect })
    }

    /// Writes the wall-clock time `wall_ms` (milliseconds since
    /// 1970-01-01 00:00 on the wall clock) whose zone is `offset_secs`
    /// east of UTC, appending to `out`. False (and `out` as it was) when
    /// a padded field is wider than its pad, which Java refuses; the
    /// front end refuses such pads for every year 0000-9999.
    pub fn write(&self, wall_ms: i64, offset_secs: i64, out: &mut String) -> bool {
        let epoch_day = wall_ms.div_euclid(MS_PER_DAY);
        let moment = Moment {
            day: match self.dialect {
                Dialect::JavaTime => Day::gregorian(epoch_day),
                Dialect::Simple => Day::historic(epoch_day),
            },
            millis: wall_ms.rem_euclid(MS_PER_DAY),
            offset: offset_secs,
        };
        let start = out.len();
        for piece in &self.pieces {
            if !piece.write(&moment, out) {
                out.truncate(start);
                return false;
            }
        }
        true
    }

    /// Whether java.time's `DateTimeFormatter.ofPattern` takes `pattern`
    /// (Flink's TO_TIMESTAMP gives NULL for every row where it does not).
    pub fn java_time_accepts(pattern: &str) -> bool {
        java_time::compile(pattern, false).is_ok()
    }

    /// `wall_ms` written as a new string (see [`DatePattern::write`]).
    pub fn format(&self, wall_ms: i64, offset_secs: i64) -> Option<String> {
        let mut out = String::new();
        self.write(wall_ms, offset_secs, &mut out).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(s: &str) -> i64 {
        chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.3f")
            .map(|d| d.and_utc().timestamp_millis())
            .unwrap_or(i64::MIN)
    }

    /// Expected texts as Flink 2.3 wrote them.
    #[test]
    fn java_time_letters() {
        use Dialect::JavaTime as J;
        let cases: &[(&str, &str, Result<&str, &str>)] = &[
            ("2021-01-03 00:00:00.000", "y|yy|yyy|yyyyy|u|uu|Y|YY|YYYY|w|ww|W|e|ee|eee|eeee|eeeee|c|ccc|E|EEEE|EEEEE",
             Ok("2021|21|2021|02021|2021|21|2021|21|2021|2|02|2|1|01|Sun|Sunday|S|1|Sun|Sun|Sunday|S")),
            ("2020-12-28 12:00:00.500", "Y|w|W|e|a|h|K|k|B|BBBBB|S|SS|SSSS|n|N|A|AAAAAAAAA",
             Ok("2021|1|5|2|PM|12|0|12|noon|n|5|50|5000|500000000|43200500000000|43200500|043200500")),
            ("9999-12-31 23:59:59.999", "Y|YY|YYYY|u|g|F|D|DD|Q|QQ|QQQ|QQQQ|QQQQQ",
             Ok("10000|00|+10000|9999|2973483|3|365|365|4|04|Q4|4th quarter|4")),
            ("0000-06-15 00:30:00.000", "G|GGGG|GGGGG|y|yy|yyyy|u|uuuu|Y|B|h|K|k|H",
             Ok("BC|Before Christ|B|1|01|0001|0|0000|0|at night|12|0|24|0")),
            ("0005-03-04 13:02:03.050", "y|yy|yyy|M|MM|MMM|MMMM|MMMMM|LLL|d|dd|D|DD|DDD|SSS|nnn",
             Ok("5|05|005|3|03|Mar|March|M|Mar|4|04|63|63|063|050|50000000")),
            ("2021-09-05 06:00:00.000", "MMM dd B '' '' [yyyy [VV] MM] yyyy[ z]! [ppz]", Ok("Sep 05 in the morning ' ' 2021  09 2021! ")),
            ("2021-09-05 06:00:00.000", "'It''s' h 'o''clock'|[yyyy [O] MM [x] dd]", Ok("It's 6 o'clock|2021  09  05")),
            ("2021-09-05 06:00:00.000", "ppd|pppMMM|ppd-[M]|[[yyyy]|%é\"", Ok(" 5|Sep| 5-9|2021|%é\"")),
            ("2021-09-05 06:00:00.000", "nnnnnnnnnn|gg|ggggggg", Ok("0000000000|59462|0059462")),
            ("2021-09-05 18:00:00.000", "B|BBBB", Ok("in the evening|in the evening")),
            ("2021-09-05 00:00:59.000", "B|BBBBB", Ok("midnight|mi")),
            ("2021-09-05 00:00:00.000", "aa", Err("too many pattern letters: 'a'")),
            ("2021-09-05 00:00:00.000", "BB", Err("'B' takes 1, 4 or 5 letters")),
            ("2021-09-05 00:00:00.000", "cc", Err("'cc' is not a valid pattern")),
            ("2021-09-05 00:00:00.000", "EEEEEE", Err("too many pattern letters: 'E'")),
            ("2021-09-05 00:00:00.000", "hhh", Err("too many pattern letters: 'h'")),
            ("2021-09-05 00:00:00.000", "DDDD", Err("too many pattern letters: 'D'")),
            ("2021-09-05 00:00:00.000", "www", Err("too many pattern letters: 'w'")),
            ("2021-09-05 00:00:00.000", "SSSSSSSSSS", Err("'S' takes 1 to 9 letters")),
            ("2021-09-05 00:00:00.000", "z", Err("letter 'z' is not supported: it writes a time zone, which a TIMESTAMP does not have (inside an optional section [...] it writes nothing)")),
            ("2021-09-05 00:00:00.000", "[V]", Err("'V' takes exactly 2 letters")),
            ("2021-09-05 00:00:00.000", "i", Err("unknown pattern letter 'i'")),
            ("2021-09-05 00:00:00.000", "#", Err("'#' is reserved")),
            ("2021-09-05 00:00:00.000", "yyyy'", Err("pattern ends with an unterminated quote: yyyy'")),
            ("2021-09-05 00:00:00.000", "yyyy]", Err("']' without a '[' before it")),
            ("2021-09-05 00:00:00.000", "p", Err("pad letter 'p' must be followed by a pattern letter: p")),
            ("2021-09-05 00:00:00.000", "ppp'a'", Err("pad letter 'p' must be followed by a pattern letter: ppp'a'")),
            ("2021-09-05 00:00:00.000", "pd", Err("pad width 1 is narrower than 'd' can write (2 characters)")),
            ("2021-09-05 00:00:00.000", "pMMM", Err("pad width 1 is narrower than 'MMM' can write (3 characters)")),
            ("2021-09-05 00:00:00.000", "yyyyyyyyyyyyyyyyyyyy", Err("'y' takes 1 to 19 letters")),
        ];
        for (pattern, accepted) in [
            ("pd z", true),
            ("aa", false),
            ("yyyy'", false),
            ("[V]", false),
        ] {
            assert_eq!(
                DatePattern::java_time_accepts(pattern),
                accepted,
                "{pattern}"
            );
        }
        for (ts, pattern, want) in cases {
            let got =
                DatePattern::compile(pattern, J).map(|p| p.format(ms(ts), 0).unwrap_or_default());
            assert_eq!(
                got.as_deref(),
                want.map_err(|e| e.to_string()).as_deref(),
                "{pattern} at {ts}"
            );
        }
    }

    #[test]
    fn simple_date_format_letters() {
        use Dialect::Simple as S;
        let all = "G GGGG y yy yyy yyyyy Y YY M MM MMM MMMM MMMMM L LLL LLLL d D DD DDDD F E EEEE u uu w ww W a aa h hh K k H m s S SS SSSS Z X XX XXX";
        let s = |secs: i64| secs * 1000;
        let cases: &[(i64, i64, &str, Result<&str, &str>)] = &[
            (s(1_630_821_600), 0, all, Ok("AD AD 2021 21 2021 02021 2021 21 9 09 Sep September September 9 Sep September 5 248 248 0248 1 Sun Sunday 7 07 37 37 2 AM AM 6 06 6 6 6 0 0 0 00 0000 +0000 Z Z Z")),
            (s(-13_000_000_000), 0, all, Ok("AD AD 1558 58 1558 01558 1558 58 1 01 Jan January January 1 Jan January 8 8 08 0008 2 Sat Saturday 6 06 2 02 2 AM AM 12 12 0 24 0 53 20 0 00 0000 +0000 Z Z Z")),
            (s(-62_167_219_200), 0, all, Ok("BC BC 1 01 001 00001 0 00 1 01 Jan January January 1 Jan January 3 3 03 0003 1 Sat Saturday 6 06 1 01 1 AM AM 12 12 0 24 0 0 0 0 00 0000 +0000 Z Z Z")),
            (s(-12_219_292_800), 0, all, Ok("AD AD 1582 82 1582 01582 1582 82 10 10 Oct October October 10 Oct October 15 278 278 0278 1 Fri Friday 5 05 40 40 1 AM AM 12 12 0 24 0 0 0 0 00 0000 +0000 Z Z Z")),
            (s(-12_219_292_801), 0, all, Ok("AD AD 1582 82 1582 01582 1582 82 10 10 Oct October October 10 Oct October 4 277 277 0277 1 Thu Thursday 4 04 40 40 1 PM PM 11 11 11 23 23 59 59 0 00 0000 +0000 Z Z Z")),
            (s(253_402_300_799), 0, all, Ok("AD AD 9999 99 9999 09999 10000 00 12 12 Dec December December 12 Dec December 31 365 365 0365 5 Fri Friday 5 05 1 01 5 PM PM 11 11 11 23 23 59 59 0 00 0000 +0000 Z Z Z")),
            (s(1_630_821_600 + 19_800), 19_800, "HH:mm Z X XX XXX", Ok("11:30 +0530 +05 +0530 +05:30")),
            (s(1_630_821_600 - 9_000), -9_000, "HH:mm Z X XX XXX", Ok("03:30 -0230 -02 -0230 -02:30")),
            (0, 0, "''''|'It''s'|yyyy[MM]", Ok("''|It's|1970[01]")),
            (0, 0, "yyyy'x''", Err("unterminated quote in 'yyyy'x'''")),
            (0, 0, "Q", Err("unknown pattern letter 'Q'")),
            (0, 0, "B", Err("unknown pattern letter 'B'")),
            (0, 0, "XXXX", Err("'X' takes 1 to 3 letters, not 4")),
            (0, 0, "z", Err("letter 'z' (the zone's name) is not supported; use Z or X for its offset")),
        ];
        for (wall, offset, pattern, want) in cases {
            let got = DatePattern::compile(pattern, S)
                .map(|p| p.format(*wall, *offset).unwrap_or_default());
            assert_eq!(
                got.as_deref(),
                want.map_err(|e| e.to_string()).as_deref(),
                "{pattern} at {wall}"
            );
        }
    }

    #[test]
    fn text_read_as_simple_date_format_does() {
        let cases = [
            ("2021-01-03 10:00:00.500", Some("2021-01-03 10:00:00.000")),
            ("2021-01-03 7:5:9", Some("2021-01-03 07:05:09.000")),
            ("2021-13-03 10:00:00", Some("2022-01-03 10:00:00.000")),
            ("2021-01-03 24:00:00", Some("2021-01-04 00:00:00.000")),
            ("2021-01-03", None),
            ("2021/01/03 10:00:00", None),
            (" 2021-01-03 10:00:00", None),
            ("99999999999999999999-01-03 10:00:00", None),
        ];
        for (text, want) in cases {
            assert_eq!(read_default_timestamp(text), want.map(ms), "{text}");
        }
        // Before 1582-10-15 the date is Julian: 1000-01-01 was a Monday.
        let julian = read_default_timestamp("1000-01-01 10:00:00").unwrap_or_default();
        let pattern = DatePattern::compile("yyyy-MM-dd EEE D w", Dialect::Simple);
        assert_eq!(
            pattern.map(|p| p.format(julian, 0)),
            Ok(Some("1000-01-01 Mon 1 1".into()))
        );
    }

    #[test]
    fn no_panic_far_from_year_zero() -> Result<(), String> {
        for dialect in [Dialect::JavaTime, Dialect::Simple] {
            let pattern = DatePattern::compile("yyyy-MM-dd HH:mm:ss.SSS", dialect)?;
            for t in [i64::MIN, i64::MAX, -1, 0] {
                let _ = pattern.format(t, 0);
            }
        }
        Ok(())
    }
}
