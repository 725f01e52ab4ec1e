//! Tab completion: SQL keywords and functions, the session's tables and
//! views, their columns, option keys and values inside `SET '...'`, and
//! the options a connector and format declare inside `CREATE TABLE ...
//! WITH ('...`.
//!
//! Completion works on a snapshot of names taken after each statement,
//! since the line editor owns the helper while a line is edited and the
//! session cannot be borrowed then.

use super::input::{state_at_end, State};
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};
use tidemark_common::connector::{FormatUse, ValueKind};
use tidemark_common::{KNOWN_OPTIONS, RESULT_MODE};
use tidemark_sql::Catalog;

/// Keywords and function names offered anywhere outside strings.
const KEYWORDS: &[&str] = &[
    "ALL",
    "AND",
    "AS",
    "ASC",
    "AVG",
    "BETWEEN",
    "BIGINT",
    "BOOLEAN",
    "BY",
    "CASE",
    "CAST",
    "COUNT",
    "CREATE",
    "CUMULATE",
    "CURRENT_WATERMARK",
    "DATA",
    "DATE",
    "DECIMAL",
    "DESC",
    "DESCRIBE",
    "DESCRIPTOR",
    "DISTINCT",
    "DOUBLE",
    "ELSE",
    "END",
    "ENFORCED",
    "EXISTS",
    "EXPLAIN",
    "EXIT",
    "FALSE",
    "FLOAT",
    "FOR",
    "FROM",
    "FULL",
    "GROUP",
    "HAVING",
    "HELP",
    "HOP",
    "IF",
    "IN",
    "INNER",
    "INSERT",
    "INT",
    "INTERVAL",
    "INTO",
    "IS",
    "JOIN",
    "KEY",
    "LEFT",
    "LIKE",
    "LIMIT",
    "MAX",
    "MIN",
    "NOT",
    "NULL",
    "ON",
    "OR",
    "ORDER",
    "OUTER",
    "OVER",
    "PARTITION",
    "PRECEDING",
    "PRIMARY",
    "PROCTIME",
    "QUIT",
    "RANGE",
    "RESET",
    "RIGHT",
    "ROW_NUMBER",
    "ROWS",
    "SECOND",
    "SELECT",
    "SESSION",
    "SET",
    "SHOW",
    "SMALLINT",
    "STRING",
    "SUM",
    "TABLE",
    "TABLES",
    "TEMPORARY",
    "THEN",
    "TIME",
    "TIMESTAMP",
    "TIMESTAMP_LTZ",
    "TINYINT",
    "TO_DATE",
    "TO_TIMESTAMP_LTZ",
    "TRUE",
    "TUMBLE",
    "UNION",
    "VALUES",
    "VARCHAR",
    "VIEW",
    "VIEWS",
    "WATERMARK",
    "WHEN",
    "WHERE",
    "WITH",
    "window_end",
    "window_start",
    "window_time",
];

/// Words after which only a table or view name fits.
const BEFORE_TABLE: &[&str] = &["FROM", "JOIN", "INTO", "DESCRIBE", "DESC", "TABLE", "VIEW"];

/// The names completion offers, as of the last statement.
#[derive(Default)]
pub struct Names {
    /// Tables and views, as declared.
    relations: Vec<String>,
    /// (table, column) for every declared table.
    columns: Vec<(String, String)>,
}

impl Names {
    pub fn from_catalog(catalog: &Catalog) -> Self {
        let mut relations: Vec<String> = catalog.tables().map(|t| t.name.clone()).collect();
        relations.extend(catalog.view_names().map(String::from));
        let columns = catalog
            .tables()
            .flat_map(|t| {
                t.schema
                    .fields
                    .iter()
                    .map(|f| (t.name.clone(), f.name.clone()))
            })
            .collect();
        Names { relations, columns }
    }
}

/// The line editor's helper: completion, with the lines of an unfinished
/// statement typed so far as context.
#[derive(Default)]
pub struct SqlHelper {
    pub names: Names,
    /// The earlier lines of the statement being typed.
    pub pending: String,
}

