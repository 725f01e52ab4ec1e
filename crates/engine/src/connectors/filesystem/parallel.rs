//! Reading one CSV or JSON-lines file on several threads, with exactly the
//! rows, line numbers, skipped rows and errors of reading it on one.
//!
//! The file is cut into pieces of about [`ParallelRead::piece_bytes`] that
//! end at a line end. Readers take piece numbers in turn; each finds its
//! piece's bounds itself, reading the file where the piece lies into a
//! buffer of its own (placed so that the kernel's copy stays on its fast
//! path: [`copy_friendly_start`]), and turns it into batches, numbering
//! its lines from one. Piece k runs from the line start after byte
//! k·size − 1 to the line start after byte (k+1)·size − 1, so readers
//! agree on every cut without telling each other. Of N readers, N − 1 are threads of their own; the
//! last is the query's thread, which reads a piece whenever the one it
//! waits for is not ready rather than sleep (left to the scheduler, a
//! sleeping query's core stayed idle while two parser threads took turns
//! on the other). The query takes the pieces back in file order, shifting
//! line numbers by the lines before. Three things make the result the
//! sequential one:
//!
//! - A cut is at a line end, which starts a record unless it is inside a
//!   quoted field. The piece before such a cut is the one that knows: read
//!   from a record start (the file's start, or a good cut) it ends inside
//!   the quote. Then the two pieces are read again as one, here.
//! - An error message names its line, which a reader cannot know:
//!   a piece that fails is read again here, numbered from its true line, so
//!   the rows before the error and the error itself are the sequential ones.
//! - Batches break at piece ends as well as every `batch_size` rows; the
//!   engine's results never depend on where batches break.

use crate::formats::csv::{CsvOptions, CsvSource};
use crate::formats::json::{JsonOptions, JsonSource};
use crate::runtime::read::{ReadBatch, ReadStats};
use std::collections::BTreeMap;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};
use std::sync::Arc;
use tidemark_common::{Error, Result, SqlType};

/// How a file is read in parallel: by how many threads, in pieces of
/// about how many bytes (by default enough rows for several batches, so
/// the threads' hand-offs cost little next to the parsing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParallelRead {
    pub threads: usize,
    pub piece_bytes: usize,
}

/// The file's format, with its options.
#[derive(Clone)]
pub enum PieceFormat {
    Csv(CsvOptions),
    Json(JsonOptions),
}

/// How every piece is read.
#[derive(Clone)]
struct ReadSpec {
    format: PieceFormat,
    display_path: String,
    columns: Vec<(String, SqlType)>,
    /// The columns left undecoded (see `SplitReader::leave_unread`).
    unread: Vec<bool>,
    batch_size: usize,
    keep_raw: bool,
    tz: chrono_tz::Tz,
}

/// A reader of one piece, in either format.
enum PieceReader {
    Csv(Box<CsvSource>),
    Json(Box<JsonSource>),
}

impl PieceReader {
    /// Reads `bytes[start..]`, numbering its lines from `start_line`.
    fn open(
        spec: &ReadSpec,
        bytes: Arc<Vec<u8>>,
        start: usize,
        first: bool,
        start_line: u64,
    ) -> Result<Self> {
        let path = spec.display_path.clone();
        let columns = spec.columns.clone();
        let mut reader = match &spec.format {
            PieceFormat::Csv(options) => {
                let mut r = CsvSource::from_bytes(
                    bytes,
                    start,
                    path,
                    columns,
                    options.clone(),
                    spec.batch_size,
                )?;
                if !first {
                    r.continue_after_header();
                }
                r.start_at_line(start_line);
                PieceReader::Csv(Box::new(r))
            }
            PieceFormat::Json(options) => {
                let mut input = Cursor::new(SharedBytes(bytes));
                input.set_position(start as u64);
                let input: Box<dyn Read + Send> = Box::new(input);
                let mut r = JsonSource::from_reader(
                    input,
                    path,
                    columns,
                    options.clone(),
                    spec.batch_size,
                )?;
                r.start_at_line(start_line);
                PieceReader::Json(Box::new(r))
            }
        };
        if spec.keep_raw {
            match &mut reader {
                PieceReader::Csv(r) => r.keep_raw(),
                PieceReader::Json(r) => r.keep_raw(),
            }
        }
        match &mut reader {
            PieceReader::Csv(r) => {
                r.set_time_zone(spec.tz);
                r.leave_unread(&spec.unread);
            }
            PieceReader::Json(r) => {
                r.set_time_zone(spec.tz);
                r.leave_unread(&spec.unread);
            }
        }
        Ok(reader)
    }

    fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        match self {
            PieceReader::Csv(r) => r.next_batch(),
            PieceReader::Json(r) => r.next_batch(),
        }
    }

    fn stats(&self) -> ReadStats {
        match self {
            PieceReader::Csv(r) => r.stats(),
            PieceReader::Json(r) => r.stats(),
        }
    }

    fn lines_read(&self) -> u64 {
        match self {
            PieceReader::Csv(r) => r.lines_read(),
            PieceReader::Json(r) => r.lines_read(),
        }
    }

    fn ended_in_open_quote(&self) -> bool {
        match self {
            PieceReader::Csv(r) => r.ended_in_open_quote(),
            PieceReader::Json(_) => false,
        }
    }
}

/// A piece's bytes, shared between the thread reading it and the query
/// (which may have to read it again).
struct SharedBytes(Arc<Vec<u8>>);

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// A piece of the file: `bytes[start..]` (before `start`, the end of the
/// line the piece before ends with).
struct Piece {
    seq: u64,
    bytes: Arc<Vec<u8>>,
    start: usize,
    first: bool,
    last: bool,
}

impl Piece {
    fn text(&self) -> &[u8] {
        &self.bytes[self.start..]
    }
}

/// A piece as a reader read it.
struct ReadPiece {
    piece: Piece,
    batches: Vec<ReadBatch>,
    stats: ReadStats,
    lines: u64,
    /// Reading it failed: it is read again in place.
    failed: bool,
    ended_in_open_quote: bool,
}

/// What a reader gives back: piece `seq` read, or why the file could not
/// be read there.
type ReadResult = (u64, std::result::Result<ReadPiece, Error>);

/// What the readers share: the file, and the next piece to take.
struct Pieces {
    path: PathBuf,
    size: u64,
    next: AtomicU64,
}

/// The threads at work.
struct Running {
    read: Receiver<ReadResult>,
    pieces: Arc<Pieces>,
    /// Reads pieces here while the one the query waits for is not ready;
    /// None once a piece it read was the last or past the end.
    helper: Option<PieceWorker>,
    /// Pieces read ahead of the one the query waits for.
    ahead: BTreeMap<u64, std::result::Result<ReadPiece, Error>>,
    next_seq: u64,
}

/// A file read on several threads; see the module header.
pub struct ParallelFile {
    path: PathBuf,
    split: ParallelRead,
    spec: ReadSpec,
    running: Option<Running>,
    /// Batches of the current piece still to hand out.
    ready: std::collections::VecDeque<ReadBatch>,
    /// Lines of the pieces handed out so far.
    lines_before: u64,
    stats: ReadStats,
    /// A piece read again here stops at its error; the error comes after
    /// its rows.
    pending_error: Option<Error>,
    done: bool,
}

impl ParallelFile {
    /// Reads `path` (named `display_path` in errors) as `split` says; the
    /// threads start at the first batch.
    pub fn new(
        path: PathBuf,
        display_path: String,
        columns: Vec<(String, SqlType)>,
        format: PieceFormat,
        batch_size: usize,
        split: ParallelRead,
    ) -> Result<Self> {
        let spec = ReadSpec {
            format,
            display_path,
            columns,
            unread: Vec::new(),
            batch_size: batch_size.max(1),
            keep_raw: false,
            tz: chrono_tz::UTC,
        };
        // Columns the format cannot read fail here, before any thread.
        PieceReader::open(&spec, Arc::new(Vec::new()), 0, true, 1)?;
        Ok(ParallelFile {
            path,
            split: ParallelRead {
                threads: split.threads.max(1),
                piece_bytes: split.piece_bytes.max(1),
            },
            spec,
            running: None,
            ready: Default::default(),
            lines_before: 0,
            stats: ReadStats::default(),
            pending_error: None,
            done: false,
        })
    }

    pub fn keep_raw(&mut self) {
        self.spec.keep_raw = true;
    }

