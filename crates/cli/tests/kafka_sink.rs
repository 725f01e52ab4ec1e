//! The kafka and upsert-kafka sinks against a real Kafka-compatible broker:
//! keyed records land in the partitions Flink's Java client gives them
//! (murmur2 of the key), values and timestamps are the rows written, late
//! rows may go to a topic, an upsert-kafka topic keeps each key's latest
//! row with tombstones for deletions, and what cannot be written is a
//! clear error.
//!
//! The broker is named by `TIDEMARK_TEST_KAFKA` (see [`common::kafka`]).
//! Without it these tests say so and pass: `.ci/run` always sets it.

mod common;

use common::kafka::{create_topic, read_topic, Record};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn broker(test: &str) -> Option<String> {
    common::kafka::broker("kafka_sink", test)
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("tidemark-kafka-sink-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

fn run(dir: &Path, name: &str, sql: &str) -> Output {
    let job = dir.join(format!("{name}.sql"));
    std::fs::write(&job, sql).expect("the job");
    Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .arg("run")
        .arg(&job)
        .output()
        .expect("tidemark runs")
}

/// Written records go one per request: the test broker keeps only the
/// first record of a request holding several (a real Kafka takes the
/// client's batches; the bench and the source tests' producer do the same).
const ONE_PER_REQUEST: &str = "'properties.batch.num.messages' = '1'";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The murmur2 hashes Kafka's Java client gives these keys (its own test
/// values), and so the partition it places each in among `n`:
/// `(hash & 0x7fffffff) % n`.
const JAVA_HASHES: [(&str, i32); 5] = [
    ("1", -1993445489),
    ("12", 126087238),
    ("123", -267702483),
    ("1234", -1614185708),
    ("12345", -1188365604),
];

fn java_partition(key: &str, n: i32) -> i32 {
    let (_, hash) = JAVA_HASHES
        .iter()
        .find(|(k, _)| *k == key)
        .expect("a key with a known hash");
    (hash & 0x7fff_ffff) % n
}

/// Bids over 40 s with the five keys, in order but for two rows 15 s
/// behind (late for a 2 s watermark delay).
fn bids() -> String {
    let mut lines = String::new();
    for i in 0..40u32 {
        let (key, _) = JAVA_HASHES[(i as usize * 3) % 5];
        lines.push_str(&format!("2024-01-01 00:00:{i:02}.000,{key},{i}\n"));
        if i == 30 || i == 35 {
            lines.push_str(&format!("2024-01-01 00:00:{:02}.500,{key},1000\n", i - 15));
        }
    }
    lines
}

const SOURCE: &str = "CREATE TABLE bids (ts TIMESTAMP(3), k STRING, v BIGINT, \
     WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) \
     WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');\n";

const WINDOWS: &str = "SELECT window_start, k, COUNT(*) AS n, SUM(v) AS total, window_end \
     FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) \
     GROUP BY window_start, window_end, k";

#[test]
fn keyed_records_land_where_flinks_client_puts_them() {
    let Some(servers) = broker("keyed records") else {
        return;
    };
    let dir = scratch("keyed");
    std::fs::write(dir.join("bids.csv"), bids()).unwrap();
    let topic = format!("totals-{}", std::process::id());
    let late_topic = format!("late-{}", std::process::id());
    create_topic(&servers, &topic, 4);
    create_topic(&servers, &late_topic, 1);
    let kafka = |topic: &str, extra: &str| {
        format!(
            "'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}', \
             'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', {ONE_PER_REQUEST}{extra}"
        )
    };
    // The record's timestamp is the window's end, written from a column.
    let sql = format!(
        "{SOURCE}SET 'table.exec.late-records.sink' = 'late';\n\
         CREATE TABLE late (ts TIMESTAMP(3), k STRING, v BIGINT) WITH ({});\n\
         CREATE TABLE totals (window_start TIMESTAMP(3), k STRING, n BIGINT, total BIGINT, \
         ts TIMESTAMP(3) METADATA FROM 'timestamp') WITH ({});\n\
         INSERT INTO totals {WINDOWS};\n",
        kafka(&late_topic, ", 'format' = 'csv'"),
        kafka(
            &topic,
            ", 'format' = 'json', 'key.format' = 'csv', 'key.fields' = 'k'"
        )
    );
    let written = run(&dir, "write", &sql);
    let stderr = text(&written.stderr);
    assert!(written.status.success(), "{stderr}");
    // The same windows written to a file, for the rows to expect.
    let file_sql = format!(
        "{SOURCE}CREATE TABLE totals (window_start TIMESTAMP(3), k STRING, n BIGINT, total BIGINT, \
         window_end TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'totals.json', 'format' = 'json');\n\
         INSERT INTO totals {WINDOWS};\n"
    );
    let file = run(&dir, "file", &file_sql);
    assert!(file.status.success(), "{}", text(&file.stderr));
    let lines = std::fs::read_to_string(dir.join("totals.json")).unwrap();
    let expected: Vec<&str> = lines.lines().collect();
    assert_eq!(expected.len(), 20, "{lines}");

    let partitions = read_topic(&servers, &topic, 4);
    let mut seen = 0;
    let mut per_key: BTreeMap<String, Vec<&Record>> = BTreeMap::new();
    for (p, records) in partitions.iter().enumerate() {
        for record in records {
            let key = record.key.clone().expect("a keyed record");
            assert_eq!(java_partition(&key, 4), p as i32, "key {key}");
            per_key.entry(key).or_default().push(record);
            seen += 1;
        }
    }
    assert_eq!(seen, expected.len());
    assert!(
        partitions.iter().filter(|p| !p.is_empty()).count() >= 3,
        "the five keys spread over partitions 0, 1, 2 and 3"
    );
    // Each key's records in the order the query emitted them: the value
    // is the physical columns, the timestamp the window's end.
    for (key, records) in &per_key {
        let wanted: Vec<&&str> = expected
            .iter()
            .filter(|l| l.contains(&format!("\"k\":\"{key}\"")))
            .collect();
        assert_eq!(records.len(), wanted.len(), "key {key}");
        for (record, line) in records.iter().zip(wanted) {
            let (value, end) = line.split_once(",\"window_end\":").unwrap();
            assert_eq!(record.value.as_deref(), Some(format!("{value}}}").as_str()));
            let end = end.trim_end_matches('}').trim_matches('"');
            let end_ms = chrono::NaiveDateTime::parse_from_str(end, "%Y-%m-%d %H:%M:%S%.3f")
                .unwrap()
                .and_utc()
                .timestamp_millis();
            assert_eq!(record.timestamp, Some(end_ms), "{line}");
        }
    }
    assert!(
        stderr.contains(&format!("sink totals: 20 records sent to topic {topic}")),
        "{stderr}"
    );
    // The two late rows went to the late topic, as the summary says.
    let late = read_topic(&servers, &late_topic, 1);
    let late_values: Vec<_> = late[0].iter().filter_map(|r| r.value.clone()).collect();
    assert_eq!(
        late_values,
        [
            "\"2024-01-01 00:00:15.5\",1,1000",
            "\"2024-01-01 00:00:20.5\",1,1000"
        ],
        "{stderr}"
    );
    assert!(
        stderr.contains("2 late rows routed to table late"),
        "{stderr}"
    );

    // tidemark reads its own topic back: the same rows as the file.
    let read_back = format!(
        "CREATE TABLE totals (window_start TIMESTAMP(3), k STRING, n BIGINT, total BIGINT, \
         window_end TIMESTAMP(3) METADATA FROM 'timestamp') WITH ({});\n\
         CREATE TABLE again (window_start TIMESTAMP(3), k STRING, n BIGINT, total BIGINT, \
         window_end TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'again.json', 'format' = 'json');\n\
         INSERT INTO again SELECT * FROM totals;\n",
        kafka(&topic, ", 'format' = 'json'")
    );
    let again = run(&dir, "read_back", &read_back);
    assert!(again.status.success(), "{}", text(&again.stderr));
    let mut back: Vec<String> = std::fs::read_to_string(dir.join("again.json"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let mut want: Vec<String> = expected.iter().map(|l| l.to_string()).collect();
    back.sort();
    want.sort();
    assert_eq!(back, want);
}

#[test]
fn an_upsert_topic_keeps_each_keys_latest_row_and_tombstones_deletions() {
    let Some(servers) = broker("upsert") else {
        return;
    };
    let dir = scratch("upsert");
    // Sessions that merge under allowed lateness: updates and deletions
    // (the golden file session/lateness_merge reasons them out).
    let data = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../sql-tests/session/data/lateness_merge.csv");
    std::fs::copy(&data, dir.join("t.csv")).expect("the golden file's data");
    let topic = format!("sessions-{}", std::process::id());
    create_topic(&servers, &topic, 3);
    let query = "SET 'table.exec.emit.allow-lateness' = '20 s';\n\
         CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) \
         WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');\n";
    let select = "SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total \
         FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)) \
         GROUP BY window_start, window_end, k";
    let columns = "k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, \
         total BIGINT, PRIMARY KEY (k, window_start, window_end) NOT ENFORCED";
    let sql = format!(
        "{query}CREATE TABLE s ({columns}) WITH ('connector' = 'upsert-kafka', 'topic' = '{topic}', \
         'properties.bootstrap.servers' = '{servers}', 'key.format' = 'json', 'value.format' = 'csv', \
         'value.fields-include' = 'EXCEPT_KEY', {ONE_PER_REQUEST});\nINSERT INTO s {select};\n"
    );
    let written = run(&dir, "upsert", &sql);
    let stderr = text(&written.stderr);
    assert!(written.status.success(), "{stderr}");
    // 9 +I and 1 +U are values, the 6 -D tombstones, the -U is left out.
    assert!(
        stderr.contains(&format!(
            "sink s: 16 records sent to topic {topic} (6 tombstones)"
        )),
        "{stderr}"
    );
    let printed = run(&dir, "print", &format!("{query}{select};\n"));
    let changes = text(&printed.stdout);
    assert_eq!(changes.lines().filter(|l| l.starts_with("-U")).count(), 1);

    // A key's partition is fixed by its key; the latest record per key
    // (the topic compacted) is what an upsert file keeps.
    let mut latest: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut partition_of: BTreeMap<String, usize> = BTreeMap::new();
    for (p, records) in read_topic(&servers, &topic, 3).iter().enumerate() {
        for record in records {
            let key = record.key.clone().expect("a keyed record");
            assert!(key.starts_with("{\"k\":"), "{key}");
            assert_eq!(*partition_of.entry(key.clone()).or_insert(p), p, "{key}");
            latest.insert(key, record.value.clone());
        }
    }
    let live: Vec<String> = latest
        .iter()
        .filter_map(|(key, value)| Some(format!("{key} {}", value.as_ref()?)))
        .collect();
    assert_eq!(latest.len(), 9, "{latest:?}");
    let file_sql = format!(
        "{query}CREATE TABLE s ({columns}) WITH ('connector' = 'filesystem', 'path' = 's.csv', 'format' = 'csv');\n\
         INSERT INTO s {select};\n"
    );
    let file = run(&dir, "file", &file_sql);
    assert!(file.status.success(), "{}", text(&file.stderr));
    let kept = std::fs::read_to_string(dir.join("s.csv")).unwrap();
    let mut from_file: Vec<String> = kept
        .lines()
        .map(|l| {
            // The file quotes its timestamps (for their space); the JSON key
            // holds them as strings.
            let f: Vec<&str> = l.split(',').map(|f| f.trim_matches('"')).collect();
            format!(
                "{{\"k\":\"{}\",\"window_start\":\"{}\",\"window_end\":\"{}\"}} {},{}",
                f[0], f[1], f[2], f[3], f[4]
            )
        })
        .collect();
    from_file.sort();
    assert_eq!(live, from_file, "{kept}");
    assert_eq!(live.len(), 3);
}

#[test]
fn a_table_reads_back_the_keys_and_raw_values_it_wrote() {
    let Some(servers) = broker("keys and raw values") else {
        return;
    };
    let dir = scratch("roundtrip");
    std::fs::write(
        dir.join("notes.json"),
        "{\"id\":1,\"note\":\"first note\"}\n{\"id\":2,\"note\":null}\n\
         {\"id\":3,\"note\":\"two\\nlines\"}\n{\"id\":4,\"note\":\"\"}\n",
    )
    .unwrap();
    let topic = format!("notes-{}", std::process::id());
    create_topic(&servers, &topic, 1);
    // The key's column is named with the prefix in the table, without it
    // in the key; the value is the note's whole text, a NULL none.
    let notes = format!(
        "CREATE TABLE notes (k_id INT, note STRING) WITH ('connector' = 'kafka', 'topic' = '{topic}', \
         'properties.bootstrap.servers' = '{servers}', 'scan.startup.mode' = 'earliest-offset', \
         'scan.bounded.mode' = 'latest-offset', 'sink.partitioner' = 'fixed', \
         'key.format' = 'json', 'key.fields' = 'k_id', 'key.fields-prefix' = 'k_', \
         'value.fields-include' = 'EXCEPT_KEY', 'value.format' = 'raw', {ONE_PER_REQUEST});\n"
    );
    let sql = format!(
        "CREATE TABLE input (id INT, note STRING) WITH ('connector' = 'filesystem', 'path' = 'notes.json', \
         'format' = 'json');\n{notes}INSERT INTO notes SELECT * FROM input;\n"
    );
    let written = run(&dir, "write", &sql);
    assert!(written.status.success(), "{}", text(&written.stderr));
    let records = read_topic(&servers, &topic, 1).remove(0);
    let got: Vec<(Option<String>, Option<String>)> =
        records.into_iter().map(|r| (r.key, r.value)).collect();
    let some = |s: &str| Some(s.to_string());
    assert_eq!(
        got,
        [
            (some(r#"{"id":1}"#), some("first note")),
            (some(r#"{"id":2}"#), None),
            (some(r#"{"id":3}"#), some("two\nlines")),
            (some(r#"{"id":4}"#), some("")),
        ]
    );
    let read = run(
        &dir,
        "read",
        &format!("{notes}SELECT k_id, note, CHAR_LENGTH(note) AS n FROM notes;\n"),
    );
    assert!(read.status.success(), "{}", text(&read.stderr));
    assert_eq!(
        text(&read.stdout),
        "+I[1, first note, 10]\n+I[2, <NULL>, <NULL>]\n+I[3, two\nlines, 9]\n+I[4, , 0]\n"
    );
}

#[test]
fn what_a_topic_cannot_take_is_a_clear_error() {
    let Some(servers) = broker("errors") else {
        return;
    };
    let dir = scratch("errors");
    std::fs::write(dir.join("bids.csv"), bids()).unwrap();
    let topic = format!("errors-{}", std::process::id());
    create_topic(&servers, &topic, 1);
    let with = |topic: &str, extra: &str| {
        format!(
            "'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}', 'format' = 'csv'{extra}"
        )
    };
    let cases = [
        (
            // Updates into an appended topic.
            format!(
                "SET 'table.exec.emit.allow-lateness' = '1 min';\n{SOURCE}\
                 CREATE TABLE o (window_start TIMESTAMP(3), k STRING, n BIGINT, total BIGINT, window_end TIMESTAMP(3)) WITH ({});\n\
                 INSERT INTO o {WINDOWS};\n",
                with(&topic, "")
            ),
            "the query emits updates (allowed lateness or early firing), and a kafka table is only appended to",
        ),
        (
            format!(
                "{SOURCE}CREATE TABLE o (ts TIMESTAMP(3), k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ({});\n\
                 INSERT INTO o SELECT * FROM bids;\n",
                with(&topic, "")
            ),
            "a kafka table appends records and cannot keep a PRIMARY KEY: write to an 'upsert-kafka' table",
        ),
        (
            format!(
                "{SOURCE}CREATE TABLE o (ts TIMESTAMP(3), k STRING, v BIGINT) WITH ('connector' = 'upsert-kafka', \
                 'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}', 'key.format' = 'csv', 'value.format' = 'csv');\n\
                 INSERT INTO o SELECT * FROM bids;\n"
            ),
            "an upsert-kafka table needs a PRIMARY KEY (...) NOT ENFORCED",
        ),
        (
            format!(
                "{SOURCE}CREATE TABLE o (ts TIMESTAMP(3), k STRING, v BIGINT, o BIGINT METADATA FROM 'offset') WITH ({});\n\
                 INSERT INTO o SELECT ts, k, v, v FROM bids;\n",
                with(&topic, "")
            ),
            "column 'o' is metadata 'offset', which kafka tables give but do not take",
        ),
        (
            format!(
                "{SOURCE}CREATE TABLE o (ts TIMESTAMP(3), k STRING, v BIGINT) WITH ({});\n\
                 INSERT INTO o SELECT * FROM bids;\n",
                with(&topic, ", 'key.fields' = 'k'")
            ),
            "'key.fields' needs a 'key.format'",
        ),
        (
            format!(
                "{SOURCE}CREATE TABLE o (ts TIMESTAMP(3), k STRING, v BIGINT) WITH ({});\n\
                 INSERT INTO o SELECT * FROM bids;\n",
                with(&topic, ", 'key.format' = 'csv', 'key.fields' = 'kk'")
            ),
            "key field 'kk' is not a physical column of the table",
        ),
    ];
    for (i, (sql, wanted)) in cases.iter().enumerate() {
        let out = run(&dir, &format!("case{i}"), sql);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "case {i} ran: {stderr}");
        assert!(stderr.contains(wanted), "case {i}: {stderr}");
        assert!(!stderr.contains("panicked"), "case {i}: {stderr}");
    }
    // Nothing was written by the refused jobs.
    assert!(read_topic(&servers, &topic, 1)[0].is_empty());
}

/// The latest value per key of a topic's records, as a topic compacted by
/// key keeps them (a tombstone removes its key).
fn compacted(partitions: &[Vec<Record>]) -> BTreeMap<String, String> {
    let mut latest = BTreeMap::new();
    for record in partitions.iter().flatten() {
        let key = record.key.clone().expect("a keyed record");
        match &record.value {
            Some(value) => latest.insert(key, value.clone()),
            None => latest.remove(&key),
        };
    }
    latest
}

#[test]
fn a_crashed_and_resumed_upsert_job_leaves_the_same_latest_rows() {
    let Some(servers) = broker("crash and resume") else {
        return;
    };
    let dir = scratch("resume");
    let job = |topic: &str, checkpoints: &str| {
        format!(
            "{checkpoints}SET 'table.exec.emit.allow-lateness' = '20 s';\n{SOURCE}\
             CREATE TABLE totals (window_start TIMESTAMP(3), k STRING, n BIGINT, total BIGINT, \
             PRIMARY KEY (window_start, k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', \
             'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}', {ONE_PER_REQUEST}, \
             'key.format' = 'json', 'value.format' = 'json');\n\
             INSERT INTO totals SELECT window_start, k, COUNT(*), SUM(v) \
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) \
             GROUP BY window_start, window_end, k;\n"
        )
    };
    let (plain_topic, resumed_topic) = (
        format!("plain-{}", std::process::id()),
        format!("resumed-{}", std::process::id()),
    );
    create_topic(&servers, &plain_topic, 2);
    create_topic(&servers, &resumed_topic, 2);
    let (plain, resumed) = (dir.join("plain"), dir.join("resumed"));
    for (folder, sql) in [
        (&plain, job(&plain_topic, "")),
        (
            &resumed,
            job(
                &resumed_topic,
                "SET 'execution.checkpointing.dir' = 'ckpt';\n\
                 SET 'execution.checkpointing.interval' = '6 rows';\n",
            ),
        ),
    ] {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::write(folder.join("bids.csv"), bids()).unwrap();
        std::fs::write(folder.join("job.sql"), sql).unwrap();
    }
    let tidemark = |folder: &Path, args: &[&str], crash: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tidemark"));
        command
            .args(["run", "--batch-size", "2"])
            .args(args)
            .arg(folder.join("job.sql"));
        if let Some(batches) = crash {
            command.env("TIDEMARK_CRASH_AFTER_BATCHES", batches);
        }
        command.output().expect("tidemark runs")
    };
    let reference = tidemark(&plain, &[], None);
    assert!(reference.status.success(), "{}", text(&reference.stderr));
    let want = compacted(&read_topic(&servers, &plain_topic, 2));
    assert_eq!(want.len(), 20, "{want:?}");

    // Crashed after 13 batches (26 rows, past the checkpoint at 24 rows),
    // then resumed from that checkpoint.
    let crashed = tidemark(&resumed, &[], Some("13"));
    assert!(!crashed.status.success(), "the injected crash ends the run");
    let before = read_topic(&servers, &resumed_topic, 2);
    let again = tidemark(&resumed, &["--resume"], None);
    let stderr = text(&again.stderr);
    assert!(again.status.success(), "{stderr}");
    assert!(stderr.contains("resuming from checkpoint 4"), "{stderr}");
    let after = read_topic(&servers, &resumed_topic, 2);
    // What the first run had sent stays (at-least-once): the resumed run
    // appends to it, and the latest row per key is the uninterrupted run's.
    for (old, new) in before.iter().zip(&after) {
        assert_eq!(&new[..old.len()], &old[..]);
    }
    assert!(before.iter().map(Vec::len).sum::<usize>() > 0, "{before:?}");
    assert_eq!(compacted(&after), want);
}

/// Seeded bids for the seed job: four partitions over six minutes, out of
/// order by up to 4 s, partition 3 quiet after its first minute, and one
/// row in 25 from 10 to 70 s behind (some within 30 s of allowed
/// lateness, some past it).
fn seed_partitions() -> Vec<Vec<String>> {
    let mut rng = common::Rng(common::env_number("TIDEMARK_KAFKA_SEED", 0x5eed_f00d));
    (0..4u64)
        .map(|p| {
            let rows = if p == 3 { 30 } else { 180 };
            (0..rows)
                .map(|i| {
                    let mut ms = (i * 2_000 + rng.below(4_000) + p * 300) as i64;
                    if rng.below(25) == 0 {
                        ms -= 10_000 + rng.below(60_000) as i64;
                    }
                    let ms = ms.max(0);
                    format!(
                        "2024-01-01 00:{:02}:{:02}.{:03},k{},{}",
                        ms / 60_000,
                        (ms / 1_000) % 60,
                        ms % 1_000,
                        rng.below(5),
                        rng.below(100)
                    )
                })
                .collect()
        })
        .collect()
}

#[test]
fn the_seed_job_from_kafka_gives_what_it_gives_from_files() {
    let Some(servers) = broker("seed job") else {
        return;
    };
    let Ok(url) = std::env::var("TIDEMARK_TEST_POSTGRES") else {
        eprintln!(
            "kafka_sink: seed job: skipped, TIDEMARK_TEST_POSTGRES is not set (see .ci/postgres)"
        );
        return;
    };
    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("the test server");
    let id = std::process::id();
    for side in ["kafka", "files"] {
        db.batch_execute(&format!(
            "DROP TABLE IF EXISTS seed_{side}_{id};
             CREATE TABLE seed_{side}_{id} (window_start timestamp, k text, n bigint, total bigint,
                 PRIMARY KEY (window_start, k));"
        ))
        .expect("the totals table");
    }
    let rows = seed_partitions();
    let bids = format!("seed-bids-{id}");
    create_topic(&servers, &bids, 4);
    let timed: Vec<Vec<(String, Option<i64>)>> = rows
        .iter()
        .map(|lines| lines.iter().map(|l| (l.clone(), None)).collect())
        .collect();
    common::kafka::produce(&servers, &bids, &timed);
    let dir = scratch("seed");
    std::fs::create_dir_all(dir.join("parts")).unwrap();
    for (p, lines) in rows.iter().enumerate() {
        std::fs::write(dir.join(format!("parts/p{p}.csv")), lines.join("\n") + "\n").unwrap();
    }
    let job = |side: &str, source: &str| {
        let late = format!("seed-late-{side}-{id}");
        create_topic(&servers, &late, 1);
        format!(
            "SET 'table.exec.emit.allow-lateness' = '30 s';\n\
             SET 'table.exec.source.idle-timeout' = '30 s';\n\
             SET 'table.exec.late-records.sink' = 'late';\n\
             CREATE TABLE bids (ts TIMESTAMP(3), k STRING, v BIGINT, \
             WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ({source});\n\
             CREATE TABLE late (ts TIMESTAMP(3), k STRING, v BIGINT, late_reason STRING) WITH ('connector' = 'kafka', \
             'topic' = '{late}', 'properties.bootstrap.servers' = '{servers}', {ONE_PER_REQUEST}, 'format' = 'csv');\n\
             CREATE TABLE totals (window_start TIMESTAMP(3), k STRING, n BIGINT, total BIGINT, \
             PRIMARY KEY (window_start, k) NOT ENFORCED) WITH ('connector' = 'jdbc', 'url' = '{url}', \
             'table-name' = 'seed_{side}_{id}');\n\
             INSERT INTO totals SELECT window_start, k, COUNT(*), SUM(v) \
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) \
             GROUP BY window_start, window_end, k;\n"
        )
    };
    let from_kafka = run(
        &dir,
        "kafka",
        &job(
            "kafka",
            &format!(
                "'connector' = 'kafka', 'topic' = '{bids}', 'properties.bootstrap.servers' = '{servers}', \
                 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'csv'"
            ),
        ),
    );
    let kafka_err = text(&from_kafka.stderr);
    assert!(from_kafka.status.success(), "{kafka_err}");
    let from_files = run(
        &dir,
        "files",
        &job(
            "files",
            "'connector' = 'filesystem', 'path' = 'parts/', 'format' = 'csv'",
        ),
    );
    let files_err = text(&from_files.stderr);
    assert!(from_files.status.success(), "{files_err}");
    let table = |db: &mut postgres::Client, side: &str| -> Vec<String> {
        db.query(
            &format!(
                "SELECT window_start::text || ',' || k || ',' || n || ',' || total \
                 FROM seed_{side}_{id} ORDER BY window_start, k"
            ),
            &[],
        )
        .expect("the totals")
        .iter()
        .map(|r| r.get::<_, String>(0))
        .collect()
    };
    let (kafka_rows, file_rows) = (table(&mut db, "kafka"), table(&mut db, "files"));
    assert!(kafka_rows.len() >= 25, "{kafka_rows:?}");
    assert_eq!(kafka_rows, file_rows);
    // The same late rows, in the same order, to each side's late topic,
    // and the summary's operator line alike.
    let late = |side: &str| -> Vec<String> {
        read_topic(&servers, &format!("seed-late-{side}-{id}"), 1)[0]
            .iter()
            .filter_map(|r| r.value.clone())
            .collect()
    };
    let late_rows = late("kafka");
    assert!(!late_rows.is_empty(), "{kafka_err}");
    assert_eq!(late_rows, late("files"));
    let operator = |stderr: &str| {
        stderr
            .lines()
            .find(|l| l.starts_with("operator WindowAggregate"))
            .map(str::to_string)
    };
    assert_eq!(operator(&kafka_err), operator(&files_err), "{kafka_err}");
    assert!(
        kafka_err.contains(&format!(
            "{} late rows routed to table late",
            late_rows.len()
        )),
        "{kafka_err}"
    );
    assert!(
        kafka_err.contains("late rows added within the allowed lateness"),
        "{kafka_err}"
    );
    for side in ["kafka", "files"] {
        db.batch_execute(&format!("DROP TABLE seed_{side}_{id};"))
            .expect("dropped");
    }
}
