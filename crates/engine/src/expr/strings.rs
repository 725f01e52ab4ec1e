//! The string functions added beside the core ones in
//! [`crate::expr::functions`]: LOCATE (and POSITION), INITCAP, LPAD, RPAD,
//! REPEAT, REVERSE, REGEXP, REGEXP_REPLACE, LEFT, RIGHT, ASCII, CHR,
//! OVERLAY and TRANSLATE, each with Flink 2.3's edge cases, over whole
//! string arrays. Positions and lengths count characters (code points).
//!
//! Functions that can grow a string (LPAD, RPAD, REPEAT) refuse a result
//! past [`MAX_RESULT_BYTES`] with an error rather than exhausting memory
//! (where Flink fails the job with an OutOfMemoryError).

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Int32Array, StringArray, StringBuilder,
};
use arrow::datatypes::Int32Type;
use std::sync::Arc;
use tidemark_common::{Error, Result};

/// The largest string LPAD, RPAD or REPEAT makes for one row.
pub(crate) const MAX_RESULT_BYTES: usize = 1 << 28;

fn strings(v: &ArrayRef) -> &StringArray {
    v.as_string::<i32>()
}

fn ints(v: &ArrayRef) -> &arrow::array::PrimitiveArray<Int32Type> {
    v.as_primitive::<Int32Type>()
}

/// Collects one string per row; an error instead of arrow's panic when the
/// batch's text passes what its 32-bit offsets can address.
struct Out {
    builder: StringBuilder,
    bytes: usize,
}

impl Out {
    fn new(rows: usize) -> Self {
        Out {
            builder: StringBuilder::with_capacity(rows, rows * 8),
            bytes: 0,
        }
    }

    fn push(&mut self, name: &str, v: Option<&str>) -> Result<()> {
        match v {
            None => self.builder.append_null(),
            Some(v) => {
                self.bytes += v.len();
                if self.bytes > i32::MAX as usize {
                    return Err(Error::Execution(format!(
                        "{name}: the results of one batch pass 2 GiB"
                    )));
                }
                self.builder.append_value(v);
            }
        }
        Ok(())
    }

    fn finish(mut self) -> ArrayRef {
        Arc::new(self.builder.finish())
    }
}

fn too_long(name: &str, bytes: usize) -> Error {
    Error::Execution(format!(
        "{name}: a result of {bytes} bytes is longer than the limit of {MAX_RESULT_BYTES} bytes"
    ))
}

/// LOCATE(needle, s [, start]) and POSITION(needle IN s): the 1-based
/// character position of the first `needle` at or after `start`, 0 when
/// there is none. As in Flink, an empty needle is at 1 whatever the start,
/// and a start below 1 searches from the beginning.
pub(crate) fn locate(values: &[ArrayRef]) -> ArrayRef {
    let (needle, s) = (strings(&values[0]), strings(&values[1]));
    let start = values.get(2).map(ints);
    let out: Int32Array = (0..s.len())
        .map(|i| {
            if needle.is_null(i) || s.is_null(i) || start.is_some_and(|st| st.is_null(i)) {
                return None;
            }
            let from = start.map_or(1, |st| st.value(i)).max(1);
            Some(locate_one(needle.value(i), s.value(i), from))
        })
        .collect();
    Arc::new(out)
}

fn locate_one(needle: &str, s: &str, from: i32) -> i32 {
    if needle.is_empty() {
        return 1;
    }
    let skip = (from - 1) as usize;
    let Some((offset, _)) = s.char_indices().nth(skip) else {
        return 0;
    };
    match s[offset..].find(needle) {
        Some(at) => (skip + s[offset..offset + at].chars().count() + 1) as i32,
        None => 0,
    }
}

/// INITCAP: Flink's words are runs of ASCII letters and digits; the first
/// character of each is upper-cased and the rest lower-cased. Any other
/// character (é, ß, _, ') separates words and is left as it is.
pub(crate) fn initcap(v: &ArrayRef) -> ArrayRef {
    let out: StringArray = strings(v)
        .iter()
        .map(|s| {
            let s = s?;
            let mut out = String::with_capacity(s.len());
            let mut in_word = false;
            for c in s.chars() {
                if c.is_ascii_alphanumeric() {
                    out.push(if in_word {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    });
                    in_word = true;
                } else {
                    out.push(c);
                    in_word = false;
                }
            }
            Some(out)
        })
        .collect();
    Arc::new(out)
}