impl SqlHelper {
    /// Candidates for the text before the cursor, `before` (the current
    /// line up to the cursor), and where in it the replaced word starts.
    pub fn candidates(&self, before: &str) -> (usize, Vec<Pair>) {
        let text = format!("{}{before}", self.pending);
        let offset = self.pending.len();
        match state_at_end(&text) {
            State::String(quote) if quote >= offset => {
                let start = quote + 1;
                let prefix = &text[start..];
                let head = &text[..quote];
                (start - offset, self.string_candidates(head, prefix))
            }
            State::Code => {
                let start = before
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                    .map_or(0, |i| {
                        i + before[i..].chars().next().map_or(1, char::len_utf8)
                    });
                let word = &before[start..];
                let head = &text[..offset + start];
                (start, self.word_candidates(head, word))
            }
            _ => (0, Vec::new()),
        }
    }

    /// In a string: option keys after `SET` or `RESET`, a few values after
    /// `SET 'key' =`.
    fn string_candidates(&self, head: &str, prefix: &str) -> Vec<Pair> {
        let words: Vec<&str> = head.split_whitespace().collect();
        let last = words.last().copied().unwrap_or_default();
        let mut found = Vec::new();
        if let Some(options) = with_candidates(head) {
            found = options.into_iter().map(|o| format!("{o}'")).collect();
        } else if last.eq_ignore_ascii_case("SET") || last.eq_ignore_ascii_case("RESET") {
            for known in KNOWN_OPTIONS {
                if known.key.ends_with('.') {
                    for table in &self.names.relations {
                        found.push(format!("{}{table}'", known.key));
                    }
                } else {
                    found.push(format!("{}'", known.key));
                }
            }
        } else if last == "=" && words.len() >= 2 {
            let key = words[words.len() - 2].trim_matches('\'');
            let values: &[&str] = match key {
                RESULT_MODE => &["tableau", "changelog"],
                "tidemark.clock" => &["system", "fake"],
                "table.optimizer.agg-phase-strategy" => &["AUTO", "ONE_PHASE", "TWO_PHASE"],
                "tidemark.trace" | "tidemark.display.late-records" | "tidemark.stop.drain" => {
                    &["true", "false"]
                }
                _ => &[],
            };
            found.extend(values.iter().map(|v| format!("{v}'")));
        }
        found
            .into_iter()
            .filter(|c| c.starts_with(prefix))
            .map(|c| Pair {
                display: c.trim_end_matches('\'').to_string(),
                replacement: c,
            })
            .collect()
    }

    /// Outside strings: `t.` gives the columns of `t`; after FROM and the
    /// like, tables and views; elsewhere columns, tables, views and
    /// keywords.
    fn word_candidates(&self, head: &str, word: &str) -> Vec<Pair> {
        let matches = |name: &str, prefix: &str| {
            name.len() >= prefix.len()
                && name
                    .get(..prefix.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
        };
        if let Some((qualifier, column)) = word.rsplit_once('.') {
            let mut found: Vec<String> = self
                .names
                .columns
                .iter()
                .filter(|(t, c)| t.eq_ignore_ascii_case(qualifier) && matches(c, column))
                .map(|(_, c)| format!("{qualifier}.{c}"))
                .collect();
            found.dedup();
            return pairs(found);
        }
        let previous = head
            .split(|c: char| c.is_whitespace() || c == '(' || c == ',')
            .rfind(|w| !w.is_empty())
            .unwrap_or_default();
        let mut found: Vec<String> = Vec::new();
        let relations = self
            .names
            .relations
            .iter()
            .filter(|r| matches(r, word))
            .cloned();
        if BEFORE_TABLE
            .iter()
            .any(|k| k.eq_ignore_ascii_case(previous))
        {
            found.extend(relations);
            // `FROM TABLE(TUMBLE(...))` starts with a keyword.
            if matches("TABLE", word) && !previous.eq_ignore_ascii_case("TABLE") {
                found.push(keyword_case("TABLE", word));
            }
            return pairs(found);
        }
        if word.is_empty() {
            // Everything would be hundreds of words; nothing is better.
            return Vec::new();
        }
        let mut columns: Vec<String> = self
            .names
            .columns
            .iter()
            .filter(|(_, c)| matches(c, word))
            .map(|(_, c)| c.clone())
            .collect();
        columns.sort();
        columns.dedup();
        found.extend(columns);
        found.extend(relations);
        found.extend(
            KEYWORDS
                .iter()
                .filter(|k| matches(k, word))
                .map(|k| keyword_case(k, word)),
        );
        let mut seen = std::collections::HashSet::new();
        found.retain(|f| seen.insert(f.to_ascii_lowercase()));
        pairs(found)
    }
}

/// A keyword in the case the user types: lower case if the word typed so
/// far is.
fn keyword_case(keyword: &str, typed: &str) -> String {
    if !typed.is_empty() && typed.chars().all(|c| !c.is_uppercase()) {
        keyword.to_ascii_lowercase()
    } else {
        keyword.to_string()
    }
}

fn pairs(words: Vec<String>) -> Vec<Pair> {
    words
        .into_iter()
        .map(|w| Pair {
            display: w.clone(),
            replacement: w,
        })
        .collect()
}

impl Completer for SqlHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = line.get(..pos).unwrap_or(line);
        Ok(self.candidates(before))
    }
}

