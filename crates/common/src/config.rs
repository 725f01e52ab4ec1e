//! Session options set with `SET 'key' = 'value'`.
//!
//! Options are stored as strings, as Flink stores them; typed readers
//! validate them when a query is planned, so a bad value is an error that
//! names the key.

use crate::error::{Error, Result};
use crate::span::Span;
use std::collections::BTreeMap;

/// Rows per batch read from a source, unless `tidemark.batch-size` says
/// otherwise.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

/// An option that tidemark reads: its key, its default as `SET` lists it
/// (`None`: unset), and a line of help. One list, so that `SET`, `HELP`
/// and completion cannot drift from the options that exist.
#[derive(Clone, Copy, Debug)]
pub struct KnownOption {
    pub key: &'static str,
    pub default: Option<&'static str>,
    pub help: &'static str,
}

/// `sql-client.execution.result-mode`, Flink's key for how query results
/// are shown.
pub const RESULT_MODE: &str = "sql-client.execution.result-mode";

/// `execution.checkpointing.dir`: where checkpoints are kept; setting it
/// turns checkpointing on.
pub const CHECKPOINT_DIR: &str = "execution.checkpointing.dir";

/// `execution.checkpointing.interval`.
pub const CHECKPOINT_INTERVAL: &str = "execution.checkpointing.interval";

/// `table.exec.source.idle-timeout`: when a quiet split stops holding the
/// watermark (spec §8).
pub const IDLE_TIMEOUT: &str = "table.exec.source.idle-timeout";

/// `tidemark.state.ttl`: state that no window cleanup frees expires this
/// long, in event time, after its key's last emitted row (spec §10).
pub const STATE_TTL: &str = "tidemark.state.ttl";

/// Every option read somewhere, sorted by key. A key ending in `.` is a
/// prefix: `table.exec.late-records.sink.<source table>`.
pub const KNOWN_OPTIONS: &[KnownOption] = &[
    KnownOption {
        key: CHECKPOINT_DIR,
        default: None,
        help: "folder where INSERT INTO jobs keep checkpoints; `tidemark run --resume` goes on from the last",
    },
    KnownOption {
        key: CHECKPOINT_INTERVAL,
        default: Some("100000 rows"),
        help: "how often a checkpoint is taken: 'N rows' read, or a duration of event time such as '1 h event time'",
    },
    KnownOption {
        key: "parallelism.default",
        default: Some("1"),
        help: "threads a query uses; results are the same at every parallelism",
    },
    KnownOption {
        key: RESULT_MODE,
        default: None,
        help: "'tableau' (a table with an op column) or 'changelog' (+I[...] lines)",
    },
    KnownOption {
        key: "table.exec.bad-records.sink",
        default: None,
        help: "declared table that receives malformed rows and rows without rowtime",
    },
    KnownOption {
        key: "table.exec.emit.allow-lateness",
        default: Some("0 ms"),
        help: "how long a fired window still takes late rows, re-firing with updates",
    },
    KnownOption {
        key: "table.exec.emit.late-fire.delay",
        default: Some("0 s"),
        help: "how long late updates wait; only '0 s' (at once) is supported",
    },
    KnownOption {
        key: "table.exec.emit.late-fire.enabled",
        default: Some("false"),
        help: "Flink's switch for late updates; a legacy group window with lateness needs 'true' (a window TVF emits them regardless)",
    },
    KnownOption {
        key: "table.exec.late-records.sink",
        default: None,
        help: "declared table that receives late rows",
    },
    KnownOption {
        key: "table.exec.late-records.sink.",
        default: None,
        help: "the late rows of one source table (suffix: its name)",
    },
    KnownOption {
        key: IDLE_TIMEOUT,
        default: Some("0 ms"),
        help: "a split of an unbounded source with no row for this long on the engine's clock is idle: left out of the watermark until its next row; 0: never",
    },
    KnownOption {
        key: "table.local-time-zone",
        default: Some("UTC"),
        help: "the zone TIMESTAMP_LTZ values are shown and windowed in",
    },
    KnownOption {
        key: "table.optimizer.agg-phase-strategy",
        default: Some("AUTO"),
        help: "'ONE_PHASE' adds DOUBLE sums one row at a time, as Flink's one-phase aggregation",
    },
    KnownOption {
        key: "tidemark.batch-size",
        default: Some("8192"),
        help: "rows per batch read from a source; never changes results",
    },
    KnownOption {
        key: "tidemark.clock",
        default: Some("system"),
        help: "'fake': row n is read at tidemark.clock.start + n * tidemark.clock.step",
    },
    KnownOption {
        key: "tidemark.clock.start",
        default: Some("1970-01-01 00:00:00"),
        help: "the fake clock's first instant (UTC)",
    },
    KnownOption {
        key: "tidemark.clock.step",
        default: Some("1 s"),
        help: "how far the fake clock moves per row",
    },
    KnownOption {
        key: "tidemark.display.late-records",
        default: Some("false"),
        help: "show late rows inline as LATE[...] lines",
    },
    KnownOption {
        key: "tidemark.emit.early-fire",
        default: None,
        help: "open windows emit partial results every this much watermark progress",
    },
    KnownOption {
        key: "tidemark.parallel.piece-bytes",
        default: Some("1048576"),
        help: "a file read on several threads is cut into pieces of about this size; never changes results",
    },
    KnownOption {
        key: "tidemark.parallel.split-by-key",
        default: Some("auto"),
        help: "at parallelism > 1, split keyed window aggregations by key over the threads: true, false, or auto (when the machine has a core for every thread); never changes results",
    },
    KnownOption {
        key: "tidemark.report",
        default: None,
        help: "write a run report with pictures of time (rows against the watermark, windows, lateness, state) to this HTML file",
    },
    KnownOption {
        key: "tidemark.state.max-memory",
        default: None,
        help: "stop a query with an error when its operators' state grows past this size (e.g. '512 mb', '2 gb'); unlimited when unset",
    },
    KnownOption {
        key: STATE_TTL,
        default: None,
        help: "an OVER aggregation forgets a key's state once the watermark is this far past its last emitted row (event time); kept forever when unset",
    },
    KnownOption {
        key: "tidemark.stop.drain",
        default: Some("false"),
        help: "on Ctrl-C or SIGTERM, end the input there and fire open windows",
    },
    KnownOption {
        key: "tidemark.trace",
        default: Some("false"),
        help: "print FIRE/EARLY/REFIRE/LATE/CLEANUP/MERGE events",
    },
];

