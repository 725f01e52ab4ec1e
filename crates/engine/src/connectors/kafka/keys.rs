//! The key's columns of a batch read with `'value.fields-include' =
//! 'EXCEPT_KEY'`: each row's record key decoded by the key's format, and
//! the batch's columns put back in the table's order, the key's among the
//! value's. A record without a key gives NULL key columns; a key that does
//! not parse stops the job, naming the record.

use super::layout::{Part, RecordLayout};
use crate::formats::{open_decoder, Ending};
use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions, StringArray, UInt32Array};
use arrow::compute::{concat_batches, take};
use arrow::datatypes::{Field, Schema};
use std::sync::Arc;
use tidemark_common::{Error, Result, SqlType};

/// Where a physical column of the table comes from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// The value's decoded batch, at this position.
    Value(usize),
    /// The key's columns, at this position.
    Key(usize),
}

/// How a partition's batches get their key columns.
#[derive(Clone, Debug)]
pub(super) struct KeyJoin {
    key: Part,
    /// The key's columns, named as its format names them.
    key_columns: Vec<(String, SqlType)>,
    /// Each physical column: its name in the table and where it comes from.
    columns: Vec<(String, Source)>,
    tz: chrono_tz::Tz,
}

impl KeyJoin {
    /// For `layout`, over the table's physical columns `physical`; None
    /// when the rows take nothing from the key.
    pub(super) fn of(layout: &RecordLayout, physical: &[(String, SqlType)]) -> Option<Self> {
        if !layout.reads_key() {
            return None;
        }
        let key = layout.key.clone()?;
        let columns = physical
            .iter()
            .enumerate()
            .map(|(at, (name, _))| {
                let source = match key.columns.iter().position(|c| *c == at) {
                    Some(k) => Source::Key(k),
                    None => Source::Value(layout.value.columns.iter().position(|c| *c == at)?),
                };
                Some((name.clone(), source))
            })
            .collect::<Option<Vec<_>>>()?;
        let key_columns = key
            .columns
            .iter()
            .zip(&key.names)
            .map(|(c, name)| (name.clone(), physical[*c].1.clone()))
            .collect();
        Some(KeyJoin {
            key,
            key_columns,
            columns,
            tz: chrono_tz::UTC,
        })
    }

    pub(super) fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
        self.tz = tz;
    }

    /// `values` (the value's columns of the rows) with the columns decoded
    /// from `keys` (each row's record key) put in their places; errors
    /// name a row's record as `partition` (its topic and partition) and
    /// its offset among `offsets`.
    pub(super) fn join(
        &self,
        values: &RecordBatch,
        keys: &[Option<&[u8]>],
        partition: &str,
        offsets: &[i64],
    ) -> Result<RecordBatch> {
        let key_columns = self.decode(keys, partition, offsets)?;
        let mut fields = Vec::with_capacity(self.columns.len());
        let mut arrays = Vec::with_capacity(self.columns.len());
        for (name, source) in &self.columns {
            let array = match source {
                Source::Value(v) => Arc::clone(values.column(*v)),
                Source::Key(k) => Arc::clone(&key_columns[*k]),
            };
            fields.push(Field::new(name, array.data_type().clone(), true));
            arrays.push(array);
        }
        Ok(RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(values.num_rows())),
        )?)
    }

    /// The key's columns of rows whose keys are `keys`.
    fn decode(
        &self,
        keys: &[Option<&[u8]>],
        partition: &str,
        offsets: &[i64],
    ) -> Result<Vec<ArrayRef>> {
        let record_of = |row: usize| format!("{partition}, offset {}", offsets[row]);
        if self.key.is_raw() {
            let text = StringArray::from_iter(
                keys.iter()
                    .map(|k| k.map(|bytes| String::from_utf8_lossy(bytes))),
            );
            return Ok(vec![Arc::new(text)]);
        }
        // The keys that hold something, one after another, and the line
        // each starts on; an empty key is taken as none.
        let mut text = Vec::new();
        let mut starts: Vec<(u64, usize)> = Vec::new();
        let mut line = 1u64;
        for (row, key) in keys.iter().enumerate() {
            let Some(key) = key.filter(|k| !k.is_empty()) else {
                continue;
            };
            starts.push((line, row));
            text.extend_from_slice(key);
            if key.last() != Some(&b'\n') {
                text.push(b'\n');
            }
            line += key.iter().filter(|b| **b == b'\n').count() as u64
                + u64::from(key.last() != Some(&b'\n'));
        }
        let row_of_line = |line: u64| {
            let at = starts.partition_point(|(start, _)| *start <= line);
            starts[at.saturating_sub(1)].1
        };
        let mut decoder = open_decoder(
            &self.key.options,
            Box::new(std::io::Cursor::new(text)),
            "key".into(),
            self.key_columns.clone(),
            starts.len().max(1),
            Ending::Final,
        )?
        .reader;
        decoder.set_time_zone(self.tz);
        let mut batches = Vec::new();
        let mut taken: Vec<Option<u32>> = vec![None; keys.len()];
        let mut decoded = 0u32;
        loop {
            let batch = match decoder.next_batch() {
                Ok(Some(batch)) => batch,
                Ok(None) => break,
                Err(Error::Input(message)) => {
                    return Err(Error::Input(rename(
                        &message,
                        |line| record_of(row_of_line(line)),
                        |line| offsets[row_of_line(line)] as u64,
                    )))
                }
                Err(other) => return Err(other),
            };
            if let Some(bad) = batch.skipped.first() {
                return Err(Error::Internal(format!(
                    "{}: a key was skipped",
                    record_of(row_of_line(bad.line))
                )));
            }
            for line in &batch.lines {
                let row = row_of_line(*line);
                if taken[row].replace(decoded).is_some() {
                    return Err(Error::Input(format!(
                        "{}: its key holds more than one row of the key's format",
                        record_of(row)
                    )));
                }
                decoded += 1;
            }
            batches.push(batch.batch);
        }
        let indices = UInt32Array::from(taken);
        let schema = Arc::new(Schema::new(
            self.key_columns
                .iter()
                .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
                .collect::<Vec<_>>(),
        ));
        let all = match batches.first() {
            Some(first) => concat_batches(&first.schema(), &batches)?,
            None => RecordBatch::new_empty(schema),
        };
        all.columns()
            .iter()
            .map(|column| Ok(take(column.as_ref(), &indices, None)?))
            .collect()
    }
}

