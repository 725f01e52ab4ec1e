//! File sinks: a table written as CSV or JSON lines to a file, or to part
//! files in a folder (as Flink's filesystem sink writes them).
//!
//! Rows go to a hidden staged file beside the target, renamed into place
//! only when the run ends well, so a failed run never leaves a half-written
//! file under the final name. In a checkpointed run the staged file keeps
//! a name of its own and survives a crash: each checkpoint syncs it and
//! records its length, and a resumed run cuts it back to that length. A
//! folder's output is cut into parts at checkpoints: the part written
//! since the last one is closed, recorded in the checkpoint, and renamed
//! into place once the checkpoint is written (two-phase commit), so a
//! long-running job's output appears as it goes.

use crate::connectors::sink::{PrintLines, SinkWriter};
use crate::formats::encode::{LineEncoder, LineFormat};
use crate::formats::print::format_value;
use crate::runtime::snapshot::{corrupt, Persist, StateReader, StateWriter};
use arrow::array::{Array, RecordBatch};
use std::collections::HashMap;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use tidemark_common::{Error, Result, RowKind, SqlType};

/// A staged file and the name it is committed under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StagedRename {
    pub staged: PathBuf,
    pub target: PathBuf,
}

impl StagedRename {
    /// Moves the staged file into place; done already if it is gone and
    /// the target is there (a commit repeated after a restart).
    pub fn commit(&self) -> Result<()> {
        if !self.staged.exists() && self.target.exists() {
            return Ok(());
        }
        std::fs::rename(&self.staged, &self.target).map_err(|e| io_error(&self.target, e))
    }
}

impl Persist for StagedRename {
    fn save(&self, w: &mut StateWriter) {
        w.put(&self.staged.to_string_lossy().into_owned());
        w.put(&self.target.to_string_lossy().into_owned());
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok(StagedRename {
            staged: PathBuf::from(r.get::<String>()?),
            target: PathBuf::from(r.get::<String>()?),
        })
    }
}

/// A CSV or JSON-lines file written under a hidden name and renamed into
/// place at the end. Dropped unfinished, it removes the hidden file,
/// unless a checkpointed run staged it.
pub struct CsvFileSink {
    /// Where the file (or the current part) goes when committed.
    target: PathBuf,
    /// Where it is staged meanwhile.
    hidden: PathBuf,
    file: Option<std::io::BufWriter<std::fs::File>>,
    encoder: LineEncoder,
    /// The line naming the columns that starts each file (`csv.header`),
    /// or empty.
    header: String,
    /// One row's line, for an upserting file.
    line: String,
    /// Room for an appended batch's lines.
    lines: Vec<u8>,
    /// With a key: the last line per key, written at the end.
    upsert: Option<Upsert>,
    /// How a checkpointed run stages its output; None without checkpoints.
    staging: Option<Staging>,
}

/// The staging of a checkpointed run's file sink.
struct Staging {
    /// A folder sink: its parts.
    parts: Option<Parts>,
    /// Parts closed at the last checkpoint, renamed into place once that
    /// checkpoint is written.
    closed: Vec<StagedRename>,
}

/// The part files of a folder sink: `part-N.csv`, numbered from 0.
struct Parts {
    dir: PathBuf,
    extension: &'static str,
    /// The part being written.
    number: u64,
}

impl Parts {
    /// The part's final and staged names.
    fn paths(&self, number: u64) -> (PathBuf, PathBuf) {
        let name = format!("part-{number}.{}", self.extension);
        (
            self.dir.join(&name),
            self.dir.join(format!(".{name}.inprogress")),
        )
    }
}

/// The rows of an upsert file: the last line per key, in the order keys
/// first came; a deleted key's line is gone.
pub(crate) struct Upsert {
    pub(crate) key: Vec<usize>,
    pub(crate) rows: Vec<Option<String>>,
    pub(crate) index: HashMap<String, usize>,
}

/// Opens (creating or emptying) a staged file for writing.
fn open_staged(path: &Path, truncate: bool) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(truncate)
        .open(path)
        .map_err(|e| io_error(path, e))
}

