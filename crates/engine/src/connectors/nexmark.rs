//! The `'connector' = 'nexmark'` source: one stream of the Nexmark
//! benchmark's events (`'stream'` = `'person'`, `'auction'` or `'bid'`),
//! made by the `nexmark` crate's generator, with the column names of
//! Flink's Nexmark tables.
//!
//! Every stream is a filter of one deterministic sequence of events, so
//! tables over the three streams agree with each other (the auctions' sellers
//! are persons, the bids' auctions are auctions). Options:
//! - `'events.num'`: events of all kinds generated (default 10,000,000); a
//!   stream gets its share (person 1, auction 3, bid 46 in 50 by default).
//! - `'person.proportion'`, `'auction.proportion'`, `'bid.proportion'`.
//! - `'first-event.rate'` / `'next-event.rate'` (events per second of
//!   event time, default 10,000): how far apart the events' `dateTime`s
//!   are. Rows are made as fast as the query reads them.
//! - `'base-time'` (tidemark's own; default `2024-01-01 00:00:00`, UTC):
//!   the first event's time, so every run makes the same events.

use crate::formats::options::option_error;
use crate::runtime::ordered_pool::OrderedPool;
use crate::runtime::read::{ReadBatch, ReadStats};
use arrow::array::{ArrayRef, Int64Builder, StringBuilder, TimestampMillisecondBuilder};
use arrow::datatypes::{Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use nexmark::config::NexmarkConfig;
use nexmark::event::{Event, EventType};
use nexmark::EventGenerator;
use std::collections::BTreeMap;
use std::sync::Arc;
use tidemark_common::connector::{Capabilities, ConnectorDecl, FormatUse, OptionDecl, Origin};
use tidemark_common::{Error, Result, SqlType};

/// The columns of each stream, as Flink's Nexmark tables name them.
const PERSON: &[(&str, Kind)] = &[
    ("id", Kind::Long),
    ("name", Kind::Text),
    ("emailAddress", Kind::Text),
    ("creditCard", Kind::Text),
    ("city", Kind::Text),
    ("state", Kind::Text),
    ("dateTime", Kind::Time),
    ("extra", Kind::Text),
];
const AUCTION: &[(&str, Kind)] = &[
    ("id", Kind::Long),
    ("itemName", Kind::Text),
    ("description", Kind::Text),
    ("initialBid", Kind::Long),
    ("reserve", Kind::Long),
    ("dateTime", Kind::Time),
    ("expires", Kind::Time),
    ("seller", Kind::Long),
    ("category", Kind::Long),
    ("extra", Kind::Text),
];
const BID: &[(&str, Kind)] = &[
    ("auction", Kind::Long),
    ("bidder", Kind::Long),
    ("price", Kind::Long),
    ("channel", Kind::Text),
    ("url", Kind::Text),
    ("dateTime", Kind::Time),
    ("extra", Kind::Text),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Long,
    Text,
    Time,
}

/// One value of an event, by the stream's column position.
enum Value<'e> {
    Long(i64),
    Text(&'e str),
    Time(i64),
}

fn field(event: &Event, column: usize) -> Option<Value<'_>> {
    let long = |v: usize| Value::Long(v as i64);
    let time = |v: u64| Value::Time(v as i64);
    Some(match event {
        Event::Person(p) => match column {
            0 => long(p.id),
            1 => Value::Text(&p.name),
            2 => Value::Text(&p.email_address),
            3 => Value::Text(&p.credit_card),
            4 => Value::Text(&p.city),
            5 => Value::Text(&p.state),
            6 => time(p.date_time),
            7 => Value::Text(&p.extra),
            _ => return None,
        },
        Event::Auction(a) => match column {
            0 => long(a.id),
            1 => Value::Text(&a.item_name),
            2 => Value::Text(&a.description),
            3 => long(a.initial_bid),
            4 => long(a.reserve),
            5 => time(a.date_time),
            6 => time(a.expires),
            7 => long(a.seller),
            8 => long(a.category),
            9 => Value::Text(&a.extra),
            _ => return None,
        },
        Event::Bid(b) => match column {
            0 => long(b.auction),
            1 => long(b.bidder),
            2 => long(b.price),
            3 => Value::Text(&b.channel),
            4 => Value::Text(&b.url),
            5 => time(b.date_time),
            6 => Value::Text(&b.extra),
            _ => return None,
        },
    })
}

/// Events per batch when batches are made on several threads.
const PARALLEL_BATCH: u64 = 4096;

