//! Tables as text: the `tableau` result mode, which draws a query's rows as
//! they arrive, and the small fully-known tables of `DESCRIBE`.
//!
//! A streaming query's rows cannot be measured before they are printed, so
//! tableau fixes each column's width up front from its name and type (as
//! Flink's SQL client does) and prints the header once; each row is then
//! one line, written when its chunk arrives. Long strings are cut with
//! `...`; other values are never cut (a cut number would be a wrong
//! number), so an unusually wide one only shifts the rest of its line.

use arrow::array::RecordBatch;
use tidemark_common::{Error, Result, RowKind, SqlType};
use tidemark_engine::format_value;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The width a STRING column gets, unless its name is wider.
const STRING_WIDTH: usize = 24;
/// `<NULL>`, the widest thing any column must hold.
const MIN_WIDTH: usize = 6;

/// A streaming table: widths fixed by [`Tableau::new`], then
/// [`Tableau::header`], any number of [`Tableau::rows`], and
/// [`Tableau::footer`].
pub struct Tableau {
    names: Vec<String>,
    types: Vec<SqlType>,
    widths: Vec<usize>,
}

impl Tableau {
    pub fn new(names: Vec<String>, types: Vec<SqlType>) -> Self {
        let widths = names
            .iter()
            .zip(&types)
            .map(|(n, t)| n.width().max(type_width(t)).max(MIN_WIDTH))
            .collect();
        Tableau {
            names,
            types,
            widths,
        }
    }

    fn border(&self) -> String {
        let mut line = String::from("+----+");
        for w in &self.widths {
            line.push_str(&"-".repeat(w + 2));
            line.push('+');
        }
        line.push('\n');
        line
    }

    /// The top border, the column names and the rule under them.
    pub fn header(&self) -> String {
        let mut out = self.border();
        out.push_str("| op |");
        for (name, w) in self.names.iter().zip(&self.widths) {
            push_cell(&mut out, name, *w, false);
        }
        out.push('\n');
        out.push_str(&self.border());
        out
    }

