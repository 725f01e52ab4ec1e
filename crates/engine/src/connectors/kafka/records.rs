//! One partition read as a split: its records' values as lines for the
//! value's format (a raw value as a JSON line holding its text), each row
//! numbered by its record's offset, the key's columns decoded from the
//! records' keys ([`super::keys`]) and the metadata columns (`topic`,
//! `partition`, `offset`, `timestamp`, `timestamp-type`) made from the
//! records the rows came from. A value spanning lines (a quoted line
//! break) is still one record: each record is known by its first line.

use super::client::{Queue, SharedClient};
use super::keys::KeyJoin;
use super::Settings;
use crate::connectors::split::SplitReader;
use crate::formats::FormatReader;
use crate::runtime::read::{ReadBatch, ReadPosition, ReadStats};
use arrow::array::{
    ArrayRef, Int32Array, Int64Array, RecordBatch, RecordBatchOptions, StringArray,
    TimestampMillisecondArray,
};
use arrow::datatypes::{Field, Schema};
use rdkafka::consumer::{CommitMode, Consumer};
use rdkafka::error::KafkaError;
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

/// How long the run summary waits for a partition's end offset.
const REPORT_WAIT: Duration = Duration::from_secs(2);

/// How many records a partition takes between servings of the client's
/// own events, when it does not run dry first.
const SERVE_EVERY: u32 = 1024;

/// What a row keeps of the record it came from.
#[derive(Clone, Debug)]
pub(super) struct RecordMeta {
    /// The line of the format's input the record's value starts on.
    line: u64,
    offset: i64,
    /// Epoch milliseconds; -1 when the record has none, as Kafka's Java
    /// client reports it.
    timestamp: i64,
    timestamp_type: &'static str,
    /// The record's key, kept when rows take columns from it.
    key: Option<Box<[u8]>>,
}

/// What a partition's records have handed to the format: the records not
/// yet numbered, in order, and the offset the client reads next.
#[derive(Debug, Default)]
pub(super) struct Fetched {
    records: VecDeque<RecordMeta>,
    next: i64,
    /// The line the next record's value starts on.
    next_line: u64,
    /// When the client last handed a record over.
    last_record: Option<std::time::Instant>,
}

/// How long after its last record a live partition is taken to have more
/// on the way (the client is fetching), so that the run waits briefly for
/// it rather than a full step of its clock.
const FLOWING: Duration = Duration::from_millis(200);

pub(super) type Handed = Arc<Mutex<Fetched>>;

/// How a partition's records become the format's input.
#[derive(Clone, Debug, Default)]
pub(super) struct RecordShape {
    /// The value is raw: each record's text becomes a JSON line with
    /// this field, a record without a value a NULL.
    pub(super) raw_value: Option<String>,
    /// Keys are kept for the rows' key columns.
    pub(super) keys: bool,
}

/// What has been handed, whoever held the lock when a thread panicked.
fn lock(handed: &Handed) -> std::sync::MutexGuard<'_, Fetched> {
    handed.lock().unwrap_or_else(|e| e.into_inner())
}

/// One partition's records as a byte stream for the format's reader: each
/// record's value is a line. Reading reports `WouldBlock` when no record
/// is there for now; at the end offset of a bounded read it ends. What
/// each line handed out came from is queued in `handed`, so that rows and
/// errors can be named by offset and given their metadata.
pub(super) struct PartitionRecords {
    client: Arc<SharedClient>,
    topic: String,
    partition: i32,
    /// The partition's own queue, once the reading has begun.
    queue: Option<Queue>,
    /// Records taken since the client's own events were last served.
    since_served: u32,
    /// Where the read ends (bounded).
    end: Option<i64>,
    pending: Vec<u8>,
    pos: usize,
    handed: Handed,
    label: String,
    shape: RecordShape,
}

/// Where a partition's read starts: the record's offset, and the line of
/// the format's input its value is on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Start {
    pub(super) offset: i64,
    pub(super) line: u64,
}

impl PartitionRecords {
    /// Reads `partition` of `topic` through the table's `client` from
    /// `start` to offset `end`; what it hands out is told in a new
    /// `handed`.
    pub(super) fn open(
        client: &Arc<SharedClient>,
        topic: &str,
        partition: i32,
        start: Start,
        end: Option<i64>,
        shape: &RecordShape,
    ) -> Result<(Self, Handed)> {
        let Start {
            offset: start,
            line: first_line,
        } = start;
        client.start_at(topic, partition, start)?;
        let handed = Arc::new(Mutex::new(Fetched {
            records: VecDeque::new(),
            next: start,
            next_line: first_line,
            last_record: None,
        }));
        let records = PartitionRecords {
            client: Arc::clone(client),
            topic: topic.to_string(),
            partition,
            queue: None,
            since_served: 0,
            end,
            pending: Vec::new(),
            pos: 0,
            handed: Arc::clone(&handed),
            label: format!("topic {topic} partition {partition}"),
            shape: shape.clone(),
        };
        Ok((records, handed))
    }
}