/// Whether tidemark reads option `key`: one of [`KNOWN_OPTIONS`], or a key
/// under one of its prefixes.
pub fn is_known_option(key: &str) -> bool {
    KNOWN_OPTIONS.iter().any(|o| match o.key.strip_suffix('.') {
        Some(_) => key.starts_with(o.key) && key.len() > o.key.len(),
        None => o.key == key,
    })
}

/// How often a checkpoint is taken: at points of the input, not of the
/// clock, so that the same run checkpoints at the same rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckpointEvery {
    /// After the batch in which the rows read pass a multiple of this.
    Rows(u64),
    /// After the batch in which the watermark passes a multiple of this
    /// many milliseconds.
    EventTime(i64),
}

/// Rows between checkpoints when only the folder is set.
pub const DEFAULT_CHECKPOINT_ROWS: u64 = 100_000;

/// Bytes per piece of a file read on several threads.
pub const DEFAULT_PIECE_BYTES: usize = 1 << 20;

/// The most threads `parallelism.default` may ask for.
pub const MAX_PARALLELISM: usize = 64;

/// How a query's rows are shown (`sql-client.execution.result-mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultMode {
    /// A table drawn as rows arrive, with an `op` column.
    Tableau,
    /// `+I[...]` lines, as Flink's print connector writes them.
    Changelog,
}

