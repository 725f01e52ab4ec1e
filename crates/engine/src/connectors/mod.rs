//! Where rows come from and go to: a declared table read as a stream
//! ([`source`]) or written as a sink ([`sink`]), and one module per
//! connector: [`filesystem`] (files and folders, read once or followed),
//! [`stdin`], [`datagen`], [`nexmark`], [`print`], [`blackhole`] and
//! [`jdbc`] (PostgreSQL).
//!
//! Each connector is one [`Connector`] in [`CONNECTORS`]: it declares its
//! options and capabilities once ([`ConnectorDecl`]), and the front end
//! validates `CREATE TABLE`, `EXPLAIN` explains and the docs list options
//! from that declaration. Adding a connector is a module and a line in
//! [`CONNECTORS`].

pub mod blackhole;
pub mod datagen;
pub mod filesystem;
pub mod jdbc;
pub mod kafka;
pub mod nexmark;
pub mod print;
pub mod replay;
pub mod sink;
pub mod source;
pub mod split;
pub mod stdin;

use crate::time::clock::Clock;
use filesystem::parallel::ParallelRead;
use sink::SinkWriter;
use split::Split;
use std::sync::{Arc, RwLock};
use tidemark_common::catalog::TableDef;
use tidemark_common::connector::{ConnectorDecl, Declarations, OptionDecl, ValueKind};
use tidemark_common::{Error, Result, SqlType};

/// A connector: its declaration, and what it says about a table of its
/// own in `EXPLAIN`.
pub trait Connector: Sync {
    fn declaration(&self) -> &'static ConnectorDecl;

    /// Whether a read of `table` may have nothing for a while without
    /// having ended (standard input, a followed file): results of such an
    /// input go out as they are made, not held for the next rows.
    fn may_pause(&self, _table: &TableDef) -> bool {
        false
    }

    /// Whether a split of `table` may have nothing for a while without
    /// having ended, so that it can go idle (spec §8): a followed file's
    /// may; the files of a followed folder, each read once, do not.
    fn splits_may_pause(&self, table: &TableDef) -> bool {
        self.may_pause(table)
    }

    /// What one split of `table` is ("file"), when the table reads
    /// several: each keeps its own watermark (spec §8).
    fn split_kind(&self, _table: &TableDef) -> Option<&'static str> {
        None
    }

    /// Where a read of `table` starts and ends, when there is more to say
    /// than the connector's name (a Kafka topic's modes).
    fn explain_source(&self, _table: &TableDef) -> Option<String> {
        None
    }

    /// Of the physical columns `unread` flags (no step of the query reads
    /// them), those a read of `table` leaves undecoded: a connector whose
    /// rows are text in a format may skip a column's fields; one that
    /// makes its rows (datagen, nexmark) has nothing to skip.
    fn undecoded(&self, _table: &TableDef, unread: &[bool]) -> Vec<bool> {
        vec![false; unread.len()]
    }

    /// How a read of `table` goes at parallelism `threads` (> 1).
    fn explain_read(&self, _table: &TableDef, _threads: usize) -> String {
        ON_ONE_THREAD.into()
    }

    /// What writing `table` does, when there is more to say than the
    /// connector's name.
    fn explain_write(&self, _table: &TableDef) -> Option<String> {
        None
    }

    /// Opens `table` to be read. Only connectors that declare `read` are
    /// asked.
    fn open_source(&self, spec: SourceSpec<'_>) -> Result<OpenedSource> {
        Err(Error::Internal(format!(
            "table {} cannot be read (connector {})",
            spec.table.name,
            self.declaration().name
        )))
    }

    /// Opens `table` to be written; `staged` for a checkpointed run (see
    /// [`sink::open_sink`]). Only connectors that declare
    /// `write` are asked.
    fn open_sink(&self, table: &TableDef, _staged: Option<bool>) -> Result<Box<dyn SinkWriter>> {
        Err(Error::Internal(format!(
            "table {} cannot be written (connector {})",
            table.name,
            self.declaration().name
        )))
    }

    /// Whether `table` is written in transactions, one per checkpoint
    /// epoch (Kafka's `'exactly-once'`): known from its options, before
    /// anything is opened.
    fn transactional(&self, _table: &TableDef) -> bool {
        false
    }

    /// Whether `epoch` was committed to `table` (see
    /// [`sink::epoch_committed`]). Only connectors whose sinks are
    /// transactional are asked.
    fn epoch_committed(&self, table: &TableDef, _epoch: &sink::Epoch) -> Result<bool> {
        Err(Error::Internal(format!(
            "table {} is not written in transactions (connector {})",
            table.name,
            self.declaration().name
        )))
    }
}

