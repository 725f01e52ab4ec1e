//! Unbounded sources through the real binary: rows piped to a `stdin`
//! table, a file followed as it grows (`source.monitor-interval`), results
//! that come out while the input is still open, and a stop by SIGTERM or
//! Ctrl-C that writes what was made, says so, and exits 128 + signal.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

const SCHEMA: &str = "bid_time TIMESTAMP(3), item STRING, bidder STRING, price DECIMAL(10, 2), \
                      WATERMARK FOR bid_time AS bid_time - INTERVAL '3' SECOND";
const QUERY: &str = "SELECT window_start, item, COUNT(*) AS bids, SUM(price) AS total \
                     FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '10' SECOND)) \
                     GROUP BY window_start, window_end, item;";

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("tidemark-unbounded-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

fn write_job(dir: &Path, with: &str) -> PathBuf {
    let job = dir.join("job.sql");
    let sql = format!("CREATE TABLE bids ({SCHEMA}) WITH ({with});\n{QUERY}\n");
    std::fs::write(&job, sql).expect("write the job");
    job
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The same query over the example's file, read to its end.
fn bounded_result() -> String {
    let dir = scratch("bounded");
    let path = examples().join("data/bids.csv");
    let job = write_job(
        &dir,
        &format!(
            "'connector' = 'filesystem', 'path' = '{}', 'format' = 'csv'",
            path.display()
        ),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .arg("run")
        .arg(&job)
        .output()
        .expect("run tidemark");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

fn spawn(args: &[&str], job: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .args(args)
        .arg(job)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tidemark")
}

/// The child's stdout, line by line, as it is written.
fn lines_of(child: &mut Child) -> Receiver<String> {
    lines_from(child.stdout.take().expect("a piped stdout"))
}

/// What `pipe` gives, line by line, as it is written.
fn lines_from(pipe: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (send, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

fn next_line(lines: &Receiver<String>) -> String {
    lines
        .recv_timeout(Duration::from_secs(20))
        .expect("a result row while the input is still open")
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(child.id().to_string())
        .status()
        .expect("run kill");
    assert!(status.success());
}

fn stderr_of(child: &mut Child) -> String {
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("piped stderr"), &mut err)
        .expect("read stderr");
    err
}

#[test]
fn rows_piped_to_a_stdin_table_give_what_the_file_gives() {
    let csv = std::fs::read(examples().join("data/bids.csv")).expect("the example data");
    let dir = scratch("stdin");
    let job = write_job(&dir, "'connector' = 'stdin', 'format' = 'csv'");
    let mut child = spawn(&["run"], &job);
    child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(&csv)
        .expect("pipe the rows");
    let out = child.wait_with_output().expect("wait for tidemark");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), bounded_result());
    let summary = text(&out.stderr);
    assert!(
        summary.contains("final watermark: +inf (end of input)"),
        "{summary}"
    );
    assert!(!summary.contains("cancelled"), "{summary}");
}

#[test]
fn json_lines_on_stdin_are_read_as_they_come() {
    let dir = scratch("stdin-json");
    let job = write_job(&dir, "'connector' = 'stdin', 'format' = 'json'");
    let mut child = spawn(&["run"], &job);
    let mut stdin = child.stdin.take().expect("a piped stdin");
    let lines = lines_of(&mut child);
    let bid = |t: &str, item: &str, price: &str| {
        format!("{{\"bid_time\": \"2020-04-15 08:{t}\", \"item\": \"{item}\", \"bidder\": \"x\", \"price\": {price}}}\n")
    };
    stdin
        .write_all(bid("05:01", "A", "2.5").as_bytes())
        .unwrap();
    stdin.write_all(bid("05:04", "B", "1").as_bytes()).unwrap();
    // Half a line, then a pause longer than a read waits: the line is
    // read once it ends.
    let third = bid("05:14", "A", "4");
    let (head, tail) = third.split_at(20);
    stdin.write_all(head.as_bytes()).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    stdin.write_all(tail.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // 08:05:14 - 3 s passes the end of [08:05:00, 08:05:10): it fires
    // while the pipe is still open.
    assert_eq!(next_line(&lines), "+I[2020-04-15 08:05:00.000, A, 1, 2.50]");
    assert_eq!(next_line(&lines), "+I[2020-04-15 08:05:00.000, B, 1, 1.00]");
    drop(stdin);
    assert_eq!(next_line(&lines), "+I[2020-04-15 08:05:10.000, A, 1, 4.00]");
    assert!(child.wait().expect("wait for tidemark").success());
}

#[test]
fn sigterm_stops_a_run_on_an_open_pipe_after_writing_its_results() {
    let dir = scratch("sigterm");
    let job = write_job(&dir, "'connector' = 'stdin', 'format' = 'csv'");
    let mut child = spawn(&["run"], &job);
    let mut stdin = child.stdin.take().expect("a piped stdin");
    let lines = lines_of(&mut child);
    stdin
        .write_all(b"2020-04-15 08:05:01,A,x,2.00\n2020-04-15 08:05:14,B,y,3.00\n")
        .unwrap();
    stdin.flush().unwrap();
    assert_eq!(next_line(&lines), "+I[2020-04-15 08:05:00.000, A, 1, 2.00]");
    signal(&child, "TERM");
    let status = child.wait().expect("wait for tidemark");
    assert_eq!(status.code(), Some(143));
    // B's window is still open: a stop is not the end of input.
    assert!(lines.recv_timeout(Duration::from_secs(5)).is_err());
    let summary = stderr_of(&mut child);
    assert!(summary.contains("source bids: 2 rows read"), "{summary}");
    assert!(
        summary.contains("cancelled before the end of input: windows still open were not fired"),
        "{summary}"
    );
    assert!(
        summary.contains("final watermark: 2020-04-15 08:05:11.000"),
        "{summary}"
    );
    drop(stdin);
}

#[test]
fn a_followed_file_is_read_as_it_grows_and_drain_fires_open_windows() {
    let dir = scratch("follow");
    let data = dir.join("live.csv");
    std::fs::write(&data, "2020-04-15 08:05:01,A,x,2.00\n").unwrap();
    let job = write_job(
        &dir,
        "'connector' = 'filesystem', 'path' = 'live.csv', 'format' = 'csv', \
         'source.monitor-interval' = '50 ms'",
    );
    let mut child = spawn(&["run", "--drain"], &job);
    let lines = lines_of(&mut child);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&data)
        .unwrap();
    // A record written in two pieces is read once it is whole.
    file.write_all(b"2020-04-15 08:05:14,B,").unwrap();
    file.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    file.write_all(b"y,3.00\n").unwrap();
    file.flush().unwrap();
    assert_eq!(next_line(&lines), "+I[2020-04-15 08:05:00.000, A, 1, 2.00]");
    file.write_all(b"2020-04-15 08:05:15,B,z,1.50\n2020-04-15 08:05:24,C,x,9.00\n")
        .unwrap();
    file.flush().unwrap();
    assert_eq!(next_line(&lines), "+I[2020-04-15 08:05:10.000, B, 2, 4.50]");
    signal(&child, "INT");
    // With --drain the input ends at the stop: C's open window fires.
    assert_eq!(next_line(&lines), "+I[2020-04-15 08:05:20.000, C, 1, 9.00]");
    let status = child.wait().expect("wait for tidemark");
    assert_eq!(status.code(), Some(130));
    let summary = stderr_of(&mut child);
    assert!(summary.contains("source bids: 4 rows read"), "{summary}");
    assert!(
        summary.contains("open windows fired with the final watermark"),
        "{summary}"
    );
}

/// `tidemark run job` with nothing on standard input, which must fail
/// with exit status 1; its stderr.
fn failing_run(job: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .arg("run")
        .arg(job)
        .stdin(Stdio::null())
        .output()
        .expect("run tidemark");
    assert_eq!(out.status.code(), Some(1));
    text(&out.stderr)
}

#[test]
fn a_stdin_table_needs_a_format() {
    let dir = scratch("no-format");
    let job = write_job(&dir, "'connector' = 'stdin'");
    let err = failing_run(&job);
    assert!(
        err.contains("the stdin connector needs a 'format' option")
            && err.contains("hint: 'format' = 'csv' or 'json'"),
        "{err}"
    );
    assert!(err.contains('^'), "{err}");
}

#[test]
fn standard_input_is_read_once_per_query() {
    let dir = scratch("twice");
    let job = dir.join("job.sql");
    std::fs::write(
        &job,
        format!(
            "CREATE TABLE bids ({SCHEMA}) WITH ('connector' = 'stdin', 'format' = 'csv');\n\
             SELECT item FROM bids UNION ALL SELECT item FROM bids;\n"
        ),
    )
    .unwrap();
    let err = failing_run(&job);
    assert!(
        err.contains("a query can read standard input once"),
        "{err}"
    );
}

#[test]
fn the_interactive_client_does_not_read_rows_from_its_own_input() {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .arg("--no-history")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tidemark");
    child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(
            format!(
                "CREATE TABLE bids ({SCHEMA}) WITH ('connector' = 'stdin', 'format' = 'csv');\n\
                 SELECT item FROM bids;\n"
            )
            .as_bytes(),
        )
        .unwrap();
    let out = child.wait_with_output().expect("wait for tidemark");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("reads standard input, where this client reads statements"),
        "{err}"
    );
}

/// The issue every Flink user meets, through the real binary and the
/// wall clock: two followed files in a UNION ALL, one of them quiet
/// after its first row. `idle`: the job's `table.exec.source.idle-timeout`.
fn quiet_input_job(dir: &Path, idle: Option<&str>) -> PathBuf {
    let table = |name: &str| {
        format!(
            "CREATE TABLE {name} (ts TIMESTAMP(3), k STRING, \
             WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', \
             'path' = '{name}.csv', 'format' = 'csv', 'source.monitor-interval' = '50 ms');\n"
        )
    };
    let mut sql = String::from("SET 'tidemark.trace' = 'true';\n");
    if let Some(idle) = idle {
        sql.push_str(&format!(
            "SET 'table.exec.source.idle-timeout' = '{idle}';\n"
        ));
    }
    sql.push_str(&table("a"));
    sql.push_str(&table("b"));
    sql.push_str(
        "CREATE VIEW ab AS SELECT * FROM a UNION ALL SELECT * FROM b;\n\
         SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE ab, DESCRIPTOR(ts), \
         INTERVAL '10' SECOND)) GROUP BY window_start, window_end;\n",
    );
    std::fs::write(dir.join("a.csv"), "2024-01-01 00:00:00,a\n").unwrap();
    std::fs::write(dir.join("b.csv"), "2024-01-01 00:00:00,b\n").unwrap();
    let job = dir.join("job.sql");
    std::fs::write(&job, sql).unwrap();
    job
}

/// Appends a's rows at 00:00:01 .. 00:00:17, a few at a time.
fn feed_a(dir: &Path) {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("a.csv"))
        .unwrap();
    for s in 1..=17 {
        writeln!(file, "2024-01-01 00:00:{s:02},a").unwrap();
        file.flush().unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The child's stderr, line by line, as it is written.
fn stderr_lines_of(child: &mut Child) -> Receiver<String> {
    lines_from(child.stderr.take().expect("a piped stderr"))
}

/// Lines until one starts with `prefix` (that one included).
fn lines_until(lines: &Receiver<String>, prefix: &str) -> Vec<String> {
    let mut seen = Vec::new();
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no line starting {prefix:?} after {seen:#?}"));
        let done = line.starts_with(prefix);
        seen.push(line);
        if done {
            return seen;
        }
    }
}

#[test]
fn with_an_idle_timeout_a_quiet_input_goes_idle_and_the_others_windows_fire() {
    let dir = scratch("idle");
    let job = quiet_input_job(&dir, Some("1 s"));
    let mut child = spawn(&["run"], &job);
    let rows = lines_of(&mut child);
    let trace = stderr_lines_of(&mut child);
    feed_a(&dir);
    // b goes quiet after its first row: once it has been silent for the
    // timeout it is idle, and then a's watermark (16 s) fires [0 s, 10 s)
    // with a's ten rows and b's one.
    let before = lines_until(&trace, "IDLE");
    assert!(before.iter().all(|l| !l.starts_with("FIRE")), "{before:#?}");
    assert!(
        before.last().unwrap().contains("split=b.csv"),
        "{before:#?}"
    );
    lines_until(&trace, "FIRE");
    assert_eq!(
        rows.recv_timeout(Duration::from_secs(20)).unwrap(),
        "+I[2024-01-01 00:00:00.000, 11]"
    );
    signal(&child, "INT");
    let status = child.wait().expect("wait for tidemark");
    assert_eq!(status.code(), Some(130));
    let rest: Vec<String> = trace.iter().collect();
    let summary = rest.join("\n");
    assert!(
        summary.contains("source b: 1 row read (a split went idle 1 time"),
        "{summary}"
    );
    assert!(!summary.contains("held the watermark"), "{summary}");
}

#[test]
fn without_an_idle_timeout_the_summary_names_the_input_that_held_the_watermark() {
    let dir = scratch("held");
    let job = quiet_input_job(&dir, None);
    let mut child = spawn(&["run"], &job);
    let rows = lines_of(&mut child);
    let trace = stderr_lines_of(&mut child);
    let warning = lines_until(&trace, "warning:");
    assert!(
        warning
            .last()
            .unwrap()
            .contains("tables a and b may each pause, with no idle timeout"),
        "{warning:#?}"
    );
    feed_a(&dir);
    // Give the run time to read a's rows: nothing can fire, as b holds
    // the watermark at 23:59:59.
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, "INT");
    let status = child.wait().expect("wait for tidemark");
    assert_eq!(status.code(), Some(130));
    assert!(rows.recv_timeout(Duration::from_secs(1)).is_err());
    let summary: Vec<String> = trace.iter().collect();
    let summary = summary.join("\n");
    assert!(!summary.contains("FIRE"), "{summary}");
    assert!(
        summary.contains(
            "note: input b (split b.csv) held the watermark at 2023-12-31 23:59:59.000 for"
        ),
        "{summary}"
    );
    assert!(
        summary.contains(
            "while input a was at 2024-01-01 00:00:16.000; an input that goes quiet stalls every window behind it: set 'table.exec.source.idle-timeout'"
        ),
        "{summary}"
    );
}

#[test]
fn a_followed_folder_reads_each_new_file_once_as_a_split_of_its_own() {
    let dir = scratch("folder");
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(
        logs.join("a.csv"),
        "2020-04-15 08:05:01,A,x,2.00\n2020-04-15 08:05:14,A,y,1.00\n",
    )
    .unwrap();
    let job = write_job(
        &dir,
        "'connector' = 'filesystem', 'path' = 'logs/', 'format' = 'csv', \
         'source.monitor-interval' = '50 ms'",
    );
    let mut child = spawn(&["run", "--trace"], &job);
    let rows = lines_of(&mut child);
    let trace = stderr_lines_of(&mut child);
    // a.csv alone fires [08:05:00, 08:05:10): the folder is being read.
    assert_eq!(next_line(&rows), "+I[2020-04-15 08:05:00.000, A, 1, 2.00]");
    // A file written under a hidden name, then renamed into place, as
    // writers do: read once it has its name, as a split of its own.
    std::fs::write(logs.join(".b.csv.tmp"), "2020-04-15 08:05:25,B,y,3.00\n").unwrap();
    std::fs::rename(logs.join(".b.csv.tmp"), logs.join("b.csv")).unwrap();
    let joined = lines_until(&trace, "SPLIT");
    assert!(
        joined.last().unwrap().contains("split=logs/b.csv"),
        "{joined:#?}"
    );
    // b's row lifts the watermark to 08:05:22: a's second window fires,
    // with a's row read once.
    assert_eq!(next_line(&rows), "+I[2020-04-15 08:05:10.000, A, 1, 1.00]");
    std::fs::write(logs.join("c.csv"), "2020-04-15 08:05:40,C,z,1.00\n").unwrap();
    assert_eq!(next_line(&rows), "+I[2020-04-15 08:05:20.000, B, 1, 3.00]");
    signal(&child, "INT");
    let status = child.wait().expect("wait for tidemark");
    assert_eq!(status.code(), Some(130));
    let summary: Vec<String> = trace.iter().collect();
    let summary = summary.join("\n");
    assert!(summary.contains("source bids: 4 rows read"), "{summary}");
    assert!(!summary.contains("warning:"), "{summary}");
}

/// A checkpointed job over two followed files in a UNION ALL, with an
/// idle timeout: b goes quiet after its first row and idle, so a's rows
/// go out and fire their windows. Checkpoints fall where the watermark
/// passes a multiple of 10 s of event time (and the files' reads stand
/// between batches).
fn comeback_job(dir: &Path) -> PathBuf {
    let table = |name: &str| {
        format!(
            "CREATE TABLE {name} (ts TIMESTAMP(3), k STRING, WATERMARK FOR ts AS ts) \
             WITH ('connector' = 'filesystem', 'path' = '{name}.csv', 'format' = 'csv', \
             'source.monitor-interval' = '50 ms');\n"
        )
    };
    let mut sql = String::from(
        "SET 'tidemark.trace' = 'true';\n\
         SET 'table.exec.source.idle-timeout' = '1 s';\n\
         SET 'execution.checkpointing.dir' = 'ckpt';\n\
         SET 'execution.checkpointing.interval' = '10 s event time';\n",
    );
    sql.push_str(&table("a"));
    sql.push_str(&table("b"));
    sql.push_str(
        "CREATE TABLE out (window_start TIMESTAMP(3), n BIGINT) \
         WITH ('connector' = 'filesystem', 'path' = 'out/', 'format' = 'csv');\n\
         CREATE VIEW ab AS SELECT * FROM a UNION ALL SELECT * FROM b;\n\
         INSERT INTO out SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(\
         TABLE ab, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;\n",
    );
    std::fs::write(dir.join("a.csv"), a_rows(0..22)).unwrap();
    std::fs::write(dir.join("b.csv"), "2024-01-01 00:00:00,b\n").unwrap();
    let job = dir.join("job.sql");
    std::fs::write(&job, sql).unwrap();
    job
}

/// Rows of a, one per second.
fn a_rows(seconds: std::ops::Range<u32>) -> String {
    seconds
        .map(|s| format!("2024-01-01 00:00:{s:02},a\n"))
        .collect()
}

fn append(path: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file.flush().unwrap();
}

/// Lines until a FIRE of the window starting at `start`.
fn until_fired(trace: &Receiver<String>, start: &str) -> Vec<String> {
    let mut seen = Vec::new();
    while !seen
        .last()
        .is_some_and(|l: &String| l.contains(&format!("window=[2024-01-01 {start}")))
    {
        seen.extend(lines_until(trace, "FIRE"));
    }
    seen
}

/// Runs the job (one row per read) through its story, then stops it
/// with `stop` (INT: Ctrl-C, KILL: a crash): a's rows to 00:00:21 go
/// out once b is idle and a checkpoint is taken at the watermark 00:00:21;
/// a's rows to 00:00:29 fire [20 s, 25 s); then b comes back with rows
/// at 00:00:22 and 00:00:23, late.
fn run_until_b_came_back(dir: &Path, stop: &str) -> String {
    let job = comeback_job(dir);
    let checkpoint = dir.join("ckpt/checkpoint");
    let written = || {
        std::fs::metadata(&checkpoint)
            .and_then(|m| m.modified())
            .ok()
    };
    let mut child = Running(spawn(&["run", "--batch-size", "1"], &job));
    let trace = stderr_lines_of(&mut child.0);
    let mut seen = lines_until(&trace, "IDLE");
    let before = written();
    seen.extend(until_fired(&trace, "00:00:15.000"));
    let started = std::time::Instant::now();
    while written() == before && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_ne!(written(), before, "a checkpoint at 00:00:21: {seen:#?}");
    append(&dir.join("a.csv"), &a_rows(22..30));
    seen.extend(until_fired(&trace, "00:00:20.000"));
    append(
        &dir.join("b.csv"),
        "2024-01-01 00:00:22,b\n2024-01-01 00:00:23,b\n",
    );
    seen.extend(lines_until(&trace, "ACTIVE"));
    // One read, one row: a line for each of b's two.
    seen.extend(lines_until(&trace, "LATE"));
    seen.extend(lines_until(&trace, "LATE"));
    signal(&child.0, stop);
    child.0.wait().expect("wait for tidemark");
    seen.extend(trace.iter());
    seen.join("\n")
}

/// A running tidemark, killed if the test fails before it stops it.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Resumes the job with all its rows there at once, until b's rows were
/// judged late (`late`) or [20 s, 25 s) fired, then stops it with Ctrl-C.
fn resume(dir: &Path, late: bool) -> String {
    let mut child = Running(spawn(
        &["run", "--batch-size", "1", "--resume"],
        &dir.join("job.sql"),
    ));
    let trace = stderr_lines_of(&mut child.0);
    let mut seen = lines_until(&trace, "resuming from checkpoint");
    if late {
        seen.extend(lines_until(&trace, "LATE"));
        seen.extend(lines_until(&trace, "LATE"));
    } else {
        seen.extend(until_fired(&trace, "00:00:20.000"));
    }
    signal(&child.0, "INT");
    let status = child.0.wait().expect("wait for tidemark");
    seen.extend(trace.iter());
    let seen = seen.join("\n");
    assert_eq!(status.code(), Some(130), "{seen}");
    seen
}

/// The rows of the job's output folder: its parts in order.
fn parts(dir: &Path) -> String {
    let mut parts: Vec<(u64, PathBuf)> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?.to_string();
            let n = name
                .strip_prefix("part-")?
                .strip_suffix(".csv")?
                .parse()
                .ok()?;
            Some((n, path))
        })
        .collect();
    parts.sort();
    parts
        .iter()
        .map(|(_, p)| std::fs::read_to_string(p).unwrap())
        .collect()
}