impl ResultMode {
    pub fn name(self) -> &'static str {
        match self {
            ResultMode::Tableau => "tableau",
            ResultMode::Changelog => "changelog",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct SessionOptions {
    values: BTreeMap<String, String>,
}

impl SessionOptions {
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.values.insert(key.into(), value.into());
    }

    pub fn remove(&mut self, key: &str) {
        self.values.remove(key);
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Reads every typed option, so that a bad value is reported where it
    /// is set.
    pub fn validate(&self) -> Result<()> {
        self.batch_size()?;
        self.parallelism()?;
        self.piece_bytes()?;
        self.split_by_key()?;
        self.state_limit()?;
        self.checkpoint_every()?;
        self.local_time_zone()?;
        self.allow_lateness()?;
        self.late_fire()?;
        self.idle_timeout()?;
        self.state_ttl()?;
        self.trace()?;
        self.drain_on_stop()?;
        self.early_fire()?;
        self.result_mode()?;
        Ok(())
    }

    /// `sql-client.execution.result-mode`, if set.
    pub fn result_mode(&self) -> Result<Option<ResultMode>> {
        let Some(v) = self.get(RESULT_MODE) else {
            return Ok(None);
        };
        match v.trim().to_ascii_lowercase().as_str() {
            "tableau" => Ok(Some(ResultMode::Tableau)),
            "changelog" => Ok(Some(ResultMode::Changelog)),
            other => {
                let mut err = Error::plan(
                    format!("'{RESULT_MODE}' must be 'tableau' or 'changelog', got '{v}'"),
                    Span::default(),
                );
                if other == "table" {
                    err = err.with_hint(
                        "Flink's paged 'table' mode is not supported; 'tableau' prints the same table as rows arrive",
                    );
                }
                Err(err)
            }
        }
    }

    /// `tidemark.batch-size`: how many rows a source puts in one batch.
    /// Results never depend on it; tests vary it to prove that.
    pub fn batch_size(&self) -> Result<usize> {
        self.count("tidemark.batch-size", DEFAULT_BATCH_SIZE, usize::MAX)
    }

    /// `parallelism.default`: threads a query may use; 1 by default.
    pub fn parallelism(&self) -> Result<usize> {
        self.count("parallelism.default", 1, MAX_PARALLELISM)
    }

    /// `tidemark.parallel.piece-bytes`: a file read on several threads is
    /// cut into pieces of about this many bytes (1 MiB by default).
    pub fn piece_bytes(&self) -> Result<usize> {
        self.count(
            "tidemark.parallel.piece-bytes",
            DEFAULT_PIECE_BYTES,
            usize::MAX,
        )
    }

    /// `tidemark.parallel.split-by-key`: whether keyed window aggregations
    /// at parallelism > 1 are split by key over the threads; None for
    /// `auto` (the default), which decides by the machine's cores.
    pub fn split_by_key(&self) -> Result<Option<bool>> {
        const KEY: &str = "tidemark.parallel.split-by-key";
        let value = self.get(KEY).unwrap_or("auto");
        match value.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(None),
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            _ => Err(Error::plan(
                format!("'{KEY}' must be 'true', 'false' or 'auto', got '{value}'"),
                Span::default(),
            )),
        }
    }

    /// `tidemark.state.max-memory`: the most state (bytes) a query may
    /// hold; None (unlimited) when unset.
    pub fn state_limit(&self) -> Result<Option<u64>> {
        const KEY: &str = "tidemark.state.max-memory";
        let Some(value) = self.get(KEY) else {
            return Ok(None);
        };
        match parse_memory_size(value) {
            Some(bytes) if bytes > 0 => Ok(Some(bytes)),
            _ => Err(Error::plan(
                format!("'{KEY}' must be a size such as '512 mb' or '2 gb', got '{value}'"),
                Span::default(),
            )),
        }
    }

    /// `execution.checkpointing.interval`: `'N rows'` or `'<duration>
    /// event time'`; 100,000 rows when unset.
    pub fn checkpoint_every(&self) -> Result<CheckpointEvery> {
        let Some(value) = self.get(CHECKPOINT_INTERVAL) else {
            return Ok(CheckpointEvery::Rows(DEFAULT_CHECKPOINT_ROWS));
        };
        let text = value.trim().to_ascii_lowercase();
        let rows = text
            .strip_suffix("rows")
            .or_else(|| text.strip_suffix("row"))
            .map(|n| n.trim().replace('_', "").parse::<u64>());
        let event_time = text
            .strip_suffix("event time")
            .or_else(|| text.strip_suffix("event-time"))
            .map(|d| crate::time::parse_duration_ms(d.trim()));
        match (rows, event_time) {
            (Some(Ok(n)), _) if n > 0 => Ok(CheckpointEvery::Rows(n)),
            (_, Some(Ok(ms))) if ms > 0 => Ok(CheckpointEvery::EventTime(ms)),
            _ => {
                let mut error = Error::plan(
                    format!(
                        "'{CHECKPOINT_INTERVAL}' must be a number of rows such as '100000 rows' or a duration of event time such as '1 h event time', got '{value}'"
                    ),
                    Span::default(),
                );
                if crate::time::parse_duration_ms(&text).is_ok() {
                    error = error.with_hint(format!(
                        "tidemark checkpoints at points of the input, so that a resumed run writes the same output: write '{value} event time' for a checkpoint each time the watermark passes a multiple of {value}"
                    ));
                }
                Err(error)
            }
        }
    }

    /// A whole number from 1 to `max`; `default` when unset.
    fn count(&self, key: &str, default: usize, max: usize) -> Result<usize> {
        let Some(v) = self.get(key) else {
            return Ok(default);
        };
        match v.trim().parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => {
                let want = if max == usize::MAX {
                    "a positive integer".to_string()
                } else {
                    format!("an integer from 1 to {max}")
                };
                Err(Error::plan(
                    format!("'{key}' must be {want}, got '{v}'"),
                    Span::default(),
                ))
            }
        }
    }

