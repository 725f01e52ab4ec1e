//! Checkpoint and resume, end to end: `tidemark run` jobs are crashed at
//! seeded points (`TIDEMARK_CRASH_AFTER_BATCHES` aborts the process, with
//! no cleanup) or killed with SIGKILL, then resumed with `--resume`,
//! perhaps crashing again; once a run completes, every file the job wrote
//! and every run summary must be the bytes an uninterrupted run without
//! checkpoints gives, and nothing staged may be left behind.
//!
//! `TIDEMARK_CHECKPOINT_CASES` / `TIDEMARK_CHECKPOINT_SEED` run more cases.

mod common;

use common::{env_number, Rng};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// One random job: its input, its script (the checkpoint settings apart)
/// and the files it writes.
struct Job {
    data_file: &'static str,
    data: String,
    /// The second table's files and their rows (for unions and joins):
    /// one file, or the files of a folder, each one split.
    others: Vec<(String, String)>,
    script: String,
    outputs: Vec<&'static str>,
    batch_size: u64,
    interval: String,
}

fn data(rng: &mut Rng, json: bool, bad_lines: bool) -> String {
    let rows = 1500 + rng.below(3000);
    let keys = 1 + rng.below(12);
    let disorder = rng.below(4000) as i64;
    let mut t = 0i64;
    let mut text = String::new();
    for _ in 0..rows {
        t += rng.below(120) as i64;
        let mut ts = t - rng.below(disorder as u64 + 1) as i64;
        if rng.below(40) == 0 {
            // Far behind the watermark: late for every window.
            ts -= 30_000;
        }
        let ts = 1_700_000_000_000 + ts;
        let item = format!("k{}", rng.below(keys));
        let price = format!("{}.{:02}", rng.below(500), rng.below(100));
        let qty = rng.below(20);
        if bad_lines && rng.below(150) == 0 {
            text.push_str(if json {
                "{\"ts_ms\": \"soon\", \"item\": 1}\n"
            } else {
                "soon,k1,oops\n"
            });
            continue;
        }
        if json {
            text.push_str(&format!(
                "{{\"ts_ms\": {ts}, \"item\": \"{item}\", \"price\": {price}, \"qty\": {qty}}}\n"
            ));
        } else {
            text.push_str(&format!("{ts},{item},{price},{qty}\n"));
        }
    }
    text
}

/// The asks table's rows: one file, or (`folder`) dealt over the files of
/// a folder.
fn asks(rng: &mut Rng, json: bool, bad_lines: bool, folder: bool) -> Vec<(String, String)> {
    let ext = if json { "json" } else { "csv" };
    let rows = data(rng, json, bad_lines);
    if !folder {
        return vec![(format!("asks.{ext}"), rows)];
    }
    let files = 2 + rng.below(3) as usize;
    let mut parts = vec![String::new(); files];
    for line in rows.lines() {
        let part = &mut parts[rng.below(files as u64) as usize];
        part.push_str(line);
        part.push('\n');
    }
    parts
        .into_iter()
        .enumerate()
        .map(|(i, rows)| (format!("asks/part-{i}.{ext}"), rows))
        .collect()
}

