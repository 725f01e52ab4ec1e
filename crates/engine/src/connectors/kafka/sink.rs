//! Writing a table to a Kafka topic: the `kafka` connector appends a
//! record per row, the `upsert-kafka` connector keeps a record per key
//! (`+I`/`+U` are the key's new value, `-D` a tombstone, `-U` left out).
//!
//! A record's value is the row's physical columns in the table's format
//! (without the key's with `'value.fields-include' = 'EXCEPT_KEY'`), its
//! key the `key.fields` (the PRIMARY KEY for upsert-kafka) in `key.format`,
//! its timestamp a persisted `METADATA FROM 'timestamp'` column if the
//! table has one. Partitions are chosen as Flink's sink chooses them:
//! `'default'` places a keyed record by the murmur2 hash of its key, as the
//! Java client does (the client's `murmur2_random` partitioner), and an
//! unkeyed one round-robin, so that the same rows always land in the same
//! partitions (the Java client's sticky choice depends on timing);
//! `'fixed'` writes everything to partition 0 (tidemark's sink is one
//! writer, Flink's subtask 0); `'round-robin'` cycles through them.
//!
//! Delivery: `'at-least-once'` (Flink's default) waits at every
//! checkpoint, and at the end, until the brokers have acknowledged every
//! record sent; a failed delivery stops the job with the broker's reason.
//! A resumed run sends again what followed its checkpoint, so an appended
//! topic may hold those records twice, and an upserted one the same
//! latest value per key. `'none'` waits only at the end.
//! `'exactly-once'` writes each epoch (the output between two checkpoints)
//! in one transaction with a marker ([`super::epochs`]); readers that read
//! committed records see each row once.

use super::epochs::{self, Transactions};
use super::layout::RecordLayout;
use super::security::client_properties;
use super::BROKER_WAIT;
use crate::connectors::sink::{Epoch, PrintLines, SinkWriter};
use crate::formats::encode::{LineEncoder, LineFormat};
use crate::runtime::snapshot::StateWriter;
use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::TimestampMillisecondType;
use rdkafka::config::ClientConfig;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::DeliveryResult;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer, ProducerContext};
use rdkafka::{ClientContext, Message};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;
use tidemark_common::catalog::{ColumnKind, TableDef};
use tidemark_common::{Error, Result, RowKind, SqlType};

/// How long a flush may wait for the brokers' acknowledgements.
const FLUSH_WAIT: Duration = Duration::from_secs(60);

/// Which partition a record goes to (`sink.partitioner`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Partitioner {
    Default,
    Fixed,
    RoundRobin,
}

/// `sink.delivery-guarantee`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Guarantee {
    AtLeastOnce,
    ExactlyOnce(Transactions),
    None,
}

/// What a kafka or upsert-kafka table writes, read from its options.
pub(super) struct SinkSettings {
    pub(super) topic: String,
    pub(super) servers: String,
    pub(super) client: BTreeMap<String, String>,
    /// Written columns (positions in the rows a sink takes) of the key,
    /// and the key's format; none for an unkeyed kafka table.
    pub(super) key: Option<(Vec<usize>, LineFormat)>,
    /// The key's column names, as declared.
    pub(super) key_fields: Vec<String>,
    pub(super) value: (Vec<usize>, LineFormat),
    /// The column written as the record's timestamp.
    pub(super) timestamp: Option<usize>,
    pub(super) partitioner: Partitioner,
    pub(super) guarantee: Guarantee,
    /// upsert-kafka: rows are a changelog per key.
    pub(super) upsert: bool,
}