    /// `table.local-time-zone`: the zone `TIMESTAMP_LTZ` values are shown
    /// and windowed in; UTC by default.
    pub fn local_time_zone(&self) -> Result<chrono_tz::Tz> {
        let name = self.get("table.local-time-zone").unwrap_or("UTC");
        name.parse::<chrono_tz::Tz>().map_err(|_| {
            Error::plan(
                format!("'table.local-time-zone' is not a known time zone: '{name}'"),
                Span::default(),
            )
            .with_hint("use an IANA zone name such as 'UTC' or 'Asia/Shanghai'")
        })
    }

    /// `table.exec.emit.late-fire.enabled` and `.delay`: whether late
    /// updates were asked for, as a legacy group window needs.
    pub fn late_fire(&self) -> Result<bool> {
        let delay = self.duration("table.exec.emit.late-fire.delay", 0)?;
        if delay != 0 {
            return Err(Error::plan(
                "'table.exec.emit.late-fire.delay' must be '0 s': tidemark emits a late row's update at once",
                Span::default(),
            ));
        }
        self.flag("table.exec.emit.late-fire.enabled")
    }

    /// `table.exec.emit.allow-lateness`: how long after a window fires a
    /// late row may still update it (a duration such as `'3 s'`); 0 by
    /// default.
    pub fn allow_lateness(&self) -> Result<i64> {
        self.duration("table.exec.emit.allow-lateness", 0)
    }

    /// `table.exec.source.idle-timeout` in milliseconds; 0: splits never
    /// go idle (Flink's default).
    pub fn idle_timeout(&self) -> Result<i64> {
        self.duration(IDLE_TIMEOUT, 0)
    }

    /// `tidemark.state.ttl` in milliseconds, when set (a positive
    /// duration of event time).
    pub fn state_ttl(&self) -> Result<Option<i64>> {
        let Some(text) = self.get(STATE_TTL) else {
            return Ok(None);
        };
        match crate::time::parse_duration_ms(text) {
            Ok(ms) if ms > 0 => Ok(Some(ms)),
            _ => Err(Error::plan(
                format!("'{STATE_TTL}' must be a positive duration of event time such as '1 h', got '{text}'"),
                Span::default(),
            )),
        }
    }

    /// `tidemark.emit.early-fire`: open windows emit their partial results
    /// every this much watermark progress; unset (or 0) means never.
    pub fn early_fire(&self) -> Result<Option<i64>> {
        let every = self.duration("tidemark.emit.early-fire", 0)?;
        Ok((every > 0).then_some(every))
    }

    /// `tidemark.trace`: print one line per fire, re-fire, late row,
    /// cleanup and session merge on stderr.
    pub fn trace(&self) -> Result<bool> {
        self.flag("tidemark.trace")
    }

