//! The `print` connector: a written table's rows on stdout in Flink's
//! changelog format, optionally behind `'print-identifier'`.

use super::sink::{PrintLines, SinkWriter};
use super::Connector;
use crate::formats::print::Changelog;
use crate::runtime::snapshot::{StateReader, StateWriter};
use arrow::array::RecordBatch;
use tidemark_common::catalog::TableDef;
use tidemark_common::connector::{Capabilities, ConnectorDecl, FormatUse, OptionDecl, Origin};
use tidemark_common::{Error, Result, RowKind, Span, SqlType};

pub struct Print;

static DECLARATION: ConnectorDecl = ConnectorDecl {
    name: "print",
    origin: Origin::Flink,
    doc: "rows written to stdout in Flink's changelog format",
    format: FormatUse::None,
    formats: &[],
    options: &[OptionDecl::flink(
        "print-identifier",
        "a prefix before every line: `<identifier>> +I[...]`",
    )],
    capabilities: Capabilities {
        write: true,
        changelog: true,
        side_output: true,
        ..Capabilities::NONE
    },
    metadata: &[],
    example: "WITH ('connector' = 'print')",
    check: None,
};

impl Connector for Print {
    fn declaration(&self) -> &'static ConnectorDecl {
        &DECLARATION
    }

    fn open_sink(&self, table: &TableDef, _staged: Option<bool>) -> Result<Box<dyn SinkWriter>> {
        let prefix = table
            .option("print-identifier")
            .map(|id| format!("{id}> "))
            .unwrap_or_default();
        Ok(Box::new(PrintSink {
            prefix,
            changelog: Changelog::default(),
        }))
    }
}

/// Lines for stdout, handed to the caller as they are made.
struct PrintSink {
    prefix: String,
    changelog: Changelog,
}

impl SinkWriter for PrintSink {
    fn write(
        &mut self,
        batch: &RecordBatch,
        types: &[SqlType],
        kinds: &[RowKind],
        tz: chrono_tz::Tz,
    ) -> Result<PrintLines> {
        let mut text = String::new();
        self.changelog.write(batch, types, kinds, tz, &mut text)?;
        if self.prefix.is_empty() {
            return Ok(text);
        }
        Ok(text
            .lines()
            .map(|l| format!("{}{l}\n", self.prefix))
            .collect())
    }

    fn checkpoint_blocker(&self, name: &str) -> Option<Error> {
        Some(Error::plan(
            format!("checkpointing needs outputs that can be taken back to the last checkpoint: table {name} prints to standard output"),
            Span::default(),
        ).with_hint("write to a filesystem table, or run without 'execution.checkpointing.dir'"))
    }

    fn save_state(&mut self, _w: &mut StateWriter) -> Result<()> {
        Err(self
            .checkpoint_blocker("?")
            .unwrap_or_else(|| Error::Internal("checkpointing a print sink".into())))
    }

    fn load_state(&mut self, _r: &mut StateReader<'_>) -> Result<()> {
        Err(Error::Internal("resuming a print sink".into()))
    }
}
