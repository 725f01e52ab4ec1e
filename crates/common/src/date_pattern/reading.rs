//! Reading text with a Java date pattern (TO_TIMESTAMP, UNIX_TIMESTAMP):
//! the pattern translated to a chrono format, for the letters whose
//! reading chrono can do.
//!
//! The front end translates a pattern to check it when the query is
//! planned; the engine translates it again to read values, so plans keep
//! the pattern as the user wrote it.

/// A Java date pattern as a chrono format for reading: the letters
/// `y M d D H h m s S a E` (1 to 3 `S` read milliseconds), text in single
/// quotes (`''` is a quote) and anything else not a letter taken
/// literally. The error names the letter or run chrono cannot read.
pub fn java_to_chrono_pattern(pattern: &str) -> Result<String, String> {
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
                    (None, _) => return Err(format!("unterminated quote in '{pattern}'")),
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
            ('S', 1..=3) => "%3f",
            ('a', 1) => "%p",
            ('E', 1..=3) => "%a",
            ('E', 4) => "%A",
            (c, n) if c.is_ascii_alphabetic() => {
                return Err(format!(
                    "'{}' is not supported when reading text; the letters y, M, d, D, H, h, m, s, S, a and E are",
                    c.to_string().repeat(n)
                ))
            }
            _ => {
                for _ in 0..run {
                    literal(&mut out, c);
                }
                i += run;
                continue;
            }
        };
        // Fraction digits follow a '.' in chrono's %3f only with its own dot.
        if piece == "%3f" && out.ends_with('.') {
            out.pop();
            out.push_str("%.3f");
        } else {
            out.push_str(piece);
        }
        i += run;
    }
    // chrono must understand every item, or reading could fail per row.
    let valid = chrono::format::StrftimeItems::new(&out)
        .all(|item| !matches!(item, chrono::format::Item::Error));
    if valid {
        Ok(out)
    } else {
        Err(format!("'{pattern}' cannot be read"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_patterns_translate_to_chrono() {
        let cases: &[(&str, Result<&str, &str>)] = &[
            ("yyyy-MM-dd HH:mm:ss", Ok("%Y-%m-%d %H:%M:%S")),
            ("yyyy-MM-dd HH:mm:ss.SSS", Ok("%Y-%m-%d %H:%M:%S%.3f")),
            ("yyyy-MM-dd'T'HH:mm", Ok("%Y-%m-%dT%H:%M")),
            ("hh 'o''clock' a", Ok("%I o'clock %p")),
            ("yyyy''MM", Ok("%Y'%m")),
            ("EEE, d MMM yyyy", Ok("%a, %-d %b %Y")),
            ("100%", Ok("100%%")),
            ("S", Ok("%3f")),
            ("'open", Err("unterminated quote in ''open'")),
            ("yyyy QQ", Err("'QQ' is not supported when reading text; the letters y, M, d, D, H, h, m, s, S, a and E are")),
        ];
        for (java, want) in cases {
            let got = java_to_chrono_pattern(java);
            assert_eq!(
                got.as_deref(),
                want.map_err(|e| e.to_string()).as_deref(),
                "{java}"
            );
        }
    }
}
