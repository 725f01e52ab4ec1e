//! Random streams through random window queries, on tidemark and on real
//! Apache Flink 2.3 (through `tidemark export`): each case's rows from
//! tidemark are its expected file, and `tidemark test --engine flink` must
//! find Flink's rows equal. Streams of three keys, rows out of order and
//! some far behind the watermark; TUMBLE, HOP, CUMULATE and SESSION
//! aggregations (TUMBLE and HOP also with allowed lateness, run on Flink as
//! legacy group windows), OVER ROWS windows and window Top-N.
//!
//! Needs `TIDEMARK_FLINK_PYTHON` (as `.ci/run` sets it); without it the
//! test says it is skipped. `TIDEMARK_FLINK_RANDOM_CASES` and
//! `TIDEMARK_FLINK_RANDOM_SEED` run more or other cases.

mod common;

use common::{env_number, Rng};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// A stream from 2024-01-01 on (Flink's watermark starts at 1970, so no
/// rows before it), each row a key, a second and a value.
fn stream(rng: &mut Rng) -> String {
    let mut csv = String::new();
    let mut t = 0u64;
    for _ in 0..5 + rng.below(36) {
        t += rng.below(5);
        let behind = if rng.below(10) < 3 { rng.below(13) } else { 0 };
        let second = t.saturating_sub(behind);
        let key = *rng.pick(&["a", "b", "c"]);
        let value = rng.below(26) as i64 - 5;
        let _ = writeln!(
            csv,
            "{key},2024-01-01 {:02}:{:02}:{:02},{value}",
            second / 3600,
            second / 60 % 60,
            second % 60
        );
    }
    csv
}

fn query(rng: &mut Rng) -> String {
    let aggregates = *rng.pick(&[
        "COUNT(*) AS n, SUM(v) AS s",
        "MIN(v) AS lo, MAX(v) AS hi",
        "COUNT(DISTINCT v) AS d, AVG(v) AS a",
        "SUM(v) FILTER (WHERE v > 3) AS f",
    ]);
    let size = *rng.pick(&[5, 10]);
    let group = "GROUP BY window_start, window_end, k";
    let select = format!("SELECT k, window_start, window_end, {aggregates}");
    let lateness = format!(
        "SET 'table.exec.emit.allow-lateness' = '{} s';\n",
        rng.pick(&[2, 5, 10])
    );
    match rng.below(8) {
        0 => format!("{select} FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '{size}' SECOND)) {group};"),
        1 => format!("{lateness}{select} FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '{size}' SECOND)) {group};"),
        2 | 3 => {
            let slide = rng.pick(&[1, 5]);
            let late = if rng.below(2) == 0 { lateness.as_str() } else { "" };
            format!("{late}{select} FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '{slide}' SECOND, INTERVAL '{size}' SECOND)) {group};")
        }
        4 => format!("{select} FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '{}' SECOND)) {group};", size * 2),
        5 => format!(
            "{select} FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '{}' SECOND)) {group};",
            rng.pick(&[2, 4])
        ),
        6 => format!(
            "SELECT k, ts, v, SUM(v) OVER w AS s, MAX(v) OVER w AS m FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN {} PRECEDING AND CURRENT ROW);",
            rng.pick(&[1, 2])
        ),
        _ => format!("SELECT * FROM (SELECT k, v, ts, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC, ts) AS rn FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '{size}' SECOND))) WHERE rn <= 2;"),
    }
}

#[test]
fn random_streams_give_the_same_rows_on_flink() {
    let Some(python) = std::env::var_os("TIDEMARK_FLINK_PYTHON") else {
        eprintln!("skipped: TIDEMARK_FLINK_PYTHON is not set (.ci/flink install makes a Flink installation)");
        return;
    };
    let cases = env_number("TIDEMARK_FLINK_RANDOM_CASES", 40);
    let seed = env_number("TIDEMARK_FLINK_RANDOM_SEED", 0x7e57);
    let mut rng = Rng(seed);
    let dir = std::env::temp_dir().join(format!("tidemark-flink-random-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("data")).expect("a temporary folder");
    for case in 0..cases {
        std::fs::write(dir.join(format!("data/c{case}.csv")), stream(&mut rng)).expect("writable");
        let delay = rng.pick(&[0, 1, 2, 5]);
        let sql = format!(
            "CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts - INTERVAL '{delay}' SECOND) \
             WITH ('connector' = 'filesystem', 'path' = 'data/c{case}.csv', 'format' = 'csv');\n{}\n",
            query(&mut rng)
        );
        std::fs::write(dir.join(format!("c{case}.sql")), sql).expect("writable");
    }
    let tidemark = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tidemark"))
            .env("TIDEMARK_FLINK_PYTHON", &python)
            .args(args)
            .arg(&dir)
            .output()
            .expect("tidemark runs")
    };
    let blessed = tidemark(&["test", "--bless"]);
    assert!(
        blessed.status.success(),
        "tidemark's own run failed: {}",
        String::from_utf8_lossy(&blessed.stdout)
    );
    let output = tidemark(&["test", "--engine", "flink"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary = stdout.lines().last().unwrap_or_default().to_string();
    let equal: u64 = summary
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        output.status.success() && summary.contains(" 0 differ") && equal == cases,
        "seed {seed}: expected the random cases equal on Flink:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let _ = std::fs::remove_dir_all(Path::new(&dir));
}
