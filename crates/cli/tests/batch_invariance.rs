//! Random streams, run at many batch sizes and with files read on several
//! threads: the output must be the same bytes as at batch size 1 on one
//! thread, which is the row-at-a-time engine the semantics are defined by.

mod common;

use common::Rng;
use std::fmt::Write as _;
use std::path::Path;
use tidemark::{Output, Session};

/// A CSV of `rows` rows: key, ts (ms, drifting forward with disorder and
/// occasional far-late rows, some before 1970), value (sometimes NULL).
fn random_csv(seed: u64, rows: usize) -> String {
    let mut rng = Rng(seed);
    let mut out = String::new();
    let mut now: i64 = -20_000 + rng.below(10_000) as i64;
    for _ in 0..rows {
        now += rng.below(400) as i64;
        let ts = match rng.below(20) {
            0 => now - 15_000,
            1..=5 => now - rng.below(3_000) as i64,
            _ => now,
        };
        let key = rng.below(4);
        let value = if rng.below(10) == 0 {
            String::new()
        } else {
            (rng.below(200) as i64 - 50).to_string()
        };
        // DOUBLEs whose sums depend on how additions are grouped.
        let double = (rng.below(1 << 20) as f64) / 7.0 * 10f64.powi(rng.below(12) as i32 - 6);
        let dt = chrono::DateTime::from_timestamp_millis(ts)
            .expect("in range")
            .naive_utc();
        let _ = writeln!(
            out,
            "k{key},{},{value},{double}",
            dt.format("%Y-%m-%d %H:%M:%S%.3f")
        );
    }
    out
}