impl Hinter for SqlHelper {
    type Hint = String;
}
impl Highlighter for SqlHelper {}
impl Validator for SqlHelper {}
impl Helper for SqlHelper {}

/// Inside a string of a `CREATE TABLE ... WITH (` clause: the option keys
/// the connector named so far declares (or `connector` when none is
/// named yet), its format's keys, and the values a key takes — all from
/// the connectors' declarations. `None` outside such a clause.
fn with_candidates(head: &str) -> Option<Vec<String>> {
    let statement = head.rsplit(';').next().unwrap_or(head);
    let upper = statement.to_ascii_uppercase();
    if !upper.trim_start().starts_with("CREATE TABLE") {
        return None;
    }
    let clause = statement[upper.rfind("WITH")? + 4..].trim_start();
    let tokens = with_tokens(clause.strip_prefix('(')?);
    let given: Vec<(&str, &str)> = tokens
        .windows(3)
        .filter_map(|w| match w {
            [Token::Text(k), Token::Equals, Token::Text(v)] => Some((k.as_str(), v.as_str())),
            _ => None,
        })
        .collect();
    let value_of = |key: &str| given.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let declarations = tidemark_engine::declarations();
    let connector = value_of("connector").and_then(|c| declarations.connector(c));
    let format = value_of("format").and_then(|f| declarations.format(f));
    match tokens.as_slice() {
        // A value: after `'key' =`.
        [.., Token::Text(key), Token::Equals] => {
            let declared = connector
                .and_then(|c| c.option(key))
                .or_else(|| format.and_then(|f| f.option(key)));
            let values: Vec<String> = match (key.as_str(), declared.map(|d| d.kind)) {
                ("connector", _) => declarations
                    .connectors
                    .iter()
                    .map(|c| c.name.into())
                    .collect(),
                ("format", _) => match connector {
                    Some(c) => c.formats.iter().map(|f| f.to_string()).collect(),
                    None => declarations.formats.iter().map(|f| f.name.into()).collect(),
                },
                (_, Some(ValueKind::Bool)) => vec!["true".into(), "false".into()],
                (_, Some(ValueKind::OneOf(words))) => words.iter().map(|w| w.to_string()).collect(),
                _ => Vec::new(),
            };
            Some(values)
        }
        // A key: first, or after a comma.
        [] | [.., Token::Comma] => {
            let Some(connector) = connector else {
                return Some(vec!["connector".into()]);
            };
            let mut keys: Vec<&str> = connector
                .options
                .iter()
                .filter(|o| o.kind != ValueKind::NotSupported)
                .map(|o| o.key)
                .collect();
            if connector.format != FormatUse::None {
                keys.push("format");
            }
            keys.extend(format.iter().flat_map(|f| f.options.iter().map(|o| o.key)));
            Some(
                keys.into_iter()
                    .filter(|k| !k.ends_with('.') && value_of(k).is_none())
                    .map(String::from)
                    .collect(),
            )
        }
        _ => Some(Vec::new()),
    }
}