impl SinkSettings {
    /// The settings of `table`; `upsert` for an upsert-kafka table.
    pub(super) fn of(table: &TableDef, upsert: bool) -> Result<Self> {
        let error = |what: String| Error::Input(format!("table {}: {what}", table.name));
        let topic = table.option("topic").unwrap_or_default().trim().to_string();
        if topic.is_empty() || topic.contains(';') {
            return Err(error(format!(
                "a table that is written names one topic in 'topic', not '{topic}'"
            )));
        }
        let written = table.written_columns();
        let physical: Vec<usize> = (0..written.len())
            .filter(|at| table.kinds[written[*at]] == ColumnKind::Physical)
            .collect();
        let physical_columns: Vec<(String, SqlType)> = physical
            .iter()
            .map(|at| {
                let field = &table.schema.fields[written[*at]];
                (field.name.clone(), field.ty.clone())
            })
            .collect();
        let layout = RecordLayout::of_table(table, &physical_columns, upsert).map_err(error)?;
        // The layout's columns are physical ones; the rows hold every
        // written column.
        let in_rows =
            |columns: &[usize]| -> Vec<usize> { columns.iter().map(|c| physical[*c]).collect() };
        let key = layout.key.as_ref().map(|part| {
            (
                in_rows(&part.columns),
                LineFormat::of(&part.options, part.names.clone()),
            )
        });
        let key = key
            .map(|(columns, format)| format.map(|f| (columns, f)))
            .transpose()?;
        let value_columns = in_rows(&layout.value.columns);
        let value = LineFormat::of(&layout.value.options, layout.value.names.clone())?;
        let key_fields: Vec<String> = layout
            .key
            .as_ref()
            .map(|part| {
                part.columns
                    .iter()
                    .map(|c| physical_columns[*c].0.clone())
                    .collect()
            })
            .unwrap_or_default();
        let timestamp = written.iter().position(
            |i| matches!(&table.kinds[*i], ColumnKind::Metadata { key, .. } if key == "timestamp"),
        );
        let partitioner = match table.option("sink.partitioner").unwrap_or("default") {
            "default" => Partitioner::Default,
            "fixed" => Partitioner::Fixed,
            "round-robin" => Partitioner::RoundRobin,
            other => {
                return Err(error(format!(
                    "'sink.partitioner' = '{other}': tidemark places records by 'default', 'fixed' or 'round-robin' and cannot load a Java partitioner class"
                )))
            }
        };
        if partitioner == Partitioner::RoundRobin && key.is_some() {
            return Err(error(
                "'sink.partitioner' = 'round-robin' places records without a key: drop 'key.fields' or use 'default'".into(),
            ));
        }
        // The consumer's properties (and Flink's own) are not the
        // producer's.
        let mut client = client_properties(table)?;
        for consumer_only in [
            "group.id",
            "auto.offset.reset",
            "commit.offsets.on.checkpoint",
            "isolation.level",
        ] {
            client.remove(consumer_only);
        }
        if client.contains_key("transactional.id") {
            return Err(error(
                "'properties.transactional.id' is set by tidemark from 'sink.transactional-id-prefix' (with 'sink.delivery-guarantee' = 'exactly-once')".into(),
            ));
        }
        let guarantee = match table
            .option("sink.delivery-guarantee")
            .unwrap_or("at-least-once")
        {
            "none" => Guarantee::None,
            "exactly-once" => {
                let prefix = table
                    .option("sink.transactional-id-prefix")
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .ok_or_else(|| {
                        error("'exactly-once' delivery needs 'sink.transactional-id-prefix'".into())
                    })?;
                let epoch_topic = table.option("sink.epoch-topic").map(str::trim);
                Guarantee::ExactlyOnce(Transactions::of(prefix, epoch_topic, &client)?)
            }
            _ => Guarantee::AtLeastOnce,
        };
        Ok(SinkSettings {
            topic,
            servers: table
                .option("properties.bootstrap.servers")
                .unwrap_or_default()
                .to_string(),
            client,
            key_fields,
            key,
            value: (value_columns, value),
            timestamp,
            partitioner,
            guarantee,
            upsert,
        })
    }

    /// A client configuration with the table's properties and brokers.
    fn config(&self) -> ClientConfig {
        let mut config = ClientConfig::new();
        for (key, value) in &self.client {
            config.set(key, value);
        }
        config.set("bootstrap.servers", &self.servers);
        config
    }

    /// What EXPLAIN says of the writes.
    pub(super) fn explain(&self) -> String {
        let format = |f: &LineFormat| f.extension();
        let key = match &self.key {
            None => "no key".to_string(),
            Some((_, f)) => format!("key ({}) as {}", self.key_fields.join(", "), format(f)),
        };
        let placed = match (self.partitioner, self.key.is_some()) {
            (Partitioner::Default, true) => "placed by the key's murmur2 hash (Kafka's default)",
            (Partitioner::Default, false) => "placed round-robin",
            (Partitioner::Fixed, _) => "all in partition 0",
            (Partitioner::RoundRobin, _) => "placed round-robin",
        };
        let guarantee = match &self.guarantee {
            Guarantee::AtLeastOnce => "at-least-once (acknowledged at each checkpoint)".to_string(),
            Guarantee::ExactlyOnce(t) => format!(
                "exactly-once (a transaction per checkpoint as {}, its marker in topic {}, a checkpoint at least every {} s)",
                t.id,
                t.epoch_topic,
                t.checkpoint_within().as_secs()
            ),
            Guarantee::None => "no delivery guarantee (acknowledged at the end)".to_string(),
        };
        let kind = if self.upsert {
            "upserts (a key's latest row, tombstones for deletions)"
        } else {
            "appends"
        };
        format!(
            "{kind} to topic {} on {}: {key}, value as {}, {placed}, {guarantee}",
            self.topic,
            self.servers,
            format(&self.value.1)
        )
    }
}

