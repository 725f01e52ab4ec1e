//! tidemark's statements and the statement loop that parses a script.
//!
//! sqlparser parses queries and expressions; this loop parses what it does
//! not know in Flink's form — `CREATE TABLE` with computed columns,
//! `WATERMARK FOR` and `WITH` options, and `SET 'key' = 'value'` — on the
//! same token stream, so every error keeps its line and column.

use crate::dialect::FlinkDialect;
use sqlparser::ast::{self, DataType, Ident};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};
use std::collections::BTreeMap;
use tidemark_common::{Error, Result, Span};

/// How deep expressions may nest before parsing stops with an error
/// rather than overflowing the stack.
const RECURSION_LIMIT: usize = 64;

/// How deep parentheses may nest. Checked on the tokens before parsing:
/// near its recursion limit the parser's backtracking takes exponential
/// time, so the limit must be met before the parser gets there.
const MAX_PAREN_DEPTH: usize = 40;

#[derive(Debug, Clone)]
pub enum Statement {
    CreateTable(CreateTable),
    /// `CREATE [TEMPORARY] VIEW name AS query`.
    CreateView {
        name: Ident,
        query: Box<ast::Query>,
        span: Span,
    },
    /// `SET 'key' = 'value'`; `SET` alone lists the options.
    Set {
        key: Option<(String, String)>,
        span: Span,
    },
    Reset {
        key: Option<String>,
        span: Span,
    },
    Query {
        query: Box<ast::Query>,
        span: Span,
    },
    /// `INSERT INTO table query`.
    Insert {
        table: Ident,
        query: Box<ast::Query>,
        span: Span,
    },
    /// `EXPLAIN [ANALYZE] statement`: with ANALYZE the statement also
    /// runs, and what each operator did is shown after the plan.
    Explain {
        statement: Box<Statement>,
        analyze: bool,
        span: Span,
    },
    ShowTables {
        span: Span,
    },
    ShowViews {
        span: Span,
    },
    /// `SHOW CREATE TABLE name` or `SHOW CREATE VIEW name`.
    ShowCreate {
        view: bool,
        name: Ident,
        span: Span,
    },
    Describe {
        table: Ident,
        span: Span,
    },
}

impl Statement {
    pub fn span(&self) -> Span {
        match self {
            Statement::CreateTable(c) => c.span,
            Statement::CreateView { span, .. } => *span,
            Statement::Set { span, .. }
            | Statement::Reset { span, .. }
            | Statement::Query { span, .. }
            | Statement::Insert { span, .. }
            | Statement::Explain { span, .. }
            | Statement::ShowTables { span }
            | Statement::ShowViews { span }
            | Statement::ShowCreate { span, .. }
            | Statement::Describe { span, .. } => *span,
        }
    }
}

