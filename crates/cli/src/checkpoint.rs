//! A job's checkpoint file: which statement of the script is running, the
//! state of its sources, operators and sinks at the last checkpoint, and
//! the renames that commit finished statements' output.
//!
//! The file is replaced atomically (written beside, synced, renamed, the
//! folder synced), so a crash at any point leaves the last complete
//! checkpoint. It starts with a magic line and a CRC-32 of the rest, so a
//! damaged file is refused rather than half-read.
//!
//! A statement's output is committed in two phases: at its end every sink
//! is staged in full and synced, and the checkpoint records the renames
//! that put the staged files in place and that the statement finished;
//! only then are the renames made. A run resumed after a crash between
//! the two makes them again (they are idempotent).
//!
//! A statement that writes a transactional sink (Kafka `'exactly-once'`)
//! writes each checkpoint twice: first as *pending*, holding the
//! checkpoint before it too, then — once the sink has committed the epoch
//! the checkpoint closes — confirmed. A run resumed from a pending
//! checkpoint asks the sink whether the epoch was committed and goes on
//! from the pending checkpoint or the one before (spec §9).

use std::io::Write;
use std::path::{Path, PathBuf};
use tidemark_common::{Error, Result};
use tidemark_engine::snapshot::{corrupt, StateReader, StateWriter};
use tidemark_engine::StagedRename;

/// Bumped whenever an operator's state is written differently, so that an
/// older checkpoint is refused rather than misread (4: FIRST_VALUE and
/// LAST_VALUE of numbers and times keep native values; 5: a session
/// aggregation keeps its sessions' state in shared accumulators and
/// where each session's timer is set, an OVER aggregation where each
/// key's expiry timer is set; 6: a bounded OVER frame of incremental
/// aggregates only keeps its rows' rowtimes or count, not the rows, and
/// its MIN/MAX queues hold each value once, in 64 bits but for DECIMAL;
/// 7: a short ROWS frame of such aggregates, counts and integer sums keeps
/// each key's state in one block, written key by key).
const MAGIC: &[u8] = b"tidemark checkpoint 7\n";

/// The file's name in the checkpoint folder.
const FILE: &str = "checkpoint";

/// What a checkpoint holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checkpoint {
    /// The running statement the state belongs to, counting the script's
    /// queries and INSERTs from 0; the statements before it finished.
    pub statement: u64,
    /// The statement's plan and options (see [`fingerprint`]).
    pub fingerprint: u32,
    /// Checkpoints taken of this statement so far.
    pub number: u64,
    /// Rows its sources had read.
    pub rows_read: u64,
    /// The pipeline's state, then each sink's; None before the statement
    /// took its first checkpoint (it then starts from the beginning).
    pub state: Option<(Vec<u8>, Vec<u8>)>,
    /// Renames that commit the finished statements' output.
    pub commits: Vec<StagedRename>,
    /// The job's identity: numbers its transactions' epochs apart from
    /// those of an earlier run of the same script from the beginning.
    pub job: u64,
    /// Set while the checkpoint is pending: the last confirmed one, which
    /// a resumed run goes on from if the epoch this one closes was not
    /// committed.
    pub previous: Option<Box<Checkpoint>>,
}

impl Checkpoint {
    /// The epoch a pending checkpoint closes: the one after its previous.
    pub fn pending_epoch(&self) -> Option<tidemark_engine::Epoch> {
        self.previous.as_ref().map(|p| tidemark_engine::Epoch {
            job: p.job,
            statement: p.statement,
            number: p.number + 1,
        })
    }

    fn encode(&self) -> Vec<u8> {
        let body = self.body();
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        bytes.extend_from_slice(&body);
        bytes
    }

    fn body(&self) -> Vec<u8> {
        let mut w = StateWriter::new();
        w.put(&self.statement);
        w.put(&self.fingerprint);
        w.put(&self.number);
        w.put(&self.rows_read);
        match &self.state {
            None => w.put(&false),
            Some((pipeline, sinks)) => {
                w.put(&true);
                w.bytes(pipeline);
                w.bytes(sinks);
            }
        }
        w.put(&self.commits);
        w.put(&self.job);
        match &self.previous {
            None => w.put(&false),
            Some(previous) => {
                w.put(&true);
                w.bytes(&previous.body());
            }
        }
        w.into_bytes()
    }

    fn decode(bytes: &[u8]) -> Result<Self> {
        let rest = bytes
            .strip_prefix(MAGIC)
            .ok_or_else(|| corrupt("it is not a tidemark checkpoint of this version"))?;
        if rest.len() < 4 {
            return Err(corrupt("it ends early"));
        }
        let (crc, body) = rest.split_at(4);
        if crc32fast::hash(body).to_le_bytes() != crc {
            return Err(corrupt("its checksum does not match: the file is damaged"));
        }
        Self::from_body(body)
    }