    /// One line per row of `batch`.
    pub fn rows(
        &self,
        batch: &RecordBatch,
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<String> {
        if batch.num_columns() != self.types.len() || kinds.len() != batch.num_rows() {
            return Err(Error::Internal(format!(
                "a tableau of {} columns given {} columns and {} row kinds for {} rows",
                self.types.len(),
                batch.num_columns(),
                kinds.len(),
                batch.num_rows()
            )));
        }
        let mut out = String::new();
        let mut value = String::new();
        for (row, kind) in kinds.iter().enumerate() {
            out.push_str("| ");
            out.push_str(kind.short());
            out.push_str(" |");
            for ((column, ty), w) in batch.columns().iter().zip(&self.types).zip(&self.widths) {
                value.clear();
                format_value(column.as_ref(), ty, row, tz, &mut value)?;
                if matches!(ty, SqlType::String) {
                    let cut = cut_to_width(&value, *w);
                    push_cell(&mut out, &cut, *w, false);
                } else {
                    push_cell(&mut out, &value, *w, is_numeric(ty));
                }
            }
            out.push('\n');
        }
        Ok(out)
    }

    /// The bottom border.
    pub fn footer(&self) -> String {
        self.border()
    }
}

/// How wide a column of type `ty` is drawn: wide enough for every value of
/// the type, except STRING, which has no bound.
fn type_width(ty: &SqlType) -> usize {
    match ty {
        SqlType::Boolean | SqlType::Null => MIN_WIDTH,
        SqlType::TinyInt => 4,
        SqlType::SmallInt => 6,
        SqlType::Int => 11,
        // Java's Float.toString: up to 9 digits, a sign, a point and an
        // exponent such as E-45.
        SqlType::Float => 15,
        SqlType::BigInt => 20,
        // Java's Double.toString: up to 17 digits, a sign, a point and an
        // exponent such as E-308.
        SqlType::Double => 24,
        // SUM gives DECIMAL(38, s): drawn that wide, most of every row
        // would be blank. A value past 20 columns is shown whole.
        SqlType::Decimal(p, _) => (*p as usize + 2).min(20),
        SqlType::String => STRING_WIDTH,
        SqlType::Timestamp(p) | SqlType::TimestampLtz(p) => {
            19 + if *p > 0 { *p as usize + 1 } else { 0 }
        }
        SqlType::Date => 10,
        SqlType::Time(p) => 8 + if *p > 0 { *p as usize + 1 } else { 0 },
    }
}

fn is_numeric(ty: &SqlType) -> bool {
    ty.is_numeric()
}

/// `text` cut to `width` columns, ending in `...` if it was cut.
fn cut_to_width(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 3 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push_str("...");
    out
}

/// ` text |`, padded to `width` columns on the left or right.
fn push_cell(out: &mut String, text: &str, width: usize, right: bool) {
    // Control characters would move the cursor and break the table.
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let pad = " ".repeat(width.saturating_sub(text.width()));
    out.push(' ');
    if right {
        out.push_str(&pad);
        out.push_str(&text);
    } else {
        out.push_str(&text);
        out.push_str(&pad);
    }
    out.push_str(" |");
}

/// A table whose cells are all known: each column as wide as its widest
/// cell, left-aligned.
pub fn draw_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.width()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.width());
        }
    }
    let border = {
        let mut line = String::from("+");
        for w in &widths {
            line.push_str(&"-".repeat(w + 2));
            line.push('+');
        }
        line.push('\n');
        line
    };
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut out = String::from("|");
        for (cell, w) in cells.zip(&widths) {
            push_cell(&mut out, cell, *w, false);
        }
        out.push('\n');
        out
    };
    let mut out = border.clone();
    out.push_str(&line(&mut header.iter().copied()));
    out.push_str(&border);
    for row in rows {
        out.push_str(&line(&mut row.iter().map(String::as_str)));
    }
    out.push_str(&border);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{ArrayRef, Int32Array, StringArray};
    use std::sync::Arc;

    #[test]
    fn rows_line_up_under_the_header() -> Result<()> {
        let t = Tableau::new(
            vec!["name".into(), "n".into()],
            vec![SqlType::String, SqlType::Int],
        );
        let batch = RecordBatch::try_from_iter([
            (
                "name",
                Arc::new(StringArray::from(vec![
                    Some("bob"),
                    None,
                    Some("a name much longer than the column"),
                ])) as ArrayRef,
            ),
            (
                "n",
                Arc::new(Int32Array::from(vec![Some(1), Some(-20), None])) as ArrayRef,
            ),
        ])?;
        let kinds = [RowKind::Insert, RowKind::UpdateBefore, RowKind::Delete];
        let text = format!(
            "{}{}{}",
            t.header(),
            t.rows(&batch, &kinds, chrono_tz::UTC)?,
            t.footer()
        );
        let expected = "\
+----+--------------------------+-------------+
| op | name                     | n           |
+----+--------------------------+-------------+
| +I | bob                      |           1 |
| -U | <NULL>                   |         -20 |
| -D | a name much longer th... |      <NULL> |
+----+--------------------------+-------------+
";
        assert_eq!(text, expected);
        Ok(())
    }

    #[test]
    fn cuts_count_display_columns() {
        assert_eq!(cut_to_width("abc", 3), "abc");
        assert_eq!(cut_to_width("abcdef", 5), "ab...");
        assert_eq!(cut_to_width("日本語テキスト", 7), "日本...");
        assert_eq!(cut_to_width("abcdef", 2), "...");
    }

    #[test]
    fn draws_known_tables() {
        let text = draw_table(&["a", "bb"], &[vec!["xyz".into(), "".into()]]);
        assert_eq!(
            text,
            "+-----+----+\n| a   | bb |\n+-----+----+\n| xyz |    |\n+-----+----+\n"
        );
    }
}