impl CsvFileSink {
    /// `staged`: for a checkpointed run, whether it resumes (the staged
    /// file is then opened by [`CsvFileSink::load_state`]) or starts
    /// afresh; `None` for a run without checkpoints.
    pub(crate) fn create(
        target: &Path,
        format: LineFormat,
        names: &[String],
        staged: Option<bool>,
    ) -> Result<Self> {
        // A folder (as Flink's filesystem sink takes): part files in it.
        let folder = target.is_dir() || target.to_string_lossy().ends_with('/');
        let parts = if folder {
            std::fs::create_dir_all(target).map_err(|e| io_error(target, e))?;
            Some(Parts {
                dir: target.to_path_buf(),
                extension: format.extension(),
                number: 0,
            })
        } else {
            None
        };
        let target = match &parts {
            Some(p) => p.paths(0).0,
            None => target.to_path_buf(),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (hidden, file, staging) = match staged {
            None => {
                let hidden =
                    target.with_file_name(format!(".{name}.inprogress.{}", std::process::id()));
                let file = std::fs::File::create(&hidden).map_err(|e| io_error(&hidden, e))?;
                (hidden, Some(file), None)
            }
            Some(resuming) => {
                let hidden = target.with_file_name(format!(".{name}.inprogress"));
                let file = if resuming {
                    None
                } else {
                    Some(open_staged(&hidden, true)?)
                };
                let staging = Staging {
                    parts,
                    closed: Vec::new(),
                };
                (hidden, file, Some(staging))
            }
        };
        let encoder = LineEncoder::new(format, (0..names.len()).collect());
        let mut sink = CsvFileSink {
            target,
            hidden,
            file: None,
            header: encoder.header(names).unwrap_or_default(),
            encoder,
            line: String::new(),
            lines: Vec::new(),
            upsert: None,
            staging,
        };
        if let Some(file) = file {
            sink.begin_file(file)?;
        }
        Ok(sink)
    }

    /// Starts writing a new, empty file: its header first.
    fn begin_file(&mut self, file: std::fs::File) -> Result<()> {
        let mut file = std::io::BufWriter::new(file);
        file.write_all(self.header.as_bytes())
            .map_err(|e| io_error(&self.hidden, e))?;
        self.file = Some(file);
        Ok(())
    }

    /// A file sink keeps the last row per key (`key`: column positions).
    pub(crate) fn upsert_on(&mut self, key: Vec<usize>) {
        self.upsert = Some(Upsert {
            key,
            rows: Vec::new(),
            index: HashMap::new(),
        });
    }

    /// Gives up the output: the staged file goes when the sink is dropped.
    pub(crate) fn discard(&mut self) {
        self.staging = None;
    }

    /// Flushes and syncs the staged file; returns its length.
    fn sync(&mut self) -> Result<u64> {
        let Some(file) = self.file.as_mut() else {
            return Err(Error::Internal("checkpointing a finished sink".into()));
        };
        file.flush().map_err(|e| io_error(&self.hidden, e))?;
        let file = file.get_mut();
        file.sync_data().map_err(|e| io_error(&self.hidden, e))?;
        file.stream_position()
            .map_err(|e| io_error(&self.hidden, e))
    }

    /// Stages the output for a checkpoint and writes where it stands. A
    /// folder's part with rows is closed (renamed into place by
    /// [`CsvFileSink::commit_checkpoint`] once the checkpoint is written)
    /// and the next part begun.
    pub(crate) fn save_state(&mut self, w: &mut StateWriter) -> Result<()> {
        let mut length = self.sync()?;
        let Some(staging) = self.staging.as_mut() else {
            return Err(Error::Internal(
                "checkpointing a sink without staging".into(),
            ));
        };
        let has_rows = length > self.header.len() as u64;
        if let Some(parts) = staging
            .parts
            .as_mut()
            .filter(|_| self.upsert.is_none() && has_rows)
        {
            staging.closed.push(StagedRename {
                staged: self.hidden.clone(),
                target: self.target.clone(),
            });
            parts.number += 1;
            (self.target, self.hidden) = parts.paths(parts.number);
            let file = open_staged(&self.hidden, true)?;
            self.begin_file(file)?;
            length = self.sync()?;
        }
        let Some(staging) = self.staging.as_ref() else {
            return Err(Error::Internal(
                "checkpointing a sink without staging".into(),
            ));
        };
        w.put(&staging.parts.as_ref().map(|p| p.number));
        w.put(&staging.closed);
        w.put(&length);
        match &self.upsert {
            None => w.put(&false),
            Some(upsert) => {
                w.put(&true);
                w.put(&upsert.rows);
                let mut index: Vec<(&String, &usize)> = upsert.index.iter().collect();
                index.sort_by_key(|(_, i)| **i);
                w.u64(index.len() as u64);
                for (key, i) in index {
                    w.put(key);
                    w.put(i);
                }
            }
        }
        Ok(())
    }

    /// The checkpoint is written: the parts it closed go into place.
    pub(crate) fn commit_checkpoint(&mut self) -> Result<()> {
        if let Some(staging) = self.staging.as_mut() {
            for rename in staging.closed.drain(..) {
                rename.commit()?;
            }
        }
        Ok(())
    }

    /// Goes on from a checkpoint: the parts it closed are put in place (if
    /// the crash came before), the staged file is cut back to what the
    /// checkpoint staged, and the rows kept per key are put back.
    pub(crate) fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        let Some(staging) = self.staging.as_mut() else {
            return Err(Error::Internal("resuming a sink without staging".into()));
        };
        let number: Option<u64> = r.get()?;
        let closed: Vec<StagedRename> = r.get()?;
        for rename in &closed {
            rename.commit()?;
        }
        match (staging.parts.as_mut(), number) {
            (Some(parts), Some(number)) => {
                parts.number = number;
                (self.target, self.hidden) = parts.paths(number);
                remove_later_parts(parts)?;
            }
            (None, None) => {}
            _ => return Err(corrupt("the sink wrote to a file and a folder")),
        }
        let length: u64 = r.get()?;
        let mut file = open_staged(&self.hidden, false)?;
        let staged = file
            .metadata()
            .map_err(|e| io_error(&self.hidden, e))?
            .len();
        if staged < length {
            return Err(Error::Execution(format!(
                "the staged output {} holds {staged} bytes where the checkpoint staged {length}: it was changed or removed since",
                self.hidden.display()
            )));
        }
        file.set_len(length)
            .map_err(|e| io_error(&self.hidden, e))?;
        file.seek(std::io::SeekFrom::Start(length))
            .map_err(|e| io_error(&self.hidden, e))?;
        self.file = Some(std::io::BufWriter::new(file));
        let has_upsert: bool = r.get()?;
        match (&mut self.upsert, has_upsert) {
            (Some(upsert), true) => {
                upsert.rows = r.get()?;
                let n = r.count()?;
                for _ in 0..n {
                    let key: String = r.get()?;
                    let i: usize = r.get()?;
                    if i >= upsert.rows.len() {
                        return Err(corrupt("a kept row is missing"));
                    }
                    upsert.index.insert(key, i);
                }
            }
            (None, false) => {}
            _ => return Err(corrupt("the sink kept rows per key differently")),
        }
        Ok(())
    }

