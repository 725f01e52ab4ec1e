//! Splitting the bytes of a CSV input into records and fields, as Flink's
//! reader does: quotes and escapes, empty lines, comments and leading
//! spaces at the start of a line, line numbers, and the buffer that keeps
//! a record's raw text across reads (and the checksum of the bytes it lets
//! go, for positions).

use super::CsvOptions;
use std::io::Read;

/// The input bytes and the parser state between records.
pub(super) struct Input {
    pub(super) file: Box<dyn Read + Send>,
    /// Follow a growing file: at its end, wait this long and read again
    /// (`source.monitor-interval`) instead of ending.
    pub(super) follow: Option<std::time::Duration>,
    /// In follow mode, the end of the data so far was reached between
    /// records: the batch goes out as it is.
    pub(super) idle: bool,
    /// The last record ended with `\r`; its text is then in `cr_record`.
    pub(super) ended_by_cr: bool,
    pub(super) cr_record: Vec<u8>,
    pub(super) buf: Vec<u8>,
    /// The offset in the file of `buf[0]`.
    pub(super) base: u64,
    /// For checkpoints: the CRC-32 of the bytes read, up to `hashed`
    /// (bytes are hashed before the buffer lets them go).
    pub(super) prefix: Option<crc32fast::Hasher>,
    pub(super) hashed: u64,
    /// First byte not yet consumed.
    pub(super) pos: usize,
    /// First byte of the record being read; bytes from here on are kept
    /// across refills so that the record's raw text stays at hand.
    pub(super) rec_start: usize,
    pub(super) end: usize,
    pub(super) eof: bool,
    /// Line of the byte at `pos`, 1-based.
    pub(super) line: u64,
    pub(super) core: csv_core::Reader,
    /// Field bytes of the current record, and where each field ends.
    pub(super) fields: Vec<u8>,
    pub(super) ends: Vec<usize>,
    pub(super) nfields: usize,
    /// Keep each record's raw text in `raw` (for a bad-records sink).
    pub(super) keep_raw: bool,
    pub(super) raw: Vec<u8>,
}

pub(super) enum Next {
    Record {
        line: u64,
    },
    /// A record whose quote is never closed; it runs to the end of file.
    Unterminated {
        line: u64,
        field: usize,
    },
    End,
}

pub(super) const READ_CHUNK: usize = 256 * 1024;