    /// Whether operators make trace events: to print them, or for a run
    /// report (`tidemark.report`), which draws them.
    pub fn trace_events(&self) -> Result<bool> {
        Ok(self.trace()?
            || self
                .get("tidemark.report")
                .is_some_and(|p| !p.trim().is_empty()))
    }

    /// `tidemark.stop.drain`: a stopped query (Ctrl-C, SIGTERM) ends its
    /// input there and fires its open windows, rather than dropping them.
    pub fn drain_on_stop(&self) -> Result<bool> {
        self.flag("tidemark.stop.drain")
    }

    /// A `'true'`/`'false'` option; false when unset.
    pub fn flag(&self, key: &str) -> Result<bool> {
        match self
            .get(key)
            .map(|v| v.trim().to_ascii_lowercase())
            .as_deref()
        {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(_) => Err(Error::plan(
                format!(
                    "'{key}' must be 'true' or 'false', got '{}'",
                    self.get(key).unwrap_or_default()
                ),
                Span::default(),
            )),
        }
    }

    /// A duration option, `default` (ms) when unset.
    pub fn duration(&self, key: &str, default: i64) -> Result<i64> {
        let Some(text) = self.get(key) else {
            return Ok(default);
        };
        match crate::time::parse_duration_ms(text) {
            Ok(ms) if ms >= 0 => Ok(ms),
            _ => Err(Error::plan(
                format!(
                    "'{key}' must be a duration such as '3 s', '500 ms' or '1 min', got '{text}'"
                ),
                Span::default(),
            )),
        }
    }
}

/// A memory size as Flink writes them: a whole number and an optional
/// unit, `b`, `k`/`kb`, `m`/`mb`, `g`/`gb`, `t`/`tb` (powers of 1024; the
/// `kib`-style spellings too), case and spaces ignored.
pub fn parse_memory_size(text: &str) -> Option<u64> {
    let text = text.trim().to_ascii_lowercase();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let number: u64 = text[..digits].parse().ok()?;
    let shift = match text[digits..].trim() {
        "" | "b" | "bytes" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    number.checked_mul(1u64 << shift)
}

/// A byte count as people read it: `512 B`, `12.3 KiB`, `1.5 GiB`.
pub fn show_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else if value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn memory_sizes_read_as_flink_writes_them() {
        assert_eq!(super::parse_memory_size("512 mb"), Some(512 << 20));
        assert_eq!(super::parse_memory_size("2G"), Some(2 << 30));
        assert_eq!(super::parse_memory_size(" 100kib "), Some(100 << 10));
        assert_eq!(super::parse_memory_size("4096"), Some(4096));
        assert_eq!(super::parse_memory_size("lots"), None);
        assert_eq!(super::parse_memory_size("1.5 gb"), None);
        assert_eq!(super::parse_memory_size("99999999999 tb"), None);
        assert_eq!(super::show_bytes(512), "512 B");
        assert_eq!(super::show_bytes(256 << 10), "256 KiB");
        assert_eq!(super::show_bytes(1_600_000), "1.5 MiB");
    }

    use super::*;

    #[test]
    fn a_key_is_known_by_name_or_under_a_known_prefix() {
        assert!(is_known_option("table.exec.emit.allow-lateness"));
        assert!(is_known_option("table.exec.late-records.sink.clicks"));
        assert!(!is_known_option("table.exec.late-records.sink."));
        assert!(!is_known_option("pipeline.name"));
        assert!(is_known_option("table.exec.source.idle-timeout"));
    }

    #[test]
    fn known_options_are_sorted_and_unique() {
        for pair in KNOWN_OPTIONS.windows(2) {
            assert!(
                pair[0].key < pair[1].key,
                "{} / {}",
                pair[0].key,
                pair[1].key
            );
        }
    }

    #[test]
    fn result_mode_reads_flinks_values() -> Result<()> {
        let mut options = SessionOptions::default();
        assert_eq!(options.result_mode()?, None);
        for (value, mode) in [
            ("tableau", ResultMode::Tableau),
            ("CHANGELOG", ResultMode::Changelog),
        ] {
            options.set(RESULT_MODE, value);
            assert_eq!(options.result_mode()?, Some(mode));
        }
        options.set(RESULT_MODE, "table");
        assert!(options.validate().is_err());
        Ok(())
    }
}
