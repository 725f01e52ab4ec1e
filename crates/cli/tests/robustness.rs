//! Seeded random inputs that must never crash tidemark: mutated golden
//! scripts through the front end and planner, random token soup, and
//! mutated CSV and JSON files through the readers. Every outcome must be
//! a result or a user-facing error that renders; an internal error (which
//! is also what a caught panic becomes) fails the test with the input
//! that caused it.
//!
//! `TIDEMARK_ROBUSTNESS_CASES=N` runs N cases of each kind instead of the
//! default; `TIDEMARK_ROBUSTNESS_SEED=S` starts from another seed.

// The fuzz targets' judgement of an outcome, shared.
#[path = "../../../fuzz/src/checks.rs"]
#[allow(dead_code)]
mod checks;

use std::path::{Path, PathBuf};

/// splitmix64: a small deterministic generator, so failures replay.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn cases(default: usize) -> usize {
    std::env::var("TIDEMARK_ROBUSTNESS_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn seed() -> u64 {
    std::env::var("TIDEMARK_ROBUSTNESS_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x7469_6465)
}

fn sql_tests() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sql-tests")
}

/// Files under `dir` whose names end with one of `endings`, sorted.
fn files(dir: &Path, endings: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable test directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if endings.iter().any(|e| path.to_string_lossy().ends_with(e)) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Pieces of SQL a mutation inserts: keywords, punctuation, literals of
/// every kind, and text that is hard on a lexer or a caret.
const TOKENS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP BY",
    "OVER",
    "PARTITION BY",
    "ORDER BY",
    "TABLE",
    "DESCRIPTOR",
    "TUMBLE",
    "HOP",
    "CUMULATE",
    "SESSION",
    "INTERVAL",
    "'1' SECOND",
    "'-5' MINUTE",
    "ROWS",
    "RANGE",
    "BETWEEN",
    "PRECEDING",
    "CURRENT ROW",
    "UNBOUNDED",
    "WATERMARK FOR",
    "AS",
    "(",
    ")",
    ",",
    ";",
    "'",
    "\"",
    "`",
    "--",
    "/*",
    "*/",
    "*",
    "+",
    "-",
    "/",
    "%",
    "=",
    "<>",
    "||",
    ".",
    "NULL",
    "TRUE",
    "0",
    "-1",
    "9223372036854775807",
    "-9223372036854775808",
    "1e308",
    "1.5",
    "99999999999999999999999999999999999999",
    "''",
    "'x''y'",
    "CAST(",
    " AS DECIMAL(38, 37))",
    "TIMESTAMP '1970-01-01 00:00:00'",
    "TIMESTAMP '9999-12-31 23:59:59.999'",
    "DATE '0001-01-01'",
    "COUNT(*)",
    "SUM(",
    "LISTAGG(",
    "ROW_NUMBER()",
    "LAG(",
    "CASE WHEN",
    "THEN",
    "ELSE",
    "END",
    "JOIN",
    "ON",
    "UNION ALL",
    "IN (",
    "NOT",
    "EXISTS",
    "WITH",
    "SET",
    "RESET",
    "EXPLAIN",
    "SHOW",
    "DESCRIBE",
    "INSERT INTO",
    "CREATE TABLE",
    "CREATE VIEW",
    "'connector' = 'datagen'",
    "'format' = 'json'",
    "'path' = ''",
    "é",
    "日本",
    "\u{1F600}",
    "\t",
    "\n",
    "\r\n",
    " ",
];

/// `text` with one to four random edits: deletions, insertions of tokens,
/// duplicated or swapped stretches, truncation.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let len = chars.len();
        let at = rng.below(len + 1);
        match rng.below(6) {
            0 if len > 0 => {
                let end = (at + 1 + rng.below(12)).min(len);
                chars.drain(at.min(end)..end);
            }
            1 | 2 => {
                let token: Vec<char> = rng.pick(TOKENS).chars().collect();
                chars.splice(at..at, token);
            }
            3 if len > 0 => {
                let start = rng.below(len);
                let end = (start + 1 + rng.below(40)).min(len);
                let copy: Vec<char> = chars[start..end].to_vec();
                chars.splice(at..at, copy);
            }
            4 if len > 1 => {
                let (a, b) = (rng.below(len), rng.below(len));
                chars.swap(a, b);
            }
            _ => chars.truncate(at),
        }
    }
    chars.into_iter().collect()
}

/// Runs `sql` in `dir` (planning only, unless `run`) and fails on an
/// internal error or a panic, showing the input. Returns whether the
/// script ran to its end, and how many bytes of output it wrote.
fn check(dir: &Path, sql: &str, run: bool, what: &str) -> (bool, usize) {
    match checks::judge_script(dir, sql, !run) {
        Ok(ran) => (ran.completed, ran.row_bytes),
        Err(failure) => panic!("{what}: {failure}\n--- input\n{sql}"),
    }
}

/// How many cases ran through and how many failed cleanly: a harness
/// whose inputs all fail the same way (or all pass) tests little.
#[derive(Default, Debug)]
struct Tally {
    ran: usize,
    failed: usize,
}