const QUERIES: [&str; 26] = [
    "SELECT k, window_start, window_end, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v), \
     FIRST_VALUE(v), LAST_VALUE(v), LISTAGG(CAST(v AS STRING), ' ') \
     FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND)) \
     GROUP BY window_start, window_end, k",
    "SELECT window_start, COUNT(DISTINCT k), SUM(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), \
     INTERVAL '5' SECOND, INTERVAL '1' SECOND)) WHERE v IS NULL OR v > 0 GROUP BY window_start, window_end \
     HAVING COUNT(*) > 1",
    "SELECT k, ts, v, window_start FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE v < 20",
    "SELECT k, window_end, SUM(d), AVG(d), MAX(d) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '3' SECOND, \
     INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k",
    "SELECT k, window_start, window_end, COUNT(*), SUM(v), MIN(v), LISTAGG(CAST(v AS STRING)), FIRST_VALUE(v) \
     FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) GROUP BY window_start, window_end, k",
    "SELECT window_start, window_end, COUNT(DISTINCT k), AVG(v), LAST_VALUE(v), SUM(d) \
     FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND)) GROUP BY window_start, window_end",
    "SELECT k, window_start, window_end, COUNT(*), SUM(v), LISTAGG(CAST(v AS STRING)), MAX(d) \
     FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '300' MILLISECOND)) GROUP BY k, window_start, window_end",
    "SELECT k, v, d, window_start, window_end FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), \
     INTERVAL '300' MILLISECOND))",
    "CREATE VIEW w AS SELECT k, window_time AS wt, SUM(v) AS s FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), \
     INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end, window_time; \
     SELECT window_start, COUNT(*), SUM(s), LISTAGG(k) FROM TABLE(HOP(TABLE w, DESCRIPTOR(wt), INTERVAL '2' SECOND, \
     INTERVAL '4' SECOND)) GROUP BY window_start, window_end",
    // Allowed lateness: re-fires, retractions, trace lines and late rows
    // shown inline all keep their places at every batch size.
    "SET 'table.exec.emit.allow-lateness' = '1500 ms'; SET 'tidemark.trace' = 'true'; \
     SET 'tidemark.display.late-records' = 'true'; \
     SELECT k, window_start, window_end, COUNT(*), SUM(v), MAX(d), LISTAGG(CAST(v AS STRING)) \
     FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k",
    "SET 'table.exec.emit.allow-lateness' = '2 s'; SET 'tidemark.display.late-records' = 'true'; \
     SELECT k, window_start, window_end, COUNT(*), SUM(v), LISTAGG(CAST(v AS STRING)) \
     FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) GROUP BY window_start, window_end, k",
    "SET 'table.exec.emit.allow-lateness' = '2 s'; SET 'tidemark.trace' = 'true'; \
     SELECT window_start, window_end, COUNT(*), SUM(v), LISTAGG(CAST(v AS STRING)) \
     FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND)) GROUP BY window_start, window_end",
    "SET 'table.exec.emit.allow-lateness' = '1 s'; SET 'tidemark.trace' = 'true'; \
     SET 'tidemark.display.late-records' = 'true'; \
     SELECT k, window_start, window_end, COUNT(*), SUM(v), MIN(d) \
     FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '300' MILLISECOND)) GROUP BY k, window_start, window_end",
    // Early firing, alone and with lateness.
    "SET 'tidemark.emit.early-fire' = '700 ms'; SET 'tidemark.trace' = 'true'; \
     SELECT k, window_start, window_end, COUNT(*), SUM(v), LISTAGG(CAST(v AS STRING)) \
     FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, k",
    "SET 'tidemark.emit.early-fire' = '500 ms'; SET 'table.exec.emit.allow-lateness' = '1 s'; \
     SELECT k, window_start, window_end, COUNT(*), MAX(v) \
     FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end, k",
    // UNION ALL: rows interleaved by the lowest watermark, late rows by source.
    "CREATE VIEW both_tables AS SELECT k, ts, v FROM t UNION ALL SELECT k, ts, v FROM u WHERE v > 0; \
     SET 'tidemark.display.late-records' = 'true'; \
     SELECT k, window_start, window_end, COUNT(*), SUM(v), LISTAGG(CAST(v AS STRING)) \
     FROM TABLE(TUMBLE(TABLE both_tables, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k",
    // OVER windows: rows out in rowtime order, late rows by key.
    "SET 'tidemark.trace' = 'true'; SET 'tidemark.display.late-records' = 'true'; \
     SELECT k, ts, v, COUNT(*) OVER w, SUM(v) OVER w, MAX(d) OVER w, SUM(d) OVER w, FIRST_VALUE(v) OVER w \
     FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)",
    "SELECT k, ts, AVG(d) OVER w, MIN(v) OVER w, LAST_VALUE(v) OVER w, COUNT(v) OVER w \
     FROM t WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '700' MILLISECOND PRECEDING AND CURRENT ROW)",
    // Only incremental aggregates: the frames keep the rows' count
    // (ROWS) or rowtimes (RANGE), not the rows.
    "SELECT k, ts, SUM(d) OVER w, MAX(d) OVER w, MIN(v) OVER w \
     FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)",
    "SELECT k, ts, AVG(d) OVER w, MIN(d) OVER w, MAX(v) OVER w \
     FROM t WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '700' MILLISECOND PRECEDING AND CURRENT ROW)",
    "SELECT k, ts, SUM(v) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), \
     MAX(d) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t",
    "SELECT k, ts, ROW_NUMBER() OVER w, RANK() OVER w, LAG(v, 2) OVER w, SUM(d) OVER w \
     FROM t WINDOW w AS (PARTITION BY k ORDER BY ts)",
    // Window Top-N over a window aggregation.
    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY s DESC) AS rn, \
     RANK() OVER (PARTITION BY window_start, window_end ORDER BY s DESC) AS r FROM ( \
     SELECT window_start, window_end, k, SUM(v) AS s FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) \
     GROUP BY window_start, window_end, k)) WHERE rn <= 2",
    // Window joins: fired on the lower watermark, late rows traced and shown.
    "SET 'tidemark.trace' = 'true'; SET 'tidemark.display.late-records' = 'true'; \
     SELECT L.k, L.ts, L.v, R.k, R.ts, R.v, COALESCE(L.window_start, R.window_start) \
     FROM (SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND))) L \
     FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE u, DESCRIPTOR(ts), INTERVAL '1' SECOND))) R \
     ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k",
    "SELECT L.k, L.ts, R.ts, L.window_end \
     FROM (SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))) L \
     JOIN (SELECT * FROM TABLE(HOP(TABLE u, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))) R \
     ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.v = R.v",
    "SELECT k, ts, v, window_end FROM (SELECT * FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))) L \
     WHERE v NOT IN (SELECT v FROM (SELECT * FROM TABLE(CUMULATE(TABLE u, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))) R \
     WHERE L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k)",
];