#[derive(Debug, PartialEq)]
enum Token {
    Text(String),
    Equals,
    Comma,
}

/// The quoted strings, `=` and `,` of a WITH clause typed so far (quotes
/// doubled inside a string are one quote).
fn with_tokens(clause: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = clause.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '=' => tokens.push(Token::Equals),
            ',' => tokens.push(Token::Comma),
            '\'' => {
                let mut text = String::new();
                while let Some(c) = chars.next() {
                    if c == '\'' {
                        if chars.peek() == Some(&'\'') {
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    text.push(c);
                }
                tokens.push(Token::Text(text));
            }
            _ => {}
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() -> SqlHelper {
        SqlHelper {
            names: Names {
                relations: vec!["bids".into(), "auctions".into(), "big_view".into()],
                columns: vec![
                    ("bids".into(), "price".into()),
                    ("bids".into(), "ts".into()),
                    ("auctions".into(), "price".into()),
                    ("auctions".into(), "seller".into()),
                ],
            },
            pending: String::new(),
        }
    }

    fn words(h: &SqlHelper, before: &str) -> (usize, Vec<String>) {
        let (start, found) = h.candidates(before);
        (start, found.into_iter().map(|p| p.replacement).collect())
    }

    #[test]
    fn completes_by_context() {
        let h = helper();
        let cases: &[(&str, usize, &[&str])] = &[
            ("SELECT * FROM b", 14, &["bids", "big_view"]),
            ("SELECT * FROM au", 14, &["auctions"]),
            (
                "select * from ",
                14,
                &["bids", "auctions", "big_view", "TABLE"],
            ),
            ("SELECT PRI", 7, &["price", "PRIMARY"]),
            ("SELECT pro", 7, &["proctime"]),
            ("sel", 0, &["seller", "select"]),
            ("SELECT bids.", 7, &["bids.price", "bids.ts"]),
            ("SELECT AUCTIONS.s", 7, &["AUCTIONS.seller"]),
            ("SET 'tidemark.tr", 5, &["tidemark.trace'"]),
            (
                "SET 'sql-client.execution.result-mode' = 't",
                42,
                &["tableau'"],
            ),
            (
                "RESET 'table.exec.late-records.sink.a",
                7,
                &["table.exec.late-records.sink.auctions'"],
            ),
            ("SELECT 'tid", 8, &[]),
            ("CREATE TABLE t (a INT) WITH ('c", 30, &["connector'"]),
            ("CREATE TABLE t (a INT) WITH ('connector' = 'fi", 44, &["filesystem'"]),
            (
                "CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', '",
                58,
                &["path'", "source.monitor-interval'", "scan.watermark.idle-timeout'", "format'"],
            ),
            (
                "CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'format' = '",
                69,
                &["csv'", "json'"],
            ),
            (
                "CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'format' = 'csv', 'csv.fi",
                76,
                &["csv.field-delimiter'"],
            ),
            (
                "create table t (a int) with ('connector' = 'filesystem', 'format' = 'json', \
                 'json.timestamp-format.standard' = '",
                112,
                &["SQL'", "ISO-8601'"],
            ),
            ("CREATE TABLE t (a INT) WITH ('connector' = 'print', 'p", 53, &["print-identifier'"]),
            ("SELECT ", 7, &[]),
            ("SELECT 1 -- b", 0, &[]),
        ];
        for (before, start, expected) in cases {
            assert_eq!(
                words(&h, before),
                (*start, expected.iter().map(|s| s.to_string()).collect()),
                "{before:?}"
            );
        }
    }

    #[test]
    fn earlier_lines_give_context() {
        let mut h = helper();
        h.pending = "SELECT *\nFROM\n".into();
        assert_eq!(
            words(&h, "  bi"),
            (2, vec!["bids".to_string(), "big_view".to_string()])
        );
        h.pending = "SET '".into();
        assert_eq!(words(&h, "x"), (0, vec![]));
    }
}
