//! Exactly-once delivery to Kafka (spec §9): a job killed around its
//! commits and resumed leaves each row committed once.
//!
//! Twice: against librdkafka's mock cluster, hosted in a helper process
//! (this test binary, run again as [`mock_cluster_host`]) so that it
//! outlives the jobs the test kills, which needs no service; and against
//! the broker `TIDEMARK_TEST_KAFKA` names (see [`common::kafka`];
//! `.ci/run` always sets it, and without it that test says so and
//! passes).
//!
//! The mock checks the transaction protocol as the client does (a
//! transactional id registered, a transaction per epoch begun and
//! committed, a crashed producer's left open and fenced off by the next
//! run) but keeps the records of aborted transactions readable and
//! writes no control records: there, the committed records are those
//! inside the epoch markers' ranges. The broker writes control records
//! and hides aborted transactions from a `read_committed` reader: there,
//! what that reader sees is compared.

mod common;

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::mocking::MockCluster;
use rdkafka::Message;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// Set for the helper process: the topics its cluster has, `name:n,...`.
const HOST_TOPICS: &str = "TIDEMARK_MOCK_KAFKA_TOPICS";

/// Not a test of its own: the body of the helper process, which runs a
/// mock cluster until its standard input closes.
#[test]
fn mock_cluster_host() {
    let Ok(topics) = std::env::var(HOST_TOPICS) else {
        return;
    };
    let cluster = MockCluster::new(1).expect("a mock cluster");
    for spec in topics.split(',') {
        let (name, partitions) = spec.split_once(':').expect("name:partitions");
        cluster
            .create_topic(name, partitions.parse().expect("a count"), 1)
            .expect("a topic");
    }
    let mut stdout = std::io::stdout();
    writeln!(stdout, "servers={}", cluster.bootstrap_servers()).expect("stdout");
    stdout.flush().expect("stdout");
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
}

/// A mock cluster in its own process, stopped when dropped.
struct MockHost {
    child: Child,
    servers: String,
}

impl MockHost {
    fn start(topics: &[(&str, i32)]) -> Self {
        let spec: Vec<String> = topics.iter().map(|(t, n)| format!("{t}:{n}")).collect();
        let mut child = Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "--exact",
                "mock_cluster_host",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(HOST_TOPICS, spec.join(","))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the mock cluster's process");
        let stdout = child.stdout.take().expect("its stdout");
        let servers = BufReader::new(stdout)
            .lines()
            .map_while(|l| l.ok())
            // The harness may have begun the line with the test's name.
            .find_map(|l| l.split_once("servers=").map(|(_, s)| s.trim().to_string()))
            .expect("the mock cluster's servers");
        MockHost { child, servers }
    }
}

