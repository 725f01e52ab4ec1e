//! Timing and peak memory of one child process.
//!
//! Each measured program runs under a fresh `tidemark-bench measure`
//! process whose only child it is: after reaping it, that process reads
//! `getrusage(RUSAGE_CHILDREN)`, whose `ru_maxrss` is then exactly the
//! program's peak resident set (KiB on Linux), and prints it with the wall
//! time. (The benchmark driver itself has several children, so its own
//! `RUSAGE_CHILDREN` would only give the largest peak so far.)

use anyhow::{bail, Context, Result};
use nix::sys::resource::{getrusage, UsageWho};
use std::ffi::{OsStr, OsString};
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

/// Runs `program args` under `measure` and returns its measurement; fails,
/// with its stderr, if it did not succeed.
pub fn measure(program: &OsStr, args: &[&OsStr]) -> Result<Measurement> {
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
