//! The interactive client driven through a pseudo-terminal, as a person
//! types: multi-line statements, tab completion, tableau results, errors
//! with a caret, Ctrl-C cancelling a long query, history, Ctrl-C and
//! Ctrl-D at the prompt. Timeouts are generous and nothing is timed: a
//! slow machine makes these slower, not flaky.
#![cfg(unix)]

use rexpect::error::Error;
use rexpect::reader::Options;
use rexpect::session::{spawn_with_options, PtySession};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How long any one expected output may take to appear.
const TIMEOUT_MS: u64 = 60_000;

/// A folder of its own for one test, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("tidemark-repl-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temporary folder");
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Starts `tidemark` in `dir` on a pseudo-terminal, with `args`.
fn start(dir: &Path, args: &[&str]) -> Result<PtySession, Error> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tidemark"));
    command
        .args(args)
        .current_dir(dir)
        // The line editor needs a terminal type it knows; CI may set none.
        .env("TERM", "xterm")
        .env_remove("TIDEMARK_HISTORY");
    let mut session = spawn_with_options(
        command,
        Options::new()
            .timeout_ms(Some(TIMEOUT_MS))
            .strip_ansi_escape_codes(true),
    )?;
    session.exp_string("tidemark> ")?;
    Ok(session)
}

/// A small table of bids in `dir`.
fn small_table(dir: &Path) -> String {
    std::fs::write(
        dir.join("bids.csv"),
        "2024-03-01 09:00:01,A,1.50\n2024-03-01 09:00:02,B,12.00\n2024-03-01 09:00:03,C,30.25\n",
    )
    .expect("write bids.csv");
    "CREATE TABLE auction_bids (ts TIMESTAMP(3), item STRING, price DECIMAL(10, 2), \
     WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) \
     WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');"
        .to_string()
}

#[test]
fn multi_line_statement_completion_tableau_and_errors() -> Result<(), Error> {
    let dir = TempDir::new("basics");
    let create = small_table(dir.path());
    let mut s = start(dir.path(), &["--no-history"])?;
    s.send_line(&create)?;
    s.exp_string("table 'auction_bids' created")?;

    // A statement over three lines runs when its `;` comes.
    s.send_line("SELECT item, price")?;
    s.exp_string("-> ")?;
    s.send_line("FROM auction_bids")?;
    s.exp_string("-> ")?;
    s.send_line("WHERE price > 10;")?;
    s.exp_string("| op | item")?;
    s.exp_string("| +I | B")?;
    s.exp_string("12.00 |")?;
    s.exp_string("| +I | C")?;
    s.exp_string("2 rows, 0 late rows")?;
    s.exp_string("tidemark> ")?;

    // Tab completes the table name: DESCRIBE finds the table.
    s.send("DESCRIBE auc")?;
    s.send("\t")?;
    s.flush()?;
    s.send_line(";")?;
    s.exp_string("*ROWTIME*")?;
    s.exp_string("ts - INTERVAL '1' SECOND")?;
    s.exp_string("'connector' = 'filesystem'")?;
    s.exp_string("tidemark> ")?;

    // An error points at the SQL, and the session goes on.
    s.send_line("SELECT nope FROM auction_bids;")?;
    s.exp_string("unknown column 'nope'")?;
    s.exp_string("^^^^")?;
    s.exp_string("tidemark> ")?;
    s.send_line("SET 'sql-client.execution.result-mode' = 'changelog';")?;
    s.exp_string("set 'sql-client.execution.result-mode' = 'changelog'")?;
    s.send_line("SELECT item FROM auction_bids WHERE price < 2;")?;
    s.exp_string("+I[A]")?;
    s.exp_string("tidemark> ")?;

    // Ctrl-D at an empty prompt leaves.
    s.send_control('d')?;
    s.exp_eof()?;
    Ok(())
}