/// Makes the batch of any run of a stream's events: event `k` of a stream
/// depends only on `k`, so runs can be made on any thread.
struct BatchMaker {
    /// The stream's generator at its first event.
    events: EventGenerator,
    /// For each declared column: its position in the stream's columns.
    picks: Vec<usize>,
    kinds: Vec<Kind>,
    schema: SchemaRef,
}

impl BatchMaker {
    /// The batch of events `offset .. offset + n` of the stream.
    fn make(&self, offset: u64, n: usize) -> Result<RecordBatch> {
        // One pass: each event goes into the builders as it is made and
        // is dropped, rather than kept in a batch of whole events.
        let mut builders: Vec<Builder> = self
            .kinds
            .iter()
            .map(|kind| match kind {
                Kind::Long => Builder::Long(Int64Builder::with_capacity(n)),
                Kind::Text => Builder::Text(StringBuilder::with_capacity(n, n * 16)),
                Kind::Time => Builder::Time(TimestampMillisecondBuilder::with_capacity(n)),
            })
            .collect();
        for event in self.events.clone().with_offset(offset).take(n) {
            for (pos, builder) in self.picks.iter().zip(&mut builders) {
                let missing = || Error::Internal(format!("nexmark event without column {pos}"));
                match (field(&event, *pos).ok_or_else(missing)?, builder) {
                    (Value::Long(v), Builder::Long(b)) => b.append_value(v),
                    (Value::Text(v), Builder::Text(b)) => b.append_value(v),
                    (Value::Time(v), Builder::Time(b)) => b.append_value(v),
                    _ => return Err(missing()),
                }
            }
        }
        let columns = builders
            .into_iter()
            .map(|b| -> ArrayRef {
                match b {
                    Builder::Long(mut b) => Arc::new(b.finish()),
                    Builder::Text(mut b) => Arc::new(b.finish()),
                    Builder::Time(mut b) => Arc::new(b.finish()),
                }
            })
            .collect();
        Ok(RecordBatch::try_new(self.schema.clone(), columns)?)
    }
}

pub struct NexmarkSource {
    maker: Arc<BatchMaker>,
    batch_size: usize,
    /// Events of the stream in all.
    total: u64,
    /// Events handed out so far.
    made: u64,
    /// Threads making batches; more than one: batches are made ahead on
    /// an [`OrderedPool`] (started at the first batch).
    threads: usize,
    pool: Option<OrderedPool<Result<RecordBatch>>>,
    stats: ReadStats,
}

