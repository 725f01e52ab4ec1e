//! The jdbc sink against a real PostgreSQL server: upserts that leave one
//! row per window and key with its final value, late updates that
//! overwrite, deletes, appends, type and key checks before any row is
//! written, and a server that goes down mid-run and comes back.
//!
//! The server is named by `TIDEMARK_TEST_POSTGRES` (a URL); `.ci/postgres
//! start` makes a throwaway one and prints it. Without it these tests say
//! so and pass: `.ci/run` always sets it.

mod common;

use common::Rng;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The tests share one server, and one of them stops it: they take turns.
static SERVER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The test server's URL and this test's turn with it, or None (the test
/// is then skipped, saying so).
fn server(test: &str) -> Option<(String, std::sync::MutexGuard<'static, ()>)> {
    let Ok(url) = std::env::var("TIDEMARK_TEST_POSTGRES") else {
        // Straight to stderr, past the test harness's capture: a skipped
        // test must be seen to be skipped.
        let _ = writeln!(
            std::io::stderr(),
            "postgres_sink: {test}: skipped, TIDEMARK_TEST_POSTGRES is not set (see .ci/postgres)"
        );
        return None;
    };
    let turn = SERVER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Some((url, turn))
}

/// What a test starts from: its turn with the server, a connection, the
/// tables `ddl` makes afresh, and a folder `name`.
struct Setup {
    url: String,
    _turn: std::sync::MutexGuard<'static, ()>,
    db: postgres::Client,
    dir: PathBuf,
}

fn setup(test: &str, ddl: &str, name: &str) -> Option<Setup> {
    let (url, turn) = server(test)?;
    let mut db = client(&url);
    db.batch_execute(ddl).expect("create the tables");
    Some(Setup {
        url,
        _turn: turn,
        db,
        dir: dir(name),
    })
}

fn client(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).expect("the test server accepts connections")
}

fn dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tidemark-pg-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn tidemark(dir: &Path, script: &str) -> Output {
    std::fs::write(dir.join("job.sql"), script).expect("write job");
    Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .current_dir(dir)
        .args(["run", "job.sql"])
        .output()
        .expect("tidemark runs")
}

