//! `tidemark test --engine flink`: golden cases run on real Apache Flink
//! through `tidemark export`, and Flink's rows compared with the `.out`
//! file — the proof that a job gives the same rows on a Flink cluster.
//!
//! Flink runs in one long-lived PyFlink process (`flink/runner.py`, built
//! into the binary), a fresh table environment per case, because a JVM
//! start costs seconds. Rows are compared as Flink's order allows: the
//! rows of the windows that fire on time at one watermark (read from the
//! trace of a run at batch size 1) as a multiset, since Flink orders the
//! timers of one instant its own way; everything else exactly.

use super::{run_case_recorded, unified_diff};
use crate::export::{export, ExportOptions, SelectsTo, StatementKind};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// The runner, written next to a run's other temporary files.
const RUNNER: &str = include_str!("../../flink/runner.py");

/// Connectors that are not part of Flink's own distribution.
const JAR_CONNECTORS: [&str; 3] = ["kafka", "upsert-kafka", "jdbc"];

/// How long one case may run on Flink.
const CASE_TIMEOUT_SECS: u64 = 90;

/// The Python with PyFlink: `$TIDEMARK_FLINK_PYTHON`, else the one
/// `.ci/flink install` makes.
pub fn flink_python() -> PathBuf {
    if let Some(path) = std::env::var_os("TIDEMARK_FLINK_PYTHON") {
        return PathBuf::from(path);
    }
    let home = std::env::var_os("TIDEMARK_FLINK_HOME")
        .map(PathBuf::from)
        .or_else(|| dirs::cache_dir().map(|c| c.join("tidemark").join("flink-2.3")))
        .unwrap_or_else(|| PathBuf::from(".tidemark-flink"));
    home.join("bin").join("python")
}

/// How to get a Flink installation, for the message when there is none.
pub const HOW_TO_INSTALL: &str =
    "tidemark test --engine flink needs Apache Flink 2.3 as PyFlink and a Java 17 runtime:\n  \
    python3 -m venv ~/.cache/tidemark/flink-2.3\n  \
    ~/.cache/tidemark/flink-2.3/bin/pip install apache-flink==2.3.0\n\
(or run .ci/flink install from tidemark's source), and a `java` on PATH; \
TIDEMARK_FLINK_PYTHON names another Python that has PyFlink";

/// What became of one case.
#[derive(Debug)]
pub enum FlinkOutcome {
    /// Flink gave the `.out` file's rows (this many).
    Equal(usize),
    /// Flink's rows differ (the diff), or Flink failed on the export.
    Differs(String),
    /// In the known-differences list: the category and reason.
    Known(String),
    /// Not exported: what Flink cannot express.
    Refused(String),
    /// Nothing to compare: an error case, or output that is not rows.
    Skipped(String),
}

/// Cases whose Flink rows are known to differ: each
/// `flink-differences.txt` in a folder given or a folder above one lists
/// them by path relative to itself, `path | category | reason` per line.
fn known_differences(paths: &[PathBuf]) -> BTreeMap<PathBuf, String> {
    let mut known = BTreeMap::new();
    let mut folders: Vec<PathBuf> = paths
        .iter()
        .flat_map(|p| {
            normal(p)
                .ancestors()
                .map(Path::to_path_buf)
                .collect::<Vec<_>>()
        })
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    folders.dedup();
    for root in &folders {
        let list = root.join("flink-differences.txt");
        let Ok(text) = std::fs::read_to_string(&list) else {
            continue;
        };
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.splitn(3, '|').map(str::trim);
            if let (Some(case), Some(category), Some(reason)) =
                (parts.next(), parts.next(), parts.next())
            {
                known.insert(normal(&root.join(case)), format!("{category}: {reason}"));
            }
        }
    }
    known
}