impl PartitionRecords {
    /// Takes the next record the client holds into `pending`; false when
    /// it holds none for now or the read is at its end.
    fn take_record(&mut self) -> std::io::Result<bool> {
        loop {
            if self.end.is_some_and(|end| lock(&self.handed).next >= end) {
                if self.queue.take().is_some() {
                    self.client.finished(&self.topic, self.partition);
                }
                return Ok(false);
            }
            // The client's own events (statistics, errors) are served when
            // a partition has nothing for now, and now and then meanwhile.
            self.since_served += 1;
            if self.since_served >= SERVE_EVERY {
                self.since_served = 0;
                self.client.serve()?;
            }
            let queue = match &self.queue {
                Some(queue) => Arc::clone(queue),
                None => {
                    let queue = self.client.queue(&self.topic, self.partition)?;
                    self.queue = Some(Arc::clone(&queue));
                    queue
                }
            };
            let Some(message) = queue.poll(POLL) else {
                self.since_served = 0;
                self.client.serve()?;
                return Ok(false);
            };
            let message = match message {
                Ok(message) => message,
                // The client has fetched up to the partition's end: every
                // record before it has been handed over. A bounded read
                // whose end offset follows a transaction's commit marker
                // (a control record, never handed over) ends here.
                Err(KafkaError::PartitionEOF(_)) => {
                    if let Some(end) = self.end {
                        let mut handed = lock(&self.handed);
                        handed.next = handed.next.max(end);
                    }
                    return Ok(false);
                }
                Err(e) => return Err(std::io::Error::other(format!("{}: {e}", self.label))),
            };
            let mut handed = lock(&self.handed);
            handed.last_record = Some(std::time::Instant::now());
            if self.end.is_some_and(|end| message.offset() >= end) {
                handed.next = message.offset();
                continue;
            }
            handed.next = message.offset() + 1;
            let from = self.pending.len();
            match &self.shape.raw_value {
                // Java's decoding of the bytes: what is not UTF-8 becomes
                // U+FFFD; a record without a value gives a NULL.
                Some(field) => {
                    let text = message.payload().map(String::from_utf8_lossy);
                    self.pending.push(b'{');
                    serde_json::to_writer(&mut self.pending, field.as_str())
                        .and_then(|()| {
                            self.pending.push(b':');
                            serde_json::to_writer(&mut self.pending, &text)
                        })
                        .map_err(std::io::Error::other)?;
                    self.pending.extend_from_slice(b"}\n");
                }
                None => {
                    // A record without a value (a tombstone) holds no row.
                    let Some(value) = message.payload() else {
                        continue;
                    };
                    self.pending.extend_from_slice(value);
                    if value.last() != Some(&b'\n') {
                        self.pending.push(b'\n');
                    }
                }
            }
            let line = handed.next_line;
            handed.next_line += self.pending[from..].iter().filter(|b| **b == b'\n').count() as u64;
            let (timestamp, timestamp_type) = match message.timestamp() {
                Timestamp::NotAvailable => (-1, "NoTimestampType"),
                Timestamp::CreateTime(t) => (t, "CreateTime"),
                Timestamp::LogAppendTime(t) => (t, "LogAppendTime"),
            };
            let key = match self.shape.keys {
                true => message.key().map(Box::from),
                false => None,
            };
            handed.records.push_back(RecordMeta {
                line,
                offset: message.offset(),
                timestamp,
                timestamp_type,
                key,
            });
            return Ok(true);
        }
    }
}