/// LPAD / RPAD(s, len, pad): `s` cut or padded with repeats of `pad` to
/// `len` characters; NULL for a negative `len` or an empty `pad`, as Flink.
pub(crate) fn pad(values: &[ArrayRef], left: bool) -> Result<ArrayRef> {
    let name = if left { "LPAD" } else { "RPAD" };
    let (s, len, pad) = (strings(&values[0]), ints(&values[1]), strings(&values[2]));
    let mut out = Out::new(s.len());
    let mut buf = String::new();
    for i in 0..s.len() {
        if s.is_null(i) || len.is_null(i) || pad.is_null(i) {
            out.push(name, None)?;
            continue;
        }
        let (text, pad) = (s.value(i), pad.value(i));
        let Ok(len) = usize::try_from(len.value(i)) else {
            out.push(name, None)?;
            continue;
        };
        if pad.is_empty() {
            out.push(name, None)?;
            continue;
        }
        let chars = text.chars().count();
        if len <= chars {
            let end = text
                .char_indices()
                .nth(len)
                .map_or(text.len(), |(at, _)| at);
            out.push(name, Some(&text[..end]))?;
            continue;
        }
        let missing = len - chars;
        let widest = pad.chars().map(char::len_utf8).max().unwrap_or(1);
        let bytes = text.len().saturating_add(missing.saturating_mul(widest));
        if bytes > MAX_RESULT_BYTES {
            return Err(too_long(name, bytes));
        }
        buf.clear();
        if !left {
            buf.push_str(text);
        }
        buf.extend(pad.chars().cycle().take(missing));
        if left {
            buf.push_str(text);
        }
        out.push(name, Some(&buf))?;
    }
    Ok(out.finish())
}

/// REPEAT(s, n): `s` `n` times; '' for n <= 0.
pub(crate) fn repeat(values: &[ArrayRef]) -> Result<ArrayRef> {
    let (s, n) = (strings(&values[0]), ints(&values[1]));
    let mut out = Out::new(s.len());
    for i in 0..s.len() {
        if s.is_null(i) || n.is_null(i) {
            out.push("REPEAT", None)?;
            continue;
        }
        let times = usize::try_from(n.value(i)).unwrap_or(0);
        let bytes = s.value(i).len().saturating_mul(times);
        if bytes > MAX_RESULT_BYTES {
            return Err(too_long("REPEAT", bytes));
        }
        out.push("REPEAT", Some(&s.value(i).repeat(times)))?;
    }
    Ok(out.finish())
}

/// REVERSE: the characters in reverse order.
pub(crate) fn reverse(v: &ArrayRef) -> ArrayRef {
    let out: StringArray = strings(v)
        .iter()
        .map(|s| Some(s?.chars().rev().collect::<String>()))
        .collect();
    Arc::new(out)
}

/// A regex compiled once per distinct pattern in a batch (usually the one
/// literal); `None` for a pattern that does not compile (only a pattern
/// read from a column can: the binder checked a literal one).
struct RegexCache(Option<(String, Option<regex::Regex>)>);

impl RegexCache {
    fn get(&mut self, pattern: &str) -> Option<&regex::Regex> {
        if self.0.as_ref().is_none_or(|(p, _)| p != pattern) {
            self.0 = Some((pattern.to_string(), regex::Regex::new(pattern).ok()));
        }
        self.0.as_ref().and_then(|(_, re)| re.as_ref())
    }
}

/// REGEXP(s, regex): whether the regex matches somewhere in `s`. As in
/// Flink, an empty regex, or one that does not compile, is FALSE.
pub(crate) fn regexp(values: &[ArrayRef]) -> ArrayRef {
    let (s, pattern) = (strings(&values[0]), strings(&values[1]));
    let mut cache = RegexCache(None);
    let out: BooleanArray = (0..s.len())
        .map(|i| {
            if s.is_null(i) || pattern.is_null(i) {
                return None;
            }
            let p = pattern.value(i);
            Some(!p.is_empty() && cache.get(p).is_some_and(|re| re.is_match(s.value(i))))
        })
        .collect();
    Arc::new(out)
}

/// REGEXP_REPLACE(s, regex, replacement): every match replaced by the
/// replacement taken literally (Flink does not expand `$1`); NULL when the
/// regex does not compile, as Flink gives.
pub(crate) fn regexp_replace(values: &[ArrayRef]) -> Result<ArrayRef> {
    let (s, pattern, with) = (
        strings(&values[0]),
        strings(&values[1]),
        strings(&values[2]),
    );
    let mut cache = RegexCache(None);
    let mut out = Out::new(s.len());
    for i in 0..s.len() {
        if s.is_null(i) || pattern.is_null(i) || with.is_null(i) {
            out.push("REGEXP_REPLACE", None)?;
            continue;
        }
        let replaced = cache
            .get(pattern.value(i))
            .map(|re| re.replace_all(s.value(i), regex::NoExpand(with.value(i))));
        out.push("REGEXP_REPLACE", replaced.as_deref())?;
    }
    Ok(out.finish())
}

/// LEFT / RIGHT(s, n): the first or last `n` characters; '' for n <= 0.
pub(crate) fn left_right(values: &[ArrayRef], left: bool) -> ArrayRef {
    let (s, n) = (strings(&values[0]), ints(&values[1]));
    let out: StringArray = (0..s.len())
        .map(|i| {
            if s.is_null(i) || n.is_null(i) {
                return None;
            }
            let (text, n) = (s.value(i), usize::try_from(n.value(i)).unwrap_or(0));
            let chars = text.chars().count();
            let keep = n.min(chars);
            let cut = if left { keep } else { chars - keep };
            let at = text
                .char_indices()
                .nth(cut)
                .map_or(text.len(), |(at, _)| at);
            Some(if left { &text[..at] } else { &text[at..] })
        })
        .collect();
    Arc::new(out)
}

