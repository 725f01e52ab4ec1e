//! The kafka connector's source against a real Kafka-compatible broker: a
//! bounded read of a topic of four partitions gives exactly what the same
//! rows give as a folder of four files (a partition, like a file, is a
//! split with its own watermark), at every batch size; a missing topic, a
//! bad record and an unreachable broker are clear errors.
//!
//! The broker is named by `TIDEMARK_TEST_KAFKA` (see [`common::kafka`]).
//! Without it these tests say so and pass: `.ci/run` always sets it.

mod common;

use common::kafka::{create_topic, produce, produce_keyed};
use common::Rng;
use rdkafka::config::ClientConfig;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// The broker, or None (the test is then skipped, saying so).
fn broker(test: &str) -> Option<String> {
    common::kafka::broker("kafka_source", test)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tidemark-kafka-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Makes `topic` with `partitions` partitions, and fills each with its
/// lines.
fn topic_with(servers: &str, topic: &str, partitions: &[Vec<String>]) {
    let untimed: Vec<Vec<(String, Option<i64>)>> = partitions
        .iter()
        .map(|lines| lines.iter().map(|l| (l.clone(), None)).collect())
        .collect();
    timed_topic_with(servers, topic, &untimed);
}

/// As [`topic_with`], each record with the timestamp given (epoch
/// milliseconds), or the producer's clock.
fn timed_topic_with(servers: &str, topic: &str, partitions: &[Vec<(String, Option<i64>)>]) {
    create_topic(servers, topic, partitions.len() as i32);
    produce(servers, topic, partitions);
}

/// Seeded bids for each of four partitions: out of order within a few
/// seconds, a quiet partition that ends early, and late rows.
fn partitions(rng: &mut Rng) -> Vec<Vec<String>> {
    (0..4i64)
        .map(|p| {
            let rows: i64 = if p == 3 { 15 } else { 60 };
            (0..rows)
                .map(|i| {
                    let jitter = rng.below(4_000) as i64;
                    let late = if rng.below(20) == 0 { 12_000 } else { 0 };
                    let ms = (i * 1_000 + jitter - late).max(0) + p * 250;
                    format!(
                        "2024-01-01 00:{:02}:{:02}.{:03},k{},{}",
                        ms / 60_000,
                        (ms / 1_000) % 60,
                        ms % 1_000,
                        rng.below(3),
                        rng.below(100)
                    )
                })
                .collect()
        })
        .collect()
}

const QUERY: &str = "SELECT window_start, k, COUNT(*) AS n, SUM(v) AS total \
     FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) \
     GROUP BY window_start, window_end, k;";

fn job(dir: &Path, name: &str, with: &str) -> PathBuf {
    let job = dir.join(format!("{name}.sql"));
    let sql = format!(
        "CREATE TABLE bids (ts TIMESTAMP(3), k STRING, v BIGINT, \
         WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ({with});\n{QUERY}\n"
    );
    std::fs::write(&job, sql).expect("the job");
    job
}

fn run(job: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .arg("run")
        .args(args)
        .arg(job)
        .output()
        .expect("tidemark runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn kafka_with(servers: &str, topic: &str) -> String {
    format!(
        "'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}', \
         'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', \
         'format' = 'csv'"
    )
}

#[test]
fn a_bounded_read_of_four_partitions_gives_what_four_files_give() {
    let Some(servers) = broker("bounded read") else {
        return;
    };
    let mut rng = Rng(common::env_number("TIDEMARK_KAFKA_SEED", 0x6b61_666b));
    let rows = partitions(&mut rng);
    let topic = format!("bids-{}", std::process::id());
    topic_with(&servers, &topic, &rows);
    let dir = scratch("bounded");
    std::fs::create_dir_all(dir.join("parts")).unwrap();
    for (p, lines) in rows.iter().enumerate() {
        std::fs::write(dir.join(format!("parts/p{p}.csv")), lines.join("\n") + "\n").unwrap();
    }
    let files = run(
        &job(
            &dir,
            "files",
            "'connector' = 'filesystem', 'path' = 'parts/', 'format' = 'csv'",
        ),
        &[],
    );
    assert!(files.status.success(), "{}", text(&files.stderr));
    let kafka_job = job(&dir, "kafka", &kafka_with(&servers, &topic));
    let kafka = run(&kafka_job, &[]);
    assert!(kafka.status.success(), "{}", text(&kafka.stderr));
    assert!(!files.stdout.is_empty());
    assert_eq!(text(&kafka.stdout), text(&files.stdout));
    // The same late rows, counted the same.
    let late = |o: &Output| {
        text(&o.stderr)
            .lines()
            .find(|l| l.starts_with("operator WindowAggregate"))
            .map(str::to_string)
    };
    assert_eq!(late(&kafka), late(&files), "{}", text(&kafka.stderr));
    assert!(
        text(&kafka.stderr).contains("source bids: 195 rows read"),
        "{}",
        text(&kafka.stderr)
    );
    // Each partition's rows, watermark, offsets and lag in the summary.
    for (p, rows) in [(0, 60), (3, 15)] {
        let line = format!("  split {topic}-{p}: {rows} rows read, watermark 2024-01-01 00:");
        let tail = format!(", next offset {rows}, end offset {rows}, lag 0\n");
        let stderr = text(&kafka.stderr);
        let found = stderr.lines().find(|l| l.starts_with(&line));
        assert!(
            found.is_some_and(|l| format!("{l}\n").ends_with(&tail)),
            "{stderr}"
        );
    }
    for batch in ["1", "7"] {
        let again = run(&kafka_job, &["--batch-size", batch]);
        assert_eq!(
            text(&again.stdout),
            text(&kafka.stdout),
            "batch size {batch}"
        );
    }
}

#[test]
fn metadata_columns_give_each_row_its_record() {
    let Some(servers) = broker("metadata") else {
        return;
    };
    // 2024-01-01 00:00:00 UTC.
    let base = 1_704_067_200_000i64;
    let topic = format!("meta-{}", std::process::id());
    timed_topic_with(
        &servers,
        &topic,
        &[
            vec![
                ("a,1".into(), Some(base + 1_000)),
                ("a,2".into(), Some(base + 3_000)),
            ],
            vec![("b,10".into(), Some(base + 2_000))],
        ],
    );
    let dir = scratch("metadata");
    let with = kafka_with(&servers, &topic);
    // Columns in declared order, metadata among them; the record's
    // timestamp is the rowtime. Rows come from the partition whose
    // watermark is lowest: a,1 (p0 to 00:00:00), then b,10 (p1, never
    // read), then a,2 (p0 at 00:00:00 is below p1's 00:00:01).
    let all = dir.join("all.sql");
    std::fs::write(
        &all,
        format!(
            "SET 'table.local-time-zone' = 'UTC';\n\
             CREATE TABLE bids (k STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', \
             part INT METADATA FROM 'partition' VIRTUAL, v BIGINT, \
             `offset` BIGINT METADATA VIRTUAL, topic STRING METADATA, \
             kind STRING METADATA FROM 'timestamp-type', \
             WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ({with});\n\
             SELECT * FROM bids;\n"
        ),
    )
    .unwrap();
    let out = run(&all, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want = [
        format!("+I[a, 2024-01-01 00:00:01.000, 0, 1, 0, {topic}, CreateTime]"),
        format!("+I[b, 2024-01-01 00:00:02.000, 1, 10, 0, {topic}, CreateTime]"),
        format!("+I[a, 2024-01-01 00:00:03.000, 0, 2, 1, {topic}, CreateTime]"),
    ];
    assert_eq!(text(&out.stdout).lines().collect::<Vec<_>>(), want);
    // Declared as TIMESTAMP(3), the timestamp is the wall-clock time in
    // the session's zone, and windows are on it.
    let zoned = dir.join("zoned.sql");
    std::fs::write(
        &zoned,
        format!(
            "SET 'table.local-time-zone' = 'Asia/Shanghai';\n\
             CREATE TABLE bids (k STRING, v BIGINT, ts TIMESTAMP(3) METADATA FROM 'timestamp', \
             WATERMARK FOR ts AS ts) WITH ({with});\n\
             SELECT window_start, SUM(v) AS total \
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND)) \
             GROUP BY window_start, window_end;\n"
        ),
    )
    .unwrap();
    let out = run(&zoned, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).lines().collect::<Vec<_>>(),
        [
            "+I[2024-01-01 08:00:00.000, 1]",
            "+I[2024-01-01 08:00:02.000, 12]"
        ]
    );
}

#[test]
fn keys_and_raw_values_are_read_as_flinks_kafka_table_reads_them() {
    let Some(servers) = broker("keys and raw values") else {
        return;
    };
    let dir = scratch("keys");
    let keyed = format!("keyed-{}", std::process::id());
    create_topic(&servers, &keyed, 1);
    produce_keyed(
        &servers,
        &keyed,
        &[
            (Some(r#"{"id":1}"#), Some("apple,3")),
            (None, Some("pear,4")),
            (Some(r#"{"id":3}"#), Some("\"multi\nline\",5")),
            (Some(r#"{"id":4}"#), None),
            (Some(r#"{"id":5}"#), Some("plum,6")),
        ],
    );
    let raw = format!("raw-{}", std::process::id());
    create_topic(&servers, &raw, 1);
    produce_keyed(
        &servers,
        &raw,
        &[
            (None, Some("a,b")),
            (None, Some("x\ny")),
            (None, None),
            (None, Some("")),
            (None, Some("{\"not\": json")),
        ],
    );
    let bad = format!("badkey-{}", std::process::id());
    create_topic(&servers, &bad, 1);
    produce_keyed(
        &servers,
        &bad,
        &[
            (Some(r#"{"id":1}"#), Some("a,1")),
            (Some(r#"{"id":"x"}"#), Some("b,2")),
        ],
    );
    let table = |topic: &str| {
        format!(
            "'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}', \
             'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'"
        )
    };
    let job = dir.join("keys.sql");
    std::fs::write(
        &job,
        format!(
            "CREATE TABLE fruit (k_id INT, name STRING, amount BIGINT, `offset` BIGINT METADATA VIRTUAL) \
             WITH ({}, 'key.format' = 'json', 'key.fields' = 'k_id', 'key.fields-prefix' = 'k_', \
             'value.fields-include' = 'EXCEPT_KEY', 'value.format' = 'csv');\n\
             CREATE TABLE raw_keys (name STRING, k STRING, amount BIGINT) \
             WITH ({}, 'key.format' = 'raw', 'key.fields' = 'k', \
             'value.fields-include' = 'EXCEPT_KEY', 'format' = 'csv');\n\
             CREATE TABLE lines (line STRING, `offset` BIGINT METADATA VIRTUAL) WITH ({}, 'format' = 'raw');\n\
             SELECT * FROM fruit;\n\
             SELECT k, name FROM raw_keys;\n\
             SELECT line, CHAR_LENGTH(line) AS n, `offset` FROM lines;\n",
            table(&keyed),
            table(&keyed),
            table(&raw)
        ),
    )
    .unwrap();
    let out = run(&job, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The key's column comes from the key, named without its prefix
    // there; a record without a key gives NULL, one without a value no
    // row; a value spanning lines is one record, the next keeps its
    // offset. A raw key is the key's text, a raw value the value's whole
    // text, a record without one a NULL.
    let want = "+I[1, apple, 3, 0]\n\
                +I[<NULL>, pear, 4, 1]\n\
                +I[3, multi\nline, 5, 2]\n\
                +I[5, plum, 6, 4]\n\
                +I[{\"id\":1}, apple]\n\
                +I[<NULL>, pear]\n\
                +I[{\"id\":3}, multi\nline]\n\
                +I[{\"id\":5}, plum]\n\
                +I[a,b, 3, 0]\n\
                +I[x\ny, 3, 1]\n\
                +I[<NULL>, <NULL>, 2]\n\
                +I[, 0, 3]\n\
                +I[{\"not\": json, 12, 4]\n";
    assert_eq!(text(&out.stdout), want);

    let job = dir.join("bad.sql");
    std::fs::write(
        &job,
        format!(
            "CREATE TABLE t (id INT, name STRING, amount BIGINT) \
             WITH ({}, 'key.format' = 'json', 'key.fields' = 'id', \
             'value.fields-include' = 'EXCEPT_KEY', 'format' = 'csv');\n\
             SELECT * FROM t;\n",
            table(&bad)
        ),
    )
    .unwrap();
    let out = run(&job, &[]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("topic {bad}, partition 0, offset 1, in its key")),
        "{stderr}"
    );
}

#[test]
fn a_checkpointed_read_resumes_each_partition_where_it_stood() {
    let Some(servers) = broker("checkpoint") else {
        return;
    };
    let mut rng = Rng(common::env_number("TIDEMARK_KAFKA_SEED", 0x0c4e_c4b0));
    let rows = partitions(&mut rng);
    let topic = format!("resume-{}", std::process::id());
    topic_with(&servers, &topic, &rows);
    let group = format!("tidemark-test-{}", std::process::id());
    let dir = scratch("resume");
    let insert = |checkpoints: &str| {
        format!(
            "{checkpoints}CREATE TABLE bids (ts TIMESTAMP(3), k STRING, v BIGINT, \
             WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ({}, \
             'properties.group.id' = '{group}');\n\
             CREATE TABLE totals (window_start TIMESTAMP(3), k STRING, n BIGINT, total BIGINT) \
             WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');\n\
             INSERT INTO totals {QUERY}\n",
            kafka_with(&servers, &topic)
        )
    };
    let (plain, resumed) = (dir.join("plain"), dir.join("resumed"));
    for (folder, checkpoints) in [
        (&plain, ""),
        (
            &resumed,
            "SET 'execution.checkpointing.dir' = 'ckpt';\n\
             SET 'execution.checkpointing.interval' = '20 rows';\n",
        ),
    ] {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::write(folder.join("job.sql"), insert(checkpoints)).unwrap();
    }
    let reference = run(&plain.join("job.sql"), &["--batch-size", "5"]);
    assert!(reference.status.success(), "{}", text(&reference.stderr));
    let want = std::fs::read_to_string(plain.join("totals.csv")).unwrap();
    assert!(want.lines().count() > 10, "{want}");

    let crashed = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .args(["run", "--batch-size", "5"])
        .arg(resumed.join("job.sql"))
        .env("TIDEMARK_CRASH_AFTER_BATCHES", "25")
        .output()
        .expect("tidemark runs");
    assert!(!crashed.status.success(), "the injected crash ends the run");
    assert!(
        resumed.join("ckpt/checkpoint").exists(),
        "a checkpoint was taken"
    );
    // Records that came after the first start are past the bounded read's
    // end, which the checkpoint keeps: the resumed run does not read them.
    topic_with_more(&servers, &topic, 0, &["2024-01-01 00:00:50,k9,1000"]);
    let again = run(&resumed.join("job.sql"), &["--batch-size", "5", "--resume"]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    let got = std::fs::read_to_string(resumed.join("totals.csv")).unwrap();
    assert_eq!(got, want);

    // Each checkpoint committed where the partitions stood to the group.
    let committed = committed_offsets(&servers, &group, &topic, 4);
    let ends = [60, 60, 60, 15];
    assert!(
        committed
            .iter()
            .zip(ends)
            .all(|(c, end)| (0..=end).contains(c)),
        "{committed:?}"
    );
    assert!(committed.iter().sum::<i64>() >= 100, "{committed:?}");
}

#[test]
fn a_live_read_crashed_and_resumed_reads_every_record_once() {
    let Some(servers) = broker("live resume") else {
        return;
    };
    let mut rng = Rng(0x7e5e);
    let rows = partitions(&mut rng);
    let topic = format!("live-resume-{}", std::process::id());
    topic_with(&servers, &topic, &rows);
    let dir = scratch("live-resume");
    let with = format!(
        "'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}', \
         'scan.startup.mode' = 'earliest-offset', 'scan.watermark.idle-timeout' = '1 s', \
         'format' = 'csv'"
    );
    std::fs::write(
        dir.join("job.sql"),
        format!(
            "SET 'execution.checkpointing.dir' = 'ckpt';\n\
             SET 'execution.checkpointing.interval' = '10 rows';\n\
             CREATE TABLE bids (ts TIMESTAMP(3), k STRING, v BIGINT, \
             WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ({with});\n\
             CREATE TABLE totals (window_start TIMESTAMP(3), k STRING, n BIGINT, total BIGINT) \
             WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');\n\
             INSERT INTO totals {QUERY}\n"
        ),
    )
    .unwrap();
    // The crash comes in the first 60 rows, long before any partition
    // could be idle: every record is in the topic already.
    let crashed = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .args(["run", "--batch-size", "5"])
        .arg(dir.join("job.sql"))
        .env("TIDEMARK_CRASH_AFTER_BATCHES", "12")
        .output()
        .expect("tidemark runs");
    assert!(!crashed.status.success(), "the injected crash ends the run");
    assert!(
        dir.join("ckpt/checkpoint").exists(),
        "a live read is checkpointed: {}",
        text(&crashed.stderr)
    );
    // Tracing time is free to change between a run and its resumption.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .args(["run", "--trace", "--batch-size", "5", "--resume"])
        .arg(dir.join("job.sql"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tidemark runs");
    let stderr = child.stderr.take().expect("piped");
    let (send, lines) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)).map_while(Result::ok) {
            let _ = send.send(line.clone());
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    // Partition 3 goes quiet first; once it is idle the others go on.
    let quiet = format!("split={topic}-3");
    let idle = loop {
        match lines.recv_timeout(Duration::from_secs(20)) {
            Ok(line) if line.starts_with("IDLE") && line.contains(&quiet) => break true,
            Ok(_) => continue,
            Err(_) => break false,
        }
    };
    std::thread::sleep(Duration::from_millis(500));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let status = child.wait().expect("stopped");
    let err = reader.join().expect("stderr read");
    assert!(idle, "the quiet partition never went idle: {err}");
    assert!(err.contains("resuming from checkpoint"), "{err}");
    // Every record read once over the crash: none lost, none twice.
    assert!(
        err.contains("source bids: 195 rows read"),
        "{status:?} {err}"
    );
}

/// Appends `lines` to partition `p` of `topic`.
fn topic_with_more(servers: &str, topic: &str, p: usize, lines: &[&str]) {
    let mut partitions = vec![Vec::new(); p + 1];
    partitions[p] = lines.iter().map(|l| (l.to_string(), None)).collect();
    produce(servers, topic, &partitions);
}

/// The offsets `group` committed in the first `partitions` partitions of
/// `topic` (-1 for none).
fn committed_offsets(servers: &str, group: &str, topic: &str, partitions: i32) -> Vec<i64> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", servers)
        .set("group.id", group)
        .create()
        .expect("a consumer");
    let mut query = rdkafka::TopicPartitionList::new();
    for p in 0..partitions {
        query.add_partition(topic, p);
    }
    let found = consumer
        .committed_offsets(query, Duration::from_secs(20))
        .expect("the group's offsets");
    (0..partitions)
        .map(
            |p| match found.find_partition(topic, p).map(|e| e.offset()) {
                Some(rdkafka::Offset::Offset(at)) => at,
                _ => -1,
            },
        )
        .collect()
}

#[test]
fn a_missing_topic_a_bad_record_and_an_unreachable_broker_are_clear_errors() {
    let Some(servers) = broker("errors") else {
        return;
    };
    let dir = scratch("errors");
    let missing = run(
        &job(&dir, "missing", &kafka_with(&servers, "no-such-topic")),
        &[],
    );
    assert!(!missing.status.success());
    assert!(
        text(&missing.stderr).contains(&format!(
            "table bids: topic no-such-topic does not exist on the brokers {servers}"
        )),
        "{}",
        text(&missing.stderr)
    );

    let topic = format!("bad-{}", std::process::id());
    let lines = vec![
        "2024-01-01 00:00:01,a,1".to_string(),
        "2024-01-01 00:00:02,a,2".to_string(),
        "2024-01-01 00:00:03,a,three".to_string(),
    ];
    topic_with(&servers, &topic, &[lines]);
    let bad = run(&job(&dir, "bad", &kafka_with(&servers, &topic)), &[]);
    assert!(!bad.status.success());
    let err = text(&bad.stderr);
    assert!(
        err.contains(&format!("topic {topic}, partition 0, offset 2:")) && err.contains("three"),
        "{err}"
    );

    let away = run(&job(&dir, "away", &kafka_with("127.0.0.1:1", &topic)), &[]);
    assert!(!away.status.success());
    assert!(
        text(&away.stderr).contains("no answer from the brokers 127.0.0.1:1 within 10 s"),
        "{}",
        text(&away.stderr)
    );
}

#[test]
fn a_live_read_goes_on_without_a_quiet_partition_once_it_is_idle() {
    let Some(servers) = broker("live read") else {
        return;
    };
    let mut rng = Rng(0x11fe);
    let rows = partitions(&mut rng);
    let topic = format!("live-{}", std::process::id());
    topic_with(&servers, &topic, &rows);
    let dir = scratch("live");
    // Unbounded: the read follows the partitions. Partition 3 goes quiet
    // at 00:00:14; after a second it is idle and the others' windows fire.
    let with = format!(
        "'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}', \
         'scan.startup.mode' = 'earliest-offset', 'scan.watermark.idle-timeout' = '1 s', \
         'format' = 'csv'"
    );
    let job = job(&dir, "live", &with);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .args(["run", "--trace"])
        .arg(&job)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tidemark runs");
    let stdout = child.stdout.take().expect("piped");
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    let fired = loop {
        match lines.recv_timeout(Duration::from_secs(20)) {
            Ok(line) if line.starts_with("+I[2024-01-01 00:00:30.000") => break true,
            Ok(_) => continue,
            Err(_) => break false,
        }
    };
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().expect("stopped");
    let err = text(&out.stderr);
    assert!(
        fired,
        "no window after the quiet partition's watermark fired: {err}"
    );
    let idle = err
        .lines()
        .find(|l| l.starts_with("IDLE"))
        .unwrap_or_else(|| panic!("no IDLE line: {err}"));
    // The first to go idle is the quiet one; the others follow once
    // their rows are all read, if the stop comes later than a second.
    assert!(idle.contains(&format!("split={topic}-3")), "{idle}");
    assert!(
        err.contains("source bids: 195 rows read (a split went idle"),
        "{err}"
    );
}
