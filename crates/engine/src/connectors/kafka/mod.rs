//! The `kafka` and `upsert-kafka` connectors. A kafka table is read with
//! each partition of a topic a split with its own watermark (spec §8, §9),
//! read through the one client the table's partitions share ([`client`])
//! from the offset the startup mode gives to the one the bounded mode
//! gives, each record's value decoded by the value's
//! format (csv, json or raw) and, with `'value.fields-include' =
//! 'EXCEPT_KEY'`, its key by the key's ([`layout`], [`keys`]); it is
//! written a record per row, and an upsert-kafka table a record per key
//! ([`sink`]).
//!
//! Partitions are assigned explicitly, never through a consumer group's
//! rebalancing, and read with `isolation.level = read_committed`. A
//! bounded read (`'scan.bounded.mode' = 'latest-offset'`, ...) ends each
//! split at the end offset fixed when the job starts, so the job reads a
//! fixed log and its output is the same on every run; an unbounded read
//! follows the partitions, which may pause and go idle. Errors in a record
//! name the topic, partition and offset.

mod client;
mod epochs;
mod keys;
mod layout;
mod records;
mod security;
mod sink;

use super::sink::SinkWriter;
use super::split::{Split, SplitDiscovery};
use super::{in_table, Connector, OpenedSource, SourceSpec, IDLE_OPTION};
use crate::formats::{open_decoder, Ending};
use client::SharedClient;
use keys::KeyJoin;
use layout::RecordLayout;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext, DefaultConsumerContext};
use rdkafka::{Offset, TopicPartitionList};
use records::{PartitionReader, PartitionRecords, RecordShape, Start};
use security::client_properties;
use sink::{KafkaSink, SinkSettings};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tidemark_common::catalog::TableDef;
use tidemark_common::connector::{
    Capabilities, ConnectorDecl, FormatUse, MetadataDecl, OptionDecl, Origin, ValueKind,
};
use tidemark_common::{Error, Result, SqlType};

/// How long a request to the brokers may take before the job stops with
/// an error naming them (an unreachable broker, a missing topic).
const BROKER_WAIT: Duration = Duration::from_secs(10);

const STARTUP_MODES: &[&str] = &[
    "group-offsets",
    "earliest-offset",
    "latest-offset",
    "timestamp",
    "specific-offsets",
];

const BOUNDED_MODES: &[&str] = &[
    "unbounded",
    "latest-offset",
    "group-offsets",
    "timestamp",
    "specific-offsets",
];

/// A record key's or value's format.
fn line_format(value: &str) -> std::result::Result<(), String> {
    match value {
        "csv" | "json" | "raw" => Ok(()),
        other => Err(format!(
            "the format must be 'csv', 'json' or 'raw', not '{other}'"
        )),
    }
}

/// The options of exactly-once delivery, which need each other.
fn transactions(
    options: &BTreeMap<String, String>,
) -> std::result::Result<(), (&'static str, String)> {
    const GUARANTEE: &str = "sink.delivery-guarantee";
    const PREFIX: &str = "sink.transactional-id-prefix";
    const EPOCHS: &str = "sink.epoch-topic";
    let exactly_once = options.get(GUARANTEE).is_some_and(|g| g == "exactly-once");
    let prefix = options.get(PREFIX).map(|p| p.trim());
    if !exactly_once {
        for key in [PREFIX, EPOCHS] {
            if options.contains_key(key) {
                return Err((key, format!("'{key}' goes with 'sink.delivery-guarantee' = 'exactly-once', which this table does not have")));
            }
        }
        return Ok(());
    }
    match prefix {
        None | Some("") => Err((GUARANTEE, format!("'exactly-once' delivery needs '{PREFIX}': the start of the transactional id, unique to this sink, by which a resumed run fences off the one that stopped"))),
        Some(prefix) => match options.get(EPOCHS) {
            Some(topic) if !epochs::is_topic_name(topic.trim()) => Err((EPOCHS, format!("'{}' is not a topic name: letters, digits, '.', '_' and '-', at most 249", topic.trim()))),
            None if !epochs::is_topic_name(&epochs::default_epoch_topic(prefix)) => Err((PREFIX, format!("the epoch topic '{}' named after the prefix is not a topic name: set '{EPOCHS}'", epochs::default_epoch_topic(prefix)))),
            _ => Ok(()),
        },
    }
}