impl Tally {
    fn add(&mut self, (ran, _): (bool, usize)) {
        if ran {
            self.ran += 1;
        } else {
            self.failed += 1;
        }
    }

    fn assert_mixed(&self, cases: usize) {
        assert!(
            self.ran * 20 >= cases && self.failed * 20 >= cases,
            "too one-sided to test much: {self:?}"
        );
    }
}

#[test]
fn mutated_scripts_plan_or_fail_cleanly() {
    let scripts = files(&sql_tests(), &[".sql"]);
    assert!(
        scripts.len() > 100,
        "golden scripts found: {}",
        scripts.len()
    );
    let mut rng = Rng(seed());
    let mut tally = Tally::default();
    let n = cases(1500);
    for case in 0..n {
        let path = rng.pick(&scripts);
        let text = std::fs::read_to_string(path).expect("readable script");
        let sql = mutate(&mut rng, &text);
        let dir = path.parent().expect("script directory");
        tally.add(check(
            dir,
            &sql,
            false,
            &format!("case {case}, from {}", path.display()),
        ));
    }
    tally.assert_mixed(n);
}

/// A copy of `from` under `to`, so that what a mutated script writes
/// (a mutation may turn a source into a sink) lands outside the repository.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("temp dir");
    for entry in std::fs::read_dir(from).expect("readable directory") {
        let path = entry.expect("directory entry").path();
        let target = to.join(path.file_name().expect("file name"));
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}

#[test]
fn mutated_scripts_run_or_fail_cleanly() {
    let copy = std::env::temp_dir().join(format!("tidemark-robustness-run-{}", std::process::id()));
    copy_tree(&sql_tests(), &copy);
    let scripts = files(&copy, &[".sql"]);
    let mut rng = Rng(seed() ^ 0x52_55_4E);
    let mut tally = Tally::default();
    let n = cases(400);
    let mut ran = 0;
    while ran < n {
        let path = rng.pick(&scripts);
        let text = std::fs::read_to_string(path).expect("readable script");
        let sql = mutate(&mut rng, &text);
        // Generated and endless inputs may be made arbitrarily long by a
        // mutation: they are planned above, not run.
        if ["datagen", "nexmark", "stdin", "monitor", "clock"]
            .iter()
            .any(|s| sql.to_ascii_lowercase().contains(s))
        {
            continue;
        }
        let dir = path.parent().expect("script directory");
        tally.add(check(
            dir,
            &sql,
            true,
            &format!("run {ran}, from {}", path.display()),
        ));
        ran += 1;
    }
    let _ = std::fs::remove_dir_all(&copy);
    tally.assert_mixed(n);
}

/// `tidemark export --flink` of every golden script and of randomly
/// edited ones: an exported script, a refusal or a clean error — never a
/// panic or an internal error.
#[test]
fn golden_and_mutated_scripts_export_or_fail_cleanly() {
    use tidemark::export::{export, ExportOptions, SelectsTo};
    let scripts = files(&sql_tests(), &[".sql"]);
    let mut rng = Rng(seed() ^ 0xE4_9E);
    let n = cases(600);
    let inputs = scripts
        .iter()
        .map(|p| (p.clone(), false))
        .chain((0..n).map(|_| (rng.pick(&scripts).clone(), true)));
    let mut mutation = Rng(seed() ^ 0x3A);
    for (case, (path, mutated)) in inputs.enumerate() {
        let text = std::fs::read_to_string(&path).expect("readable script");
        let sql = if mutated {
            mutate(&mut mutation, &text)
        } else {
            text
        };
        let dir = path.parent().expect("script directory");
        for (selects, allow_differences) in [(SelectsTo::Print, false), (SelectsTo::Client, true)] {
            let options = ExportOptions {
                selects,
                allow_differences,
                base: None,
            };
            let outcome = std::panic::catch_unwind(|| export(&sql, "case.sql", dir, &options));
            match outcome {
                Err(_) => panic!(
                    "case {case}, from {}: export panicked\n--- input\n{sql}",
                    path.display()
                ),
                Ok(Err(tidemark_common::Error::Internal(m))) => panic!(
                    "case {case}, from {}: internal error {m}\n--- input\n{sql}",
                    path.display()
                ),
                Ok(Ok(exported)) if !mutated => {
                    // The script holds each exported statement once, each
                    // ended by its `;`, and parses again.
                    let reparsed =
                        tidemark_sql::parse_script(&exported.script).unwrap_or_else(|e| {
                            panic!(
                                "{}: the exported script does not parse: {e}\n{}",
                                path.display(),
                                exported.script
                            )
                        });
                    assert_eq!(
                        reparsed.len(),
                        exported.statements.len(),
                        "{}: statements in the script and the list\n{}",
                        path.display(),
                        exported.script
                    );
                }
                Ok(_) => {}
            }
        }
    }
}

#[test]
fn token_soup_plans_or_fails_cleanly() {
    let mut rng = Rng(seed() ^ 0x50_55_50);
    let dir = std::env::temp_dir();
    for case in 0..cases(1500) {
        let n = 1 + rng.below(30);
        let sql: Vec<&str> = (0..n).map(|_| *rng.pick(TOKENS)).collect();
        check(&dir, &sql.join(" "), false, &format!("case {case}"));
    }
    // Random tokens almost never make a valid script: no tally.
}

