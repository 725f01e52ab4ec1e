//! Expressions: column references (plain or qualified by a join side),
//! operators, BETWEEN and IN, CAST, CASE, references to OVER results, and
//! the SQL syntax of EXTRACT, FLOOR/CEIL, SUBSTRING, TRIM, POSITION and
//! OVERLAY (bound by the function library).

use super::literal::{interval_millis, literal, typed_string};
use super::typing::{binary, coerce, expect_boolean, timestamp_shift, unify_branches};
use super::{nearest, spanned, ExprBinder};
use crate::functions as library;
use crate::types::{can_cast, sql_type};
use sqlparser::ast::{self, BinaryOperator, CastKind, UnaryOperator};
use tidemark_common::expr::{BinaryOp, Expr, ScalarFunction};
use tidemark_common::{Error, Result, Span, SqlType};

impl ExprBinder<'_> {
    /// A BOOLEAN operand: of `IS [NOT] TRUE`, `FALSE` or `UNKNOWN`, or an
    /// aggregate's `FILTER (WHERE ..)`.
    pub(super) fn bind_boolean(&mut self, e: &ast::Expr) -> Result<Expr> {
        let bound = self.bind(e)?;
        expect_boolean(bound, spanned(e))
    }

    /// `a IS DISTINCT FROM b`: unequal, with NULL equal to NULL and
    /// unequal to any value; never NULL itself.
    fn distinct_from(&mut self, a: &ast::Expr, b: &ast::Expr, span: Span) -> Result<Expr> {
        let l = self.bind(a)?;
        let r = self.bind(b)?;
        let null = |e: &Expr| Expr::IsNull {
            expr: Box::new(e.clone()),
            negated: false,
        };
        let both_null = binary(BinaryOp::And, null(&l), null(&r), span, b)?;
        let one_null = binary(BinaryOp::Or, null(&l), null(&r), span, b)?;
        let unequal = binary(BinaryOp::NotEq, l, r, span, b)?;
        Ok(Expr::Case {
            branches: vec![
                (both_null, Expr::boolean(false)),
                (one_null, Expr::boolean(true)),
            ],
            otherwise: Some(Box::new(unequal)),
            ty: SqlType::Boolean,
        })
    }

    /// `s LIKE pattern [ESCAPE 'c']` on strings.
    fn like(
        &mut self,
        expr: &ast::Expr,
        pattern: &ast::Expr,
        escape: Option<&ast::ValueWithSpan>,
        span: Span,
    ) -> Result<Expr> {
        let mut string = |e: &ast::Expr| -> Result<Expr> {
            let bound = self.bind(e)?;
            match bound.ty() {
                SqlType::String => Ok(bound),
                SqlType::Null => Ok(coerce(bound, &SqlType::String)),
                other => Err(Error::plan(
                    format!("LIKE compares strings, not {other}"),
                    spanned(e),
                )),
            }
        };
        let args = vec![string(expr)?, string(pattern)?];
        let escape = match escape.map(|v| &v.value) {
            None => None,
            Some(ast::Value::SingleQuotedString(text)) if text.chars().count() == 1 => {
                text.chars().next()
            }
            Some(other) => {
                return Err(Error::plan(
                    format!("the ESCAPE of LIKE is one character, not {other}"),
                    span,
                ))
            }
        };
        Ok(Expr::Function {
            func: ScalarFunction::Like { escape },
            args,
            ty: SqlType::Boolean,
        })
    }

    fn column(&self, name: &str, span: Span) -> Result<Expr> {
        // A join's columns are `alias.column`: a plain name finds the one
        // side that has it.
        let qualified = || {
            let suffix = format!(".{}", name.to_ascii_lowercase());
            let mut found = self
                .schema
                .fields
                .iter()
                .enumerate()
                .filter(|(_, f)| f.name.to_ascii_lowercase().ends_with(&suffix));
            match (found.next(), found.next()) {
                (Some((i, _)), None) => Ok(Some(i)),
                (Some(_), Some(_)) => Err(Error::plan(
                    format!("column '{name}' is ambiguous: qualify it, as L.{name}"),
                    span,
                )),
                _ => Ok(None),
            }
        };
        let index = match self.schema.index_of(name) {
            Some(i) => Some(i),
            None => qualified()?,
        };
        match index {
            Some(i) => {
                let f = self.schema.field(i);
                Ok(Expr::column(i, f.name.clone(), f.ty.clone()))
            }
            None => {
                let mut err = Error::plan(format!("unknown column '{name}'"), span);
                if let Some(near) = nearest(name, self.schema.names()) {
                    err = err.with_hint(format!("did you mean '{near}'?"));
                } else {
                    let names: Vec<_> = self.schema.names().collect();
                    err = err.with_hint(format!("available columns: {}", names.join(", ")));
                }
                Err(err)
            }
        }
    }

    pub fn bind_plain(&mut self, e: &ast::Expr) -> Result<Expr> {
        let span = spanned(e);
        match e {
            ast::Expr::Identifier(id) => self.column(&id.value, span),
            ast::Expr::CompoundIdentifier(ids) => match ids.as_slice() {
                // `L.k` of a join names the column `L.k`.
                [q, n]
                    if self
                        .schema
                        .index_of(&format!("{}.{}", q.value, n.value))
                        .is_some() =>
                {
                    self.column(&format!("{}.{}", q.value, n.value), span)
                }
                [.., id] => self.column(&id.value, span),
                [] => Err(Error::plan("empty identifier", span)),
            },
            ast::Expr::Nested(inner) => self.bind(inner),
            ast::Expr::Value(v) => literal(&v.value, span),
            ast::Expr::TypedString(ts) => typed_string(ts, span),
            ast::Expr::UnaryOp { op, expr } => {
                let inner = self.bind(expr)?;
                match op {
                    UnaryOperator::Not => {
                        Ok(Expr::Not(Box::new(expect_boolean(inner, spanned(expr))?)))
                    }
                    UnaryOperator::Minus => {
                        if !inner.ty().is_numeric() {
                            return Err(Error::plan(
                                format!("cannot negate a {}", inner.ty()),
                                span,
                            ));
                        }
                        Ok(Expr::Negate(Box::new(inner)))
                    }
                    UnaryOperator::Plus => Ok(inner),
                    other => Err(Error::plan(
                        format!("operator {other} is not supported"),
                        span,
                    )),
                }
            }
            ast::Expr::IsTrue(inner) => Ok(is_true(self.bind_boolean(inner)?)),
            ast::Expr::IsNotTrue(inner) => {
                Ok(Expr::Not(Box::new(is_true(self.bind_boolean(inner)?))))
            }
            ast::Expr::IsFalse(inner) => {
                Ok(is_true(Expr::Not(Box::new(self.bind_boolean(inner)?))))
            }
            ast::Expr::IsNotFalse(inner) => Ok(Expr::Not(Box::new(is_true(Expr::Not(Box::new(
                self.bind_boolean(inner)?,
            )))))),
            ast::Expr::IsUnknown(inner) => Ok(Expr::IsNull {
                expr: Box::new(self.bind_boolean(inner)?),
                negated: false,
            }),
            ast::Expr::IsNotUnknown(inner) => Ok(Expr::IsNull {
                expr: Box::new(self.bind_boolean(inner)?),
                negated: true,
            }),
            ast::Expr::IsDistinctFrom(a, b) => self.distinct_from(a, b, span),
            ast::Expr::IsNotDistinctFrom(a, b) => {
                Ok(Expr::Not(Box::new(self.distinct_from(a, b, span)?)))
            }
            ast::Expr::Like {
                negated,
                any: false,
                expr,
                pattern,
                escape_char,
            } => {
                let like = self.like(expr, pattern, escape_char.as_ref(), span)?;
                Ok(not_if(*negated, like))
            }
            ast::Expr::Like { any: true, .. } => Err(Error::plan(
                "LIKE ANY is not supported (Flink has no LIKE ANY either): write s LIKE 'a%' OR s LIKE 'b%'",
                span,
            )),
            ast::Expr::ILike { .. } => Err(Error::plan(
                "ILIKE is not supported yet: write LOWER(s) LIKE LOWER('pattern')",
                span,
            )),
            ast::Expr::SimilarTo { .. } => Err(Error::plan(
                "SIMILAR TO is not supported yet: write LIKE, or REGEXP_EXTRACT(s, '^(regex)$', 0) IS NOT NULL",
                span,
            )),
            ast::Expr::IsNull(inner) => Ok(Expr::IsNull {
                expr: Box::new(self.bind(inner)?),
                negated: false,
            }),
            ast::Expr::IsNotNull(inner) => Ok(Expr::IsNull {
                expr: Box::new(self.bind(inner)?),
                negated: true,
            }),
            ast::Expr::BinaryOp { left, op, right } => {
                if matches!(op, BinaryOperator::Plus | BinaryOperator::Minus)
                    && interval_millis(right).is_some()
                {
                    let l = self.bind(left)?;
                    if !(l.ty().is_timestamp() || matches!(l.ty(), SqlType::Date | SqlType::Time(_))) {
                        return Err(Error::plan(
                            format!("an INTERVAL can only shift a timestamp, a DATE or a TIME, not a {}", l.ty()),
                            span,
                        ));
                    }
                    let op = if *op == BinaryOperator::Minus {
                        BinaryOp::Minus
                    } else {
                        BinaryOp::Plus
                    };
                    return timestamp_shift(op, l, right, span);
                }
                let l = self.bind(left)?;
                let r = self.bind(right)?;
                let op = match op {
                    BinaryOperator::Plus => BinaryOp::Plus,
                    BinaryOperator::Minus => BinaryOp::Minus,
                    BinaryOperator::Multiply => BinaryOp::Multiply,
                    BinaryOperator::Divide => BinaryOp::Divide,
                    BinaryOperator::Modulo => BinaryOp::Modulo,
                    BinaryOperator::StringConcat => BinaryOp::Concat,
                    BinaryOperator::Gt => BinaryOp::Gt,
                    BinaryOperator::Lt => BinaryOp::Lt,
                    BinaryOperator::GtEq => BinaryOp::GtEq,
                    BinaryOperator::LtEq => BinaryOp::LtEq,
                    BinaryOperator::Eq => BinaryOp::Eq,
                    BinaryOperator::NotEq => BinaryOp::NotEq,
                    BinaryOperator::And => BinaryOp::And,
                    BinaryOperator::Or => BinaryOp::Or,
                    other => {
                        return Err(Error::plan(
                            format!("operator {other} is not supported"),
                            span,
                        ))
                    }
                };
                binary(op, l, r, span, right)
            }
            ast::Expr::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let x = self.bind(expr)?;
                let lo = self.bind(low)?;
                let hi = self.bind(high)?;
                let ge = binary(BinaryOp::GtEq, x.clone(), lo, span, low)?;
                let le = binary(BinaryOp::LtEq, x, hi, span, high)?;
                let both = binary(BinaryOp::And, ge, le, span, high)?;
                Ok(not_if(*negated, both))
            }
            ast::Expr::InList {
                expr,
                list,
                negated,
            } => {
                let x = self.bind(expr)?;
                let mut tests = Vec::with_capacity(list.len());
                for item in list {
                    let v = self.bind(item)?;
                    tests.push(binary(BinaryOp::Eq, x.clone(), v, span, item)?);
                }
                let any = balanced_or(tests, span)?;
                Ok(not_if(*negated, any))
            }
            ast::Expr::Cast {
                kind,
                expr,
                data_type,
                ..
            } => {
                let inner = self.bind(expr)?;
                let to = sql_type(data_type, span)?;
                if !can_cast(&inner.ty(), &to) {
                    return Err(Error::plan(
                        format!("cannot cast {} to {to}", inner.ty()),
                        span,
                    ));
                }
                Ok(Expr::Cast {
                    expr: Box::new(inner),
                    to,
                    try_cast: matches!(kind, CastKind::TryCast | CastKind::SafeCast),
                })
            }
            ast::Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let operand = operand.as_ref().map(|o| self.bind(o)).transpose()?;
                let mut branches = Vec::new();
                let mut ty = SqlType::Null;
                for when in conditions {
                    let c = self.bind(&when.condition)?;
                    let c = match &operand {
                        Some(o) => binary(BinaryOp::Eq, o.clone(), c, span, &when.condition)?,
                        None => expect_boolean(c, spanned(&when.condition))?,
                    };
                    let v = self.bind(&when.result)?;
                    ty = unify_branches(&ty, &v.ty(), spanned(&when.result))?;
                    branches.push((c, v));
                }
                let otherwise = match else_result {
                    Some(e) => {
                        let v = self.bind(e)?;
                        ty = unify_branches(&ty, &v.ty(), spanned(e))?;
                        Some(v)
                    }
                    None => None,
                };
                let branches = branches
                    .into_iter()
                    .map(|(c, v)| (c, coerce(v, &ty)))
                    .collect();
                Ok(Expr::Case {
                    branches,
                    otherwise: otherwise.map(|v| Box::new(coerce(v, &ty))),
                    ty,
                })
            }
            ast::Expr::Function(f) if f.over.is_some() => {
                match self.over.iter().find(|(call, _)| call == f) {
                    Some((_, column)) => Ok(column.clone()),
                    None => Err(Error::plan(
                        format!("OVER is not allowed in {}", self.clause),
                        span,
                    )),
                }
            }
            ast::Expr::Function(f) => self.bind_function(f, e),
            ast::Expr::Extract { field, expr, .. } => {
                let ts = self.arg(expr)?;
                library::bind_extract(field, ts, span)
            }
            ast::Expr::Floor { expr, field } | ast::Expr::Ceil { expr, field } => {
                let ceil = matches!(e, ast::Expr::Ceil { .. });
                let ts = self.arg(expr)?;
                match field {
                    ast::CeilFloorKind::DateTimeField(unit) => {
                        library::bind_floor_ceil(ceil, unit, ts, span)
                    }
                    ast::CeilFloorKind::Scale(_) => Err(Error::plan(
                        "FLOOR and CEIL with a scale are not supported",
                        span,
                    )),
                }
            }
            ast::Expr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let s = self.arg(expr)?;
                let from = substring_from.as_deref().map(|x| self.arg(x)).transpose()?;
                let len = substring_for.as_deref().map(|x| self.arg(x)).transpose()?;
                library::bind_substring(s, from, len, span)
            }
            ast::Expr::Trim {
                expr,
                trim_where,
                trim_what,
                trim_characters,
            } => {
                if trim_characters.is_some() {
                    return Err(Error::plan("TRIM(s, chars) is not Flink syntax", span)
                        .with_hint("write TRIM(BOTH chars FROM s)"));
                }
                let s = self.arg(expr)?;
                let chars = trim_what.as_deref().map(|x| self.arg(x)).transpose()?;
                library::bind_trim(trim_where.as_ref(), chars, s, span)
            }
            ast::Expr::Position { expr, r#in } => {
                let needle = self.arg(expr)?;
                let s = self.arg(r#in)?;
                library::bind_position(needle, s, span)
            }
            ast::Expr::Overlay {
                expr,
                overlay_what,
                overlay_from,
                overlay_for,
            } => {
                let s = self.arg(expr)?;
                let r = self.arg(overlay_what)?;
                let start = self.arg(overlay_from)?;
                let len = overlay_for.as_deref().map(|x| self.arg(x)).transpose()?;
                library::bind_overlay(s, r, start, len, span)
            }
            ast::Expr::Interval(_) => Err(Error::plan(
                "an INTERVAL can only be added to or subtracted from a timestamp here",
                span,
            )),
            other => Err(Error::plan(
                format!("expression '{other}' is not supported"),
                span,
            )),
        }
    }
}