impl NexmarkSource {
    pub fn open(
        columns: Vec<(String, SqlType)>,
        options: &BTreeMap<String, String>,
        batch_size: usize,
        threads: usize,
    ) -> Result<Self> {
        // The option keys were checked against the declaration when the
        // table was declared.
        let (stream, event_type) = match options.get("stream").map(String::as_str) {
            Some("person") => (PERSON, EventType::Person),
            Some("auction") => (AUCTION, EventType::Auction),
            Some("bid") => (BID, EventType::Bid),
            _ => {
                return Err(option_error(
                    "the nexmark connector needs 'stream' = 'person', 'auction' or 'bid'".into(),
                ))
            }
        };
        let whole = |key: &str, default: u64| -> Result<u64> {
            match options.get(key) {
                None => Ok(default),
                Some(v) => v.trim().replace('_', "").parse::<u64>().map_err(|_| {
                    option_error(format!("option '{key}' must be a whole number, not '{v}'"))
                }),
            }
        };
        let mut config = NexmarkConfig {
            person_proportion: whole("person.proportion", 1)? as usize,
            auction_proportion: whole("auction.proportion", 3)? as usize,
            bid_proportion: whole("bid.proportion", 46)? as usize,
            first_rate: whole("first-event.rate", 10_000)? as usize,
            next_rate: whole("next-event.rate", 10_000)? as usize,
            ..NexmarkConfig::default()
        };
        if config.person_proportion + config.auction_proportion + config.bid_proportion == 0
            || config.first_rate == 0
            || config.next_rate == 0
        {
            return Err(option_error(
                "nexmark proportions must not all be 0, and rates must be more than 0".into(),
            ));
        }
        let base = options
            .get("base-time")
            .map_or("2024-01-01 00:00:00", String::as_str);
        config.base_time = crate::formats::text::parse_timestamp(base, false, chrono_tz::UTC)
            .and_then(|t| u64::try_from(t).ok())
            .ok_or_else(|| {
                option_error(format!(
                    "option 'base-time' must be a time after 1970 such as '2024-01-01 00:00:00', not '{base}'"
                ))
            })?;
        let events_num = whole("events.num", 10_000_000)?;
        let remaining = share(events_num, &config, event_type);
        let mut picks = Vec::with_capacity(columns.len());
        let mut kinds = Vec::with_capacity(columns.len());
        for (name, ty) in &columns {
            let Some(pos) = stream
                .iter()
                .position(|(n, _)| n.eq_ignore_ascii_case(name))
            else {
                let names: Vec<&str> = stream.iter().map(|(n, _)| *n).collect();
                return Err(option_error(format!(
                    "the nexmark {} stream has no column '{name}'; it has {}",
                    options.get("stream").map_or("", String::as_str),
                    names.join(", ")
                )));
            };
            let kind = stream[pos].1;
            let fits = match kind {
                Kind::Long => matches!(ty, SqlType::BigInt),
                Kind::Text => matches!(ty, SqlType::String),
                Kind::Time => matches!(ty, SqlType::Timestamp(_)),
            };
            if !fits {
                let want = match kind {
                    Kind::Long => "BIGINT",
                    Kind::Text => "STRING",
                    Kind::Time => "TIMESTAMP(3)",
                };
                return Err(option_error(format!(
                    "nexmark column '{name}' is {want}, not {ty}"
                )));
            }
            picks.push(pos);
            kinds.push(kind);
        }
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
                .collect::<Vec<_>>(),
        ));
        Ok(NexmarkSource {
            maker: Arc::new(BatchMaker {
                events: EventGenerator::new(config).with_type_filter(event_type),
                picks,
                kinds,
                schema,
            }),
            batch_size: batch_size.max(1),
            total: remaining,
            made: 0,
            threads: threads.max(1),
            pool: None,
            stats: ReadStats::default(),
        })
    }

    pub fn stats(&self) -> ReadStats {
        self.stats.clone()
    }

    pub fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        let per_batch = if self.threads > 1 {
            (self.batch_size as u64).min(PARALLEL_BATCH)
        } else {
            self.batch_size as u64
        };
        let n = (self.total - self.made).min(per_batch) as usize;
        if n == 0 {
            return Ok(None);
        }
        let batch = if self.threads > 1 {
            // Batches made ahead are held by the pool: smaller ones keep
            // that memory small (events of the wide streams are large).
            let size = (self.batch_size as u64).min(PARALLEL_BATCH);
            let total = self.total;
            let maker = Arc::clone(&self.maker);
            let pool = self.pool.get_or_insert_with(|| {
                // Job j: events j * size onwards, as one thread makes them.
                let jobs = total.div_ceil(size);
                OrderedPool::spawn(
                    self.threads,
                    jobs,
                    Arc::new(move |j| {
                        let offset = j * size;
                        maker.make(offset, (total - offset).min(size) as usize)
                    }),
                )
            });
            pool.next()
                .ok_or_else(|| Error::Internal("a nexmark generator thread failed".into()))??
        } else {
            self.maker.make(self.made, n)?
        };
        let first = self.stats.rows_read + 1;
        self.stats.rows_read += n as u64;
        self.made += n as u64;
        Ok(Some(ReadBatch {
            batch,
            lines: (first..first + n as u64).collect(),
            raw: Vec::new(),
            skipped: Vec::new(),
        }))
    }
}

/// The builder of one declared column.
enum Builder {
    Long(Int64Builder),
    Text(StringBuilder),
    Time(TimestampMillisecondBuilder),
}

/// How many of the first `events` events are of `kind`: each run of
/// person + auction + bid proportion events holds them in that order.
fn share(events: u64, config: &NexmarkConfig, kind: EventType) -> u64 {
    let (p, a, b) = (
        config.person_proportion as u64,
        config.auction_proportion as u64,
        config.bid_proportion as u64,
    );
    let (from, len) = match kind {
        EventType::Person => (0, p),
        EventType::Auction => (p, a),
        EventType::Bid => (p + a, b),
    };
    let period = p + a + b;
    events / period * len + (events % period).saturating_sub(from).min(len)
}

/// The `nexmark` connector.
pub struct Nexmark;

static DECLARATION: ConnectorDecl = ConnectorDecl {
    name: "nexmark",
    origin: Origin::Tidemark,
    doc: "one stream of the Nexmark benchmark's events, with Flink's Nexmark column names",
    format: FormatUse::None,
    formats: &[],
    options: &[
        OptionDecl::flink("stream", "which events: 'person', 'auction' or 'bid'"),
        OptionDecl::flink("events.num", "events of all kinds generated").default_value("10000000"),
        OptionDecl::flink("person.proportion", "persons among every 50 events").default_value("1"),
        OptionDecl::flink("auction.proportion", "auctions among every 50 events")
            .default_value("3"),
        OptionDecl::flink("bid.proportion", "bids among every 50 events").default_value("46"),
        OptionDecl::flink(
            "first-event.rate",
            "events per second of event time at the start",
        )
        .default_value("10000"),
        OptionDecl::flink("next-event.rate", "events per second of event time after")
            .default_value("10000"),
        OptionDecl::own("base-time", "the first event's time (UTC)")
            .default_value("2024-01-01 00:00:00"),
    ],
    capabilities: Capabilities {
        read: true,
        ..Capabilities::NONE
    },
    metadata: &[],
    example: "WITH ('connector' = 'nexmark', 'stream' = 'bid')",
    check: None,
};