/// What the client's callback keeps of the deliveries: the first the
/// brokers refused, and the offsets the current epoch wrote in each
/// partition of the topic (for its marker).
#[derive(Default)]
struct Deliveries {
    topic: String,
    failed: Mutex<Option<String>>,
    written: Mutex<BTreeMap<i32, (i64, i64)>>,
}

impl ClientContext for Deliveries {}

impl ProducerContext for Deliveries {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        if let Ok(message) = result {
            if message.topic() == self.topic {
                if let Ok(mut written) = self.written.lock() {
                    let offset = message.offset();
                    let range = written
                        .entry(message.partition())
                        .or_insert((offset, offset));
                    range.0 = range.0.min(offset);
                    range.1 = range.1.max(offset);
                }
            }
        }
        if let Err((error, message)) = result {
            if let Ok(mut failed) = self.failed.lock() {
                failed.get_or_insert_with(|| {
                    format!(
                        "a record for partition {} was not delivered: {error}",
                        message.partition()
                    )
                });
            }
        }
    }
}

/// An open kafka or upsert-kafka table.
pub(super) struct KafkaSink {
    table: String,
    settings: SinkSettings,
    producer: BaseProducer<Deliveries>,
    partitions: i32,
    key: Option<LineEncoder>,
    value: LineEncoder,
    /// The next partition of round-robin placement.
    next_partition: i64,
    key_text: String,
    value_text: String,
    records: u64,
    tombstones: u64,
}

impl KafkaSink {
    pub(super) fn open(table: &TableDef, upsert: bool) -> Result<Self> {
        let settings = SinkSettings::of(table, upsert)?;
        let error = |what: String| Error::Input(format!("table {}: {what}", table.name));
        if !upsert && !table.primary_key.is_empty() {
            return Err(error(
                "a kafka table appends records and cannot keep a PRIMARY KEY: write to an 'upsert-kafka' table to keep a record per key".into(),
            ));
        }
        let producer = producer(&settings, &table.name)?;
        let metadata = producer
            .client()
            .fetch_metadata(Some(&settings.topic), BROKER_WAIT)
            .map_err(|e| {
                error(format!(
                    "no answer from the brokers {} within {} s: {e}",
                    settings.servers,
                    BROKER_WAIT.as_secs()
                ))
            })?;
        let partitions = metadata
            .topics()
            .iter()
            .find(|t| t.name() == settings.topic && t.error().is_none())
            .map(|t| t.partitions().len() as i32)
            .unwrap_or(0);
        if partitions == 0 {
            return Err(error(format!(
                "topic {} does not exist on the brokers {}: create it first, with the partitions it should have",
                settings.topic, settings.servers
            )));
        }
        if let Guarantee::ExactlyOnce(transactions) = &settings.guarantee {
            epochs::make_epoch_topic(&settings.config(), &transactions.epoch_topic)
                .map_err(|e| in_table(e, &table.name))?;
            // Whatever transaction of the id a stopped run left open is
            // aborted here: its records are never read as committed.
            start_transactions(&producer, transactions, &table.name)?;
            producer.begin_transaction().map_err(|e| {
                error(format!(
                    "cannot begin a transaction as {}: {e}",
                    transactions.id
                ))
            })?;
        }
        let key = settings
            .key
            .as_ref()
            .map(|(columns, format)| LineEncoder::new(format.clone(), columns.clone()));
        let value = LineEncoder::new(settings.value.1.clone(), settings.value.0.clone());
        Ok(KafkaSink {
            table: table.name.clone(),
            settings,
            producer,
            partitions,
            key,
            value,
            next_partition: 0,
            key_text: String::new(),
            value_text: String::new(),
            records: 0,
            tombstones: 0,
        })
    }

    fn error(&self, what: &str) -> Error {
        Error::Execution(format!(
            "table {}: topic {}: {what}",
            self.table, self.settings.topic
        ))
    }

