//! The window table-valued functions: their arguments, positional or
//! named, checked and normalised in one place into a [`WindowKind`].

use crate::dialect::TABLE_ARG;
use crate::expr_binder::{interval_millis, nearest, spanned};
use crate::statement::span_of;
use sqlparser::ast::{self, FunctionArg, FunctionArgExpr, FunctionArguments, Spanned};
use tidemark_common::window::WindowKind;
use tidemark_common::{Error, Result, Schema, Span};

/// A window TVF call, before its data argument is bound.
pub struct TvfCall<'a> {
    pub kind_name: String,
    /// The table named by `TABLE t`.
    pub table: ast::ObjectName,
    pub table_span: Span,
    /// `PARTITION BY` columns of a SESSION's table argument.
    pub partition: Vec<ast::Ident>,
    pub descriptor: &'a ast::Expr,
    pub args: Vec<(String, &'a ast::Expr)>,
    pub span: Span,
}

const KINDS: [&str; 4] = ["TUMBLE", "HOP", "CUMULATE", "SESSION"];

/// Reads `TUMBLE(TABLE t, DESCRIPTOR(ts), ...)` apart; `None` if `expr` is
/// not a window TVF call.
pub fn split_call(expr: &ast::Expr) -> Result<TvfCall<'_>> {
    let span = spanned(expr);
    let ast::Expr::Function(f) = expr else {
        return Err(Error::plan(
            "TABLE(...) expects a window function: TUMBLE, HOP, CUMULATE or SESSION",
            span,
        ));
    };
    let kind_name = f.name.to_string().to_ascii_uppercase();
    if !KINDS.contains(&kind_name.as_str()) {
        let mut err = Error::plan(format!("unknown table function {kind_name}"), span);
        if let Some(near) = nearest(&kind_name, KINDS.into_iter()) {
            err = err.with_hint(format!("did you mean {near}?"));
        }
        return Err(err);
    }
    let FunctionArguments::List(list) = &f.args else {
        return Err(Error::plan(format!("{kind_name} needs arguments"), span));
    };
    let positional_names: &[&str] = match kind_name.as_str() {
        "TUMBLE" => &["DATA", "TIMECOL", "SIZE", "OFFSET"],
        "HOP" => &["DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"],
        "CUMULATE" => &["DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"],
        _ => &["DATA", "TIMECOL", "GAP"],
    };
    let mut named: Vec<(String, &ast::Expr)> = Vec::new();
    let mut seen_named = false;
    for (i, a) in list.args.iter().enumerate() {
        let (name, value) = match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => {
                if seen_named {
                    return Err(Error::plan(
                        "positional arguments cannot follow named ones",
                        spanned(x),
                    ));
                }
                let Some(name) = positional_names.get(i) else {
                    return Err(Error::plan(
                        format!(
                            "{kind_name} takes at most {} arguments",
                            positional_names.len()
                        ),
                        spanned(x),
                    ));
                };
                (name.to_string(), x)
            }
            FunctionArg::Named {
                name,
                arg: FunctionArgExpr::Expr(x),
                ..
            } => {
                seen_named = true;
                let upper = name.value.to_ascii_uppercase();
                if !positional_names.contains(&upper.as_str()) {
                    return Err(Error::plan(
                        format!("{kind_name} has no argument {}", name.value),
                        span_of(name.span),
                    )
                    .with_hint(format!("its arguments are {}", positional_names.join(", "))));
                }
                (upper, x)
            }
            other => {
                return Err(Error::plan(
                    format!("unsupported argument {other}"),
                    span_of(other.span()),
                ))
            }
        };
        if named.iter().any(|(n, _)| *n == name) {
            return Err(Error::plan(
                format!("argument {name} is given twice"),
                spanned(value),
            ));
        }
        named.push((name, value));
    }
    let take = |n: &str| named.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
    let data = take("DATA").ok_or_else(|| {
        Error::plan(
            format!("{kind_name} needs a table: {kind_name}(TABLE t, ...)"),
            span,
        )
    })?;
    let mut partition = Vec::new();
    let table = match data {
        ast::Expr::Function(tf) if tf.name.to_string() == TABLE_ARG => match &tf.args {
            FunctionArguments::List(l) => match l.args.first() {
                Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(
                    ast::Expr::CompoundIdentifier(parts),
                ))) => ast::ObjectName(
                    parts
                        .iter()
                        .cloned()
                        .map(ast::ObjectNamePart::Identifier)
                        .collect(),
                ),
                _ => return Err(Error::plan("expected TABLE name", spanned(data))),
            },
            _ => return Err(Error::plan("expected TABLE name", spanned(data))),
        },
        other => {
            return Err(Error::plan(
                format!("the first argument of {kind_name} must be TABLE name"),
                spanned(other),
            )
            .with_hint(format!("write {kind_name}(TABLE t, DESCRIPTOR(ts), ...)")))
        }
    };
    if let ast::Expr::Function(tf) = data {
        if let FunctionArguments::List(l) = &tf.args {
            for a in l.args.iter().skip(1) {
                if let FunctionArg::Unnamed(FunctionArgExpr::Expr(ast::Expr::Identifier(id))) = a {
                    partition.push(id.clone());
                }
            }
        }
    }
    if !partition.is_empty() && kind_name != "SESSION" {
        return Err(Error::plan(
            format!("{kind_name} takes no PARTITION BY; only SESSION does"),
            span_of(partition[0].span),
        ));
    }
    let descriptor = take("TIMECOL").ok_or_else(|| {
        Error::plan(
            format!("{kind_name} needs a time column: DESCRIPTOR(ts)"),
            span,
        )
    })?;
    let args = named
        .iter()
        .filter(|(n, _)| n != "DATA" && n != "TIMECOL")
        .map(|(n, v)| (n.clone(), *v))
        .collect();
    Ok(TvfCall {
        kind_name,
        table_span: spanned(data),
        table,
        partition,
        descriptor,
        args,
        span,
    })
}