    /// Writes the rows kept per key and syncs: what is staged is then the
    /// whole output. Returns the renames that commit it; a folder's last
    /// part is left out when it is empty (unless it is the only one).
    pub(crate) fn prepare_commit(&mut self) -> Result<Vec<StagedRename>> {
        self.write_upserts()?;
        let length = self.sync()?;
        self.file = None;
        let current = StagedRename {
            staged: self.hidden.clone(),
            target: self.target.clone(),
        };
        let Some(staging) = self.staging.as_mut() else {
            return Ok(vec![current]);
        };
        let mut renames = std::mem::take(&mut staging.closed);
        // A folder's last part is empty when a checkpoint closed the one
        // before it at the very end: no empty part file is left.
        if length == self.header.len() as u64
            && staging.parts.as_ref().is_some_and(|p| p.number > 0)
        {
            std::fs::remove_file(&self.hidden).map_err(|e| io_error(&self.hidden, e))?;
        } else {
            renames.push(current);
        }
        Ok(renames)
    }

    fn write_upserts(&mut self) -> Result<()> {
        if let (Some(file), Some(upsert)) = (self.file.as_mut(), self.upsert.take()) {
            for line in upsert.rows.into_iter().flatten() {
                file.write_all(line.as_bytes())
                    .map_err(|e| io_error(&self.hidden, e))?;
            }
        }
        Ok(())
    }

