//! Exactly-once delivery to Kafka by epoch markers (spec §9).
//!
//! A Kafka client cannot take over a transaction that a crashed process
//! left open: making a producer with the same transactional id aborts it.
//! So the output between two checkpoints (an epoch) goes into one
//! transaction that also writes a marker naming the epoch to a compacted
//! epoch topic, keyed by the transactional id. The checkpoint closing the
//! epoch is written as pending before the commit and confirmed after it;
//! a run resumed from a pending checkpoint looks for its epoch's marker,
//! reading committed records only: there, the epoch's output is in the
//! topic and the run goes on from the checkpoint; missing, the epoch was
//! aborted and the run goes on from the checkpoint before, producing the
//! same rows again (tidemark's output does not depend on where a run
//! stopped).
//!
//! A marker also records, for each partition the epoch wrote, the offsets
//! of its first and last record: what a reader can check the topic
//! against, and what the tests read on a broker that does not hide
//! aborted records.

use super::BROKER_WAIT;
use crate::connectors::sink::Epoch;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::types::RDKafkaErrorCode as Code;
use rdkafka::{Message, Offset, TopicPartitionList};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use tidemark_common::{Error, Result};

/// librdkafka's default `transaction.timeout.ms`.
const DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// What exactly-once delivery of one sink table uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Transactions {
    /// The producer's `transactional.id`: the prefix and `-0`, as Flink
    /// names its first writer's.
    pub(super) id: String,
    pub(super) epoch_topic: String,
    /// `transaction.timeout.ms`: the brokers abort a transaction open
    /// longer.
    pub(super) timeout: Duration,
}

impl Transactions {
    pub(super) fn of(
        prefix: &str,
        epoch_topic: Option<&str>,
        client: &BTreeMap<String, String>,
    ) -> Result<Self> {
        let timeout = match client.get("transaction.timeout.ms") {
            None => DEFAULT_TIMEOUT_MS,
            Some(ms) => ms.trim().parse::<u64>().map_err(|_| {
                Error::Input(format!(
                    "'properties.transaction.timeout.ms' must be a whole number of milliseconds, not '{ms}'"
                ))
            })?,
        };
        Ok(Transactions {
            id: format!("{prefix}-0"),
            epoch_topic: epoch_topic.map_or_else(|| default_epoch_topic(prefix), str::to_string),
            timeout: Duration::from_millis(timeout),
        })
    }

    /// How long a checkpoint may wait at most: half the transaction
    /// timeout, leaving the other half for the commit.
    pub(super) fn checkpoint_within(&self) -> Duration {
        self.timeout / 2
    }
}

/// The epoch topic of a transactional id prefix, unless one is named.
pub(crate) fn default_epoch_topic(prefix: &str) -> String {
    format!("{prefix}-epochs")
}

/// Whether Kafka takes `name` as a topic's.
pub(crate) fn is_topic_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 249
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The marker of a committed epoch, as JSON: the epoch and the offsets
/// of the first and last record it wrote in each partition.
pub(super) fn marker(epoch: &Epoch, written: &BTreeMap<i32, (i64, i64)>) -> String {
    let partitions: serde_json::Map<String, serde_json::Value> = written
        .iter()
        .map(|(p, (first, last))| (p.to_string(), serde_json::json!([first, last])))
        .collect();
    serde_json::json!({
        "job": format!("{:016x}", epoch.job),
        "statement": epoch.statement,
        "epoch": epoch.number,
        "partitions": partitions,
    })
    .to_string()
}

/// The epoch a marker names, if it is one.
pub(super) fn marker_epoch(text: &str) -> Option<Epoch> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    Some(Epoch {
        job: u64::from_str_radix(value.get("job")?.as_str()?, 16).ok()?,
        statement: value.get("statement")?.as_u64()?,
        number: value.get("epoch")?.as_u64()?,
    })
}

/// Makes the epoch topic if it is missing: one partition, compacted, so
/// that it keeps the latest marker of each transactional id. Brokers
/// that cannot make topics must have it already.
pub(super) fn make_epoch_topic(config: &ClientConfig, topic: &str) -> Result<()> {
    let hint = "make it, with one partition and 'cleanup.policy' = 'compact', or name another in 'sink.epoch-topic'";
    // Looked up by a consumer, which never makes brokers auto-create a
    // missing topic with their defaults (neither compacted nor of one
    // partition): a topic made by hand or by an earlier run needs no
    // admin rights.
    let mut lookup = config.clone();
    lookup.set("allow.auto.create.topics", "false");
    let probe: BaseConsumer = lookup
        .create()
        .map_err(|e| Error::Execution(format!("cannot make a client: {e}")))?;
    let exists = || {
        probe
            .fetch_metadata(Some(topic), BROKER_WAIT)
            .map(|metadata| {
                metadata
                    .topics()
                    .iter()
                    .any(|t| t.name() == topic && t.error().is_none() && !t.partitions().is_empty())
            })
    };
    if exists().unwrap_or(false) {
        return Ok(());
    }
    let admin: AdminClient<DefaultClientContext> = config
        .create()
        .map_err(|e| Error::Execution(format!("cannot make an admin client: {e}")))?;
    let new = NewTopic::new(topic, 1, TopicReplication::Fixed(-1)).set("cleanup.policy", "compact");
    let options = AdminOptions::new()
        .operation_timeout(Some(BROKER_WAIT))
        .request_timeout(Some(BROKER_WAIT));
    let made = futures_executor::block_on(admin.create_topics([&new], &options));
    let why = match made.as_deref() {
        Ok([Ok(_)]) | Ok([Err((_, Code::TopicAlreadyExists))]) => return Ok(()),
        Ok([Err((_, code)), ..]) => code.to_string(),
        Ok(_) => "no answer".to_string(),
        Err(e) => e.to_string(),
    };
    match exists() {
        Ok(true) => Ok(()),
        Ok(false) => Err(Error::Execution(format!(
            "cannot make the epoch topic {topic}: {why} ({hint})"
        ))),
        Err(e) => Err(Error::Execution(format!(
            "cannot make the epoch topic {topic}: {why}; nor read whether it exists: {e} ({hint})"
        ))),
    }
}

