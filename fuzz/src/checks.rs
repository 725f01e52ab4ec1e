//! What the fuzz targets check, shared by the AFL++ binaries in `fuzz/`
//! and by the replay test `crates/cli/tests/fuzz_corpus.rs`, which runs
//! every saved input through these same functions in an ordinary build.
//!
//! Each check runs one input and returns `Err` with a description when
//! tidemark failed in a way that is a bug: an internal error (which is
//! also what a panic caught by `Session::execute_script` becomes), or a
//! panic while rendering the error for the user. A user-facing error
//! (bad SQL, a bad field, a missing file) is a correct answer and passes.

use std::path::Path;
use tidemark::{Output, Session};
use tidemark_common::Error;

/// The kinds of input, one per fuzz target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A SQL script, planned (`explain_only`) but not run.
    Sql,
    /// The contents of `data.csv`, read through a table with a column of
    /// every type and queried.
    Csv,
    /// The same as `Csv`, for `data.json` with `'format' = 'json'`.
    Json,
}

impl Target {
    pub const ALL: [Target; 3] = [Target::Sql, Target::Csv, Target::Json];

    /// The folder name of this target's corpus and crash inputs.
    pub fn name(self) -> &'static str {
        match self {
            Target::Sql => "sql",
            Target::Csv => "csv",
            Target::Json => "json",
        }
    }
}

/// Runs `data` as an input of `target` in the scratch folder `dir`, which
/// must exist (the CSV and JSON checks write their data file there).
pub fn check(target: Target, dir: &Path, data: &[u8]) -> Result<(), String> {
    match target {
        Target::Sql => check_sql(dir, data),
        Target::Csv | Target::Json => check_file(target, dir, data),
    }
}

/// A script planned in `dir`. Input that is not UTF-8 cannot be a script
/// and is skipped.
pub fn check_sql(dir: &Path, data: &[u8]) -> Result<(), String> {
    match std::str::from_utf8(data) {
        Ok(sql) => run_script(dir, sql, true),
        Err(_) => Ok(()),
    }
}

/// `data` written to the data file in `dir` and read by [`file_script`]
/// with the options that the first byte selects.
pub fn check_file(target: Target, dir: &Path, data: &[u8]) -> Result<(), String> {
    let name = match target {
        Target::Json => "data.json",
        _ => "data.csv",
    };
    std::fs::write(dir.join(name), data)
        .map_err(|e| format!("cannot write the data file in {}: {e}", dir.display()))?;
    let flags = data.first().copied().unwrap_or(0);
    run_script(dir, &file_script(target, flags), false)
}

/// A table over the data file with a column of every type the readers
/// convert to and a watermark, then a tumbling-window aggregation and a
/// plain scan of it. The bits of `flags` choose reader options: bit 0
/// `ignore-parse-errors`; for CSV, bit 1 `csv.header` and bit 2
/// `csv.allow-comments`; for JSON, bit 1 `json.fail-on-missing-field` and
/// bit 2 ISO-8601 timestamps.
pub fn file_script(target: Target, flags: u8) -> String {
    let bit = |n: u8| {
        if flags & (1 << n) != 0 {
            "true"
        } else {
            "false"
        }
    };
    let options = match target {
        Target::Json => format!(
            "'format' = 'json', 'path' = 'data.json', 'json.ignore-parse-errors' = '{}', \
             'json.fail-on-missing-field' = '{}', 'json.timestamp-format.standard' = '{}'",
            bit(0),
            bit(1),
            if flags & 4 != 0 { "ISO-8601" } else { "SQL" },
        ),
        _ => format!(
            "'format' = 'csv', 'path' = 'data.csv', 'csv.ignore-parse-errors' = '{}', \
             'csv.header' = '{}', 'csv.allow-comments' = '{}'",
            bit(0),
            bit(1),
            bit(2),
        ),
    };
    format!(
        "CREATE TABLE t (\n\
         \x20 a STRING,\n\
         \x20 ts TIMESTAMP(3),\n\
         \x20 n BIGINT,\n\
         \x20 i INT,\n\
         \x20 d DOUBLE,\n\
         \x20 m DECIMAL(10, 2),\n\
         \x20 b BOOLEAN,\n\
         \x20 l TIMESTAMP_LTZ(3),\n\
         \x20 WATERMARK FOR ts AS ts - INTERVAL '1' SECOND\n\
         ) WITH ('connector' = 'filesystem', {options});\n\
         SELECT a, window_start, window_end, COUNT(*), SUM(n), SUM(i), MAX(d), SUM(m), MIN(l)\n\
         FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))\n\
         GROUP BY a, window_start, window_end;\n\
         SELECT * FROM t;\n"
    )
}

/// Runs `sql` in `dir` with its output discarded and judges the outcome.
fn run_script(dir: &Path, sql: &str, explain_only: bool) -> Result<(), String> {
    judge_script(dir, sql, explain_only).map(|_| ())
}

/// What a script that did not crash did.
pub struct Ran {
    /// It ran to its end (else it stopped at a user-facing error).
    pub completed: bool,
    /// Bytes of rows it printed.
    pub row_bytes: usize,
}

/// Runs `sql` in `dir` and judges the outcome: a result or an error that
/// renders is fine; an internal error (also what a caught panic becomes)
/// or a panic while rendering the error is not.
pub fn judge_script(dir: &Path, sql: &str, explain_only: bool) -> Result<Ran, String> {
    let mut session = Session::new(dir);
    session.explain_only = explain_only;
    let (mut rows, mut summary) = (Vec::new(), std::io::sink());
    let result = session.execute_script(
        sql,
        &mut Output {
            rows: &mut rows,
            summary: &mut summary,
            timing: false,
        },
    );
    let Err(error) = result else {
        return Ok(Ran {
            completed: true,
            row_bytes: rows.len(),
        });
    };
    let rendered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        error.render("case.sql", sql)
    }));
    match (rendered, &error) {
        (Err(_), _) => Err(format!("rendering the error panicked: {error:?}")),
        (Ok(_), Error::Internal(message)) => Err(format!("internal error: {message}")),
        (Ok(_), _) => Ok(Ran {
            completed: false,
            row_bytes: rows.len(),
        }),
    }
}

/// A scratch folder for one process, named after the target and the
/// process id so that parallel fuzzers do not share one.
pub fn scratch_dir(target: Target) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tidemark-fuzz-{}-{}",
        target.name(),
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("cannot create a scratch folder");
    dir
}
