//! The `nexmark` benchmark: Nexmark q5, q7, q8 and q11, each into a
//! blackhole, over events from the nexmark connector and over the same
//! events read from files, JSON lines and CSV, that tidemark wrote once
//! from the same generator. The files take the generator out of the loop,
//! so what is timed is the engine reading and querying. Events of every
//! kind count, as in Nexmark's own figures, whichever tables a query
//! reads.

use crate::driver::{own_paths, run_series, tidemark_binary, NexmarkArgs, TumbleArgs};
use crate::numbers::{group, per_second};
use crate::queries::{self, NEXMARK_STREAMS};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Where the events come from.
#[derive(Clone, Copy)]
enum Source {
    Generator,
    Json,
    Csv,
}

const SOURCES: [Source; 3] = [Source::Generator, Source::Json, Source::Csv];

/// The queries, the generator alone first, each with its name per source.
const QUERIES: [(&str, [&str; 3]); 5] = [
    (
        queries::NEXMARK_GENERATOR,
        [
            "read bids only, generator",
            "read bids only, JSON files",
            "read bids only, CSV files",
        ],
    ),
    (
        queries::NEXMARK_Q5,
        [
            "q5 hot items, generator",
            "q5 hot items, JSON files",
            "q5 hot items, CSV files",
        ],
    ),
    (
        queries::NEXMARK_Q7,
        [
            "q7 highest bid, generator",
            "q7 highest bid, JSON files",
            "q7 highest bid, CSV files",
        ],
    ),
    (
        queries::NEXMARK_Q8,
        [
            "q8 new users, generator",
            "q8 new users, JSON files",
            "q8 new users, CSV files",
        ],
    ),
    (
        queries::NEXMARK_Q11,
        [
            "q11 sessions, generator",
            "q11 sessions, JSON files",
            "q11 sessions, CSV files",
        ],
    ),
];

pub fn nexmark(args: &NexmarkArgs) -> Result<ExitCode> {
    let (_, target_dir) = own_paths()?;
    let tidemark = tidemark_binary(args.tidemark.as_deref(), &target_dir)?;
    let dir = target_dir.join("bench-data").join("nexmark");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let files = prepare_files(
        &tidemark,
        &dir.join(format!("events-{}", args.events)),
        args.events,
    )?;
    let mut scripts = Vec::new();
    for (i, (query, names)) in QUERIES.iter().enumerate() {
        for (source, name) in SOURCES.iter().zip(names) {
            let tables = match source {
                Source::Generator => queries::nexmark_tables(args.events),
                Source::Json => file_tables(&files, "json"),
                Source::Csv => file_tables(&files, "csv"),
            };
            let script = dir.join(format!("nexmark-{i}-{}.sql", source.slug()));
            std::fs::write(&script, format!("{tables}{query}\n"))
                .with_context(|| format!("cannot write {}", script.display()))?;
            scripts.push((*name, script, args.events));
        }
    }
    let as_tumble = TumbleArgs {
        rows: args.events,
        keys: 1,
        runs: args.runs,
        tidemark: Some(tidemark.clone()),
    };
    let series = run_series(&tidemark, &scripts, &as_tumble)?;
    // The first query reads the bids and keeps none: each source's cost
    // of reading alone, which the others are timed against.
    let reading = &series[..SOURCES.len()];
    for (query, runs) in series.chunks(SOURCES.len()).enumerate() {
        for (s, alone) in runs.iter().zip(reading) {
            let events = per_second(args.events, s.median_wall_s());
            let mut line = format!("{}: {events} events/s", s.name());
            if query > 0 {
                line.push_str(&format!(
                    ", {:.2}x the time of reading alone",
                    s.median_wall_s() / alone.median_wall_s()
                ));
            }
            println!("{line}");
            if s.rows_emitted() != runs[0].rows_emitted() {
                println!(
                    "warning: {} emitted {} rows, from the generator {}",
                    s.name(),
                    s.rows_emitted().map_or("no".into(), group),
                    runs[0].rows_emitted().map_or("no".into(), group)
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

impl Source {
    fn slug(self) -> &'static str {
        match self {
            Source::Generator => "generator",
            Source::Json => "json",
            Source::Csv => "csv",
        }
    }
}

/// The Nexmark tables over the files in `files` of `format`.
fn file_tables(files: &Path, format: &str) -> String {
    queries::nexmark_tables_from(&|stream| {
        let path = files.join(format!("{stream}.{format}"));
        format!(
            "'connector' = 'filesystem', 'path' = '{}', 'format' = '{format}'",
            queries::sql_string(&path.display().to_string())
        )
    })
}

/// Writes each stream of `events` generated events to `dir` as JSON lines
/// and as CSV, once: a later run finds them there.
fn prepare_files(tidemark: &Path, dir: &Path, events: u64) -> Result<PathBuf> {
    let done = dir.join("complete");
    if done.is_file() {
        println!("events: {} (reused)", dir.display());
        return Ok(dir.to_path_buf());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut script = queries::nexmark_tables(events);
    for (stream, columns) in NEXMARK_STREAMS {
        for format in ["json", "csv"] {
            let path = dir.join(format!("{stream}.{format}"));
            script.push_str(&format!(
                "CREATE TABLE {stream}_{format} ({columns}) WITH ('connector' = 'filesystem', \
                 'path' = '{}', 'format' = '{format}');\n\
                 INSERT INTO {stream}_{format} SELECT * FROM {stream};\n",
                queries::sql_string(&path.display().to_string())
            ));
        }
    }
    let script_path = dir.join("write-events.sql");
    std::fs::write(&script_path, script)
        .with_context(|| format!("cannot write {}", script_path.display()))?;
    println!(
        "writing {} events as JSON lines and CSV under {}",
        group(events),
        dir.display()
    );
    let status = Command::new(tidemark)
        .arg("run")
        .arg(&script_path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .context("cannot run tidemark")?;
    if !status.success() {
        bail!(
            "writing the events failed ({status}): tidemark run {}",
            script_path.display()
        );
    }
    std::fs::write(&done, "").with_context(|| format!("cannot write {}", done.display()))?;
    Ok(dir.to_path_buf())
}
