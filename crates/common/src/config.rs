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
        self.local_time_zone()?;
        self.allow_lateness()?;
        self.trace()?;
        self.early_fire()?;
        Ok(())
    }

    /// `tidemark.batch-size`: how many rows a source puts in one batch.
    /// Results never depend on it; tests vary it to prove that.
    pub fn batch_size(&self) -> Result<usize> {
        match self.get("tidemark.batch-size") {
            None => Ok(DEFAULT_BATCH_SIZE),
            Some(v) => match v.trim().parse::<usize>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(Error::plan(
                    format!("'tidemark.batch-size' must be a positive integer, got '{v}'"),
                    Span::default(),
                )),
            },
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

    /// `table.exec.emit.allow-lateness`: how long after a window fires a
    /// late row may still update it (a duration such as `'3 s'`); 0 by
    /// default.
    pub fn allow_lateness(&self) -> Result<i64> {
        self.duration("table.exec.emit.allow-lateness", 0)
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
