//! What the tests against a Kafka-compatible broker share: the broker
//! `TIDEMARK_TEST_KAFKA` names (`.ci/kafka start` runs a throwaway one and
//! prints it; `.ci/run` always sets it), topics made and filled record by
//! record, and topics read back whole.

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::Message;
use std::io::Write;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(20);

/// The broker's servers, or None: the test `suite: test` is then skipped,
/// saying so straight to stderr, past the harness's capture.
pub fn broker(suite: &str, test: &str) -> Option<String> {
    let Ok(servers) = std::env::var("TIDEMARK_TEST_KAFKA") else {
        let _ = writeln!(
            std::io::stderr(),
            "{suite}: {test}: skipped, TIDEMARK_TEST_KAFKA is not set (see .ci/kafka)"
        );
        return None;
    };
    Some(servers)
}

/// Makes `topic`, new, with `partitions` partitions.
pub fn create_topic(servers: &str, topic: &str, partitions: i32) {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", servers)
        .create()
        .expect("an admin client");
    let new = NewTopic::new(topic, partitions, TopicReplication::Fixed(1));
    let options = AdminOptions::new().operation_timeout(Some(WAIT));
    for result in
        futures_executor::block_on(admin.create_topics([&new], &options)).expect("topics created")
    {
        result.expect("the topic is new");
    }
}

/// A producer that sends one record per request (what the test broker
/// counts right).
fn one_per_request(servers: &str) -> BaseProducer {
    ClientConfig::new()
        .set("bootstrap.servers", servers)
        .set("batch.num.messages", "1")
        .set("linger.ms", "0")
        .create()
        .expect("a producer")
}

/// Sends each partition its lines, one record per request (what the test
/// broker counts right), each with the timestamp given (epoch
/// milliseconds) or the producer's clock.
pub fn produce(servers: &str, topic: &str, partitions: &[Vec<(String, Option<i64>)>]) {
    let producer = one_per_request(servers);
    for (p, lines) in partitions.iter().enumerate() {
        for (line, timestamp) in lines {
            let mut record = BaseRecord::<(), _>::to(topic)
                .payload(line)
                .partition(p as i32);
            if let Some(ms) = timestamp {
                record = record.timestamp(*ms);
            }
            producer.send(record).map_err(|(e, _)| e).expect("sent");
            producer.poll(Duration::ZERO);
        }
    }
    producer.flush(WAIT).expect("acknowledged");
}

/// Sends partition 0 of `topic` these records, one per request, each a
/// key and a value (None: the record has none).
pub fn produce_keyed(servers: &str, topic: &str, records: &[(Option<&str>, Option<&str>)]) {
    let producer = one_per_request(servers);
    for (key, value) in records {
        let mut record = BaseRecord::<str, str>::to(topic).partition(0);
        if let Some(key) = key {
            record = record.key(*key);
        }
        if let Some(value) = value {
            record = record.payload(*value);
        }
        producer.send(record).map_err(|(e, _)| e).expect("sent");
        producer.poll(Duration::ZERO);
    }
    producer.flush(WAIT).expect("acknowledged");
}

/// One record read back: its key and value (None: absent, a value's
/// absence being a tombstone) and timestamp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub key: Option<String>,
    pub value: Option<String>,
    pub timestamp: Option<i64>,
}

/// Every record of each of the `partitions` partitions of `topic`, in
/// offset order.
pub fn read_topic(servers: &str, topic: &str, partitions: i32) -> Vec<Vec<Record>> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", servers)
        .set("group.id", "tidemark-test-reader")
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed")
        .create()
        .expect("a consumer");
    (0..partitions)
        .map(|p| {
            let (low, high) = consumer
                .fetch_watermarks(topic, p, WAIT)
                .expect("the partition's offsets");
            let mut assignment = rdkafka::TopicPartitionList::new();
            assignment
                .add_partition_offset(topic, p, rdkafka::Offset::Offset(low))
                .expect("an offset");
            consumer.assign(&assignment).expect("assigned");
            let mut records = Vec::new();
            let mut next = low;
            let deadline = std::time::Instant::now() + WAIT;
            while next < high {
                assert!(
                    std::time::Instant::now() < deadline,
                    "partition {p} of {topic}: only up to offset {next} of {high} read"
                );
                let Some(message) = consumer.poll(Duration::from_millis(200)) else {
                    continue;
                };
                let message = message.expect("a record");
                next = message.offset() + 1;
                let text = |b: Option<&[u8]>| b.map(|b| String::from_utf8_lossy(b).into_owned());
                records.push(Record {
                    key: text(message.key()),
                    value: text(message.payload()),
                    timestamp: message.timestamp().to_millis(),
                });
            }
            records
        })
        .collect()
}