/// `key:L: message` about the record whose key line L is in, named by
/// `record_of(L)` (and its offset, `offset_of(L)`, in the excerpt).
fn rename(
    message: &str,
    record_of: impl Fn(u64) -> String,
    offset_of: impl Fn(u64) -> u64,
) -> String {
    let Some(rest) = message.strip_prefix("key:") else {
        return message.to_string();
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    match rest[..digits].parse::<u64>() {
        Ok(line) => {
            let rest = crate::formats::excerpt::renumber(&rest[digits..], line, offset_of(line));
            format!("{}, in its key{rest}", record_of(line))
        }
        Err(_) => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, Int32Array};
    use std::collections::BTreeMap;

    fn join(key_format: &str, keys: &[Option<&[u8]>]) -> Result<RecordBatch> {
        let options: BTreeMap<String, String> = [
            ("format", "csv"),
            ("key.format", key_format),
            (
                "key.fields",
                if key_format == "raw" {
                    "k_name"
                } else {
                    "k_id;k_name"
                },
            ),
            ("key.fields-prefix", "k_"),
            ("value.fields-include", "EXCEPT_KEY"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let mut physical = vec![
            ("n".to_string(), SqlType::BigInt),
            ("k_id".to_string(), SqlType::Int),
            ("k_name".to_string(), SqlType::String),
        ];
        if key_format == "raw" {
            physical.remove(1);
        }
        let layout = RecordLayout::of(&options, &[], &physical, false).map_err(Error::Input)?;
        let join = KeyJoin::of(&layout, &physical).expect("the key is read");
        let n = arrow::array::Int64Array::from_iter_values(0..keys.len() as i64);
        let values = RecordBatch::try_from_iter([("n", Arc::new(n) as ArrayRef)])?;
        let offsets: Vec<i64> = (0..keys.len() as i64).map(|row| 10 + row).collect();
        join.join(&values, keys, "p", &offsets)
    }

    #[test]
    fn keys_fill_their_columns_and_a_missing_key_gives_nulls() -> Result<()> {
        let keys: [Option<&[u8]>; 4] = [
            Some(br#"{"id": 7, "name": "a"}"#),
            None,
            Some(b""),
            Some(br#"{"name": "c", "id": 9}"#),
        ];
        let batch = join("json", &keys)?;
        let schema = batch.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["n", "k_id", "k_name"]);
        let ids = batch
            .column(1)
            .as_any()
            .downcast_ref::<Int32Array>()
            .unwrap();
        assert_eq!(
            ids.iter().collect::<Vec<_>>(),
            [Some(7), None, None, Some(9)]
        );
        let csv = join("csv", &[Some(b"3,x"), Some(b"4,\"y\nz\"")])?;
        let names = csv
            .column(2)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        assert_eq!(names.iter().collect::<Vec<_>>(), [Some("x"), Some("y\nz")]);
        let raw = join("raw", &[Some(b"a,b\n"), None, Some(b"\xffz")])?;
        let text = raw
            .column(1)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        assert_eq!(
            text.iter().collect::<Vec<_>>(),
            [Some("a,b\n"), None, Some("\u{fffd}z")]
        );
        assert_eq!(raw.column(0).len(), 3);
        Ok(())
    }

    #[test]
    fn a_bad_key_names_its_record() {
        let err = join("csv", &[Some(b"1,a"), Some(b"x,b")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("p, offset 11, in its key: field 'id'"),
            "{err}"
        );
        assert!(err.contains("\n11 | x,b"), "{err}");
        let err = join("csv", &[Some(b"1,a\n2,b")]).unwrap_err().to_string();
        assert!(
            err.contains("p, offset 10: its key holds more than one row"),
            "{err}"
        );
    }
}
