//! DuckDB as an outside anchor: the benchmark's aggregation run by DuckDB
//! on one thread, through Python's `duckdb` package, when a Python that
//! has it is found (`TIDEMARK_BENCH_PYTHON`, else `python3`). Without one
//! the benchmarks say so and go on without it.

use crate::driver::Run;
use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Stdio};

/// The Python that runs DuckDB: `TIDEMARK_BENCH_PYTHON`, else `python3`.
fn python_name() -> OsString {
    std::env::var_os("TIDEMARK_BENCH_PYTHON").unwrap_or_else(|| "python3".into())
}

/// A Python that can import `duckdb`, or why there is none.
pub fn python() -> Result<OsString, String> {
    let python = python_name();
    let imported = Command::new(&python)
        .args(["-c", "import duckdb"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    match imported {
        Ok(status) if status.success() => Ok(python),
        _ => Err(format!(
            "DuckDB skipped: {} cannot import the duckdb package \
             (pip install duckdb, or set TIDEMARK_BENCH_PYTHON to a Python that has it)",
            python.to_string_lossy()
        )),
    }
}

/// COUNT(*), SUM(price), MAX(price) per key and one-minute window over
/// the bids in `path` (`csv` or `json` lines), on one thread, the results
/// written to /dev/null so that every column is computed; prints `rows
/// emitted: N` on stderr as `tidemark run` does.
const SCRIPT: &str = r#"
import sys, duckdb
path, fmt = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute("SET threads = 1")
columns = "{'key': 'VARCHAR', 'ts': 'TIMESTAMP', 'price': 'DOUBLE'}"
if fmt == "csv":
    source = f"read_csv('{path}', header = false, columns = {columns})"
else:
    source = f"read_json('{path}', format = 'newline_delimited', columns = {columns})"
query = (f"SELECT key, time_bucket(INTERVAL 1 MINUTE, ts) AS window_start, "
         f"count(*), sum(price), max(price) FROM {source} GROUP BY ALL")
n = con.execute(f"COPY ({query}) TO '/dev/null' (FORMAT csv)").fetchone()[0]
print(f"rows emitted: {n}", file=sys.stderr)
"#;

/// DuckDB's run of the TUMBLE aggregation over `path`, in `format`.
pub fn tumble(python: &OsString, name: &'static str, path: &Path, format: &str, rows: u64) -> Run {
    Run {
        name,
        command: vec![
            python.clone(),
            "-c".into(),
            SCRIPT.into(),
            path.into(),
            format.into(),
        ],
        rows,
    }
}
