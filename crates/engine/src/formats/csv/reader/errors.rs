//! What a bad csv record says: the message naming file, line and field,
//! and the record as its line shows it, with a caret under what is wrong.

use super::CsvSource;
use crate::formats::excerpt::shorten;
use tidemark_common::Error;

/// Where a data error's caret goes in the record it shows.
#[derive(Clone, Copy)]
pub(super) enum Mark {
    Field(usize),
    /// From this field to the end of the record.
    FieldsFrom(usize),
    /// Just after the record.
    End,
}

impl CsvSource {
    pub(super) fn field_error(&self, line: u64, i: usize) -> Error {
        let (name, ty) = &self.columns[i];
        let text = self.input.field(i);
        let message = match std::str::from_utf8(text) {
            Ok(text) => format!("field '{name}': cannot parse '{}' as {ty}", shorten(text)),
            Err(_) => format!("invalid UTF-8 in field '{name}'"),
        };
        let excerpt = self.record_excerpt(line, Mark::Field(i));
        self.input_error(line, format!("{message}\n{excerpt}"))
    }

    /// The record just read, as the line it starts on shows it, with a
    /// caret where `mark` says: the same picture as under a SQL error.
    pub(super) fn record_excerpt(&self, line: u64, mark: Mark) -> String {
        let raw = if self.input.ended_by_cr {
            &self.input.cr_record[..]
        } else {
            &self.input.buf[self.input.rec_start..self.input.pos]
        };
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        // Where each field starts and ends in the raw text: delimiters
        // outside quotes (close enough to place a caret).
        let quote = self.options.quote_character;
        let mut bounds = vec![0usize];
        let mut quoted = false;
        for (at, b) in raw.iter().enumerate() {
            if Some(*b) == quote {
                quoted = !quoted;
            } else if *b == self.options.field_delimiter && !quoted {
                bounds.push(at);
                bounds.push(at + 1);
            }
        }
        bounds.push(raw.len());
        let text = String::from_utf8_lossy(raw);
        let chars_before = |byte: usize| String::from_utf8_lossy(&raw[..byte]).chars().count();
        let total = text.chars().count();
        let field = |i: usize| Some((*bounds.get(2 * i)?, *bounds.get(2 * i + 1)?));
        let (from, to) = match mark {
            Mark::Field(i) => field(i).map(|(a, b)| (chars_before(a), chars_before(b))),
            Mark::FieldsFrom(i) => field(i).map(|(a, _)| (chars_before(a), total)),
            Mark::End => Some((total, total)),
        }
        .unwrap_or((0, total));
        crate::formats::excerpt::excerpt(line, &text, from, to)
    }

    pub(super) fn input_error(&self, line: u64, message: String) -> Error {
        Error::Input(format!("{}:{line}: {message}", self.display_path))
    }
}

#[cfg(test)]
mod tests {
    use crate::formats::csv::testing::{read_err, Columns};
    use crate::formats::csv::CsvOptions;
    use tidemark_common::SqlType;
    use SqlType::{Decimal, Int};

    #[test]
    fn row_errors_name_file_line_and_field() {
        let two = [("a", Int), ("s", SqlType::String)];
        let cases: &[(&[u8], Columns, &str)] = &[
            (b"1,x\n2\n", &two, "t.csv:2: expected 2 fields, found 1"),
            (b"1,x\n2,y,z\n", &two, "t.csv:2: expected 2 fields, found 3"),
            (b"1,x\n\n2,y\n", &two, "t.csv:2: expected 2 fields, found 1"),
            (
                b"1,x\nz,y\n",
                &two,
                "t.csv:2: field 'a': cannot parse 'z' as INT",
            ),
            (
                b"1,\"a\nb\"\n2,\"c\nd\"\nq,x\n",
                &two,
                "t.csv:5: field 'a': cannot parse 'q' as INT",
            ),
            (
                b"1,x\r\n\r\nq,x\r\n",
                &two,
                "t.csv:2: expected 2 fields, found 1",
            ),
            (
                b"1,x\r\n2,x\r\nq,x\r\n",
                &two,
                "t.csv:3: field 'a': cannot parse 'q' as INT",
            ),
            (
                b"1,x\n2,\xff\xfe\n",
                &two,
                "t.csv:2: invalid UTF-8 in field 's'",
            ),
            (b"\xff,x\n", &two, "t.csv:1: invalid UTF-8 in field 'a'"),
            (
                b"1,x\n2,\"y\n3,z\n",
                &two,
                "t.csv:2: field 's': missing closing quote",
            ),
            (
                b"1,x\n\"2,y\n",
                &two,
                "t.csv:2: field 'a': missing closing quote",
            ),
            (
                b"1,x\n,y\n",
                &two,
                "t.csv:2: field 'a': cannot parse '' as INT",
            ),
            (
                b"1,2\n",
                &[("m", Decimal(3, 2))],
                "t.csv:1: expected 1 fields, found 2",
            ),
            (
                b"12.5\n",
                &[("m", Decimal(3, 2))],
                "t.csv:1: field 'm': cannot parse '12.5' as DECIMAL(3, 2)",
            ),
        ];
        for (data, columns, want) in cases {
            let got = read_err(data, columns, CsvOptions::default());
            assert_eq!(got.lines().next().unwrap_or_default(), *want);
        }
    }

    #[test]
    fn a_data_error_shows_its_record_with_a_caret() {
        let three: &[(&str, SqlType)] = &[("a", Int), ("b", SqlType::String), ("m", Decimal(6, 2))];
        let cases: &[(&[u8], &str)] = &[
            (
                b"1,x,1.5\n2,\"y, z\",abc\n",
                "t.csv:2: field 'm': cannot parse 'abc' as DECIMAL(6, 2)\n  |\n2 | 2,\"y, z\",abc\n  |          ^^^",
            ),
            (
                b"1,x,1.5,extra,more\r\n",
                "t.csv:1: expected 3 fields, found 5\n  |\n1 | 1,x,1.5,extra,more\n  |         ^^^^^^^^^^",
            ),
            (b"1,x\n", "t.csv:1: expected 3 fields, found 2\n  |\n1 | 1,x\n  |    ^"),
        ];
        for (data, want) in cases {
            assert_eq!(read_err(data, three, CsvOptions::default()), *want);
        }
        // A long line is cut around the field.
        let long = format!("{},x,bad\n", "9".repeat(150));
        let got = read_err(
            long.as_bytes(),
            &[("a", SqlType::String), ("b", SqlType::String), ("m", Int)],
            CsvOptions::default(),
        );
        let shown = got.lines().nth(2).unwrap_or_default();
        assert!(
            shown.starts_with("1 | ...") && shown.ends_with(",x,bad"),
            "{got}"
        );
        let caret = got.lines().nth(3).unwrap_or_default();
        assert_eq!(
            caret.find('^'),
            Some(shown.find("bad").unwrap_or_default()),
            "{got}"
        );
    }
}
