//! The common JSON line read fast: one flat object whose values are
//! strings without escapes, numbers, `true`, `false` or `null`. Its values
//! are found as slices of the line, in one pass, with nothing allocated.
//!
//! Strings are passed over by the batch's [`StringEnds`]: the bytes that
//! can end a plain string (a quote, a backslash, a control character),
//! found for the whole batch a block at a time, so a string of any length
//! costs a look at a bit mask rather than at each of its bytes.
//!
//! Lines written by one program mostly have one layout: the same keys in
//! the same order, with the same spacing. The bytes between the values of
//! the last line read key by key are kept as its [`Shape`], and the next
//! line is first read against it: each stretch between two values is
//! compared whole (mostly one compare of 16 bytes), where reading it key by
//! key costs a look at each key, colon, comma and space. A line that
//! differs anywhere is read key by key and becomes the shape.
//!
//! A line this reading does not take (a nested value, an escape, a field
//! named twice, a control character, anything that is not such an object)
//! is left to arrow-json and serde_json as before; so it takes only lines
//! that arrow-json reads, and gives what arrow-json gives for them: a
//! string's contents, a number or boolean as written, NULL for `null` or a
//! field that is not there. Unit tests compare the two on lines both
//! well-formed and broken, and lines read against a shape with the same
//! lines read alone.

use super::lines::Lines;
use crate::formats::marks::{mark, BLOCK};
use std::ops::Range;
use wide::u8x16;

/// What reading flat lines keeps from batch to batch: the marks of the
/// batch's string ends and the shape of the last line read key by key.
#[derive(Default)]
pub(super) struct Scanner {
    ends: StringEnds,
    shape: Shape,
}

/// The values of every line of `lines`, each a flat object, appended to
/// `out`, a row of `names.len()` a line; false when a line is not one this
/// reading takes (`out` then holds the lines before it).
pub(super) fn flat_lines(
    lines: &Lines,
    scanner: &mut Scanner,
    names: &Names,
    out: &mut Vec<Option<(u32, u32)>>,
) -> bool {
    if lines.is_empty() {
        return true;
    }
    let (Some(first), Some(last)) = (lines.span(0), lines.span(lines.len() - 1)) else {
        return false;
    };
    let text = lines.whole();
    scanner.ends.mark(text.as_bytes(), first.start..last.end);
    (0..lines.len()).all(|i| {
        lines
            .span(i)
            .is_some_and(|span| flat_values(text, span, scanner, names, out))
    })
}

/// Each column's value in the line at `span` of `text`, as a byte range
/// of the line (`None` for a missing field or `null`), appended to `out`;
/// false, with `out` as it was, when the line is not one this reading
/// takes. The scanner's string ends are those of all of `text`.
fn flat_values(
    text: &str,
    span: Range<usize>,
    scanner: &mut Scanner,
    names: &Names,
    out: &mut Vec<Option<(u32, u32)>>,
) -> bool {
    let start = out.len();
    out.resize(start + names.len(), None);
    let line = Line {
        b: &text.as_bytes()[..span.end],
        whole: text.as_bytes(),
        from: span.start,
        ends: &scanner.ends,
    };
    let taken = line
        .scan(names, &mut scanner.shape, &mut out[start..])
        .is_some();
    if !taken {
        out.truncate(start);
    }
    taken
}

/// The bytes of a stretch of text that can end a plain string (a quote,
/// a backslash, a control character), a bit each, 64 to a word.
#[derive(Default)]
pub(super) struct StringEnds {
    /// The first byte marked: a multiple of the block size.
    base: usize,
    bits: Vec<u64>,
}

