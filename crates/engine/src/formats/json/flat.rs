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
    // Fields mostly come in the same order on every line: the column after
    // the last one found is tried first.
    let mut next_column = 0;
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
        let key = &b[key_from..key_to];
        let column = match names.get(next_column) {
            Some(name) if same(name.as_bytes(), key) => Some(next_column),
            _ => names.iter().position(|n| same(n.as_bytes(), key)),
        };
        let mut value = None;
        let next = read_value(b, at, &mut value)?;
        if let Some(column) = column {
            next_column = column + 1;
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

/// Whether two short names are equal, compared here rather than by a
/// call into the C library: field names are a few bytes long.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
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
#[inline(always)]
fn string(b: &[u8], at: usize) -> Option<(usize, usize)> {
    expect(b, at, b'"')?;
    let from = at + 1;
    let to = string_end(b, from)?;
    (b[to] == b'"').then_some((from, to))
}

/// The first byte at or after `from` that ends a plain string
/// ([`ENDS_STRING`]), looked for eight bytes at a time: in each word, a
/// byte that is a quote, a backslash or below 0x20 sets its high bit (the
/// lowest one set is always such a byte; a borrow can only set bits above
/// it).
#[inline(always)]
fn string_end(b: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
    let mut at = from;
    while let Some(bytes) = b.get(at..at + 8) {
        let word = u64::from_le_bytes(bytes.try_into().ok()?);
        let found = (zero_byte(word ^ (ONES * u64::from(b'"')))
            | zero_byte(word ^ (ONES * u64::from(b'\\')))
            | (word.wrapping_sub(ONES * 0x20) & !word))
            & HIGH;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = b[at..].iter().position(|c| ENDS_STRING[*c as usize])?;
    Some(at + rest)
}

/// The bytes that end a plain string: its closing quote, or what this
/// reading leaves to the slow way (an escape, a control character).
static ENDS_STRING: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        table[c] = true;
        c += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Where the value at `at` ends, with its text's range put in `value`
/// (left None for `null`).
#[inline(always)]
fn read_value(b: &[u8], at: usize, value: &mut Option<(u32, u32)>) -> Option<usize> {
    let (from, to, end) = match b.get(at)? {
        b'"' => {
            let (from, to) = string(b, at)?;
            (from, to, to + 1)
        }
        b'n' => return b[at..].starts_with(b"null").then_some(at + 4),
        b't' => (at, at + 4, b[at..].starts_with(b"true").then_some(at + 4)?),
        b'f' => (at, at + 5, b[at..].starts_with(b"false").then_some(at + 5)?),
        b'-' | b'0'..=b'9' => {
            let to = number(b, at)?;
            (at, to, to)
        }
        _ => return None,
    };
    *value = Some((from as u32, to as u32));
    Some(end)
}

/// The end of the JSON number at `at`: `-? (0 | [1-9][0-9]*) (. [0-9]+)?
/// ([eE] [+-]? [0-9]+)?`, followed by a byte that can end it.
#[inline]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_ends_where_byte_by_byte_says() {
        let plain = b"abcdefghijklmnopqrstu\xc3\xa9\x7f\xff ~";
        for len in 0..plain.len() {
            for stop in [b'"', b'\\', 0x1f, 0x00] {
                for at in 0..=len {
                    let mut line = plain[..len].to_vec();
                    line.insert(at, stop);
                    line.extend_from_slice(b"\"tail");
                    for from in 0..=at {
                        let naive = line[from..]
                            .iter()
                            .position(|c| ENDS_STRING[*c as usize])
                            .map(|n| from + n);
                        assert_eq!(naive, Some(at));
                        assert_eq!(string_end(&line, from), naive, "{line:?} from {from}");
                    }
                }
            }
            assert_eq!(string_end(&plain[..len], 0), None);
        }
    }

    #[test]
    fn values_are_found_by_name_in_any_order() {
        let names = ["a", "bb", "c"];
        let mut out = Vec::new();
        let line = r#"{"c": "x", "zz": 1, "a": -1.5e3, "bb": null}"#;
        assert!(flat_values(line, &names, &mut out));
        let text: Vec<Option<&str>> = out
            .iter()
            .map(|r| r.map(|(from, to)| &line[from as usize..to as usize]))
            .collect();
        assert_eq!(text, [Some("-1.5e3"), None, Some("x")]);
        // A line not taken leaves what was there.
        assert!(!flat_values(r#"{"a": [1]}"#, &names, &mut out));
        assert_eq!(out.len(), 3);
    }
}