/// Whether a kafka or upsert-kafka table is written exactly once.
fn exactly_once(table: &TableDef) -> bool {
    table.option("sink.delivery-guarantee") == Some("exactly-once")
}

fn partitioner(value: &str) -> std::result::Result<(), String> {
    match value {
        "default" | "fixed" | "round-robin" => Ok(()),
        other => Err(format!("'sink.partitioner' must be 'default', 'fixed' or 'round-robin', not '{other}': tidemark cannot load a Java partitioner class")),
    }
}

// The options kafka and upsert-kafka share.
const TOPIC: OptionDecl = OptionDecl::flink(
    "topic",
    "the topic read (several as 't1;t2'), or the one written",
)
.required();
const SERVERS: OptionDecl = OptionDecl::flink(
    "properties.bootstrap.servers",
    "the brokers, host:port[,host:port...]",
)
.required();
const PROPERTIES: OptionDecl = OptionDecl::flink(
    "properties.",
    "any other client property (e.g. properties.security.protocol), passed to the client",
);
const DELIVERY: OptionDecl = OptionDecl::flink(
    "sink.delivery-guarantee",
    "'at-least-once': every record acknowledged at each checkpoint; 'exactly-once': a transaction per checkpoint; 'none': acknowledged only at the end",
)
.default_value("at-least-once")
.kind(ValueKind::OneOf(&["at-least-once", "exactly-once", "none"]));
const TRANSACTIONAL_ID: OptionDecl = OptionDecl::flink(
    "sink.transactional-id-prefix",
    "with 'exactly-once': the transactional id is this and '-0' (the one writer); unique to the job's sink",
);
const EPOCH_TOPIC: OptionDecl = OptionDecl::own(
    "sink.epoch-topic",
    "with 'exactly-once': the compacted topic each committed transaction writes its epoch marker to (made if missing; default: the transactional id prefix and '-epochs')",
);
const SINK_PARALLELISM: OptionDecl = OptionDecl::not_yet(
    "sink.parallelism",
    "a table is written by one writer, in the query's order",
);
const VALUE_FIELDS: OptionDecl = OptionDecl::flink(
    "value.fields-include",
    "'ALL': a written value holds every physical column; 'EXCEPT_KEY': all but the key's",
)
.default_value("ALL")
.kind(ValueKind::OneOf(&["ALL", "EXCEPT_KEY"]));
const KEY_PREFIX: OptionDecl = OptionDecl::flink(
    "key.fields-prefix",
    "with 'EXCEPT_KEY': the key's columns are named with this in the table and without it in the key's format",
);

static OPTIONS: &[OptionDecl] = &[
    TOPIC,
    SERVERS,
    OptionDecl::flink(
        "properties.group.id",
        "the consumer group whose committed offsets 'group-offsets' reads",
    ),
    PROPERTIES,
    OptionDecl::flink("scan.startup.mode", "where each partition is read from")
        .default_value("group-offsets")
        .kind(ValueKind::OneOf(STARTUP_MODES)),
    OptionDecl::flink(
        "scan.startup.specific-offsets",
        "with 'specific-offsets': 'partition:0,offset:42;partition:1,offset:300'",
    ),
    OptionDecl::flink(
        "scan.startup.timestamp-millis",
        "with 'timestamp': each partition from its first record at or after this epoch millisecond",
    ),
    OptionDecl::flink("scan.bounded.mode", "where each partition's read ends")
        .default_value("unbounded")
        .kind(ValueKind::OneOf(BOUNDED_MODES)),
    OptionDecl::flink(
        "scan.bounded.specific-offsets",
        "with 'specific-offsets': each partition's end offset, as for the startup",
    ),
    OptionDecl::flink(
        "scan.bounded.timestamp-millis",
        "with 'timestamp': each partition up to its first record at or after this epoch millisecond",
    ),
    IDLE_OPTION,
    OptionDecl::flink("key.format", "the format of a record's key").checked(line_format),
    OptionDecl::flink(
        "key.fields",
        "the physical columns a record's key holds, 'a;b' (read from the key with 'EXCEPT_KEY'; with 'ALL' the value's win)",
    ),
    KEY_PREFIX,
    OptionDecl::flink(
        "value.format",
        "the format of a record's value, in place of 'format'",
    )
    .checked(line_format),
    VALUE_FIELDS,
    OptionDecl::flink(
        "sink.partitioner",
        "'default': a keyed record by its key's murmur2 hash (as Flink), others round-robin; 'fixed': partition 0; 'round-robin'",
    )
    .default_value("default")
    .checked(partitioner),
    DELIVERY,
    TRANSACTIONAL_ID,
    EPOCH_TOPIC,
    SINK_PARALLELISM,
    OptionDecl::not_yet(
        "topic-pattern",
        "name the topics in 'topic', as 't1;t2'",
    ),
    OptionDecl::not_yet(
        "scan.topic-partition-discovery.interval",
        "the partitions are those a topic has when the job starts",
    ),
    OptionDecl::not_yet(
        "scan.parallelism",
        "partitions are read by the source threads 'parallelism.default' gives",
    ),
];

