//! The journal beside a job's checkpoint: the decisions a run made on its
//! clock since that checkpoint (splits going idle, coming back, joining),
//! so that a resumed run applies them at the same rows (spec §8).
//!
//! The file starts with a magic line and says which statement and which
//! checkpoint it follows; then come records, one per step that decided
//! anything, each length-prefixed with a CRC-32, appended and synced
//! before the step's output goes anywhere. A record cut short by a crash
//! was never synced, so no output depended on it: it is dropped. Each
//! checkpoint starts the journal afresh; a journal that follows another
//! checkpoint than the one resumed from is stale and ignored.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use tidemark_common::{Error, Result};
use tidemark_engine::snapshot::StateWriter;

const MAGIC: &[u8] = b"tidemark journal 1\n";

/// The file's name in the checkpoint folder.
const FILE: &str = "journal";

/// What a journal follows: a statement of the script, as its checkpoints
/// name it, and the checkpoint it was started at (0: the statement's
/// start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Follows {
    pub statement: u64,
    pub fingerprint: u32,
    pub checkpoint: u64,
}

impl Follows {
    fn header(&self) -> Vec<u8> {
        let mut w = StateWriter::new();
        w.put(&self.statement);
        w.put(&self.fingerprint);
        w.put(&self.checkpoint);
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&w.into_bytes());
        bytes
    }
}

/// An open journal, appended to as the run decides.
pub struct JournalFile {
    path: PathBuf,
    file: File,
    follows: Follows,
    /// Records were appended since the header was written.
    appended: bool,
    /// The checkpoint the header on disk names (it is rewritten before
    /// the next record when a checkpoint came since).
    header_names: Option<u64>,
}

impl JournalFile {
    /// Opens the journal in `dir` for a run that `follows`: with `resume`,
    /// the records of the run before, when its journal follows the same
    /// checkpoint, are kept and returned (to be replayed); otherwise the
    /// journal starts empty.
    pub fn open(dir: &Path, follows: Follows, resume: bool) -> Result<(Self, Vec<Vec<u8>>)> {
        let path = dir.join(FILE);
        let records = if resume {
            match std::fs::read(&path) {
                Ok(bytes) => read_records(&bytes, &follows),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(io(&path, e)),
            }
        } else {
            None
        };
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        let mut journal = JournalFile {
            path,
            file,
            follows,
            appended: true,
            header_names: None,
        };
        match records {
            Some((records, good_len)) => {
                // A torn record at the end goes, so that appends follow
                // the last whole one.
                journal
                    .file
                    .set_len(good_len)
                    .map_err(|e| io(&journal.path, e))?;
                journal
                    .file
                    .seek(SeekFrom::End(0))
                    .map_err(|e| io(&journal.path, e))?;
                journal.appended = !records.is_empty();
                journal.header_names = Some(follows.checkpoint);
                Ok((journal, records))
            }
            None => {
                journal.restart(follows.checkpoint)?;
                Ok((journal, Vec::new()))
            }
        }
    }

    /// Appends one record and syncs it.
    pub fn append(&mut self, record: &[u8]) -> Result<()> {
        if self.header_names != Some(self.follows.checkpoint) {
            self.write_header()?;
        }
        let mut bytes = Vec::with_capacity(record.len() + 12);
        bytes.extend_from_slice(&(record.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(record).to_le_bytes());
        bytes.extend_from_slice(record);
        self.appended = true;
        self.file
            .write_all(&bytes)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| io(&self.path, e))
    }

    /// Starts the journal afresh after checkpoint `number`: what it held
    /// is in that checkpoint's state now. A journal with no record is
    /// left as it is: following an older checkpoint, it is ignored, and
    /// holds nothing to replay anyway.
    pub fn restart(&mut self, number: u64) -> Result<()> {
        self.follows.checkpoint = number;
        if !self.appended {
            return Ok(());
        }
        self.write_header()
    }

