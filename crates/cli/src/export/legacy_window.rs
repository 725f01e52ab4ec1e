//! Allowed lateness on a TUMBLE or HOP window TVF aggregation, written as
//! the legacy group window Flink honours it on: `FROM TABLE(TUMBLE(TABLE
//! t, DESCRIPTOR(ts), size)) GROUP BY window_start, window_end, k` becomes
//! `FROM t GROUP BY TUMBLE(ts, size), k`, with `TUMBLE_START(ts, size) AS
//! window_start` (and `_END`, `_ROWTIME`) where the window's columns are
//! read, so the output keeps its column names. Flink's window TVF
//! aggregation refuses `table.exec.emit.allow-lateness`; its legacy group
//! window re-fires with `-U`/`+U` as tidemark does.

use super::edits::{Edits, Source};
use std::ops::ControlFlow;
use tidemark_common::Span;
use tidemark_sql::sql_ast::{self as ast, Spanned, Visit, Visitor};
use tidemark_sql::{span_of, split_call};

/// Rewrites the SELECT whose FROM is the window TVF call at `tvf_span`.
/// `Ok(false)`: no SELECT of `query` reads that call; `Err`: it does, in
/// a form the legacy window cannot express (the reason).
pub fn rewrite(
    query: &ast::Query,
    tvf_span: Span,
    source: &Source<'_>,
    edits: &mut Edits,
) -> Result<bool, String> {
    let mut finder = SelectFinder {
        tvf_span,
        found: None,
    };
    let _ = query.visit(&mut finder);
    let Some(select) = finder.found else {
        return Ok(false);
    };
    rewrite_select(&select, source, edits).map(|()| true)
}

struct SelectFinder {
    tvf_span: Span,
    found: Option<ast::Select>,
}

impl Visitor for SelectFinder {
    type Break = ();