static UPSERT_OPTIONS: &[OptionDecl] = &[
    OptionDecl::flink("topic", "the topic written").required(),
    SERVERS,
    PROPERTIES,
    OptionDecl::flink(
        "key.format",
        "the format of a record's key: the PRIMARY KEY's columns",
    )
    .required()
    .checked(line_format),
    OptionDecl::flink("value.format", "the format of a record's value")
        .required()
        .checked(line_format),
    KEY_PREFIX,
    VALUE_FIELDS,
    DELIVERY,
    TRANSACTIONAL_ID,
    EPOCH_TOPIC,
    SINK_PARALLELISM,
    OptionDecl::not_yet(
        "sink.buffer-flush.max-rows",
        "every change is sent as it comes; the client batches them",
    ),
    OptionDecl::not_yet(
        "sink.buffer-flush.interval",
        "every change is sent as it comes; the client batches them",
    ),
];

static METADATA: &[MetadataDecl] = &[
    MetadataDecl::read_only("topic", SqlType::String, "the topic the record is in"),
    MetadataDecl::read_only("partition", SqlType::Int, "the partition the record is in"),
    MetadataDecl::read_only(
        "offset",
        SqlType::BigInt,
        "the record's offset in its partition",
    ),
    MetadataDecl::read_only(
        "timestamp",
        SqlType::TimestampLtz(3),
        "the record's timestamp (may be the rowtime)",
    )
    .writable(),
    MetadataDecl::read_only(
        "timestamp-type",
        SqlType::String,
        "NoTimestampType, CreateTime or LogAppendTime",
    ),
    MetadataDecl::not_yet(
        "headers",
        "it is a MAP<STRING, BYTES>, and tidemark has no MAP or BYTES type",
    ),
    MetadataDecl::not_yet("leader-epoch", "the client does not report it"),
];

/// What a written record takes beside its key and value.
static UPSERT_METADATA: &[MetadataDecl] = &[MetadataDecl::read_only(
    "timestamp",
    SqlType::TimestampLtz(3),
    "the record's timestamp, written from the column",
)
.writable()];

static DECLARATION: ConnectorDecl = ConnectorDecl {
    name: "kafka",
    origin: Origin::Flink,
    doc: "a Kafka topic, each partition a split with its own watermark",
    format: FormatUse::Required,
    formats: &["csv", "json", "raw"],
    options: OPTIONS,
    capabilities: Capabilities {
        read: true,
        write: true,
        side_output: true,
        checkpoint_read: true,
        unbounded: true,
        ..Capabilities::NONE
    },
    metadata: METADATA,
    example: "WITH ('connector' = 'kafka', 'topic' = 'bids', 'properties.bootstrap.servers' = 'localhost:9092', 'scan.startup.mode' = 'earliest-offset', 'format' = 'csv')",
    check: Some(transactions),
};

static UPSERT_DECLARATION: ConnectorDecl = ConnectorDecl {
    name: "upsert-kafka",
    origin: Origin::Flink,
    doc: "a Kafka topic written as the latest row per PRIMARY KEY, a deletion as a tombstone",
    format: FormatUse::None,
    formats: &["csv", "json", "raw"],
    options: UPSERT_OPTIONS,
    capabilities: Capabilities {
        write: true,
        upsert: true,
        ..Capabilities::NONE
    },
    metadata: UPSERT_METADATA,
    example: "WITH ('connector' = 'upsert-kafka', 'topic' = 'totals', 'properties.bootstrap.servers' = 'localhost:9092', 'key.format' = 'json', 'value.format' = 'json')",
    check: Some(transactions),
};