    /// Empties the file down to a header naming the checkpoint followed.
    fn write_header(&mut self) -> Result<()> {
        self.appended = false;
        self.header_names = Some(self.follows.checkpoint);
        let header = self.follows.header();
        let path = &self.path;
        self.file.set_len(0).map_err(|e| io(path, e))?;
        self.file
            .seek(SeekFrom::Start(0))
            .map_err(|e| io(path, e))?;
        self.file
            .write_all(&header)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| io(path, e))
    }

    /// Removes the journal: its statement finished.
    pub fn remove(self) -> Result<()> {
        drop(self.file);
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(&self.path, e)),
            _ => Ok(()),
        }
    }
}

/// The whole records of a journal that follows `follows`, and the length
/// up to the last of them; `None` if it follows something else.
fn read_records(bytes: &[u8], follows: &Follows) -> Option<(Vec<Vec<u8>>, u64)> {
    let header = follows.header();
    let mut rest = bytes.strip_prefix(header.as_slice())?;
    let mut records = Vec::new();
    let mut good = header.len();
    while rest.len() >= 12 {
        let len = u64::from_le_bytes(rest[..8].try_into().ok()?) as usize;
        let crc = u32::from_le_bytes(rest[8..12].try_into().ok()?);
        let Some(record) = rest.get(12..12usize.checked_add(len)?) else {
            break;
        };
        if crc32fast::hash(record) != crc {
            break;
        }
        records.push(record.to_vec());
        good += 12 + len;
        rest = &rest[12 + len..];
    }
    Some((records, good as u64))
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::io(format!("cannot write {}", path.display()), e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("tidemark-journal-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    const FOLLOWS: Follows = Follows {
        statement: 0,
        fingerprint: 7,
        checkpoint: 2,
    };

    #[test]
    fn records_come_back_to_a_resumed_run_of_the_same_checkpoint_only() -> Result<()> {
        let dir = scratch("same");
        let (mut j, none) = JournalFile::open(&dir, FOLLOWS, true)?;
        assert!(none.is_empty());
        j.append(b"one")?;
        j.append(b"two")?;
        drop(j);
        let (_, records) = JournalFile::open(&dir, FOLLOWS, true)?;
        assert_eq!(records, [b"one".to_vec(), b"two".to_vec()]);
        // Another checkpoint, another statement, or a fresh run: none.
        let later = Follows {
            checkpoint: 3,
            ..FOLLOWS
        };
        assert!(JournalFile::open(&dir, later, true)?.1.is_empty());
        let (mut j, _) = JournalFile::open(&dir, FOLLOWS, false)?;
        j.append(b"three")?;
        drop(j);
        let (_, records) = JournalFile::open(&dir, FOLLOWS, true)?;
        assert_eq!(records, [b"three".to_vec()]);
        Ok(())
    }

    #[test]
    fn a_record_cut_short_is_dropped_and_appends_follow_the_last_whole_one() -> Result<()> {
        let dir = scratch("torn");
        let (mut j, _) = JournalFile::open(&dir, FOLLOWS, false)?;
        j.append(b"whole")?;
        j.append(b"torn record")?;
        drop(j);
        let path = dir.join(FILE);
        let len = std::fs::metadata(&path).unwrap().len();
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(len - 3).unwrap();
        drop(file);
        let (mut j, records) = JournalFile::open(&dir, FOLLOWS, true)?;
        assert_eq!(records, [b"whole".to_vec()]);
        j.append(b"next")?;
        drop(j);
        let (j, records) = JournalFile::open(&dir, FOLLOWS, true)?;
        assert_eq!(records, [b"whole".to_vec(), b"next".to_vec()]);
        // After a checkpoint it starts afresh.
        let mut j = j;
        j.restart(3)?;
        drop(j);
        let later = Follows {
            checkpoint: 3,
            ..FOLLOWS
        };
        let (mut j, none) = JournalFile::open(&dir, later, true)?;
        assert!(none.is_empty());
        // A checkpoint with nothing journaled since leaves the file; the
        // next record still goes under the newest checkpoint.
        j.restart(4)?;
        j.append(b"after 4")?;
        drop(j);
        let four = Follows {
            checkpoint: 4,
            ..FOLLOWS
        };
        assert_eq!(
            JournalFile::open(&dir, four, true)?.1,
            [b"after 4".to_vec()]
        );
        Ok(())
    }
}