    pub fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
        self.spec.tz = tz;
    }

    /// Before the first batch, which starts the threads.
    pub fn leave_unread(&mut self, unread: &[bool]) {
        self.spec.unread = unread.to_vec();
    }

    pub fn stats(&self) -> ReadStats {
        self.stats.clone()
    }

    /// The next batch in file order, or None at the end.
    pub fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        loop {
            if let Some(batch) = self.ready.pop_front() {
                return Ok(Some(batch));
            }
            if let Some(e) = self.pending_error.take() {
                self.done = true;
                return Err(e);
            }
            if self.done {
                return Ok(None);
            }
            if self.running.is_none() {
                self.running = Some(self.start()?);
            }
            match self.next_piece()? {
                Some(piece) => self.take(piece)?,
                None => self.done = true,
            }
        }
    }

    /// Starts the parser threads.
    fn start(&self) -> Result<Running> {
        let file = std::fs::File::open(&self.path)
            .map_err(|e| Error::io(format!("cannot open '{}'", self.spec.display_path), e))?;
        // A piece waiting per thread keeps the threads busy without holding
        // much of the file in memory.
        let threads = self.split.threads;
        let (read_send, read) = sync_channel(threads);
        let pieces = Arc::new(Pieces {
            path: self.path.clone(),
            size: self.split.piece_bytes as u64,
            next: AtomicU64::new(0),
        });
        // The query's own thread is one of the readers.
        for _ in 1..threads {
            let (pieces, read_send, spec) =
                (Arc::clone(&pieces), read_send.clone(), self.spec.clone());
            std::thread::spawn(move || parse_pieces(&pieces, &read_send, &spec));
        }
        Ok(Running {
            read,
            pieces,
            helper: Some(PieceWorker {
                file: Some(file),
                buffers: Vec::new(),
            }),
            ahead: BTreeMap::new(),
            next_seq: 0,
        })
    }

    /// The next piece in file order, waiting for it; None after the last.
    fn next_piece(&mut self) -> Result<Option<ReadPiece>> {
        let Some(running) = self.running.as_mut() else {
            return Ok(None);
        };
        loop {
            if let Some(piece) = running.ahead.remove(&running.next_seq) {
                running.next_seq += 1;
                return piece.map(Some);
            }
            // Not ready: take what the threads have sent.
            let threads_running = match running.read.try_recv() {
                Ok((seq, piece)) => {
                    running.ahead.insert(seq, piece);
                    continue;
                }
                Err(TryRecvError::Empty) => true,
                Err(TryRecvError::Disconnected) => false,
            };
            // Nothing sent: read a piece here rather than wait, unless
            // many wait to be taken already (the one awaited is slow).
            let room = !threads_running || running.ahead.len() <= 2 * self.split.threads;
            if let Some(helper) = running.helper.as_mut().filter(|_| room) {
                match helper.read_next(&running.pieces, &self.spec) {
                    Some(((seq, piece), last)) => {
                        running.ahead.insert(seq, piece);
                        if last {
                            running.helper = None;
                        }
                    }
                    None => running.helper = None,
                }
                continue;
            }
            if !threads_running {
                // Every thread has ended, and so has reading here.
                return Ok(None);
            }
            if let Ok((seq, piece)) = running.read.recv() {
                running.ahead.insert(seq, piece);
            }
        }
    }

    /// Hands out `piece`'s batches with their lines shifted, or reads it
    /// again here when the threads' reading cannot stand.
    fn take(&mut self, mut piece: ReadPiece) -> Result<()> {
        // Cut inside a quoted field: join the next piece and read both as
        // one (again, if the quote goes on past that one too).
        while piece.ended_in_open_quote && !piece.piece.last {
            let Some(next) = self.next_piece()? else {
                break;
            };
            let (text, next_text) = (piece.piece.text(), next.piece.text());
            let mut bytes = Vec::with_capacity(text.len() + next_text.len());
            bytes.extend_from_slice(text);
            bytes.extend_from_slice(next_text);
            let joined = Piece {
                seq: piece.piece.seq,
                bytes: Arc::new(bytes),
                start: 0,
                first: piece.piece.first,
                last: next.piece.last,
            };
            piece = read_piece(&self.spec, joined, 1);
        }
        if piece.failed {
            // Again, with the true line numbers, up to the error.
            let mut reader = PieceReader::open(
                &self.spec,
                piece.piece.bytes,
                piece.piece.start,
                piece.piece.first,
                self.lines_before + 1,
            )?;
            loop {
                match reader.next_batch() {
                    Ok(Some(batch)) => self.ready.push_back(batch),
                    Ok(None) => break,
                    Err(e) => {
                        self.pending_error = Some(e);
                        break;
                    }
                }
            }
            add_stats(&mut self.stats, &reader.stats());
            return Ok(());
        }
        let shift = self.lines_before;
        for mut batch in piece.batches {
            if shift > 0 {
                batch.lines.iter_mut().for_each(|l| *l += shift);
                batch.skipped.iter_mut().for_each(|b| b.line += shift);
            }
            self.ready.push_back(batch);
        }
        self.lines_before += piece.lines;
        add_stats(&mut self.stats, &piece.stats);
        Ok(())
    }
}

