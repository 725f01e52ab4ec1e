//! The common JSON line read fast: one flat object whose values are
//! strings without escapes, numbers, `true`, `false` or `null`. Its values
//! are found as slices of the line, in one pass, with nothing allocated.
//!
//! A line this reading does not take (a nested value, an escape, a field
//! named twice, a control character, anything that is not such an object)
//! is left to arrow-json and serde_json as before; so it takes only lines
//! that arrow-json reads, and gives what arrow-json gives for them: a
//! string's contents, a number or boolean as written, NULL for `null` or a
//! field that is not there. A unit test compares the two on lines both
//! well-formed and broken.

/// Each column's value in `line`, as a byte range of it (`None` for a
/// missing field or `null`), appended to `out`; false, with `out` as it
/// was, when the line is not one this reading takes.
pub(super) fn flat_values(line: &str, names: &[&str], out: &mut Vec<Option<(u32, u32)>>) -> bool {
    let start = out.len();
    out.resize(start + names.len(), None);
    let taken = scan(line.as_bytes(), names, &mut out[start..]).is_some();
    if !taken {
        out.truncate(start);
    }
    taken
}

/// Fills `values` from the object in `b`; None when the line is not taken.
fn scan(b: &[u8], names: &[&str], values: &mut [Option<(u32, u32)>]) -> Option<()> {
    // Ranges are kept as u32: a longer line goes the slow way.
    if b.len() > u32::MAX as usize {
        return None;
    }
    let mut seen = 0u64;
    if names.len() > 64 {
        return None;
    }
    let mut at = skip_space(b, 0);
    expect(b, at, b'{')?;
    at = skip_space(b, at + 1);
    if b.get(at) == Some(&b'}') {
        return end_of_line(b, at + 1);
    }
    loop {
        let (key_from, key_to) = string(b, at)?;
        at = skip_space(b, key_to + 1);
        expect(b, at, b':')?;
        at = skip_space(b, at + 1);
        let (value, next) = value(b, at)?;
        let key = &b[key_from..key_to];
        if let Some(column) = names.iter().position(|n| n.as_bytes() == key) {
            // A field named twice: which one counts is for the slow way.
            if seen & (1 << column) != 0 {
                return None;
            }
            seen |= 1 << column;
            values[column] = value;
        }
        at = skip_space(b, next);
        match b.get(at)? {
            b',' => at = skip_space(b, at + 1),
            b'}' => return end_of_line(b, at + 1),
            _ => return None,
        }
    }
}

/// Only white space after the object.
fn end_of_line(b: &[u8], at: usize) -> Option<()> {
    (skip_space(b, at) == b.len()).then_some(())
}

fn skip_space(b: &[u8], mut at: usize) -> usize {
    while matches!(b.get(at), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        at += 1;
    }
    at
}

fn expect(b: &[u8], at: usize, byte: u8) -> Option<()> {
    (b.get(at) == Some(&byte)).then_some(())
}

/// The contents of the string opening at `at` (`from..to`, the closing
/// quote at `to`), when it has no escape and no control character.
fn string(b: &[u8], at: usize) -> Option<(usize, usize)> {
    expect(b, at, b'"')?;
    let from = at + 1;
    let len = b[from..].iter().position(|c| *c == b'"' || *c == b'\\' || *c < 0x20)?;
    let to = from + len;
    (b[to] == b'"').then_some((from, to))
}

/// The value at `at` as text (None for `null`), and where it ends.
#[allow(clippy::type_complexity)]
fn value(b: &[u8], at: usize) -> Option<(Option<(u32, u32)>, usize)> {
    let range = |from: usize, to: usize| Some((from as u32, to as u32));
    match b.get(at)? {
        b'"' => {
            let (from, to) = string(b, at)?;
            Some((range(from, to), to + 1))
        }
        b'n' => b[at..].starts_with(b"null").then_some((None, at + 4)),
        b't' => b[at..].starts_with(b"true").then(|| (range(at, at + 4), at + 4)),
        b'f' => b[at..].starts_with(b"false").then(|| (range(at, at + 5), at + 5)),
        b'-' | b'0'..=b'9' => {
            let to = number(b, at)?;
            Some((range(at, to), to))
        }
        _ => None,
    }
}

/// The end of the JSON number at `at`: `-? (0 | [1-9][0-9]*) (. [0-9]+)?
/// ([eE] [+-]? [0-9]+)?`, followed by a byte that can end it.
fn number(b: &[u8], mut at: usize) -> Option<usize> {
    let digits = |b: &[u8], at: usize| b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
    if b.get(at) == Some(&b'-') {
        at += 1;
    }
    match b.get(at)? {
        b'0' => at += 1,
        b'1'..=b'9' => at += digits(b, at),
        _ => return None,
    }
    if b.get(at) == Some(&b'.') {
        let n = digits(b, at + 1);
        if n == 0 {
            return None;
        }
        at += 1 + n;
    }
    if matches!(b.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(b.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let n = digits(b, at);
        if n == 0 {
            return None;
        }
        at += n;
    }
    match b.get(at) {
        None | Some(b',' | b'}' | b' ' | b'\t' | b'\r' | b'\n') => Some(at),
        _ => None,
    }
}