/// The `upsert-kafka` connector: written only, so far.
pub struct UpsertKafka;

impl Connector for UpsertKafka {
    fn declaration(&self) -> &'static ConnectorDecl {
        &UPSERT_DECLARATION
    }

    fn explain_write(&self, table: &TableDef) -> Option<String> {
        Some(SinkSettings::of(table, true).ok()?.explain())
    }

    fn open_sink(&self, table: &TableDef, _staged: Option<bool>) -> Result<Box<dyn SinkWriter>> {
        if table.primary_key.is_empty() {
            return Err(Error::Input(format!(
                "table {}: an upsert-kafka table needs a PRIMARY KEY (...) NOT ENFORCED: its columns are each record's key",
                table.name
            )));
        }
        Ok(Box::new(KafkaSink::open(table, true)?))
    }

    fn transactional(&self, table: &TableDef) -> bool {
        exactly_once(table)
    }

    fn epoch_committed(&self, table: &TableDef, epoch: &super::sink::Epoch) -> Result<bool> {
        sink::epoch_committed(table, true, epoch)
    }
}

pub struct Kafka;

impl Connector for Kafka {
    fn declaration(&self) -> &'static ConnectorDecl {
        &DECLARATION
    }

    fn may_pause(&self, table: &TableDef) -> bool {
        table.option("scan.bounded.mode").unwrap_or("unbounded") == "unbounded"
    }

    fn explain_source(&self, table: &TableDef) -> Option<String> {
        let settings = Settings::of(table).ok()?;
        let from = match settings.startup.as_str() {
            "timestamp" => format!(
                "the first record at or after {} ms",
                settings.startup_millis.unwrap_or(0)
            ),
            "group-offsets" => format!(
                "the committed offsets of group {}",
                settings.group.as_deref().unwrap_or("?")
            ),
            mode => mode.to_string(),
        };
        let to = match settings.bounded.as_str() {
            "unbounded" => "no end (followed as it grows)".to_string(),
            "latest-offset" => "the end offsets when the job starts".to_string(),
            "timestamp" => format!(
                "the first record at or after {} ms",
                settings.bounded_millis.unwrap_or(0)
            ),
            "group-offsets" => "the group's committed offsets when the job starts".to_string(),
            mode => mode.to_string(),
        };
        let commits = match settings.commit_group() {
            Some(group) => format!("; checkpoints commit offsets to group {group}"),
            None => String::new(),
        };
        Some(format!(
            "topic {}: a split per partition (as the brokers {} have them when the job starts), read_committed, from {from} to {to}{commits}",
            settings.topics.join(", "),
            settings.servers
        ))
    }

    fn split_kind(&self, _table: &TableDef) -> Option<&'static str> {
        Some("partition")
    }

    fn explain_write(&self, table: &TableDef) -> Option<String> {
        Some(SinkSettings::of(table, false).ok()?.explain())
    }

    fn open_sink(&self, table: &TableDef, _staged: Option<bool>) -> Result<Box<dyn SinkWriter>> {
        Ok(Box::new(KafkaSink::open(table, false)?))
    }

    fn transactional(&self, table: &TableDef) -> bool {
        exactly_once(table)
    }

    fn epoch_committed(&self, table: &TableDef, epoch: &super::sink::Epoch) -> Result<bool> {
        sink::epoch_committed(table, false, epoch)
    }

    /// The value's columns, unless the value is raw text: a key is
    /// decoded whole, as it joins rows to their keys.
    fn undecoded(&self, table: &TableDef, unread: &[bool]) -> Vec<bool> {
        let physical = super::source::physical_columns(table);
        let mut undecoded = vec![false; unread.len()];
        if let Ok(layout) = RecordLayout::of_table(table, &physical, false) {
            if !layout.value.is_raw() {
                for c in &layout.value.columns {
                    let key_too = layout.key.as_ref().is_some_and(|k| k.columns.contains(c));
                    if let (Some(u), false) = (undecoded.get_mut(*c), key_too) {
                        *u = unread.get(*c).copied().unwrap_or(false);
                    }
                }
            }
        }
        undecoded
    }

    fn open_source(&self, spec: SourceSpec<'_>) -> Result<OpenedSource> {
        let table = spec.table;
        let layout = RecordLayout::of_table(table, &spec.columns, false)
            .map_err(|m| Error::Input(format!("table {}: {m}", table.name)))?;
        let keys = KeyJoin::of(&layout, &spec.columns);
        let shape = RecordShape {
            raw_value: layout
                .value
                .is_raw()
                .then(|| spec.columns[layout.value.columns[0]].0.clone()),
            keys: keys.is_some(),
        };
        let value_columns: Vec<(String, SqlType)> = layout
            .value
            .columns
            .iter()
            .map(|c| spec.columns[*c].clone())
            .collect();
        // A raw value comes as a JSON line holding its text.
        let value_options = match shape.raw_value {
            Some(_) => BTreeMap::from([("format".to_string(), "json".to_string())]),
            None => layout.value.options.clone(),
        };
        let settings = Arc::new(Settings::of(table).map_err(in_table(&table.name))?);
        let probe = settings.consumer()?;
        let client = SharedClient::new(&settings, settings.bounded == "unbounded")?;
        let mut splits = Vec::new();
        let mut ignore_parse_errors = false;
        let mut splits_per_topic = Vec::new();
        for topic in &settings.topics {
            let partitions = settings.partitions(&probe, topic)?;
            splits_per_topic.push((topic.clone(), partitions.len()));
            for partition in partitions {
                let start = settings.start(&probe, topic, partition)?;
                let end = settings.end(&probe, topic, partition)?;
                let name = format!("{topic}-{partition}");
                let first = Start {
                    offset: start,
                    line: 1,
                };
                let (records, handed) =
                    PartitionRecords::open(&client, topic, partition, first, end, &shape)?;
                let decoder = open_decoder(
                    &value_options,
                    Box::new(records),
                    name.clone(),
                    value_columns.clone(),
                    spec.batch_size,
                    Ending::Stream,
                )
                .map_err(in_table(&table.name))?;
                ignore_parse_errors = decoder.ignore_parse_errors;
                let reader = PartitionReader {
                    decoder: decoder.reader,
                    settings: Arc::clone(&settings),
                    client: Arc::clone(&client),
                    end,
                    name: name.clone(),
                    topic: topic.clone(),
                    partition,
                    handed,
                    metadata: spec.metadata.clone(),
                    live: end.is_none(),
                    shape: shape.clone(),
                    keys: keys.clone(),
                    value_columns: layout.value.columns.clone().into(),
                };
                splits.push(Split::new(name, Box::new(reader)));
            }
        }
        // A live read watches for partitions added while it runs.
        let discovery = match settings.bounded.as_str() {
            "unbounded" => Some(
                Box::new(PartitionWatch::new(&settings, &splits_per_topic, probe))
                    as Box<dyn SplitDiscovery>,
            ),
            _ => None,
        };
        Ok(OpenedSource {
            splits,
            ignore_parse_errors,
            discovery,
        })
    }
}

