//! The `blackhole` connector: a written table whose rows are discarded
//! (to measure a query without its output, as in Flink).

use super::sink::{PrintLines, SinkWriter};
use super::Connector;
use arrow::array::RecordBatch;
use tidemark_common::catalog::TableDef;
use tidemark_common::connector::{Capabilities, ConnectorDecl, FormatUse, Origin};
use tidemark_common::{Result, RowKind, SqlType};

pub struct Blackhole;

static DECLARATION: ConnectorDecl = ConnectorDecl {
    name: "blackhole",
    origin: Origin::Flink,
    doc: "rows written and discarded",
    format: FormatUse::None,
    formats: &[],
    options: &[],
    capabilities: Capabilities {
        write: true,
        changelog: true,
        side_output: true,
        ..Capabilities::NONE
    },
    metadata: &[],
    example: "WITH ('connector' = 'blackhole')",
    check: None,
};

impl Connector for Blackhole {
    fn declaration(&self) -> &'static ConnectorDecl {
        &DECLARATION
    }

    fn open_sink(&self, _table: &TableDef, _staged: Option<bool>) -> Result<Box<dyn SinkWriter>> {
        Ok(Box::new(Discard))
    }
}

/// Takes rows and keeps none.
struct Discard;

impl SinkWriter for Discard {
    fn write(
        &mut self,
        _batch: &RecordBatch,
        _types: &[SqlType],
        _kinds: &[RowKind],
        _tz: chrono_tz::Tz,
    ) -> Result<PrintLines> {
        Ok(String::new())
    }
}