/// `e IS TRUE`: TRUE where `e` is, FALSE where it is FALSE or NULL.
fn is_true(e: Expr) -> Expr {
    Expr::Case {
        branches: vec![(e, Expr::boolean(true))],
        otherwise: Some(Box::new(Expr::boolean(false))),
        ty: SqlType::Boolean,
    }
}

/// `e`, or `NOT e` for the negated form (`NOT BETWEEN`, `NOT IN`).
fn not_if(negated: bool, e: Expr) -> Expr {
    if negated {
        Expr::Not(Box::new(e))
    } else {
        e
    }
}

/// `t1 OR t2 OR ...` as a balanced tree, so that a long IN list does not
/// make a deep one.
fn balanced_or(mut tests: Vec<Expr>, span: Span) -> Result<Expr> {
    if tests.is_empty() {
        return Err(Error::plan("IN needs at least one value", span));
    }
    while tests.len() > 1 {
        let mut next = Vec::with_capacity(tests.len().div_ceil(2));
        let mut pairs = tests.into_iter();
        while let Some(a) = pairs.next() {
            next.push(match pairs.next() {
                Some(b) => Expr::Binary {
                    op: BinaryOp::Or,
                    left: Box::new(a),
                    right: Box::new(b),
                    ty: SqlType::Boolean,
                },
                None => a,
            });
        }
        tests = next;
    }
    tests
        .pop()
        .ok_or_else(|| Error::Internal("empty IN list".into()))
}
