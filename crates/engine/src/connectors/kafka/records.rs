//! One partition read as a split: its records as lines for the table's
//! format, each row numbered by its record's offset, and the metadata
//! columns (`topic`, `partition`, `offset`, `timestamp`, `timestamp-type`)
//! made from the records the rows came from.

use super::Settings;
use crate::connectors::split::SplitReader;
use crate::formats::FormatReader;
use crate::runtime::read::{ReadBatch, ReadStats};
use arrow::array::{
    ArrayRef, Int32Array, Int64Array, RecordBatch, RecordBatchOptions, StringArray,
    TimestampMillisecondArray,
};
use arrow::datatypes::{Field, Schema};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Timestamp;
use rdkafka::{Message, Offset, TopicPartitionList};
use std::collections::VecDeque;
use std::io::{ErrorKind, Read};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tidemark_common::{Error, Result};

/// How long one poll of a partition waits for a record before reporting
/// "nothing for now": not at all. The client fetches in the background;
/// when every input has nothing the run waits on its clock, so a reader
/// that waited too would make each step wait once per partition.
const POLL: Duration = Duration::ZERO;

/// What a row keeps of the record it came from.
#[derive(Clone, Copy, Debug)]
pub(super) struct RecordMeta {
    offset: i64,
    /// Epoch milliseconds; -1 when the record has none, as Kafka's Java
    /// client reports it.
    timestamp: i64,
    timestamp_type: &'static str,
}

/// The records handed to the format and not yet numbered, in order.
pub(super) type Handed = Arc<Mutex<VecDeque<RecordMeta>>>;

/// One partition's records as a byte stream for the format's reader: each
/// record's value is a line. Reading reports `WouldBlock` when no record
/// is there for now; at the end offset of a bounded read it ends. What
/// each line handed out came from is queued in `handed`, so that rows and
/// errors can be named by offset and given their metadata.
pub(super) struct PartitionRecords {
    consumer: BaseConsumer,
    /// The next offset to read, and where the read ends (bounded).
    next: i64,
    end: Option<i64>,
    pending: Vec<u8>,
    pos: usize,
    handed: Handed,
    label: String,
}

impl PartitionRecords {
    pub(super) fn open(
        settings: &Settings,
        topic: &str,
        partition: i32,
        start: i64,
        end: Option<i64>,
        handed: &Handed,
    ) -> Result<Self> {
        let consumer = settings.consumer()?;
        let mut assignment = TopicPartitionList::new();
        assignment
            .add_partition_offset(topic, partition, Offset::Offset(start))
            .map_err(|e| settings.error(&e.to_string()))?;
        consumer.assign(&assignment).map_err(|e| {
            settings.error(&format!(
                "cannot read partition {partition} of topic {topic}: {e}"
            ))
        })?;
        Ok(PartitionRecords {
            consumer,
            next: start,
            end,
            pending: Vec::new(),
            pos: 0,
            handed: Arc::clone(handed),
            label: format!("topic {topic} partition {partition}"),
        })
    }
}