    fn from_body(body: &[u8]) -> Result<Self> {
        let mut r = StateReader::new(body);
        let checkpoint = Checkpoint {
            statement: r.get()?,
            fingerprint: r.get()?,
            number: r.get()?,
            rows_read: r.get()?,
            state: if r.get::<bool>()? {
                Some((r.bytes()?.to_vec(), r.bytes()?.to_vec()))
            } else {
                None
            },
            commits: r.get()?,
            job: r.get()?,
            previous: if r.get::<bool>()? {
                Some(Box::new(Self::from_body(r.bytes()?)?))
            } else {
                None
            },
        };
        r.finish()?;
        Ok(checkpoint)
    }
}

/// The checkpoint folder of a job.
pub struct CheckpointStore {
    dir: PathBuf,
}

impl CheckpointStore {
    pub fn new(dir: PathBuf) -> Self {
        CheckpointStore { dir }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE)
    }

    /// The checkpoint folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The last checkpoint, if there is one.
    pub fn read(&self) -> Result<Option<Checkpoint>> {
        let path = self.path();
        match std::fs::read(&path) {
            Ok(bytes) => Checkpoint::decode(&bytes)
                .map(Some)
                .map_err(|e| in_file(e, &path)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(format!("cannot read {}", path.display()), e)),
        }
    }

    /// Replaces the checkpoint atomically.
    pub fn write(&self, checkpoint: &Checkpoint) -> Result<()> {
        let io = |what: &Path, e| Error::io(format!("cannot write {}", what.display()), e);
        std::fs::create_dir_all(&self.dir).map_err(|e| io(&self.dir, e))?;
        let path = self.path();
        let next = self.dir.join(format!("{FILE}.next"));
        let mut file = std::fs::File::create(&next).map_err(|e| io(&next, e))?;
        file.write_all(&checkpoint.encode())
            .map_err(|e| io(&next, e))?;
        file.sync_all().map_err(|e| io(&next, e))?;
        drop(file);
        std::fs::rename(&next, &path).map_err(|e| io(&path, e))?;
        sync_dir(&self.dir)
    }

    /// Removes the checkpoint: the job finished.
    pub fn remove(&self) -> Result<()> {
        let path = self.path();
        match std::fs::remove_file(&path) {
            Ok(()) => sync_dir(&self.dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io(format!("cannot remove {}", path.display()), e)),
        }
    }
}

/// Makes a rename in `dir` durable.
fn sync_dir(dir: &Path) -> Result<()> {
    // Folders cannot be opened for syncing everywhere; where they can, a
    // failure to sync is a failure to commit.
    #[cfg(unix)]
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(format!("cannot sync {}", dir.display()), e))?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

fn in_file(e: Error, path: &Path) -> Error {
    match e {
        Error::Execution(m) => Error::Execution(format!("{}: {m}", path.display())),
        other => other,
    }
}

/// A checksum of what decides a statement's state: its plan as EXPLAIN
/// shows it and the options that can change results. A checkpoint is only
/// resumed by the statement that wrote it.
pub fn fingerprint(plan_text: &str, options: &tidemark_common::SessionOptions) -> u32 {
    // Options that never change results (or only say where and how often
    // to checkpoint, or whether time is traced) may differ between the run
    // and its resumption.
    const FREE: [&str; 6] = [
        "tidemark.batch-size",
        "tidemark.trace",
        "parallelism.default",
        "tidemark.parallel.piece-bytes",
        "tidemark.parallel.split-by-key",
        tidemark_common::CHECKPOINT_INTERVAL,
    ];
    let mut text = plan_text.to_string();
    for (k, v) in options.iter().filter(|(k, _)| !FREE.contains(k)) {
        text.push_str(&format!("\n{k}={v}"));
    }
    crc32fast::hash(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            statement: 1,
            fingerprint: 7,
            number: 3,
            rows_read: 300,
            state: Some((vec![1, 2, 3], vec![])),
            commits: vec![StagedRename {
                staged: ".out.csv.inprogress".into(),
                target: "out.csv".into(),
            }],
            job: 0x1234,
            previous: None,
        }
    }

    #[test]
    fn a_checkpoint_reads_back_and_a_damaged_one_is_refused() -> Result<()> {
        let dir = std::env::temp_dir().join(format!("tidemark-ckpt-{}", std::process::id()));
        let store = CheckpointStore::new(dir.clone());
        assert_eq!(store.read()?, None);
        store.write(&sample())?;
        assert_eq!(store.read()?, Some(sample()));
        let pending = Checkpoint {
            number: 4,
            previous: Some(Box::new(sample())),
            ..sample()
        };
        store.write(&pending)?;
        let read = store.read()?.expect("a checkpoint");
        assert_eq!(read, pending);
        assert_eq!(
            read.pending_epoch(),
            Some(tidemark_engine::Epoch {
                job: 0x1234,
                statement: 1,
                number: 4
            })
        );
        store.write(&sample())?;
        let mut bytes = std::fs::read(store.path()).map_err(|e| Error::io("read", e))?;
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(store.path(), &bytes).map_err(|e| Error::io("write", e))?;
        let err = store.read().expect_err("a flipped bit is noticed");
        assert!(err.to_string().contains("checksum"), "{err}");
        store.remove()?;
        assert_eq!(store.read()?, None);
        std::fs::remove_dir_all(&dir).map_err(|e| Error::io("remove", e))?;
        Ok(())
    }
}
