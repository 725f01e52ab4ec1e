//! How a table's columns are made from what its connector reads: the read
//! gives the physical columns, then the metadata ones in the connector's
//! own types; metadata is cast to the declared types, computed columns are
//! evaluated over the read columns, and all of them are put in declared
//! order, which is what `SELECT *` gives.

use crate::expr::eval::{evaluate, EvalContext};
use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions, TimestampMillisecondArray};
use arrow::datatypes::SchemaRef;
use std::sync::Arc;
use tidemark_common::catalog::{ColumnKind, TableDef};
use tidemark_common::connector::MetadataDecl;
use tidemark_common::expr::{Expr, ScalarFunction};
use tidemark_common::{Error, Field, Result, Schema, SqlType};

/// A table's columns from its read.
#[derive(Debug)]
pub(super) struct Layout {
    /// The read columns in their declared types: what computed columns
    /// are evaluated over.
    read_schema: SchemaRef,
    /// For each read column given in another type than declared (a
    /// metadata column), the cast to its declared type.
    casts: Vec<Option<Expr>>,
    /// For each column of the table, in declared order: where it comes
    /// from.
    columns: Vec<Slot>,
    schema: SchemaRef,
}

#[derive(Debug)]
enum Slot {
    Read(usize),
    ProcTime,
    Computed(Expr),
}

impl Layout {
    /// The layout of `table`, whose connector gives the metadata `given`.
    pub(super) fn of(table: &TableDef, given: &[MetadataDecl]) -> Result<Self> {
        let read = table.read_columns();
        let mut fields = Vec::with_capacity(read.len());
        let mut casts = Vec::with_capacity(read.len());
        for (at, &column) in read.iter().enumerate() {
            let declared = table.schema.field(column);
            fields.push(Field {
                rowtime: false,
                ..declared.clone()
            });
            let given = match &table.kinds[column] {
                ColumnKind::Metadata { key, .. } => given
                    .iter()
                    .find(|m| m.key == key)
                    .map(|m| m.ty.clone())
                    .ok_or_else(|| {
                        Error::Internal(format!(
                            "table {}: its connector has no metadata '{key}'",
                            table.name
                        ))
                    })?,
                _ => declared.ty.clone(),
            };
            casts.push((given != declared.ty).then(|| Expr::Cast {
                expr: Box::new(Expr::Column {
                    index: at,
                    name: declared.name.clone(),
                    ty: given,
                }),
                to: declared.ty.clone(),
                try_cast: false,
            }));
        }
        let columns = (0..table.kinds.len())
            .map(|column| match &table.kinds[column] {
                ColumnKind::Computed(Expr::Function {
                    func: ScalarFunction::ProcTime,
                    ..
                }) => Slot::ProcTime,
                ColumnKind::Computed(expr) => Slot::Computed(expr.clone()),
                _ => Slot::Read(read.iter().position(|c| *c == column).unwrap_or(0)),
            })
            .collect();
        Ok(Layout {
            read_schema: Schema::new(fields).to_arrow(),
            casts,
            columns,
            schema: table.schema.to_arrow(),
        })
    }

    /// The table's columns from `read` (physical then metadata columns, as
    /// the connector gives them); `proc_times` holds each row's processing
    /// time, for `PROCTIME()` columns.
    pub(super) fn columns(
        &self,
        read: &RecordBatch,
        proc_times: &[i64],
        ctx: &EvalContext,
    ) -> Result<RecordBatch> {
        let rows = RecordBatchOptions::new().with_row_count(Some(read.num_rows()));
        let mut values: Vec<ArrayRef> = read.columns().to_vec();
        for (at, cast) in self.casts.iter().enumerate() {
            if let Some(cast) = cast {
                values[at] = evaluate(cast, read, ctx)?;
            }
        }
        let read = RecordBatch::try_new_with_options(self.read_schema.clone(), values, &rows)?;
        let mut columns = Vec::with_capacity(self.columns.len());
        for slot in &self.columns {
            columns.push(match slot {
                Slot::Read(at) => read.column(*at).clone(),
                Slot::ProcTime => Arc::new(
                    TimestampMillisecondArray::from(proc_times.to_vec())
                        .with_timezone(tidemark_common::LTZ_ARROW_TZ),
                ) as ArrayRef,
                Slot::Computed(expr) => evaluate(expr, &read, ctx)?,
            });
        }
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &rows,
        )?)
    }
}

/// The metadata keys a read of `table` must give, in the order it gives
/// them after the physical columns.
pub(super) fn metadata_keys(table: &TableDef) -> Vec<String> {
    table
        .metadata_columns()
        .into_iter()
        .map(|(_, key)| key.to_string())
        .collect()
}

/// The physical columns the format decodes, by name and type.
pub(crate) fn physical_columns(table: &TableDef) -> Vec<(String, SqlType)> {
    table
        .physical_columns()
        .into_iter()
        .map(|c| {
            let f = table.schema.field(c);
            (f.name.clone(), f.ty.clone())
        })
        .collect()
}