#[test]
fn a_crash_after_an_input_came_back_resumes_to_the_uninterrupted_output() {
    // Uninterrupted: stopped with Ctrl-C once b's rows were late.
    let whole = scratch("comeback-whole");
    let trace = run_until_b_came_back(&whole, "INT");
    assert!(trace.contains("stopped at checkpoint"), "{trace}");
    let expected = parts(&whole);
    // b's two rows at 00:00:22 came after [20 s, 25 s) fired with a's five.
    assert!(
        expected.contains("\"2024-01-01 00:00:20\",5\n"),
        "{expected}"
    );
    assert!(trace.contains("2 late rows dropped"), "{trace}");

    // Killed there instead: the checkpoint was taken before b came back,
    // the journal beside it says where b came back; the resumed run reads
    // b's rows at once, yet applies the decision between the same rows.
    let crashed = scratch("comeback-crash");
    run_until_b_came_back(&crashed, "KILL");
    let resumed = resume(&crashed, true);
    assert!(
        resumed.contains("ACTIVE") && resumed.contains("split=b.csv"),
        "the journaled comeback is traced again: {resumed}"
    );
    assert_eq!(parts(&crashed), expected, "{resumed}");
    assert!(resumed.contains("2 late rows dropped"), "{resumed}");

    // Without the journal the resumed run decides anew: b comes back at
    // once, its rows on time, and [20 s, 25 s) counts seven.
    let unjournaled = scratch("comeback-nojournal");
    run_until_b_came_back(&unjournaled, "KILL");
    std::fs::remove_file(unjournaled.join("ckpt/journal")).expect("a journal was kept");
    let trace = resume(&unjournaled, false);
    let without = parts(&unjournaled);
    assert!(
        without.contains("\"2024-01-01 00:00:20\",7\n"),
        "{without}\n{trace}"
    );
}