/// What a table is opened to be read with.
pub struct SourceSpec<'a> {
    pub table: &'a TableDef,
    /// The physical columns the reader makes, by name and type.
    pub columns: Vec<(String, SqlType)>,
    /// The metadata the reader gives after them, by key, one column each
    /// in the type the connector declares for it.
    pub metadata: Vec<String>,
    pub batch_size: usize,
    /// How many threads may read it.
    pub parallel: ParallelRead,
    /// The engine's clock (generated rows may be timed by it).
    pub clock: Clock,
}

/// An opened table: the reader of its split, whether it skips what does
/// not parse, and how messages name what it reads.
pub struct OpenedSource {
    /// The table's splits, numbered in this order.
    pub splits: Vec<Split>,
    pub ignore_parse_errors: bool,
    /// What finds splits that appear later, for a table that has them.
    pub discovery: Option<Box<dyn split::SplitDiscovery>>,
}

/// `scan.watermark.idle-timeout`, for a table whose splits may pause: it
/// wins over `table.exec.source.idle-timeout` (spec §8).
pub(crate) const IDLE_OPTION: OptionDecl = OptionDecl::flink(
    "scan.watermark.idle-timeout",
    "a split with no row for this long on the engine's clock is idle: left out of the watermark until its next row; 0: never (default: table.exec.source.idle-timeout)",
)
.kind(ValueKind::Duration);

/// Gives an I/O error of reading table `name` the table's name.
fn in_table(name: &str) -> impl Fn(Error) -> Error + '_ {
    move |e| match e {
        Error::Io { context, source } => Error::Io {
            context: format!("table {name}: {context}"),
            source,
        },
        other => other,
    }
}

/// How a read goes that is not split over threads.
pub const ON_ONE_THREAD: &str =
    "on one thread: only a file read to its end and the nexmark generator are split";

/// Every connector tidemark has, in the order the docs list them.
pub static CONNECTORS: &[&dyn Connector] = &[
    &filesystem::Filesystem,
    &stdin::Stdin,
    &datagen::Datagen,
    &nexmark::Nexmark,
    &replay::Replay,
    &kafka::Kafka,
    &kafka::UpsertKafka,
    &print::Print,
    &blackhole::Blackhole,
    &jdbc::Jdbc,
];

/// Connectors added by a program that embeds the engine
/// ([`register`]), after the built-in ones.
static REGISTERED: RwLock<Vec<&'static dyn Connector>> = RwLock::new(Vec::new());

/// Adds a connector of the embedding program's own; tables declared after
/// this (in a catalog made from [`declarations`]) can use it. A name
/// already taken is refused.
pub fn register(connector: &'static dyn Connector) -> Result<()> {
    let name = connector.declaration().name;
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if CONNECTORS
        .iter()
        .chain(registered.iter())
        .any(|c| c.declaration().name == name)
    {
        return Err(Error::plan(
            format!("a connector named '{name}' exists already"),
            tidemark_common::Span::default(),
        ));
    }
    registered.push(connector);
    Ok(())
}

/// Every connector: the built-in ones, then the registered ones.
fn all() -> Vec<&'static dyn Connector> {
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    CONNECTORS
        .iter()
        .chain(registered.iter())
        .copied()
        .collect()
}

/// The connector `name`, if there is one.
pub fn connector(name: &str) -> Option<&'static dyn Connector> {
    all().into_iter().find(|c| c.declaration().name == name)
}

/// The connector of a declared table (which the front end checked).
pub fn of_table(table: &TableDef) -> Option<&'static dyn Connector> {
    connector(table.option("connector")?)
}

/// The connector of a table being opened: a table the catalog took has
/// one, so none is a bug.
fn opening(table: &TableDef) -> Result<&'static dyn Connector> {
    of_table(table)
        .ok_or_else(|| Error::Internal(format!("table {} has no known connector", table.name)))
}

/// Whether a read of `table` may pause (see [`Connector::may_pause`]).
pub fn may_pause(table: &TableDef) -> bool {
    of_table(table).is_some_and(|c| c.may_pause(table))
}

/// The physical columns of `table` its read leaves undecoded, of those
/// `unread` flags (see [`Connector::undecoded`]).
pub fn undecoded(table: &TableDef, unread: &[bool]) -> Vec<bool> {
    of_table(table).map_or_else(|| vec![false; unread.len()], |c| c.undecoded(table, unread))
}

/// Whether a split of `table` may pause (see
/// [`Connector::splits_may_pause`]).
pub fn splits_may_pause(table: &TableDef) -> bool {
    of_table(table).is_some_and(|c| c.splits_may_pause(table))
}

/// What one split of `table` is, when it reads several (see
/// [`Connector::split_kind`]).
pub fn split_kind(table: &TableDef) -> Option<&'static str> {
    of_table(table).and_then(|c| c.split_kind(table))
}

