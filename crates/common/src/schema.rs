//! The SQL-level schema of a stream: names, types, and which column is the
//! rowtime attribute.

use crate::types::SqlType;
use arrow::datatypes::{Field as ArrowField, Schema as ArrowSchema, SchemaRef};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub ty: SqlType,
    pub nullable: bool,
    /// Whether this column is an event-time attribute (declared with
    /// `WATERMARK FOR`, or a `window_time` produced by a window).
    pub rowtime: bool,
    /// Whether this column is a processing-time attribute (`PROCTIME()`).
    pub proctime: bool,
}

impl Field {
    pub fn new(name: impl Into<String>, ty: SqlType) -> Self {
        Field {
            name: name.into(),
            ty,
            nullable: true,
            rowtime: false,
            proctime: false,
        }
    }

    pub fn rowtime(mut self, rowtime: bool) -> Self {
        self.rowtime = rowtime;
        self
    }

    pub fn proctime(mut self, proctime: bool) -> Self {
        self.proctime = proctime;
        self
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schema {
    pub fields: Vec<Field>,
}

impl Schema {
    pub fn new(fields: Vec<Field>) -> Self {
        Schema { fields }
    }

    pub fn len(&self) -> usize {
        self.fields.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Index of the column called `name`, compared case-insensitively as
    /// Flink's default identifiers are not (tidemark is lenient here, as
    /// DuckDB is).
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name).or_else(|| {
            self.fields
                .iter()
                .position(|f| f.name.eq_ignore_ascii_case(name))
        })
    }

    pub fn field(&self, i: usize) -> &Field {
        &self.fields[i]
    }

    pub fn to_arrow(&self) -> SchemaRef {
        Arc::new(ArrowSchema::new(
            self.fields
                .iter()
                .map(|f| ArrowField::new(&f.name, f.ty.to_arrow(), true))
                .collect::<Vec<_>>(),
        ))
    }

    /// The column names, for "did you mean" hints.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|f| f.name.as_str())
    }
}
