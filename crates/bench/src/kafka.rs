//! A check of the Kafka-compatible broker the tests and benchmarks run
//! against, before anything trusts it: a topic of two partitions created,
//! records produced one per request into each, the end offsets the broker
//! reports equal to the records sent, and every record read back in order.
//! `.ci/kafka start` runs it on the broker it starts.

use anyhow::{bail, Context, Result};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::{Message, Offset, TopicPartitionList};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct KafkaCheckArgs {
    /// The broker's bootstrap servers (default: $TIDEMARK_TEST_KAFKA).
    #[arg(long)]
    brokers: Option<String>,
    /// Records produced into each of the two partitions.
    #[arg(long, default_value_t = 50)]
    records: i64,
}

#[derive(clap::Args)]
pub struct KafkaTopicArgs {
    /// The broker's bootstrap servers (default: $TIDEMARK_TEST_KAFKA).
    #[arg(long)]
    brokers: Option<String>,
    /// The topic's name.
    topic: String,
    /// Its partitions.
    partitions: i32,
}

/// How long the check waits on the broker for any one step.
const WAIT: Duration = Duration::from_secs(20);

const PARTITIONS: i32 = 2;

/// The brokers named by `--brokers` or `$TIDEMARK_TEST_KAFKA`.
fn brokers(given: &Option<String>) -> Result<String> {
    match given
        .clone()
        .or_else(|| std::env::var("TIDEMARK_TEST_KAFKA").ok())
    {
        Some(brokers) => Ok(brokers),
        None => bail!(
            "no broker: pass --brokers or set TIDEMARK_TEST_KAFKA (`.ci/kafka start` prints it)"
        ),
    }
}

pub fn topic(args: &KafkaTopicArgs) -> Result<ExitCode> {
    let brokers = brokers(&args.brokers)?;
    if args.partitions < 1 {
        bail!(
            "a topic needs at least one partition, not {}",
            args.partitions
        );
    }
    create_topic(&brokers, &args.topic, args.partitions)?;
    println!(
        "topic {} on {brokers}: {} partition{}",
        args.topic,
        args.partitions,
        if args.partitions == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}

pub fn check(args: &KafkaCheckArgs) -> Result<ExitCode> {
    let brokers = brokers(&args.brokers)?;
    let topic = format!("tidemark-check-{}", std::process::id());
    create_topic(&brokers, &topic, PARTITIONS)?;
    let sent = produce(&brokers, &topic, args.records)?;
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", &brokers)
        .set("group.id", &topic)
        .set("enable.auto.commit", "false")
        .create()
        .context("cannot make a consumer")?;
    for p in 0..PARTITIONS {
        let (low, high) = consumer
            .fetch_watermarks(&topic, p, WAIT)
            .with_context(|| format!("no end offset for partition {p}"))?;
        if (low, high) != (0, args.records) {
            bail!(
                "partition {p} of {topic} reports offsets {low}..{high} after {} records were sent one per request: the broker miscounts",
                args.records
            );
        }
    }
    let read = read_back(&consumer, &topic, args.records)?;
    if read != sent {
        bail!("the records read back from {topic} differ from those sent");
    }
    println!(
        "kafka broker at {brokers}: ok ({PARTITIONS} partitions x {} records: end offsets right, read back in order)",
        args.records
    );
    Ok(ExitCode::SUCCESS)
}

pub fn create_topic(brokers: &str, topic: &str, partitions: i32) -> Result<()> {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .create()
        .context("cannot make an admin client")?;
    let new = NewTopic::new(topic, partitions, TopicReplication::Fixed(1));
    let options = AdminOptions::new().operation_timeout(Some(WAIT));
    let results = futures_executor::block_on(admin.create_topics([&new], &options))
        .with_context(|| format!("cannot create topic {topic} on {brokers}"))?;
    for result in results {
        if let Err((name, code)) = result {
            bail!("cannot create topic {name}: {code}");
        }
    }
    Ok(())
}

/// A producer that sends one record per request, the most the test
/// broker is trusted with (see `.ci/kafka`).
pub fn one_record_per_request(brokers: &str) -> Result<BaseProducer> {
    ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("batch.num.messages", "1")
        .set("linger.ms", "0")
        .set("queue.buffering.max.messages", "1000000")
        .create()
        .context("cannot make a producer")
}

/// Sends `records` records into each partition, one per request (the
/// broker is only trusted with those); the payloads, per partition.
fn produce(brokers: &str, topic: &str, records: i64) -> Result<Vec<Vec<String>>> {
    let producer = one_record_per_request(brokers)?;
    let mut sent = vec![Vec::new(); PARTITIONS as usize];
    for i in 0..records {
        for (p, payloads) in sent.iter_mut().enumerate() {
            let payload = format!("2024-01-01 00:00:{:02}.{i:03},p{p}", i % 60);
            let record = BaseRecord::<(), _>::to(topic)
                .payload(&payload)
                .partition(p as i32);
            producer
                .send(record)
                .map_err(|(e, _)| e)
                .context("cannot send a record")?;
            producer.poll(Duration::ZERO);
            payloads.push(payload);
        }
    }
    producer
        .flush(WAIT)
        .context("the records were not all acknowledged")?;
    Ok(sent)
}

/// Reads every partition from its start to `records`, in order.
fn read_back(consumer: &BaseConsumer, topic: &str, records: i64) -> Result<Vec<Vec<String>>> {
    let mut assignment = TopicPartitionList::new();
    for p in 0..PARTITIONS {
        assignment.add_partition_offset(topic, p, Offset::Beginning)?;
    }
    consumer.assign(&assignment)?;
    let mut read = vec![Vec::new(); PARTITIONS as usize];
    let started = Instant::now();
    while read.iter().any(|r| (r.len() as i64) < records) {
        if started.elapsed() > WAIT {
            bail!("reading {topic} back timed out");
        }
        let Some(message) = consumer.poll(Duration::from_millis(200)) else {
            continue;
        };
        let message = message.context("cannot read a record back")?;
        let partition = message.partition() as usize;
        let payload = String::from_utf8_lossy(message.payload().unwrap_or_default()).into_owned();
        let Some(into) = read.get_mut(partition) else {
            bail!("a record came from partition {partition}, which the topic does not have");
        };
        if message.offset() != into.len() as i64 {
            bail!(
                "partition {partition} gave offset {} where {} was next",
                message.offset(),
                into.len()
            );
        }
        into.push(payload);
    }
    Ok(read)
}
