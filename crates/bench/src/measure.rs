//! Timing and peak memory of one child process.
//!
//! Each measured program runs under a fresh `tidemark-bench measure`
//! process whose only child it is: after reaping it, that process reads
//! `getrusage(RUSAGE_CHILDREN)`, whose `ru_maxrss` is then exactly the
//! program's peak resident set (KiB on Linux), and prints it with the wall
//! time. (The benchmark driver itself has several children, so its own
//! `RUSAGE_CHILDREN` would only give the largest peak so far.) Before
//! each run its input files are read through once, outside the timing, so
//! that it finds them in the page cache ([`measure`]). A filesystem
//! source that names a directory is not read ahead: its files are left to
//! the run.

use anyhow::{bail, Context, Result};
use nix::sys::resource::{getrusage, UsageWho};
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

/// What one run of a program cost, and what it said on stderr.
pub struct Measurement {
    pub wall_s: f64,
    pub max_rss_kib: u64,
    pub stderr: String,
}

/// The hidden `measure` subcommand: runs `command` with stdout on
/// /dev/null and stderr inherited, then prints `wall_s=… max_rss_kib=…`
/// on stdout and exits with the program's status.
pub fn run_measured(command: &[OsString]) -> Result<ExitCode> {
    let Some((program, args)) = command.split_first() else {
        bail!("measure: no command given");
    };
    let started = Instant::now();
    let status = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .with_context(|| format!("cannot run {}", program.to_string_lossy()))?;
    let wall_s = started.elapsed().as_secs_f64();
    let usage =
        getrusage(UsageWho::RUSAGE_CHILDREN).context("getrusage(RUSAGE_CHILDREN) failed")?;
    println!("wall_s={wall_s:.6} max_rss_kib={}", usage.max_rss());
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => {
            eprintln!("measure: {} ended by {status}", program.to_string_lossy());
            ExitCode::FAILURE
        }
    })
}

/// Reads through the files a run is about to read: each argument that is
/// a file, and for a `.sql` script the files its `'path'` options name
/// (relative to the script's directory). Between two runs of the same
/// input, other runs read gigabytes, and the machine's memory reclaim
/// may have dropped the file from the page cache meanwhile: the next run
/// then waited on the disk, by a third or more of its time, and the
/// figures measured the disk, not tidemark. Unreadable files are left to
/// the run, which reports them.
fn warm_inputs(args: &[&OsStr]) {
    for arg in args {
        let path = Path::new(arg);
        if !path.is_file() {
            continue;
        }
        if path.extension().is_some_and(|e| e == "sql") {
            let Ok(script) = std::fs::read_to_string(path) else {
                continue;
            };
            let dir = path.parent().unwrap_or(Path::new("."));
            for input in script_inputs(&script) {
                read_through(&dir.join(input));
            }
        } else {
            read_through(path);
        }
    }
}

/// The values of the `'path'` options in `script`.
fn script_inputs(script: &str) -> Vec<PathBuf> {
    script
        .split("'path'")
        .skip(1)
        .filter_map(|after| {
            let value = after.trim_start().strip_prefix('=')?.trim_start();
            let value = value.strip_prefix('\'')?;
            Some(PathBuf::from(&value[..value.find('\'')?]))
        })
        .collect()
}

/// Reads `path` to its end, discarding what it reads.
fn read_through(path: &Path) {
    let Ok(mut file) = std::fs::File::open(path) else {
        return;
    };
    let mut buffer = vec![0; 1 << 20];
    while matches!(file.read(&mut buffer), Ok(n) if n > 0) {}
}

/// Runs `program args` under `measure` and returns its measurement; fails,
/// with its stderr, if it did not succeed.
pub fn measure(program: &OsStr, args: &[&OsStr]) -> Result<Measurement> {
    warm_inputs(args);
    let me = std::env::current_exe().context("cannot locate the running executable")?;
    let output = Command::new(&me)
        .arg("measure")
        .arg("--")
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {} measure", me.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "{} failed ({}):\n{}",
            program.to_string_lossy(),
            output.status,
            stderr.trim_end()
        );
    }
    let field = |name: &str| -> Result<&str> {
        stdout
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
            .with_context(|| format!("measure printed no {name}: '{}'", stdout.trim()))
    };
    Ok(Measurement {
        wall_s: field("wall_s")?.parse().context("bad wall_s")?,
        max_rss_kib: field("max_rss_kib")?.parse().context("bad max_rss_kib")?,
        stderr,
    })
}

/// The rest of the last line of a program's summary on stderr that
/// starts with `label` (`rows emitted:`, `elapsed:`).
pub fn summary_value<'a>(stderr: &'a str, label: &str) -> Option<&'a str> {
    stderr
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix(label))
        .map(str::trim)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_names_its_inputs_by_their_path_options() {
        let script =
            "CREATE TABLE a (x INT) WITH ('connector' = 'filesystem', 'path' = 'bids.csv');\n\
                      CREATE TABLE b (x INT) WITH ('path'='/data/b.json', 'format' = 'json');\n\
                      CREATE TABLE c (x INT) WITH ('connector' = 'blackhole');\n\
                      CREATE TABLE d (x INT) WITH ('path' = 'unclosed";
        assert_eq!(
            script_inputs(script),
            [PathBuf::from("bids.csv"), PathBuf::from("/data/b.json")]
        );
    }
}
