//! Splitting the bytes of a CSV input into records and fields, as Flink's
//! reader does: quotes and escapes, empty lines, comments and leading
//! spaces at the start of a line, line numbers, and the buffer that keeps
//! a record's raw text across reads (and the checksum of the bytes it lets
//! go, for positions).

use super::CsvOptions;
use crate::formats::marks::{ascii, mark, BLOCK};
use std::io::Read;
use std::sync::Arc;
use wide::u8x16;

/// The bytes [`Input`] reads: its own buffer, refilled from the file, or
/// a whole input already in memory (a piece of a file read on several
/// threads), read where it is rather than copied into a buffer.
pub(super) enum Buffer {
    Owned(Vec<u8>),
    Whole(Arc<Vec<u8>>),
}

impl Buffer {
    /// The buffer to refill. A whole input is never refilled (it starts
    /// at its end of file); were it, it would be copied first.
    fn owned(&mut self) -> &mut Vec<u8> {
        match self {
            Buffer::Owned(bytes) => bytes,
            Buffer::Whole(bytes) => Arc::make_mut(bytes),
        }
    }
}

impl std::ops::Deref for Buffer {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Buffer::Owned(bytes) => bytes,
            Buffer::Whole(bytes) => bytes,
        }
    }
}

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
    pub(super) buf: Buffer,
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
    /// Field bytes of a record the parser split, and where each field of
    /// the current record ends.
    pub(super) fields: Vec<u8>,
    pub(super) ends: Vec<usize>,
    pub(super) nfields: usize,
    /// Where each field starts: in `fields`, where the one before ends,
    /// from the parser; in a plain line, past its delimiter (and quote),
    /// counted from `plain_at`.
    pub(super) starts: Vec<usize>,
    /// The last record was split without the parser: its fields are read
    /// where they are, in `buf` from `plain_at` (which stays put until the
    /// next record is read), not copied into `fields`.
    pub(super) plain: bool,
    pub(super) plain_at: usize,
    /// The last record is ASCII through and through (known for a plain
    /// line only): no field of it needs a UTF-8 check.
    pub(super) ascii: bool,
    /// What each byte is to [`Input::plain_record`].
    pub(super) classes: ByteClasses,
    /// Where the bytes that end a field or need a closer look are in the
    /// block of the buffer last looked at.
    pub(super) marks: BlockMarks,
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

/// `csv_core`'s parser for `options`: Flink's quoting (a doubled quote
/// inside quotes), escape and delimiter.
fn parser(options: &CsvOptions) -> csv_core::Reader {
    let mut core = csv_core::ReaderBuilder::new();
    core.delimiter(options.field_delimiter)
        .quote(options.quote_character.unwrap_or(b'"'))
        .quoting(options.quote_character.is_some())
        .escape(options.escape_character)
        .double_quote(true);
    core.build()
}

impl Input {
    /// Reading `file`, whose records have about `width` fields, through a
    /// buffer of `buffer` bytes to start with.
    pub(super) fn new(
        file: Box<dyn Read + Send>,
        options: &CsvOptions,
        width: usize,
        buffer: usize,
    ) -> Self {
        Input {
            file,
            follow: None,
            idle: false,
            ended_by_cr: false,
            cr_record: Vec::new(),
            buf: Buffer::Owned(vec![0; buffer]),
            base: 0,
            prefix: None,
            hashed: 0,
            pos: 0,
            rec_start: 0,
            end: 0,
            eof: false,
            line: 1,
            core: parser(options),
            fields: vec![0; 4096],
            ends: vec![0; width.max(1) + 1],
            nfields: 0,
            starts: vec![0; width.max(1) + 1],
            plain: false,
            plain_at: 0,
            ascii: false,
            classes: ByteClasses::new(options),
            marks: BlockMarks::NONE,
            keep_raw: false,
            raw: Vec::new(),
        }
    }

    /// Reading `bytes[start..]`, a whole input already in memory, where it
    /// is.
    pub(super) fn whole(
        bytes: Arc<Vec<u8>>,
        start: usize,
        options: &CsvOptions,
        width: usize,
    ) -> Self {
        let mut input = Input::new(Box::new(std::io::empty()), options, width, 0);
        input.end = bytes.len();
        input.pos = start.min(input.end);
        input.rec_start = input.pos;
        input.buf = Buffer::Whole(bytes);
        input.eof = true;
        input
    }

