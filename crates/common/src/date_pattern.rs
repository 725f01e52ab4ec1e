//! Java date patterns (`yyyy-MM-dd HH:mm:ss`, as Flink's TO_TIMESTAMP,
//! DATE_FORMAT and UNIX_TIMESTAMP take them) translated to chrono formats.
//!
//! The front end translates a pattern to check it when the query is
//! planned; the engine translates it again to read or write values, so
//! plans keep the pattern as the user wrote it.

/// What a translated Java date pattern is for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum PatternMode {
    /// Reading text (TO_TIMESTAMP, UNIX_TIMESTAMP): 1 to 3 `S` read
    /// milliseconds.
    Parse,
    /// Writing text (DATE_FORMAT): only `SSS`, as chrono writes no shorter
    /// fraction.
    Format,
}

/// A Java date pattern (as Flink's TO_TIMESTAMP and DATE_FORMAT take) as a
/// chrono format: the common letters, text in single quotes (`''` is a
/// quote) and anything else not a letter taken literally. `None` for a
/// letter or run chrono cannot express.
pub fn java_to_chrono_pattern(pattern: &str, mode: PatternMode) -> Option<String> {
    let mut out = String::new();
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let literal = |out: &mut String, c: char| {
        if c == '%' {
            out.push_str("%%");
        } else {
            out.push(c);
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            // `''` is a quote; otherwise text up to the closing quote.
            if chars.get(i + 1) == Some(&'\'') {
                out.push('\'');
                i += 2;
                continue;
            }
            i += 1;
            loop {
                match (chars.get(i), chars.get(i + 1)) {
                    (None, _) => return None,
                    (Some('\''), Some('\'')) => {
                        out.push('\'');
                        i += 2;
                    }
                    (Some('\''), _) => {
                        i += 1;
                        break;
                    }
                    (Some(&c), _) => {
                        literal(&mut out, c);
                        i += 1;
                    }
                }
            }
            continue;
        }
        let run = chars[i..].iter().take_while(|&&x| x == c).count();
        let piece = match (c, run) {
            ('y', 2) => "%y",
            ('y', _) => "%Y",
            ('M', 1) => "%-m",
            ('M', 2) => "%m",
            ('M', 3) => "%b",
            ('M', 4) => "%B",
            ('d', 1) => "%-d",
            ('d', 2) => "%d",
            ('D', 1) => "%-j",
            ('D', 3) => "%j",
            ('H', 1) => "%-H",
            ('H', 2) => "%H",
            ('h', 1) => "%-I",
            ('h', 2) => "%I",
            ('m', 1) => "%-M",
            ('m', 2) => "%M",
            ('s', 1) => "%-S",
            ('s', 2) => "%S",
            ('S', 3) => "%3f",
            ('S', 1..=2) if mode == PatternMode::Parse => "%3f",
            ('a', 1) => "%p",
            ('E', 1..=3) => "%a",
            ('E', 4) => "%A",
            (c, _) if c.is_ascii_alphabetic() => return None,
            _ => {
                for _ in 0..run {
                    literal(&mut out, c);
                }
                i += run;
                continue;
            }
        };
        // Fraction digits follow a '.' in chrono's %3f only with its own dot.
        if piece == "%3f" && mode == PatternMode::Parse && out.ends_with('.') {
            out.pop();
            out.push_str("%.3f");
        } else {
            out.push_str(piece);
        }
        i += run;
    }
    // chrono must understand every item, or formatting could fail per row.
    let valid = chrono::format::StrftimeItems::new(&out)
        .all(|item| !matches!(item, chrono::format::Item::Error));
    valid.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_patterns_translate_to_chrono() {
        let cases = [
            (
                "yyyy-MM-dd HH:mm:ss",
                PatternMode::Parse,
                Some("%Y-%m-%d %H:%M:%S"),
            ),
            (
                "yyyy-MM-dd HH:mm:ss.SSS",
                PatternMode::Parse,
                Some("%Y-%m-%d %H:%M:%S%.3f"),
            ),
            (
                "yyyy-MM-dd'T'HH:mm",
                PatternMode::Format,
                Some("%Y-%m-%dT%H:%M"),
            ),
            (
                "hh 'o''clock' a",
                PatternMode::Format,
                Some("%I o'clock %p"),
            ),
            ("yyyy''MM", PatternMode::Format, Some("%Y'%m")),
            (
                "EEE, d MMM yyyy",
                PatternMode::Format,
                Some("%a, %-d %b %Y"),
            ),
            ("100%", PatternMode::Format, Some("100%%")),
            ("S", PatternMode::Format, None),
            ("'open", PatternMode::Format, None),
            ("yyyy QQ", PatternMode::Format, None),
        ];
        for (java, mode, want) in cases {
            assert_eq!(
                java_to_chrono_pattern(java, mode).as_deref(),
                want,
                "{java}"
            );
        }
    }
}