/// A table's rows as text, sorted, every value as PostgreSQL shows it.
fn rows(db: &mut postgres::Client, query: &str) -> Vec<String> {
    let mut out: Vec<String> = db
        .query(query, &[])
        .expect("query")
        .iter()
        .map(|r| {
            (0..r.len())
                .map(|i| {
                    r.get::<_, Option<String>>(i)
                        .unwrap_or_else(|| "NULL".into())
                })
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    out.sort();
    out
}

/// A file's lines, sorted.
fn sorted_lines(path: &Path) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(path)
        .expect("read file")
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

const BIDS: &str = "CREATE TABLE bids (k STRING, ts TIMESTAMP(3), v INT, \
    WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) \
    WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');\n";

/// The allowed-lateness example: one row per (window, key), and the late
/// row's re-fire overwrites the first result.
#[test]
fn upserts_leave_one_row_per_window_and_key_with_the_final_value() {
    let Some(Setup {
        url,
        _turn,
        mut db,
        dir,
    }) = setup(
        "upserts",
        "DROP TABLE IF EXISTS lateness_totals;
         CREATE TABLE lateness_totals (k text, window_start timestamp, n bigint, total bigint,
                                       PRIMARY KEY (window_start, k));",
        "upsert",
    )
    else {
        return;
    };
    // Window [0 s, 10 s) of key a gets 1 s and 3 s; 13 s moves the
    // watermark to 11 s, which fires it (n = 2, total = 3); 4 s arrives
    // within the 5 s of allowed lateness and re-fires it (n = 3, total =
    // 13); 30 s closes everything. Key b's window [10 s, 20 s) fires once.
    std::fs::write(
        dir.join("bids.csv"),
        "a,1970-01-01 00:00:01,1\na,1970-01-01 00:00:03,2\nb,1970-01-01 00:00:12,5\n\
         b,1970-01-01 00:00:13,6\na,1970-01-01 00:00:04,10\nb,1970-01-01 00:00:30,7\n",
    )
    .expect("write data");
    let run = tidemark(
        &dir,
        &format!(
            "{BIDS}CREATE TABLE totals (k STRING, window_start TIMESTAMP(3), n BIGINT, total BIGINT,
               PRIMARY KEY (window_start, k) NOT ENFORCED)
             WITH ('connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'lateness_totals');
             SET 'table.exec.emit.allow-lateness' = '5 s';
             INSERT INTO totals
             SELECT k, window_start, COUNT(*), SUM(CAST(v AS BIGINT))
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
             GROUP BY window_start, window_end, k;"
        ),
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        rows(
            &mut db,
            "SELECT k, window_start::text, n::text, total::text FROM lateness_totals"
        ),
        [
            "a,1970-01-01 00:00:00,3,13",
            "b,1970-01-01 00:00:10,2,11",
            "b,1970-01-01 00:00:30,1,7",
        ]
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A random stream with late rows and re-fires, written both to
/// PostgreSQL and to a file that keeps the last row per key: the same
/// rows, one per key.
#[test]
fn the_database_holds_what_an_upsert_file_holds() {
    let Some(Setup { url, _turn, mut db, dir }) = setup(
        "random upserts",
        "DROP TABLE IF EXISTS random_totals;
         CREATE TABLE random_totals (k text, window_start timestamp, window_end timestamp,
                                     n bigint, total bigint, hi integer, PRIMARY KEY (k, window_start));",
        "random",
    ) else {
        return;
    };
    let mut rng = Rng(0x7067);
    let mut data = String::new();
    let mut t = 0i64;
    for _ in 0..20_000 {
        t += rng.below(300) as i64;
        let ts = t - rng.below(6_000) as i64;
        data.push_str(&format!(
            "k{},{},{}\n",
            rng.below(30),
            chrono::DateTime::from_timestamp_millis(1_700_000_000_000 + ts)
                .expect("in range")
                .format("%Y-%m-%d %H:%M:%S%.3f"),
            rng.below(1000)
        ));
    }
    std::fs::write(dir.join("bids.csv"), data).expect("write data");
    let columns = "k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, \
                   total BIGINT, hi INT, PRIMARY KEY (k, window_start) NOT ENFORCED";
    let query = "SELECT k, window_start, window_end, COUNT(*), SUM(CAST(v AS BIGINT)), MAX(v) \
                 FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND)) \
                 GROUP BY window_start, window_end, k";
    let run = tidemark(
        &dir,
        &format!(
            "{BIDS}CREATE TABLE db ({columns})
               WITH ('connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'random_totals');
             CREATE TABLE file ({columns})
               WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');
             SET 'table.exec.emit.allow-lateness' = '4 s';
             INSERT INTO db {query};
             INSERT INTO file {query};"
        ),
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let in_db = rows(
        &mut db,
        // As the csv file writes them: whole-second window bounds without a
        // fraction, quoted for their space.
        "SELECT k, '\"' || to_char(window_start, 'YYYY-MM-DD HH24:MI:SS') || '\"', \
         '\"' || to_char(window_end, 'YYYY-MM-DD HH24:MI:SS') || '\"', n::text, total::text, hi::text \
         FROM random_totals",
    );
    let in_file = sorted_lines(&dir.join("totals.csv"));
    assert!(in_file.len() > 1000, "{} rows", in_file.len());
    assert_eq!(in_db, in_file);
    let _ = std::fs::remove_dir_all(dir);
}

/// A checkpointed job crashed mid-run and resumed: the upserts sent again
/// after the checkpoint leave the rows an uninterrupted run leaves.
#[test]
fn a_checkpointed_job_resumed_after_a_crash_leaves_the_same_rows() {
    let Some(Setup {
        url,
        _turn,
        mut db,
        dir,
    }) = setup(
        "checkpoints",
        "DROP TABLE IF EXISTS resumed_totals;
         CREATE TABLE resumed_totals (k text, window_start timestamp, n bigint,
                                      PRIMARY KEY (k, window_start));",
        "resumed",
    )
    else {
        return;
    };
    let mut rng = Rng(0x7068);
    let mut data = String::new();
    let mut t = 0i64;
    for _ in 0..6_000 {
        t += rng.below(300) as i64;
        let ts = (t - rng.below(3_000) as i64).max(0);
        data.push_str(&format!(
            "k{},1970-01-01 00:{:02}:{:02}.{:03},1\n",
            rng.below(20),
            ts / 60_000,
            ts / 1000 % 60,
            ts % 1000
        ));
    }
    std::fs::write(dir.join("bids.csv"), data).expect("write data");
    let job = format!(
        "SET 'execution.checkpointing.dir' = 'ckpt';
         SET 'execution.checkpointing.interval' = '500 rows';
         {BIDS}CREATE TABLE t (k STRING, window_start TIMESTAMP(3), n BIGINT,
           PRIMARY KEY (k, window_start) NOT ENFORCED)
         WITH ('connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'resumed_totals');
         CREATE TABLE f (k STRING, window_start TIMESTAMP(3), n BIGINT,
           PRIMARY KEY (k, window_start) NOT ENFORCED)
         WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');
         SET 'table.exec.emit.allow-lateness' = '2 s';
         INSERT INTO t SELECT k, window_start, COUNT(*)
           FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' SECOND))
           GROUP BY window_start, window_end, k;
         INSERT INTO f SELECT k, window_start, COUNT(*)
           FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' SECOND))
           GROUP BY window_start, window_end, k;"
    );
    std::fs::write(dir.join("job.sql"), job).expect("write job");
    let run = |crash: Option<&str>, resume: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tidemark"));
        command
            .current_dir(&dir)
            .args(["run", "--batch-size", "100"]);
        if resume {
            command.arg("--resume");
        }
        command
            .arg("job.sql")
            .env_remove("TIDEMARK_CRASH_AFTER_BATCHES");
        if let Some(n) = crash {
            command.env("TIDEMARK_CRASH_AFTER_BATCHES", n);
        }
        command.output().expect("tidemark runs")
    };
    let crashed = run(Some("37"), false);
    assert_eq!(
        crashed.status.code(),
        None,
        "the injected crash ends the run"
    );
    let resumed = run(None, true);
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{stderr}");
    assert!(stderr.contains("resuming from checkpoint"), "{stderr}");
    let in_db = rows(
        &mut db,
        "SELECT k, '\"' || to_char(window_start, 'YYYY-MM-DD HH24:MI:SS') || '\"', n::text \
         FROM resumed_totals",
    );
    let in_file = sorted_lines(&dir.join("totals.csv"));
    assert!(in_file.len() > 100, "{} rows", in_file.len());
    assert_eq!(in_db, in_file);
    let _ = std::fs::remove_dir_all(dir);
}

/// What is checked before any row is written: the declared types against
/// the database's, the key an upsert needs, the table itself.
#[test]
fn a_table_that_does_not_fit_is_an_error_before_any_row() {
    let Some(Setup {
        url,
        _turn,
        mut db,
        dir,
    }) = setup(
        "checks",
        "DROP TABLE IF EXISTS narrow_totals, keyless_totals;
         CREATE TABLE narrow_totals (k text PRIMARY KEY, n integer);
         CREATE TABLE keyless_totals (k text, n bigint);",
        "checks",
    )
    else {
        return;
    };
    std::fs::write(dir.join("bids.csv"), "a,1970-01-01 00:00:01,1\n").expect("write data");
    let insert = "SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), \
                  INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k";
    let cases = [
        (
            "narrow_totals",
            "PRIMARY KEY (k) NOT ENFORCED",
            "column n is BIGINT here but integer in 'narrow_totals'",
        ),
        (
            "keyless_totals",
            "PRIMARY KEY (k) NOT ENFORCED",
            "has no primary or unique key on those columns",
        ),
        (
            "missing_totals",
            "PRIMARY KEY (k) NOT ENFORCED",
            "'missing_totals' does not exist",
        ),
    ];
    for (table, key, message) in cases {
        let run = tidemark(
            &dir,
            &format!(
                "{BIDS}CREATE TABLE t (k STRING, n BIGINT, {key})
                 WITH ('connector' = 'jdbc', 'url' = '{url}', 'table-name' = '{table}');
                 INSERT INTO t {insert};"
            ),
        );
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{table}: {stderr}");
        assert!(stderr.contains(message), "{table}: {stderr}");
        assert!(!stderr.contains("password"), "{stderr}");
    }
    assert!(rows(&mut db, "SELECT k FROM narrow_totals").is_empty());
    assert!(rows(&mut db, "SELECT k FROM keyless_totals").is_empty());
    let _ = std::fs::remove_dir_all(dir);
}

/// Without a key, an insert-only query appends its rows.
#[test]
fn without_a_key_rows_are_appended() {
    let Some(Setup {
        url,
        _turn,
        mut db,
        dir,
    }) = setup(
        "append",
        "DROP TABLE IF EXISTS appended; CREATE TABLE appended (k text, n bigint, at timestamptz);",
        "append",
    )
    else {
        return;
    };
    std::fs::write(dir.join("bids.csv"), "a,1000\nb,2000\na,12000\nb,40000\n").expect("write data");
    let run = tidemark(
        &dir,
        &format!(
            "CREATE TABLE bids (k STRING, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
               WATERMARK FOR ts AS ts)
             WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
             CREATE TABLE t (k STRING, n BIGINT, at TIMESTAMP_LTZ(3))
             WITH ('connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'appended');
             SET 'table.local-time-zone' = 'Asia/Shanghai';
             INSERT INTO t SELECT k, COUNT(*), window_time
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
             GROUP BY window_start, window_end, window_time, k;"
        ),
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // window_time is an instant: the database holds it whatever the zone.
    assert_eq!(
        rows(
            &mut db,
            "SELECT k, n::text, extract(epoch from at)::text FROM appended"
        ),
        [
            "a,1,19.999000",
            "a,1,9.999000",
            "b,1,49.999000",
            "b,1,9.999000"
        ]
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// The server stops (as a crash would) while rows are coming in and
/// starts again: the batches that failed meanwhile are sent again, and
/// the table ends as if nothing had happened — nothing lost, nothing twice.
#[cfg(unix)]
#[test]
fn a_server_that_goes_down_mid_run_loses_nothing() {
    let Some(Setup { url, _turn, db, dir }) = setup(
        "server down",
        "DROP TABLE IF EXISTS restart_totals;
         CREATE TABLE restart_totals (k text, window_start timestamp, n bigint, PRIMARY KEY (k, window_start));",
        "restart",
    ) else {
        return;
    };
    // This connection would not survive the stop.
    drop(db);
    let control = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/postgres");
    std::fs::write(
        dir.join("job.sql"),
        format!(
            "CREATE TABLE bids (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts)
               WITH ('connector' = 'stdin', 'format' = 'csv');
             CREATE TABLE t (k STRING, window_start TIMESTAMP(3), n BIGINT,
               PRIMARY KEY (k, window_start) NOT ENFORCED)
             WITH ('connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'restart_totals',
                   'sink.max-retries' = '8');
             INSERT INTO t SELECT k, window_start, COUNT(*)
             FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' SECOND))
             GROUP BY window_start, window_end, k;"
        ),
    )
    .expect("write job");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .current_dir(&dir)
        .args(["run", "job.sql"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tidemark starts");
    let mut input = child.stdin.take().expect("stdin");
    // Three rows per second of event time, keys a and b; every second
    // fires the one before.
    let mut second = 0;
    let mut send = |input: &mut std::process::ChildStdin, seconds: u32| {
        for _ in 0..seconds {
            for k in ["a", "b", "a"] {
                writeln!(
                    input,
                    "{k},1970-01-01 00:{:02}:{:02}.500,1",
                    second / 60,
                    second % 60
                )
                .expect("write row");
            }
            second += 1;
        }
        input.flush().expect("flush");
    };
    let control_run = |what: &str| {
        let status = Command::new(&control)
            .arg(what)
            .status()
            .expect(".ci/postgres runs");
        assert!(status.success(), ".ci/postgres {what}");
    };
    send(&mut input, 20);
    std::thread::sleep(std::time::Duration::from_millis(500));
    control_run("pause");
    // These windows fire while the server is down.
    send(&mut input, 20);
    std::thread::sleep(std::time::Duration::from_millis(700));
    control_run("unpause");
    send(&mut input, 20);
    drop(input);
    let out = child.wait_with_output().expect("tidemark ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("sent again after the connection"),
        "batches failed while the server was down: {stderr}"
    );
    let mut db = client(&url);
    let got = rows(&mut db, "SELECT k, n::text FROM restart_totals");
    // 60 seconds, each a window with a: 2, b: 1.
    let mut want: Vec<String> = (0..60)
        .flat_map(|_| ["a,2".to_string(), "b,1".to_string()])
        .collect();
    want.sort();
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(dir);
}