/// Tables over `data.csv` / `data.json` in `dir` with columns of every
/// type a reader converts to, read whole.
fn reader_script(format: &str, ignore_errors: bool, header: bool) -> String {
    let options = match format {
        "csv" => format!(
            "'format' = 'csv', 'path' = 'data.csv', 'csv.ignore-parse-errors' = '{ignore_errors}', \
             'csv.header' = '{header}', 'csv.allow-comments' = 'true'"
        ),
        _ => format!(
            "'format' = 'json', 'path' = 'data.json', 'json.ignore-parse-errors' = '{ignore_errors}'"
        ),
    };
    format!(
        "CREATE TABLE t (a STRING, ts TIMESTAMP(3), n BIGINT, i INT, d DOUBLE, m DECIMAL(10, 2), \
         b BOOLEAN, l TIMESTAMP_LTZ(3), ti TINYINT, si SMALLINT, f FLOAT, dt DATE, tm TIME(3), \
         WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) \
         WITH ('connector' = 'filesystem', {options});\n\
         SELECT a, COUNT(*), SUM(n), MAX(d), SUM(m), SUM(ti), AVG(si), SUM(f), MIN(dt), MAX(tm) \
         FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), \
         INTERVAL '1' MINUTE)) GROUP BY a, window_start, window_end;\n\
         SELECT * FROM t;"
    )
}

/// A line of a data file, made awkward: fields of the wrong kind, quotes,
/// extremes, bytes that are not UTF-8.
fn noisy_line(rng: &mut Rng, json: bool) -> Vec<u8> {
    const FIELDS: &[&str] = &[
        "x",
        "",
        "\"q,uoted\"",
        "\"unterminated",
        "2024-03-01 09:00:00",
        "2024-03-01T09:00:00.123Z",
        "1970-01-01 00:00:00",
        "0001-01-01 00:00:00",
        "9999-12-31 23:59:59.999",
        "2024-13-45 99:99:99",
        "12",
        "-9223372036854775808",
        "9223372036854775808",
        "1e309",
        "NaN",
        "-0.0",
        "3.14159",
        "99999999.999",
        "true",
        "FALSE",
        "127",
        "-129",
        "32768",
        "3.4028235E38",
        "1.4E-45",
        "2024-02-29",
        "2024-2-30",
        "23:59:59.999",
        "24:00:00",
        "null",
        "\u{FEFF}",
        "日本",
    ];
    let mut line = Vec::new();
    if json {
        line.extend_from_slice(b"{");
        let keys = [
            "a", "ts", "n", "i", "d", "m", "b", "l", "ti", "si", "f", "dt", "tm",
        ];
        for (k, key) in keys.iter().enumerate() {
            if rng.below(6) == 0 {
                continue;
            }
            if k > 0 {
                line.push(b',');
            }
            let value = rng.pick(FIELDS);
            let quoted = rng.below(2) == 0;
            line.extend_from_slice(format!("\"{key}\":").as_bytes());
            if quoted {
                line.extend_from_slice(format!("{value:?}").as_bytes());
            } else {
                line.extend_from_slice(value.as_bytes());
            }
        }
        if rng.below(8) != 0 {
            line.push(b'}');
        }
    } else {
        for k in 0..rng.below(16) {
            if k > 0 {
                line.push(b',');
            }
            line.extend_from_slice(rng.pick(FIELDS).as_bytes());
        }
    }
    if rng.below(12) == 0 {
        let at = rng.below(line.len() + 1);
        line.insert(at, [0xff, 0xc3, 0x00, b'\r'][rng.below(4)]);
    }
    line
}

#[test]
fn noisy_files_are_read_or_rejected_cleanly() {
    let dir = std::env::temp_dir().join(format!("tidemark-robustness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut rng = Rng(seed() ^ 0xF11E);
    let mut tally = Tally::default();
    let mut rows_out = 0;
    let n = cases(300);
    for case in 0..n {
        let json = case % 2 == 1;
        let mut data = Vec::new();
        for _ in 0..rng.below(40) {
            data.extend(noisy_line(&mut rng, json));
            data.extend_from_slice(if rng.below(5) == 0 { b"\r\n" } else { b"\n" });
        }
        if rng.below(4) == 0 {
            data.truncate(rng.below(data.len() + 1));
        }
        let name = if json { "data.json" } else { "data.csv" };
        std::fs::write(dir.join(name), &data).expect("write data");
        let sql = reader_script(
            if json { "json" } else { "csv" },
            rng.below(2) == 0,
            rng.below(3) == 0,
        );
        let outcome = check(
            &dir,
            &sql,
            true,
            &format!(
                "case {case}, data:\n{}\n---",
                String::from_utf8_lossy(&data)
            ),
        );
        rows_out += outcome.1;
        tally.add(outcome);
    }
    let _ = std::fs::remove_dir_all(&dir);
    tally.assert_mixed(n);
    assert!(rows_out > 0, "no case read a row");
}