/// How often a live read asks how many partitions its topics have, on
/// the engine's clock.
const WATCH_INTERVAL_MS: i64 = 10_000;

/// How long one such question may take: an unanswered one is asked again
/// later (the partitions' own readers report a broker that is gone).
const WATCH_WAIT: Duration = Duration::from_millis(500);

/// Watches a live read's topics: tidemark reads the partitions a topic
/// has when the job starts, so a partition added while it runs stops the
/// job rather than being left unread.
struct PartitionWatch {
    table: String,
    /// Each topic and the partitions it had at the start.
    had: Vec<(String, usize)>,
    /// The partitions a topic has now; None when there is no answer.
    now: Box<dyn FnMut(&str) -> Option<usize> + Send>,
}

impl PartitionWatch {
    fn new(settings: &Settings, had: &[(String, usize)], probe: BaseConsumer) -> Self {
        PartitionWatch {
            table: settings.table.clone(),
            had: had.to_vec(),
            now: Box::new(move |topic| {
                let metadata = probe.fetch_metadata(Some(topic), WATCH_WAIT).ok()?;
                let found = metadata.topics().iter().find(|t| t.name() == topic)?;
                Some(found.partitions().len())
            }),
        }
    }
}

impl SplitDiscovery for PartitionWatch {
    fn new_splits(&mut self) -> Result<Vec<Split>> {
        for (topic, had) in &self.had {
            match (self.now)(topic) {
                Some(now) if now != *had => {
                    return Err(Error::Input(format!(
                        "table {}: topic {topic} has {now} partitions now and had {had} when the job started: \
                         tidemark reads the partitions a topic has at the start (partition discovery is not supported yet); \
                         run the job again to read them all",
                        self.table
                    )))
                }
                _ => {}
            }
        }
        Ok(Vec::new())
    }

