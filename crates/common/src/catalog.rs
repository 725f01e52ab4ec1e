//! Declared tables: columns, computed columns, rowtime and watermark, and
//! connector options, as `CREATE TABLE` gives them.

use crate::expr::Expr;
use crate::schema::Schema;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct TableDef {
    pub name: String,
    /// All columns in declared order: what `SELECT *` gives.
    pub schema: Schema,
    /// What each column of `schema` is, in the same order.
    pub kinds: Vec<ColumnKind>,
    pub watermark: Option<Watermark>,
    /// `WITH (...)` options, keys as written.
    pub options: BTreeMap<String, String>,
    /// The folder a relative `'path'` resolves against.
    pub base_dir: PathBuf,
    pub primary_key: Vec<String>,
}

/// Where a column's values come from.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnKind {
    /// Decoded from the rows by the format.
    Physical,
    /// Given by the connector beside each row (a Kafka record's
    /// timestamp, partition, offset), under `key`; a `VIRTUAL` one is
    /// left out when the table is written.
    Metadata { key: String, virtual_column: bool },
    /// Computed over the columns read: the expression's column indices
    /// are into [`TableDef::read_columns`], physical columns first, then
    /// metadata ones.
    Computed(Expr),
}

#[derive(Clone, Debug)]
pub struct Watermark {
    /// The rowtime column (index into the table's schema).
    pub column: usize,
    /// The watermark expression, over the table's schema.
    pub expr: Expr,
}

impl TableDef {
    /// A table whose columns are all physical.
    pub fn physical_only(name: &str, schema: Schema, options: BTreeMap<String, String>) -> Self {
        TableDef {
            name: name.to_string(),
            kinds: vec![ColumnKind::Physical; schema.len()],
            schema,
            watermark: None,
            options,
            base_dir: PathBuf::new(),
            primary_key: Vec::new(),
        }
    }

    /// The columns a read produces before anything is computed, as
    /// indices into `schema`: the physical ones, then the metadata ones,
    /// each in declared order.
    pub fn read_columns(&self) -> Vec<usize> {
        let of = |physical: bool| {
            self.kinds
                .iter()
                .enumerate()
                .filter(move |(_, k)| match k {
                    ColumnKind::Physical => physical,
                    ColumnKind::Metadata { .. } => !physical,
                    ColumnKind::Computed(_) => false,
                })
                .map(|(i, _)| i)
        };
        of(true).chain(of(false)).collect()
    }

    /// The physical columns, as indices into `schema`.
    pub fn physical_columns(&self) -> Vec<usize> {
        (0..self.kinds.len())
            .filter(|i| self.kinds[*i] == ColumnKind::Physical)
            .collect()
    }

    /// The columns an INSERT INTO writes, as indices into `schema` in
    /// declared order: the physical ones and the metadata ones that are
    /// not `VIRTUAL` (Flink's persisted columns); computed ones are not
    /// written.
    pub fn written_columns(&self) -> Vec<usize> {
        (0..self.kinds.len())
            .filter(|i| match &self.kinds[*i] {
                ColumnKind::Physical => true,
                ColumnKind::Metadata { virtual_column, .. } => !virtual_column,
                ColumnKind::Computed(_) => false,
            })
            .collect()
    }

    /// The schema of [`TableDef::written_columns`]: the rows a sink takes.
    pub fn written_schema(&self) -> crate::Schema {
        crate::Schema::new(
            self.written_columns()
                .into_iter()
                .map(|i| self.schema.fields[i].clone())
                .collect(),
        )
    }

    /// The metadata columns in declared order: index into `schema` and key.
    pub fn metadata_columns(&self) -> Vec<(usize, &str)> {
        self.kinds
            .iter()
            .enumerate()
            .filter_map(|(i, k)| match k {
                ColumnKind::Metadata { key, .. } => Some((i, key.as_str())),
                _ => None,
            })
            .collect()
    }

    /// The expression of column `column` when it is computed.
    pub fn computed(&self, column: usize) -> Option<&Expr> {
        match self.kinds.get(column) {
            Some(ColumnKind::Computed(expr)) => Some(expr),
            _ => None,
        }
    }

    pub fn option(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }

    /// How often a followed file is read again at its end
    /// (`source.monitor-interval`, checked when the table was declared);
    /// None for a file read once.
    pub fn monitor_interval(&self) -> Option<std::time::Duration> {
        let ms = crate::time::parse_duration_ms(self.option("source.monitor-interval")?).ok()?;
        Some(std::time::Duration::from_millis(
            u64::try_from(ms).ok()?.max(1),
        ))
    }
}
