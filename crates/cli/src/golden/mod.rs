//! Golden-file SQL tests: every `NAME.sql` under a folder is run and its
//! output compared with `NAME.out` beside it.
//!
//! The output of a case is what `tidemark run` prints on stdout, then the
//! run summary without timings, then — if the script fails — `-- error` and
//! the error as the user sees it. Every case also runs at batch sizes 1 and
//! 7, and at parallelism 2 with its files cut into tiny pieces, and must
//! give the same bytes: results may never depend on batching or threads.
//! [`flink`] runs the same cases on Apache Flink.

pub mod flink;

use crate::session::{script_dir, Output, Session};
use rayon::prelude::*;
use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The settings every case is run again with, by name: each must give
/// the output of the defaults.
pub const VARIANTS: [(&str, &[(&str, &str)]); 3] = [
    ("batch size 1", &[("tidemark.batch-size", "1")]),
    ("batch size 7", &[("tidemark.batch-size", "7")]),
    (
        "parallelism 2",
        &[
            ("parallelism.default", "2"),
            ("tidemark.parallel.piece-bytes", "16"),
            ("tidemark.batch-size", "3"),
            // Split even on a machine with few cores, so the merge of the
            // split is checked by every case.
            ("tidemark.parallel.split-by-key", "true"),
        ],
    ),
];

#[derive(Debug)]
pub enum Outcome {
    Passed,
    Blessed,
    Failed(String),
}

/// All `.sql` files under `paths` (files are taken as they are), sorted.
pub fn discover(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut found)?;
        } else {
            found.push(p.clone());
        }
    }
    found.sort();
    Ok(found)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, found)?;
        } else if path.extension().is_some_and(|e| e == "sql") {
            found.push(path);
        }
    }
    Ok(())
}

#[derive(Clone, Default)]
struct SharedBuf(Rc<RefCell<Vec<u8>>>);

impl Write for SharedBuf {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs the script `sql` of the case at `path` in a fresh session with
/// `settings`, its rows and summaries written to the two writers.
fn run_script(
    path: &Path,
    sql: &str,
    settings: &[(&str, &str)],
    rows: &mut dyn Write,
    summary: &mut dyn Write,
) -> tidemark_common::Result<()> {
    let mut session = Session::new(script_dir(path));
    for (key, value) in settings {
        session.options.set(*key, *value);
    }
    session
        .execute_script(
            sql,
            &mut Output {
                rows,
                summary,
                timing: false,
            },
        )
        .map(drop)
}

/// The output of one case with `settings` applied before it runs.
pub fn run_case(path: &Path, settings: &[(&str, &str)]) -> String {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let sql = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => return format!("-- error\ncannot read {name}: {e}\n"),
    };
    let buf = SharedBuf::default();
    let result = run_script(path, &sql, settings, &mut buf.clone(), &mut buf.clone());
    let mut text = String::from_utf8_lossy(&buf.0.borrow()).into_owned();
    if let Err(e) = result {
        text.push_str("-- error\n");
        text.push_str(&e.render(&name, &sql));
    }
    text
}

/// The rows of a traced run, grouped as Flink may reorder them.
#[derive(Default)]
struct Groups {
    /// Each group with the watermark of the on-time firing it came from.
    groups: Vec<(Option<String>, Vec<String>)>,
    /// The watermark of the last FIRE traced, until another event.
    firing: Option<String>,
}

/// Takes the rows of a run: each chunk the engine emits (the session
/// writes one with one `write_all`, which this writer takes whole) is a
/// group, and chunks of on-time firings at the same watermark are one.
#[derive(Clone, Default)]
struct GroupRecorder(Rc<RefCell<Groups>>);