#[test]
fn ctrl_c_cancels_a_long_query_and_the_session_goes_on() -> Result<(), Error> {
    let dir = TempDir::new("cancel");
    let create = small_table(dir.path());
    // Enough rows that reading them all takes seconds: the query must
    // still be running when Ctrl-C arrives.
    {
        let file = std::fs::File::create(dir.path().join("big.csv")).expect("create big.csv");
        let mut out = std::io::BufWriter::new(file);
        for i in 0..3_000_000u64 {
            writeln!(out, "k{},{}", i % 7, i).expect("write big.csv");
        }
        out.flush().expect("write big.csv");
    }
    let mut s = start(dir.path(), &["--no-history"])?;
    s.send_line(&create)?;
    s.exp_string("table 'auction_bids' created")?;
    s.send_line(
        "CREATE TABLE big (k STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'big.csv', 'format' = 'csv');",
    )?;
    s.exp_string("table 'big' created")?;
    // A UNION ALL of the file with itself, filtered to nothing: long
    // work, no output but the header, printed as the query starts.
    let branch = "SELECT k, v FROM big WHERE v < 0";
    s.send_line(&format!(
        "{branch} UNION ALL {branch} UNION ALL {branch} UNION ALL {branch};"
    ))?;
    s.exp_string("| op | k")?;
    s.send_control('c')?;
    s.exp_string("cancelled: 0 rows so far")?;
    s.exp_string("tidemark> ")?;
    // The session is intact: its tables are still there.
    s.send_line("SELECT item FROM auction_bids WHERE price > 20;")?;
    s.exp_string("| +I | C")?;
    s.exp_string("1 row, 0 late rows")?;
    s.exp_string("tidemark> ")?;
    s.send_line("QUIT;")?;
    s.exp_eof()?;
    Ok(())
}

#[test]
fn with_drain_ctrl_c_fires_the_open_windows_of_an_endless_source() -> Result<(), Error> {
    let dir = TempDir::new("drain");
    let mut s = start(dir.path(), &["--no-history"])?;
    // One row per second of event time, 40 rows a second: a 5-second
    // window fires about every 1/8 s, and the input would last hours.
    s.send_line(
        "CREATE TABLE g (n BIGINT, ts AS TO_TIMESTAMP_LTZ(n * 1000, 3), \
         WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'rows-per-second' = '40', \
         'fields.n.kind' = 'sequence', 'fields.n.start' = '0', 'fields.n.end' = '1000000');",
    )?;
    s.exp_string("table 'g' created")?;
    s.send_line("SET 'tidemark.stop.drain' = 'true';")?;
    s.exp_string("tidemark> ")?;
    s.send_line(
        "SELECT window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), \
         INTERVAL '5' SECOND)) GROUP BY window_start, window_end;",
    )?;
    s.exp_string("| +I | 1970-01-01 00:00:05.000")?;
    s.send_control('c')?;
    s.exp_string("stopped, open windows fired")?;
    s.exp_string("tidemark> ")?;
    s.send_line("QUIT;")?;
    s.exp_eof()?;
    Ok(())
}

#[test]
fn ctrl_c_clears_the_line_and_twice_at_an_empty_prompt_leaves() -> Result<(), Error> {
    let dir = TempDir::new("ctrl-c");
    let mut s = start(dir.path(), &["--no-history"])?;
    // An unfinished statement is dropped by Ctrl-C, not run.
    s.send_line("SELECT oops")?;
    s.exp_string("-> ")?;
    s.send_control('c')?;
    s.exp_string("tidemark> ")?;
    s.send_line("SET 'a' = 'b';")?;
    s.exp_string("set 'a' = 'b'")?;
    s.exp_string("tidemark> ")?;
    s.send_control('c')?;
    s.exp_string("Ctrl-C again")?;
    s.send_control('c')?;
    s.exp_eof()?;
    Ok(())
}

#[test]
fn history_is_kept_in_the_file_given() -> Result<(), Error> {
    let dir = TempDir::new("history");
    let file = dir.path().join("nested").join("history");
    let file_arg = file.to_str().expect("utf-8 path").to_string();
    let mut s = start(dir.path(), &["repl", "--history", &file_arg])?;
    s.send_line("SHOW")?;
    s.exp_string("-> ")?;
    s.send_line("VIEWS;")?;
    s.send_line("exit")?;
    s.exp_eof()?;
    let saved = std::fs::read_to_string(&file).expect("the history file was written");
    assert!(saved.contains("SHOW"), "{saved}");
    assert!(saved.contains("VIEWS;"), "{saved}");
    assert!(saved.contains("exit"), "{saved}");

    // The next session finds it: Up recalls the last entry.
    let mut s = start(dir.path(), &["--history", &file_arg])?;
    s.send("\x1b[A")?;
    s.flush()?;
    s.exp_string("exit")?;
    s.send_line("")?;
    s.exp_eof()?;
    Ok(())
}
