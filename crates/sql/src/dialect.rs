//! The Flink SQL dialect on top of sqlparser.
//!
//! sqlparser does not know `TABLE t` as a table-valued function argument
//! (`TUMBLE(TABLE t, ...)`); the [`Dialect::parse_prefix`] hook parses it
//! into a call of the marker function [`TABLE_ARG`] so that the binder can
//! recognise it. The [`Dialect::parse_infix`] hook parses `a IS [NOT]
//! DISTINCT FROM b` with `b` bound as tightly as a comparison's operand:
//! sqlparser's own rule reads a whole expression there, so `a IS DISTINCT
//! FROM b AND c` would come out as `a IS DISTINCT FROM (b AND c)`.
//! Everything else is sqlparser's generic dialect, with backquoted
//! identifiers as Flink writes them (`` `OFFSET` ``).

use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
    ObjectName, ObjectNamePart,
};
use sqlparser::dialect::Dialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// The name of the marker function a `TABLE t` argument is parsed into.
pub const TABLE_ARG: &str = "$table";

#[derive(Debug, Default)]
pub struct FlinkDialect;

impl Dialect for FlinkDialect {
    fn is_identifier_start(&self, ch: char) -> bool {
        ch.is_alphabetic() || ch == '_' || ch == '$'
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        ch.is_alphanumeric() || ch == '_' || ch == '$'
    }

    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        ch == '`' || ch == '"'
    }

    fn supports_named_fn_args_with_rarrow_operator(&self) -> bool {
        true
    }

    fn supports_filter_during_aggregation(&self) -> bool {
        true
    }

    /// `GROUPING SETS`, `ROLLUP` and `CUBE` in GROUP BY.
    fn supports_group_by_expr(&self) -> bool {
        true
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        let is_table_arg = matches!(&parser.peek_token_ref().token, Token::Word(w) if w.keyword == Keyword::TABLE)
            && matches!(&parser.peek_nth_token(1).token, Token::Word(_));
        if !is_table_arg {
            return None;
        }
        let table_token = parser.next_token();
        Some(parse_table_arg(parser, table_token.span))
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        let keyword = |t: &Token, k: Keyword| matches!(t, Token::Word(w) if w.keyword == k);
        let [is, first, second, third] = parser.peek_tokens::<4>();
        if !keyword(&is, Keyword::IS) {
            return None;
        }
        let negated = keyword(&first, Keyword::NOT);
        let (distinct, from) = if negated {
            (&second, &third)
        } else {
            (&first, &second)
        };
        if !keyword(distinct, Keyword::DISTINCT) || !keyword(from, Keyword::FROM) {
            return None;
        }
        for _ in 0..(3 + usize::from(negated)) {
            parser.next_token();
        }
        // `precedence` is IS's own: the right side takes only what binds
        // more tightly than IS.
        Some(parser.parse_subexpr(precedence).map(|right| {
            let (left, right) = (Box::new(expr.clone()), Box::new(right));
            if negated {
                Expr::IsNotDistinctFrom(left, right)
            } else {
                Expr::IsDistinctFrom(left, right)
            }
        }))
    }
}

/// `name [PARTITION BY col | PARTITION BY (col, ...)]` after `TABLE`, as
/// the marker call `$table(name, col, ...)`.
fn parse_table_arg(
    parser: &mut Parser,
    table_span: sqlparser::tokenizer::Span,
) -> Result<Expr, ParserError> {
    let name = parser.parse_object_name(false)?;
    let mut args = vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(
        Expr::CompoundIdentifier(
            name.0
                .into_iter()
                .filter_map(|p| p.as_ident().cloned())
                .collect(),
        ),
    ))];
    if parser.parse_keywords(&[Keyword::PARTITION, Keyword::BY]) {
        let columns = if parser.consume_token(&Token::LParen) {
            let columns = parser.parse_comma_separated(|p| p.parse_identifier())?;
            parser.expect_token(&Token::RParen)?;
            columns
        } else {
            vec![parser.parse_identifier()?]
        };
        args.extend(
            columns
                .into_iter()
                .map(|c| FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(c)))),
        );
    }
    let mut marker = Ident::new(TABLE_ARG);
    marker.span = table_span;
    Ok(Expr::Function(Function {
        name: ObjectName(vec![ObjectNamePart::Identifier(marker)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args,
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::ast::{BinaryOperator, SelectItem, SetExpr, Statement};

    fn select_expr(sql: &str) -> Expr {
        let statements = Parser::parse_sql(&FlinkDialect, sql).expect("parses");
        let Statement::Query(query) = &statements[0] else {
            panic!("not a query: {sql}")
        };
        let SetExpr::Select(select) = query.body.as_ref() else {
            panic!("not a SELECT: {sql}")
        };
        match &select.projection[0] {
            SelectItem::UnnamedExpr(e) => e.clone(),
            other => panic!("unexpected item {other}"),
        }
    }

    #[test]
    fn is_distinct_from_binds_tighter_than_and() {
        let e = select_expr("SELECT a IS NOT DISTINCT FROM b AND c = d");
        let Expr::BinaryOp { left, op, .. } = e else {
            panic!("AND is not on top")
        };
        assert_eq!(op, BinaryOperator::And);
        assert!(matches!(*left, Expr::IsNotDistinctFrom(..)));
        let e = select_expr("SELECT a IS DISTINCT FROM b + 1 OR x");
        let Expr::BinaryOp { left, op, .. } = e else {
            panic!("OR is not on top")
        };
        assert_eq!(op, BinaryOperator::Or);
        let Expr::IsDistinctFrom(_, right) = *left else {
            panic!("not IS DISTINCT FROM")
        };
        assert!(matches!(
            *right,
            Expr::BinaryOp {
                op: BinaryOperator::Plus,
                ..
            }
        ));
        // Other IS forms are sqlparser's own.
        assert!(matches!(
            select_expr("SELECT a IS NOT NULL"),
            Expr::IsNotNull(_)
        ));
    }
}
