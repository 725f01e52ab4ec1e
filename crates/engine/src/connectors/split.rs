//! The split: the unit a source reads (a file, standard input, a
//! generator's stream; a Kafka partition later), and the unit a checkpoint
//! records a position in. Each connector reads its tables through a
//! [`SplitReader`]; [`super::source::TableSource`] turns its batches into a
//! stream with rowtimes and watermarks.
//!
//! Today a table is one split; a table of several reads them one after
//! another, in order, until splits get watermarks of their own.

use crate::runtime::read::{ReadBatch, ReadPosition, ReadStats};
use tidemark_common::Result;

/// One split of a table: the name a checkpoint knows it by (a file's
/// path, `stdin`, the generator) and its reader.
pub struct Split {
    pub name: String,
    pub reader: Box<dyn SplitReader>,
}

impl Split {
    pub fn new(name: impl Into<String>, reader: Box<dyn SplitReader>) -> Self {
        Split {
            name: name.into(),
            reader,
        }
    }
}

/// What reads one split of a table into batches of its physical columns.
pub trait SplitReader: Send {
    /// The next batch, or `None` at the end of the split (or, for an
    /// unending split, when nothing more has come for now: see
    /// [`ReadBatch`]).
    fn next_batch(&mut self) -> Result<Option<ReadBatch>>;

    /// What was read, skipped and repaired so far.
    fn stats(&self) -> ReadStats;

    /// Keeps each malformed record's text, for a bad-record sink.
    /// Generated rows are never malformed.
    fn keep_raw(&mut self) {}

    /// The session's time zone, for `TIMESTAMP_LTZ` text.
    fn set_time_zone(&mut self, _tz: chrono_tz::Tz) {}

    /// What the split is, when a checkpoint cannot record a position in
    /// it (`"the datagen connector"`); `None` when it can.
    fn unpositioned(&self) -> Option<&'static str>;

    /// Keeps what positions need (a checksum of the bytes read); called
    /// before the first read of a checkpointed run.
    fn track_position(&mut self) {}

    /// Whether the split stands between two batches with nothing
    /// buffered: a position can be recorded.
    fn between_batches(&self) -> bool {
        false
    }

    /// Where the split stands, for a checkpoint.
    fn position(&self) -> Option<ReadPosition> {
        None
    }

    /// Goes on from `at`, a position [`SplitReader::position`] gave in an
    /// earlier run: checks that the input is still the one read then.
    fn resume(&mut self, _at: &ReadPosition) -> Result<()> {
        Err(tidemark_common::Error::Internal(
            "resuming a split that records no position".into(),
        ))
    }
}
