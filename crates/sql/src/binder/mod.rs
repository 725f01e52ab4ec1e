//! Binds a query's AST to a [`LogicalPlan`]: resolves tables and columns,
//! types expressions, recognises window TVFs and window aggregations, and
//! rejects with a pointed error what a stream cannot run.

use crate::catalog::Catalog;
use crate::expr_binder::{contains_aggregate, spanned, AggregateScope, ExprBinder};
use crate::plan::{LogicalPlan, WindowSpec};
use crate::statement::span_of;
use crate::window_tvf::split_call;
use sqlparser::ast::{self, GroupByExpr, SelectItem, SetExpr, Spanned, TableFactor};
use tidemark_common::expr::{AggregateCall, Expr};
use tidemark_common::{Error, Field, Result, Schema, Span, SqlType};

/// How deep subqueries may nest.
const MAX_DEPTH: usize = 16;

pub struct QueryBinder<'a> {
    pub catalog: &'a Catalog,
    depth: usize,
    /// The WITH queries in scope, innermost last: a name here hides a
    /// table or view of the catalog.
    ctes: Vec<(String, std::sync::Arc<ast::Query>)>,
}

/// A FROM item: its plan, and the window TVF it is, if it is one.
pub(crate) struct Relation {
    pub(crate) plan: LogicalPlan,
    /// For a window TVF: the plan under it and the window.
    tvf: Option<(LogicalPlan, WindowSpec)>,
    /// SESSION's `PARTITION BY` columns (of the TVF's input), with where
    /// each is written.
    partition: Vec<(usize, Span)>,
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
                    [] => return Err(Error::plan("a query needs a FROM clause", span)),
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

