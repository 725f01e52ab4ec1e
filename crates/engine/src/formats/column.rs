//! An Arrow column filled from text fields, as both text formats (csv and
//! json) build their batches: one builder per SQL type, each field turned
//! into a value by the rules of [`super::text`]; and the column a query
//! never reads, whose fields are counted but not decoded.

use super::text::{
    parse_boolean, parse_decimal, parse_i64, parse_java_double, parse_java_float, Parser,
};
use arrow::array::PrimitiveBuilder;
use arrow::array::{
    make_array, new_null_array, Array, ArrayRef, BinaryBuilder, BooleanBuilder, Date32Builder,
    Decimal128Builder, Float32Builder, Float64Builder, Int16Builder, Int32Builder, Int64Builder,
    Int8Builder, StringArray, Time32MillisecondBuilder, TimestampMillisecondBuilder,
};
use arrow::datatypes::{ArrowPrimitiveType, DataType};
use std::sync::Arc;
use tidemark_common::{Result, SqlType};

/// One output column: its Arrow builder and how text becomes a value.
pub(crate) enum ColumnBuilder {
    Boolean(BooleanBuilder),
    TinyInt(Int8Builder),
    SmallInt(Int16Builder),
    Int(Int32Builder),
    BigInt(Int64Builder),
    Float(Float32Builder),
    Double(Float64Builder),
    Date(Date32Builder),
    Time(Time32MillisecondBuilder, u8),
    Decimal(Decimal128Builder, u8, i8),
    /// Text gathered as bytes, each field checked to be UTF-8 unless it
    /// is known to be (an ASCII line, a JSON string), and the whole
    /// checked once more as the column is finished: a check per field
    /// through `str::from_utf8` cost more than reading a long field.
    String(BinaryBuilder),
    Timestamp(TimestampMillisecondBuilder),
    TimestampLtz(TimestampMillisecondBuilder),
    /// A column no step of the query reads: its fields are not decoded
    /// (only checked to be UTF-8), and the batch holds zeros (empty
    /// strings, false) of
    /// its type in their place, without NULLs, so a NOT NULL column's
    /// schema still holds.
    Unread(UnreadColumn),
}

/// The stand-in for a column the query never reads: how many rows it has
/// so far, and zeros of its type to hand out, made once and sliced.
pub(crate) struct UnreadColumn {
    ty: DataType,
    rows: usize,
    zeros: Option<ArrayRef>,
}

impl UnreadColumn {
    fn finish(&mut self) -> ArrayRef {
        let rows = std::mem::take(&mut self.rows);
        match &self.zeros {
            Some(zeros) if zeros.len() >= rows => zeros.slice(0, rows),
            _ => {
                // A NULL array's buffers are zeroed: without its validity
                // it is an array of zeros. (Building it checks what it is
                // given; should it refuse, the NULLs stand in.)
                let nulls = new_null_array(&self.ty, rows);
                let zeros = nulls
                    .to_data()
                    .into_builder()
                    .nulls(None)
                    .build()
                    .map_or(nulls, make_array);
                self.zeros = Some(zeros.clone());
                zeros
            }
        }
    }
}

/// Makes `builders` (one per column of `columns`) stand-ins for the
/// columns `unread` flags, and decoders (of `capacity` rows) for the
/// others: what a format reader does when told which columns the query
/// reads.
pub(crate) fn leave_unread(
    builders: &mut [ColumnBuilder],
    columns: &[(String, SqlType)],
    unread: &[bool],
    capacity: usize,
) {
    for (i, (builder, (_, ty))) in builders.iter_mut().zip(columns).enumerate() {
        let skip = unread.get(i).copied().unwrap_or(false);
        if skip && !builder.is_unread() {
            *builder = ColumnBuilder::unread(ty);
        } else if !skip && builder.is_unread() {
            // A type the format reads: it was checked when opened.
            if let Some(decoded) = ColumnBuilder::new(ty, capacity) {
                *builder = decoded;
            }
        }
    }
}