impl TvfCall<'_> {
    /// The rowtime column the DESCRIPTOR names, checked against the data's
    /// schema.
    pub fn time_column(&self, schema: &Schema) -> Result<usize> {
        let span = spanned(self.descriptor);
        let col = match self.descriptor {
            ast::Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("DESCRIPTOR") => {
                match &f.args {
                    FunctionArguments::List(l) if l.args.len() == 1 => match &l.args[0] {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(ast::Expr::Identifier(id))) => {
                            id.clone()
                        }
                        _ => return Err(Error::plan("DESCRIPTOR takes one column name", span)),
                    },
                    _ => return Err(Error::plan("DESCRIPTOR takes one column name", span)),
                }
            }
            _ => {
                return Err(Error::plan(
                    "the time column must be given as DESCRIPTOR(column)",
                    span,
                ))
            }
        };
        let col_span = span_of(col.span);
        let Some(index) = schema.index_of(&col.value) else {
            let mut err = Error::plan(format!("unknown column '{}'", col.value), col_span);
            if let Some(near) = nearest(&col.value, schema.names()) {
                err = err.with_hint(format!("did you mean '{near}'?"));
            }
            return Err(err);
        };
        let field = schema.field(index);
        if !field.rowtime && !field.proctime {
            return Err(not_a_time_attribute(schema, index, col_span));
        }
        Ok(index)
    }

    /// The window's shape, validated: positive lengths, sizes that are
    /// multiples of the slide or step.
    pub fn kind(&self) -> Result<WindowKind> {
        let get = |name: &str| -> Result<Option<(i64, Span)>> {
            match self.args.iter().find(|(n, _)| n == name) {
                None => Ok(None),
                Some((_, e)) => match interval_millis(e) {
                    Some(ms) => Ok(Some((ms?, spanned(e)))),
                    None => Err(Error::plan(
                        format!("{name} must be an INTERVAL, e.g. INTERVAL '5' SECOND"),
                        spanned(e),
                    )),
                },
            }
        };
        let required = |name: &str| -> Result<(i64, Span)> {
            let (ms, span) = get(name)?.ok_or_else(|| {
                Error::plan(
                    format!("{} needs a {name} argument", self.kind_name),
                    self.span,
                )
            })?;
            if ms <= 0 {
                return Err(Error::plan(format!("{name} must be positive"), span));
            }
            Ok((ms, span))
        };
        let offset_arg = get("OFFSET")?;
        let offset = offset_arg.map(|(ms, _)| ms).unwrap_or(0);
        Ok(match self.kind_name.as_str() {
            "TUMBLE" => {
                let size = required("SIZE")?.0;
                if let Some((ms, span)) = offset_arg {
                    // As Flink requires: an offset is less than one window.
                    if ms.unsigned_abs() >= size.unsigned_abs() {
                        return Err(Error::plan(
                            "TUMBLE's offset must be smaller than its size (in absolute value)",
                            span,
                        ));
                    }
                }
                WindowKind::Tumble { size, offset }
            }
            "HOP" => {
                let (slide, _) = required("SLIDE")?;
                let (size, size_span) = required("SIZE")?;
                if size % slide != 0 {
                    return Err(Error::plan(
                        "HOP's size must be an integral multiple of its slide",
                        size_span,
                    ));
                }
                WindowKind::Hop {
                    slide,
                    size,
                    offset,
                }
            }
            "CUMULATE" => {
                let (step, _) = required("STEP")?;
                let (max_size, size_span) = required("SIZE")?;
                if max_size % step != 0 {
                    return Err(Error::plan(
                        "CUMULATE's max size must be an integral multiple of its step",
                        size_span,
                    ));
                }
                WindowKind::Cumulate {
                    step,
                    max_size,
                    offset,
                }
            }
            _ => WindowKind::Session {
                gap: required("GAP")?.0,
            },
        })
    }
}

/// The error for windowing on column `index` of `schema`, which is not a
/// time attribute, with a hint naming the rowtime there is or how to
/// declare one.
pub(crate) fn not_a_time_attribute(schema: &Schema, index: usize, at: Span) -> Error {
    let field = schema.field(index);
    let rowtimes: Vec<_> = schema
        .fields
        .iter()
        .filter(|f| f.rowtime)
        .map(|f| f.name.as_str())
        .collect();
    let hint = if rowtimes.is_empty() {
        format!(
            "declare it with WATERMARK FOR {} AS ... in CREATE TABLE",
            field.name
        )
    } else {
        format!("the rowtime attribute is {}", rowtimes.join(", "))
    };
    Error::plan(
        format!("column '{}' is not a rowtime attribute", field.name),
        at,
    )
    .with_hint(hint)
}