    fn interval_ms(&self) -> i64 {
        WATCH_INTERVAL_MS
    }

    fn joins_on_resume(&self) -> bool {
        false
    }
}

/// A table's Kafka options, read.
struct Settings {
    table: String,
    servers: String,
    topics: Vec<String>,
    /// The client's properties: `properties.*` and ours.
    client: BTreeMap<String, String>,
    group: Option<String>,
    /// Whether checkpoints commit offsets to the group
    /// (`properties.commit.offsets.on.checkpoint`, true unless false).
    commit_on_checkpoint: bool,
    startup: String,
    startup_offsets: BTreeMap<i32, i64>,
    startup_millis: Option<i64>,
    bounded: String,
    bounded_offsets: BTreeMap<i32, i64>,
    bounded_millis: Option<i64>,
    /// Set when the brokers did not answer a run summary's question, so
    /// that its other partitions do not wait for them too.
    silent_brokers: std::sync::atomic::AtomicBool,
}

impl Settings {
    fn of(table: &TableDef) -> Result<Self> {
        let get = |key: &str| table.option(key).map(str::to_string);
        let servers = get("properties.bootstrap.servers").unwrap_or_default();
        let topics: Vec<String> = get("topic")
            .unwrap_or_default()
            .split(';')
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect();
        if topics.is_empty() {
            return Err(Error::Input("'topic' names no topic".into()));
        }
        let mut client = client_properties(table)?;
        if let Some(level) = client.get("isolation.level") {
            if !level.trim().eq_ignore_ascii_case("read_committed") {
                return Err(Error::Input(format!(
                    "'properties.isolation.level' = '{level}' is not supported: tidemark reads committed records only, so that a read gives the same rows whenever it runs (an aborted transaction's records are never read)"
                )));
            }
        }
        let group = client.get("group.id").cloned();
        // Flink's own property, not the client's.
        let commit_on_checkpoint = match client.remove("commit.offsets.on.checkpoint") {
            None => true,
            Some(v) if v.eq_ignore_ascii_case("true") => true,
            Some(v) if v.eq_ignore_ascii_case("false") => false,
            Some(v) => {
                return Err(Error::Input(format!(
                    "'properties.commit.offsets.on.checkpoint' must be 'true' or 'false', not '{v}'"
                )))
            }
        };
        let startup = get("scan.startup.mode").unwrap_or_else(|| "group-offsets".into());
        let bounded = get("scan.bounded.mode").unwrap_or_else(|| "unbounded".into());
        let needs = |mode: &str, which: &str, key: &str| -> Result<()> {
            if mode == which && table.option(key).is_none() {
                return Err(Error::Input(format!("'{which}' needs '{key}'")));
            }
            Ok(())
        };
        needs(
            &startup,
            "specific-offsets",
            "scan.startup.specific-offsets",
        )?;
        needs(&startup, "timestamp", "scan.startup.timestamp-millis")?;
        needs(
            &bounded,
            "specific-offsets",
            "scan.bounded.specific-offsets",
        )?;
        needs(&bounded, "timestamp", "scan.bounded.timestamp-millis")?;
        if (startup == "group-offsets" || bounded == "group-offsets") && group.is_none() {
            return Err(Error::Input(
                "'group-offsets' needs 'properties.group.id' (or set 'scan.startup.mode' = 'earliest-offset')"
                    .into(),
            ));
        }
        Ok(Settings {
            table: table.name.clone(),
            servers,
            topics,
            client,
            group,
            commit_on_checkpoint,
            startup_offsets: specific_offsets(table, "scan.startup.specific-offsets")?,
            startup_millis: millis(table, "scan.startup.timestamp-millis")?,
            startup,
            bounded_offsets: specific_offsets(table, "scan.bounded.specific-offsets")?,
            bounded_millis: millis(table, "scan.bounded.timestamp-millis")?,
            bounded,
            silent_brokers: Default::default(),
        })
    }

    /// A client that reads committed records only, commits nothing, and
    /// says when it has fetched up to a partition's end (the only sign
    /// that a read has passed a transaction's commit marker at the end).
    fn consumer(&self) -> Result<BaseConsumer> {
        self.consumer_with(DefaultConsumerContext, "0")
    }