/// Whether the epoch topic holds `epoch`'s marker for `transactions`,
/// among its committed records. The caller has aborted whatever
/// transaction of the id was left open, so nothing of it is pending.
pub(super) fn marker_committed(
    config: &ClientConfig,
    transactions: &Transactions,
    epoch: &Epoch,
) -> Result<bool> {
    let topic = &transactions.epoch_topic;
    let error = |what: String| Error::Execution(format!("epoch topic {topic}: {what}"));
    let mut config = config.clone();
    config
        .set("group.id", &transactions.id)
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed")
        .set("enable.partition.eof", "true");
    let consumer: BaseConsumer = config
        .create()
        .map_err(|e| error(format!("cannot make a client: {e}")))?;
    let (low, high) = consumer
        .fetch_watermarks(topic, 0, BROKER_WAIT)
        .map_err(|e| error(format!("cannot read its offsets: {e}")))?;
    if high <= low {
        return Ok(false);
    }
    let mut assignment = TopicPartitionList::new();
    assignment
        .add_partition_offset(topic, 0, Offset::Offset(low))
        .map_err(|e| error(e.to_string()))?;
    consumer
        .assign(&assignment)
        .map_err(|e| error(e.to_string()))?;
    let deadline = Instant::now() + BROKER_WAIT * 3;
    let mut found = false;
    loop {
        match consumer.poll(Duration::from_millis(200)) {
            Some(Ok(record)) => {
                let ours = record.key() == Some(transactions.id.as_bytes());
                let names = record
                    .payload()
                    .and_then(|p| std::str::from_utf8(p).ok())
                    .and_then(marker_epoch);
                found |= ours && names.as_ref() == Some(epoch);
                if record.offset() + 1 >= high {
                    return Ok(found);
                }
            }
            Some(Err(KafkaError::PartitionEOF(_))) => return Ok(found),
            Some(Err(e)) => return Err(error(format!("cannot read it: {e}"))),
            None if Instant::now() > deadline => {
                return Err(error(format!(
                    "no records up to offset {high} within {} s",
                    (BROKER_WAIT * 3).as_secs()
                )))
            }
            None => {}
        }
    }
}

/// Whether a client error says another producer took over the
/// transactional id.
pub(super) fn is_fenced(e: &KafkaError) -> bool {
    let code = match e {
        KafkaError::Transaction(e) => e.code(),
        other => other
            .rdkafka_error_code()
            .unwrap_or(RDKafkaErrorCode::NoError),
    };
    matches!(
        code,
        RDKafkaErrorCode::Fenced
            | RDKafkaErrorCode::ProducerFenced
            | RDKafkaErrorCode::InvalidProducerEpoch
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_names_its_epoch_and_what_it_wrote() {
        let epoch = Epoch {
            job: 0xfeed_0001,
            statement: 2,
            number: 7,
        };
        let text = marker(&epoch, &BTreeMap::from([(0, (10, 14)), (3, (2, 2))]));
        assert_eq!(
            text,
            r#"{"epoch":7,"job":"00000000feed0001","partitions":{"0":[10,14],"3":[2,2]},"statement":2}"#
        );
        assert_eq!(marker_epoch(&text), Some(epoch));
        assert_eq!(marker_epoch("not a marker"), None);
        assert_eq!(marker_epoch(r#"{"epoch":7}"#), None);
    }

    #[test]
    fn epoch_topics_are_kafka_topic_names() {
        assert!(is_topic_name("bids-eo-epochs"));
        assert!(is_topic_name(&default_epoch_topic("job_7.totals")));
        assert!(!is_topic_name(&default_epoch_topic("job 7")));
        assert!(!is_topic_name(".."));
        assert!(!is_topic_name(&"t".repeat(250)));
    }

    #[test]
    fn the_checkpoint_bound_is_half_the_transaction_timeout() -> Result<()> {
        let client = BTreeMap::from([("transaction.timeout.ms".to_string(), "900000".to_string())]);
        let t = Transactions::of("p", None, &client)?;
        assert_eq!(t.id, "p-0");
        assert_eq!(t.epoch_topic, "p-epochs");
        assert_eq!(t.checkpoint_within(), Duration::from_secs(450));
        let t = Transactions::of("p", Some("marks"), &BTreeMap::new())?;
        assert_eq!(
            (t.epoch_topic.as_str(), t.checkpoint_within()),
            ("marks", Duration::from_secs(30))
        );
        let bad = BTreeMap::from([("transaction.timeout.ms".to_string(), "1 min".to_string())]);
        assert!(Transactions::of("p", None, &bad).is_err());
        Ok(())
    }
}