    pub(crate) fn write(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<()> {
        let Some(file) = self.file.as_mut() else {
            return Err(Error::Internal("writing a finished sink".into()));
        };
        self.encoder.encode(batch, types)?;
        let Some(upsert) = &mut self.upsert else {
            if kinds.iter().any(|kind| *kind != RowKind::Insert) {
                return Err(Error::Internal(
                    "an update written to an append-only file".into(),
                ));
            }
            // The batch's lines are written in one go.
            let lines = self.encoder.lines(&mut self.lines);
            return file.write_all(lines).map_err(|e| io_error(&self.hidden, e));
        };
        let mut value = String::new();
        for row in 0..batch.num_rows() {
            let kind = kinds.get(row).copied().unwrap_or(RowKind::Insert);
            self.line.clear();
            self.encoder.line(row, &mut self.line);
            self.line.push('\n');
            let mut key = String::new();
            for c in &upsert.key {
                value.clear();
                if batch.column(*c).is_valid(row) {
                    format_value(batch.column(*c).as_ref(), &types[*c], row, tz, &mut value)?;
                }
                key.push_str(&value);
                key.push('\u{1}');
            }
            match kind {
                RowKind::UpdateBefore => {}
                RowKind::Delete => {
                    if let Some(i) = upsert.index.remove(&key) {
                        upsert.rows[i] = None;
                    }
                }
                RowKind::Insert | RowKind::UpdateAfter => match upsert.index.get(&key) {
                    Some(i) => upsert.rows[*i] = Some(self.line.clone()),
                    None => {
                        upsert.index.insert(key, upsert.rows.len());
                        upsert.rows.push(Some(self.line.clone()));
                    }
                },
            }
        }
        Ok(())
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        self.write_upserts()?;
        if let Some(mut file) = self.file.take() {
            file.flush().map_err(|e| io_error(&self.hidden, e))?;
        }
        std::fs::rename(&self.hidden, &self.target).map_err(|e| io_error(&self.target, e))
    }
}

impl SinkWriter for CsvFileSink {
    fn write(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<PrintLines> {
        CsvFileSink::write(self, batch, types, kinds, tz)?;
        Ok(String::new())
    }

    fn upsert_on(&mut self, key: Vec<usize>) {
        CsvFileSink::upsert_on(self, key);
    }

    fn finish(self: Box<Self>) -> Result<()> {
        CsvFileSink::finish(*self)
    }

    fn discard(mut self: Box<Self>) {
        CsvFileSink::discard(&mut self);
    }

    fn save_state(&mut self, w: &mut StateWriter) -> Result<()> {
        CsvFileSink::save_state(self, w)
    }

    fn load_state(&mut self, r: &mut StateReader<'_>) -> Result<()> {
        CsvFileSink::load_state(self, r)
    }

    fn prepare_commit(&mut self) -> Result<Vec<StagedRename>> {
        CsvFileSink::prepare_commit(self)
    }

    fn commit_checkpoint(&mut self) -> Result<()> {
        CsvFileSink::commit_checkpoint(self)
    }
}

impl Drop for CsvFileSink {
    fn drop(&mut self) {
        if self.file.take().is_some() && self.staging.is_none() {
            let _ = std::fs::remove_file(&self.hidden);
        }
    }
}

/// Removes staged parts numbered after the one a resumed run writes: a run
/// that died began them after its last checkpoint.
fn remove_later_parts(parts: &Parts) -> Result<()> {
    let entries = std::fs::read_dir(&parts.dir).map_err(|e| io_error(&parts.dir, e))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let number = name
            .strip_prefix(".part-")
            .and_then(|n| n.strip_suffix(&format!(".{}.inprogress", parts.extension)))
            .and_then(|n| n.parse::<u64>().ok());
        if number.is_some_and(|n| n > parts.number) {
            std::fs::remove_file(entry.path()).map_err(|e| io_error(&entry.path(), e))?;
        }
    }
    Ok(())
}

fn io_error(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        context: format!("writing {}", path.display()),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_file_appears_only_when_finished() -> Result<()> {
        let dir = std::env::temp_dir().join(format!("tidemark-sink-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let target = dir.join("late.csv");
        let batch = RecordBatch::try_from_iter([(
            "v",
            std::sync::Arc::new(arrow::array::Int32Array::from(vec![Some(1), None])) as _,
        )])?;
        let kinds = [RowKind::Insert; 2];
        let csv = || LineFormat::of(&Default::default(), vec![]);
        let names = ["v".to_string()];
        let mut sink = CsvFileSink::create(&target, csv()?, &names, None)?;
        sink.write(&batch, &[SqlType::Int], &kinds, chrono_tz::UTC)?;
        assert!(
            !target.exists(),
            "nothing under the final name before the end"
        );
        drop(sink);
        assert!(!target.exists(), "an unfinished sink leaves no file");
        let mut sink = CsvFileSink::create(&target, csv()?, &names, None)?;
        sink.write(&batch, &[SqlType::Int], &kinds, chrono_tz::UTC)?;
        sink.finish()?;
        let text = std::fs::read_to_string(&target).map_err(|e| io_error(&target, e))?;
        assert_eq!(text, "1\n\n");
        let header = std::collections::BTreeMap::from([("csv.header".into(), "true".into())]);
        let mut sink =
            CsvFileSink::create(&target, LineFormat::of(&header, vec![])?, &names, None)?;
        sink.write(&batch, &[SqlType::Int], &kinds, chrono_tz::UTC)?;
        sink.finish()?;
        let text = std::fs::read_to_string(&target).map_err(|e| io_error(&target, e))?;
        assert_eq!(text, "v\n1\n\n", "a header starts the file");
        std::fs::remove_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        Ok(())
    }
}