impl ColumnBuilder {
    pub(crate) fn new(ty: &SqlType, capacity: usize) -> Option<Self> {
        Some(match ty {
            SqlType::Boolean => ColumnBuilder::Boolean(BooleanBuilder::with_capacity(capacity)),
            SqlType::TinyInt => ColumnBuilder::TinyInt(Int8Builder::with_capacity(capacity)),
            SqlType::SmallInt => ColumnBuilder::SmallInt(Int16Builder::with_capacity(capacity)),
            SqlType::Int => ColumnBuilder::Int(Int32Builder::with_capacity(capacity)),
            SqlType::Float => ColumnBuilder::Float(Float32Builder::with_capacity(capacity)),
            SqlType::Date => ColumnBuilder::Date(Date32Builder::with_capacity(capacity)),
            SqlType::Time(p) => {
                ColumnBuilder::Time(Time32MillisecondBuilder::with_capacity(capacity), *p)
            }
            SqlType::BigInt => ColumnBuilder::BigInt(Int64Builder::with_capacity(capacity)),
            SqlType::Double => ColumnBuilder::Double(Float64Builder::with_capacity(capacity)),
            SqlType::Decimal(p, s) => ColumnBuilder::Decimal(
                Decimal128Builder::with_capacity(capacity)
                    .with_precision_and_scale(*p, *s)
                    .ok()?,
                *p,
                *s,
            ),
            SqlType::String => {
                ColumnBuilder::String(BinaryBuilder::with_capacity(capacity, capacity * 16))
            }
            SqlType::Timestamp(_) => {
                ColumnBuilder::Timestamp(TimestampMillisecondBuilder::with_capacity(capacity))
            }
            // The zone tag comes from the SQL type so that batches and schema
            // agree.
            SqlType::TimestampLtz(_) => ColumnBuilder::TimestampLtz(
                TimestampMillisecondBuilder::with_capacity(capacity).with_data_type(ty.to_arrow()),
            ),
            SqlType::Null => return None,
        })
    }

    /// The stand-in for a column of type `ty` that is not read.
    pub(crate) fn unread(ty: &SqlType) -> Self {
        ColumnBuilder::Unread(UnreadColumn {
            ty: ty.to_arrow(),
            rows: 0,
            zeros: None,
        })
    }

    pub(crate) fn is_unread(&self) -> bool {
        matches!(self, ColumnBuilder::Unread(_))
    }

    pub(crate) fn append_null(&mut self) {
        match self {
            ColumnBuilder::Boolean(b) => b.append_null(),
            ColumnBuilder::TinyInt(b) => b.append_null(),
            ColumnBuilder::SmallInt(b) => b.append_null(),
            ColumnBuilder::Float(b) => b.append_null(),
            ColumnBuilder::Date(b) => b.append_null(),
            ColumnBuilder::Time(b, _) => b.append_null(),
            ColumnBuilder::Int(b) => b.append_null(),
            ColumnBuilder::BigInt(b) => b.append_null(),
            ColumnBuilder::Double(b) => b.append_null(),
            ColumnBuilder::Decimal(b, ..) => b.append_null(),
            ColumnBuilder::String(b) => b.append_null(),
            ColumnBuilder::Timestamp(b) | ColumnBuilder::TimestampLtz(b) => b.append_null(),
            ColumnBuilder::Unread(u) => u.rows += 1,
        }
    }

    /// Appends `n` NULLs (for a column not read, `n` rows).
    pub(crate) fn append_nulls(&mut self, n: usize) {
        match self {
            ColumnBuilder::Boolean(b) => b.append_nulls(n),
            ColumnBuilder::TinyInt(b) => b.append_nulls(n),
            ColumnBuilder::SmallInt(b) => b.append_nulls(n),
            ColumnBuilder::Float(b) => b.append_nulls(n),
            ColumnBuilder::Date(b) => b.append_nulls(n),
            ColumnBuilder::Time(b, _) => b.append_nulls(n),
            ColumnBuilder::Int(b) => b.append_nulls(n),
            ColumnBuilder::BigInt(b) => b.append_nulls(n),
            ColumnBuilder::Double(b) => b.append_nulls(n),
            ColumnBuilder::Decimal(b, ..) => b.append_nulls(n),
            ColumnBuilder::String(b) => b.append_nulls(n),
            ColumnBuilder::Timestamp(b) | ColumnBuilder::TimestampLtz(b) => b.append_nulls(n),
            ColumnBuilder::Unread(u) => u.rows += n,
        }
    }

    /// Parses `text` and appends it; false, with nothing appended, when it
    /// does not parse.
    pub(crate) fn append_text(&mut self, text: &[u8], parser: &mut Parser) -> bool {
        match self {
            ColumnBuilder::Boolean(b) => match parse_boolean(text) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::TinyInt(b) => match parse_i64(text).and_then(|v| i8::try_from(v).ok()) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::SmallInt(b) => {
                match parse_i64(text).and_then(|v| i16::try_from(v).ok()) {
                    Some(v) => b.append_value(v),
                    None => return false,
                }
            }
            ColumnBuilder::Float(b) => match parse_java_float(text) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::Date(b) => match parser.date(text) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::Time(b, p) => match parser.time(text, *p) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::Int(b) => match parse_i64(text).and_then(|v| i32::try_from(v).ok()) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::BigInt(b) => match parse_i64(text) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::Double(b) => match parse_java_double(text) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::Decimal(b, p, s) => match parse_decimal(text, *p, *s) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::String(b) => {
                if std::str::from_utf8(text).is_err() {
                    return false;
                }
                b.append_value(text);
            }
            ColumnBuilder::Timestamp(b) => match parser.timestamp(text, false) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            ColumnBuilder::TimestampLtz(b) => match parser.timestamp(text, true) {
                Some(v) => b.append_value(v),
                None => return false,
            },
            // Not decoded, but text all the same: a byte that is not
            // UTF-8 is bad input in any column, as the whole line is.
            ColumnBuilder::Unread(u) => {
                if std::str::from_utf8(text).is_err() {
                    return false;
                }
                u.rows += 1
            }
        }
        true
    }

