//! Reading a file as one split: decoded by its format on one thread,
//! followed as it grows when the table says so, and resumed from a
//! checkpoint's position after checking that the bytes before it are the
//! ones read then.

use crate::connectors::split::SplitReader;
use crate::formats::FormatReader;
use crate::runtime::read::{ReadBatch, ReadPosition, ReadStats};
use std::io::{Read, Seek};
use std::path::PathBuf;
use tidemark_common::{Error, Result};

/// A file of a table, read by its format's reader.
pub struct FileReader {
    pub(super) decoder: Box<dyn FormatReader>,
    /// The file, and how messages name it (the path as written).
    pub(super) path: PathBuf,
    pub(super) display: String,
    pub(super) table: String,
    /// The file is followed as it grows.
    pub(super) follows: bool,
}

impl SplitReader for FileReader {
    fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        self.decoder.next_batch()
    }

    fn may_pause(&self) -> bool {
        self.follows
    }

    fn stats(&self) -> ReadStats {
        self.decoder.stats()
    }

    fn keep_raw(&mut self) {
        self.decoder.keep_raw();
    }

    fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
        self.decoder.set_time_zone(tz);
    }

    fn leave_unread(&mut self, unread: &[bool]) {
        self.decoder.leave_unread(unread);
    }

    fn unpositioned(&self) -> Option<&'static str> {
        None
    }

    fn track_position(&mut self) {
        self.decoder.hash_prefix();
    }

    fn between_batches(&self) -> bool {
        self.decoder.between_batches()
    }

    fn position(&self) -> Option<ReadPosition> {
        self.decoder.position()
    }

    fn resume(&mut self, at: &ReadPosition) -> Result<()> {
        if prefix_checksum(&self.path, at.offset, &self.display)? != at.prefix_crc {
            return Err(Error::Execution(format!(
                "table {}: '{}' is not the file the checkpoint read: its first {} bytes changed since",
                self.table, self.display, at.offset
            )));
        }
        let failed = |verb: &str, e| {
            Error::io(
                format!("table {}: cannot {verb} '{}'", self.table, self.display),
                e,
            )
        };
        let mut file = std::fs::File::open(&self.path).map_err(|e| failed("open", e))?;
        file.seek(std::io::SeekFrom::Start(at.offset))
            .map_err(|e| failed("read", e))?;
        self.decoder.resume(Box::new(file), at);
        Ok(())
    }
}

/// The CRC-32 of the first `offset` bytes of `path`.
fn prefix_checksum(path: &std::path::Path, offset: u64, display: &str) -> Result<u32> {
    let file =
        std::fs::File::open(path).map_err(|e| Error::io(format!("cannot read '{display}'"), e))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file.take(offset));
    let mut buf = vec![0; 1 << 20];
    let mut read = 0u64;
    loop {
        let n = reader
            .read(&mut buf)
            .map_err(|e| Error::io(format!("cannot read '{display}'"), e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        read += n as u64;
    }
    if read < offset {
        return Err(Error::Execution(format!(
            "'{display}' is shorter ({read} bytes) than where the checkpoint read it to (byte {offset}): it is not the file the checkpoint read"
        )));
    }
    Ok(hasher.finalize())
}
