//! Changes to a script's text, each made at a place in the original, so
//! that an exported script keeps the user's layout and comments and only
//! what Flink needs changed is changed.

use tidemark_common::Span;

/// A script's text with its lines indexed, to turn spans (lines and
/// columns of characters) into byte offsets.
pub struct Source<'a> {
    pub text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source { text, line_starts }
    }

    /// The byte offset of a 1-based line and column (columns count
    /// characters); past the end of its line it is the line's end.
    pub fn offset(&self, line: u64, column: u64) -> usize {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1) as usize) else {
            return self.text.len();
        };
        let rest = &self.text[start..];
        let line_end = rest.find('\n').map_or(self.text.len(), |i| start + i);
        rest.char_indices()
            .nth(column.saturating_sub(1) as usize)
            .map_or(line_end, |(i, _)| (start + i).min(line_end))
    }

    /// The byte range of `span` (its end column is exclusive).
    pub fn range(&self, span: Span) -> (usize, usize) {
        let start = self.offset(span.start_line, span.start_col);
        let end = self.offset(span.end_line, span.end_col).max(start);
        (start, end)
    }

    #[cfg(test)]
    fn slice(&self, span: Span) -> &'a str {
        let (start, end) = self.range(span);
        &self.text[start..end]
    }
}

/// Replacements of byte ranges of the original text. A replacement may
/// cover others (a rewritten GROUP BY holds identifiers that are quoted):
/// the outer one is made from [`Edits::render`] of its range and replaces
/// the inner ones.
#[derive(Default)]
pub struct Edits {
    list: Vec<(usize, usize, String)>,
}

impl Edits {
    /// Replaces `start..end` (an insertion when they are equal), dropping
    /// the edits inside it, which its text is expected to include.
    pub fn replace(&mut self, start: usize, end: usize, text: impl Into<String>) {
        if start < end {
            self.list.retain(|(s, e, _)| !(start <= *s && *e <= end));
        }
        self.list.push((start, end, text.into()));
    }

    /// `source[start..end]` with the edits inside it made.
    pub fn render(&self, source: &str, start: usize, end: usize) -> String {
        let mut inside: Vec<&(usize, usize, String)> = self
            .list
            .iter()
            .filter(|(s, e, _)| start <= *s && *e <= end)
            .collect();
        // Insertions before replacements at the same place, then in the
        // order they were made.
        inside.sort_by_key(|(s, e, _)| (*s, *e > *s));
        let mut out = String::with_capacity(end - start);
        let mut at = start;
        for (s, e, text) in inside {
            if *s < at {
                // Overlaps one already made: only a covering edit may hold
                // others, and it removed them.
                continue;
            }
            out.push_str(&source[at..*s]);
            out.push_str(text);
            at = *e;
        }
        out.push_str(&source[at..end]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_count_characters() {
        let src = Source::new("SELECT 'é', a\nFROM t");
        assert_eq!(&src.text[src.offset(1, 13)..], "a\nFROM t");
        assert_eq!(&src.text[src.offset(2, 6)..], "t");
        assert_eq!(src.slice(Span::new(2, 1, 2, 5)), "FROM");
    }

    #[test]
    fn a_covering_edit_replaces_the_ones_inside() {
        let text = "SELECT value, k FROM t";
        let mut edits = Edits::default();
        edits.replace(7, 12, "`value`");
        edits.replace(21, 22, "s");
        assert_eq!(
            edits.render(text, 0, text.len()),
            "SELECT `value`, k FROM s"
        );
        let inner = edits.render(text, 7, 15);
        edits.replace(7, 15, format!("({inner})"));
        assert_eq!(
            edits.render(text, 0, text.len()),
            "SELECT (`value`, k) FROM s"
        );
        edits.replace(0, 0, "-- x\n");
        assert_eq!(
            edits.render(text, 0, text.len()),
            "-- x\nSELECT (`value`, k) FROM s"
        );
    }
}
