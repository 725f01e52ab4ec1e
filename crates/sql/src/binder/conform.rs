//! Rows brought to the types of a schema: the inputs of a UNION ALL to
//! their common types, and a query's rows to the columns of the table an
//! INSERT INTO writes.

use crate::plan::LogicalPlan;
use tidemark_common::expr::Expr;
use tidemark_common::{Error, Field, Result, Schema, Span};

/// `left UNION ALL right`: the columns must match in number and have a
/// common type (numbers widen, as in Flink); nested unions flatten.
pub(super) fn union_all(left: LogicalPlan, right: LogicalPlan, span: Span) -> Result<LogicalPlan> {
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
/// number of columns as the table writes (computed and `VIRTUAL` metadata
/// columns are not written, as in Flink), each of the column's type or
/// one that widens to it (as Flink casts implicitly).
pub fn insert_plan(
    plan: LogicalPlan,
    sink: &tidemark_common::catalog::TableDef,
    span: Span,
) -> Result<LogicalPlan> {
    let written = sink.written_schema();
    let (got, want) = (plan.schema(), &written);
    if got.fields.len() != want.fields.len() {
        let err = Error::plan(
            format!(
                "INSERT INTO {}: the query gives {} columns and the table takes {}",
                sink.name,
                got.fields.len(),
                want.fields.len()
            ),
            span,
        );
        let written_columns = sink.written_columns();
        let not_written: Vec<String> = (0..sink.schema.fields.len())
            .filter(|i| !written_columns.contains(i))
            .map(|i| sink.schema.fields[i].name.clone())
            .collect();
        return Err(if not_written.is_empty() {
            err
        } else {
            err.with_hint(format!(
                "computed and VIRTUAL columns are not written: {} takes {}, not {}",
                sink.name,
                want.fields
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                not_written.join(", ")
            ))
        });
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