impl StringEnds {
    /// Marks the string ends of `text` over `range` (from the block
    /// `range.start` is in): what [`StringEnds::next`] then looks in.
    pub fn mark(&mut self, text: &[u8], range: Range<usize>) {
        self.base = range.start / BLOCK * BLOCK;
        let text = &text[self.base..range.end];
        self.bits.clear();
        self.bits.reserve(text.len().div_ceil(BLOCK));
        let mut blocks = text.chunks_exact(BLOCK);
        for block in blocks.by_ref() {
            let block = block.try_into().expect("chunks_exact gives whole blocks");
            self.bits.push(block_ends(block));
        }
        let rest = blocks.remainder();
        if !rest.is_empty() {
            // The bytes past the end are zeros, control characters: marked,
            // and past every line, so never looked at.
            let mut last = [0u8; BLOCK];
            last[..rest.len()].copy_from_slice(rest);
            self.bits.push(block_ends(&last));
        }
    }

    /// The first marked byte at or after `from` and before `to`, both
    /// within the range marked.
    #[inline(always)]
    fn next(&self, from: usize, to: usize) -> Option<usize> {
        let (from, to) = (from.checked_sub(self.base)?, to - self.base);
        let mut word = from / BLOCK;
        let mut bits = *self.bits.get(word)? & (u64::MAX << (from % BLOCK));
        while bits == 0 {
            word += 1;
            if word * BLOCK >= to {
                return None;
            }
            bits = *self.bits.get(word)?;
        }
        let at = word * BLOCK + bits.trailing_zeros() as usize;
        (at < to).then_some(self.base + at)
    }
}

/// The string ends of one block, by bit.
#[inline]
fn block_ends(bytes: &[u8; BLOCK]) -> u64 {
    mark(bytes, |v| {
        v.simd_eq(u8x16::splat(b'"'))
            | v.simd_eq(u8x16::splat(b'\\'))
            | v.simd_lt(u8x16::splat(0x20))
    })
}

/// One line being read: the batch's text up to the line's end, all of
/// it, the line's first byte, and the batch's string ends. Positions are
/// of the batch's text; the ranges handed out are of the line.
struct Line<'a> {
    b: &'a [u8],
    whole: &'a [u8],
    from: usize,
    ends: &'a StringEnds,
}