fn normal(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A case ready for Flink: its exported statements and the rows it
/// expects, per query, in groups Flink may reorder.
struct Prepared {
    statements: Vec<(String, StatementKind)>,
    dir: PathBuf,
    expected: Vec<Vec<Vec<String>>>,
}

/// Exports a case and works out what Flink must give; `Err` when there is
/// nothing to run.
fn prepare(path: &Path) -> Result<Prepared, FlinkOutcome> {
    let sql = std::fs::read_to_string(path)
        .map_err(|e| FlinkOutcome::Skipped(format!("cannot read it: {e}")))?;
    let out = std::fs::read_to_string(path.with_extension("out"))
        .map_err(|_| FlinkOutcome::Skipped("no .out file".into()))?;
    if out.starts_with("-- error\n") || out.contains("\n-- error\n") {
        return Err(FlinkOutcome::Skipped("an error case".into()));
    }
    let dir = crate::session::script_dir(path);
    let options = ExportOptions {
        selects: SelectsTo::Client,
        allow_differences: false,
        base: None,
    };
    let name = path.display().to_string();
    let exported = export(&sql, &name, &dir, &options).map_err(|e| {
        FlinkOutcome::Skipped(format!(
            "tidemark refuses it: {}",
            first_line(&e.to_string())
        ))
    })?;
    if let Some(refusal) = exported
        .findings
        .iter()
        .find(|f| f.kind == crate::export::FindingKind::Refused)
    {
        return Err(FlinkOutcome::Refused(refusal.message.clone()));
    }
    // The runner has Flink's built-in connectors only.
    let needs_jar = tidemark_sql::parse_script(&sql)
        .unwrap_or_default()
        .iter()
        .find_map(|s| match s {
            tidemark_sql::Statement::CreateTable(c) => c
                .options
                .iter()
                .find(|(k, v, _)| k == "connector" && JAR_CONNECTORS.contains(&v.as_str()))
                .map(|(_, v, _)| v.clone()),
            _ => None,
        });
    if let Some(connector) = needs_jar {
        return Err(FlinkOutcome::Skipped(format!(
            "its {connector} table needs Flink's {connector} connector jar, which the test runner does not load; its export is pinned by golden files"
        )));
    }
    let queries = out_queries(&out);
    if queries.iter().all(|q| q.is_empty()) && out.contains("+---") {
        return Err(FlinkOutcome::Skipped(
            "its rows are shown as a table".into(),
        ));
    }
    // The groups of tidemark's own run at batch size 1; the `.out` file
    // decides the rows.
    let groups = run_case_recorded(path);
    let flat: Vec<&String> = groups.iter().flatten().collect();
    let expected_flat: Vec<&String> = queries.iter().flatten().collect();
    let mut group_of = Vec::new();
    if flat == expected_flat {
        for (g, group) in groups.iter().enumerate() {
            group_of.extend(std::iter::repeat_n(g, group.len()));
        }
    } else {
        // The case does not pass in tidemark: compare row by row.
        group_of.extend(0..expected_flat.len());
    }
    let mut expected = Vec::new();
    let mut at = 0;
    for query in &queries {
        let mut grouped: Vec<Vec<String>> = Vec::new();
        let mut last = None;
        for row in query {
            let g = group_of[at];
            at += 1;
            if last != Some(g) {
                grouped.push(Vec::new());
                last = Some(g);
            }
            if let Some(group) = grouped.last_mut() {
                group.push(row.clone());
            }
        }
        expected.push(grouped);
    }
    Ok(Prepared {
        statements: exported
            .statements
            .into_iter()
            .map(|s| (s.sql, s.kind))
            .collect(),
        dir,
        expected,
    })
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

/// Whether a line of output is a changelog row.
pub(super) fn is_row(line: &str) -> bool {
    ["+I[", "-U[", "+U[", "-D["]
        .iter()
        .any(|p| line.starts_with(p))
}

/// The rows of each query of a `.out` file: a query's rows end at its
/// summary.
fn out_queries(out: &str) -> Vec<Vec<String>> {
    let mut queries = vec![Vec::new()];
    for line in out.lines() {
        if line == "-- summary" {
            queries.push(Vec::new());
        } else if is_row(line) {
            if let Some(q) = queries.last_mut() {
                q.push(line.to_string());
            }
        }
    }
    if queries.last().is_some_and(Vec::is_empty) {
        queries.pop();
    }
    queries
}

/// The long-lived Flink process.
struct Runner {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<String>,
    /// The runner file, removed with the process.
    script: PathBuf,
}

impl Runner {
    fn start(python: &Path) -> Result<Runner, String> {
        let script =
            std::env::temp_dir().join(format!("tidemark-flink-runner-{}.py", std::process::id()));
        std::fs::write(&script, RUNNER)
            .map_err(|e| format!("cannot write {}: {e}", script.display()))?;
        let mut child = Command::new(python)
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
        let stdin = child.stdin.take().ok_or("the runner has no stdin")?;
        let stdout = child.stdout.take().ok_or("the runner has no stdout")?;
        let (send, replies) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Runner {
            child,
            stdin,
            replies,
            script,
        })
    }

    /// Runs one case; the reply's JSON, or why there is none.
    fn run(&mut self, id: &str, case: &Prepared) -> Result<serde_json::Value, String> {
        let job = serde_json::json!({
            "id": id,
            "dir": case.dir.display().to_string(),
            "statements": case.statements.iter().map(|(s, _)| s).collect::<Vec<_>>(),
            "timeout": CASE_TIMEOUT_SECS,
        });
        writeln!(self.stdin, "{job}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("the Flink runner stopped: {e}"))?;
        // The runner times a job out itself; this is for a JVM that hangs.
        let wait = Duration::from_secs(CASE_TIMEOUT_SECS + 60);
        match self.replies.recv_timeout(wait) {
            Ok(line) => serde_json::from_str(&line).map_err(|e| {
                format!("the Flink runner said something else than a result ({e}): {line}")
            }),
            Err(RecvTimeoutError::Timeout) => {
                Err(format!("Flink gave no answer in {} s", wait.as_secs()))
            }
            Err(RecvTimeoutError::Disconnected) => Err("the Flink runner stopped".into()),
        }
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.script);
    }
}

/// Checks the Flink installation: its versions, or how to get one.
pub fn check_installation(python: &Path) -> Result<String, String> {
    let script =
        std::env::temp_dir().join(format!("tidemark-flink-check-{}.py", std::process::id()));
    std::fs::write(&script, RUNNER).map_err(|e| e.to_string())?;
    let output = Command::new(python).arg(&script).arg("--version").output();
    let _ = std::fs::remove_file(&script);
    match output {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        Ok(o) => Err(format!(
            "{} has no working Flink: {}\n{HOW_TO_INSTALL}",
            python.display(),
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!(
            "cannot run {}: {e}\n{HOW_TO_INSTALL}",
            python.display()
        )),
    }
}

/// Compares Flink's rows of one query with the expected groups.
fn compare(expected: &[Vec<String>], actual: &[String]) -> Result<(), String> {
    let mut at = 0;
    let mut arranged: Vec<String> = Vec::new();
    let mut equal = true;
    for group in expected {
        let end = (at + group.len()).min(actual.len());
        let mut theirs: Vec<&String> = actual[at..end].iter().collect();
        let mut ours: Vec<&String> = group.iter().collect();
        theirs.sort();
        ours.sort();
        if theirs == ours {
            arranged.extend(group.iter().cloned());
        } else {
            equal = false;
            arranged.extend(actual[at..end].iter().cloned());
        }
        at = end;
    }
    if at < actual.len() {
        equal = false;
        arranged.extend(actual[at..].iter().cloned());
    }
    if equal {
        return Ok(());
    }
    let want: String = expected
        .iter()
        .flatten()
        .map(|r| format!("{r}\n"))
        .collect();
    let got: String = arranged.iter().map(|r| format!("{r}\n")).collect();
    Err(unified_diff(&want, &got, "expected (tidemark)", "Flink"))
}

/// Runs `cases` on Flink and writes a line per case to `report`; returns
/// the outcomes.
pub fn run_all(
    cases: &[PathBuf],
    roots: &[PathBuf],
    python: &Path,
    report: &mut dyn Write,
) -> std::io::Result<Vec<(PathBuf, FlinkOutcome)>> {
    use rayon::prelude::*;
    let known = known_differences(roots);
    let prepared: Vec<(PathBuf, Result<Prepared, FlinkOutcome>)> =
        cases.par_iter().map(|p| (p.clone(), prepare(p))).collect();
    let mut runner: Option<Runner> = None;
    let mut outcomes = Vec::new();
    for (path, case) in prepared {
        let outcome = match case {
            Err(outcome) => outcome,
            Ok(case) => {
                if runner.is_none() {
                    match Runner::start(python) {
                        Ok(r) => runner = Some(r),
                        Err(e) => {
                            writeln!(report, "error   {}: {e}", path.display())?;
                            return Ok(outcomes);
                        }
                    }
                }
                let id = path.display().to_string();
                let reply = runner.as_mut().map(|r| r.run(&id, &case));
                let outcome = match reply {
                    Some(Ok(reply)) => judge(&case, &reply),
                    Some(Err(e)) => {
                        // Start a fresh JVM for the next case.
                        runner = None;
                        FlinkOutcome::Differs(e)
                    }
                    None => FlinkOutcome::Differs("no Flink runner".into()),
                };
                match (outcome, known.get(&normal(&path))) {
                    (FlinkOutcome::Differs(_), Some(why)) => FlinkOutcome::Known(why.clone()),
                    (outcome, _) => outcome,
                }
            }
        };
        match &outcome {
            FlinkOutcome::Equal(rows) => {
                writeln!(report, "equal   {} ({rows} rows)", path.display())?
            }
            FlinkOutcome::Known(why) => writeln!(report, "known   {} ({why})", path.display())?,
            FlinkOutcome::Refused(why) => writeln!(report, "refused {} ({why})", path.display())?,
            FlinkOutcome::Skipped(why) => writeln!(report, "skipped {} ({why})", path.display())?,
            FlinkOutcome::Differs(diff) => writeln!(report, "DIFFERS {}\n{diff}", path.display())?,
        }
        report.flush()?;
        outcomes.push((path, outcome));
    }
    Ok(outcomes)
}

/// Flink's reply against what the case expects.
fn judge(case: &Prepared, reply: &serde_json::Value) -> FlinkOutcome {
    if let Some(error) = reply.get("error").filter(|e| !e.is_null()) {
        let statement = error.get("statement").and_then(|s| s.as_u64()).unwrap_or(0) as usize;
        let mut message = error
            .get("message")
            .and_then(|m| m.as_str())
            .unwrap_or("")
            .to_string();
        if let Some(cause) = error.get("root_cause").and_then(|c| c.as_str()) {
            message.push_str(&format!(" (caused by {cause})"));
        }
        let text = case
            .statements
            .get(statement)
            .map(|(s, _)| first_line(s))
            .unwrap_or_default();
        return FlinkOutcome::Differs(format!("Flink failed on `{text}`: {message}"));
    }
    let results = reply
        .get("results")
        .and_then(|r| r.as_array())
        .cloned()
        .unwrap_or_default();
    // Flink's rows per statement, in the order tidemark's summaries come.
    let mut actual = Vec::new();
    for (i, (_, kind)) in case.statements.iter().enumerate() {
        let rows = results
            .iter()
            .find(|r| r.get("statement").and_then(|s| s.as_u64()) == Some(i as u64))
            .and_then(|r| r.get("rows"))
            .and_then(|r| r.as_array())
            .map(|rows| {
                rows.iter()
                    .filter_map(|r| r.as_str().map(str::to_string))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        match kind {
            StatementKind::Query => actual.push(rows),
            StatementKind::Insert => actual.push(Vec::new()),
            StatementKind::Other => {}
        }
    }
    let mut diffs = Vec::new();
    for (q, expected) in case.expected.iter().enumerate() {
        let rows = actual.get(q).map(Vec::as_slice).unwrap_or_default();
        if let Err(diff) = compare(expected, rows) {
            diffs.push(format!("query {}:\n{diff}", q + 1));
        }
    }
    for (q, rows) in actual.iter().enumerate().skip(case.expected.len()) {
        if !rows.is_empty() {
            diffs.push(format!(
                "query {}: Flink gave {} rows where tidemark's .out has none",
                q + 1,
                rows.len()
            ));
        }
    }
    if diffs.is_empty() {
        FlinkOutcome::Equal(case.expected.iter().flatten().flatten().count())
    } else {
        FlinkOutcome::Differs(diffs.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn rows_of_one_step_compare_as_a_multiset() {
        let expected = vec![rows("+I[a] +I[b]"), rows("+I[c]")];
        assert!(compare(&expected, &rows("+I[b] +I[a] +I[c]")).is_ok());
        assert!(compare(&expected, &rows("+I[a] +I[c] +I[b]")).is_err());
        assert!(compare(&expected, &rows("+I[a] +I[b]")).is_err());
        assert!(compare(&expected, &rows("+I[a] +I[b] +I[c] +I[d]")).is_err());
    }

    #[test]
    fn out_files_split_into_queries_at_their_summaries() {
        let out = "+I[a]\n-- summary\nrows emitted: 1\n+I[b]\n-U[b]\n-- summary\nrows emitted: 2\n";
        assert_eq!(out_queries(out), vec![rows("+I[a]"), rows("+I[b] -U[b]")]);
    }
}