impl Input {
    /// Reads more of the file; false at end of file.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.rec_start > 0 {
            if let Some(prefix) = self.prefix.as_mut() {
                let from = (self.hashed - self.base) as usize;
                prefix.update(&self.buf[from..self.rec_start]);
                self.hashed = self.base + self.rec_start as u64;
            }
            self.base += self.rec_start as u64;
            self.buf.copy_within(self.rec_start..self.end, 0);
            self.pos -= self.rec_start;
            self.end -= self.rec_start;
            self.rec_start = 0;
        }
        if self.end == self.buf.len() {
            let grown = self.buf.len().max(READ_CHUNK) * 2;
            self.buf.resize(grown, 0);
        }
        loop {
            let between_records = self.rec_start == self.end && self.pos == self.end;
            match self.file.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    let Some(interval) = self.follow else {
                        self.eof = true;
                        return Ok(false);
                    };
                    if between_records {
                        // The end of the data so far.
                        self.idle = true;
                        return Ok(false);
                    }
                    // A record being written: wait for the rest of it.
                    std::thread::sleep(interval.min(std::time::Duration::from_millis(100)));
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                // A pipe with nothing for now (the read has already waited
                // a little): rows so far go out; inside a record, wait on.
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if between_records {
                        self.idle = true;
                        return Ok(false);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The next byte, reading more if needed; None at end of file.
    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        if self.pos == self.end && !self.fill()? {
            return Ok(None);
        }
        Ok(Some(self.buf[self.pos]))
    }

    /// Consumes a line end that starts with `\r`: `\r\n` or a lone `\r`.
    fn finish_cr_line(&mut self) -> std::io::Result<()> {
        self.line += 1;
        self.rec_start = self.pos;
        if self.peek()? == Some(b'\n') {
            self.pos += 1;
        }
        Ok(())
    }

    /// Skips to the end of the current line, line end included.
    fn skip_line(&mut self) -> std::io::Result<()> {
        loop {
            self.rec_start = self.pos;
            let Some(b) = self.peek()? else { return Ok(()) };
            self.pos += 1;
            match b {
                b'\n' => {
                    self.line += 1;
                    return Ok(());
                }
                b'\r' => return self.finish_cr_line(),
                _ => {}
            }
        }
    }

    fn set_empty_record(&mut self) {
        self.nfields = 1;
        self.ends[0] = 0;
        // Its text is empty, not the previous record's.
        self.raw.clear();
    }

    /// Reads the next record into `fields`/`ends`, handling what Flink does
    /// at the start of a line: empty lines, comments, leading spaces.
    pub(super) fn next_record(&mut self, options: &CsvOptions) -> std::io::Result<Next> {
        self.ended_by_cr = false;
        loop {
            self.rec_start = self.pos;
            let Some(b) = self.peek()? else {
                return Ok(Next::End);
            };
            if b == b'\n' || b == b'\r' {
                let line = self.line;
                self.pos += 1;
                if b == b'\n' {
                    self.line += 1;
                } else {
                    self.finish_cr_line()?;
                }
                if options.allow_comments || options.skip_empty_lines {
                    continue;
                }
                self.set_empty_record();
                return Ok(Next::Record { line });
            }
            if options.allow_comments {
                if b == b' ' {
                    self.pos += 1;
                    continue;
                }
                if b == b'#' {
                    self.skip_line()?;
                    continue;
                }
            }
            break;
        }
        let line = self.line;
        self.core.reset();
        let (mut out_len, mut ends_len) = (0, 0);
        loop {
            let input_was_empty = self.pos == self.end;
            let (result, n_in, n_out, n_ends) = self.core.read_record(
                &self.buf[self.pos..self.end],
                &mut self.fields[out_len..],
                &mut self.ends[ends_len..],
            );
            self.pos += n_in;
            out_len += n_out;
            ends_len += n_ends;
            match result {
                // Empty input means end of file to the parser, which then
                // always finishes; the check only guards against a hang.
                csv_core::ReadRecordResult::InputEmpty if input_was_empty && self.eof => break,
                csv_core::ReadRecordResult::InputEmpty => {
                    self.fill()?;
                }
                csv_core::ReadRecordResult::OutputFull => {
                    let grown = self.fields.len() * 2;
                    self.fields.resize(grown, 0);
                }
                csv_core::ReadRecordResult::OutputEndsFull => {
                    let grown = self.ends.len() * 2;
                    self.ends.resize(grown, 0);
                }
                csv_core::ReadRecordResult::Record | csv_core::ReadRecordResult::End => break,
            }
        }
        self.nfields = ends_len;
        // The parser counts the `\n`s it consumed, quoted ones included.
        self.line += self.core.line() - 1;
        if ends_len == 0 {
            // Only reachable if the parser saw nothing, which the line-start
            // checks above rule out; treat it as the end.
            return Ok(Next::End);
        }
        if self.keep_raw {
            let raw = &self.buf[self.rec_start..self.pos];
            let text = raw.strip_suffix(b"\n").unwrap_or(raw);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            self.raw.clear();
            self.raw.extend_from_slice(text);
        }
        if self.eof && self.pos == self.end {
            let raw = &self.buf[self.rec_start..self.pos];
            if let Some(field) = unterminated_quote(raw, options) {
                return Ok(Next::Unterminated { line, field });
            }
        }
        self.ended_by_cr = self.pos > self.rec_start && self.buf[self.pos - 1] == b'\r';
        if self.ended_by_cr {
            // Finishing the line moves the buffer past the record: keep
            // its text for an error to show.
            self.cr_record.clear();
            self.cr_record
                .extend_from_slice(&self.buf[self.rec_start..self.pos]);
            self.finish_cr_line()?;
        }
        Ok(Next::Record { line })
    }

    pub(super) fn field(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.fields[start..self.ends[i]]
    }
}