    /// The same client with `context`, given statistics every
    /// `statistics_ms` milliseconds ("0": never) unless the table's
    /// `properties.statistics.interval.ms` says otherwise.
    fn consumer_with<C: ConsumerContext>(
        &self,
        context: C,
        statistics_ms: &str,
    ) -> Result<BaseConsumer<C>> {
        let mut config = ClientConfig::new();
        config.set("statistics.interval.ms", statistics_ms);
        for (key, value) in &self.client {
            config.set(key, value);
        }
        config
            .set("bootstrap.servers", &self.servers)
            .set("group.id", self.group.as_deref().unwrap_or("tidemark"))
            .set("enable.auto.commit", "false")
            .set("isolation.level", "read_committed")
            .set("enable.partition.eof", "true");
        config.create_with_context(context).map_err(|e| {
            let why = tidemark_common::connector::hide_secrets(&e.to_string(), &self.client);
            self.error(&format!("cannot make a client for {}: {why}", self.servers))
        })
    }

    /// The group checkpoints commit offsets to, if they do.
    fn commit_group(&self) -> Option<&str> {
        self.group.as_deref().filter(|_| self.commit_on_checkpoint)
    }

    fn error(&self, what: &str) -> Error {
        Error::Input(format!("table {}: {what}", self.table))
    }

    /// The partitions of `topic`, in number order.
    fn partitions(&self, probe: &BaseConsumer, topic: &str) -> Result<Vec<i32>> {
        let metadata = probe
            .fetch_metadata(Some(topic), BROKER_WAIT)
            .map_err(|e| {
                self.error(&format!(
                    "no answer from the brokers {} within {} s: {e}",
                    self.servers,
                    BROKER_WAIT.as_secs()
                ))
            })?;
        let found = metadata.topics().iter().find(|t| t.name() == topic);
        let partitions: Vec<i32> = found
            .filter(|t| t.error().is_none())
            .map(|t| t.partitions().iter().map(|p| p.id()).collect())
            .unwrap_or_default();
        if partitions.is_empty() {
            return Err(self.error(&format!(
                "topic {topic} does not exist on the brokers {}",
                self.servers
            )));
        }
        let mut partitions = partitions;
        partitions.sort_unstable();
        Ok(partitions)
    }

    /// The offset partition `p` of `topic` is read from.
    fn start(&self, probe: &BaseConsumer, topic: &str, p: i32) -> Result<i64> {
        let (low, high) = self.watermarks(probe, topic, p)?;
        let at = match self.startup.as_str() {
            "earliest-offset" => low,
            "latest-offset" => high,
            "specific-offsets" => *self.startup_offsets.get(&p).ok_or_else(|| {
                self.error(&format!(
                    "'scan.startup.specific-offsets' gives no offset for partition {p} of topic {topic}"
                ))
            })?,
            "timestamp" => self.offset_at(probe, topic, p, self.startup_millis, high)?,
            _ => self.committed(probe, topic, p, low, high)?,
        };
        Ok(at.clamp(low, high))
    }

    /// The offset partition `p` of `topic` is read up to (not included);
    /// `None`: no end.
    fn end(&self, probe: &BaseConsumer, topic: &str, p: i32) -> Result<Option<i64>> {
        let (low, high) = self.watermarks(probe, topic, p)?;
        let at = match self.bounded.as_str() {
            "unbounded" => return Ok(None),
            "latest-offset" => high,
            "specific-offsets" => *self.bounded_offsets.get(&p).ok_or_else(|| {
                self.error(&format!(
                    "'scan.bounded.specific-offsets' gives no offset for partition {p} of topic {topic}"
                ))
            })?,
            "timestamp" => self.offset_at(probe, topic, p, self.bounded_millis, high)?,
            _ => self.committed(probe, topic, p, low, high)?,
        };
        Ok(Some(at.clamp(low, high)))
    }

    /// The first and the next offset of partition `p` of `topic`, asked
    /// of a new client.
    fn offsets_of(&self, topic: &str, p: i32) -> Result<(i64, i64)> {
        self.watermarks(&self.consumer()?, topic, p)
    }

    fn watermarks(&self, probe: &BaseConsumer, topic: &str, p: i32) -> Result<(i64, i64)> {
        probe.fetch_watermarks(topic, p, BROKER_WAIT).map_err(|e| {
            self.error(&format!(
                "no offsets for partition {p} of topic {topic} from {}: {e}",
                self.servers
            ))
        })
    }

