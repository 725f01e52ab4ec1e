//! Binds a query's AST to a [`LogicalPlan`]: resolves tables and columns,
//! types expressions, recognises window TVFs and window aggregations, and
//! rejects with a pointed error what a stream cannot run.
//!
//! This module binds the query itself: WITH, ORDER BY and LIMIT, UNION
//! ALL, and the choice a SELECT makes between a plain projection, a window
//! aggregation, an OVER aggregation and a join. [`relation`] binds FROM
//! items (tables, views, WITH queries, window TVFs, subqueries),
//! [`select`] the SELECT list and filters, [`window_aggregate`] GROUP BY
//! over a window TVF (with [`grouping_sets`] for GROUPING SETS, ROLLUP and
//! CUBE), [`group_window`] Flink's legacy `GROUP BY TUMBLE(ts, ..)`,
//! rewritten into that, and [`conform`] casts rows to the types a UNION
//! ALL or an INSERT INTO asks for.

mod conform;
mod group_window;
pub(crate) mod grouping_sets;
mod relation;
mod select;
mod window_aggregate;
mod windowed_input;

pub use conform::insert_plan;
pub(crate) use select::{filter, select_list};

use crate::catalog::Catalog;
use crate::expr_binder::{contains_aggregate, spanned};
use crate::plan::LogicalPlan;
use crate::statement::span_of;
use conform::union_all;
use relation::Relation;
use sqlparser::ast::{self, GroupByExpr, SelectItem, SetExpr, Spanned};
use tidemark_common::{Error, Result, Span};

/// How deep subqueries may nest.
const MAX_DEPTH: usize = 16;

pub struct QueryBinder<'a> {
    pub catalog: &'a Catalog,
    depth: usize,
    /// The WITH queries in scope, innermost last: a name here hides a
    /// table or view of the catalog.
    ctes: Vec<(String, std::sync::Arc<ast::Query>)>,
}

impl<'a> QueryBinder<'a> {
    pub fn new(catalog: &'a Catalog) -> Self {
        QueryBinder {
            catalog,
            depth: 0,
            ctes: Vec::new(),
        }
    }