    /// [`ColumnBuilder::append_text`] for text already known to be UTF-8
    /// (a field of an ASCII line, a JSON value): a STRING column takes it
    /// without checking it again, a column not read just counts it.
    pub(crate) fn append_utf8(&mut self, text: &[u8], parser: &mut Parser) -> bool {
        match self {
            ColumnBuilder::String(b) => b.append_value(text),
            ColumnBuilder::Unread(u) => u.rows += 1,
            builder => return builder.append_text(text, parser),
        }
        true
    }

    /// [`ColumnBuilder::append_utf8`] of a string.
    pub(crate) fn append_str(&mut self, text: &str, parser: &mut Parser) -> bool {
        self.append_utf8(text.as_bytes(), parser)
    }

    /// The column built so far. The builder starts over with room for as
    /// many values (and, for text, bytes) as it held: the next batch, of
    /// a like size, then fills it without growing it by doubling, a copy
    /// of everything so far at each step.
    pub(crate) fn finish(&mut self) -> Result<ArrayRef> {
        Ok(match self {
            ColumnBuilder::Boolean(b) => {
                let array = b.finish();
                *b = BooleanBuilder::with_capacity(array.len());
                Arc::new(array)
            }
            ColumnBuilder::TinyInt(b) => finish_primitive(b),
            ColumnBuilder::SmallInt(b) => finish_primitive(b),
            ColumnBuilder::Float(b) => finish_primitive(b),
            ColumnBuilder::Date(b) => finish_primitive(b),
            ColumnBuilder::Time(b, _) => finish_primitive(b),
            ColumnBuilder::Int(b) => finish_primitive(b),
            ColumnBuilder::BigInt(b) => finish_primitive(b),
            ColumnBuilder::Double(b) => finish_primitive(b),
            ColumnBuilder::Decimal(b, ..) => finish_primitive(b),
            ColumnBuilder::String(b) => {
                let bytes = b.finish();
                // An eighth more text than this batch had: a batch with a
                // little more would otherwise double the buffer, copying
                // all it held.
                let text = bytes.values().len();
                *b = BinaryBuilder::with_capacity(bytes.len(), text + text / 8);
                // Every field is UTF-8: checked, or known to be.
                Arc::new(StringArray::try_from_binary(bytes)?)
            }
            ColumnBuilder::Timestamp(b) | ColumnBuilder::TimestampLtz(b) => finish_primitive(b),
            ColumnBuilder::Unread(u) => u.finish(),
        })
    }
}

/// [`ColumnBuilder::finish`] for a primitive column: its type (a zone, a
/// precision and scale) kept for the next batch.
fn finish_primitive<T: ArrowPrimitiveType>(b: &mut PrimitiveBuilder<T>) -> ArrayRef {
    let array = b.finish();
    *b = PrimitiveBuilder::with_capacity(array.len()).with_data_type(array.data_type().clone());
    Arc::new(array)
}

#[cfg(test)]
mod tests {
    // Read through the csv format: the batch it hands out is what the
    // builders made.
    use crate::formats::csv::testing::{cols, read_all, rows, TempCsv};
    use crate::formats::csv::{CsvOptions, CsvSource};
    use crate::formats::open_file;
    use crate::runtime::read::ReadStats;
    use arrow::array::AsArray;
    use arrow::datatypes::{
        Decimal128Type, Float64Type, Int32Type, Int64Type, TimestampMillisecondType,
    };
    use tidemark_common::{Error, Result, SqlType};
    use SqlType::{BigInt, Boolean, Decimal, Double, Int, Timestamp, TimestampLtz};

