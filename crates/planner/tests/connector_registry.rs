//! A connector of the test's own — a declaration, an `open_source` and a
//! split reader, a few lines each — added through the registry, is
//! declared, validated, planned and read exactly like a built-in one: the
//! claim that a connector is one room.

use arrow::array::{Int64Array, RecordBatch};
use std::sync::Arc;
use tidemark_common::connector::{Capabilities, ConnectorDecl, FormatUse, OptionDecl, Origin};
use tidemark_common::{Error, Result, RowKind, SessionOptions};
use tidemark_engine::{
    write_changelog, Connector, OpenedSource, ReadBatch, ReadStats, RunOutput, SourceSpec, Split,
    SplitReader,
};
use tidemark_sql::{parse_script, Catalog, QueryBinder, Statement};

/// `'connector' = 'counter'`: one BIGINT column counting 1, 2, … `'to'`.
struct Counter;

static COUNTER: ConnectorDecl = ConnectorDecl {
    name: "counter",
    origin: Origin::Tidemark,
    doc: "counts from 1",
    format: FormatUse::None,
    formats: &[],
    options: &[OptionDecl::own("to", "the last number").required()],
    capabilities: Capabilities {
        read: true,
        ..Capabilities::NONE
    },
    metadata: &[],
    example: "WITH ('connector' = 'counter', 'to' = '10')",
    check: None,
};

impl Connector for Counter {
    fn declaration(&self) -> &'static ConnectorDecl {
        &COUNTER
    }

    fn open_source(&self, spec: SourceSpec<'_>) -> Result<OpenedSource> {
        let to = spec.table.option("to").and_then(|v| v.parse().ok());
        let to = to.ok_or_else(|| Error::plan("'to' must be a number", Default::default()))?;
        let reader = Count {
            next: 1,
            to,
            batch: spec.batch_size as i64,
            stats: ReadStats::default(),
        };
        Ok(OpenedSource {
            splits: vec![Split::new("counter", Box::new(reader))],
            ignore_parse_errors: false,
            discovery: None,
        })
    }
}

struct Count {
    next: i64,
    to: i64,
    batch: i64,
    stats: ReadStats,
}

impl SplitReader for Count {
    fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        if self.next > self.to {
            return Ok(None);
        }
        let end = (self.next + self.batch - 1).min(self.to);
        let values: Vec<i64> = (self.next..=end).collect();
        self.next = end + 1;
        self.stats.rows_read += values.len() as u64;
        let lines = values.iter().map(|&v| v as u64).collect();
        let batch = RecordBatch::try_from_iter([("n", Arc::new(Int64Array::from(values)) as _)])?;
        Ok(Some(ReadBatch {
            batch,
            lines,
            raw: vec![],
            skipped: vec![],
        }))
    }

    fn stats(&self) -> ReadStats {
        self.stats.clone()
    }

    fn unpositioned(&self) -> Option<&'static str> {
        Some("the counter connector")
    }
}

/// Runs the script's last statement, a query, and returns its changelog.
fn run(script: &str, options: &SessionOptions) -> Result<String> {
    let mut catalog = Catalog::new(tidemark_engine::declarations());
    let mut out = String::new();
    for statement in parse_script(script)? {
        match statement {
            Statement::CreateTable(create) => {
                catalog.create_table(&create, std::path::Path::new("."))?
            }
            Statement::Query { query, span } => {
                let plan = QueryBinder::new(&catalog).bind_query(&query, span)?;
                let mut physical = tidemark_planner::plan_query(&plan, options)?;
                let types = physical.output_types.clone();
                physical.pipeline.run(&mut |item| {
                    if let RunOutput::Rows(chunk) = item {
                        let kinds: Vec<RowKind> =
                            (0..chunk.num_rows()).map(|i| chunk.kind(i)).collect();
                        write_changelog(&chunk.batch, &types, &kinds, chrono_tz::UTC, &mut out)?;
                    }
                    Ok(())
                })?;
            }
            _ => {}
        }
    }
    Ok(out)
}

#[test]
fn a_connector_added_through_the_registry_is_read_like_a_built_in_one() -> Result<()> {
    tidemark_engine::register(&Counter)?;
    let table =
        "CREATE TABLE c (n BIGINT, ts AS TO_TIMESTAMP_LTZ(n * 1000, 3), WATERMARK FOR ts AS ts) \
                 WITH ('connector' = 'counter', 'to' = '25');";
    let query = "SELECT window_start, COUNT(*) AS rows_in, SUM(n) AS total \
                 FROM TABLE(TUMBLE(TABLE c, DESCRIPTOR(ts), INTERVAL '10' SECOND)) \
                 GROUP BY window_start, window_end;";
    // 1..9 fall in [0 s, 10 s), 10..19 in [10 s, 20 s), 20..25 in [20 s, 30 s).
    let expected = "+I[1970-01-01 00:00:00.000, 9, 45]\n\
                    +I[1970-01-01 00:00:10.000, 10, 145]\n\
                    +I[1970-01-01 00:00:20.000, 6, 135]\n";
    for batch_size in ["1", "4", "100"] {
        let mut options = SessionOptions::default();
        options.set("tidemark.batch-size", batch_size);
        assert_eq!(
            run(&format!("{table}\n{query}"), &options)?,
            expected,
            "batch size {batch_size}"
        );
    }

    // Its declaration checks its tables as a built-in one's does.
    let misspelt = table.replace("'to'", "'too'");
    match run(&misspelt, &SessionOptions::default()) {
        Err(Error::Plan { message, hint, .. }) => {
            assert_eq!(message, "unknown option 'too' of the counter connector");
            assert_eq!(hint.as_deref(), Some("did you mean 'to'?"));
        }
        other => panic!("expected the misspelt option refused, got {other:?}"),
    }
    // A name is one connector's only.
    assert!(tidemark_engine::register(&Counter).is_err());
    Ok(())
}
