//! Standard input as a source's byte stream that never blocks the query.
//!
//! A read on a pipe waits until the writer sends more or closes it; a query
//! blocked there could not be stopped. A thread does the waiting instead
//! and hands chunks over a channel; a read that finds nothing within a
//! short wait fails with `WouldBlock`, which the readers take as "no more
//! for now" (rows so far go out, the query can check for a stop), and end
//! of input is a read of zero bytes, as for a file.

use super::split::{Split, SplitReader};
use super::{in_table, Connector, OpenedSource, SourceSpec};
use crate::formats::{open_decoder, Ending, FormatReader};
use crate::runtime::read::{ReadBatch, ReadStats};
use std::io::{ErrorKind, Read};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::time::Duration;
use tidemark_common::catalog::TableDef;
use tidemark_common::connector::{Capabilities, ConnectorDecl, FormatUse, Origin};
use tidemark_common::Result;

/// How long a read waits for the writer before reporting `WouldBlock`.
const WAIT: Duration = Duration::from_millis(200);
/// Bytes per chunk handed over; a few chunks are buffered ahead.
const CHUNK: usize = 64 * 1024;

/// Reads another reader (standard input) on its own thread.
pub struct PipeReader {
    chunks: Receiver<std::io::Result<Vec<u8>>>,
    current: Vec<u8>,
    pos: usize,
    ended: bool,
}

impl PipeReader {
    /// Starts the reading thread over `input`.
    pub fn spawn(mut input: impl Read + Send + 'static) -> Self {
        let (send, chunks) = sync_channel(4);
        std::thread::spawn(move || loop {
            let mut chunk = vec![0; CHUNK];
            match input.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    chunk.truncate(n);
                    if send.send(Ok(chunk)).is_err() {
                        break;
                    }
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = send.send(Err(e));
                    break;
                }
            }
        });
        PipeReader {
            chunks,
            current: Vec::new(),
            pos: 0,
            ended: false,
        }
    }
}

impl Read for PipeReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.current.len() {
            if self.ended {
                return Ok(0);
            }
            match self.chunks.recv_timeout(WAIT) {
                Ok(chunk) => {
                    self.current = chunk?;
                    self.pos = 0;
                }
                Err(RecvTimeoutError::Timeout) => return Err(ErrorKind::WouldBlock.into()),
                Err(RecvTimeoutError::Disconnected) => {
                    self.ended = true;
                    return Ok(0);
                }
            }
        }
        let n = out.len().min(self.current.len() - self.pos);
        out[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The `stdin` connector: rows piped in, in the csv or json format, read
/// until the pipe closes.
pub struct Stdin;

static DECLARATION: ConnectorDecl = ConnectorDecl {
    name: "stdin",
    origin: Origin::Tidemark,
    doc: "rows piped in on standard input, read until the pipe closes",
    format: FormatUse::Required,
    formats: &["csv", "json"],
    options: &[super::IDLE_OPTION],
    capabilities: Capabilities {
        read: true,
        unbounded: true,
        ..Capabilities::NONE
    },
    metadata: &[],
    example: "WITH ('connector' = 'stdin', 'format' = 'csv')",
    check: None,
};

impl Connector for Stdin {
    fn declaration(&self) -> &'static ConnectorDecl {
        &DECLARATION
    }

    fn may_pause(&self, _table: &TableDef) -> bool {
        true
    }

    fn undecoded(&self, _table: &TableDef, unread: &[bool]) -> Vec<bool> {
        unread.to_vec()
    }

    fn open_source(&self, spec: SourceSpec<'_>) -> Result<OpenedSource> {
        let decoder = open_decoder(
            &spec.table.options,
            Box::new(PipeReader::spawn(std::io::stdin())),
            "stdin".into(),
            spec.columns,
            spec.batch_size,
            Ending::Stream,
        )
        .map_err(in_table(&spec.table.name))?;
        Ok(OpenedSource {
            splits: vec![Split::new("stdin", Box::new(StdinReader(decoder.reader)))],
            ignore_parse_errors: decoder.ignore_parse_errors,
            discovery: None,
        })
    }
}

/// Standard input, decoded by its format; it cannot be read again, so no
/// position is recorded in it.
struct StdinReader(Box<dyn FormatReader>);

impl SplitReader for StdinReader {
    fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        self.0.next_batch()
    }

    fn may_pause(&self) -> bool {
        true
    }

    fn stats(&self) -> ReadStats {
        self.0.stats()
    }

    fn keep_raw(&mut self) {
        self.0.keep_raw();
    }

    fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
        self.0.set_time_zone(tz);
    }

    fn leave_unread(&mut self, unread: &[bool]) {
        self.0.leave_unread(unread);
    }

    fn unpositioned(&self) -> Option<&'static str> {
        Some("standard input, which cannot be read again")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that sends one piece, pauses longer than a read waits,
    /// then sends the rest and closes.
    struct Slow {
        pieces: Vec<&'static [u8]>,
    }

    impl Read for Slow {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if self.pieces.is_empty() {
                return Ok(0);
            }
            let piece = self.pieces.remove(0);
            if piece.is_empty() {
                std::thread::sleep(WAIT * 3);
                return Err(ErrorKind::Interrupted.into());
            }
            out[..piece.len()].copy_from_slice(piece);
            Ok(piece.len())
        }
    }

    #[test]
    fn a_pause_is_would_block_and_the_end_is_zero() {
        let mut reader = PipeReader::spawn(Slow {
            pieces: vec![b"ab", b"", b"cd"],
        });
        let mut buf = [0u8; 8];
        assert_eq!(reader.read(&mut buf).unwrap(), 2);
        assert_eq!(&buf[..2], b"ab");
        let paused = reader.read(&mut buf).unwrap_err();
        assert_eq!(paused.kind(), ErrorKind::WouldBlock);
        let mut n = 0;
        while n == 0 {
            match reader.read(&mut buf) {
                Ok(got) => n = got,
                Err(e) => assert_eq!(e.kind(), ErrorKind::WouldBlock),
            }
        }
        assert_eq!(&buf[..n], b"cd");
        assert_eq!(reader.read(&mut buf).unwrap(), 0);
        assert_eq!(reader.read(&mut buf).unwrap(), 0);
    }
}