    /// Reads more of the file; false at end of file.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        // The bytes move or change (a resumed input reads from here too:
        // it starts with nothing in its buffer).
        self.marks = BlockMarks::NONE;
        if self.rec_start > 0 {
            if let Some(prefix) = self.prefix.as_mut() {
                let from = (self.hashed - self.base) as usize;
                prefix.update(&self.buf[from..self.rec_start]);
                self.hashed = self.base + self.rec_start as u64;
            }
            self.base += self.rec_start as u64;
            self.buf.owned().copy_within(self.rec_start..self.end, 0);
            self.pos -= self.rec_start;
            self.end -= self.rec_start;
            self.rec_start = 0;
        }
        if self.end == self.buf.len() {
            let grown = self.buf.len().max(READ_CHUNK) * 2;
            self.buf.owned().resize(grown, 0);
        }
        loop {
            let between_records = self.rec_start == self.end && self.pos == self.end;
            match self.file.read(&mut self.buf.owned()[self.end..]) {
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
        self.plain = false;
        self.ascii = false;
        self.starts[0] = 0;
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
        if self.plain_record() {
            return Ok(Next::Record { line });
        }
        self.plain = false;
        self.ascii = false;
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
        if self.starts.len() < ends_len {
            self.starts.resize(self.ends.len(), 0);
        }
        for i in 0..ends_len {
            self.starts[i] = if i == 0 { 0 } else { self.ends[i - 1] };
        }
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

    #[inline(always)]
    pub(super) fn field(&self, i: usize) -> &[u8] {
        if self.plain {
            return &self.buf[self.plain_at + self.starts[i]..self.plain_at + self.ends[i]];
        }
        &self.fields[self.starts[i]..self.ends[i]]
    }

    /// Takes the record at `pos` when it is one whole line in the buffer
    /// whose fields are plain (no quote, escape or `\r`) or quoted
    /// whole with none of those, nor a line end, inside — nearly every
    /// record a program writes —, and splits it without the general
    /// parser, which gives the same fields for such a line; false leaves
    /// the record to the parser.
    ///
    /// Plain fields are read by the line's marked bytes (delimiters, line
    /// ends, quotes and the rest, [`BlockMarks`]), a step per field rather
    /// than per byte. From a field quoted whole on, the line is read byte
    /// by byte ([`Input::plain_fields`]): a quoted field is passed over to
    /// its closing quote, and marking the blocks it spans would cost more
    /// than looking at the few bytes between such fields.
    fn plain_record(&mut self) -> bool {
        let mut n = 0;
        let mut start = self.pos;
        let mut block = self.pos / BLOCK;
        let Some(marks) = self.block_marks(block) else {
            return self.plain_fields(0, 0);
        };
        let mut bits = marks.bits & (u64::MAX << (self.pos % BLOCK));
        // Whether every block the line spans is ASCII through and through
        // (if not, its own bytes may still be).
        let mut ascii = marks.ascii;
        loop {
            while bits == 0 {
                block += 1;
                let Some(marks) = self.block_marks(block) else {
                    return self.plain_fields(n, start - self.pos);
                };
                bits = marks.bits;
                ascii &= marks.ascii;
            }
            let at = block * BLOCK + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            match self.classes.of(self.buf[at]) {
                Class::Ordinary => {}
                Class::Delimiter => {
                    self.set_field(n, start - self.pos, at - self.pos);
                    n += 1;
                    start = at + 1;
                }
                Class::LineEnd => {
                    self.set_field(n, start - self.pos, at - self.pos);
                    let ascii = ascii || self.buf[self.pos..at].is_ascii();
                    self.take_plain(n + 1, at - self.pos, ascii);
                    return true;
                }
                Class::Quote if at == start => return self.plain_fields(n, start - self.pos),
                Class::Quote | Class::Parser => return false,
            }
        }
    }

    /// Field `n` of a plain line is bytes `start..end` of it.
    #[inline(always)]
    fn set_field(&mut self, n: usize, start: usize, end: usize) {
        if n + 1 >= self.ends.len() {
            grow_fields(&mut self.starts, &mut self.ends);
        }
        self.starts[n] = start;
        self.ends[n] = end;
    }

    /// [`Input::plain_record`] byte by byte, from field `n`, which starts
    /// at byte `at` of the line: from a field quoted whole on, or where
    /// the line reaches past the last whole block in the buffer.
    fn plain_fields(&mut self, mut n: usize, mut at: usize) -> bool {
        let classes = &self.classes;
        let line = &self.buf[self.pos..self.end];
        let end = loop {
            if n + 1 >= self.ends.len() {
                grow_fields(&mut self.starts, &mut self.ends);
            }
            if line.get(at).is_some_and(|b| classes.of(*b) == Class::Quote) {
                let content = &line[at + 1..];
                let Some(close) = memchr::memchr(line[at], content) else {
                    return false;
                };
                if classes.parser_needed_in_quotes(&content[..close]) {
                    return false;
                }
                self.starts[n] = at + 1;
                self.ends[n] = at + 1 + close;
                n += 1;
                let after = at + close + 2;
                match line.get(after).map(|b| classes.of(*b)) {
                    Some(Class::Delimiter) => at = after + 1,
                    Some(Class::LineEnd) => break after,
                    _ => return false,
                }
            } else {
                let start = at;
                let class = loop {
                    let Some(b) = line.get(at) else { return false };
                    match classes.of(*b) {
                        Class::Ordinary => at += 1,
                        other => break other,
                    }
                };
                self.starts[n] = start;
                self.ends[n] = at;
                n += 1;
                match class {
                    Class::Delimiter => at += 1,
                    Class::LineEnd => break at,
                    _ => return false,
                }
            }
        };
        let ascii = line[..end].is_ascii();
        self.take_plain(n, end, ascii);
        true
    }

    /// The marks of block `block` of the buffer, if the buffer holds all
    /// of it.
    #[inline(always)]
    fn block_marks(&mut self, block: usize) -> Option<BlockMarks> {
        if self.marks.block != block {
            let bytes = self.buf[..self.end].get(block * BLOCK..(block + 1) * BLOCK)?;
            self.marks = self.classes.marks(block, bytes.try_into().ok()?);
        }
        Some(self.marks)
    }

    /// The record at `pos`, split into its `n` fields, is a plain line
    /// ending at `pos + end` (its `\n`).
    fn take_plain(&mut self, n: usize, end: usize, ascii: bool) {
        self.plain_at = self.pos;
        self.nfields = n;
        self.plain = true;
        self.ascii = ascii;
        if self.keep_raw {
            self.raw.clear();
            self.raw
                .extend_from_slice(&self.buf[self.pos..self.pos + end]);
        }
        self.pos += end + 1;
        self.line += 1;
    }
}

/// Room for twice as many fields' starts and ends.
fn grow_fields(starts: &mut Vec<usize>, ends: &mut Vec<usize>) {
    let grown = ends.len() * 2;
    ends.resize(grown, 0);
    starts.resize(grown, 0);
}

/// Block `block` of the buffer (bytes `block * BLOCK ..`), by bit: its
/// bytes other than [`Class::Ordinary`] ones (and maybe some of those).
/// Splitting a line then costs a step per field rather than per byte.
#[derive(Clone, Copy)]
pub(super) struct BlockMarks {
    block: usize,
    bits: u64,
    /// No byte of the block is above 0x7f.
    ascii: bool,
}

impl BlockMarks {
    const NONE: BlockMarks = BlockMarks {
        block: usize::MAX,
        bits: 0,
        ascii: false,
    };
}

/// What a byte is to a plain line's split.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    Ordinary,
    Delimiter,
    LineEnd,
    /// The quote character (when quoting is on): it opens a quoted field
    /// at a field's start, and leaves anything else to the parser.
    Quote,
    /// `\r` or the escape character: the parser's to read.
    Parser,
}

/// [`Class`] by byte, for one set of CSV options.
pub(super) struct ByteClasses {
    classes: [Class; 256],
    /// The escape character, or `\r` without one.
    escape: u8,
    /// Every byte that is not [`Class::Ordinary`] (some twice).
    marked: [u8; 5],
}

impl ByteClasses {
    pub(super) fn new(options: &CsvOptions) -> Self {
        let mut classes = [Class::Ordinary; 256];
        classes[b'\r' as usize] = Class::Parser;
        if let Some(escape) = options.escape_character {
            classes[escape as usize] = Class::Parser;
        }
        if let Some(quote) = options.quote_character {
            classes[quote as usize] = Class::Quote;
        }
        classes[b'\n' as usize] = Class::LineEnd;
        classes[options.field_delimiter as usize] = Class::Delimiter;
        let escape = options.escape_character.unwrap_or(b'\r');
        ByteClasses {
            classes,
            escape,
            marked: [
                options.field_delimiter,
                b'\n',
                b'\r',
                escape,
                options.quote_character.unwrap_or(b'\n'),
            ],
        }
    }