impl Read for PartitionRecords {
    /// Hands out as many whole records as the client holds and `out`
    /// takes (a record's remainder first), so that the format makes full
    /// batches of what is there rather than a batch per record.
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        // What was handed out goes, so that `pending` never outgrows `out`
        // and a record.
        self.pending.drain(..self.pos);
        self.pos = 0;
        while self.pending.len() < out.len() {
            if !self.take_record()? {
                break;
            }
        }
        if self.pos == self.pending.len() {
            if self.end.is_some_and(|end| lock(&self.handed).next >= end) {
                return Ok(0);
            }
            return Err(ErrorKind::WouldBlock.into());
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
    /// What reads the partition again from a checkpoint's offset.
    pub(super) settings: Arc<Settings>,
    /// The client reading the table, which commits the group's offsets.
    pub(super) client: Arc<SharedClient>,
    /// Where a bounded read ends.
    pub(super) end: Option<i64>,
    /// `topic-partition`, the split's name.
    pub(super) name: String,
    pub(super) topic: String,
    pub(super) partition: i32,
    pub(super) handed: Handed,
    /// The metadata keys the table reads, in order.
    pub(super) metadata: Vec<String>,
    pub(super) live: bool,
    pub(super) shape: RecordShape,
    /// What gives the rows their key columns, when they take any.
    pub(super) keys: Option<KeyJoin>,
    /// The physical column of each column the value format decodes.
    pub(super) value_columns: Arc<[usize]>,
}

impl PartitionReader {
    /// The record whose value line `line` of the format's input is in.
    fn record_of<'q>(&self, fetched: &'q Fetched, line: u64) -> Option<&'q RecordMeta> {
        if line >= fetched.next_line {
            return None;
        }
        let at = fetched.records.partition_point(|r| r.line <= line);
        fetched.records.get(at.checked_sub(1)?)
    }

    fn offset_of(&self, fetched: &Fetched, line: u64) -> u64 {
        self.record_of(fetched, line)
            .map_or(line, |r| r.offset as u64)
    }

    /// The metadata columns of rows whose records are `records`.
    fn metadata_columns(&self, records: &[&RecordMeta]) -> Result<Vec<(String, ArrayRef)>> {
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
    fn with_metadata(&self, batch: &RecordBatch, records: &[&RecordMeta]) -> Result<RecordBatch> {
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
        let offset = self.offset_of(&lock(&self.handed), line);
        let rest = crate::formats::excerpt::renumber(&rest[digits..], line, offset);
        format!(
            "topic {}, partition {}, offset {offset}{rest}",
            self.topic, self.partition
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
        let handed = Arc::clone(&self.handed);
        let mut queue = lock(&handed);
        let last = batch
            .lines
            .iter()
            .chain(batch.skipped.iter().map(|b| &b.line))
            .copied()
            .max();
        if !self.metadata.is_empty() || self.keys.is_some() {
            let records: Vec<&RecordMeta> = batch
                .lines
                .iter()
                .map(|line| {
                    self.record_of(&queue, *line).ok_or_else(|| {
                        Error::Internal(format!("{}: no record for line {line}", self.name))
                    })
                })
                .collect::<Result<_>>()?;
            if let Some(keys) = &self.keys {
                let of_rows: Vec<Option<&[u8]>> =
                    records.iter().map(|r| r.key.as_deref()).collect();
                let offsets: Vec<i64> = records.iter().map(|r| r.offset).collect();
                let partition = format!("topic {}, partition {}", self.topic, self.partition);
                batch.batch = keys.join(&batch.batch, &of_rows, &partition, &offsets)?;
            }
            if !self.metadata.is_empty() {
                batch.batch = self.with_metadata(&batch.batch, &records)?;
            }
        }
        for line in &mut batch.lines {
            *line = self.offset_of(&queue, *line);
        }
        for bad in &mut batch.skipped {
            bad.line = self.offset_of(&queue, bad.line);
        }
        // The records before the last row's are done with; its own stays,
        // in case its value holds more rows.
        if let Some(last) = last {
            let done = queue
                .records
                .partition_point(|r| r.line <= last)
                .saturating_sub(1);
            queue.records.drain(..done);
        }
        Ok(Some(batch))
    }

    fn may_pause(&self) -> bool {
        self.live
    }

    /// A bounded read short of its end has records to fetch; a live one
    /// is taken to while records keep coming.
    fn rows_on_the_way(&self) -> bool {
        let fetched = lock(&self.handed);
        match self.end {
            Some(end) => fetched.next < end,
            None => fetched.last_record.is_some_and(|t| t.elapsed() < FLOWING),
        }
    }

    fn stats(&self) -> ReadStats {
        self.decoder.stats()
    }

    /// The records still to fetch: to the end a bounded read was given,
    /// or to the end the client last heard of for a live one.
    fn lag(&self) -> Option<u64> {
        let end = self
            .end
            .or_else(|| self.client.end_of(&self.topic, self.partition))?;
        Some((end - lock(&self.handed).next).max(0) as u64)
    }

    /// The offset of the next record to make rows of, the partition's end
    /// offset now and the lag between them (what a consumer group's lag
    /// shows); a bounded read's end too.
    fn report(&self) -> Option<String> {
        let next = match self.position() {
            Some(at) => i64::try_from(at.offset).ok()?,
            None => lock(&self.handed).next,
        };
        // Once the brokers have not answered for one partition, the
        // others do not wait for them too.
        let silent = &self.settings.silent_brokers;
        let asked = match silent.load(std::sync::atomic::Ordering::Relaxed) {
            true => Err(KafkaError::NoMessageReceived),
            false => {
                self.client
                    .consumer
                    .fetch_watermarks(&self.topic, self.partition, REPORT_WAIT)
            }
        };
        if asked.is_err() {
            silent.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Some(match asked {
            Ok((_, high)) => {
                let bounded = match self.end {
                    Some(end) if end != high => format!(" (the read ends at {end})"),
                    _ => String::new(),
                };
                format!(
                    "next offset {next}, end offset {high}, lag {}{bounded}",
                    (high - next).max(0)
                )
            }
            Err(_) => format!("next offset {next}, lag unknown (no answer from the brokers)"),
        })
    }

    fn keep_raw(&mut self) {
        self.decoder.keep_raw();
    }

    fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
        self.decoder.set_time_zone(tz);
        if let Some(keys) = &mut self.keys {
            keys.set_time_zone(tz);
        }
    }

    /// Value columns only: a key is decoded whole, as it joins rows to
    /// their keys.
    fn leave_unread(&mut self, unread: &[bool]) {
        if self.shape.raw_value.is_some() {
            return;
        }
        let in_value: Vec<bool> = self
            .value_columns
            .iter()
            .map(|c| unread.get(*c).copied().unwrap_or(false))
            .collect();
        self.decoder.leave_unread(&in_value);
    }

    fn unpositioned(&self) -> Option<&'static str> {
        None
    }

    fn track_position(&mut self) {
        self.decoder.hash_prefix();
    }

    fn between_batches(&self) -> bool {
        self.decoder.between_batches()
    }

    /// The offset of the next record to make rows of: the first record
    /// the format holds unread, or the one the client reads next; the
    /// counts so far; and the end of a bounded read.
    fn position(&self) -> Option<ReadPosition> {
        let at = self.decoder.position()?;
        let fetched = lock(&self.handed);
        let next = self
            .record_of(&fetched, at.line)
            .map_or(fetched.next, |r| r.offset);
        Some(ReadPosition {
            offset: u64::try_from(next).ok()?,
            line: at.line,
            stats: at.stats,
            prefix_crc: 0,
            end: self.end.and_then(|e| u64::try_from(e).ok()),
        })
    }

    /// Commits the offset of the checkpoint to the table's consumer
    /// group, as Flink does, for those who watch the group's lag; a
    /// resumed run reads its offsets from the checkpoint, not the group.
    fn checkpoint_taken(&mut self) -> Result<()> {
        let Some(group) = self.settings.commit_group() else {
            return Ok(());
        };
        let Some(at) = self.position() else {
            return Ok(());
        };
        let mut offsets = TopicPartitionList::new();
        let commit = offsets
            .add_partition_offset(
                &self.topic,
                self.partition,
                Offset::Offset(at.offset as i64),
            )
            .and_then(|()| self.client.consumer.commit(&offsets, CommitMode::Sync));
        commit.map_err(|e| {
            self.settings.error(&format!(
                "cannot commit offset {} of partition {} of topic {} to group {group}: {e} \
                 (set 'properties.commit.offsets.on.checkpoint' = 'false' not to commit)",
                at.offset, self.partition, self.topic
            ))
        })
    }

    /// Reads on from the checkpoint's offset to its end, which must both
    /// still be in the partition.
    fn resume(&mut self, at: &ReadPosition) -> Result<()> {
        let offset = i64::try_from(at.offset)
            .map_err(|_| Error::Input(format!("{}: a damaged checkpoint offset", self.name)))?;
        let end = at.end.and_then(|e| i64::try_from(e).ok());
        let (low, high) = self.settings.offsets_of(&self.topic, self.partition)?;
        if offset < low || offset > high {
            return Err(self.settings.error(&format!(
                "the checkpoint goes on in partition {} of topic {} at offset {offset}, but the partition now holds offsets {low} to {high}: {}",
                self.partition,
                self.topic,
                if offset < low {
                    "the records after the checkpoint were deleted"
                } else {
                    "it is not the topic the checkpoint read"
                }
            )));
        }
        let start = Start {
            offset,
            line: at.line.max(1),
        };
        let (records, handed) = PartitionRecords::open(
            &self.client,
            &self.topic,
            self.partition,
            start,
            end,
            &self.shape,
        )?;
        self.end = end;
        self.handed = handed;
        self.decoder.resume(
            Box::new(records),
            &ReadPosition {
                offset: 0,
                end: None,
                prefix_crc: 0,
                ..at.clone()
            },
        );
        Ok(())
    }
}
