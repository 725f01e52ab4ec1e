//! Declared tables: columns, computed columns, rowtime and watermark, and
//! connector options, as `CREATE TABLE` gives them.

use crate::expr::Expr;
use crate::schema::Schema;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct TableDef {
    pub name: String,
    /// All columns: physical ones first (in file order), then computed ones.
    pub schema: Schema,
    /// How many leading columns of `schema` are physical.
    pub physical: usize,
    /// One expression per computed column, over the physical columns.
    pub computed: Vec<Expr>,
    pub watermark: Option<Watermark>,
    /// `WITH (...)` options, keys as written.
    pub options: BTreeMap<String, String>,
    /// The folder a relative `'path'` resolves against.
    pub base_dir: PathBuf,
    pub primary_key: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Watermark {
    /// The rowtime column (index into the table's schema).
    pub column: usize,
    /// The watermark expression, over the table's schema.
    pub expr: Expr,
}

impl TableDef {
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