impl Write for GroupRecorder {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let rows: Vec<String> = String::from_utf8_lossy(buf)
            .lines()
            .filter(|l| flink::is_row(l))
            .map(str::to_string)
            .collect();
        let mut state = self.0.borrow_mut();
        let firing = state.firing.clone();
        match state.groups.last_mut() {
            _ if rows.is_empty() => {}
            Some((tag, group)) if firing.is_some() && *tag == firing => group.extend(rows),
            _ => state.groups.push((firing, rows)),
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Reads the trace of a run for [`GroupRecorder`]: a FIRE line starts
/// rows of an on-time firing at its watermark; a re-fire, an early fire or
/// a late row ends them.
#[derive(Clone, Default)]
struct TraceReader(Rc<RefCell<Groups>>);

impl Write for TraceReader {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let mut state = self.0.borrow_mut();
        for line in text.lines() {
            if line.starts_with("FIRE ") {
                state.firing = line
                    .rsplit_once("watermark=")
                    .map(|(_, w)| w.trim().to_string());
            } else if ["REFIRE", "EARLY", "LATE"]
                .iter()
                .any(|e| line.starts_with(e))
            {
                state.firing = None;
            }
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The rows of a case in the groups tidemark emits them in at batch size
/// 1, traced: those of one chunk, or of the on-time firings at one
/// watermark, together.
pub fn run_case_recorded(path: &Path) -> Vec<Vec<String>> {
    let Ok(sql) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let groups = Rc::new(RefCell::new(Groups::default()));
    let settings = [("tidemark.batch-size", "1"), ("tidemark.trace", "true")];
    let _ = run_script(
        path,
        &sql,
        &settings,
        &mut GroupRecorder(Rc::clone(&groups)),
        &mut TraceReader(Rc::clone(&groups)),
    );
    let groups = groups
        .borrow_mut()
        .groups
        .drain(..)
        .map(|(_, g)| g)
        .collect();
    groups
}

/// `text` without EXPLAIN's `| read:` and `| parallel:` lines.
fn without_parallel_lines(text: &str) -> String {
    text.lines()
        .filter(|l| {
            let l = l.trim_start();
            !l.starts_with("| read: ") && !l.starts_with("| parallel: ")
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Runs one case and compares (or, with `bless`, rewrites) its `.out`.
pub fn check_case(path: &Path, bless: bool) -> Outcome {
    let actual = run_case(path, &[]);
    for (variant, settings) in VARIANTS {
        let other = run_case(path, settings);
        // EXPLAIN says how a scan is read and whether an aggregation is
        // split at a parallelism: those lines may differ, nothing else.
        let (same, other) = if settings.iter().any(|(k, _)| *k == "parallelism.default") {
            (
                without_parallel_lines(&actual),
                without_parallel_lines(&other),
            )
        } else {
            (actual.clone(), other)
        };
        if other != same {
            return Outcome::Failed(format!(
                "output at {variant} differs from the defaults:\n{}",
                unified_diff(&same, &other, "defaults", variant)
            ));
        }
    }
    let expected_path = path.with_extension("out");
    if bless {
        return match std::fs::write(&expected_path, &actual) {
            Ok(()) => Outcome::Blessed,
            Err(e) => Outcome::Failed(format!("cannot write {}: {e}", expected_path.display())),
        };
    }
    match std::fs::read_to_string(&expected_path) {
        Ok(expected) if expected == actual => Outcome::Passed,
        Ok(expected) => Outcome::Failed(unified_diff(
            &expected,
            &actual,
            &expected_path.display().to_string(),
            "actual",
        )),
        Err(_) => Outcome::Failed(format!(
            "no expected output {}; write it with `tidemark test --bless {}` and read it before committing\n--- actual:\n{actual}",
            expected_path.display(),
            path.display()
        )),
    }
}

pub fn unified_diff(expected: &str, actual: &str, from: &str, to: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header(from, to)
        .to_string()
}

/// Runs cases in parallel; returns (passed, failed) and writes a report
/// line per case, and a diff per failure, to `report`.
pub fn run_all(
    cases: &[PathBuf],
    bless: bool,
    report: &mut dyn Write,
) -> std::io::Result<(usize, usize)> {
    let outcomes: Vec<(PathBuf, Outcome)> = cases
        .par_iter()
        .map(|p| (p.clone(), check_case(p, bless)))
        .collect();
    let (mut passed, mut failed) = (0, 0);
    for (path, outcome) in &outcomes {
        match outcome {
            Outcome::Passed => {
                passed += 1;
                writeln!(report, "ok      {}", path.display())?;
            }
            Outcome::Blessed => {
                passed += 1;
                writeln!(report, "blessed {}", path.display())?;
            }
            Outcome::Failed(why) => {
                failed += 1;
                writeln!(report, "FAILED  {}\n{why}", path.display())?;
            }
        }
    }
    Ok((passed, failed))
}