    /// The first offset at or after `millis` in partition `p`; `high` when
    /// there is none.
    fn offset_at(
        &self,
        probe: &BaseConsumer,
        topic: &str,
        p: i32,
        millis: Option<i64>,
        high: i64,
    ) -> Result<i64> {
        let mut query = TopicPartitionList::new();
        query
            .add_partition_offset(topic, p, Offset::Offset(millis.unwrap_or(0)))
            .map_err(|e| self.error(&e.to_string()))?;
        let found = probe
            .offsets_for_times(query, BROKER_WAIT)
            .map_err(|e| self.error(&format!("cannot look up offsets by time in {topic}: {e}")))?;
        Ok(match found.find_partition(topic, p).map(|e| e.offset()) {
            Some(Offset::Offset(at)) => at,
            _ => high,
        })
    }

    /// The group's committed offset in partition `p`, or where
    /// `properties.auto.offset.reset` says when it has none.
    fn committed(
        &self,
        probe: &BaseConsumer,
        topic: &str,
        p: i32,
        low: i64,
        high: i64,
    ) -> Result<i64> {
        let mut query = TopicPartitionList::new();
        query.add_partition(topic, p);
        let found = probe.committed_offsets(query, BROKER_WAIT).map_err(|e| {
            self.error(&format!(
                "cannot read the committed offsets of group {}: {e}",
                self.group.as_deref().unwrap_or("?")
            ))
        })?;
        if let Some(Offset::Offset(at)) = found.find_partition(topic, p).map(|e| e.offset()) {
            return Ok(at);
        }
        match self.client.get("auto.offset.reset").map(String::as_str) {
            Some("earliest" | "smallest" | "beginning") => Ok(low),
            Some("latest" | "largest" | "end") => Ok(high),
            _ => Err(self.error(&format!(
                "group {} has no committed offset in partition {p} of topic {topic}: set 'properties.auto.offset.reset' = 'earliest' or 'latest', or another 'scan.startup.mode'",
                self.group.as_deref().unwrap_or("?")
            ))),
        }
    }
}

/// `'partition:0,offset:42;partition:1,offset:300'`, by partition.
fn specific_offsets(table: &TableDef, key: &str) -> Result<BTreeMap<i32, i64>> {
    let mut offsets = BTreeMap::new();
    let Some(text) = table.option(key) else {
        return Ok(offsets);
    };
    for entry in text.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let mut partition = None;
        let mut offset = None;
        for field in entry.split(',') {
            match field.trim().split_once(':') {
                Some(("partition", v)) => partition = v.trim().parse::<i32>().ok(),
                Some(("offset", v)) => offset = v.trim().parse::<i64>().ok(),
                _ => {}
            }
        }
        match (partition, offset) {
            (Some(p), Some(o)) if p >= 0 && o >= 0 => {
                offsets.insert(p, o);
            }
            _ => {
                return Err(Error::Input(format!(
                    "'{key}': '{entry}' is not 'partition:N,offset:M'"
                )))
            }
        }
    }
    Ok(offsets)
}

fn millis(table: &TableDef, key: &str) -> Result<Option<i64>> {
    table
        .option(key)
        .map(|v| {
            v.trim()
                .parse::<i64>()
                .map_err(|_| Error::Input(format!("'{key}' must be epoch milliseconds, got '{v}'")))
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_added_to_a_live_read_stops_it_and_no_answer_does_not() {
        let answers = Arc::new(std::sync::Mutex::new(vec![None, Some(2), Some(3)]));
        let given = Arc::clone(&answers);
        let mut watch = PartitionWatch {
            table: "bids".into(),
            had: vec![("bids".into(), 2)],
            now: Box::new(move |_| given.lock().unwrap().remove(0)),
        };
        assert!(watch.new_splits().unwrap().is_empty(), "no answer");
        assert!(watch.new_splits().unwrap().is_empty(), "the same count");
        let Err(err) = watch.new_splits() else {
            panic!("a third partition goes unnoticed");
        };
        let err = err.to_string();
        assert!(
            err.contains(
                "table bids: topic bids has 3 partitions now and had 2 when the job started"
            ),
            "{err}"
        );
        assert!(!watch.joins_on_resume());
    }
}
