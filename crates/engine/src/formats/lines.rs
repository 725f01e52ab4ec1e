//! Lines put together from their columns' texts. The file sinks' CSV and
//! JSON lines and the printed changelog are written a column at a time
//! (each column's type looked at once, not once per row) into a
//! [`ColumnText`] per column; [`Assembly`] then lays each row's line out
//! from the fixed pieces between the values and the values' texts.
//!
//! The assembly is where a row's bytes are copied, a dozen small copies a
//! line: copied one by one through `push_str`, each a capacity check and a
//! call of `memcpy`, they cost as much as writing the values. Here the
//! room for a batch's lines is made once, and a value or piece of up to
//! [`SLACK`] bytes moves as one fixed-size copy: every text it is read
//! from ends in [`SLACK`] spare bytes, and the bytes it writes past its
//! own end are written over by whatever comes next (the last spare ones
//! are cut off).

use arrow::buffer::NullBuffer;

/// How many spare bytes end every text a line is copied from, and the
/// longest copy made at a fixed size.
pub(crate) const SLACK: usize = 16;

/// The spare bytes that end a column's text.
const SPARE: &str = "                ";

/// One column's values, for each row of a batch, as a line format writes
/// them (quoted or escaped as it asks), back to back.
#[derive(Default)]
pub(crate) struct ColumnText {
    /// The values, then [`SLACK`] spare bytes once finished.
    pub(crate) text: String,
    /// Where each row's text ends in `text`; it starts where the row
    /// before's ends.
    pub(crate) ends: Vec<usize>,
    /// The rows that are NULL; None when none is.
    pub(crate) nulls: Option<NullBuffer>,
    /// The text of the last timestamp written, copied for a row that
    /// repeats it (a window's bounds repeat row after row).
    pub(crate) last: Option<(i64, String)>,
}

impl ColumnText {
    /// Empties the text for a batch whose NULL rows are `nulls`.
    pub(crate) fn start(&mut self, nulls: Option<NullBuffer>) {
        self.text.clear();
        self.ends.clear();
        self.nulls = nulls;
    }

    /// Ends the batch's text with the spare bytes an [`Assembly`] reads.
    pub(crate) fn finish(&mut self) {
        self.text.push_str(SPARE);
    }

    pub(crate) fn value(&self, row: usize) -> &str {
        let start = if row == 0 { 0 } else { self.ends[row - 1] };
        &self.text[start..self.ends[row]]
    }

    pub(crate) fn is_null(&self, row: usize) -> bool {
        self.nulls.as_ref().is_some_and(|nulls| nulls.is_null(row))
    }

    /// The values' bytes, without the spare ones.
    fn values_len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }
}

/// The fixed pieces of a line: one before each column's value and one
/// after the last (its line break included), as `,` between CSV fields
/// or `,"name":` before a JSON member; and the leads a line may start
/// with (a row kind's `+I`).
pub(crate) struct Assembly {
    /// The pieces and leads back to back, then [`SLACK`] spare bytes.
    bytes: Vec<u8>,
    /// Where each piece starts in `bytes` and how long it is.
    pieces: Vec<(usize, usize)>,
    /// Where each lead starts in `bytes` and how long it is.
    leads: Vec<(usize, usize)>,
    /// The length of the longest lead.
    longest_lead: usize,
}