fn add_stats(into: &mut ReadStats, from: &ReadStats) {
    into.rows_read += from.rows_read;
    into.fields_nulled += from.fields_nulled;
    into.rows_padded += from.rows_padded;
    into.rows_skipped += from.rows_skipped;
}

/// How far past a piece's nominal end its first read goes, to find the
/// line end that closes it without a second read.
const LOOK_PAST: u64 = 4096;

/// How many buffers a reader of pieces keeps for reuse: enough for the
/// pieces it has read that wait in the channel or for the query.
const KEPT_BUFFERS: usize = 8;

/// What reads pieces, on a parser thread or the query's own: the file, and
/// buffers that pieces' bytes are read into again once the query has let
/// them go.
#[derive(Default)]
struct PieceWorker {
    file: Option<std::fs::File>,
    buffers: Vec<Arc<Vec<u8>>>,
}

impl PieceWorker {
    /// Takes the next piece number and reads that piece: its number, the
    /// piece or why it could not be read, and whether no piece comes after
    /// it (the file's last, or an error). None when the piece is past the
    /// file's end.
    fn read_next(&mut self, pieces: &Pieces, spec: &ReadSpec) -> Option<(ReadResult, bool)> {
        let seq = pieces.next.fetch_add(1, Ordering::Relaxed);
        let mut slot = self
            .buffers
            .iter_mut()
            .position(|b| Arc::get_mut(b).is_some());
        if slot.is_none() && self.buffers.len() < KEPT_BUFFERS {
            self.buffers.push(Arc::default());
            slot = Some(self.buffers.len() - 1);
        }
        // All kept buffers in use: a buffer for this piece alone.
        let mut unkept;
        let buffer = match slot {
            Some(i) => &mut self.buffers[i],
            None => {
                unkept = Arc::default();
                &mut unkept
            }
        };
        let file = match &mut self.file {
            Some(file) => Ok(file),
            None => std::fs::File::open(&pieces.path).map(|opened| self.file.insert(opened)),
        };
        let cut = file.and_then(|file| cut(file, seq, pieces.size, Arc::make_mut(buffer)));
        match cut {
            Ok(Some((start, last))) => {
                let piece = Piece {
                    seq,
                    bytes: Arc::clone(buffer),
                    start,
                    first: seq == 0,
                    last,
                };
                Some(((seq, Ok(read_piece(spec, piece, 1))), last))
            }
            // Past the end: the last piece went out before.
            Ok(None) => None,
            Err(error) => Some((
                (
                    seq,
                    Err(Error::io(
                        format!("cannot read '{}'", spec.display_path),
                        error,
                    )),
                ),
                true,
            )),
        }
    }
}

/// A parser thread: reads pieces and sends them until one is the last or
/// past the end of the file.
fn parse_pieces(pieces: &Pieces, read: &SyncSender<ReadResult>, spec: &ReadSpec) {
    let mut worker = PieceWorker::default();
    while let Some((result, last)) = worker.read_next(pieces, spec) {
        if read.send(result).is_err() || last {
            return;
        }
    }
}

