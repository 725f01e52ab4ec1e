//! What a reader hands its source: batches of a table's physical rows
//! with where each came from ([`ReadBatch`]), the counts of reading
//! ([`ReadStats`]), and where a reader stands for a checkpoint
//! ([`ReadPosition`]). Formats make them, connectors' split readers pass
//! them on, and the source turns them into a stream.

use crate::runtime::snapshot::{Persist, StateReader, StateWriter};
use crate::runtime::stream::BadRow;
use arrow::array::RecordBatch;
use tidemark_common::Result;

/// Where a file source stands between two batches, for a checkpoint: the
/// byte and line the next record starts at, and the counts so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadPosition {
    pub offset: u64,
    /// Line of the byte at `offset`, 1-based.
    pub line: u64,
    pub stats: ReadStats,
    /// CRC-32 of the bytes before `offset`: a resumed run checks that the
    /// file it reads on from is the one the checkpoint read.
    pub prefix_crc: u32,
    /// Where a bounded read of an input that grows ends (a Kafka
    /// partition's end offset, fixed when the job started): a resumed run
    /// ends there too.
    pub end: Option<u64>,
}

impl Persist for ReadPosition {
    fn save(&self, w: &mut StateWriter) {
        w.put(&self.offset);
        w.put(&self.line);
        w.put(&self.prefix_crc);
        w.put(&self.end);
        for n in [
            self.stats.rows_read,
            self.stats.fields_nulled,
            self.stats.rows_padded,
            self.stats.rows_skipped,
        ] {
            w.u64(n);
        }
    }

    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok(ReadPosition {
            offset: r.get()?,
            line: r.get()?,
            prefix_crc: r.get()?,
            end: r.get()?,
            stats: ReadStats {
                rows_read: r.get()?,
                fields_nulled: r.get()?,
                rows_padded: r.get()?,
                rows_skipped: r.get()?,
            },
        })
    }
}

/// Rows read, and the repairs that `csv.ignore-parse-errors` made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Rows put into batches.
    pub rows_read: u64,
    /// Unparsable fields turned into NULL under ignore-parse-errors.
    pub fields_nulled: u64,
    /// Short rows padded with NULLs.
    pub rows_padded: u64,
    /// Rows dropped: too many fields, an unterminated quote or invalid UTF-8
    /// under ignore-parse-errors.
    pub rows_skipped: u64,
}

impl ReadStats {
    /// The counts of two readings together (a table's splits).
    pub fn plus(&self, other: &ReadStats) -> ReadStats {
        ReadStats {
            rows_read: self.rows_read + other.rows_read,
            fields_nulled: self.fields_nulled + other.fields_nulled,
            rows_padded: self.rows_padded + other.rows_padded,
            rows_skipped: self.rows_skipped + other.rows_skipped,
        }
    }
}

#[derive(Clone, Debug)]
/// A batch of a table's physical columns as a reader made it, with where
/// each row came from.
pub struct ReadBatch {
    pub batch: RecordBatch,
    /// 1-based line number in the file of each row (its record number
    /// for other inputs)
    pub lines: Vec<u64>,
    /// Each row's text, when kept ([`crate::connectors::split::SplitReader::keep_raw`]).
    pub raw: Vec<String>,
    /// Rows skipped (`ignore-parse-errors`) among these, when raw text is
    /// kept.
    pub skipped: Vec<BadRow>,
}