/// ASCII(s): the first byte of `s` in UTF-8 as a signed byte (so 'é' is
/// -61), 0 for ''; Flink's values.
pub(crate) fn ascii(v: &ArrayRef) -> ArrayRef {
    let out: Int32Array = strings(v)
        .iter()
        .map(|s| Some(s?.as_bytes().first().map_or(0, |&b| i32::from(b as i8))))
        .collect();
    Arc::new(out)
}

/// CHR(n): the Latin-1 character `n` modulo 256 (CHR(321) is 'A'); '' for
/// a negative `n`, as Flink.
pub(crate) fn chr(v: &ArrayRef) -> ArrayRef {
    let out: StringArray = ints(v)
        .iter()
        .map(|n| {
            let n = n?;
            Some(if n < 0 {
                String::new()
            } else {
                char::from((n % 256) as u8).to_string()
            })
        })
        .collect();
    Arc::new(out)
}

/// OVERLAY(s PLACING r FROM start [FOR len]): `s` with `len` characters
/// from `start` (1-based) replaced by `r`; `len` defaults to the length of
/// `r`. As Flink: a start outside 1..=length leaves `s` as it is, and a
/// length of 0 or less replaces everything from `start`.
pub(crate) fn overlay(values: &[ArrayRef]) -> ArrayRef {
    let (s, r, start) = (strings(&values[0]), strings(&values[1]), ints(&values[2]));
    let len = values.get(3).map(ints);
    let out: StringArray = (0..s.len())
        .map(|i| {
            if s.is_null(i) || r.is_null(i) || start.is_null(i) || len.is_some_and(|l| l.is_null(i))
            {
                return None;
            }
            let (text, placing) = (s.value(i), r.value(i));
            let length = len.map_or(placing.chars().count() as i64, |l| i64::from(l.value(i)));
            Some(overlay_one(
                text,
                placing,
                i64::from(start.value(i)),
                length,
            ))
        })
        .collect();
    Arc::new(out)
}

fn overlay_one(s: &str, r: &str, start: i64, len: i64) -> String {
    let chars = s.chars().count() as i64;
    if start < 1 || start > chars {
        return s.to_string();
    }
    let head: String = s.chars().take((start - 1) as usize).collect();
    let tail: String = if len <= 0 {
        String::new()
    } else {
        s.chars()
            .skip((start - 1).saturating_add(len) as usize)
            .collect()
    };
    head + r + &tail
}

/// TRANSLATE(s, from, to): each character of `s` found in `from` becomes
/// the character at the same place in `to` (the first place, if `from`
/// repeats it), or is dropped when `to` is shorter. A NULL `from` or `to`
/// counts as '', as in Flink; only a NULL `s` gives NULL.
pub(crate) fn translate(values: &[ArrayRef]) -> ArrayRef {
    let (s, from, to) = (
        strings(&values[0]),
        strings(&values[1]),
        strings(&values[2]),
    );
    let out: StringArray = (0..s.len())
        .map(|i| {
            if s.is_null(i) {
                return None;
            }
            let from: Vec<char> = if from.is_null(i) {
                vec![]
            } else {
                from.value(i).chars().collect()
            };
            let to: Vec<char> = if to.is_null(i) {
                vec![]
            } else {
                to.value(i).chars().collect()
            };
            Some(
                s.value(i)
                    .chars()
                    .filter_map(|c| match from.iter().position(|&f| f == c) {
                        Some(at) => to.get(at).copied(),
                        None => Some(c),
                    })
                    .collect::<String>(),
            )
        })
        .collect();
    Arc::new(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_follows_flink_at_the_edges() {
        let cases = [
            ("l", "hello", 1, 3),
            ("l", "hello", 4, 4),
            ("l", "hello", 9, 0),
            ("", "hello", 9, 1),
            ("ö", "héllo wörld", 3, 8),
            ("x", "", 1, 0),
        ];
        for (needle, s, from, want) in cases {
            assert_eq!(
                locate_one(needle, s, from),
                want,
                "{needle} in {s} from {from}"
            );
        }
    }

    #[test]
    fn overlay_follows_flink_at_the_edges() {
        let cases = [
            ("hello", "l", 4, 1, "hello"),
            ("abc", "x", 4, 1, "abc"),
            ("abc", "x", 0, 1, "abc"),
            ("abc", "x", 2, 0, "ax"),
            ("abc", "x", 3, 5, "abx"),
            ("héllo wörld", "ö", 3, 7, "héöld"),
        ];
        for (s, r, start, len, want) in cases {
            assert_eq!(overlay_one(s, r, start, len), want, "{s} {r} {start} {len}");
        }
    }

    #[test]
    fn padding_past_the_limit_is_an_error_not_a_panic() {
        let s: ArrayRef = Arc::new(StringArray::from(vec!["a"]));
        let n: ArrayRef = Arc::new(Int32Array::from(vec![i32::MAX]));
        let p: ArrayRef = Arc::new(StringArray::from(vec!["xy"]));
        assert!(pad(&[s.clone(), n.clone(), p], true).is_err());
        assert!(repeat(&[s, n]).is_err());
    }
}