/// What every connector and format declares, for the front end.
pub fn declarations() -> Arc<Declarations> {
    Arc::new(Declarations {
        connectors: all().into_iter().map(|c| c.declaration()).collect(),
        formats: crate::formats::FORMATS.to_vec(),
    })
}

/// The options of every connector and format, as the tables of
/// docs/sql-reference.md show them (a test keeps the two the same).
#[cfg(test)]
fn options_reference() -> String {
    use std::fmt::Write;
    use tidemark_common::connector::{FormatUse, OptionDecl, Origin};
    let origin = |o: Origin| match o {
        Origin::Flink => "Flink's",
        Origin::Tidemark => "tidemark's",
    };
    let mut out = String::new();
    let table = |out: &mut String, options: &[OptionDecl]| {
        if options.is_empty() {
            out.push_str("No options besides `'connector'`.\n\n");
            return;
        }
        out.push_str("| option | default | name | meaning |\n| --- | --- | --- | --- |\n");
        for o in options {
            let key = match o.key.strip_suffix('.') {
                Some(prefix) => format!("`{prefix}.…`"),
                None => format!("`{}`", o.key),
            };
            let default = match (o.required, o.default) {
                (true, _) => "required".to_string(),
                (false, Some(d)) => format!("`{d}`"),
                (false, None) => String::new(),
            };
            let doc = match o.kind {
                ValueKind::NotSupported => format!("not supported yet: {}", o.doc),
                _ => o.doc.to_string(),
            };
            let _ = writeln!(out, "| {key} | {default} | {} | {doc} |", origin(o.origin));
        }
        out.push('\n');
    };
    for connector in CONNECTORS.iter().map(|c| c.declaration()) {
        let c = connector.capabilities;
        let can: Vec<&str> = [
            (c.read, "read"),
            (c.write, "written"),
            (c.upsert, "upserts on a PRIMARY KEY"),
            (c.side_output, "takes late and bad rows"),
            (c.checkpoint_read, "checkpointed reads"),
            (c.unbounded, "may have no end"),
        ]
        .into_iter()
        .filter_map(|(yes, what)| yes.then_some(what))
        .collect();
        let formats = match connector.format {
            FormatUse::None => String::new(),
            _ => {
                let names: Vec<String> =
                    connector.formats.iter().map(|f| format!("`{f}`")).collect();
                format!("; formats {}", names.join(", "))
            }
        };
        let _ = writeln!(
            out,
            "#### `'connector' = '{}'` ({} connector)\n\n{}: {}{formats}.\n",
            connector.name,
            origin(connector.origin),
            capitalised(connector.doc),
            can.join(", "),
        );
        table(&mut out, connector.options);
        if !connector.metadata.is_empty() {
            out.push_str("| metadata key | type | meaning |\n| --- | --- | --- |\n");
            for m in connector.metadata {
                let ty = match m.not_supported {
                    Some(_) => "not supported yet".to_string(),
                    None => format!("`{}`", m.ty),
                };
                let _ = writeln!(out, "| `{}` | {ty} | {} |", m.key, m.doc);
            }
            out.push('\n');
        }
    }
    for format in crate::formats::FORMATS {
        let _ = writeln!(
            out,
            "#### `'format' = '{}'`\n\n{}.\n",
            format.name,
            capitalised(format.doc)
        );
        table(&mut out, format.options);
    }
    out
}

#[cfg(test)]
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEGIN: &str = "<!-- connector options: generated from the declarations -->\n";
    const END: &str = "<!-- end of connector options -->\n";

    /// docs/sql-reference.md lists exactly the declared options; with
    /// `TIDEMARK_BLESS_DOCS=1` the test rewrites the list instead.
    #[test]
    fn the_sql_reference_lists_the_declared_options() -> std::io::Result<()> {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/sql-reference.md");
        let text = std::fs::read_to_string(&path)?;
        let start = text
            .find(BEGIN)
            .expect("docs/sql-reference.md has the begin marker")
            + BEGIN.len();
        let end = text[start..]
            .find(END)
            .expect("docs/sql-reference.md has the end marker")
            + start;
        let generated = options_reference();
        if std::env::var_os("TIDEMARK_BLESS_DOCS").is_some() {
            std::fs::write(
                &path,
                format!("{}{generated}{}", &text[..start], &text[end..]),
            )?;
            return Ok(());
        }
        assert!(
            text[start..end] == generated,
            "docs/sql-reference.md's option tables differ from the connectors' declarations; \
             run TIDEMARK_BLESS_DOCS=1 cargo test -p tidemark-engine the_sql_reference and read the diff"
        );
        Ok(())
    }

    #[test]
    fn every_connector_is_found_by_its_name() {
        for c in CONNECTORS {
            let name = c.declaration().name;
            assert!(connector(name).is_some_and(|found| found.declaration().name == name));
        }
        assert!(connector("pulsar").is_none());
    }
}
