//! The kafka source's benchmark: the TUMBLE benchmark's rows in a topic of
//! four partitions on a Kafka-compatible broker (a row per record, in
//! turn over the partitions), read to the end by `tidemark run` through
//! TUMBLE 1 min into a blackhole, against the same query over the same
//! rows from their CSV file, and against a plain client that only reads
//! the records (the broker's own limit) — all in the same run.
//!
//! The topic is filled once per row count and kept for later runs; the
//! test broker takes one record per request, so filling it is slow.

use crate::driver::{own_paths, tidemark_binary, warn_if_debug_build};
use crate::measure::{measure, summary_value};
use crate::numbers::{median, per_second};
use anyhow::{bail, Context, Result};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{BaseRecord, Producer};
use rdkafka::{Message, Offset, TopicPartitionList};
use std::ffi::OsStr;
use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const PARTITIONS: i32 = 4;
const WAIT: Duration = Duration::from_secs(30);

#[derive(clap::Args)]
pub struct KafkaBenchArgs {
    /// The broker's bootstrap servers (default: $TIDEMARK_TEST_KAFKA).
    #[arg(long)]
    brokers: Option<String>,
    /// Rows, as for the TUMBLE benchmark.
    #[arg(long, default_value_t = 5_000_000)]
    rows: u64,
    /// Distinct keys.
    #[arg(long, default_value_t = 1_000)]
    keys: u64,
    /// Runs of each reader; medians are reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// The tidemark binary (default: the release build next to this
    /// program, built first).
    #[arg(long)]
    tidemark: Option<PathBuf>,
}

pub fn kafka(args: &KafkaBenchArgs) -> Result<ExitCode> {
    warn_if_debug_build();
    let brokers = args
        .brokers
        .clone()
        .or_else(|| std::env::var("TIDEMARK_TEST_KAFKA").ok())
        .context(
            "no broker: pass --brokers or set TIDEMARK_TEST_KAFKA (`.ci/kafka start` prints it)",
        )?;
    let (_, target_dir) = own_paths()?;
    let tidemark = tidemark_binary(args.tidemark.as_deref(), &target_dir)?;
    let data = crate::data::prepare(&target_dir.join("bench-data"), args.rows, args.keys)?;
    let topic = format!("tidemark-bench-r{}-k{}", args.rows, args.keys);
    fill(&brokers, &topic, &data.csv, args.rows)?;
    let from_csv = data.sql.clone();
    let from_kafka = data.dir.join("kafka.sql");
    let script = std::fs::read_to_string(&from_csv).context("cannot read the TUMBLE job")?;
    let kafka_with = format!(
        "WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{brokers}', \
         'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'csv')"
    );
    let file_with = "WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv')";
    if !script.contains(file_with) {
        bail!("the TUMBLE job does not read bids.csv as expected");
    }
    std::fs::write(&from_kafka, script.replace(file_with, &kafka_with))
        .context("cannot write the kafka job")?;
    let mut times: [Vec<f64>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for run in 1..=args.runs {
        let started = Instant::now();
        let read = read_all(&brokers, &topic)?;
        times[0].push(started.elapsed().as_secs_f64());
        if read != args.rows {
            bail!(
                "the plain client read {read} records, {} expected",
                args.rows
            );
        }
        let mut emitted = Vec::new();
        for (i, job) in [&from_csv, &from_kafka].into_iter().enumerate() {
            let m = measure(tidemark.as_os_str(), &[OsStr::new("run"), job.as_os_str()])?;
            let rows_read = summary_value(&m.stderr, "source bids:").unwrap_or("?");
            if !rows_read.starts_with(&format!("{} rows read", args.rows)) {
                bail!("{}: source bids: {rows_read}", job.display());
            }
            emitted.push(
                summary_value(&m.stderr, "rows emitted:")
                    .unwrap_or("?")
                    .to_string(),
            );
            times[i + 1].push(m.wall_s);
        }
        println!(
            "run {run}/{}: plain client {:.3} s | tidemark from csv {:.3} s ({} rows out) | from kafka {:.3} s ({} rows out)",
            args.runs, times[0][run - 1], times[1][run - 1], emitted[0], times[2][run - 1], emitted[1]
        );
    }
    let [plain, csv, kafka] = times.map(|t| median(&t));
    println!(
        "\n{} rows in {PARTITIONS} partitions ({} MiB of CSV), medians of {} runs:",
        args.rows,
        data.bytes / (1 << 20),
        args.runs
    );
    println!(
        "  plain client, reading only:   {plain:.3} s ({} rows/s)",
        per_second(args.rows, plain)
    );
    println!(
        "  tidemark TUMBLE from CSV:      {csv:.3} s ({} rows/s)",
        per_second(args.rows, csv)
    );
    println!(
        "  tidemark TUMBLE from Kafka:    {kafka:.3} s ({} rows/s): {:.2}x the plain client, {:.2}x the CSV run",
        per_second(args.rows, kafka),
        kafka / plain,
        kafka / csv
    );
    Ok(ExitCode::SUCCESS)
}

/// Records in the topic: the sum of its partitions' end offsets, or None
/// when there is no such topic.
fn records_in(consumer: &BaseConsumer, topic: &str) -> Result<Option<u64>> {
    let metadata = consumer
        .fetch_metadata(Some(topic), WAIT)
        .context("no answer from the broker")?;
    let Some(found) = metadata
        .topics()
        .iter()
        .find(|t| t.name() == topic && t.error().is_none() && !t.partitions().is_empty())
    else {
        return Ok(None);
    };
    if found.partitions().len() != PARTITIONS as usize {
        bail!(
            "topic {topic} has {} partitions, not {PARTITIONS}",
            found.partitions().len()
        );
    }
    let mut sum = 0;
    for p in 0..PARTITIONS {
        let (low, high) = consumer.fetch_watermarks(topic, p, WAIT)?;
        sum += (high - low) as u64;
    }
    Ok(Some(sum))
}

fn consumer(brokers: &str) -> Result<BaseConsumer> {
    ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("group.id", "tidemark-bench")
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "false")
        // As tidemark reads: committed records only.
        .set("isolation.level", "read_committed")
        .create()
        .context("cannot make a consumer")
}

