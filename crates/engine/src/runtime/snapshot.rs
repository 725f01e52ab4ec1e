//! The byte encoding of operator, source and sink state in a checkpoint.
//!
//! State is written field by field in a fixed order (little-endian
//! integers, length-prefixed bytes) and read back in the same order by the
//! same build of the same plan; a checkpoint records which plan wrote it,
//! so the encoding needs no field names or versions of its own. A reader
//! that runs out of bytes, or finds a tag it does not know, fails with an
//! error rather than guessing.

use tidemark_common::{Error, Result};

/// Collects state bytes.
#[derive(Default)]
pub struct StateWriter {
    buf: Vec<u8>,
}

impl StateWriter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    pub fn put<T: Persist>(&mut self, value: &T) {
        value.save(self);
    }

    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub fn bytes(&mut self, v: &[u8]) {
        self.u64(v.len() as u64);
        self.buf.extend_from_slice(v);
    }

    /// A section of its own, length-prefixed: a reader can hand it to a
    /// part that reads it whole (an operator's state).
    pub fn section(&mut self, f: impl FnOnce(&mut StateWriter) -> Result<()>) -> Result<()> {
        let mut inner = StateWriter::new();
        f(&mut inner)?;
        self.bytes(&inner.buf);
        Ok(())
    }
}

/// Reads state bytes written by a [`StateWriter`].
pub struct StateReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> StateReader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        StateReader { buf, pos: 0 }
    }

    pub fn get<T: Persist>(&mut self) -> Result<T> {
        T::load(self)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|end| *end <= self.buf.len())
            .ok_or_else(|| corrupt("it ends early"))?;
        let bytes = &self.buf[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn u64(&mut self) -> Result<u64> {
        let bytes = self.take(8)?;
        Ok(u64::from_le_bytes(
            bytes.try_into().map_err(|_| corrupt("it ends early"))?,
        ))
    }

    /// A length written by [`StateWriter::bytes`] or a collection's count,
    /// checked against what is left so that a corrupt length cannot ask
    /// for an absurd allocation.
    pub fn count(&mut self) -> Result<usize> {
        let n = self.u64()?;
        usize::try_from(n)
            .ok()
            .filter(|n| *n <= self.buf.len() - self.pos)
            .ok_or_else(|| corrupt("a length is larger than the file"))
    }

    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.count()?;
        self.take(n)
    }

    /// A section written by [`StateWriter::section`].
    pub fn section(&mut self) -> Result<StateReader<'a>> {
        Ok(StateReader::new(self.bytes()?))
    }

    /// Fails unless everything was read: a plan that reads less than was
    /// written is not the plan that wrote it.
    pub fn finish(&self) -> Result<()> {
        if self.pos == self.buf.len() {
            Ok(())
        } else {
            Err(corrupt("it holds more state than this query keeps"))
        }
    }
}

/// Writes a batch (Arrow's IPC stream format: schema, then data).
pub fn put_batch(w: &mut StateWriter, batch: &arrow::array::RecordBatch) -> Result<()> {
    let mut bytes = Vec::new();
    let mut writer = arrow_ipc::writer::StreamWriter::try_new(&mut bytes, &batch.schema())?;
    writer.write(batch)?;
    writer.finish()?;
    drop(writer);
    w.bytes(&bytes);
    Ok(())
}

/// Reads a batch written by [`put_batch`].
pub fn get_batch(r: &mut StateReader<'_>) -> Result<arrow::array::RecordBatch> {
    let bytes = r.bytes()?;
    check_ipc_framing(bytes)?;
    let read = || -> Result<arrow::array::RecordBatch> {
        let unreadable = |e: arrow::error::ArrowError| {
            corrupt(&format!("a batch of rows does not read back ({e})"))
        };
        let mut reader =
            arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)
                .map_err(unreadable)?;
        match reader.next() {
            Some(batch) => batch.map_err(unreadable),
            None => Err(corrupt("a batch of rows is missing")),
        }
    };
    // Arrow's IPC reader panics on some malformed buffers (an offset past
    // the end) instead of failing, and a damaged checkpoint must be an
    // error. The panic is caught here, its message kept quiet (it would
    // read as a crash); this runs only while a run resumes.
    let loud = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
    std::panic::set_hook(loud);
    result.unwrap_or_else(|_| Err(corrupt("a batch of rows does not read back")))
}

