//! Where statements end in what the user types: at a `;` outside string
//! literals, quoted identifiers and comments. The client needs this before
//! any parsing — to know whether to run what was typed or ask for another
//! line — and it must not fail on half a statement, which the parser would.

/// Lexical state at a point of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Code,
    /// Inside `'...'`; the byte offset of the opening quote.
    String(usize),
    /// Inside `"..."` or `` `...` ``.
    Quoted(char),
    LineComment,
    BlockComment,
}

/// Typed text cut into complete statements (each with its `;`) and the
/// unfinished rest.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Split<'a> {
    pub statements: Vec<&'a str>,
    pub rest: &'a str,
}

/// Walks `text`, calling `on_semicolon` with the byte offset of each `;`
/// in code; returns the state at the end.
fn scan(text: &str, mut on_semicolon: impl FnMut(usize)) -> State {
    let mut state = State::Code;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|(_, n)| *n);
        state = match state {
            State::Code => match (c, next) {
                (';', _) => {
                    on_semicolon(i);
                    State::Code
                }
                ('\'', _) => State::String(i),
                ('"' | '`', _) => State::Quoted(c),
                ('-', Some('-')) => {
                    chars.next();
                    State::LineComment
                }
                ('/', Some('*')) => {
                    chars.next();
                    State::BlockComment
                }
                _ => State::Code,
            },
            // A doubled quote inside a literal is a quote, not its end;
            // seen as end-then-start, which lands in the same state.
            State::String(_) if c == '\'' => State::Code,
            State::Quoted(q) if c == q => State::Code,
            State::LineComment if c == '\n' => State::Code,
            State::BlockComment if c == '*' && next == Some('/') => {
                chars.next();
                State::Code
            }
            other => other,
        };
    }
    state
}

/// The lexical state at the end of `text`.
pub fn state_at_end(text: &str) -> State {
    scan(text, |_| {})
}

/// Cuts `text` after each `;` in code.
pub fn split(text: &str) -> Split<'_> {
    let mut statements = Vec::new();
    let mut start = 0;
    scan(text, |i| {
        statements.push(&text[start..=i]);
        start = i + 1;
    });
    Split {
        statements,
        rest: &text[start..],
    }
}

/// Whether `text` holds nothing but whitespace, comments and `;`.
pub fn is_blank(text: &str) -> bool {
    let mut state = State::Code;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        match state {
            State::Code => match (c, next) {
                ('-', Some('-')) => {
                    chars.next();
                    state = State::LineComment;
                }
                ('/', Some('*')) => {
                    chars.next();
                    state = State::BlockComment;
                }
                (c, _) if c.is_whitespace() || c == ';' => {}
                _ => return false,
            },
            State::LineComment if c == '\n' => state = State::Code,
            State::BlockComment if c == '*' && next == Some('/') => {
                chars.next();
                state = State::Code;
            }
            _ => {}
        }
    }
    true
}

/// Commands of the client itself rather than SQL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Help,
    Quit,
}

/// The client command `text` is, if it is one: `HELP`, `QUIT` or `EXIT`,
/// in any case, with or without `;` (as the Flink SQL client takes them).
pub fn command(text: &str) -> Option<Command> {
    let word = text.trim().trim_end_matches(';').trim();
    match word.to_ascii_lowercase().as_str() {
        "help" | "?" | "\\h" | "\\?" => Some(Command::Help),
        "quit" | "exit" | "\\q" => Some(Command::Quit),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_semicolons_in_code_only() {
        let cases: &[(&str, &[&str], &str)] = &[
            ("SELECT 1;", &["SELECT 1;"], ""),
            ("SELECT 1; SELECT 2", &["SELECT 1;"], " SELECT 2"),
            ("SELECT ';'", &[], "SELECT ';'"),
            ("SELECT 'it''s;';", &["SELECT 'it''s;';"], ""),
            ("SELECT `a;b` FROM t;", &["SELECT `a;b` FROM t;"], ""),
            ("SELECT \"a;b\";", &["SELECT \"a;b\";"], ""),
            ("SELECT 1 -- no; really\n", &[], "SELECT 1 -- no; really\n"),
            ("SELECT 1 -- c\n;", &["SELECT 1 -- c\n;"], ""),
            ("SELECT /* ; */ 1;x", &["SELECT /* ; */ 1;"], "x"),
            ("a;b;", &["a;", "b;"], ""),
            ("SELECT 'é;", &[], "SELECT 'é;"),
            ("", &[], ""),
        ];
        for (text, statements, rest) in cases {
            let got = split(text);
            assert_eq!(got.statements, *statements, "{text:?}");
            assert_eq!(got.rest, *rest, "{text:?}");
        }
    }

    #[test]
    fn knows_when_the_cursor_is_in_a_string() {
        assert_eq!(state_at_end("SET 'table."), State::String(4));
        assert_eq!(state_at_end("SET 'a' = 'b'"), State::Code);
        assert_eq!(state_at_end("SELECT 1 -- x"), State::LineComment);
        assert_eq!(state_at_end("SELECT /* x"), State::BlockComment);
        assert_eq!(state_at_end("SELECT `x"), State::Quoted('`'));
    }

    #[test]
    fn blank_text_is_only_space_comments_and_semicolons() {
        for text in ["", "  \n", "-- x\n", "/* a */ ;", ";;", "-- x"] {
            assert!(is_blank(text), "{text:?}");
        }
        for text in ["x", "/* a */ x", "-- x\ny", "'"] {
            assert!(!is_blank(text), "{text:?}");
        }
    }

    #[test]
    fn client_commands_take_any_case_and_an_optional_semicolon() {
        assert_eq!(command("help"), Some(Command::Help));
        assert_eq!(command(" HELP;\n"), Some(Command::Help));
        assert_eq!(command("Quit"), Some(Command::Quit));
        assert_eq!(command("exit;"), Some(Command::Quit));
        assert_eq!(command("\\q"), Some(Command::Quit));
        assert_eq!(command("SELECT 1;"), None);
        assert_eq!(command("help me"), None);
    }
}