    /// The first refused delivery, as the job's error.
    fn check_deliveries(&self) -> Result<()> {
        let failed = self
            .producer
            .context()
            .failed
            .lock()
            .map_err(|_| self.error("the delivery report was lost"))?
            .clone();
        match failed {
            Some(why) => Err(self.error(&why)),
            None => Ok(()),
        }
    }

    /// Waits until the brokers have acknowledged every record sent.
    fn flush(&mut self) -> Result<()> {
        self.producer.flush(FLUSH_WAIT).map_err(|e| {
            self.error(&format!(
                "the brokers {} did not acknowledge the records within {} s: {e}",
                self.settings.servers,
                FLUSH_WAIT.as_secs()
            ))
        })?;
        self.check_deliveries()
    }

    /// The partition of the next record, if tidemark chooses it.
    fn partition(&mut self, keyed: bool) -> Option<i32> {
        match (self.settings.partitioner, keyed) {
            (Partitioner::Default, true) => None,
            (Partitioner::Fixed, _) => Some(0),
            _ => {
                let p = (self.next_partition % i64::from(self.partitions)) as i32;
                self.next_partition += 1;
                Some(p)
            }
        }
    }
}

impl SinkWriter for KafkaSink {
    fn write(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<PrintLines> {
        self.check_deliveries()?;
        let stamps = self.settings.timestamp.map(|c| {
            let wall = matches!(types[c], SqlType::Timestamp(_));
            (
                batch.column(c).as_primitive::<TimestampMillisecondType>(),
                wall,
            )
        });
        if let Some(key) = self.key.as_mut() {
            key.encode(batch, types)?;
        }
        self.value.encode(batch, types)?;
        for row in 0..batch.num_rows() {
            let kind = kinds.get(row).copied().unwrap_or(RowKind::Insert);
            let tombstone = match kind {
                RowKind::Insert => false,
                RowKind::UpdateAfter | RowKind::UpdateBefore | RowKind::Delete
                    if !self.settings.upsert =>
                {
                    return Err(Error::Internal(
                        "an update written to an appended topic".into(),
                    ))
                }
                RowKind::UpdateBefore => continue,
                RowKind::UpdateAfter => false,
                RowKind::Delete => true,
            };
            self.key_text.clear();
            let keyed = match &self.key {
                Some(key) => key.line(row, &mut self.key_text),
                None => false,
            };
            self.value_text.clear();
            // A raw value's NULL is written as no value, as Flink writes
            // it (a tombstone to a reader of upsert-kafka).
            let valued = !tombstone && self.value.line(row, &mut self.value_text);
            let timestamp = match &stamps {
                Some((column, wall)) if column.is_valid(row) => {
                    let ms = column.value(row);
                    match wall {
                        true => crate::time::zone::local_to_instant(ms, tz),
                        false => Some(ms),
                    }
                }
                _ => None,
            };
            let partition = self.partition(keyed);
            let mut record: BaseRecord<'_, str, str> = BaseRecord::to(&self.settings.topic);
            if keyed {
                record = record.key(self.key_text.as_str());
            }
            if valued {
                record = record.payload(self.value_text.as_str());
            }
            if let Some(p) = partition {
                record = record.partition(p);
            }
            if let Some(ms) = timestamp {
                record = record.timestamp(ms);
            }
            loop {
                match self.producer.send(record) {
                    Ok(()) => break,
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                        // The client's queue is full: serve acknowledgements.
                        record = back;
                        self.producer.poll(Duration::from_millis(50));
                    }
                    Err((e, _)) => {
                        return Err(Error::Execution(format!(
                            "table {}: topic {}: cannot send a record: {e}",
                            self.table, self.settings.topic
                        )))
                    }
                }
            }
            self.records += 1;
            self.tombstones += u64::from(tombstone);
        }
        self.producer.poll(Duration::ZERO);
        Ok(String::new())
    }

    fn note(&self) -> Option<String> {
        let tombstones = match (self.settings.upsert, self.tombstones) {
            (false, _) => String::new(),
            (true, 1) => " (1 tombstone)".to_string(),
            (true, n) => format!(" ({n} tombstones)"),
        };
        Some(format!(
            "sink {}: {} record{} sent to topic {}{tombstones}",
            self.table,
            self.records,
            if self.records == 1 { "" } else { "s" },
            self.settings.topic
        ))
    }

    fn finish(mut self: Box<Self>) -> Result<()> {
        self.flush()
    }

    fn save_state(&mut self, _w: &mut StateWriter) -> Result<()> {
        match self.settings.guarantee {
            Guarantee::AtLeastOnce | Guarantee::ExactlyOnce(_) => self.flush(),
            Guarantee::None => self.check_deliveries(),
        }
    }