/// The sink of one query and its SQL.
fn query(rng: &mut Rng, sink: &str, file: &str) -> (String, String, bool) {
    let ws = "window_start TIMESTAMP(3), window_end TIMESTAMP(3)";
    let (columns, select, keyed_updates) = match rng.below(15) {
        0 => (
            format!("item STRING, {ws}, n BIGINT, total DOUBLE, lo INT, hi STRING, mean INT, kinds BIGINT, first_price DOUBLE, last_qty INT, qtys STRING"),
            "SELECT item, window_start, window_end, COUNT(*), SUM(price), MIN(qty), MAX(item), AVG(qty), \
             COUNT(DISTINCT qty), FIRST_VALUE(price), LAST_VALUE(qty), LISTAGG(CAST(qty AS STRING)) \
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND)) WHERE qty > 2 \
             GROUP BY item, window_start, window_end"
                .to_string(),
            false,
        ),
        1 => (
            format!("item STRING, {ws}, n BIGINT, total BIGINT, hi DOUBLE"),
            "SELECT item, window_start, window_end, COUNT(*), SUM(CAST(qty AS BIGINT)), MAX(price) \
             FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)) \
             GROUP BY item, window_start, window_end"
                .to_string(),
            false,
        ),
        2 => (
            format!("item STRING, {ws}, n BIGINT, total DOUBLE, items STRING"),
            "SELECT item, window_start, window_end, COUNT(*), SUM(price), LISTAGG(item, ';') \
             FROM TABLE(CUMULATE(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) \
             GROUP BY item, window_start, window_end"
                .to_string(),
            false,
        ),
        3 => (
            format!("{ws}, n BIGINT, total DOUBLE, mean DOUBLE"),
            "SELECT window_start, window_end, COUNT(*), SUM(price), AVG(price) \
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '3' SECOND)) \
             GROUP BY window_start, window_end"
                .to_string(),
            false,
        ),
        5 => (
            format!("item STRING, {ws}, n BIGINT, total DOUBLE, hi INT"),
            "SELECT item, window_start, window_end, COUNT(*), SUM(price), MAX(qty) \
             FROM TABLE(SESSION(TABLE bids PARTITION BY item, DESCRIPTOR(ts), INTERVAL '2' SECOND)) \
             GROUP BY item, window_start, window_end"
                .to_string(),
            false,
        ),
        6 => (
            format!("item STRING, qty INT, {ws}"),
            "SELECT item, qty, window_start, window_end \
             FROM TABLE(SESSION(TABLE bids PARTITION BY item, DESCRIPTOR(ts), INTERVAL '1' SECOND))"
                .to_string(),
            false,
        ),
        7 => (
            "item STRING, ts_ms BIGINT, total DOUBLE, hi INT, n BIGINT, mean DOUBLE, lo DOUBLE".to_string(),
            format!(
                "SELECT item, ts_ms, SUM(price) OVER w, MAX(qty) OVER w, {} OVER w, AVG(price) OVER w, MIN(price) OVER w \
                 FROM bids WINDOW w AS (PARTITION BY item ORDER BY ts {})",
                // Over RANGE, COUNT reads its frame's rows, which the
                // frame then holds; with only incremental aggregates it
                // holds their rowtimes. Over ROWS 4 both keep each key's
                // state in a block.
                if rng.below(2) == 0 {
                    "COUNT(*)"
                } else {
                    "MIN(CAST(qty AS BIGINT))"
                },
                if rng.below(2) == 0 {
                    "ROWS BETWEEN 4 PRECEDING AND CURRENT ROW"
                } else {
                    "RANGE BETWEEN INTERVAL '3' SECOND PRECEDING AND CURRENT ROW"
                }
            ),
            false,
        ),
        8 => (
            "item STRING, ts_ms BIGINT, total BIGINT, rn BIGINT, previous DOUBLE".to_string(),
            "SELECT item, ts_ms, SUM(CAST(qty AS BIGINT)) OVER (PARTITION BY item ORDER BY ts), \
             ROW_NUMBER() OVER (PARTITION BY item ORDER BY ts), LAG(price, 1) OVER (PARTITION BY item ORDER BY ts) \
             FROM bids"
                .to_string(),
            false,
        ),
        9 => (
            format!("item STRING, price DOUBLE, {ws}, rn BIGINT"),
            "SELECT item, price, window_start, window_end, rn FROM ( \
             SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn \
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND))) WHERE rn <= 3"
                .to_string(),
            false,
        ),
        10 => (
            format!("item STRING, {ws}, n BIGINT, total DOUBLE"),
            "SELECT item, window_start, window_end, COUNT(*), SUM(price) \
             FROM TABLE(TUMBLE(TABLE both_sides, DESCRIPTOR(ts), INTERVAL '5' SECOND)) \
             GROUP BY item, window_start, window_end"
                .to_string(),
            false,
        ),
        11 => (
            format!("item STRING, {ws}, bid DOUBLE, ask DOUBLE"),
            "SELECT b.item, b.window_start, b.window_end, b.price, a.price \
             FROM (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND))) b \
             JOIN (SELECT * FROM TABLE(TUMBLE(TABLE asks, DESCRIPTOR(ts), INTERVAL '5' SECOND))) a \
             ON b.item = a.item AND b.window_start = a.window_start AND b.window_end = a.window_end"
                .to_string(),
            false,
        ),
        // A window join of two window aggregations: each side's
        // aggregation runs inside the join's input and is checkpointed
        // with it.
        12 => (
            format!("item STRING, {ws}, bids BIGINT, asks BIGINT"),
            "SELECT b.item, b.window_start, b.window_end, b.n, a.n FROM \
             (SELECT item, window_start, window_end, COUNT(*) AS n \
              FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY item, window_start, window_end) b \
             JOIN (SELECT item, window_start, window_end, COUNT(*) AS n \
              FROM TABLE(TUMBLE(TABLE asks, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY item, window_start, window_end) a \
             ON b.item = a.item AND b.window_start = a.window_start AND b.window_end = a.window_end"
                .to_string(),
            false,
        ),
        // A window aggregation over another's results, by the HOP
        // windows they carry.
        13 => (
            format!("{ws}, items BIGINT, n BIGINT"),
            "SELECT window_start, window_end, COUNT(*), SUM(n) FROM \
             (SELECT item, window_start, window_end, COUNT(*) AS n \
              FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)) \
              GROUP BY item, window_start, window_end) \
             GROUP BY window_start, window_end"
                .to_string(),
            false,
        ),
        14 => (
            format!(
                "item STRING, day DATE, small SMALLINT, {ws}, n TINYINT, mean SMALLINT, total FLOAT, \
                 avg_price FLOAT, first_time TIME(3), last_day DATE, lo FLOAT"
            ),
            "SELECT item, CAST(ts AS DATE), CAST(qty AS SMALLINT), window_start, window_end, \
             SUM(CAST(qty AS TINYINT)), AVG(CAST(qty * 1000 AS SMALLINT)), SUM(CAST(price AS FLOAT)), \
             AVG(CAST(price AS FLOAT)), MIN(CAST(ts AS TIME(3))), MAX(CAST(ts AS DATE)), \
             MIN(CAST(price AS FLOAT)) \
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND)) \
             GROUP BY item, CAST(ts AS DATE), CAST(qty AS SMALLINT), window_start, window_end"
                .to_string(),
            false,
        ),
        _ => (
            format!("item STRING, {ws}, n BIGINT, total DOUBLE, PRIMARY KEY (item, window_start) NOT ENFORCED"),
            "SELECT item, window_start, window_end, COUNT(*), SUM(price) \
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '4' SECOND)) \
             GROUP BY item, window_start, window_end"
                .to_string(),
            true,
        ),
    };
    let ddl = format!(
        "CREATE TABLE {sink} ({columns})\nWITH ('connector' = 'filesystem', 'path' = '{file}', 'format' = 'csv');\n"
    );
    (
        ddl,
        format!("INSERT INTO {sink}\n{select};\n"),
        keyed_updates,
    )
}