/// Fills `topic` with the CSV's rows unless it holds them already: row i
/// goes to partition i mod 4, one record per request.
fn fill(brokers: &str, topic: &str, csv: &std::path::Path, rows: u64) -> Result<()> {
    let probe = consumer(brokers)?;
    match records_in(&probe, topic)? {
        Some(n) if n == rows => return Ok(()),
        Some(n) => {
            bail!("topic {topic} holds {n} records, not {rows}: delete it or restart the broker")
        }
        None => {}
    }
    crate::kafka::create_topic(brokers, topic, PARTITIONS)?;
    let producer = crate::kafka::one_record_per_request(brokers)?;
    let started = Instant::now();
    let file =
        std::fs::File::open(csv).with_context(|| format!("cannot open {}", csv.display()))?;
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.context("cannot read the CSV")?;
        let mut record = BaseRecord::<(), _>::to(topic)
            .payload(&line)
            .partition((i % PARTITIONS as usize) as i32);
        loop {
            match producer.send(record) {
                Ok(()) => break,
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                    record = back;
                    producer.poll(Duration::from_millis(10));
                }
                Err((e, _)) => return Err(e).context("cannot send a record"),
            }
        }
        producer.poll(Duration::ZERO);
    }
    producer
        .flush(Duration::from_secs(600))
        .context("the records were not all acknowledged")?;
    match records_in(&probe, topic)? {
        Some(n) if n == rows => {}
        other => bail!("topic {topic} holds {other:?} records after filling it with {rows}"),
    }
    eprintln!(
        "filled topic {topic} with {rows} records in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Reads every record of the topic to its partitions' end offsets, as a
/// plain client does; the number read.
fn read_all(brokers: &str, topic: &str) -> Result<u64> {
    let consumer = consumer(brokers)?;
    let mut assignment = TopicPartitionList::new();
    let mut ends = Vec::new();
    for p in 0..PARTITIONS {
        let (low, high) = consumer.fetch_watermarks(topic, p, WAIT)?;
        assignment.add_partition_offset(topic, p, Offset::Offset(low))?;
        ends.push(high);
    }
    consumer.assign(&assignment)?;
    let mut next: Vec<i64> = vec![0; PARTITIONS as usize];
    let mut read = 0u64;
    let mut bytes = 0usize;
    let started = Instant::now();
    while next.iter().zip(&ends).any(|(n, e)| n < e) {
        if started.elapsed() > Duration::from_secs(600) {
            bail!("reading {topic} timed out");
        }
        let Some(message) = consumer.poll(Duration::from_millis(100)) else {
            continue;
        };
        let message = message.context("a record could not be read")?;
        bytes += message.payload().map_or(0, <[u8]>::len);
        next[message.partition() as usize] = message.offset() + 1;
        read += 1;
    }
    std::hint::black_box(bytes);
    Ok(read)
}
