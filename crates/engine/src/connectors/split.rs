//! The split: the unit a source reads (a file, standard input, a
//! generator's stream; a Kafka partition later), and the unit a checkpoint
//! records a position in. Each connector reads its tables through a
//! [`SplitReader`]; [`super::source::TableSource`] turns its batches into a
//! stream with rowtimes and watermarks.
//!
//! A table of several splits (a folder of files) interleaves their rows
//! by lowest watermark; a [`SplitDiscovery`] finds splits that appear
//! while the table is read (new files in a followed folder).

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

    /// Whether the split may have nothing for a while without having
    /// ended (a followed file, standard input, a replay between its
    /// arrivals): only such a split can go idle (spec §8).
    fn may_pause(&self) -> bool {
        false
    }

    /// The instant on the engine's clock at which the split will have
    /// rows, when it knows (a replay's next arrival).
    fn wake_at(&self) -> Option<i64> {
        None
    }

    /// Whether rows are on their way though none is there yet (a Kafka
    /// partition whose client is fetching): the run then waits a moment
    /// for them, not a whole step of its clock.
    fn rows_on_the_way(&self) -> bool {
        false
    }

    /// When the split's last row read arrived, when it knows (a replay:
    /// its arrival column); otherwise the clock's time when it was read.
    /// A split's idle timeout counts from it.
    fn last_arrival(&self) -> Option<i64> {
        None
    }

    /// What was read, skipped and repaired so far.
    fn stats(&self) -> ReadStats;

    /// How many records the input holds past what the split has read,
    /// as far as the reader knows without asking (a bounded Kafka read's
    /// records to its end); None when it does not know. Asked for the
    /// progress line, often.
    fn lag(&self) -> Option<u64> {
        None
    }

    /// Where the split stands, for the run summary, when there is more to
    /// say than its rows (a Kafka partition's offset and lag). Asked once,
    /// at the end of a run: it may ask the input.
    fn report(&self) -> Option<String> {
        None
    }

    /// Keeps each malformed record's text, for a bad-record sink.
    /// Generated rows are never malformed.
    fn keep_raw(&mut self) {}

    /// The session's time zone, for `TIMESTAMP_LTZ` text.
    fn set_time_zone(&mut self, _tz: chrono_tz::Tz) {}

    /// Which of the table's physical columns no step of the query reads
    /// (`unread[i]` for column `i`; empty: every column is read): a
    /// reader that decodes text may leave them undecoded, with zeros of
    /// their type in the batch. Set before the first batch; set again
    /// before it, it replaces what was said.
    fn leave_unread(&mut self, _unread: &[bool]) {}

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

    /// The checkpoint holding [`SplitReader::position`] is durable (no
    /// row was read since): tell the input, for those who watch it.
    fn checkpoint_taken(&mut self) -> Result<()> {
        Ok(())
    }

    /// Goes on from `at`, a position [`SplitReader::position`] gave in an
    /// earlier run: checks that the input is still the one read then.
    fn resume(&mut self, _at: &ReadPosition) -> Result<()> {
        Err(tidemark_common::Error::Internal(
            "resuming a split that records no position".into(),
        ))
    }
}

/// Finds the splits that appear while a table is read: files new in a
/// followed folder, as Flink's filesystem source discovers them.
pub trait SplitDiscovery: Send {
    /// The splits not found before, in the order they are to be numbered.
    fn new_splits(&mut self) -> Result<Vec<Split>>;

    /// How often to look, on the engine's clock.
    fn interval_ms(&self) -> i64;

    /// Whether splits found beside those a checkpoint read join a resumed
    /// run (a folder's new files) or make the resume an error (a topic's
    /// new partitions, which tidemark does not discover).
    fn joins_on_resume(&self) -> bool {
        true
    }
}