fn job(rng: &mut Rng) -> Job {
    let json = rng.below(3) == 0;
    // A third of the jobs read asks from a folder of files, one split
    // each, each with its own watermark (spec §8).
    let asks_folder = rng.below(3) == 0;
    let asks_path = if asks_folder {
        "asks/".to_string()
    } else {
        format!("asks.{}", if json { "json" } else { "csv" })
    };
    let bad_lines = rng.below(2) == 0;
    let late_sink = rng.below(2) == 0;
    let (data_file, format) = if json {
        ("bids.json", "json")
    } else {
        ("bids.csv", "csv")
    };
    let mut script = format!(
        "CREATE TABLE bids (\n  ts_ms BIGINT, item STRING, price DOUBLE, qty INT,\n  \
         ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),\n  WATERMARK FOR ts AS ts - INTERVAL '{}' SECOND\n\
         ) WITH ('connector' = 'filesystem', 'path' = '{data_file}', 'format' = '{format}'{});\n",
        rng.below(4),
        if bad_lines {
            format!(", '{format}.ignore-parse-errors' = 'true'")
        } else {
            String::new()
        }
    );
    script.push_str(&format!(
        "CREATE TABLE asks (ts_ms BIGINT, item STRING, price DOUBLE, qty INT,\n  \
         ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),\n  WATERMARK FOR ts AS ts - INTERVAL '{}' SECOND\n\
         ) WITH ('connector' = 'filesystem', 'path' = '{asks_path}', 'format' = '{format}'{});\n\
         CREATE VIEW both_sides AS SELECT ts, item, price FROM bids UNION ALL SELECT ts, item, price FROM asks;\n",
        rng.below(3),
        if bad_lines {
            format!(", '{format}.ignore-parse-errors' = 'true'")
        } else {
            String::new()
        }
    ));
    let mut outputs = Vec::new();
    if late_sink {
        script.push_str(
            "CREATE TABLE late_bids (ts_ms BIGINT, item STRING, price DOUBLE, qty INT, ts TIMESTAMP_LTZ(3), late_reason STRING)\n\
             WITH ('connector' = 'filesystem', 'path' = 'late.csv', 'format' = 'csv');\n\
             SET 'table.exec.late-records.sink' = 'late_bids';\n",
        );
        outputs.push("late.csv");
    }
    if bad_lines {
        script.push_str(
            "CREATE TABLE bad (source STRING, file STRING, line BIGINT, raw STRING, error STRING)\n\
             WITH ('connector' = 'filesystem', 'path' = 'bad.csv', 'format' = 'csv');\n\
             SET 'table.exec.bad-records.sink' = 'bad';\n",
        );
        outputs.push("bad.csv");
    }
    // One or two INSERTs: a resumed job skips those that finished.
    let statements = 1 + rng.below(2);
    // A folder sink's output is cut into parts at checkpoints.
    let folders = rng.below(3) == 0;
    let sinks = if folders {
        [("out1", "out1/"), ("out2", "out2/")]
    } else {
        [("out1", "out1.csv"), ("out2", "out2.csv")]
    };
    for (i, (sink, file)) in sinks.into_iter().take(statements as usize).enumerate() {
        let (ddl, insert, updates) = query(rng, sink, file);
        script.push_str(&ddl);
        if updates {
            script.push_str("SET 'table.exec.emit.allow-lateness' = '3 s';\n");
        }
        script.push_str(&insert);
        if updates {
            script.push_str("RESET 'table.exec.emit.allow-lateness';\n");
        }
        outputs.push(file);
        // The second statement's late and bad rows would land on the
        // first's files again: they are written once.
        if i == 0 && statements == 2 {
            script.push_str(
                "RESET 'table.exec.late-records.sink';\nRESET 'table.exec.bad-records.sink';\n",
            );
        }
    }
    let interval = if rng.below(3) == 0 {
        format!("{} s event time", 1 + rng.below(20))
    } else {
        format!("{} rows", 1 + rng.below(800))
    };
    Job {
        data_file,
        data: data(rng, json, bad_lines),
        others: asks(rng, json, bad_lines, asks_folder),
        script,
        outputs,
        batch_size: 1 + rng.below(300),
        interval,
    }
}