    pub fn bind_query(&mut self, query: &ast::Query, span: Span) -> Result<LogicalPlan> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Error::plan("queries nest too deeply", span));
        }
        let result = self.bind_query_inner(query, span);
        self.depth -= 1;
        result.map_err(|e| e.or_span(span))
    }

    fn bind_query_inner(&mut self, query: &ast::Query, span: Span) -> Result<LogicalPlan> {
        let scope = self.ctes.len();
        if let Some(with) = &query.with {
            if with.recursive {
                return Err(Error::plan(
                    "WITH RECURSIVE is not supported on a stream",
                    span_of(with.span()),
                ));
            }
            for cte in &with.cte_tables {
                let name = cte.alias.name.value.to_ascii_lowercase();
                self.ctes
                    .push((name, std::sync::Arc::new((*cte.query).clone())));
            }
        }
        let result = self.bind_query_body(query, span);
        self.ctes.truncate(scope);
        result
    }

    fn bind_query_body(&mut self, query: &ast::Query, span: Span) -> Result<LogicalPlan> {
        if let Some(order) = &query.order_by {
            return Err(Error::plan(
                "ORDER BY is not supported on a streaming query",
                span_of(order.span()),
            )
            .with_hint("results come out in event-time order of window firing"));
        }
        if let Some(limit) = &query.limit_clause {
            return Err(Error::plan(
                "LIMIT is not supported yet",
                span_of(limit.span()),
            ));
        }
        self.bind_set_expr(query.body.as_ref(), span)
    }

    fn bind_set_expr(&mut self, body: &SetExpr, span: Span) -> Result<LogicalPlan> {
        match body {
            SetExpr::Select(select) => self.bind_select(select, span),
            SetExpr::Query(inner) => self.bind_query(inner, span),
            SetExpr::SetOperation {
                op: ast::SetOperator::Union,
                set_quantifier,
                left,
                right,
            } => {
                let op_span = span_of(body.span());
                if !matches!(set_quantifier, ast::SetQuantifier::All) {
                    return Err(Error::plan(
                        "UNION without ALL (a distinct union) is not supported on streams",
                        op_span,
                    )
                    .with_hint("use UNION ALL"));
                }
                let left = self.bind_set_expr(left, span)?;
                let right = self.bind_set_expr(right, span_of(right.span()))?;
                union_all(left, right, op_span)
            }
            other => Err(Error::plan(
                format!("{} is not supported yet", first_word(&other.to_string())),
                span_of(other.span()),
            )),
        }
    }

    fn bind_select(&mut self, select: &ast::Select, span: Span) -> Result<LogicalPlan> {
        if select.distinct.is_some() {
            return Err(
                Error::plan("SELECT DISTINCT is not supported on a stream", span)
                    .with_hint("aggregate over a window TVF instead"),
            );
        }
        // `WHERE [NOT] EXISTS (...)` / `x [NOT] IN (SELECT ...)` over two
        // window TVFs: a semi or anti window join.
        let semi = match select.from.as_slice() {
            [one] if one.joins.is_empty() => self.bind_semi_join(select, &one.relation)?,
            _ => None,
        };
        let (select, relation) = match semi {
            Some((plan, rest)) => {
                let mut select = select.clone();
                select.selection = rest;
                (std::borrow::Cow::Owned(select), Relation::plain(plan))
            }
            None => {
                let relation = match select.from.as_slice() {
                    [] => {
                        return Err(Error::plan(
                            "a SELECT without FROM is not supported: tidemark queries read tables",
                            span,
                        )
                        .with_hint(
                            "for rows of constants, select them from a table, e.g. one with 'connector' = 'datagen' and 'number-of-rows' = '1'",
                        ))
                    }
                    [one] => match one.joins.as_slice() {
                        [] => self.bind_relation(&one.relation)?,
                        [join] => Relation::plain(self.bind_window_join(&one.relation, join)?),
                        [_, third, ..] => {
                            return Err(Error::plan(
                                "a join of more than two inputs is not supported yet",
                                span_of(third.relation.span()),
                            ))
                        }
                    },
                    [_, second, ..] => {
                        return Err(Error::plan(
                            "a comma join (several tables in FROM) is not supported",
                            span_of(second.relation.span()),
                        )
                        .with_hint("join two window TVFs: FROM (...) L JOIN (...) R ON L.window_start = R.window_start AND L.window_end = R.window_end AND ..."))
                    }
                };
                (std::borrow::Cow::Borrowed(select), relation)
            }
        };
        let select = select.as_ref();
        let over: Vec<(ast::Function, ast::Expr)> = select
            .projection
            .iter()
            .flat_map(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    crate::expr_binder::over_calls(e)
                }
                _ => Vec::new(),
            })
            .collect();
        if !over.is_empty() {
            return crate::over::bind_over(select, relation.plan, over, span);
        }
        let group_exprs = match &select.group_by {
            GroupByExpr::Expressions(exprs, modifiers) => {
                if !modifiers.is_empty() {
                    return Err(Error::plan("GROUP BY modifiers are not supported", span));
                }
                exprs.clone()
            }
            GroupByExpr::All(_) => return Err(Error::plan("GROUP BY ALL is not supported", span)),
        };
        if group_window::uses_group_window(select, &group_exprs) {
            return self.bind_group_window(select, relation, &group_exprs, span);
        }
        let has_aggregates = select.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                contains_aggregate(e)
            }
            _ => false,
        }) || select.having.as_ref().is_some_and(contains_aggregate);
        if group_exprs.is_empty() && !has_aggregates {
            if let Some(h) = &select.having {
                return Err(Error::plan("HAVING needs GROUP BY", spanned(h)));
            }
            return self.bind_projection(select, relation);
        }
        self.bind_window_aggregate(select, relation, &group_exprs, span)
    }
}

fn first_word(s: &str) -> String {
    s.split_whitespace().next().unwrap_or("this").to_string()
}

#[cfg(test)]
mod tests {
    use crate::{parse_script, Catalog, QueryBinder, Statement};
    use tidemark_common::{Error, Result};

    const TABLE: &str = "CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), other TIMESTAMP(3), \
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = 'x.csv', 'format' = 'csv');\n";