impl Drop for MockHost {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tidemark-kafka-eo-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Bids over 40 s for five keys, two of them late.
fn bids() -> String {
    let mut lines = String::new();
    for i in 0..40u32 {
        let key = ["a", "b", "c", "d", "e"][(i as usize * 3) % 5];
        lines.push_str(&format!("2024-01-01 00:00:{i:02}.000,{key},{i}\n"));
        if i == 30 || i == 35 {
            lines.push_str(&format!("2024-01-01 00:00:{:02}.500,{key},1000\n", i - 15));
        }
    }
    lines
}

/// The job: one-second windows (many rows, so that each epoch holds
/// some) into an exactly-once topic of two partitions.
fn job(servers: &str, topic: &str) -> String {
    format!(
        "SET 'execution.checkpointing.dir' = 'ckpt';\n\
         SET 'execution.checkpointing.interval' = '6 rows';\n\
         CREATE TABLE bids (ts TIMESTAMP(3), k STRING, v BIGINT, \
         WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) \
         WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');\n\
         CREATE TABLE out (window_start TIMESTAMP(3), k STRING, n BIGINT, total BIGINT) \
         WITH ('connector' = 'kafka', 'topic' = '{topic}', \
         'properties.bootstrap.servers' = '{servers}', 'format' = 'json', \
         'key.fields' = 'k', 'key.format' = 'csv', \
         'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '{topic}');\n\
         INSERT INTO out SELECT window_start, k, COUNT(*), SUM(v) \
         FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' SECOND)) \
         GROUP BY window_start, window_end, k;\n"
    )
}

fn tidemark(folder: &Path, resume: bool, crash: Option<(&str, &str)>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tidemark"));
    command.args(["run", "--batch-size", "2"]);
    if resume {
        command.arg("--resume");
    }
    command.arg(folder.join("job.sql"));
    if let Some((variable, at)) = crash {
        command.env(variable, at);
    }
    command.output().expect("tidemark runs")
}

/// A record as read: partition, offset, key and value.
type Seen = (i32, i64, String);

/// Which records a reader is given: `read_committed` skips those of
/// aborted transactions (on a broker that writes control records; the
/// mock writes none, so it gives every record either way).
#[derive(Clone, Copy)]
enum Isolation {
    Committed,
    Uncommitted,
}

/// The records of `topic`'s `partitions`, with their offsets, read to
/// each partition's end (the end offset may be a transaction's control
/// record, which no reader is given, so the end is the client's word).
fn all_records(servers: &str, topic: &str, partitions: i32, isolation: Isolation) -> Vec<Seen> {
    let level = match isolation {
        Isolation::Committed => "read_committed",
        Isolation::Uncommitted => "read_uncommitted",
    };
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", servers)
        .set("group.id", "tidemark-test-reader")
        .set("enable.auto.commit", "false")
        .set("enable.partition.eof", "true")
        .set("isolation.level", level)
        .create()
        .expect("a consumer");
    let mut out = Vec::new();
    for p in 0..partitions {
        let (low, high) = consumer
            .fetch_watermarks(topic, p, Duration::from_secs(10))
            .expect("offsets");
        if low == high {
            continue;
        }
        let mut assignment = rdkafka::TopicPartitionList::new();
        assignment
            .add_partition_offset(topic, p, rdkafka::Offset::Offset(low))
            .expect("an offset");
        consumer.assign(&assignment).expect("assigned");
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            assert!(
                std::time::Instant::now() < deadline,
                "{topic} {p}: no end within 20 s"
            );
            let message = match consumer.poll(Duration::from_millis(200)) {
                None => continue,
                Some(Err(KafkaError::PartitionEOF(_))) => break,
                Some(message) => message.expect("a record"),
            };
            let part = |b: Option<&[u8]>| b.map(text).unwrap_or_default();
            out.push((
                p,
                message.offset(),
                format!("{} {}", part(message.key()), part(message.payload())),
            ));
        }
    }
    out
}

/// An epoch's number and the first and last offsets it wrote per partition.
type Marker = (u64, BTreeMap<i32, (i64, i64)>);

/// The epoch markers of `epoch_topic`: epoch number → written offsets per
/// partition.
fn markers(servers: &str, epoch_topic: &str) -> Vec<Marker> {
    all_records(servers, epoch_topic, 1, Isolation::Committed)
        .into_iter()
        .map(|(_, _, record)| {
            let json = record.split_once(' ').expect("key and value").1;
            let value: serde_json::Value = serde_json::from_str(json).expect("a marker");
            let ranges = value["partitions"]
                .as_object()
                .expect("partitions")
                .iter()
                .map(|(p, r)| {
                    (
                        p.parse().expect("a partition"),
                        (r[0].as_i64().expect("first"), r[1].as_i64().expect("last")),
                    )
                })
                .collect();
            (value["epoch"].as_u64().expect("an epoch"), ranges)
        })
        .collect()
}

/// The records inside the committed epochs' ranges, per partition in
/// offset order: what a `read_committed` reader of a real broker reads.
fn committed(records: &[Seen], markers: &[Marker]) -> Vec<Seen> {
    records
        .iter()
        .filter(|(p, offset, _)| {
            markers.iter().any(|(_, ranges)| {
                ranges
                    .get(p)
                    .is_some_and(|(first, last)| (first..=last).contains(&offset))
            })
        })
        .cloned()
        .collect()
}