    pub(crate) fn bind_relation(&mut self, factor: &TableFactor) -> Result<Relation> {
        match factor {
            TableFactor::Table {
                name, args: None, ..
            } => {
                let plan = self.scan(name)?;
                Ok(Relation {
                    plan,
                    tvf: None,
                    partition: vec![],
                })
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
                Ok(Relation {
                    plan,
                    tvf: None,
                    partition: vec![],
                })
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

    /// A SELECT without aggregation: filter, then project.
    fn bind_projection(&mut self, select: &ast::Select, relation: Relation) -> Result<LogicalPlan> {
        let mut plan = relation.plan;
        if let Some(w) = &select.selection {
            let predicate = ExprBinder::new(plan.schema(), "WHERE").bind(w)?;
            plan = filter(plan, predicate, spanned(w))?;
        }
        let (exprs, fields) = {
            let schema = plan.schema().clone();
            let mut binder = ExprBinder::new(&schema, "SELECT");
            select_list(&select.projection, &schema, &schema, &mut binder)?
        };
        Ok(LogicalPlan::Project {
            input: Box::new(plan),
            exprs,
            schema: Schema::new(fields),
        })
    }

    fn bind_window_aggregate(
        &mut self,
        select: &ast::Select,
        relation: Relation,
        group_exprs: &[ast::Expr],
        span: Span,
    ) -> Result<LogicalPlan> {
        let group_span = group_exprs
            .iter()
            .map(spanned)
            .fold(Span::default(), Span::union);
        let Some((input, window)) = relation.tvf else {
            if let LogicalPlan::WindowJoin { .. } = relation.plan {
                return Err(Error::plan(
                    "aggregating a window join's rows is not supported yet: they have no rowtime to window on",
                    if group_span.is_known() { group_span } else { span },
                ));
            }
            return Err(Error::plan(
                "aggregation without a window is not supported on a stream",
                if group_span.is_known() { group_span } else { span },
            )
            .with_hint("aggregate over a window TVF: FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, ..."));
        };
        let tvf_schema = relation.plan.schema().clone();
        let n_in = input.schema().len();
        let (ws, we, wt) = (n_in, n_in + 1, n_in + 2);

        // WHERE over a TVF may only read the TVF's input columns: it then
        // filters the input before windows are assigned.
        let mut input = input;
        if let Some(w) = &select.selection {
            let predicate = ExprBinder::new(&tvf_schema, "WHERE").bind(w)?;
            let mut reads_window = false;
            predicate.visit_columns(&mut |c| reads_window |= c >= n_in);
            if reads_window {
                return Err(Error::plan(
                    "a WHERE before a window aggregation cannot read window_start, window_end or window_time",
                    spanned(w),
                )
                .with_hint("filter on the aggregated result with HAVING"));
            }
            input = filter(input, predicate, spanned(w))?;
        }

        let mut keys: Vec<(Expr, Span)> = Vec::new();
        let mut window_columns = [false; 3];
        for g in group_exprs {
            let bound = ExprBinder::new(&tvf_schema, "GROUP BY").bind(g)?;
            match bound.as_column() {
                Some(c) if c >= n_in => window_columns[c - n_in] = true,
                _ => {
                    let mut reads_window = false;
                    bound.visit_columns(&mut |c| reads_window |= c >= n_in);
                    if reads_window {
                        return Err(Error::plan(
                            "group by window_start, window_end or window_time as plain columns",
                            spanned(g),
                        ));
                    }
                    if !keys.iter().any(|(k, _)| *k == bound) {
                        keys.push((bound, spanned(g)));
                    }
                }
            }
        }
        if !(window_columns[0] && window_columns[1]) {
            return Err(Error::plan(
                "a window aggregation must GROUP BY window_start, window_end",
                if group_span.is_known() {
                    group_span
                } else {
                    span
                },
            )
            .with_hint("add window_start, window_end to GROUP BY"));
        }

        // A session is kept per group key; PARTITION BY names (some of)
        // those keys, as Flink requires.
        for (column, column_span) in &relation.partition {
            if !keys.iter().any(|(k, _)| k.as_column() == Some(*column)) {
                return Err(Error::plan(
                    format!(
                        "SESSION is partitioned by '{}', which the query does not GROUP BY",
                        tvf_schema.field(*column).name
                    ),
                    *column_span,
                )
                .with_hint("group by the PARTITION BY columns"));
            }
        }

        // Output of the aggregation: keys, window columns, aggregates.
        let n_keys = keys.len();
        let mut groups: Vec<(Expr, Expr)> = Vec::new();
        let mut out_fields = Vec::new();
        for (i, (k, _)) in keys.iter().enumerate() {
            let name = match k {
                Expr::Column { name, .. } => name.clone(),
                _ => format!("$key{i}"),
            };
            out_fields.push(Field::new(name.clone(), k.ty()));
            groups.push((k.clone(), Expr::column(i, name, k.ty())));
        }
        let time_ty = tvf_schema.field(wt).ty.clone();
        for (j, (col, name, ty)) in [
            (ws, "window_start", SqlType::Timestamp(3)),
            (we, "window_end", SqlType::Timestamp(3)),
            (wt, "window_time", time_ty),
        ]
        .into_iter()
        .enumerate()
        {
            // window_time is a rowtime attribute of the result only when it
            // is not grouped on explicitly; either way it can be read.
            out_fields.push(Field::new(name, ty.clone()).rowtime(j == 2));
            groups.push((
                Expr::column(col, name, ty.clone()),
                Expr::column(n_keys + j, name, ty),
            ));
        }
        let mut scope = AggregateScope {
            groups,
            calls: Vec::new(),
            first_aggregate_column: n_keys + 3,
        };

        let having = match &select.having {
            None => None,
            Some(h) => {
                let mut binder = ExprBinder::new(&tvf_schema, "HAVING");
                binder.aggregate = Some(&mut scope);
                Some((binder.bind(h)?, spanned(h)))
            }
        };
        let (select_exprs, select_fields) = {
            let output_columns = Schema::new(out_fields.clone());
            let mut binder = ExprBinder::new(&tvf_schema, "SELECT");
            binder.aggregate = Some(&mut scope);
            select_list(
                &select.projection,
                &tvf_schema,
                &output_columns,
                &mut binder,
            )?
        };

        for call in &scope.calls {
            let mut reads_window = false;
            if let Some(a) = &call.arg {
                a.visit_columns(&mut |c| reads_window |= c >= n_in);
            }
            if reads_window {
                return Err(Error::plan(
                    format!(
                        "{} cannot read window_start, window_end or window_time: they are the same for every row of a window",
                        call.func.name()
                    ),
                    span,
                ));
            }
        }

        // Project the aggregation's input: the rowtime, the keys, then one
        // column per distinct aggregate argument.
        let mut pre_exprs: Vec<Expr> = vec![input.schema().field(window.time_column).ty.clone()]
            .into_iter()
            .map(|ty| {
                Expr::column(
                    window.time_column,
                    input.schema().field(window.time_column).name.clone(),
                    ty,
                )
            })
            .collect();
        let mut pre_fields = vec![input.schema().field(window.time_column).clone()];
        for (k, _) in &keys {
            pre_exprs.push(k.clone());
            pre_fields.push(Field::new(k.to_string(), k.ty()));
        }
        let mut aggregates = Vec::new();
        for call in &scope.calls {
            let arg = call
                .arg
                .as_ref()
                .map(|a| match pre_exprs.iter().position(|e| e == a) {
                    Some(i) => i,
                    None => {
                        pre_exprs.push(a.clone());
                        pre_fields.push(Field::new(a.to_string(), a.ty()));
                        pre_exprs.len() - 1
                    }
                });
            aggregates.push(AggregateCall {
                func: call.func,
                arg,
                arg_type: call.arg.as_ref().map(Expr::ty),
                distinct: call.distinct,
                separator: call.separator.clone(),
                offset: 0,
                ty: call.ty.clone(),
            });
            out_fields.push(Field::new(call.to_string(), call.ty.clone()));
        }
        let pre = LogicalPlan::Project {
            input: Box::new(input),
            exprs: pre_exprs,
            schema: Schema::new(pre_fields),
        };
        let mut plan = LogicalPlan::WindowAggregate {
            input: Box::new(pre),
            window: WindowSpec {
                kind: window.kind,
                time_column: 0,
                partition: vec![],
                span: window.span,
            },
            keys: (1..=n_keys).collect(),
            aggregates,
            schema: Schema::new(out_fields),
        };
        if let Some((predicate, h_span)) = having {
            plan = filter(plan, predicate, h_span)?;
        }
        Ok(LogicalPlan::Project {
            input: Box::new(plan),
            exprs: select_exprs,
            schema: Schema::new(select_fields),
        })
    }
}

pub(crate) fn filter(plan: LogicalPlan, predicate: Expr, span: Span) -> Result<LogicalPlan> {
    match predicate.ty() {
        SqlType::Boolean => Ok(LogicalPlan::Filter {
            input: Box::new(plan),
            predicate,
        }),
        other => Err(Error::plan(
            format!("a filter must be a BOOLEAN expression, not {other}"),
            span,
        )),
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

/// Binds a SELECT list. `columns` is the schema the bound column
/// references point into (the aggregation's output under GROUP BY): a
/// plain reference to a rowtime attribute stays one, so a later window can
/// use it (`window_time` of a window aggregation, say).
pub(crate) fn select_list(
    items: &[SelectItem],
    schema: &Schema,
    columns: &Schema,
    binder: &mut ExprBinder<'_>,
) -> Result<(Vec<Expr>, Vec<Field>)> {
    let rowtime = |e: &Expr| {
        e.as_column()
            .and_then(|i| columns.fields.get(i))
            .is_some_and(|f| f.rowtime)
    };
    let mut exprs = Vec::new();
    let mut fields = Vec::new();
    for item in items {
        match item {
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => {
                for f in &schema.fields {
                    let col = ast::Expr::Identifier(ast::Ident::new(f.name.clone()));
                    let e = match binder.bind(&col) {
                        Ok(e) => e,
                        Err(_) if binder.aggregate.is_some() => {
                            return Err(Error::plan(
                                "SELECT * is not allowed in an aggregation",
                                span_of(item.span()),
                            ))
                        }
                        Err(e) => return Err(e),
                    };
                    fields.push(Field::new(f.name.clone(), e.ty()).rowtime(rowtime(&e)));
                    exprs.push(e);
                }
            }
            SelectItem::UnnamedExpr(e) => {
                let bound = binder.bind(e)?;
                let name = match e {
                    ast::Expr::Identifier(id) => id.value.clone(),
                    ast::Expr::CompoundIdentifier(ids) => {
                        ids.last().map(|i| i.value.clone()).unwrap_or_default()
                    }
                    _ => format!("EXPR${}", exprs.len()),
                };
                fields.push(Field::new(name, bound.ty()).rowtime(rowtime(&bound)));
                exprs.push(bound);
            }
            SelectItem::ExprWithAlias { expr, alias } => {
                let bound = binder.bind(expr)?;
                fields.push(Field::new(alias.value.clone(), bound.ty()).rowtime(rowtime(&bound)));
                exprs.push(bound);
            }
            other => {
                return Err(Error::plan(
                    format!("'{other}' is not supported in SELECT"),
                    span_of(other.span()),
                ))
            }
        }
    }
    Ok((exprs, fields))
}

fn first_word(s: &str) -> String {
    s.split_whitespace().next().unwrap_or("this").to_string()
}

/// `left UNION ALL right`: the columns must match in number and have a
/// common type (numbers widen, as in Flink); nested unions flatten.
fn union_all(left: LogicalPlan, right: LogicalPlan, span: Span) -> Result<LogicalPlan> {
    let (l, r) = (left.schema(), right.schema());
    if l.fields.len() != r.fields.len() {
        return Err(Error::plan(
            format!(
                "UNION ALL inputs have {} and {} columns",
                l.fields.len(),
                r.fields.len()
            ),
            span,
        ));
    }
    let mut fields = Vec::with_capacity(l.fields.len());
    for (a, b) in l.fields.iter().zip(&r.fields) {
        let ty = crate::types::common_type(&a.ty, &b.ty).ok_or_else(|| {
            Error::plan(
                format!(
                    "UNION ALL column '{}' is {} on one side and {} on the other",
                    a.name, a.ty, b.ty
                ),
                span,
            )
        })?;
        let mut field = Field::new(a.name.clone(), ty);
        field.nullable = a.nullable || b.nullable;
        field.rowtime = a.rowtime && b.rowtime;
        fields.push(field);
    }
    let schema = Schema::new(fields);
    let mut inputs = Vec::new();
    for side in [left, right] {
        match side {
            LogicalPlan::Union { inputs: nested, .. } => inputs.extend(nested),
            other => inputs.push(other),
        }
    }
    let inputs = inputs
        .into_iter()
        .map(|input| conform(input, &schema))
        .collect();
    Ok(LogicalPlan::Union { inputs, schema })
}

/// A query's rows as rows of the sink table `sink` (INSERT INTO): the same
/// number of columns, each of the sink's type or one that widens to it (as
/// Flink casts implicitly).
pub fn insert_plan(
    plan: LogicalPlan,
    sink: &tidemark_common::catalog::TableDef,
    span: Span,
) -> Result<LogicalPlan> {
    let (got, want) = (plan.schema(), &sink.schema);
    if got.fields.len() != want.fields.len() {
        return Err(Error::plan(
            format!(
                "INSERT INTO {}: the query gives {} columns and the table has {}",
                sink.name,
                got.fields.len(),
                want.fields.len()
            ),
            span,
        ));
    }
    for (g, w) in got.fields.iter().zip(&want.fields) {
        let widens = crate::types::common_type(&g.ty, &w.ty).as_ref() == Some(&w.ty);
        if g.ty != w.ty && !widens {
            return Err(Error::plan(
                format!(
                    "INSERT INTO {}: column '{}' is {} and the query gives {} ('{}')",
                    sink.name, w.name, w.ty, g.ty, g.name
                ),
                span,
            )
            .with_hint(format!("CAST the value AS {}", w.ty)));
        }
    }
    Ok(conform(plan, want))
}

/// `input` with the types of `schema`, cast where they differ.
fn conform(input: LogicalPlan, schema: &Schema) -> LogicalPlan {
    let same = input
        .schema()
        .fields
        .iter()
        .zip(&schema.fields)
        .all(|(a, b)| a.ty == b.ty);
    if same {
        return input;
    }
    let exprs = input
        .schema()
        .fields
        .iter()
        .enumerate()
        .zip(&schema.fields)
        .map(|((i, f), want)| {
            crate::expr_binder::coerce(Expr::column(i, f.name.clone(), f.ty.clone()), &want.ty)
        })
        .collect();
    let mut fields = input.schema().fields.clone();
    for (f, want) in fields.iter_mut().zip(&schema.fields) {
        f.ty = want.ty.clone();
    }
    LogicalPlan::Project {
        input: Box::new(input),
        exprs,
        schema: Schema::new(fields),
    }
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
            ("SELECT DATE_FORMAT(ts, ⟨'QQ') FROM t", "format 'QQ' is not supported"),
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