/// Checks that every message of an Arrow IPC stream fits in `bytes`
/// before the reader sees it: the reader allocates what a message header
/// claims, and a damaged length would ask for terabytes.
fn check_ipc_framing(bytes: &[u8]) -> Result<()> {
    let bad = || corrupt("a batch of rows is cut short or damaged");
    let word = |at: usize| -> Result<u32> {
        let four = bytes.get(at..at + 4).ok_or_else(bad)?;
        Ok(u32::from_le_bytes(four.try_into().map_err(|_| bad())?))
    };
    let mut at = 0usize;
    loop {
        let mut length = word(at)?;
        at += 4;
        if length == 0xFFFF_FFFF {
            length = word(at)?;
            at += 4;
        }
        if length == 0 {
            return Ok(());
        }
        let end = at.checked_add(length as usize).ok_or_else(bad)?;
        let meta = bytes.get(at..end).ok_or_else(bad)?;
        let message = arrow_ipc::root_as_message(meta).map_err(|_| bad())?;
        let body = usize::try_from(message.bodyLength()).map_err(|_| bad())?;
        at = end.checked_add(body).ok_or_else(bad)?;
        if at > bytes.len() {
            return Err(bad());
        }
    }
}

/// Writes keys in `converter`'s row format as the columns they encode
/// (Arrow IPC), so that reading them back re-encodes rows that are valid
/// whatever the file holds: row bytes themselves cannot be checked, and
/// decoding bad ones would panic later.
pub fn put_keys<'a>(
    w: &mut StateWriter,
    converter: &arrow::row::RowConverter,
    keys: impl Iterator<Item = &'a [u8]>,
) -> Result<()> {
    let parser = converter.parser();
    let columns = converter.convert_rows(keys.map(|k| parser.parse(k)))?;
    let fields: Vec<arrow::datatypes::Field> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| arrow::datatypes::Field::new(format!("k{i}"), c.data_type().clone(), true))
        .collect();
    let rows = columns.first().map_or(0, |c| c.len());
    let batch = arrow::array::RecordBatch::try_new_with_options(
        std::sync::Arc::new(arrow::datatypes::Schema::new(fields)),
        columns,
        &arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )?;
    put_batch(w, &batch)
}

/// Reads keys written by [`put_keys`], in `converter`'s row format.
pub fn get_keys(
    r: &mut StateReader<'_>,
    converter: &arrow::row::RowConverter,
) -> Result<arrow::row::Rows> {
    let batch = get_batch(r)?;
    converter
        .convert_columns(batch.columns())
        .map_err(|_| corrupt("keys are not of the query's key types"))
}

/// The error for state that cannot be read back.
pub fn corrupt(why: &str) -> Error {
    Error::Execution(format!("the checkpoint cannot be read: {why}"))
}

/// A value that can be written to and read from a checkpoint.
pub trait Persist: Sized {
    fn save(&self, w: &mut StateWriter);
    fn load(r: &mut StateReader<'_>) -> Result<Self>;
}

macro_rules! persist_int {
    ($($t:ty),*) => {$(
        impl Persist for $t {
            fn save(&self, w: &mut StateWriter) {
                w.buf.extend_from_slice(&self.to_le_bytes());
            }
            fn load(r: &mut StateReader<'_>) -> Result<Self> {
                let bytes = r.take(std::mem::size_of::<$t>())?;
                Ok(<$t>::from_le_bytes(bytes.try_into().map_err(|_| corrupt("it ends early"))?))
            }
        }
    )*};
}

persist_int!(u8, i8, i16, u32, u64, i32, i64, i128, f32, f64);

impl Persist for usize {
    fn save(&self, w: &mut StateWriter) {
        w.u64(*self as u64);
    }
    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        usize::try_from(r.u64()?).map_err(|_| corrupt("a count does not fit this machine"))
    }
}

impl Persist for () {
    fn save(&self, _w: &mut StateWriter) {}
    fn load(_r: &mut StateReader<'_>) -> Result<Self> {
        Ok(())
    }
}

impl Persist for bool {
    fn save(&self, w: &mut StateWriter) {
        w.u8(u8::from(*self));
    }
    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        match r.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(corrupt("a flag is neither true nor false")),
        }
    }
}

impl Persist for String {
    fn save(&self, w: &mut StateWriter) {
        w.bytes(self.as_bytes());
    }
    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        String::from_utf8(r.bytes()?.to_vec()).map_err(|_| corrupt("a text is not UTF-8"))
    }
}

impl Persist for Box<[u8]> {
    fn save(&self, w: &mut StateWriter) {
        w.bytes(self);
    }
    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok(r.bytes()?.into())
    }
}