/// Reads piece `seq` of a file cut every `size` bytes into `bytes`: from
/// the byte before its nominal start, seq·size − 1, which ends the line
/// the piece before ends with, to the first line end at or after its
/// nominal end, (seq+1)·size − 1, or the end of the file. The file's bytes
/// start a few bytes into `bytes` (see [`copy_friendly_start`]). Returns
/// where the piece starts in `bytes` and whether it is the file's last;
/// None when no line starts in it (the piece before was the last).
fn cut(
    file: &mut std::fs::File,
    seq: u64,
    size: u64,
    bytes: &mut Vec<u8>,
) -> std::io::Result<Option<(usize, bool)>> {
    bytes.clear();
    let from = seq.saturating_mul(size).saturating_sub(1);
    let nominal_end = seq.saturating_add(1).saturating_mul(size) - 1;
    if i64::try_from(from).is_err() {
        // Past where any file ends (a seek there fails): pieces set far
        // larger than the file.
        return Ok(None);
    }
    file.seek(SeekFrom::Start(from))?;
    let mut want = (nominal_end - from).saturating_add(LOOK_PAST);
    // Room for the whole first read before the buffer's address is taken:
    // a buffer grown by the read would move. (Not for a piece size set
    // far past any file: that room is taken as the bytes come.)
    let first_read = usize::try_from(want.min(MOST_RESERVED)).unwrap_or(0);
    bytes.reserve(first_read + COPY_ALIGN);
    let lead = copy_friendly_start(bytes.as_ptr() as usize, from);
    bytes.resize(lead, 0);
    // No line end before `searched` closes the piece.
    let mut searched = usize::try_from(nominal_end - from)
        .unwrap_or(usize::MAX)
        .saturating_add(lead);
    let (end, last) = loop {
        // Into the buffer's spare room: nothing is zeroed first.
        let n = file.take(want).read_to_end(bytes)?;
        let at_eof = (n as u64) < want;
        if let Some(at) = bytes
            .get(searched..)
            .and_then(|rest| memchr::memchr(b'\n', rest))
        {
            let end = searched + at + 1;
            break (end, at_eof && end == bytes.len());
        }
        if at_eof {
            break (bytes.len(), true);
        }
        searched = searched.max(bytes.len());
        want = (bytes.len() - lead) as u64;
    };
    bytes.truncate(end);
    if seq == 0 {
        return Ok(Some((lead, last)));
    }
    Ok(memchr::memchr(b'\n', &bytes[lead..]).map(|at| (lead + at + 1, last)))
}

/// The kernel copies a file into memory slowly (five times slower,
/// measured on AMD EPYC) when the destination lies 1 to 31 bytes further
/// into its page than the source: its `rep movsb` falls off its fast path
/// for such short distances. With the default piece size (a multiple of
/// a page), every piece after the first is read from one byte before a
/// page boundary in the file, and its buffer starts at or just past one:
/// the two met at a distance of 1 to 31. A piece's bytes are
/// therefore read to this offset in its buffer, where they lie as far
/// into a line of [`COPY_ALIGN`] bytes as they lie in the file.
fn copy_friendly_start(buffer_at: usize, file_at: u64) -> usize {
    (file_at as usize).wrapping_sub(buffer_at) % COPY_ALIGN
}

/// See [`copy_friendly_start`]: a distance that is a multiple of this
/// never falls between 1 and 31.
const COPY_ALIGN: usize = 64;

/// The most room a piece's buffer is given before its first read.
const MOST_RESERVED: u64 = 64 << 20;

/// Reads one piece to its end, numbering its lines from `start_line`.
fn read_piece(spec: &ReadSpec, piece: Piece, start_line: u64) -> ReadPiece {
    let mut batches = Vec::new();
    let mut failed = false;
    let reader = PieceReader::open(
        spec,
        Arc::clone(&piece.bytes),
        piece.start,
        piece.first,
        start_line,
    );
    let mut reader = match reader {
        Ok(r) => r,
        Err(_) => {
            return ReadPiece {
                piece,
                batches,
                stats: ReadStats::default(),
                lines: 0,
                failed: true,
                ended_in_open_quote: false,
            }
        }
    };
    loop {
        match reader.next_batch() {
            Ok(Some(batch)) => batches.push(batch),
            Ok(None) => break,
            Err(_) => {
                failed = true;
                break;
            }
        }
    }
    ReadPiece {
        stats: reader.stats(),
        lines: reader.lines_read() + 1 - start_line,
        ended_in_open_quote: reader.ended_in_open_quote(),
        failed,
        batches,
        piece,
    }
}