    fn prepare_commit(&mut self) -> Result<Vec<crate::connectors::sink::StagedRename>> {
        // A checkpointed run's end: everything sent is acknowledged before
        // the statement is recorded as finished.
        self.flush()?;
        Ok(Vec::new())
    }

    fn transactional(&self) -> bool {
        matches!(self.settings.guarantee, Guarantee::ExactlyOnce(_))
    }

    fn checkpoint_within(&self) -> Option<Duration> {
        match &self.settings.guarantee {
            Guarantee::ExactlyOnce(t) => Some(t.checkpoint_within()),
            _ => None,
        }
    }

    fn commit_epoch(&mut self, epoch: &Epoch) -> Result<()> {
        let Guarantee::ExactlyOnce(transactions) = self.settings.guarantee.clone() else {
            return Ok(());
        };
        self.flush()?;
        let written = std::mem::take(
            &mut *self
                .producer
                .context()
                .written
                .lock()
                .map_err(|_| self.error("the delivery report was lost"))?,
        );
        let marker = epochs::marker(epoch, &written);
        let record: BaseRecord<'_, str, str> = BaseRecord::to(&transactions.epoch_topic)
            .partition(0)
            .key(transactions.id.as_str())
            .payload(marker.as_str());
        self.producer.send(record).map_err(|(e, _)| {
            self.error(&format!(
                "cannot send epoch {}'s marker to topic {}: {e}",
                epoch.number, transactions.epoch_topic
            ))
        })?;
        self.producer
            .commit_transaction(transactions.timeout)
            .map_err(|e| {
                let why = if epochs::is_fenced(&e) {
                    format!(
                        "another writer took over the transactional id {}",
                        transactions.id
                    )
                } else {
                    e.to_string()
                };
                self.error(&format!(
                    "cannot commit epoch {}'s transaction: {why}",
                    epoch.number
                ))
            })?;
        self.check_deliveries()?;
        self.producer.begin_transaction().map_err(|e| {
            self.error(&format!(
                "cannot begin a transaction as {}: {e}",
                transactions.id
            ))
        })
    }
}

/// The client `settings` write with: idempotent, transactional for
/// exactly-once delivery.
fn producer(settings: &SinkSettings, table: &str) -> Result<BaseProducer<Deliveries>> {
    let mut config = settings.config();
    // Java's placement of keyed records; unkeyed ones are placed here.
    config
        .set("partitioner", "murmur2_random")
        .set("enable.idempotence", "true");
    if let Guarantee::ExactlyOnce(transactions) = &settings.guarantee {
        config.set("transactional.id", &transactions.id);
    }
    let deliveries = Deliveries {
        topic: settings.topic.clone(),
        ..Deliveries::default()
    };
    config.create_with_context(deliveries).map_err(|e| {
        let why = tidemark_common::connector::hide_secrets(&e.to_string(), &settings.client);
        Error::Input(format!(
            "table {table}: cannot make a client for {}: {why}",
            settings.servers
        ))
    })
}

/// Registers the producer's transactional id with the brokers, which
/// aborts (or completes, if it was committing) a transaction that an
/// earlier producer of the id left open.
fn start_transactions(
    producer: &BaseProducer<Deliveries>,
    transactions: &Transactions,
    table: &str,
) -> Result<()> {
    producer.init_transactions(BROKER_WAIT * 3).map_err(|e| {
        Error::Execution(format!(
            "table {table}: cannot start transactions as {}: {e}",
            transactions.id
        ))
    })
}

/// Whether `epoch` was committed to `table`, an exactly-once kafka or
/// upsert-kafka table (see [`crate::connectors::sink::epoch_committed`]).
pub(super) fn epoch_committed(table: &TableDef, upsert: bool, epoch: &Epoch) -> Result<bool> {
    let settings = SinkSettings::of(table, upsert)?;
    let Guarantee::ExactlyOnce(transactions) = &settings.guarantee else {
        return Err(Error::Internal(format!(
            "table {} is not written exactly once",
            table.name
        )));
    };
    let producer = producer(&settings, &table.name)?;
    start_transactions(&producer, transactions, &table.name)?;
    drop(producer);
    epochs::marker_committed(&settings.config(), transactions, epoch)
        .map_err(|e| in_table(e, &table.name))
}

fn in_table(e: Error, table: &str) -> Error {
    match e {
        Error::Execution(m) => Error::Execution(format!("table {table}: {m}")),
        other => other,
    }
}
