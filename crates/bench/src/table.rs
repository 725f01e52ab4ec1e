//! Plain-text tables for the reports: a header, a rule under it, the
//! first column aligned left (names) and the others right (numbers), so
//! that the digits of a column line up for the eye.

/// The table of `header` and `rows`, one line each, each line ending in a
/// newline. Rows shorter than the header are padded with empty cells;
/// empty cells at the end of a line are left off.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let columns = header.len();
    let cell = |row: &[String], c: usize| row.get(c).map_or("", String::as_str).to_owned();
    let header_row: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            std::iter::once(&header_row)
                .chain(rows)
                .map(|row| cell(row, c).chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |row: &[String], is_header: bool| -> String {
        let used = (0..columns)
            .rposition(|c| !cell(row, c).is_empty())
            .map_or(0, |last| last + 1);
        let cells: Vec<String> = (0..used)
            .map(|c| {
                let text = cell(row, c);
                if c == 0 || is_header {
                    format!("{text:<w$}", w = widths[c])
                } else {
                    format!("{text:>w$}", w = widths[c])
                }
            })
            .collect();
        format!("{}\n", cells.join(" | ").trim_end())
    };
    let mut out = line(&header_row, true);
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&rule.join("-+-"));
    out.push('\n');
    for row in rows {
        out.push_str(&line(row, false));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_names_left_and_numbers_right() {
        let rows = vec![
            vec!["TUMBLE".to_string(), "1.000".to_string()],
            vec!["a longer name".to_string(), "12.5".to_string()],
        ];
        let expected = "\
query         | s
--------------+------
TUMBLE        | 1.000
a longer name |  12.5
";
        assert_eq!(render(&["query", "s"], &rows), expected);
    }

    #[test]
    fn pads_short_rows_and_counts_characters_not_bytes() {
        let rows = vec![vec!["≤ goal".to_string()]];
        let expected = "\
name   | x
-------+--
≤ goal
";
        assert_eq!(render(&["name", "x"], &rows), expected);
    }
}
