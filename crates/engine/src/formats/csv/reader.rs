//! The csv reader: the records [`super::framing`] splits turned into Arrow
//! batches of a table's columns, a batch at a time — short rows padded,
//! long ones dropped or failed, bad fields nulled or failed, as the options
//! say, and counted in [`ReadStats`] — and where the reader stands, for a
//! checkpoint to resume from.

mod errors;

use super::framing::{Input, Next, READ_CHUNK};
use super::CsvOptions;
use crate::formats::column::{leave_unread, ColumnBuilder};
use crate::formats::options::option_error;
use crate::formats::text::Parser;
use crate::runtime::read::{ReadBatch, ReadPosition, ReadStats};
use crate::runtime::stream::BadRow;
use arrow::array::ArrayRef;
use arrow::datatypes::{Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use errors::Mark;
use std::io::Read;
use std::sync::Arc;
use tidemark_common::{Error, Result, SqlType};

/// Reads one CSV file as Flink's CSV format does, a batch at a time.
pub struct CsvSource {
    display_path: String,
    columns: Vec<(String, SqlType)>,
    options: CsvOptions,
    batch_size: usize,
    schema: SchemaRef,
    builders: Vec<ColumnBuilder>,
    /// The columns decoded, in order (the others are left unread).
    decoded: Vec<usize>,
    /// Rows of ASCII lines since the batch began: the unread columns'
    /// rows, counted once a row rather than once a column and row.
    unread_rows: usize,
    parser: Parser,
    input: Input,
    stats: ReadStats,
    /// Set after the end of file or an error: later calls return None.
    done: bool,
    /// An error met after some rows of a batch: reported by the next call,
    /// once those rows have gone out.
    pending_error: Option<Error>,
    raw: Vec<String>,
    skipped: Vec<BadRow>,
    /// Whether the header line (`csv.header`) has been passed.
    header_skipped: bool,
    /// Send rows as they come rather than in full batches (standard
    /// input, a followed file).
    streaming: bool,
    /// The last record was cut off inside a quoted field.
    ended_in_open_quote: bool,
}

impl CsvSource {
    /// Send rows as soon as the input has no more for now, instead of
    /// waiting for a full batch.
    pub fn stream(&mut self) {
        self.streaming = true;
    }

    /// Follow the file as it grows (`source.monitor-interval`): at its end,
    /// batches (possibly empty) go out and reading resumes after `interval`.
    pub fn follow(&mut self, interval: std::time::Duration) {
        self.streaming = true;
        self.input.follow = Some(interval);
    }

    /// Leaves column `i` undecoded where `unread[i]` (no step of the
    /// query reads it): its fields are skipped, and the batch holds zeros
    /// of its type in its place. Every other column is decoded. Before
    /// the first batch only.
    pub fn leave_unread(&mut self, unread: &[bool]) {
        leave_unread(&mut self.builders, &self.columns, unread, self.batch_size);
        self.decoded = (0..self.builders.len())
            .filter(|i| !self.builders[*i].is_unread())
            .collect();
    }

    /// Every column's values for the batch, the unread ones' rows of
    /// ASCII lines added first.
    fn finish_columns(&mut self) -> Result<Vec<ArrayRef>> {
        let unread_rows = std::mem::take(&mut self.unread_rows);
        self.builders
            .iter_mut()
            .map(|b| {
                if b.is_unread() {
                    b.append_nulls(unread_rows);
                }
                b.finish()
            })
            .collect()
    }

    /// Keep each row's text, and the rows skipped as malformed, so they
    /// can be written to a bad-records sink.
    pub fn keep_raw(&mut self) {
        self.input.keep_raw = true;
    }

    fn raw_text(&self) -> String {
        String::from_utf8_lossy(&self.input.raw).into_owned()
    }

    /// Counts a malformed row as skipped, keeping it when asked.
    fn skip(&mut self, line: u64, error: String) {
        self.stats.rows_skipped += 1;
        if self.input.keep_raw {
            self.skipped.push(BadRow {
                line,
                raw: self.raw_text(),
                error,
            });
        }
    }

    /// Reads `file`, any byte stream (a file, standard input).
    /// `display_path` is how errors name the file (e.g. the path as written
    /// in the SQL). `columns`: the physical columns in file order with their
    /// SQL types.
    pub fn from_reader(
        file: Box<dyn Read + Send>,
        display_path: String,
        columns: Vec<(String, SqlType)>,
        options: CsvOptions,
        batch_size: usize,
    ) -> Result<Self> {
        let input = Input::new(file, &options, columns.len(), READ_CHUNK);
        Self::reading(input, display_path, columns, options, batch_size)
    }

    /// Reads `bytes[start..]`, a whole input already in memory, without
    /// copying it into a buffer of its own.
    pub fn from_bytes(
        bytes: Arc<Vec<u8>>,
        start: usize,
        display_path: String,
        columns: Vec<(String, SqlType)>,
        options: CsvOptions,
        batch_size: usize,
    ) -> Result<Self> {
        let input = Input::whole(bytes, start, &options, columns.len());
        Self::reading(input, display_path, columns, options, batch_size)
    }

    /// A reader of `input`, with a builder for each column (a type the
    /// format cannot read is an error here).
    fn reading(
        input: Input,
        display_path: String,
        columns: Vec<(String, SqlType)>,
        options: CsvOptions,
        batch_size: usize,
    ) -> Result<Self> {
        let batch_size = batch_size.max(1);
        let mut builders = Vec::with_capacity(columns.len());
        for (name, ty) in &columns {
            if let SqlType::Decimal(p, s) = ty {
                if !(1..=38).contains(p) || *s < 0 || *s as u8 > *p {
                    return Err(option_error(format!(
                        "column '{name}' has type {ty}, which the csv format cannot read \
                         (precision 1 to 38, scale 0 to precision)"
                    )));
                }
            }
            let builder = ColumnBuilder::new(ty, batch_size).ok_or_else(|| {
                option_error(format!(
                    "column '{name}' has type {ty}, which the csv format cannot read"
                ))
            })?;
            builders.push(builder);
        }
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
                .collect::<Vec<_>>(),
        ));
        Ok(CsvSource {
            display_path,
            columns,
            options,
            batch_size,
            schema,
            decoded: (0..builders.len()).collect(),
            builders,
            unread_rows: 0,
            parser: Parser::new(chrono_tz::UTC),
            input,
            stats: ReadStats::default(),
            done: false,
            pending_error: None,
            raw: Vec::new(),
            skipped: Vec::new(),
            header_skipped: false,
            streaming: false,
            ended_in_open_quote: false,
        })
    }

    /// The session time zone: TIMESTAMP_LTZ text without `Z` is a
    /// wall-clock time there. UTC unless set.
    pub fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
        self.parser.tz = tz;
    }

    /// Reads a piece of a file that starts at a record: the header (if
    /// any) is behind it. Line numbers count from 1 in the piece; the
    /// caller shifts them.
    pub fn continue_after_header(&mut self) {
        self.header_skipped = true;
    }

    /// Numbers the input's lines from `line` on.
    pub fn start_at_line(&mut self, line: u64) {
        self.input.line = line;
    }

    /// Lines consumed so far (after the end: the lines of the input).
    pub fn lines_read(&self) -> u64 {
        self.input.line - 1
    }

    /// Keeps a CRC-32 of the bytes read, for [`CsvSource::position`]: called
    /// before the first read (a resumed source has one already).
    pub fn hash_prefix(&mut self) {
        if self.input.prefix.is_none() {
            self.input.prefix = Some(crc32fast::Hasher::new());
        }
    }

    /// Where the next record starts, between two batches (at the end of
    /// input: the end); None when the source cannot go on from a position
    /// (an error waits to be reported, a line is half read, or the bytes
    /// read are not hashed).
    pub fn position(&self) -> Option<ReadPosition> {
        let input = &self.input;
        let mut prefix = input.prefix.clone().filter(|_| self.between_batches())?;
        prefix.update(&input.buf[(input.hashed - input.base) as usize..input.pos]);
        Some(ReadPosition {
            offset: input.base + input.pos as u64,
            line: input.line,
            stats: self.stats.clone(),
            prefix_crc: prefix.finalize(),
            end: None,
        })
    }

    /// Whether [`CsvSource::position`] has a position to give (cheaply,
    /// without hashing).
    pub fn between_batches(&self) -> bool {
        self.pending_error.is_none()
            && self.raw.is_empty()
            && self.skipped.is_empty()
            && self.input.prefix.is_some()
    }

    /// Goes on from `at` in `file`, which must already stand at
    /// `at.offset` (a restart from a checkpoint).
    pub fn resume(&mut self, file: Box<dyn Read + Send>, at: &ReadPosition) {
        let input = &mut self.input;
        input.file = file;
        input.base = at.offset;
        input.hashed = at.offset;
        input.prefix = Some(crc32fast::Hasher::new_with_initial_len(
            at.prefix_crc,
            at.offset,
        ));
        (input.pos, input.rec_start, input.end) = (0, 0, 0);
        input.eof = false;
        input.line = at.line;
        self.header_skipped = true;
        self.stats = at.stats.clone();
    }

    /// Whether the input ended inside a quoted field: for a piece of a
    /// file, a sign that it was cut inside a record.
    pub fn ended_in_open_quote(&self) -> bool {
        self.ended_in_open_quote
    }

    /// Next batch of at most batch_size rows (never an empty batch), or None
    /// at end of file.
    pub fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        if self.done {
            return Ok(None);
        }
        match self.fill_batch() {
            Ok(None) => {
                self.done = true;
                Ok(None)
            }
            Ok(Some(batch)) => Ok(Some(batch)),
            Err(e) => {
                self.done = true;
                Err(e)
            }
        }
    }

    pub fn stats(&self) -> ReadStats {
        self.stats.clone()
    }

    fn fill_batch(&mut self) -> Result<Option<ReadBatch>> {
        if let Some(e) = self.pending_error.take() {
            return Err(e);
        }
        let mut lines = Vec::with_capacity(self.batch_size);
        if let Err(e) = self.read_rows(&mut lines) {
            if lines.is_empty() {
                return Err(e);
            }
            // The rows before the bad one go out first, so that what a query
            // prints before failing does not depend on the batch size. The
            // bad row may have left values in some builders: cut them off.
            self.pending_error = Some(e);
            let arrays: Vec<ArrayRef> = self
                .finish_columns()?
                .iter()
                .map(|array| array.slice(0, lines.len()))
                .collect();
            let batch = RecordBatch::try_new(self.schema.clone(), arrays)?;
            self.stats.rows_read += lines.len() as u64;
            return Ok(Some(ReadBatch {
                batch,
                lines,
                raw: std::mem::take(&mut self.raw),
                skipped: std::mem::take(&mut self.skipped),
            }));
        }
        let idle = std::mem::take(&mut self.input.idle);
        if lines.is_empty() && self.skipped.is_empty() {
            if !idle {
                return Ok(None);
            }
            // Nothing new for now: hand back an empty batch at once; the
            // run waits on its clock while every input has nothing.
        }
        let arrays = self.finish_columns()?;
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)?;
        self.stats.rows_read += lines.len() as u64;
        Ok(Some(ReadBatch {
            batch,
            lines,
            raw: std::mem::take(&mut self.raw),
            skipped: std::mem::take(&mut self.skipped),
        }))
    }

    fn read_rows(&mut self, lines: &mut Vec<u64>) -> Result<()> {
        while lines.len() < self.batch_size {
            // A streaming input sends what it has before a read that may
            // wait for more.
            if self.streaming && !lines.is_empty() && self.input.pos == self.input.end {
                break;
            }
            if self.input.idle {
                break;
            }
            let next = self
                .input
                .next_record(&self.options)
                .map_err(|e| Error::io(format!("cannot read '{}'", self.display_path), e))?;
            match next {
                Next::End => break,
                Next::Unterminated { line, field } => {
                    self.ended_in_open_quote = true;
                    let name = self.columns.get(field).map_or("", |(n, _)| n.as_str());
                    if self.options.ignore_parse_errors {
                        let error = format!("field '{name}': missing closing quote");
                        self.skip(line, error);
                        continue;
                    }
                    return Err(
                        self.input_error(line, format!("field '{name}': missing closing quote"))
                    );
                }
                Next::Record { .. } if self.options.header && !self.header_skipped => {
                    self.header_skipped = true;
                }
                Next::Record { line } => {
                    if self.append_row(line)? {
                        lines.push(line);
                        if self.input.keep_raw {
                            self.raw.push(self.raw_text());
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Appends the current record as a row; false when it is dropped.
    fn append_row(&mut self, line: u64) -> Result<bool> {
        let mut found = self.input.nfields;
        let expected = self.columns.len();
        // As Flink's reader: one empty field after the last (a trailing
        // delimiter) is not a field.
        if found == expected + 1 && self.input.field(expected).is_empty() {
            found = expected;
        }
        let ignore = self.options.ignore_parse_errors;
        if found != expected && !ignore {
            // The caret: under the fields too many, or after the last.
            let mark = if found > expected {
                Mark::FieldsFrom(expected)
            } else {
                Mark::End
            };
            let excerpt = self.record_excerpt(line, mark);
            return Err(self.input_error(
                line,
                format!("expected {expected} fields, found {found}\n{excerpt}"),
            ));
        }
        if found > expected {
            // As Flink does: the row is dropped, not cut.
            self.skip(line, format!("expected {expected} fields, found {found}"));
            return Ok(false);
        }
        if let Some(i) = (0..found)
            .filter(|_| ignore)
            .find(|i| std::str::from_utf8(self.input.field(*i)).is_err())
        {
            // Checked first so that a dropped row leaves no values behind.
            let name = self.columns[i].0.clone();
            self.skip(line, format!("invalid UTF-8 in field '{name}'"));
            return Ok(false);
        }
        let ascii = self.input.ascii;
        // The fields of an ASCII line are valid UTF-8: only the decoded
        // columns' are looked at, and the row is counted for the others
        // once. Every field of another line is checked.
        let all = 0..found;
        let fields = match ascii {
            true => &self.decoded[..self.decoded.partition_point(|i| *i < found)],
            false => &[][..],
        };
        for i in fields.iter().copied().chain(all.filter(|_| !ascii)) {
            let text = self.input.field(i);
            let appended = |builder: &mut ColumnBuilder, parser: &mut Parser| {
                // A field of an ASCII line is UTF-8: not checked again.
                if ascii {
                    builder.append_utf8(text, parser)
                } else {
                    builder.append_text(text, parser)
                }
            };
            if self.options.null_literal.as_deref().map(str::as_bytes) == Some(text) {
                self.builders[i].append_null();
            } else if !appended(&mut self.builders[i], &mut self.parser) {
                if ignore {
                    self.builders[i].append_null();
                    self.stats.fields_nulled += 1;
                } else {
                    return Err(self.field_error(line, i));
                }
            }
        }
        if found < expected {
            for builder in &mut self.builders[found..] {
                if !(ascii && builder.is_unread()) {
                    builder.append_null();
                }
            }
            self.stats.rows_padded += 1;
        }
        self.unread_rows += usize::from(ascii);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::csv::testing::{cols, opts, read_all, rows, Rows, TempCsv};
    use crate::formats::open_file;
    use SqlType::{BigInt, Boolean, Decimal, Double, Int, Null, Timestamp};

    #[test]
    fn unreadable_file_is_an_io_error() {
        let columns = cols(&[("a", Int)]);
        let path = std::path::Path::new("/nonexistent/tidemark/x.csv");
        match open_file(path, "data/x.csv".into(), |input, name| {
            CsvSource::from_reader(input, name, columns, CsvOptions::default(), 8)
        }) {
            Err(e @ Error::Io { .. }) => {
                assert!(e.to_string().starts_with("cannot open 'data/x.csv': "))
            }
            Err(e) => panic!("{e:?}"),
            Ok(_) => panic!("opened a file that does not exist"),
        }
    }

    #[test]
    fn unreadable_types_are_rejected() {
        for ty in [
            Null,
            Decimal(0, 0),
            Decimal(39, 0),
            Decimal(5, 6),
            Decimal(5, -1),
        ] {
            let file = TempCsv::new(b"");
            let result = file.and_then(|f| {
                open_file(&f.0, "t.csv".into(), |input, name| {
                    let columns = cols(&[("c", ty.clone())]);
                    CsvSource::from_reader(input, name, columns, CsvOptions::default(), 8)
                })
            });
            assert!(matches!(result, Err(Error::Plan { .. })), "{ty}");
        }
    }

    #[test]
    fn ignore_parse_errors_repairs_and_counts() -> Result<()> {
        // Each row as Flink reads it under 'csv.ignore-parse-errors' = 'true'.
        let data = b"ok,1,2.5,true\n\
            short,1\n\
            long,1,2.5,true,extra\n\
            empty,,,\n\
            \n\
            bad,x,y,maybe\n\
            bad-utf8,1,\xff,true\n\
            last,2,3,TRUE";
        let columns = [
            ("id", SqlType::String),
            ("a", Int),
            ("d", Double),
            ("e", Boolean),
        ];
        let options = opts(&[("csv.ignore-parse-errors", "true")])?;
        for batch_size in [1, 2, 100] {
            let (got, stats) = read_all(data, &columns, options.clone(), batch_size)?;
            assert_eq!(
                got,
                rows(&[
                    (1, "ok, 1, 2.5, TRUE"),
                    (2, "short, 1, <NULL>, <NULL>"),
                    (4, "empty, <NULL>, <NULL>, FALSE"),
                    (5, ", <NULL>, <NULL>, <NULL>"),
                    (6, "bad, <NULL>, <NULL>, FALSE"),
                    (8, "last, 2, 3.0, TRUE"),
                ])
            );
            assert_eq!(
                stats,
                ReadStats {
                    rows_read: 6,
                    fields_nulled: 4,
                    rows_padded: 2,
                    rows_skipped: 2
                }
            );
        }
        let (got, stats) = read_all(
            b"a,\"x\nb,2\n",
            &[("id", SqlType::String), ("s", SqlType::String)],
            options,
            4,
        )?;
        assert!(got.is_empty());
        assert_eq!(stats.rows_skipped, 1);
        Ok(())
    }

    #[test]
    fn null_literal() -> Result<()> {
        let columns = [
            ("id", SqlType::String),
            ("a", Int),
            ("s", SqlType::String),
            ("e", Boolean),
            ("t", Timestamp(3)),
        ];
        let cases: &[(&str, &[u8], Rows)] = &[
            (
                "null",
                b"a,null,null,null,null\nb,1,\"null\",true,2020-01-01 00:00:00\nc,2,Null,null ,null\n",
                &[
                    (1, "a, <NULL>, <NULL>, <NULL>, <NULL>"),
                    (2, "b, 1, <NULL>, TRUE, 2020-01-01 00:00:00.000"),
                    (3, "c, 2, Null, FALSE, <NULL>"),
                ],
            ),
            ("", b"a,,,,\nb,1,\"\",,\n", &[(1, "a, <NULL>, <NULL>, <NULL>, <NULL>"), (2, "b, 1, <NULL>, <NULL>, <NULL>")]),
        ];
        for (literal, data, want) in cases {
            let (got, stats) =
                read_all(data, &columns, opts(&[("csv.null-literal", literal)])?, 8)?;
            assert_eq!(got, rows(want), "null literal '{literal}'");
            assert_eq!(stats.fields_nulled, 0);
        }
        // Without a null literal an empty STRING field is the empty string.
        let (got, _) = read_all(
            b"a,,\"\"\n",
            &[
                ("id", SqlType::String),
                ("s", SqlType::String),
                ("t", SqlType::String),
            ],
            CsvOptions::default(),
            8,
        )?;
        assert_eq!(got, rows(&[(1, "a, , ")]));
        Ok(())
    }

    #[test]
    fn many_rows_in_batches() -> Result<()> {
        let mut data = String::new();
        for i in 0..10_000 {
            data.push_str(&format!(
                "{i},2020-01-01 00:00:{:02}.{:03}\n",
                i % 60,
                i % 1000
            ));
        }
        let (got, stats) = read_all(
            data.as_bytes(),
            &[("a", BigInt), ("t", Timestamp(3))],
            CsvOptions::default(),
            4096,
        )?;
        assert_eq!(stats.rows_read, 10_000);
        assert_eq!(
            got[9_999],
            (10_000, "9999, 2020-01-01 00:00:39.999".to_string())
        );
        Ok(())
    }
}