fn tidemark(dir: &Path, args: &[&str], crash_after: Option<u64>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tidemark"));
    command
        .current_dir(dir)
        .args(args)
        .env_remove("TIDEMARK_CRASH_AFTER_BATCHES");
    if let Some(n) = crash_after {
        command.env("TIDEMARK_CRASH_AFTER_BATCHES", n.to_string());
    }
    command.output().expect("tidemark runs")
}

/// A run summary without what differs between runs of the same job (the
/// time taken, sampled state) or only says that a run was resumed.
fn summary(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|l| {
            !(l.starts_with("elapsed:")
                || l.starts_with("state:")
                || l.starts_with("resuming from checkpoint")
                || l.starts_with("no checkpoint in")
                || l.contains("finished before the restart"))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tidemark-ckpt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs `job` without checkpoints in one folder and with them in another;
/// returns the two folders and the uninterrupted run's summary.
fn prepare(job: &Job, name: &str) -> (PathBuf, PathBuf, String) {
    let plain = fresh_dir(&format!("{name}-plain"));
    let checkpointed = fresh_dir(&format!("{name}-ckpt"));
    for dir in [&plain, &checkpointed] {
        std::fs::write(dir.join(job.data_file), &job.data).expect("write data");
        for (file, rows) in &job.others {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("create folder");
            std::fs::write(path, rows).expect("write data");
        }
    }
    std::fs::write(plain.join("job.sql"), &job.script).expect("write job");
    std::fs::write(
        checkpointed.join("job.sql"),
        format!(
            "SET 'execution.checkpointing.dir' = 'ckpt';\nSET 'execution.checkpointing.interval' = '{}';\n{}",
            job.interval, job.script
        ),
    )
    .expect("write job");
    let batch = job.batch_size.to_string();
    let reference = tidemark(&plain, &["run", "--batch-size", &batch, "job.sql"], None);
    assert!(
        reference.status.success(),
        "the job runs:\n{}\n{}",
        job.script,
        String::from_utf8_lossy(&reference.stderr)
    );
    (plain, checkpointed, summary(&reference))
}

/// What a sink wrote: a file, or a folder's part files in order.
fn output(path: &Path) -> std::io::Result<Vec<u8>> {
    if !path.is_dir() {
        return std::fs::read(path);
    }
    let mut parts: Vec<(u64, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(path)? {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let number = name
            .as_deref()
            .and_then(|n| n.strip_prefix("part-"))
            .and_then(|n| n.split('.').next())
            .and_then(|n| n.parse().ok());
        match number {
            Some(n) => parts.push((n, path)),
            None => panic!("{} holds more than part files: {name:?}", path.display()),
        }
    }
    parts.sort();
    assert!(
        parts.iter().enumerate().all(|(i, (n, _))| *n == i as u64),
        "parts numbered from 0 without gaps: {parts:?}"
    );
    let mut all = Vec::new();
    for (_, part) in parts {
        all.extend(std::fs::read(part)?);
    }
    Ok(all)
}

/// The files the job wrote must be the uninterrupted run's, with nothing
/// staged or checkpointed left.
fn check_outputs(job: &Job, plain: &Path, checkpointed: &Path, context: &str) {
    for file in &job.outputs {
        let want = output(&plain.join(file)).unwrap_or_default();
        let got = output(&checkpointed.join(file)).unwrap_or_else(|e| {
            panic!(
                "{context}: {file} is missing after the resumed run: {e}\n{}",
                job.script
            )
        });
        assert!(
            want == got,
            "{context}: {file} differs from the uninterrupted run ({} vs {} bytes)\n{}",
            got.len(),
            want.len(),
            job.script
        );
    }
    let mut leftovers: Vec<String> = Vec::new();
    let folders = job
        .outputs
        .iter()
        .map(|f| checkpointed.join(f))
        .filter(|p| p.is_dir());
    for dir in std::iter::once(checkpointed.to_path_buf()).chain(folders) {
        leftovers.extend(
            std::fs::read_dir(&dir)
                .expect("list")
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains("inprogress")),
        );
    }
    assert!(
        leftovers.is_empty(),
        "{context}: staged files left: {leftovers:?}"
    );
    assert!(
        !checkpointed.join("ckpt/checkpoint").exists(),
        "{context}: a finished job leaves no checkpoint"
    );
}

/// Resumes `job` to its end and checks it against the uninterrupted
/// run: it went on from a checkpoint, its files and summary are the
/// uninterrupted run's. Removes both folders.
fn resume_to_end(job: &Job, plain: PathBuf, checkpointed: PathBuf, reference: &str, context: &str) {
    let resumed = tidemark(&checkpointed, &["run", "--resume", "job.sql"], None);
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{context}: {stderr}");
    assert!(
        stderr.contains("resuming from checkpoint"),
        "{context}: it went on from a checkpoint: {stderr}"
    );
    check_outputs(job, &plain, &checkpointed, context);
    assert_eq!(
        summary(&resumed),
        reference,
        "{context}: the summary covers the whole job"
    );
    for dir in [plain, checkpointed] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn jobs_crashed_at_seeded_points_resume_to_the_uninterrupted_output() {
    let cases = env_number("TIDEMARK_CHECKPOINT_CASES", 24);
    let seed = env_number("TIDEMARK_CHECKPOINT_SEED", 0x00C4_ECC0);
    let mut resumed_from_a_checkpoint = 0;
    // Of them, runs that read a folder of several splits.
    let mut folders_resumed = 0;
    for case in 0..cases {
        let mut rng = Rng(seed ^ case.wrapping_mul(0x9E37_79B9));
        let job = job(&mut rng);
        let (plain, checkpointed, reference) = prepare(&job, &format!("case{case}"));
        // (A union takes a run of rows at a time, often less than a batch:
        // its crashes come earlier in its rows.)
        let batches = job.data.lines().count() as u64 / job.batch_size + 2;
        let batch = job.batch_size.to_string();
        let mut summaries = String::new();
        let mut attempts = Vec::new();
        let mut resume = false;
        loop {
            // Up to three crashes, then a run to the end.
            let crash = (attempts.len() < 3 && rng.below(4) != 0).then(|| 1 + rng.below(batches));
            let mut args = vec!["run", "--batch-size", &batch];
            if resume {
                args.push("--resume");
            }
            args.push("job.sql");
            let run = tidemark(&checkpointed, &args, crash);
            let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
            if stderr.contains("resuming from checkpoint") {
                resumed_from_a_checkpoint += 1;
                if job.others.len() > 1 {
                    folders_resumed += 1;
                }
            }
            attempts.push((crash, run.status.code()));
            summaries.push_str(&summary(&run));
            if run.status.success() {
                break;
            }
            assert!(
                crash.is_some() && run.status.code().is_none(),
                "case {case}: a run failed other than by the injected crash: {attempts:?}\n{stderr}\n{}",
                job.script
            );
            resume = true;
        }
        let context = format!("case {case} (seed {seed:#x}, crashes {attempts:?})");
        check_outputs(&job, &plain, &checkpointed, &context);
        assert_eq!(
            summaries, reference,
            "{context}: the summaries differ\n{}",
            job.script
        );
        for dir in [plain, checkpointed] {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    // The cases must exercise resuming from state, not only restarts
    // before any checkpoint.
    assert!(
        cases < 8 || resumed_from_a_checkpoint * 3 >= cases,
        "only {resumed_from_a_checkpoint} of {cases} cases resumed from a checkpoint"
    );
    assert!(
        cases < 8 || folders_resumed > 0,
        "no case resumed a folder of splits from a checkpoint"
    );
}

/// A job long enough to be stopped while it runs: a HOP aggregation over
/// 120,000 rows, in small batches, checkpointing every 2,000 rows, into
/// the file or folder `out`.
fn long_job(rng: &mut Rng, out: &'static str) -> Job {
    let mut text = String::new();
    let mut t = 0i64;
    for _ in 0..120_000 {
        t += rng.below(50) as i64;
        let ts = 1_700_000_000_000 + t - rng.below(2000) as i64;
        text.push_str(&format!(
            "{ts},k{},{}.{:02},{}\n",
            rng.below(40),
            rng.below(500),
            rng.below(100),
            rng.below(20)
        ));
    }
    Job {
        data_file: "bids.csv",
        data: text,
        others: vec![("asks.csv".into(), String::new())],
        script: format!("CREATE TABLE bids (ts_ms BIGINT, item STRING, price DOUBLE, qty INT, \
                 ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)\n\
                 WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');\n\
                 CREATE TABLE out1 (item STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, total DOUBLE, items STRING)\n\
                 WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'csv');\n\
                 INSERT INTO out1 SELECT item, window_start, window_end, COUNT(*), SUM(price), LISTAGG(CAST(qty AS STRING))\n\
                 FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND))\n\
                 GROUP BY item, window_start, window_end;\n"),
        outputs: vec![out],
        batch_size: 64,
        interval: "2000 rows".into(),
    }
}

/// A real `kill -9` while the job runs, between or during checkpoints:
/// the resumed run completes with the uninterrupted run's files.
#[cfg(unix)]
#[test]
fn a_job_killed_with_sigkill_resumes_to_the_uninterrupted_output() {
    let mut rng = Rng(env_number("TIDEMARK_CHECKPOINT_SEED", 0x00C4_ECC0) ^ 0x4B11);
    let job = long_job(&mut rng, "out1.csv");
    let (plain, checkpointed, reference) = prepare(&job, "sigkill");
    let checkpoint = checkpointed.join("ckpt/checkpoint");
    for round in 0..3 {
        let mut args = vec!["run", "--batch-size", "64"];
        if round > 0 {
            args.push("--resume");
        }
        args.push("job.sql");
        let mut child = Command::new(env!("CARGO_BIN_EXE_tidemark"))
            .current_dir(&checkpointed)
            .args(&args)
            .env_remove("TIDEMARK_CRASH_AFTER_BATCHES")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("tidemark starts");
        // Until a checkpoint (a new one, after the first round) is there,
        // then a little longer: the kill lands anywhere in the work.
        let before = std::fs::metadata(&checkpoint)
            .and_then(|m| m.modified())
            .ok();
        let started = std::time::Instant::now();
        while std::fs::metadata(&checkpoint)
            .and_then(|m| m.modified())
            .ok()
            == before
            && started.elapsed() < std::time::Duration::from_secs(60)
        {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        std::thread::sleep(std::time::Duration::from_millis(rng.below(40)));
        let running = child.try_wait().expect("poll").is_none();
        assert!(
            running,
            "round {round}: the job ended before it could be killed"
        );
        child.kill().expect("SIGKILL");
        let status = child.wait().expect("reaped");
        assert!(!status.success(), "round {round}: killed, yet {status:?}");
    }
    resume_to_end(&job, plain, checkpointed, &reference, "after SIGKILL");
}

/// Ctrl-C (SIGINT) stops a checkpointed job with a checkpoint where it
/// is, the output so far committed as part files of its folder; `--resume`
/// goes on from there.
#[cfg(unix)]
#[test]
fn a_job_stopped_with_ctrl_c_resumes_from_where_it_stopped() {
    let mut rng = Rng(env_number("TIDEMARK_CHECKPOINT_SEED", 0x00C4_ECC0) ^ 0x5161);
    let job = long_job(&mut rng, "out1/");
    let (plain, checkpointed, reference) = prepare(&job, "sigint");
    let checkpoint = checkpointed.join("ckpt/checkpoint");
    let child = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .current_dir(&checkpointed)
        .args(["run", "--batch-size", "64", "job.sql"])
        .env_remove("TIDEMARK_CRASH_AFTER_BATCHES")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tidemark starts");
    let started = std::time::Instant::now();
    while !checkpoint.exists() && started.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let stopped = child.wait_with_output().expect("reaped");
    let stderr = String::from_utf8_lossy(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("stopped at checkpoint"), "{stderr}");
    // The folder's parts closed at checkpoints are in place already.
    assert!(
        checkpointed.join("out1/part-0.csv").exists(),
        "a stopped job's output so far is committed"
    );
    resume_to_end(&job, plain, checkpointed, &reference, "after Ctrl-C");
}

/// A resumed run reads on only from the file its checkpoint read: an
/// input changed since (here one byte near its start) is refused, and the
/// staged output waits for a resume from the right file.
#[test]
fn a_changed_input_is_refused_on_resume() {
    let mut rng = Rng(env_number("TIDEMARK_CHECKPOINT_SEED", 0x00C4_ECC0) ^ 0xC4A6);
    let job = long_job(&mut rng, "out1.csv");
    let (plain, checkpointed, reference) = prepare(&job, "changed");
    let crashed = tidemark(
        &checkpointed,
        &["run", "--batch-size", "64", "job.sql"],
        Some(100),
    );
    assert_eq!(
        crashed.status.code(),
        None,
        "the injected crash ends the run"
    );
    let data = checkpointed.join(job.data_file);
    let original = std::fs::read(&data).expect("read data");
    let mut changed = original.clone();
    changed[3] = if changed[3] == b'9' { b'8' } else { b'9' };
    std::fs::write(&data, &changed).expect("write data");
    let refused = tidemark(&checkpointed, &["run", "--resume", "job.sql"], None);
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && message.contains("is not the file the checkpoint read"),
        "{message}"
    );
    std::fs::write(&data, &original).expect("write data");
    resume_to_end(
        &job,
        plain,
        checkpointed,
        &reference,
        "after a refused resume",
    );
}

/// A checkpoint damaged in ways its checksum cannot see (the checksum is
/// recomputed after each edit, as a deliberate edit would) must end in a
/// result or an error that renders — never a crash or an internal error.
#[test]
fn a_damaged_checkpoint_is_an_error_not_a_crash() {
    let cases = env_number("TIDEMARK_CHECKPOINT_CASES", 24) * 3;
    let mut rng = Rng(env_number("TIDEMARK_CHECKPOINT_SEED", 0x00C4_ECC0) ^ 0xDA3A);
    // Keys of several types, strings among the accumulators, a re-fired
    // window's emitted rows: the state that decodes the most.
    let job = Job {
        data_file: "bids.csv",
        data: data(&mut rng, false, false),
        others: vec![("asks.csv".into(), String::new())],
        script: "CREATE TABLE bids (ts_ms BIGINT, item STRING, price DOUBLE, qty INT, \
                 ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)\n\
                 WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');\n\
                 CREATE TABLE out1 (item STRING, qty INT, window_start TIMESTAMP(3), n BIGINT, \
                 hi STRING, items STRING, PRIMARY KEY (item, qty, window_start) NOT ENFORCED)\n\
                 WITH ('connector' = 'filesystem', 'path' = 'out1.csv', 'format' = 'csv');\n\
                 SET 'table.exec.emit.allow-lateness' = '2 s';\n\
                 INSERT INTO out1 SELECT item, qty, window_start, COUNT(*), MAX(item), LISTAGG(item)\n\
                 FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND))\n\
                 GROUP BY item, qty, window_start, window_end;\n"
            .into(),
        outputs: vec!["out1.csv"],
        batch_size: 100,
        interval: "300 rows".into(),
    };
    let (plain, checkpointed, _) = prepare(&job, "damaged");
    let batch = job.batch_size.to_string();
    // Halfway through, a few checkpoints in.
    let halfway = job.data.lines().count() as u64 / job.batch_size / 2;
    let crashed = tidemark(
        &checkpointed,
        &["run", "--batch-size", &batch, "job.sql"],
        Some(halfway),
    );
    assert_eq!(
        crashed.status.code(),
        None,
        "the injected crash ends the run"
    );
    let checkpoint = checkpointed.join("ckpt/checkpoint");
    let staged = checkpointed.join(".out1.csv.inprogress");
    let original = std::fs::read(&checkpoint).expect("a checkpoint was taken");
    let staged_bytes = std::fs::read(&staged).expect("staged output");
    const MAGIC: &[u8] = b"tidemark checkpoint 2\n";
    let body = &original[MAGIC.len() + 4..];
    let mut outcomes = [0u32; 2];
    for case in 0..cases {
        let mut damaged = body.to_vec();
        match rng.below(3) {
            0 => {
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(damaged.len() as u64) as usize;
                    damaged[at] = rng.below(256) as u8;
                }
            }
            1 => damaged.truncate(rng.below(damaged.len() as u64) as usize),
            _ => {
                let at = rng.below(damaged.len() as u64) as usize;
                let extra: Vec<u8> = (0..1 + rng.below(8))
                    .map(|_| rng.below(256) as u8)
                    .collect();
                damaged.splice(at..at, extra);
            }
        }
        let mut file = MAGIC.to_vec();
        file.extend_from_slice(&crc32fast::hash(&damaged).to_le_bytes());
        file.extend_from_slice(&damaged);
        std::fs::create_dir_all(checkpoint.parent().expect("folder")).expect("folder");
        std::fs::write(&checkpoint, &file).expect("write checkpoint");
        std::fs::write(&staged, &staged_bytes).expect("write staged output");
        let run = tidemark(&checkpointed, &["run", "--resume", "job.sql"], None);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(
            matches!(run.status.code(), Some(0 | 1)) && !stderr.contains("internal error"),
            "case {case}: {:?}\n{stderr}",
            run.status
        );
        outcomes[usize::from(!run.status.success())] += 1;
        let _ = std::fs::remove_file(checkpointed.join("out1.csv"));
    }
    // Most damage is noticed.
    assert!(outcomes[1] > outcomes[0], "{outcomes:?}");
    for dir in [plain, checkpointed] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The README's checkpoint example, as it says to run it: crashed after
/// three batches, resumed, and its parts read in order are what an
/// uninterrupted run writes.
#[test]
fn the_shipped_checkpoint_example_resumes_as_the_readme_says() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let script = std::fs::read_to_string(examples.join("checkpointed.sql")).expect("example");
    let data = std::fs::read_to_string(examples.join("data/bids.csv")).expect("example data");
    let mut outputs = Vec::new();
    for name in ["example-plain", "example-crashed"] {
        let dir = fresh_dir(name);
        std::fs::create_dir_all(dir.join("data")).expect("folder");
        std::fs::write(dir.join("data/bids.csv"), &data).expect("write data");
        std::fs::write(dir.join("checkpointed.sql"), &script).expect("write job");
        if name == "example-crashed" {
            let crashed = tidemark(
                &dir,
                &["run", "--batch-size", "4", "checkpointed.sql"],
                Some(3),
            );
            assert_eq!(
                crashed.status.code(),
                None,
                "the injected crash ends the run"
            );
            let resumed = tidemark(&dir, &["run", "--resume", "checkpointed.sql"], None);
            let stderr = String::from_utf8_lossy(&resumed.stderr);
            assert!(resumed.status.success(), "{stderr}");
            assert!(stderr.contains("resuming from checkpoint"), "{stderr}");
        } else {
            let run = tidemark(&dir, &["run", "checkpointed.sql"], None);
            assert!(
                run.status.success(),
                "{}",
                String::from_utf8_lossy(&run.stderr)
            );
        }
        outputs.push(output(&dir.join("out/totals")).expect("the example's output"));
        let _ = std::fs::remove_dir_all(dir);
    }
    assert!(!outputs[0].is_empty());
    assert_eq!(outputs[0], outputs[1]);
}
