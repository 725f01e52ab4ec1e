//! FROM items: a table, a view or a WITH query by name, a window TVF over
//! one of those, or a subquery; and the schema a window TVF gives its
//! input's rows.

use super::QueryBinder;
use crate::plan::{LogicalPlan, WindowSpec};
use crate::statement::span_of;
use crate::window_tvf::split_call;
use sqlparser::ast::{self, Spanned, TableFactor};
use tidemark_common::{Error, Field, Result, Schema, Span, SqlType};

/// A FROM item: its plan, and the window TVF it is, if it is one.
pub(crate) struct Relation {
    pub(crate) plan: LogicalPlan,
    /// For a window TVF: the plan under it and the window.
    pub(super) tvf: Option<(LogicalPlan, WindowSpec)>,
    /// SESSION's `PARTITION BY` columns (of the TVF's input), with where
    /// each is written.
    pub(super) partition: Vec<(usize, Span)>,
}

impl Relation {
    /// A FROM item that is not a window TVF.
    pub(crate) fn plain(plan: LogicalPlan) -> Self {
        Relation {
            plan,
            tvf: None,
            partition: vec![],
        }
    }
}

impl QueryBinder<'_> {
    pub(crate) fn bind_relation(&mut self, factor: &TableFactor) -> Result<Relation> {
        match factor {
            TableFactor::Table {
                name, args: None, ..
            } => {
                let plan = self.scan(name)?;
                Ok(Relation::plain(plan))
            }
            TableFactor::Table {
                name,
                args: Some(_),
                ..
            } => Err(Error::plan(
                format!("table functions must be wrapped in TABLE(...): FROM TABLE({name}(...))"),
                span_of(factor.span()),
            )),
            TableFactor::TableFunction { expr, .. } => {
                let call = split_call(expr)?;
                let input = self
                    .scan(&call.table)
                    .map_err(|e| e.or_span(call.table_span))?;
                let time_column = call.time_column(input.schema())?;
                let kind = call.kind()?;
                let mut partition = Vec::new();
                for column in &call.partition {
                    let column_span = span_of(column.span);
                    let Some(index) = input.schema().index_of(&column.value) else {
                        let mut err = Error::plan(
                            format!("unknown column '{}' in PARTITION BY", column.value),
                            column_span,
                        );
                        if let Some(near) =
                            crate::expr_binder::nearest(&column.value, input.schema().names())
                        {
                            err = err.with_hint(format!("did you mean '{near}'?"));
                        }
                        return Err(err);
                    };
                    partition.push((index, column_span));
                }
                let window = WindowSpec {
                    kind,
                    time_column,
                    partition: partition.iter().map(|(c, _)| *c).collect(),
                    span: call.span,
                    legacy: false,
                    attached: None,
                };
                let schema = tvf_schema(input.schema(), &window);
                Ok(Relation {
                    plan: LogicalPlan::WindowTvf {
                        input: Box::new(input.clone()),
                        window: window.clone(),
                        schema,
                    },
                    tvf: Some((input, window)),
                    partition,
                })
            }
            TableFactor::Derived { subquery, .. } => {
                let plan = self.bind_query(subquery, span_of(subquery.span()))?;
                Ok(Relation::plain(plan))
            }
            other => Err(Error::plan(
                format!("'{}' is not supported in FROM", other),
                span_of(other.span()),
            )),
        }
    }

    fn scan(&mut self, name: &ast::ObjectName) -> Result<LogicalPlan> {
        let span = span_of(name.span());
        let last = name
            .0
            .last()
            .and_then(|p| p.as_ident())
            .map(|i| i.value.clone())
            .ok_or_else(|| Error::plan("bad table name", span))?;
        let cte = self
            .ctes
            .iter()
            .rposition(|(name, _)| name.eq_ignore_ascii_case(&last));
        if let Some(at) = cte {
            // A WITH query sees the ones before it, not itself.
            let query = self.ctes[at].1.clone();
            let hidden = self.ctes.split_off(at);
            let bound = self.bind_query(&query, span_of(query.span()));
            self.ctes.extend(hidden);
            return bound.map_err(|e| e.or_span(span));
        }
        if let Some(query) = self.catalog.view(&last) {
            let view_span = span_of(query.span());
            return self
                .bind_query(&query, view_span)
                .map_err(|e| e.or_span(span));
        }
        let table = self.catalog.table(&last, span)?;
        let schema = table.schema.clone();
        Ok(LogicalPlan::Scan { table, schema })
    }
}

/// The schema of a window TVF: its input's columns, then `window_start`,
/// `window_end` (TIMESTAMP(3)) and `window_time` (the rowtime's type, a
/// rowtime attribute). The input's own rowtime stays readable but is no
/// longer a time attribute, as in Flink.
pub fn tvf_schema(input: &Schema, window: &WindowSpec) -> Schema {
    let mut fields: Vec<Field> = input
        .fields
        .iter()
        .cloned()
        .map(|f| f.rowtime(false))
        .collect();
    let time_ty = input.field(window.time_column).ty.clone();
    fields.push(Field::new("window_start", SqlType::Timestamp(3)));
    fields.push(Field::new("window_end", SqlType::Timestamp(3)));
    fields.push(Field::new("window_time", time_ty).rowtime(true));
    Schema::new(fields)
}