impl super::Connector for Nexmark {
    fn declaration(&self) -> &'static ConnectorDecl {
        &DECLARATION
    }

    fn explain_read(&self, _table: &tidemark_common::catalog::TableDef, threads: usize) -> String {
        format!("events made on {threads} threads, a batch each, then taken in order")
    }

    fn open_source(&self, spec: super::SourceSpec<'_>) -> Result<super::OpenedSource> {
        let reader = NexmarkSource::open(
            spec.columns,
            &spec.table.options,
            spec.batch_size,
            spec.parallel.threads,
        )?;
        Ok(super::OpenedSource {
            splits: vec![super::split::Split::new("nexmark", Box::new(reader))],
            ignore_parse_errors: false,
            discovery: None,
        })
    }
}

impl super::split::SplitReader for NexmarkSource {
    fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        NexmarkSource::next_batch(self)
    }

    fn stats(&self) -> ReadStats {
        NexmarkSource::stats(self)
    }

    fn unpositioned(&self) -> Option<&'static str> {
        Some("the nexmark connector")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::AsArray;
    use arrow::datatypes::{Int64Type, TimestampMillisecondType};

    fn open(stream: &str, columns: &[(&str, SqlType)], events: &str) -> Result<NexmarkSource> {
        let options = BTreeMap::from([
            ("stream".to_string(), stream.to_string()),
            ("events.num".to_string(), events.to_string()),
        ]);
        let columns = columns
            .iter()
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect();
        NexmarkSource::open(columns, &options, 64, 1)
    }

    #[test]
    fn streams_share_the_events_and_agree() -> Result<()> {
        let mut bids = open(
            "bid",
            &[
                ("auction", SqlType::BigInt),
                ("dateTime", SqlType::Timestamp(3)),
            ],
            "1000",
        )?;
        let mut auctions = open("auction", &[("id", SqlType::BigInt)], "1000")?;
        let count = |src: &mut NexmarkSource| -> Result<(u64, Vec<RecordBatch>)> {
            let mut out = Vec::new();
            while let Some(b) = src.next_batch()? {
                out.push(b.batch);
            }
            Ok((src.stats().rows_read, out))
        };
        let (n_bids, bid_batches) = count(&mut bids)?;
        let (n_auctions, auction_batches) = count(&mut auctions)?;
        // 1000 events = 20 runs of 1 person, 3 auctions, 46 bids.
        assert_eq!((n_bids, n_auctions), (920, 60));
        let auction_ids: std::collections::HashSet<i64> = auction_batches
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
            .collect();
        let first_time = bid_batches[0]
            .column(1)
            .as_primitive::<TimestampMillisecondType>()
            .value(0);
        assert_eq!(first_time, 1_704_067_200_000);
        // Bids go to auctions that exist (or are about to, within the
        // generator's lead).
        let bid_auctions: Vec<i64> = bid_batches
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
            .collect();
        let max_auction = auction_ids.iter().max().copied().unwrap_or_default();
        assert!(bid_auctions
            .iter()
            .all(|a| *a >= 1000 && *a <= max_auction + 10));
        Ok(())
    }

    #[test]
    fn columns_are_checked_by_name_and_type() {
        assert!(open("bid", &[("price", SqlType::Int)], "10").is_err());
        assert!(open("bid", &[("nope", SqlType::BigInt)], "10").is_err());
        assert!(open("trades", &[("price", SqlType::BigInt)], "10").is_err());
        assert!(open("bid", &[("PRICE", SqlType::BigInt)], "10").is_ok());
    }

    #[test]
    fn the_share_of_each_stream() {
        let config = NexmarkConfig::default();
        assert_eq!(share(50, &config, EventType::Person), 1);
        assert_eq!(share(51, &config, EventType::Person), 2);
        assert_eq!(share(53, &config, EventType::Auction), 5);
        assert_eq!(share(3, &config, EventType::Bid), 0);
        assert_eq!(share(100, &config, EventType::Bid), 92);
    }
}