impl Assembly {
    /// The pieces of a line of `pieces.len() - 1` values, without a lead.
    pub(crate) fn new<'a>(pieces: impl IntoIterator<Item = &'a str>) -> Self {
        Self::with_leads(pieces, [""])
    }

    /// The pieces of a line of `pieces.len() - 1` values, each line
    /// starting with one of `leads`.
    pub(crate) fn with_leads<'a>(
        pieces: impl IntoIterator<Item = &'a str>,
        leads: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let mut bytes = Vec::new();
        let pieces = place(&mut bytes, pieces);
        let leads = place(&mut bytes, leads);
        bytes.resize(bytes.len() + SLACK, b' ');
        Assembly {
            bytes,
            pieces,
            longest_lead: leads.iter().map(|(_, len)| *len).max().unwrap_or(0),
            leads,
        }
    }

    /// The line of every row of `columns` (one per value between the
    /// pieces; each with [`ColumnText::finish`] done), each after the lead
    /// numbered `lead(row)`, written in `room`. The room keeps its length
    /// from call to call, so that it is filled with zeros only as it grows
    /// (bytes past the lines are left as they are).
    pub(crate) fn lines<'r>(
        &self,
        columns: &[ColumnText],
        rows: usize,
        lead: impl Fn(usize) -> usize,
        room: &'r mut Vec<u8>,
    ) -> &'r [u8] {
        debug_assert_eq!(columns.len() + 1, self.pieces.len());
        let fixed: usize = self.pieces.iter().map(|(_, len)| len).sum();
        let values: usize = columns.iter().map(|c| c.values_len()).sum();
        // The most the lines take, and room for a fixed-size copy at the
        // end of them.
        let most = values + rows * (fixed + self.longest_lead) + SLACK;
        if room.len() < most {
            room.resize(most, 0);
        }
        let out = room.as_mut_slice();
        let mut at = 0;
        let last = self.pieces.len() - 1;
        for row in 0..rows {
            let (from, len) = self.leads[lead(row)];
            put(out, at, &self.bytes, from, len);
            at += len;
            for (column, &(from, len)) in columns.iter().zip(&self.pieces) {
                put(out, at, &self.bytes, from, len);
                at += len;
                let from = if row == 0 { 0 } else { column.ends[row - 1] };
                let len = column.ends[row] - from;
                put(out, at, column.text.as_bytes(), from, len);
                at += len;
            }
            let (from, len) = self.pieces[last];
            put(out, at, &self.bytes, from, len);
            at += len;
        }
        &room[..at]
    }
}

/// Appends `texts` to `bytes`, returning where each starts and how long
/// it is.
fn place<'a>(bytes: &mut Vec<u8>, texts: impl IntoIterator<Item = &'a str>) -> Vec<(usize, usize)> {
    texts
        .into_iter()
        .map(|text| {
            let at = bytes.len();
            bytes.extend_from_slice(text.as_bytes());
            (at, text.len())
        })
        .collect()
}

/// Copies the `len` bytes at `from` in `text` to `at` in `out`; up to
/// [`SLACK`] of them as one copy of that size, reading and writing past
/// them (the room is there on both sides).
#[inline(always)]
fn put(out: &mut [u8], at: usize, text: &[u8], from: usize, len: usize) {
    if len <= SLACK && from + SLACK <= text.len() {
        out[at..at + SLACK].copy_from_slice(&text[from..from + SLACK]);
    } else {
        out[at..at + len].copy_from_slice(&text[from..from + len]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(values: &[&str]) -> ColumnText {
        let mut text = ColumnText::default();
        text.start(None);
        for value in values {
            text.text.push_str(value);
            text.ends.push(text.text.len());
        }
        text.finish();
        text
    }

    /// Values short and long, empty and of many bytes, with leads of
    /// different lengths, read as each line put together piece by piece.
    #[test]
    fn lines_read_as_their_pieces_and_values_joined() {
        let long = "x".repeat(40);
        let a = column(&["", "a", &long, "é€", "sixteen-bytes-ok"]);
        let b = column(&[&long, "", "b", "seventeen-bytes-x", ""]);
        let leads = [
            "",
            "+I",
            "a lead of more than sixteen bytes",
            "sixteen-bytes-ok",
            "+U",
        ];
        let pieces = ["{\"a\":", ",\"a longer name\":", "}\n"];
        let assembly = Assembly::with_leads(pieces, leads);
        // A room holding more than the lines, as a room used before does.
        let mut room = vec![b'?'; 1000];
        let columns = [a, b];
        let out = assembly.lines(&columns, 5, |row| row, &mut room).to_vec();
        let [a, b] = &columns;
        let mut expected = String::new();
        for (row, lead) in leads.iter().enumerate() {
            expected.push_str(lead);
            expected.push_str("{\"a\":");
            expected.push_str(a.value(row));
            expected.push_str(",\"a longer name\":");
            expected.push_str(b.value(row));
            expected.push_str("}\n");
        }
        assert_eq!(String::from_utf8(out).expect("utf-8"), expected);
    }

    #[test]
    fn the_spare_bytes_are_as_many_as_a_copy_reads() {
        assert_eq!(SPARE.len(), SLACK);
    }

    #[test]
    fn no_rows_write_nothing() {
        let a = column(&[]);
        let mut room = Vec::new();
        assert!(Assembly::new(["", "\n"])
            .lines(&[a], 0, |_| 0, &mut room)
            .is_empty());
    }
}