impl Read for PartitionRecords {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.pos == self.pending.len() {
            if self.end.is_some_and(|end| self.next >= end) {
                return Ok(0);
            }
            let Some(message) = self.consumer.poll(POLL) else {
                return Err(ErrorKind::WouldBlock.into());
            };
            let message =
                message.map_err(|e| std::io::Error::other(format!("{}: {e}", self.label)))?;
            if self.end.is_some_and(|end| message.offset() >= end) {
                self.next = message.offset();
                continue;
            }
            self.next = message.offset() + 1;
            // A record without a value (a tombstone) holds no row.
            let Some(value) = message.payload() else {
                continue;
            };
            self.pending.clear();
            self.pos = 0;
            self.pending.extend_from_slice(value);
            if value.last() != Some(&b'\n') {
                self.pending.push(b'\n');
            }
            let (timestamp, timestamp_type) = match message.timestamp() {
                Timestamp::NotAvailable => (-1, "NoTimestampType"),
                Timestamp::CreateTime(t) => (t, "CreateTime"),
                Timestamp::LogAppendTime(t) => (t, "LogAppendTime"),
            };
            self.handed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_back(RecordMeta {
                    offset: message.offset(),
                    timestamp,
                    timestamp_type,
                });
        }
        let n = out.len().min(self.pending.len() - self.pos);
        out[..n].copy_from_slice(&self.pending[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A partition decoded by the table's format; rows are numbered by their
/// offsets rather than their lines, and the table's metadata columns
/// follow the decoded ones.
pub(super) struct PartitionReader {
    pub(super) decoder: Box<dyn FormatReader>,
    /// `topic-partition`, the split's name.
    pub(super) name: String,
    pub(super) topic: String,
    pub(super) partition: i32,
    pub(super) handed: Handed,
    /// The metadata keys the table reads, in order.
    pub(super) metadata: Vec<String>,
    pub(super) live: bool,
    /// Lines numbered so far.
    pub(super) read: u64,
}

impl PartitionReader {
    /// The record of line `line` (1-based, counting every record read).
    fn record_of<'q>(&self, queue: &'q VecDeque<RecordMeta>, line: u64) -> Option<&'q RecordMeta> {
        queue.get(line.saturating_sub(self.read + 1) as usize)
    }

    fn offset_of(&self, queue: &VecDeque<RecordMeta>, line: u64) -> u64 {
        self.record_of(queue, line)
            .map_or(line, |r| r.offset as u64)
    }

    /// The metadata columns of rows whose records are `records`.
    fn metadata_columns(&self, records: &[RecordMeta]) -> Result<Vec<(String, ArrayRef)>> {
        let n = records.len();
        self.metadata
            .iter()
            .map(|key| {
                let column: ArrayRef = match key.as_str() {
                    "topic" => Arc::new(StringArray::from(vec![self.topic.as_str(); n])),
                    "partition" => Arc::new(Int32Array::from(vec![self.partition; n])),
                    "offset" => Arc::new(Int64Array::from_iter_values(
                        records.iter().map(|r| r.offset),
                    )),
                    "timestamp" => Arc::new(
                        TimestampMillisecondArray::from_iter_values(
                            records.iter().map(|r| r.timestamp),
                        )
                        .with_timezone(tidemark_common::LTZ_ARROW_TZ),
                    ),
                    "timestamp-type" => Arc::new(StringArray::from_iter_values(
                        records.iter().map(|r| r.timestamp_type),
                    )),
                    other => {
                        return Err(Error::Internal(format!(
                            "the kafka connector has no metadata '{other}'"
                        )))
                    }
                };
                Ok((key.clone(), column))
            })
            .collect()
    }

    /// `batch` with the metadata columns of rows whose records are
    /// `records` after its own.
    fn with_metadata(&self, batch: &RecordBatch, records: &[RecordMeta]) -> Result<RecordBatch> {
        let mut fields: Vec<Field> = batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        let mut columns = batch.columns().to_vec();
        for (key, column) in self.metadata_columns(records)? {
            fields.push(Field::new(key, column.data_type().clone(), false));
            columns.push(column);
        }
        Ok(RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )?)
    }

    /// An error about line L of the partition, about its offset instead.
    fn rename(&self, message: &str) -> String {
        let prefix = format!("{}:", self.name);
        let Some(rest) = message.strip_prefix(&prefix) else {
            return message.to_string();
        };
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let Ok(line) = rest[..digits].parse::<u64>() else {
            return message.to_string();
        };
        let queue = self.handed.lock().unwrap_or_else(|e| e.into_inner());
        let offset = self.offset_of(&queue, line);
        format!(
            "topic {}, partition {}, offset {offset}{}",
            self.topic,
            self.partition,
            &rest[digits..]
        )
    }
}

impl SplitReader for PartitionReader {
    fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        let batch = self.decoder.next_batch().map_err(|e| match e {
            // "name:line: ..." names the record by its offset instead.
            Error::Input(m) => Error::Input(self.rename(&m)),
            other => other,
        })?;
        let Some(mut batch) = batch else {
            return Ok(None);
        };
        let mut queue = self.handed.lock().unwrap_or_else(|e| e.into_inner());
        let last = batch
            .lines
            .iter()
            .chain(batch.skipped.iter().map(|b| &b.line))
            .copied()
            .max();
        if !self.metadata.is_empty() {
            let records: Vec<RecordMeta> = batch
                .lines
                .iter()
                .map(|line| {
                    self.record_of(&queue, *line).copied().ok_or_else(|| {
                        Error::Internal(format!("{}: no record for line {line}", self.name))
                    })
                })
                .collect::<Result<_>>()?;
            batch.batch = self.with_metadata(&batch.batch, &records)?;
        }
        for line in &mut batch.lines {
            *line = self.offset_of(&queue, *line);
        }
        for bad in &mut batch.skipped {
            bad.line = self.offset_of(&queue, bad.line);
        }
        if let Some(last) = last {
            let done = (last.saturating_sub(self.read) as usize).min(queue.len());
            queue.drain(..done);
            self.read = last;
        }
        Ok(Some(batch))
    }

    fn may_pause(&self) -> bool {
        self.live
    }

    fn stats(&self) -> ReadStats {
        self.decoder.stats()
    }

    fn keep_raw(&mut self) {
        self.decoder.keep_raw();
    }

    fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
        self.decoder.set_time_zone(tz);
    }

    fn unpositioned(&self) -> Option<&'static str> {
        Some("a Kafka topic (checkpoints of Kafka offsets come with the live read)")
    }
}
