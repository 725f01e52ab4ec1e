//! Source positions in SQL text and the caret rendering of errors.
//!
//! Lines and columns are 1-based and count characters, as sqlparser's
//! tokenizer does; `0` means "unknown".

use std::fmt;

/// A range of SQL text, from `start` up to (not including) `end`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start_line: u64,
    pub start_col: u64,
    pub end_line: u64,
    pub end_col: u64,
}

impl Span {
    pub fn new(start_line: u64, start_col: u64, end_line: u64, end_col: u64) -> Self {
        Span {
            start_line,
            start_col,
            end_line,
            end_col,
        }
    }

    /// A span that covers a single position.
    pub fn point(line: u64, col: u64) -> Self {
        Span::new(line, col, line, col)
    }

    pub fn is_known(&self) -> bool {
        self.start_line > 0
    }

    /// The smallest span covering both; unknown spans are ignored.
    pub fn union(self, other: Span) -> Span {
        if !self.is_known() {
            return other;
        }
        if !other.is_known() {
            return self;
        }
        let (start_line, start_col) =
            (self.start_line, self.start_col).min((other.start_line, other.start_col));
        let (end_line, end_col) =
            (self.end_line, self.end_col).max((other.end_line, other.end_col));
        Span::new(start_line, start_col, end_line, end_col)
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.start_line, self.start_col)
    }
}

/// Renders a span of `source` as the offending line with a caret under it.
pub struct SpanRender<'a> {
    pub source: &'a str,
    pub span: Span,
}

impl fmt::Display for SpanRender<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(line) = self
            .source
            .lines()
            .nth(self.span.start_line.saturating_sub(1) as usize)
        else {
            return Ok(());
        };
        let number = self.span.start_line.to_string();
        let gutter = " ".repeat(number.len());
        let start = self.span.start_col.max(1) as usize;
        let line_len = line.chars().count();
        // A multi-line span is underlined to the end of its first line.
        let end = if self.span.end_line == self.span.start_line
            && self.span.end_col >= self.span.start_col
        {
            (self.span.end_col as usize).min(line_len.max(start))
        } else {
            line_len.max(start)
        };
        let width = end.saturating_sub(start).max(1);
        // Tabs keep their width so the caret lines up with the text above.
        let pad: String = line
            .chars()
            .take(start - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        writeln!(f, "{gutter} |")?;
        writeln!(f, "{number} | {line}")?;
        write!(f, "{gutter} | {pad}{}", "^".repeat(width))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_under_span() {
        let src = "SELECT a\nFROM t WHERE nope > 1";
        let out = SpanRender {
            source: src,
            span: Span::new(2, 14, 2, 18),
        }
        .to_string();
        assert_eq!(out, "  |\n2 | FROM t WHERE nope > 1\n  |              ^^^^");
    }

    #[test]
    fn union_ignores_unknown() {
        let a = Span::new(1, 5, 1, 9);
        assert_eq!(a.union(Span::default()), a);
        assert_eq!(a.union(Span::new(2, 1, 2, 3)), Span::new(1, 5, 2, 3));
    }
}