/// The index of the field whose quote is still open at the end of `raw`,
/// by the same rules as the parser: a quote opens a field only as its first
/// byte, and a doubled quote or an escaped byte inside stays in it.
fn unterminated_quote(raw: &[u8], options: &CsvOptions) -> Option<usize> {
    let quote = options.quote_character?;
    let (mut field, mut at_start, mut in_quotes) = (0, true, false);
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if in_quotes {
            if Some(b) == options.escape_character {
                i += 1;
            } else if b == quote {
                if raw.get(i + 1) == Some(&quote) {
                    i += 1;
                } else {
                    in_quotes = false;
                }
            }
        } else if b == options.field_delimiter {
            field += 1;
            at_start = true;
            i += 1;
            continue;
        } else if at_start && b == quote {
            in_quotes = true;
        }
        at_start = false;
        i += 1;
    }
    in_quotes.then_some(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::csv::testing::{opts, read_all, rows, Pairs, Rows};
    use tidemark_common::{Result, SqlType};
    use SqlType::Int;

    #[test]
    fn empty_lines_are_rows_of_one_empty_field() -> Result<()> {
        let data = b"a\n\nb\n\n\nc\n\n";
        let (got, _) = read_all(data, &[("s", SqlType::String)], CsvOptions::default(), 2)?;
        assert_eq!(
            got,
            rows(&[
                (1, "a"),
                (2, ""),
                (3, "b"),
                (4, ""),
                (5, ""),
                (6, "c"),
                (7, "")
            ])
        );
        let skip = CsvOptions {
            skip_empty_lines: true,
            ..CsvOptions::default()
        };
        let (got, _) = read_all(data, &[("s", SqlType::String)], skip, 2)?;
        assert_eq!(got, rows(&[(1, "a"), (3, "b"), (6, "c")]));
        let (got, _) = read_all(
            b"a\r\n\r\nb\r\n",
            &[("s", SqlType::String)],
            CsvOptions::default(),
            2,
        )?;
        assert_eq!(got, rows(&[(1, "a"), (2, ""), (3, "b")]));
        Ok(())
    }

    #[test]
    fn comments() -> Result<()> {
        let data = b"# c1\na,1\n\n  # c2\n\t# c3\n  b,2\n   \n#c4,\"x\n  \"c\",3\n d,4";
        let options = opts(&[
            ("csv.allow-comments", "true"),
            ("csv.ignore-parse-errors", "true"),
        ])?;
        let (got, stats) = read_all(data, &[("id", SqlType::String), ("a", Int)], options, 8)?;
        assert_eq!(
            got,
            rows(&[
                (2, "a, 1"),
                (5, "\t# c3, <NULL>"),
                (6, "b, 2"),
                (9, "c, 3"),
                (10, "d, 4")
            ])
        );
        assert_eq!(stats.rows_padded, 1);
        // Without comments allowed, '#' and leading spaces are data.
        let (got, _) = read_all(
            b"#c,1\n  b,2\n",
            &[("id", SqlType::String), ("a", Int)],
            CsvOptions::default(),
            8,
        )?;
        assert_eq!(got, rows(&[(1, "#c, 1"), (2, "  b, 2")]));
        Ok(())
    }

    #[test]
    fn quoting_delimiters_and_line_numbers() -> Result<()> {
        let columns = [("id", SqlType::String), ("a", Int), ("s", SqlType::String)];
        let cases: &[(Pairs, &[u8], Rows)] = &[
            (
                &[("csv.field-delimiter", "\\t")],
                b"a\t1\t\"x\ny\"\n\"c\"\"d\"\t4\t\" sp \"\n",
                &[(1, "a, 1, x\ny"), (3, "c\"d, 4,  sp ")],
            ),
            (
                &[("csv.field-delimiter", ";"), ("csv.quote-character", "'")],
                b"a;1;'x;y'\nb;2;'it''s'\n",
                &[(1, "a, 1, x;y"), (2, "b, 2, it's")],
            ),
            (
                &[("csv.disable-quote-character", "true")],
                b"\"a,1,\"x\"\n",
                &[(1, "\"a, 1, \"x\"")],
            ),
            (
                &[("csv.escape-character", "\\")],
                b"a,1,\"x\\\"y\"\n",
                &[(1, "a, 1, x\"y")],
            ),
            (
                &[],
                b"a,1,\"multi\r\nline\"\r\nb,2,\"\"\r\nc,3,x",
                &[(1, "a, 1, multi\r\nline"), (3, "b, 2, "), (4, "c, 3, x")],
            ),
            (&[], b"a,1,x\rb,2,y\r", &[(1, "a, 1, x"), (2, "b, 2, y")]),
            (&[], b"", &[]),
        ];
        for (pairs, data, want) in cases {
            let (got, _) = read_all(data, &columns, opts(pairs)?, 8)?;
            assert_eq!(got, rows(want), "{pairs:?}");
        }
        Ok(())
    }

    #[test]
    fn records_larger_than_the_read_buffer() -> Result<()> {
        let long = "x".repeat(READ_CHUNK * 2 + 17);
        let mut data = Vec::new();
        for i in 0..5 {
            data.extend_from_slice(format!("{i},\"{long}\n{long}\"\n\n").as_bytes());
        }
        let (got, stats) = read_all(
            &data,
            &[("a", Int), ("s", SqlType::String)],
            opts(&[("csv.ignore-parse-errors", "true")])?,
            2,
        )?;
        let lines: Vec<u64> = got.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, vec![1, 3, 4, 6, 7, 9, 10, 12, 13, 15]);
        assert!(got[0].1.len() == 2 * long.len() + 4);
        assert_eq!(stats.rows_padded, 5);
        Ok(())
    }
}