    /// The marks of `bytes`, block `block` of the buffer.
    #[inline]
    fn marks(&self, block: usize, bytes: &[u8; BLOCK]) -> BlockMarks {
        let [a, b, c, d, e] = self.marked.map(u8x16::splat);
        BlockMarks {
            block,
            bits: mark(bytes, |v| {
                v.simd_eq(a) | v.simd_eq(b) | v.simd_eq(c) | v.simd_eq(d) | v.simd_eq(e)
            }),
            ascii: ascii(bytes),
        }
    }

    #[inline]
    fn of(&self, b: u8) -> Class {
        self.classes[b as usize]
    }

    /// Whether quoted `text` holds a byte the parser must read: a line
    /// end, `\r` or the escape character.
    fn parser_needed_in_quotes(&self, text: &[u8]) -> bool {
        memchr::memchr3(b'\n', b'\r', self.escape, text).is_some()
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

    /// The fields csv_core alone finds in `data`, record by record.
    fn parser_records(data: &[u8], options: &CsvOptions) -> Vec<Vec<Vec<u8>>> {
        let mut core = parser(options);
        let (mut out, mut ends) = (vec![0u8; 1 << 16], vec![0usize; 1 << 10]);
        let (mut at, mut records) = (0, Vec::new());
        loop {
            let (result, n_in, _, n_ends) = core.read_record(&data[at..], &mut out, &mut ends);
            at += n_in;
            if n_ends > 0 {
                let mut start = 0;
                let fields = ends[..n_ends]
                    .iter()
                    .map(|&end| {
                        let field = out[start..end].to_vec();
                        start = end;
                        field
                    })
                    .collect();
                records.push(fields);
            }
            if matches!(result, csv_core::ReadRecordResult::End) {
                return records;
            }
        }
    }

    /// Lines without a quote, escape or `\r` are split without the
    /// parser: among lines that need it, in buffers of every size, they
    /// give the fields and line numbers the parser alone gives.
    #[test]
    fn plain_lines_split_as_the_parser_splits_them() -> std::io::Result<()> {
        let mut rng = crate::ops::testing::Rng(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: u64| rng.below(n);
        for (delimiter, quote, escape) in [
            (b',', Some(b'"'), None),
            (b';', Some(b'\''), Some(b'\\')),
            (b'\t', None, None),
        ] {
            let options = CsvOptions {
                field_delimiter: delimiter,
                quote_character: quote,
                escape_character: escape,
                ..CsvOptions::default()
            };
            let mut data = Vec::new();
            let lines = 400;
            for _ in 0..lines {
                // Not empty: an empty line is a row of one empty field
                // here, and nothing to the parser.
                data.push(b'k');
                for f in 0..1 + next(6) {
                    if f > 0 {
                        data.push(delimiter);
                    }
                    match (next(24), quote) {
                        // A whole quoted field holding a delimiter; one
                        // with a doubled quote; text after a closing
                        // quote; a quote inside a plain field; an empty
                        // quoted field.
                        (0, Some(q)) => data.extend_from_slice(&[q, b'x', delimiter, b'y', q]),
                        (2, Some(q)) => data.extend_from_slice(&[q, b'a', q, q, b'b', q]),
                        (3, Some(q)) => data.extend_from_slice(&[q, b'a', q, b'b']),
                        (4, Some(q)) => data.extend_from_slice(&[b'a', q, b'b']),
                        (5, Some(q)) => data.extend_from_slice(&[q, q]),
                        (1, _) => {
                            data.extend_from_slice(escape.map_or(&b"e"[..], |_| &b"a\\b"[..]))
                        }
                        _ => {
                            for _ in 0..next(9) {
                                data.extend_from_slice(
                                    ["a", "Z", " ", "9", "é", ",", ";"][next(7) as usize]
                                        .as_bytes(),
                                );
                            }
                        }
                    }
                }
                data.push(b'\n');
            }
            let want = parser_records(&data, &options);
            for chunk in [1, 7, 64, 1 << 20] {
                let file = ChunkedReader(std::io::Cursor::new(data.clone()), chunk);
                let mut input = Input::new(Box::new(file), &options, 1, 16);
                let (mut got, mut plain) = (Vec::new(), 0);
                while let Next::Record { line } = input.next_record(&options)? {
                    assert_eq!(line, got.len() as u64 + 1, "chunk {chunk}");
                    plain += usize::from(input.plain);
                    let fields: Vec<Vec<u8>> = (0..input.nfields)
                        .map(|i| input.field(i).to_vec())
                        .collect();
                    if input.plain {
                        // A plain line's fields and delimiters are all of it.
                        let ascii = fields.iter().all(|f| f.is_ascii());
                        assert_eq!(input.ascii, ascii, "line {line}, chunk {chunk}");
                    }
                    got.push(fields);
                }
                let first = got.iter().zip(&want).position(|(g, w)| g != w);
                assert!(
                    first.is_none() && got.len() == want.len(),
                    "delimiter {delimiter}, chunk {chunk}: record {first:?} of {}/{}: {:?} against {:?}",
                    got.len(),
                    want.len(),
                    first.map(|i| &got[i]),
                    first.map(|i| &want[i])
                );
                assert_eq!(input.line, lines + 1);
                // Both ways were taken (small reads leave no whole line in
                // the buffer: the parser takes every record then).
                let parsed = got.len() - plain;
                assert!(
                    parsed > 0 && (plain > lines as usize / 4 || chunk < 64),
                    "{plain} plain"
                );
            }
        }
        Ok(())
    }

    /// Hands out at most `.1` bytes per read.
    struct ChunkedReader(std::io::Cursor<Vec<u8>>, usize);

    impl std::io::Read for ChunkedReader {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.1);
            self.0.read(&mut buf[..n])
        }
    }

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