fn without_offsets(records: &[Seen]) -> Vec<(i32, String)> {
    records.iter().map(|(p, _, r)| (*p, r.clone())).collect()
}

/// The topics one comparison uses: an uninterrupted run's and a crashed
/// one's, each with its epoch topic.
struct Topics {
    whole: String,
    crashed: String,
}

impl Topics {
    fn epochs(topic: &str) -> String {
        format!("{topic}-epochs")
    }
}

/// Runs the job once uninterrupted into `topics.whole`, and into
/// `topics.crashed` killed three times around its commits and resumed
/// each time: once the checkpoint closing epoch 3 is pending (its
/// transaction never commits), once epoch 5 is committed but its
/// checkpoint not confirmed, and once in the middle of an epoch. Returns
/// the epochs the uninterrupted run committed.
fn run_and_crash(servers: &str, topics: &Topics, dir: &Path) -> Vec<u64> {
    let (whole, crashed) = (dir.join("whole"), dir.join("crashed"));
    for (folder, topic) in [(&whole, &topics.whole), (&crashed, &topics.crashed)] {
        std::fs::create_dir_all(folder).expect("a scratch folder");
        std::fs::write(folder.join("bids.csv"), bids()).expect("the input");
        std::fs::write(folder.join("job.sql"), job(servers, topic)).expect("the job");
    }

    // Uninterrupted: epochs 1, 2, … each committed once.
    let reference = tidemark(&whole, false, None);
    assert!(reference.status.success(), "{}", text(&reference.stderr));
    let epochs: Vec<u64> = markers(servers, &Topics::epochs(&topics.whole))
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert!(epochs.len() >= 6, "{epochs:?}");
    assert_eq!(epochs, (1..=epochs.len() as u64).collect::<Vec<_>>());

    let stop = "TIDEMARK_CRASH_AT_EPOCH";
    let first = tidemark(&crashed, false, Some((stop, "3:pending")));
    assert!(!first.status.success(), "the injected crash ends the run");
    let second = tidemark(&crashed, true, Some((stop, "5:committed")));
    let said = text(&second.stderr);
    assert!(!second.status.success(), "{said}");
    assert!(
        said.contains("epoch 3 was not committed to table out before the run stopped: it is written again, from checkpoint 2"),
        "{said}"
    );
    let third = tidemark(&crashed, true, Some(("TIDEMARK_CRASH_AFTER_BATCHES", "4")));
    let said = text(&third.stderr);
    assert!(!third.status.success(), "{said}");
    assert!(
        said.contains(
            "epoch 5 was committed to table out before the run stopped: going on after it"
        ),
        "{said}"
    );
    assert!(said.contains("resuming from checkpoint 5"), "{said}");
    let last = tidemark(&crashed, true, None);
    let said = text(&last.stderr);
    assert!(last.status.success(), "{said}");
    assert!(said.contains("resuming from checkpoint"), "{said}");

    let got_epochs: Vec<u64> = markers(servers, &Topics::epochs(&topics.crashed))
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(got_epochs, epochs, "each epoch committed once, in order");
    epochs
}

/// Every record of both runs, aborted ones too: the uninterrupted run's
/// all lie inside its committed markers' ranges; the crashed run's inside
/// its markers are the same rows in the same partitions and order, and
/// its aborted epochs left records outside them.
fn check_committed_once(servers: &str, topics: &Topics) {
    let want = all_records(servers, &topics.whole, 2, Isolation::Uncommitted);
    let want_markers = markers(servers, &Topics::epochs(&topics.whole));
    assert_eq!(committed(&want, &want_markers), want);
    let got = all_records(servers, &topics.crashed, 2, Isolation::Uncommitted);
    let kept = committed(&got, &markers(servers, &Topics::epochs(&topics.crashed)));
    assert_eq!(without_offsets(&kept), without_offsets(&want));
    assert!(
        got.len() > kept.len(),
        "the aborted transactions left records outside the markers: {} of {}",
        kept.len(),
        got.len()
    );
}