    fn pre_visit_select(&mut self, select: &ast::Select) -> ControlFlow<()> {
        if let [from] = select.from.as_slice() {
            if let ast::TableFactor::TableFunction { expr, .. } = &from.relation {
                if split_call(expr).is_ok_and(|c| c.span == self.tvf_span) {
                    self.found = Some(select.clone());
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// Which window column an expression reads, if it is one.
fn window_column(expr: &ast::Expr) -> Option<&'static str> {
    let name = match expr {
        ast::Expr::Identifier(ident) => ident,
        ast::Expr::CompoundIdentifier(parts) if parts.len() == 2 => &parts[1],
        _ => return None,
    };
    ["window_start", "window_end", "window_time"]
        .into_iter()
        .find(|c| name.value.eq_ignore_ascii_case(c))
}

/// Every read of a window column inside an expression.
#[derive(Default)]
struct WindowReads(Vec<(ast::Expr, &'static str)>);

impl Visitor for WindowReads {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &ast::Expr) -> ControlFlow<()> {
        if let Some(column) = window_column(expr) {
            self.0.push((expr.clone(), column));
        }
        ControlFlow::Continue(())
    }
}

fn rewrite_select(
    select: &ast::Select,
    source: &Source<'_>,
    edits: &mut Edits,
) -> Result<(), String> {
    let from = &select.from[0];
    let ast::TableFactor::TableFunction { expr, alias } = &from.relation else {
        return Err("the window TVF is not the only table read".into());
    };
    let call = split_call(expr).map_err(|e| e.to_string())?;
    let render = |edits: &Edits, span: Span| {
        let (start, end) = source.range(span);
        edits.render(source.text, start, end)
    };
    let arg = |name: &str| {
        call.args.iter().find(|(n, _)| n == name).map(|(_, e)| {
            let (start, end) = super::spelling::expr_range(source, e);
            edits.render(source.text, start, end)
        })
    };
    if call.args.iter().any(|(n, _)| n == "OFFSET") {
        return Err("a legacy group window takes no offset".into());
    }
    let descriptor_column = match call.descriptor {
        ast::Expr::Function(f) => match &f.args {
            ast::FunctionArguments::List(list) => match list.args.first() {
                Some(ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(column))) => {
                    Some(render(edits, span_of(column.span())))
                }
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    let time = descriptor_column.ok_or("the DESCRIPTOR names no column")?;
    let size = arg("SIZE").ok_or("the window has no size")?;
    let (function, window_args) = match call.kind_name.as_str() {
        "TUMBLE" => ("TUMBLE", format!("{time}, {size}")),
        "HOP" => {
            let slide = arg("SLIDE").ok_or("the HOP window has no slide")?;
            ("HOP", format!("{time}, {slide}, {size}"))
        }
        other => return Err(format!("{other} has no legacy group window with lateness")),
    };
    let group_window = format!("{function}({window_args})");
    let read = |column: &str| {
        let suffix = match column {
            "window_start" => "START",
            "window_end" => "END",
            _ => "ROWTIME",
        };
        format!("{function}_{suffix}({window_args})")
    };

    if let Some(selection) = &select.selection {
        let mut reads = WindowReads::default();
        let _ = selection.visit(&mut reads);
        if !reads.0.is_empty() {
            return Err("its WHERE reads the window's columns, which a legacy group window has only after grouping".into());
        }
    }
    let ast::GroupByExpr::Expressions(keys, modifiers) = &select.group_by else {
        return Err("it groups by ALL".into());
    };
    if !modifiers.is_empty() {
        return Err("its GROUP BY has modifiers".into());
    }
    if keys.iter().any(|k| {
        !matches!(
            k,
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
        ) && {
            let mut reads = WindowReads::default();
            let _ = k.visit(&mut reads);
            !reads.0.is_empty()
        }
    }) {
        return Err("its GROUP BY computes over the window's columns".into());
    }

    // The table the TVF reads, in place of the TVF.
    let table_parts: Vec<Span> = call
        .table
        .0
        .iter()
        .filter_map(|p| p.as_ident().map(|i| span_of(i.span)))
        .collect();
    let (Some(first), Some(last)) = (table_parts.first(), table_parts.last()) else {
        return Err("the TVF names no table".into());
    };
    let table = render(edits, first.union(*last));
    // The factor is `TABLE(<call>)`; sqlparser's span starts at the call.
    let call_start = source.range(call.span).0;
    let before = source.text[..call_start].trim_end();
    let open = before
        .strip_suffix('(')
        .ok_or("the window call is not inside TABLE(...)")?;
    let keyword = open.trim_end();
    if !keyword.to_ascii_uppercase().ends_with("TABLE") {
        return Err("the window call is not inside TABLE(...)".into());
    }
    let factor_start = keyword.len() - "TABLE".len();
    let close = matching_paren(source.text, open.len()).ok_or("TABLE( is not closed")?;
    let table = match alias {
        Some(alias) => format!("{table} AS {}", render(edits, span_of(alias.name.span))),
        None => table,
    };
    let alias_end = alias
        .as_ref()
        .map_or(close, |a| source.range(span_of(a.name.span)).1.max(close));
    edits.replace(factor_start, alias_end, table);

    // GROUP BY: the window in place of its first column, the others left out.
    let (Some(first_key), Some(last_key)) = (keys.first(), keys.last()) else {
        return Err("it has no GROUP BY".into());
    };
    let mut group = Vec::new();
    let mut placed = false;
    for key in keys {
        if window_column(key).is_some() {
            if !placed {
                group.push(group_window.clone());
                placed = true;
            }
        } else {
            group.push(render(edits, span_of(key.span())));
        }
    }
    if !placed {
        return Err("its GROUP BY names no window column".into());
    }
    let start = source.range(span_of(first_key.span())).0;
    let end = source.range(span_of(last_key.span())).1;
    edits.replace(start, end, group.join(", "));

    // Reads of the window's columns in the SELECT list and HAVING.
    for item in &select.projection {
        match item {
            ast::SelectItem::UnnamedExpr(e) if window_column(e).is_some() => {
                let column = window_column(e).unwrap_or("window_start");
                let (start, end) = source.range(span_of(e.span()));
                edits.replace(start, end, format!("{} AS {column}", read(column)));
            }
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                replace_reads(e, source, edits, &read);
            }
            _ => return Err("it selects * or several columns at once".into()),
        }
    }
    if let Some(having) = &select.having {
        replace_reads(having, source, edits, &read);
    }
    Ok(())
}

/// The byte just past the `)` that closes the `(` at `open`, skipping
/// quoted text.
fn matching_paren(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (i, c) in text[open..].char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn replace_reads(
    expr: &ast::Expr,
    source: &Source<'_>,
    edits: &mut Edits,
    read: &dyn Fn(&str) -> String,
) {
    let mut reads = WindowReads::default();
    let _ = expr.visit(&mut reads);
    for (e, column) in reads.0 {
        let (start, end) = source.range(span_of(e.span()));
        edits.replace(start, end, read(column));
    }
}