impl Line<'_> {
    /// Fills `values` from the object, against `shape` when the line has
    /// it, else key by key, and then the line becomes the shape; None when
    /// the line is not taken.
    fn scan(
        &self,
        names: &Names,
        shape: &mut Shape,
        values: &mut [Option<(u32, u32)>],
    ) -> Option<()> {
        // Ranges are kept as u32: a longer line goes the slow way.
        if self.b.len() - self.from > u32::MAX as usize || names.len() > 64 {
            return None;
        }
        if self.scan_by_shape(shape, values).is_some() {
            return Some(());
        }
        values.fill(None);
        shape.found.clear();
        self.scan_by_keys(names, &mut shape.found, values)?;
        shape.take(self.b, self.from);
        Some(())
    }

    /// Fills `values` when the line is `shape` with values between its
    /// pieces; None, with `values` partly filled, when it is not.
    #[inline(always)]
    fn scan_by_shape(&self, shape: &Shape, values: &mut [Option<(u32, u32)>]) -> Option<()> {
        let (last, between) = shape.pieces.split_last()?;
        let mut at = self.from;
        for piece in between {
            if !shape.is_at(piece, self.whole, at, self.b.len()) {
                return None;
            }
            let mut value = None;
            at = self.read_value(at + piece.len as usize, &mut value)?;
            if let Some(column) = piece.column {
                values[column as usize] = value;
            }
        }
        (shape.is_at(last, self.whole, at, self.b.len()) && at + last.len as usize == self.b.len())
            .then_some(())
    }

    /// Fills `values` from the object key by key, noting in `found` where
    /// each value starts and ends and its column; None when the line is
    /// not taken.
    fn scan_by_keys(
        &self,
        names: &Names,
        found: &mut Vec<Found>,
        values: &mut [Option<(u32, u32)>],
    ) -> Option<()> {
        let b = self.b;
        let mut seen = 0u64;
        // Fields mostly come in the same order on every line: the column
        // after the last one found is tried first.
        let mut next_column = 0;
        let mut at = skip_space(b, self.from);
        expect(b, at, b'{')?;
        at = skip_space(b, at + 1);
        if b.get(at) == Some(&b'}') {
            return end_of_line(b, at + 1);
        }
        loop {
            let (key_from, key_to) = self.string(at)?;
            at = skip_space(b, key_to + 1);
            expect(b, at, b':')?;
            at = skip_space(b, at + 1);
            let column = match names.names.get(next_column) {
                Some(name) if name.is(b, key_from, key_to) => Some(next_column),
                _ => names.names.iter().position(|n| n.is(b, key_from, key_to)),
            };
            let mut value = None;
            let next = self.read_value(at, &mut value)?;
            found.push(Found {
                from: at,
                to: next,
                column: column.map(|c| c as u8),
            });
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

    /// The contents of the string opening at `at` (`from..to`, the closing
    /// quote at `to`), when it has no escape and no control character.
    #[inline(always)]
    fn string(&self, at: usize) -> Option<(usize, usize)> {
        expect(self.b, at, b'"')?;
        let from = at + 1;
        let to = self.ends.next(from, self.b.len())?;
        (self.b[to] == b'"').then_some((from, to))
    }

    /// Where the value at `at` ends, with its text's range in the line put
    /// in `value` (left None for `null`).
    #[inline(always)]
    fn read_value(&self, at: usize, value: &mut Option<(u32, u32)>) -> Option<usize> {
        let b = self.b;
        let (from, to, end) = match b.get(at)? {
            b'"' => {
                let (from, to) = self.string(at)?;
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
        *value = Some(((from - self.from) as u32, (to - self.from) as u32));
        Some(end)
    }
}

/// A value of a line read key by key: where it starts and ends in the
/// batch's text, and its column (None for a field no column names).
struct Found {
    from: usize,
    to: usize,
    column: Option<u8>,
}

/// The layout of a line read key by key: the stretches of bytes before,
/// between and after its values (the first from the line's start, the
/// last to its end), each with the column of the value after it.
#[derive(Default)]
struct Shape {
    /// Every piece's bytes, one after another.
    text: Vec<u8>,
    pieces: Vec<Piece>,
    /// The values of the line being read key by key.
    found: Vec<Found>,
}

/// A stretch of a shape: its place in the shape's text, and its first 16
/// bytes as a number with a mask of those that are its own, so that it is
/// mostly told at a place of a line by one compare.
struct Piece {
    from: u32,
    len: u32,
    head: u128,
    mask: u128,
    /// The column of the value after the piece, if a column names it.
    column: Option<u8>,
}

impl Shape {
    /// The line of `b` from `from` to its end, whose values are `found`,
    /// as the shape.
    fn take(&mut self, b: &[u8], from: usize) {
        let Shape {
            text,
            pieces,
            found,
        } = self;
        text.clear();
        pieces.clear();
        let mut start = from;
        let values = found.iter().map(|f| (f.from, f.to, f.column));
        for (to, next, column) in values.chain([(b.len(), b.len(), None)]) {
            let bytes = &b[start..to];
            let mut head = [0u8; 16];
            let n = bytes.len().min(16);
            head[..n].copy_from_slice(&bytes[..n]);
            pieces.push(Piece {
                from: text.len() as u32,
                len: bytes.len() as u32,
                head: u128::from_le_bytes(head),
                mask: if n == 16 {
                    u128::MAX
                } else {
                    (1 << (8 * n)) - 1
                },
                column,
            });
            text.extend_from_slice(bytes);
            start = next;
        }
    }

    /// Whether `piece` is at `at` of `whole`, ending by `end`.
    #[inline(always)]
    fn is_at(&self, piece: &Piece, whole: &[u8], at: usize, end: usize) -> bool {
        let len = piece.len as usize;
        if at + len > end {
            return false;
        }
        let own = &self.text[piece.from as usize..][..len];
        match whole.get(at..at + 16) {
            Some(word) => {
                let word = u128::from_le_bytes(word.try_into().unwrap_or_default());
                word & piece.mask == piece.head
                    && (len <= 16 || same(&own[16..], &whole[at + 16..at + len]))
            }
            None => same(own, &whole[at..at + len]),
        }
    }
}

/// The columns' names, as the keys of a line are matched against them.
pub(super) struct Names {
    names: Vec<Name>,
}

/// A column's name, with its first eight bytes as a word: a key is mostly
/// told from it by one compare of a word read from the line.
struct Name {
    text: Box<[u8]>,
    head: u64,
    mask: u64,
}

impl Names {
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Names {
        let names = names
            .into_iter()
            .map(|name| {
                let text: Box<[u8]> = name.as_bytes().into();
                let n = text.len().min(8);
                let mut head = [0u8; 8];
                head[..n].copy_from_slice(&text[..n]);
                Name {
                    text,
                    head: u64::from_le_bytes(head),
                    mask: if n == 8 { u64::MAX } else { (1 << (8 * n)) - 1 },
                }
            })
            .collect();
        Names { names }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }
}

impl Name {
    /// Whether the key `b[from..to]` is this name.
    #[inline(always)]
    fn is(&self, b: &[u8], from: usize, to: usize) -> bool {
        if to - from != self.text.len() {
            return false;
        }
        match b.get(from..from + 8) {
            // The line goes on past the key (its closing quote at least):
            // the key's first eight bytes, and what is left byte by byte.
            Some(word) => {
                let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
                let rest = from + self.text.len().min(8)..to;
                word & self.mask == self.head
                    && same(&self.text[8.min(self.text.len())..], &b[rest])
            }
            None => same(&self.text, &b[from..to]),
        }
    }
}

/// Whether two short names are equal, compared here rather than by a
/// call into the C library: field names are a few bytes long.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The number of ASCII digits at `at` of `b`: eight bytes at a time while
/// the line has them.
#[inline(always)]
fn digits(b: &[u8], at: usize) -> usize {
    let mut n = 0;
    while let Some(eight) = b.get(at + n..at + n + 8) {
        let word = u64::from_le_bytes(eight.try_into().unwrap_or_default());
        // A digit becomes 0-9 and anything else 10-255; adding 0x76 sets a
        // byte's high bit from 10 on (or it was set), and a carry out of a
        // byte only reaches the bytes after the first that is not a digit.
        let values = word ^ 0x3030_3030_3030_3030;
        let not_digits =
            (values.wrapping_add(0x7676_7676_7676_7676) | values) & 0x8080_8080_8080_8080;
        if not_digits != 0 {
            return n + (not_digits.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + b[at + n..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count()
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

/// The bytes that end a plain string: its closing quote, or what this
/// reading leaves to the slow way (an escape, a control character).
#[cfg(test)]
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

/// The end of the JSON number at `at`: `-? (0 | [1-9][0-9]*) (. [0-9]+)?
/// ([eE] [+-]? [0-9]+)?`, followed by a byte that can end it.
#[inline]
fn number(b: &[u8], mut at: usize) -> Option<usize> {
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
    use crate::ops::testing::Rng;

    /// The first string end at or after `from` and before `to`, byte by
    /// byte.
    fn naive_next(text: &[u8], from: usize, to: usize) -> Option<usize> {
        (from..to).find(|&i| ENDS_STRING[text[i] as usize])
    }

    #[test]
    fn a_string_ends_where_byte_by_byte_says() {
        // Buffers of lengths around the block size, one or two string ends
        // put anywhere, marked from several places on, searched from and
        // to positions throughout.
        let plain = b"abcdefghijklmnopqrstu\xc3\xa9\x7f\xff ~";
        let mut ends = StringEnds::default();
        for len in [0, 1, 7, 63, 64, 65, 127, 128, 130, 200] {
            let base: Vec<u8> = plain.iter().copied().cycle().take(len).collect();
            for stop in [b'"', b'\\', 0x1f, 0x00, b'\n'] {
                for at in (0..len).step_by(5).chain(len.checked_sub(1)) {
                    for second in [None, Some(at / 2), Some((at + len) / 2)] {
                        let mut text = base.clone();
                        text[at] = stop;
                        if let Some(i) = second.filter(|&i| i < len) {
                            text[i] = b'"';
                        }
                        for marked in [0, 5, 64, 70].into_iter().filter(|&m| m <= len) {
                            ends.mark(&text, marked..len);
                            for from in (marked..=len).step_by(3) {
                                for to in [from, at, at + 1, len]
                                    .into_iter()
                                    .filter(|&to| to >= from && to <= len)
                                {
                                    assert_eq!(
                                        ends.next(from, to),
                                        naive_next(&text, from, to),
                                        "len {len}, {stop} at {at}, second {second:?}, \
                                         marked from {marked}, {from}..{to}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
            ends.mark(&base, 0..len);
            assert_eq!(ends.next(0, len), naive_next(&base, 0, len));
        }
    }

    #[test]
    fn digits_are_counted_as_byte_by_byte() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..20_000 {
            let state = rng.next();
            // Mostly digits, with bytes next to them in value and any byte.
            let len = (state % 40) as usize;
            let text: Vec<u8> = (0..len)
                .map(|i| {
                    let pick = state.rotate_left(i as u32 * 5);
                    match pick % 8 {
                        0 => b"/:\x00\x7f\xb0\xff9"[(pick >> 8) as usize % 7],
                        1 => (pick >> 16) as u8,
                        _ => b'0' + (pick >> 24) as u8 % 10,
                    }
                })
                .collect();
            for at in 0..=len {
                let naive = text[at..].iter().take_while(|c| c.is_ascii_digit()).count();
                assert_eq!(digits(&text, at), naive, "{text:?} from {at}");
            }
        }
    }

    #[test]
    fn a_key_is_a_name_only_when_it_is_byte_for_byte() {
        let texts = [
            "",
            "a",
            "ab",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "abcdefghijkl",
        ];
        let names = Names::new(texts);
        for name in &names.names {
            for key in texts
                .iter()
                .chain(&["b", "abcdefgH", "abcdefghX", "abcdefghijkL"])
            {
                // The key quoted in a line, with more or nothing after it.
                for after in ["\": 1}", "\"", ""] {
                    let line = format!("{{\"{key}{after}");
                    let (from, to) = (2, 2 + key.len());
                    assert_eq!(
                        name.is(line.as_bytes(), from, to),
                        *name.text == *key.as_bytes(),
                        "{:?} against {line:?}",
                        String::from_utf8_lossy(&name.text)
                    );
                }
            }
        }
    }

    /// Each line's values as read one after another by one scanner (so
    /// against the shape of a line before), or None where it is not taken.
    /// Also counted: the lines read against the shape.
    fn read_in_turn(lines: &[String], names: &Names) -> (Vec<Option<Vec<Option<String>>>>, usize) {
        let text = lines.join("\n");
        let mut scanner = Scanner::default();
        scanner.ends.mark(text.as_bytes(), 0..text.len());
        let mut start = 0;
        let mut by_shape = 0;
        let values = lines
            .iter()
            .map(|line| {
                let span = start..start + line.len();
                start = span.end + 1;
                let mut out = vec![None; names.len()];
                let whole = Line {
                    b: &text.as_bytes()[..span.end],
                    whole: text.as_bytes(),
                    from: span.start,
                    ends: &scanner.ends,
                };
                by_shape += usize::from(whole.scan_by_shape(&scanner.shape, &mut out).is_some());
                out.clear();
                flat_values(&text, span, &mut scanner, names, &mut out).then(|| {
                    out.iter()
                        .map(|r| r.map(|(from, to)| line[from as usize..to as usize].to_string()))
                        .collect()
                })
            })
            .collect();
        (values, by_shape)
    }

    #[test]
    fn a_line_read_against_a_shape_reads_as_alone() {
        let names = Names::new([
            "id",
            "name",
            "ts",
            "a",
            "b",
            "a_key_longer_than_sixteen_bytes",
        ]);
        // Layouts with a value or two left open, filled with good and bad
        // values of every kind: a line with the layout of the one before is
        // read against its shape, and must read as it does alone.
        let layouts = [
            r#"{"id": #, "name": #, "ts": "2020-04-15 08:05:00"}"#,
            r#"{"a":#,"other":#,"b":true}"#,
            "  {\"name\":#,\t\"id\" : #}  ",
            r#"{"a_key_longer_than_sixteen_bytes": #, "id": #}"#,
            r#"{"id":#}"#,
        ];
        let values = [
            "1",
            "-0.5e+3",
            "12345678901234567890",
            "01",
            "1.",
            "-",
            "\"x\"",
            "\"\"",
            "\"a\\\"b\"",
            "\"open",
            "\"a\", \"b\": \"c\"",
            "null",
            "nul",
            "true",
            "truex",
            "false",
            "[1]",
            "{\"x\": 1}",
            "1 ",
            " 1",
            "",
            "\"é\"",
        ];
        let mut lines = Vec::new();
        for layout in layouts {
            for first in values {
                for second in values {
                    lines.push(layout.replacen('#', first, 1).replacen('#', second, 1));
                }
            }
            // The same layout but for a key, or with more after it.
            let filled = layout.replace('#', "1");
            lines.push(filled.clone());
            lines.push(filled.replace("\"id\"", "\"name\""));
            lines.push(filled.replace("bytes\"", "bytez\""));
            for more in [" x", "}", ","] {
                lines.push(filled.clone());
                lines.push(format!("{filled}{more}"));
            }
            lines.push("{}".to_string());
        }
        let alone: Vec<_> = lines
            .iter()
            .map(|line| read_in_turn(std::slice::from_ref(line), &names).0.remove(0))
            .collect();
        let (in_turn, by_shape) = read_in_turn(&lines, &names);
        for ((line, alone), in_turn) in lines.iter().zip(&alone).zip(&in_turn) {
            assert_eq!(alone, in_turn, "{line}");
        }
        // Many lines were taken, most of them against a shape.
        let taken = alone.iter().filter(|v| v.is_some()).count();
        assert!(taken > lines.len() / 4, "{taken} of {}", lines.len());
        assert!(by_shape > taken / 2, "{by_shape} of {taken}");
    }

    #[test]
    fn values_are_found_by_name_in_any_order() {
        let names = Names::new(["a", "bb", "c"]);
        let mut scanner = Scanner::default();
        let mut out = Vec::new();
        // The line among others in one text, ranges counted from its start.
        let before = "{\"c\": \"an earlier line, longer than a block of the marks\"}\n";
        let line = r#"{"c": "x", "zz": "a string running on past the end of a block", "a": -1.5e3, "bb": null}"#;
        let text = format!("{before}{line}\n{{\"a\": \"after\"}}");
        scanner.ends.mark(text.as_bytes(), 0..text.len());
        let span = before.len()..before.len() + line.len();
        assert!(flat_values(
            &text,
            span.clone(),
            &mut scanner,
            &names,
            &mut out
        ));
        let values: Vec<Option<&str>> = out
            .iter()
            .map(|r| r.map(|(from, to)| &line[from as usize..to as usize]))
            .collect();
        assert_eq!(values, [Some("-1.5e3"), None, Some("x")]);
        // A line not taken leaves what was there.
        let text = r#"{"a": [1]}"#;
        scanner.ends.mark(text.as_bytes(), 0..text.len());
        assert!(!flat_values(
            text,
            0..text.len(),
            &mut scanner,
            &names,
            &mut out
        ));
        assert_eq!(out.len(), 3);
        // A string may not run on past its line's end.
        let text = "{\"a\": \"open\n\"}";
        scanner.ends.mark(text.as_bytes(), 0..text.len());
        assert!(!flat_values(text, 0..11, &mut scanner, &names, &mut out));
        let text = "{\"a\": \"open\"}";
        scanner.ends.mark(text.as_bytes(), 0..text.len());
        assert!(!flat_values(text, 0..12, &mut scanner, &names, &mut out));
    }
}