#[derive(Debug, Clone)]
pub struct CreateTable {
    pub name: Ident,
    pub if_not_exists: bool,
    pub columns: Vec<ColumnDef>,
    pub watermark: Option<WatermarkDef>,
    pub primary_key: Vec<Ident>,
    pub options: Vec<(String, String, Span)>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum ColumnDef {
    Physical {
        name: Ident,
        data_type: DataType,
        not_null: bool,
        span: Span,
    },
    Computed {
        name: Ident,
        expr: ast::Expr,
        span: Span,
    },
    /// `name TYPE METADATA [FROM 'key'] [VIRTUAL]`: a value the connector
    /// gives beside each row; the key is the column's name when not given.
    Metadata {
        name: Ident,
        data_type: DataType,
        not_null: bool,
        key: Option<(String, Span)>,
        virtual_column: bool,
        span: Span,
    },
}

impl ColumnDef {
    pub fn name(&self) -> &Ident {
        match self {
            ColumnDef::Physical { name, .. }
            | ColumnDef::Computed { name, .. }
            | ColumnDef::Metadata { name, .. } => name,
        }
    }
}

#[derive(Debug, Clone)]
pub struct WatermarkDef {
    pub column: Ident,
    pub expr: ast::Expr,
    pub span: Span,
}

/// Converts a sqlparser span to ours.
pub fn span_of(s: sqlparser::tokenizer::Span) -> Span {
    Span::new(s.start.line, s.start.column, s.end.line, s.end.column)
}

/// Parses a whole script into statements.
pub fn parse_script(sql: &str) -> Result<Vec<Statement>> {
    let dialect = FlinkDialect;
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(|e| Error::plan(e.message, Span::point(e.location.line, e.location.column)))?;
    check_nesting(&tokens)?;
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(RECURSION_LIMIT)
        .with_tokens_with_locations(tokens);
    let mut statements = Vec::new();
    loop {
        while parser.consume_token(&Token::SemiColon) {}
        if parser.peek_token_ref().token == Token::EOF {
            return Ok(statements);
        }
        let statement = parse_statement(&mut parser).map_err(|e| parser_error(e, sql))?;
        statements.push(statement);
        let next = parser.peek_token();
        if !matches!(next.token, Token::SemiColon | Token::EOF) {
            return Err(Error::plan(
                format!(
                    "expected ';' or the end of the statement, found {}",
                    next.token
                ),
                span_of(next.span),
            ));
        }
    }
}

fn check_nesting(tokens: &[TokenWithSpan]) -> Result<()> {
    let mut depth = 0usize;
    for t in tokens {
        match t.token {
            Token::LParen => {
                depth += 1;
                if depth > MAX_PAREN_DEPTH {
                    return Err(Error::plan(
                        format!("parentheses nest more than {MAX_PAREN_DEPTH} deep"),
                        span_of(t.span),
                    ));
                }
            }
            Token::RParen => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Turns sqlparser's message (which ends in " at Line: l, Column: c") into
/// an error with a span.
fn parser_error(e: ParserError, sql: &str) -> Error {
    let message = match e {
        ParserError::TokenizerError(m) | ParserError::ParserError(m) => m,
        ParserError::RecursionLimitExceeded => "the statement nests too deeply".to_string(),
    };
    if let Some(at) = message.rfind(" at Line: ") {
        let location = &message[at + " at Line: ".len()..];
        if let Some((line, column)) = location.split_once(", Column: ") {
            if let (Ok(line), Ok(column)) = (line.trim().parse(), column.trim().parse()) {
                return Error::plan(tidy_message(&message[..at]), Span::point(line, column));
            }
        }
    }
    // Errors at the end of input carry no position: point past the text.
    let line = sql.lines().count().max(1) as u64;
    let column = sql.lines().last().map_or(0, |l| l.chars().count()) as u64 + 1;
    Error::plan(tidy_message(&message), Span::point(line, column))
}

fn tidy_message(m: &str) -> String {
    let m = m.strip_prefix("sql parser error: ").unwrap_or(m);
    let m = m
        .replace("Expected: ", "expected ")
        .replace(", found: ", ", found ");
    m.to_string()
}

fn start_span(parser: &Parser) -> sqlparser::tokenizer::Span {
    parser.peek_token_ref().span
}

fn spanned(parser: &Parser, start: sqlparser::tokenizer::Span) -> Span {
    let end = previous_token(parser).span;
    span_of(start.union(&end))
}

fn previous_token(parser: &Parser) -> TokenWithSpan {
    // The token under the cursor's back: the last one consumed.
    parser.get_current_token().clone()
}

fn parse_statement(parser: &mut Parser) -> Result<Statement, ParserError> {
    let start = start_span(parser);
    let first = parser.peek_token();
    match &first.token {
        Token::Word(w) => match w.keyword {
            Keyword::CREATE => {
                let is_view = matches!(&parser.peek_nth_token(1).token, Token::Word(w) if w.keyword == Keyword::VIEW)
                    || (matches!(&parser.peek_nth_token(1).token, Token::Word(w) if w.keyword == Keyword::TEMPORARY)
                        && matches!(&parser.peek_nth_token(2).token, Token::Word(w) if w.keyword == Keyword::VIEW));
                if !is_view {
                    return parse_create_table(parser);
                }
                parser.next_token();
                let _temporary = parser.parse_keyword(Keyword::TEMPORARY);
                parser.expect_keyword(Keyword::VIEW)?;
                let name = parser.parse_identifier()?;
                parser.expect_keyword(Keyword::AS)?;
                let query = parser.parse_query()?;
                Ok(Statement::CreateView {
                    name,
                    query,
                    span: spanned(parser, start),
                })
            }
            Keyword::SET => {
                parser.next_token();
                let key = unless_at_end(parser, parse_option)?;
                Ok(Statement::Set {
                    key,
                    span: spanned(parser, start),
                })
            }
            Keyword::RESET => {
                parser.next_token();
                let key = unless_at_end(parser, Parser::parse_literal_string)?;
                Ok(Statement::Reset {
                    key,
                    span: spanned(parser, start),
                })
            }
            Keyword::EXPLAIN => {
                parser.next_token();
                let analyze = parser.parse_keyword(Keyword::ANALYZE);
                let inner = parse_statement(parser)?;
                Ok(Statement::Explain {
                    statement: Box::new(inner),
                    analyze,
                    span: spanned(parser, start),
                })
            }
            Keyword::SHOW => {
                parser.next_token();
                if parser.parse_keyword(Keyword::TABLES) {
                    Ok(Statement::ShowTables {
                        span: spanned(parser, start),
                    })
                } else if parse_word(parser, "VIEWS") {
                    Ok(Statement::ShowViews {
                        span: spanned(parser, start),
                    })
                } else if parser.parse_keyword(Keyword::CREATE) {
                    let view = if parser.parse_keyword(Keyword::TABLE) {
                        false
                    } else if parser.parse_keyword(Keyword::VIEW) {
                        true
                    } else {
                        return parser.expected("TABLE or VIEW", parser.peek_token());
                    };
                    let name = parser.parse_identifier()?;
                    Ok(Statement::ShowCreate {
                        view,
                        name,
                        span: spanned(parser, start),
                    })
                } else {
                    parser.expected(
                        "TABLES, VIEWS, CREATE TABLE or CREATE VIEW",
                        parser.peek_token(),
                    )
                }
            }
            Keyword::DESCRIBE | Keyword::DESC => {
                parser.next_token();
                let table = parser.parse_identifier()?;
                Ok(Statement::Describe {
                    table,
                    span: spanned(parser, start),
                })
            }
            Keyword::INSERT => {
                parser.next_token();
                parser.expect_keyword(Keyword::INTO)?;
                let table = parser.parse_identifier()?;
                if parser.peek_token_ref().token == Token::LParen {
                    return parser.expected(
                        "a query (a column list after INSERT INTO is not supported yet)",
                        parser.peek_token(),
                    );
                }
                let query = parser.parse_query()?;
                Ok(Statement::Insert {
                    table,
                    query,
                    span: spanned(parser, start),
                })
            }
            Keyword::SELECT | Keyword::WITH | Keyword::VALUES => {
                parse_query_statement(parser, start)
            }
            _ => parser.expected(
                "a statement (CREATE TABLE, SET, SELECT, INSERT INTO, EXPLAIN, SHOW, DESCRIBE)",
                first,
            ),
        },
        Token::LParen => parse_query_statement(parser, start),
        _ => parser.expected(
            "a statement (CREATE TABLE, SET, SELECT, INSERT INTO, EXPLAIN, SHOW, DESCRIBE)",
            first,
        ),
    }
}

/// A query as a statement: `SELECT ...`, `WITH ...`, `VALUES ...` or
/// `(...)`.
fn parse_query_statement(
    parser: &mut Parser,
    start: sqlparser::tokenizer::Span,
) -> Result<Statement, ParserError> {
    let query = parser.parse_query()?;
    Ok(Statement::Query {
        query,
        span: spanned(parser, start),
    })
}

/// What `parse` reads, unless the statement ends at the next token: `SET`
/// and `RESET` may stand alone.
fn unless_at_end<'a, T>(
    parser: &mut Parser<'a>,
    parse: impl FnOnce(&mut Parser<'a>) -> Result<T, ParserError>,
) -> Result<Option<T>, ParserError> {
    if matches!(parser.peek_token_ref().token, Token::SemiColon | Token::EOF) {
        Ok(None)
    } else {
        parse(parser).map(Some)
    }
}

/// `'key' = 'value'`, an option as `SET` and `WITH (...)` write it.
fn parse_option(parser: &mut Parser) -> Result<(String, String), ParserError> {
    let key = parser.parse_literal_string()?;
    parser.expect_token(&Token::Eq)?;
    let value = parser.parse_literal_string()?;
    Ok((key, value))
}

/// Consumes the next token if it is the word `word`, keyword or not
/// (sqlparser has no keyword for some of Flink's words).
fn parse_word(parser: &mut Parser, word: &str) -> bool {
    let is_word = matches!(&parser.peek_token_ref().token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
    if is_word {
        parser.next_token();
    }
    is_word
}

fn parse_create_table(parser: &mut Parser) -> Result<Statement, ParserError> {
    let start = start_span(parser);
    parser.expect_keyword(Keyword::CREATE)?;
    let _temporary = parser.parse_keyword(Keyword::TEMPORARY);
    parser.expect_keyword(Keyword::TABLE)?;
    let if_not_exists = parser.parse_keywords(&[Keyword::IF, Keyword::NOT, Keyword::EXISTS]);
    let name = parser.parse_identifier()?;
    parser.expect_token(&Token::LParen)?;
    let mut columns = Vec::new();
    let mut watermark = None;
    let mut primary_key = Vec::new();
    loop {
        let item_start = start_span(parser);
        // `WATERMARK FOR ...` is the clause; a column may still be called
        // watermark (as a late-records sink's metadata column is).
        let clause = matches!(&parser.peek_nth_token_ref(1).token, Token::Word(w) if w.keyword == Keyword::FOR);
        if clause && parse_word(parser, "WATERMARK") {
            parser.expect_keyword(Keyword::FOR)?;
            let column = parser.parse_identifier()?;
            parser.expect_keyword(Keyword::AS)?;
            let expr = parser.parse_expr()?;
            watermark = Some(WatermarkDef {
                column,
                expr,
                span: spanned(parser, item_start),
            });
        } else if parser.parse_keywords(&[Keyword::PRIMARY, Keyword::KEY]) {
            primary_key = parser
                .parse_parenthesized_column_list(sqlparser::parser::IsOptional::Mandatory, false)?;
            parser.expect_keywords(&[Keyword::NOT, Keyword::ENFORCED])?;
        } else {
            let name = parser.parse_identifier()?;
            if parser.parse_keyword(Keyword::AS) {
                let expr = parser.parse_expr()?;
                columns.push(ColumnDef::Computed {
                    name,
                    expr,
                    span: spanned(parser, item_start),
                });
            } else {
                let data_type = parser.parse_data_type()?;
                let not_null = parser.parse_keywords(&[Keyword::NOT, Keyword::NULL]);
                if !not_null {
                    let _ = parser.parse_keyword(Keyword::NULL);
                }
                if parse_word(parser, "METADATA") {
                    let key = if parser.parse_keyword(Keyword::FROM) {
                        let key_start = start_span(parser);
                        let key = parser.parse_literal_string()?;
                        Some((key, spanned(parser, key_start)))
                    } else {
                        None
                    };
                    let virtual_column = parse_word(parser, "VIRTUAL");
                    columns.push(ColumnDef::Metadata {
                        name,
                        data_type,
                        not_null,
                        key,
                        virtual_column,
                        span: spanned(parser, item_start),
                    });
                } else {
                    columns.push(ColumnDef::Physical {
                        name,
                        data_type,
                        not_null,
                        span: spanned(parser, item_start),
                    });
                }
            }
        }
        if parser.consume_token(&Token::Comma) {
            if parser.peek_token_ref().token == Token::RParen {
                parser.next_token();
                break;
            }
            continue;
        }
        parser.expect_token(&Token::RParen)?;
        break;
    }
    let mut options = Vec::new();
    if parser.parse_keyword(Keyword::WITH) {
        parser.expect_token(&Token::LParen)?;
        if !parser.consume_token(&Token::RParen) {
            loop {
                let option_start = start_span(parser);
                let (key, value) = parse_option(parser)?;
                options.push((key, value, spanned(parser, option_start)));
                if parser.consume_token(&Token::Comma) {
                    continue;
                }
                parser.expect_token(&Token::RParen)?;
                break;
            }
        }
    }
    Ok(Statement::CreateTable(CreateTable {
        name,
        if_not_exists,
        columns,
        watermark,
        primary_key,
        options,
        span: spanned(parser, start),
    }))
}

/// The options of a `CREATE TABLE`, as a map.
pub fn options_map(options: &[(String, String, Span)]) -> BTreeMap<String, String> {
    options
        .iter()
        .map(|(k, v, _)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_create_table_with_watermark_and_computed_column() -> Result<()> {
        let stmts = parse_script(
            "CREATE TABLE bids (item STRING, price DECIMAL(10, 2), ts TIMESTAMP(3),\n  cost AS price * 2,\n  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND\n) WITH ('connector' = 'filesystem', 'path' = 'b.csv');\nSET 'a' = 'b';",
        )?;
        assert_eq!(stmts.len(), 2);
        let Statement::CreateTable(c) = &stmts[0] else {
            panic!("expected CREATE TABLE, got {:?}", stmts[0]);
        };
        assert_eq!(c.columns.len(), 4);
        assert!(matches!(c.columns[3], ColumnDef::Computed { .. }));
        assert_eq!(
            c.watermark.as_ref().map(|w| w.column.value.as_str()),
            Some("ts")
        );
        assert_eq!(c.options.len(), 2);
        assert_eq!(c.span.start_line, 1);
        assert_eq!(c.span.end_line, 4);
        Ok(())
    }

    #[test]
    fn parses_tvf_with_table_argument() -> Result<()> {
        let stmts = parse_script(
            "SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND));\nSELECT * FROM TABLE(TUMBLE(DATA => TABLE bids, TIMECOL => DESCRIPTOR(ts), SIZE => INTERVAL '5' SECOND, `OFFSET` => INTERVAL '1' SECOND))",
        )?;
        assert_eq!(stmts.len(), 2);
        Ok(())
    }

    #[test]
    fn parses_show_statements() -> Result<()> {
        let stmts =
            parse_script("SHOW TABLES; show views; SHOW CREATE TABLE t; SHOW CREATE VIEW `v`")?;
        assert!(matches!(stmts[0], Statement::ShowTables { .. }));
        assert!(matches!(stmts[1], Statement::ShowViews { .. }));
        assert!(
            matches!(&stmts[2], Statement::ShowCreate { view: false, name, .. } if name.value == "t")
        );
        assert!(
            matches!(&stmts[3], Statement::ShowCreate { view: true, name, .. } if name.value == "v")
        );
        Ok(())
    }

    #[test]
    fn syntax_errors_have_positions() {
        let cases = [
            ("SELEC 1", 1, 1),
            ("SELECT a FROM t\nWHERE", 2, 6),
            ("CREATE TABLE t (a INT", 1, 22),
            ("SELECT 1 SELECT 2", 1, 10),
            ("SHOW FUNCTIONS", 1, 6),
            ("SHOW CREATE INDEX i", 1, 13),
        ];
        for (sql, line, col) in cases {
            match parse_script(sql) {
                Err(Error::Plan { span, .. }) => {
                    assert_eq!((span.start_line, span.start_col), (line, col), "{sql}")
                }
                other => panic!("{sql}: expected a plan error, got {other:?}"),
            }
        }
    }
}