#[test]
fn a_job_killed_around_its_commits_leaves_each_row_committed_once() {
    let topics = Topics {
        whole: "eo-whole".into(),
        crashed: "eo-crashed".into(),
    };
    let (whole_epochs, crashed_epochs) = (
        Topics::epochs(&topics.whole),
        Topics::epochs(&topics.crashed),
    );
    let host = MockHost::start(&[
        (topics.whole.as_str(), 2),
        (whole_epochs.as_str(), 1),
        (topics.crashed.as_str(), 2),
        (crashed_epochs.as_str(), 1),
    ]);
    let servers = host.servers.clone();
    let dir = scratch("crash");
    run_and_crash(&servers, &topics, &dir);

    check_committed_once(&servers, &topics);
    drop(host);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same crashes against a broker that writes control records: the
/// records inside the committed markers' ranges, at the broker's own
/// offsets, are the uninterrupted run's, each once, and the aborted
/// epochs' records are there too, outside them. (The test broker, tansu
/// 0.6.0, does not hide aborted transactions from a `read_committed`
/// reader, so what such a reader sees is not compared here.)
#[test]
fn against_a_broker_the_committed_epochs_hold_each_row_once() {
    let Some(servers) = common::kafka::broker(
        "kafka_exactly_once",
        "against_a_broker_the_committed_epochs_hold_each_row_once",
    ) else {
        return;
    };
    // Topics of their own, so that the test runs again on the same broker.
    let run = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis())
    );
    let topics = Topics {
        whole: format!("eo-whole-{run}"),
        crashed: format!("eo-crashed-{run}"),
    };
    common::kafka::create_topic(&servers, &topics.whole, 2);
    common::kafka::create_topic(&servers, &topics.crashed, 2);
    let dir = scratch("broker");
    run_and_crash(&servers, &topics, &dir);

    check_committed_once(&servers, &topics);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What exactly-once cannot do is refused before any broker is asked
/// (the servers named here do not exist).
#[test]
fn what_exactly_once_cannot_do_is_refused_up_front() {
    let dir = scratch("refused");
    std::fs::write(dir.join("bids.csv"), bids()).expect("the input");
    let table = |name: &str, extra: &str| {
        format!(
            "CREATE TABLE {name} (k STRING, v BIGINT) WITH ('connector' = 'kafka', 'topic' = '{name}', \
             'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json', \
             'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '{name}'{extra});\n"
        )
    };
    let source = "CREATE TABLE bids (ts TIMESTAMP(3), k STRING, v BIGINT, \
                  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) \
                  WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');\n";
    let cases = [
        (
            format!("{source}{}INSERT INTO out SELECT k, v FROM bids;\n", table("out", "")),
            "table out is written 'exactly-once', a transaction per checkpoint, and this run takes no checkpoints",
        ),
        (
            format!(
                "SET 'execution.checkpointing.dir' = 'ckpt';\n{source}{}INSERT INTO out SELECT k, v FROM bids;\n",
                table("out", ", 'properties.transactional.id' = 'mine'")
            ),
            "'properties.transactional.id' is set by tidemark from 'sink.transactional-id-prefix'",
        ),
    ];
    for (sql, want) in cases {
        std::fs::write(dir.join("job.sql"), &sql).expect("the job");
        let out = Command::new(env!("CARGO_BIN_EXE_tidemark"))
            .arg("run")
            .arg(dir.join("job.sql"))
            .output()
            .expect("tidemark runs");
        let said = text(&out.stderr);
        assert!(!out.status.success(), "{sql}");
        assert!(said.contains(want), "{sql}\n{said}");
        assert!(!said.contains("no answer from the brokers"), "{said}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
