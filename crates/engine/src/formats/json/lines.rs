//! A batch's lines, kept in one buffer: a line read costs a copy into it,
//! not an allocation of its own, and the buffer is checked for UTF-8 at
//! once rather than line by line.

use std::ops::Range;

/// The lines of one batch, each with its number.
#[derive(Default)]
pub(super) struct Lines {
    /// Every line's text, one after another (a line that is not UTF-8 as
    /// its readable rendering).
    text: String,
    lines: Vec<LineAt>,
}

struct LineAt {
    number: u64,
    span: Range<usize>,
    utf8: bool,
}

impl Lines {
    pub fn with_capacity(lines: usize, bytes: usize) -> Lines {
        Lines {
            text: String::with_capacity(bytes),
            lines: Vec::with_capacity(lines),
        }
    }

    /// The lines in `bytes`, each with its number and its span there:
    /// their text, when every line is UTF-8, checked once for the whole
    /// buffer; else line by line.
    pub fn from_bytes(bytes: Vec<u8>, spans: Vec<(u64, Range<usize>)>) -> Lines {
        let whole = String::from_utf8(bytes).map_err(|e| e.into_bytes());
        // Lines valid together may not be valid apart: a character's first
        // byte ending one line and the rest starting the next.
        let text = match whole {
            Ok(text)
                if spans
                    .iter()
                    .all(|(_, span)| text.is_char_boundary(span.start)) =>
            {
                text
            }
            Ok(text) => return Lines::one_by_one(text.as_bytes(), spans),
            Err(bytes) => return Lines::one_by_one(&bytes, spans),
        };
        Lines {
            text,
            lines: spans
                .into_iter()
                .map(|(number, span)| LineAt {
                    number,
                    span,
                    utf8: true,
                })
                .collect(),
        }
    }

    fn one_by_one(bytes: &[u8], spans: Vec<(u64, Range<usize>)>) -> Lines {
        let mut lines = Lines::with_capacity(spans.len(), bytes.len());
        for (number, span) in spans {
            lines.push(number, &bytes[span]);
        }
        lines
    }

    /// Adds line `number` with its bytes (no line end).
    pub fn push(&mut self, number: u64, bytes: &[u8]) {
        let from = self.text.len();
        let utf8 = match std::str::from_utf8(bytes) {
            Ok(text) => {
                self.text.push_str(text);
                true
            }
            Err(_) => {
                self.text.push_str(&String::from_utf8_lossy(bytes));
                false
            }
        };
        self.lines.push(LineAt {
            number,
            span: from..self.text.len(),
            utf8,
        });
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn number(&self, i: usize) -> u64 {
        self.lines[i].number
    }

    /// Line `i`'s text; `Err` with a readable rendering of it when it is
    /// not UTF-8.
    pub fn text(&self, i: usize) -> Result<&str, &str> {
        let line = &self.lines[i];
        let text = &self.text[line.span.clone()];
        if line.utf8 {
            Ok(text)
        } else {
            Err(text)
        }
    }

    /// Every line's text, one after another (with the line ends between
    /// them when they were read together).
    pub fn whole(&self) -> &str {
        &self.text
    }

    /// Where line `i` lies in [`Lines::whole`]; None when it is not UTF-8.
    pub fn span(&self, i: usize) -> Option<Range<usize>> {
        let line = &self.lines[i];
        line.utf8.then(|| line.span.clone())
    }

    /// Bytes of text held, to size the next batch's buffer.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    #[cfg(test)]
    pub fn of(texts: &[&str]) -> Lines {
        let mut lines = Lines::default();
        for (i, text) in texts.iter().enumerate() {
            lines.push(i as u64 + 1, text.as_bytes());
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_of_lines_is_utf8_only_where_each_line_is() {
        let spans = |ends: &[usize]| {
            let mut from = 0;
            ends.iter()
                .enumerate()
                .map(|(i, &to)| {
                    let span = (i as u64 + 1, from..to);
                    from = to;
                    span
                })
                .collect::<Vec<_>>()
        };
        let lines = Lines::from_bytes(b"abc\xc3\xa9d".to_vec(), spans(&[3, 6]));
        assert_eq!((lines.text(0), lines.text(1)), (Ok("abc"), Ok("\u{e9}d")));
        // Each half of a character on a line of its own.
        let lines = Lines::from_bytes(b"a\xc3\xa9b".to_vec(), spans(&[2, 4]));
        assert_eq!(
            (lines.text(0), lines.text(1)),
            (Err("a\u{fffd}"), Err("\u{fffd}b"))
        );
        let lines = Lines::from_bytes(b"ok\xff".to_vec(), spans(&[2, 3]));
        assert_eq!((lines.text(0), lines.text(1)), (Ok("ok"), Err("\u{fffd}")));
        assert_eq!((lines.number(0), lines.number(1)), (1, 2));
    }

    #[test]
    fn lines_keep_their_numbers_and_text() {
        let mut lines = Lines::default();
        lines.push(1, b"{\"a\": 1}");
        lines.push(3, b"");
        lines.push(4, b"caf\xc3\xa9 \xff");
        assert_eq!(lines.len(), 3);
        assert_eq!((lines.number(0), lines.text(0)), (1, Ok("{\"a\": 1}")));
        assert_eq!((lines.number(1), lines.text(1)), (3, Ok("")));
        assert_eq!((lines.number(2), lines.text(2)), (4, Err("café \u{fffd}")));
    }
}