/// The query's output at `batch_size`, read with `threads` threads in
/// pieces of `piece_bytes`, with window aggregations split by key over
/// `threads` threads.
fn run(dir: &Path, query: &str, batch_size: usize, threads: usize, piece_bytes: usize) -> String {
    let sql = format!(
        "CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, d DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) \
         WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv', 'csv.null-literal' = '');\n\
         CREATE TABLE u (k STRING, ts TIMESTAMP(3), v INT, d DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '500' MILLISECOND) \
         WITH ('connector' = 'filesystem', 'path' = 'in2.csv', 'format' = 'csv', 'csv.null-literal' = '');\n\
         SET 'tidemark.batch-size' = '{batch_size}';\n\
         SET 'parallelism.default' = '{threads}';\n\
         SET 'tidemark.parallel.piece-bytes' = '{piece_bytes}';\n\
         SET 'tidemark.parallel.split-by-key' = 'true';\n{query};"
    );
    let (mut rows, mut summary) = (Vec::new(), Vec::new());
    let mut session = Session::new(dir);
    let result = session.execute_script(
        &sql,
        &mut Output {
            rows: &mut rows,
            summary: &mut summary,
            timing: false,
        },
    );
    if let Err(e) = result {
        panic!("query failed: {}", e.render("query", &sql));
    }
    rows.extend(summary);
    String::from_utf8(rows).expect("output is UTF-8")
}

#[test]
fn output_does_not_depend_on_batch_size_or_threads() {
    let dir =
        std::env::temp_dir().join(format!("tidemark-batch-invariance-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for seed in 0..12u64 {
        std::fs::write(dir.join("in.csv"), random_csv(seed, 300)).expect("write input");
        std::fs::write(dir.join("in2.csv"), random_csv(seed + 1000, 200)).expect("write input");
        for query in QUERIES {
            let reference = run(&dir, query, 1, 1, 1 << 20);
            assert!(reference.contains("rows emitted"), "{reference}");
            if query == QUERIES[0] {
                // The generator makes far-late rows; the test is only worth
                // something if some are dropped.
                assert!(reference.contains("late rows dropped"), "{reference}");
            }
            let variants = [
                (2, 1, 1 << 20),
                (3, 1, 1 << 20),
                (7, 1, 1 << 20),
                (64, 1, 1 << 20),
                (8192, 1, 1 << 20),
                (8192, 2, 97),
                (5, 3, 31),
            ];
            for (batch_size, threads, piece_bytes) in variants {
                let other = run(&dir, query, batch_size, threads, piece_bytes);
                if other != reference {
                    let (line, (want, got)) = reference
                        .lines()
                        .chain(std::iter::repeat("<end>"))
                        .zip(other.lines().chain(std::iter::repeat("<end>")))
                        .enumerate()
                        .find(|(_, (a, b))| a != b)
                        .expect("outputs differ somewhere");
                    panic!(
                        "seed {seed}, batch size {batch_size}, {threads} threads, pieces of {piece_bytes} bytes, query {query}\n\
                         first difference at line {}:\n  batch size 1: {want}\n  this run: {got}",
                        line + 1
                    );
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
