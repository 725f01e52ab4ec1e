//! The picture under a data error: the input line, cut around the place
//! when it is long, with a caret under the bad part — the same picture a
//! SQL error draws under a statement; and a field as such a message
//! quotes it, cut when it is long ([`shorten`]).

/// How many characters of a line are shown.
const WIDTH: usize = 100;

/// Line `line` (its text `text`, control characters shown as spaces) with
/// carets under characters `from..to` (at least one, at `from`).
pub fn excerpt(line: u64, text: &str, from: usize, to: usize) -> String {
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let total = text.chars().count();
    let (from, to) = (from.min(total), to.clamp(from.min(total), total));
    // Long lines are cut around the mark.
    let first = if total <= WIDTH {
        0
    } else {
        from.saturating_sub(WIDTH / 3).min(total - WIDTH)
    };
    let shown: String = text.chars().skip(first).take(WIDTH).collect();
    let lead = if first > 0 { "..." } else { "" };
    let tail = if first + WIDTH < total { "..." } else { "" };
    let number = line.to_string();
    let pad = " ".repeat(number.len());
    let caret_at = lead.len() + from - first;
    let carets = (to.min(first + WIDTH).saturating_sub(from)).max(1);
    format!(
        "{pad} |\n{number} | {lead}{shown}{tail}\n{pad} | {}{}",
        " ".repeat(caret_at),
        "^".repeat(carets)
    )
}

/// `message` with the excerpt of line `line` numbered `number` instead:
/// a Kafka record is known by its offset, not by the line of the text its
/// values were read as.
pub fn renumber(message: &str, line: u64, number: u64) -> String {
    let (old, new) = (line.to_string(), number.to_string());
    let (old_pad, new_pad) = (" ".repeat(old.len()), " ".repeat(new.len()));
    message
        .split('\n')
        .map(|l| {
            if let Some(rest) = l.strip_prefix(&format!("{old} | ")) {
                format!("{new} | {rest}")
            } else if let Some(rest) = l.strip_prefix(&format!("{old_pad} |")) {
                format!("{new_pad} |{rest}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where the value of member `name` is in a JSON line, in characters:
/// `"name": value` with `value` a string (quotes included), a number, a
/// literal, or a nested object or array. None when the line has no such
/// member (then the whole line is marked).
pub fn json_member_value(text: &str, name: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let key = format!("\"{name}\"");
    let mut search = 0;
    while let Some(found) = text[search..].find(&key) {
        let mut at = search + found + key.len();
        search = at;
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        if bytes.get(at) != Some(&b':') {
            continue;
        }
        at += 1;
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        let start = at;
        let (mut depth, mut quoted, mut escaped) = (0usize, false, false);
        while let Some(&b) = bytes.get(at) {
            if quoted {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => {
                        quoted = false;
                        if depth == 0 {
                            at += 1;
                            break;
                        }
                    }
                    _ => {}
                }
            } else {
                match b {
                    b'"' => quoted = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' if depth > 0 => {
                        depth -= 1;
                        if depth == 0 {
                            at += 1;
                            break;
                        }
                    }
                    b',' | b'}' | b']' if depth == 0 => break,
                    _ => {}
                }
            }
            at += 1;
        }
        let end = text[start..at].trim_end().len() + start;
        let chars = |byte: usize| text[..byte].chars().count();
        return Some((chars(start), chars(end)));
    }
    None
}

/// A field as an error message shows it: long text is cut with an
/// ellipsis, so a huge field cannot make a huge message.
pub(crate) fn shorten(text: &str) -> String {
    const MAX_CHARS: usize = 80;
    match text.char_indices().nth(MAX_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_is_renumbered_by_its_record() {
        let message = format!("t:7: bad\n{}", excerpt(7, "a,bb,c", 2, 4));
        assert_eq!(
            renumber(&message, 7, 1234),
            "t:7: bad\n     |\n1234 | a,bb,c\n     |   ^^"
        );
    }

    #[test]
    fn the_caret_goes_under_the_marked_characters() {
        assert_eq!(excerpt(7, "a,bb,c", 2, 4), "  |\n7 | a,bb,c\n  |   ^^");
        assert_eq!(excerpt(7, "a,b", 3, 3), "  |\n7 | a,b\n  |    ^");
        let long = "x".repeat(300);
        let shown = excerpt(1, &long, 250, 251);
        assert!(shown.contains("...x"), "{shown}");
        assert!(shown
            .lines()
            .nth(1)
            .is_some_and(|l| l.chars().count() <= 4 + 3 + WIDTH + 3));
    }

    #[test]
    fn json_member_values_are_found_whatever_their_kind() {
        let line = r#"{"a": "x\"y", "b":12 , "c": {"d": [1, 2]}, "e": null}"#;
        let value = |name: &str| {
            json_member_value(line, name)
                .map(|(a, b)| line.chars().skip(a).take(b - a).collect::<String>())
        };
        assert_eq!(value("a").as_deref(), Some(r#""x\"y""#));
        assert_eq!(value("b").as_deref(), Some("12"));
        assert_eq!(value("c").as_deref(), Some(r#"{"d": [1, 2]}"#));
        assert_eq!(value("e").as_deref(), Some("null"));
        assert_eq!(value("d").as_deref(), Some("[1, 2]"));
        assert_eq!(value("zz"), None);
    }
}