impl crate::connectors::split::SplitReader for ParallelFile {
    fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        ParallelFile::next_batch(self)
    }

    fn stats(&self) -> ReadStats {
        ParallelFile::stats(self)
    }

    fn keep_raw(&mut self) {
        ParallelFile::keep_raw(self);
    }

    fn set_time_zone(&mut self, tz: chrono_tz::Tz) {
        ParallelFile::set_time_zone(self, tz);
    }

    fn leave_unread(&mut self, unread: &[bool]) {
        ParallelFile::leave_unread(self, unread);
    }

    fn unpositioned(&self) -> Option<&'static str> {
        Some("a file on several threads")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::util::display::{ArrayFormatter, FormatOptions};

    use crate::ops::testing::Rng;

    /// Everything a reader hands out, as text: rows and skipped rows in
    /// line order (how they fall into batches does not matter), raw text,
    /// the counts, and the error it ends with.
    fn transcript(
        mut next: impl FnMut() -> Result<Option<ReadBatch>>,
        stats: impl Fn() -> ReadStats,
    ) -> String {
        let mut entries: Vec<(u64, String)> = Vec::new();
        let mut end = String::new();
        let options = FormatOptions::default().with_null("NULL");
        loop {
            match next() {
                Ok(Some(batch)) => {
                    let columns: Vec<_> = batch
                        .batch
                        .columns()
                        .iter()
                        .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).unwrap())
                        .collect();
                    for (r, line) in batch.lines.iter().enumerate() {
                        let cells: Vec<String> =
                            columns.iter().map(|c| c.value(r).to_string()).collect();
                        let mut text = cells.join("|");
                        if let Some(raw) = batch.raw.get(r) {
                            text += &format!(" raw={raw:?}");
                        }
                        entries.push((*line, text));
                    }
                    for bad in &batch.skipped {
                        entries.push((bad.line, format!("skipped {:?} {}", bad.raw, bad.error)));
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    end = format!("error: {e}\n");
                    break;
                }
            }
        }
        entries.sort_by_key(|(line, _)| *line);
        let mut out: String = entries
            .iter()
            .map(|(line, text)| format!("{line}: {text}\n"))
            .collect();
        out += &end;
        let s = stats();
        out += &format!(
            "read {} nulled {} padded {} skipped {}\n",
            s.rows_read, s.fields_nulled, s.rows_padded, s.rows_skipped
        );
        out
    }

    fn columns() -> Vec<(String, SqlType)> {
        vec![
            ("a".into(), SqlType::Int),
            ("b".into(), SqlType::String),
            ("c".into(), SqlType::Decimal(6, 2)),
        ]
    }

    fn sequential(bytes: &[u8], format: &PieceFormat, keep_raw: bool) -> String {
        let input = Box::new(Cursor::new(bytes.to_vec()));
        match format {
            PieceFormat::Csv(o) => {
                let mut r =
                    CsvSource::from_reader(input, "t.csv".into(), columns(), o.clone(), 4).unwrap();
                if keep_raw {
                    r.keep_raw();
                }
                let r = std::cell::RefCell::new(r);
                transcript(|| r.borrow_mut().next_batch(), || r.borrow().stats())
            }
            PieceFormat::Json(o) => {
                let mut r = JsonSource::from_reader(input, "t.csv".into(), columns(), o.clone(), 4)
                    .unwrap();
                if keep_raw {
                    r.keep_raw();
                }
                let r = std::cell::RefCell::new(r);
                transcript(|| r.borrow_mut().next_batch(), || r.borrow().stats())
            }
        }
    }

    fn parallel(
        path: &std::path::Path,
        format: &PieceFormat,
        keep_raw: bool,
        split: ParallelRead,
    ) -> String {
        let mut r = ParallelFile::new(
            path.to_path_buf(),
            "t.csv".into(),
            columns(),
            format.clone(),
            4,
            split,
        )
        .unwrap();
        if keep_raw {
            r.keep_raw();
        }
        let r = std::cell::RefCell::new(r);
        transcript(|| r.borrow_mut().next_batch(), || r.borrow().stats())
    }

    fn random_csv(rng: &mut Rng) -> Vec<u8> {
        let mut text = String::new();
        for _ in 0..(rng.next() % 30) {
            let a = rng.pick(&["1", "22", "-3", "x", "", "4"]);
            let b = rng.pick(&[
                "plain",
                "\"quoted, comma\"",
                "\"two\nlines\"",
                "\"a \"\"q\"\" b\"",
                "\"\r\n\"",
                "",
                "\"open",
            ]);
            let c = rng.pick(&["1.50", "2", "abc", "", "3.141"]);
            let end = rng.pick(&["\n", "\r\n", "\n", ",extra\n", "\r"]);
            let row = match rng.next() % 10 {
                0 => String::new(),
                1 => a.to_string(),
                _ => format!("{a},{b},{c}"),
            };
            text += &row;
            text += end;
        }
        if rng.next() % 3 == 0 {
            text += "9,last,1.00";
        }
        text.into_bytes()
    }

    fn random_json(rng: &mut Rng) -> Vec<u8> {
        let mut text = String::new();
        for _ in 0..(rng.next() % 30) {
            let line = rng.pick(&[
                r#"{"a": 1, "b": "x", "c": 1.5}"#,
                r#"{"a": "no", "b": "y"}"#,
                r#"{"b": "line\nbreak", "c": 2}"#,
                r#"{"a": 3"#,
                "",
                "   ",
                r#"{"a": 4, "b": null, "c": "7.25"}"#,
            ]);
            text += line;
            text += rng.pick(&["\n", "\r\n"]);
        }
        text.into_bytes()
    }

    #[test]
    fn a_piece_lies_in_its_buffer_as_far_into_a_line_as_in_the_file() {
        for buffer_at in [0usize, 1, 16, 63, 64, 4096, 4096 + 17, usize::MAX - 5] {
            for file_at in [0u64, 1, 31, 4095, 1 << 20, (1 << 20) - 1, u64::MAX] {
                let lead = copy_friendly_start(buffer_at, file_at);
                assert!(lead < COPY_ALIGN, "{buffer_at} {file_at}");
                let distance = buffer_at.wrapping_add(lead).wrapping_sub(file_at as usize);
                assert_eq!(distance % COPY_ALIGN, 0, "{buffer_at} {file_at}");
            }
        }
    }

    #[test]
    fn pieces_read_on_threads_give_what_one_reader_gives() {
        let dir = std::env::temp_dir().join(format!("tidemark-parallel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("input");
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..300 {
            let json = case % 4 == 3;
            let (bytes, format) = if json {
                let options = JsonOptions {
                    ignore_parse_errors: rng.next() % 2 == 0,
                    ..JsonOptions::default()
                };
                (random_json(&mut rng), PieceFormat::Json(options))
            } else {
                let options = CsvOptions {
                    ignore_parse_errors: rng.next() % 2 == 0,
                    header: rng.next() % 4 == 0,
                    ..CsvOptions::default()
                };
                (random_csv(&mut rng), PieceFormat::Csv(options))
            };
            let keep_raw = rng.next() % 2 == 0;
            std::fs::write(&path, &bytes).unwrap();
            let expected = sequential(&bytes, &format, keep_raw);
            for piece_bytes in [1, 5, 13, 64, 1 << 20, usize::MAX] {
                let threads = 1 + (rng.next() % 3) as usize;
                let got = parallel(
                    &path,
                    &format,
                    keep_raw,
                    ParallelRead {
                        threads,
                        piece_bytes,
                    },
                );
                assert_eq!(
                    got,
                    expected,
                    "case {case}, pieces of {piece_bytes} bytes, {threads} threads, input {:?}",
                    String::from_utf8_lossy(&bytes)
                );
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_file_is_an_error_at_the_first_batch() {
        let mut r = ParallelFile::new(
            "/nonexistent/tidemark/x.csv".into(),
            "data/x.csv".into(),
            columns(),
            PieceFormat::Csv(CsvOptions::default()),
            4,
            ParallelRead {
                threads: 2,
                piece_bytes: tidemark_common::DEFAULT_PIECE_BYTES,
            },
        )
        .unwrap();
        let err = r.next_batch().unwrap_err().to_string();
        assert!(err.contains("cannot open 'data/x.csv'"), "{err}");
    }
}