    /// Binds the last statement of `TABLE` + `query`; `query` marks where
    /// the error must point with `⟨` right before the offending text.
    fn error_at(query: &str) -> Result<(String, (u64, u64), (u64, u64))> {
        let marker = query.find('⟨').expect("the case marks the error position");
        let before = &query[..marker];
        let line = 2 + before.matches('\n').count() as u64;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u64 + 1;
        let sql = format!("{TABLE}{}", query.replace('⟨', ""));
        let statements = parse_script(&sql)?;
        let mut catalog = Catalog::new(tidemark_engine::declarations());
        let mut result = Ok(());
        for s in &statements {
            result = match s {
                Statement::CreateTable(c) => catalog.create_table(c, std::path::Path::new(".")),
                Statement::Query { query, span } => QueryBinder::new(&catalog)
                    .bind_query(query, *span)
                    .map(|_| ()),
                _ => Ok(()),
            };
        }
        match result {
            Err(Error::Plan { message, span, .. }) => {
                Ok((message, (span.start_line, span.start_col), (line, col)))
            }
            other => panic!("expected a plan error for {query}, got {other:?}"),
        }
    }

    #[test]
    fn plan_errors_point_at_the_offending_sql() -> Result<()> {
        let cases = [
            ("SELECT ⟨nope FROM t", "unknown column 'nope'"),
            ("SELECT k FROM ⟨missing", "unknown table 'missing'"),
            (
                "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(⟨other), INTERVAL '1' SECOND))",
                "column 'other' is not a rowtime attribute",
            ),
            (
                "SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND))\nGROUP BY ⟨k",
                "a window aggregation must GROUP BY window_start, window_end",
            ),
            ("SELECT k FROM t WHERE ⟨COUNT(*) > 1", "aggregate function COUNT is not allowed in WHERE"),
            ("SELECT k, COUNT(*) FROM t GROUP BY ⟨k", "aggregation without a window is not supported on a stream"),
            (
                "SELECT ⟨v, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND))\nGROUP BY window_start, window_end, k",
                "column 'v' is neither grouped nor aggregated",
            ),
            (
                "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL ⟨'0' SECOND))",
                "SIZE must be positive",
            ),
            (
                "SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL ⟨'5' SECOND))",
                "HOP's size must be an integral multiple of its slide",
            ),
            (
                "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL ⟨'1' MINUTE))",
                "TUMBLE's offset must be smaller than its size",
            ),
            (
                "SELECT k, COUNT(*) FROM TABLE(SESSION(TABLE t PARTITION BY ⟨kk, DESCRIPTOR(ts), INTERVAL '1' SECOND))\nGROUP BY k, window_start, window_end",
                "unknown column 'kk' in PARTITION BY",
            ),
            (
                "SELECT COUNT(*) FROM TABLE(SESSION(TABLE t PARTITION BY ⟨k, DESCRIPTOR(ts), INTERVAL '1' SECOND))\nGROUP BY window_start, window_end",
                "SESSION is partitioned by 'k', which the query does not GROUP BY",
            ),
            (
                "SELECT * FROM TABLE(TUMBLE(TABLE t PARTITION BY ⟨k, DESCRIPTOR(ts), INTERVAL '1' SECOND))",
                "TUMBLE takes no PARTITION BY",
            ),
            (
                "SELECT * FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL ⟨'5' SECOND))",
                "CUMULATE's max size must be an integral multiple of its step",
            ),
            (
                "SELECT k, ⟨TUMBLE_END(ts, INTERVAL '1' SECOND), COUNT(*) FROM t GROUP BY k",
                "TUMBLE_END needs a group window",
            ),
            (
                "SELECT ⟨HOP_START(ts, INTERVAL '1' SECOND, INTERVAL '2' SECOND) FROM t\nGROUP BY TUMBLE(ts, INTERVAL '1' SECOND)",
                "HOP_START(ts, INTERVAL '1' SECOND, INTERVAL '2' SECOND) does not match the group window",
            ),
            ("SELECT COUNT(*) FROM t GROUP BY TUMBLE(⟨other, INTERVAL '1' SECOND)", "column 'other' is not a rowtime attribute"),
            ("SELECT COUNT(*) FROM t GROUP BY ⟨HOP(ts, INTERVAL '1' SECOND)", "HOP takes a time attribute and slide and size"),
            ("SELECT COUNT(*) FROM t WHERE ⟨TUMBLE_START(ts, INTERVAL '1' SECOND) > ts GROUP BY TUMBLE(ts, INTERVAL '1' SECOND)", "TUMBLE_START cannot be used in WHERE"),
            ("SELECT ⟨PROCTIME() FROM t", "PROCTIME() can only define a computed column"),
            ("SELECT k || ⟨v FROM t", "cannot apply '||' to STRING and INT"),
            (
                "SELECT * FROM ⟨t JOIN t AS u ON t.k = u.k",
                "only window joins are supported on streams",
            ),
            ("SELECT ⟨SPLIT_INDEX(k, ',') FROM t", "SPLIT_INDEX takes 3 argument(s), got 2"),
            ("SELECT CONCAT(k, ⟨v) FROM t", "CONCAT's arguments must be a STRING, got INT"),
            ("SELECT REGEXP_EXTRACT(k, ⟨'(') FROM t", "REGEXP_EXTRACT: invalid regex '(': unclosed group"),
            ("SELECT ROUND(v, ⟨v) FROM t", "ROUND's digits must be an integer literal"),
            ("SELECT MOD(v, ⟨1.5e0) FROM t", "MOD takes exact numbers"),
            ("SELECT ⟨UNIX_TIMESTAMP() FROM t", "UNIX_TIMESTAMP() reads the clock"),
            ("SELECT DATE_FORMAT(ts, ⟨'yyyy z') FROM t", "DATE_FORMAT's pattern 'yyyy z': letter 'z' is not supported"),
            ("SELECT DATE_FORMAT(ts, ⟨'aa') FROM t", "DATE_FORMAT's pattern 'aa': too many pattern letters: 'a'"),
            ("SELECT DATE_FORMAT(ts, ⟨'pd') FROM t", "DATE_FORMAT's pattern 'pd': pad width 1 is narrower"),
            ("SELECT FROM_UNIXTIME(v, ⟨'yyyy Q') FROM t", "FROM_UNIXTIME's pattern 'yyyy Q': unknown pattern letter 'Q'"),
            ("SELECT FROM_UNIXTIME(v, ⟨'yyyy''') FROM t", "FROM_UNIXTIME's pattern 'yyyy'': unterminated quote"),
            ("SELECT UNIX_TIMESTAMP(k, ⟨'yyyy B') FROM t", "UNIX_TIMESTAMP's pattern 'yyyy B': unknown pattern letter 'B'"),
            ("SELECT UNIX_TIMESTAMP(k, ⟨'yyyy w') FROM t", "UNIX_TIMESTAMP's pattern 'yyyy w': 'w' is not supported when reading text"),
            ("SELECT ⟨TO_TIMESTAMP(k, 'yyyy QQQ') FROM t", "TO_TIMESTAMP's pattern 'yyyy QQQ': 'QQQ' is not supported when reading text"),
            ("SELECT DATE_FORMAT(ts, ⟨k) FROM t", "DATE_FORMAT's format must be a string literal"),
            ("SELECT IF(⟨v, 1, 2) FROM t", "IF's condition must be a BOOLEAN, got INT"),
            ("SELECT FLOOR(⟨k TO DAY) FROM t", "FLOOR(.. TO DAY) needs a TIMESTAMP, got STRING"),
            ("SELECT EXTRACT(DAY FROM ⟨k) FROM t", "EXTRACT needs a TIMESTAMP, got STRING"),
            ("SELECT SUBSTRING(k FROM ⟨'a') FROM t", "SUBSTRING's start must be an INT, got STRING"),
            ("SELECT TRIM(BOTH ⟨v FROM k) FROM t", "TRIM's characters must be a STRING, got INT"),
            ("SELECT POWER(⟨k, 2) FROM t", "POWER's arguments must be numeric, got STRING"),
            ("SELECT NULLIF(⟨NULL, 1) FROM t", "NULLIF of an untyped NULL"),
        ];
        for (query, want) in cases {
            let (message, at, expected_at) = error_at(query)?;
            assert!(message.starts_with(want), "{query}: got '{message}'");
            if want.starts_with("cannot apply") {
                // Operator errors point at the whole expression.
                continue;
            }
            assert_eq!(at, expected_at, "{query}: {message}");
        }
        Ok(())
    }
}