impl<T: Persist> Persist for Option<T> {
    fn save(&self, w: &mut StateWriter) {
        match self {
            None => w.u8(0),
            Some(v) => {
                w.u8(1);
                v.save(w);
            }
        }
    }
    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        match r.u8()? {
            0 => Ok(None),
            1 => Ok(Some(T::load(r)?)),
            _ => Err(corrupt("an optional value has an unknown tag")),
        }
    }
}

/// Writes a collection: its length, then each item.
fn save_all<'a, T: Persist + 'a>(w: &mut StateWriter, items: impl ExactSizeIterator<Item = &'a T>) {
    w.u64(items.len() as u64);
    for item in items {
        item.save(w);
    }
}

/// Reads a collection written by [`save_all`].
fn load_all<T: Persist, C: FromIterator<T>>(r: &mut StateReader<'_>) -> Result<C> {
    let n = r.count()?;
    (0..n).map(|_| T::load(r)).collect()
}

impl<T: Persist> Persist for Vec<T> {
    fn save(&self, w: &mut StateWriter) {
        save_all(w, self.iter());
    }
    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        load_all(r)
    }
}

impl<T: Persist> Persist for std::collections::VecDeque<T> {
    fn save(&self, w: &mut StateWriter) {
        save_all(w, self.iter());
    }
    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        load_all(r)
    }
}

impl<A: Persist, B: Persist> Persist for (A, B) {
    fn save(&self, w: &mut StateWriter) {
        self.0.save(w);
        self.1.save(w);
    }
    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok((A::load(r)?, B::load(r)?))
    }
}

impl<A: Persist, B: Persist, C: Persist> Persist for (A, B, C) {
    fn save(&self, w: &mut StateWriter) {
        self.0.save(w);
        self.1.save(w);
        self.2.save(w);
    }
    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        Ok((A::load(r)?, B::load(r)?, C::load(r)?))
    }
}

impl<K: Persist + Ord, V: Persist> Persist for std::collections::BTreeMap<K, V> {
    fn save(&self, w: &mut StateWriter) {
        w.u64(self.len() as u64);
        for (k, v) in self {
            k.save(w);
            v.save(w);
        }
    }
    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        let n = r.count()?;
        let mut out = Self::new();
        for _ in 0..n {
            let k = K::load(r)?;
            out.insert(k, V::load(r)?);
        }
        Ok(out)
    }
}

impl<K: Persist + Ord> Persist for std::collections::BTreeSet<K> {
    fn save(&self, w: &mut StateWriter) {
        save_all(w, self.iter());
    }
    fn load(r: &mut StateReader<'_>) -> Result<Self> {
        load_all(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn values_read_back_as_written() -> Result<()> {
        let mut w = StateWriter::new();
        let map: BTreeMap<i64, Vec<Option<String>>> =
            [(-5, vec![None, Some("é,x".into())]), (7, vec![])].into();
        w.put(&map);
        w.put(&(i128::MIN, f64::NAN.to_bits()));
        w.put(&vec![true, false]);
        w.section(|s| {
            s.put(&42u32);
            Ok(())
        })?;
        let bytes = w.into_bytes();
        let mut r = StateReader::new(&bytes);
        assert_eq!(r.get::<BTreeMap<i64, Vec<Option<String>>>>()?, map);
        assert_eq!(r.get::<(i128, u64)>()?, (i128::MIN, f64::NAN.to_bits()));
        assert_eq!(r.get::<Vec<bool>>()?, vec![true, false]);
        let mut section = r.section()?;
        assert_eq!(section.get::<u32>()?, 42);
        section.finish()?;
        r.finish()
    }

    #[test]
    fn short_or_corrupt_state_is_an_error_not_a_panic() {
        let mut w = StateWriter::new();
        w.put(&vec![1u64, 2, 3]);
        let bytes = w.into_bytes();
        for cut in 0..bytes.len() {
            let mut r = StateReader::new(&bytes[..cut]);
            assert!(r.get::<Vec<u64>>().is_err(), "cut at {cut}");
        }
        // A count far beyond the bytes left.
        let mut huge = u64::MAX.to_le_bytes().to_vec();
        huge.extend_from_slice(&[0; 8]);
        assert!(StateReader::new(&huge).get::<Vec<u8>>().is_err());
        assert!(StateReader::new(&[2]).get::<bool>().is_err());
        let r = StateReader::new(&bytes);
        assert!(r.finish().is_err(), "unread state is noticed");
    }
}