    #[test]
    fn reads_every_type() -> Result<()> {
        let data = b"k,1,-9000000000,1.5,11,true,2020-01-02 03:04:05.123,2020-01-02 03:04:05Z\n\
            \"q,\"\"x\"\"\", +7 , 8 ,1e3,-0.5,FALSE,1969-12-31 23:59:59.999,1969-12-31 23:59:59.999\n";
        let columns = [
            ("s", SqlType::String),
            ("i", Int),
            ("b", BigInt),
            ("d", Double),
            ("m", Decimal(10, 2)),
            ("f", Boolean),
            ("t", Timestamp(3)),
            ("l", TimestampLtz(3)),
        ];
        // A batch a row too: each batch's builders start over with the
        // types (a zone, a precision and scale) of the first.
        for batch_size in [10, 1] {
            let (got, stats) = read_all(data, &columns, CsvOptions::default(), batch_size)?;
            assert_eq!(
                got,
                rows(&[
                    (1, "k, 1, -9000000000, 1.5, 11.00, TRUE, 2020-01-02 03:04:05.123, 2020-01-02 03:04:05.000"),
                    (2, "q,\"x\", 7, 8, 1000.0, -0.50, FALSE, 1969-12-31 23:59:59.999, 1969-12-31 23:59:59.999"),
                ])
            );
            assert_eq!(
                stats,
                ReadStats {
                    rows_read: 2,
                    ..ReadStats::default()
                }
            );
        }
        Ok(())
    }

    /// A column the query does not read is not decoded: a field that
    /// would not parse as its type reads, and the column holds zeros of
    /// its type (no NULLs). Decoded again, the same field fails.
    #[test]
    fn unread_columns_are_not_decoded() -> Result<()> {
        use arrow::array::Array;
        let file = TempCsv::new(b"x,1,not a time,2.5\ny,2,,oops\nz,3,\xff,1\n")?;
        let columns = cols(&[
            ("s", SqlType::String),
            ("i", Int),
            ("t", Timestamp(3)),
            ("d", Double),
        ]);
        let open = || {
            open_file(&file.0, "t.csv".into(), |input, name| {
                CsvSource::from_reader(input, name, columns.clone(), CsvOptions::default(), 8)
            })
        };
        let mut source = open()?;
        source.leave_unread(&[false, false, true, true]);
        let b = source
            .next_batch()?
            .ok_or_else(|| Error::Internal("no batch".into()))?;
        // Line 3's unread field is not UTF-8: still bad input.
        let error = source.next_batch().err().map(|e| e.to_string());
        assert!(
            error
                .as_deref()
                .is_some_and(|e| e.contains("t.csv:3: invalid UTF-8 in field 't'")),
            "{error:?}"
        );
        let c = b.batch.columns();
        assert_eq!(c[0].as_string::<i32>().value(1), "y");
        assert_eq!(c[1].as_primitive::<Int32Type>().values().to_vec(), [1, 2]);
        let times = c[2].as_primitive::<TimestampMillisecondType>();
        assert_eq!(
            (times.null_count(), times.values().to_vec()),
            (0, vec![0, 0])
        );
        let doubles = c[3].as_primitive::<Float64Type>();
        assert_eq!(
            (doubles.null_count(), doubles.values().to_vec()),
            (0, vec![0.0, 0.0])
        );
        for (field, (_, ty)) in b.batch.schema().fields().iter().zip(&columns) {
            assert_eq!(field.data_type(), &ty.to_arrow());
        }
        let mut source = open()?;
        source.leave_unread(&[false, false, true, true]);
        source.leave_unread(&[]);
        let error = source.next_batch().err().map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.contains("t.csv:1")),
            "{error:?}"
        );
        Ok(())
    }

    #[test]
    fn arrow_types_and_values() -> Result<()> {
        let file = TempCsv::new(b"1,2,0.25,1.005,2020-01-01 00:00:00.5,x\n")?;
        let columns = cols(&[
            ("i", Int),
            ("b", BigInt),
            ("d", Double),
            ("m", Decimal(5, 2)),
            ("l", TimestampLtz(3)),
            ("s", SqlType::String),
        ]);
        let mut source = open_file(&file.0, "t.csv".into(), |input, name| {
            CsvSource::from_reader(input, name, columns.clone(), CsvOptions::default(), 8)
        })?;
        let b = source
            .next_batch()?
            .ok_or_else(|| Error::Internal("no batch".into()))?;
        for (field, (_, ty)) in b.batch.schema().fields().iter().zip(&columns) {
            assert_eq!(field.data_type(), &ty.to_arrow());
        }
        let c = b.batch.columns();
        assert_eq!(c[0].as_primitive::<Int32Type>().value(0), 1);
        assert_eq!(c[1].as_primitive::<Int64Type>().value(0), 2);
        assert_eq!(c[2].as_primitive::<Float64Type>().value(0), 0.25);
        assert_eq!(c[3].as_primitive::<Decimal128Type>().value(0), 101);
        assert_eq!(
            c[4].as_primitive::<TimestampMillisecondType>().value(0),
            1_577_836_800_500
        );
        assert_eq!(c[5].as_string::<i32>().value(0), "x");
        assert!(source.next_batch()?.is_none());
        assert!(source.next_batch()?.is_none());
        Ok(())
    }
}
