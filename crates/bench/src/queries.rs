//! What the benchmarks run: the closed list of queries of the `all` suite
//! with the script of each (every one into a blackhole sink, so that what
//! is timed is the query, not the printing of its rows), and the Nexmark
//! tables and queries that the `nexmark` benchmark shares.

use std::path::{Path, PathBuf};

/// The gap of the SESSION query. The session input's keys fall silent for
/// longer than this plus the disorder (see `data::SESSION_IDLE_MS`), so
/// every session closes and its state is freed.
pub const SESSION_GAP_S: u64 = 30;

/// Every query of the `all` suite, in the order it runs and is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    /// The hand-written single-pass program doing TUMBLE's work: the CSV queries'
    /// baseline.
    HandWritten,
    /// DuckDB doing TUMBLE's aggregation on one thread, when a Python
    /// with the duckdb package is found: an outside anchor.
    DuckDb,
    Tumble,
    Hop,
    Cumulate,
    Session,
    Over,
    WindowJoin,
    /// The Nexmark bid generator with a filter no bid passes: the Nexmark
    /// queries' baseline.
    Generator,
    Q5,
    Q8,
    Q11,
}

/// Which of the prepared inputs a query reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// The steady bids CSV.
    Bids,
    /// The bids CSV whose keys bid in sessions.
    Sessions,
    /// The join benchmark's two streams.
    JoinStreams,
    /// Events of the nexmark connector.
    Nexmark,
}

impl Query {
    pub const ALL: [Query; 12] = [
        Query::HandWritten,
        Query::DuckDb,
        Query::Tumble,
        Query::Hop,
        Query::Cumulate,
        Query::Session,
        Query::Over,
        Query::WindowJoin,
        Query::Generator,
        Query::Q5,
        Query::Q8,
        Query::Q11,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Query::HandWritten => "hand-written TUMBLE",
            Query::DuckDb => "DuckDB, 1 thread",
            Query::Tumble => "TUMBLE 1 min",
            Query::Hop => "HOP 10 min / 1 min",
            Query::Cumulate => "CUMULATE 1 min / 10 min",
            Query::Session => "SESSION 30 s gap",
            Query::Over => "OVER 10 rows",
            Query::WindowJoin => "window join 10 s",
            Query::Generator => "nexmark generator",
            Query::Q5 => "nexmark q5",
            Query::Q8 => "nexmark q8",
            Query::Q11 => "nexmark q11",
        }
    }

    /// A short name for file names.
    pub fn slug(self) -> &'static str {
        match self {
            Query::HandWritten => "hand-written",
            Query::DuckDb => "duckdb",
            Query::Tumble => "tumble",
            Query::Hop => "hop",
            Query::Cumulate => "cumulate",
            Query::Session => "session",
            Query::Over => "over",
            Query::WindowJoin => "join",
            Query::Generator => "generator",
            Query::Q5 => "q5",
            Query::Q8 => "q8",
            Query::Q11 => "q11",
        }
    }

    pub fn input(self) -> Input {
        match self {
            Query::HandWritten
            | Query::DuckDb
            | Query::Tumble
            | Query::Hop
            | Query::Cumulate
            | Query::Over => Input::Bids,
            Query::Session => Input::Sessions,
            Query::WindowJoin => Input::JoinStreams,
            Query::Generator | Query::Q5 | Query::Q8 | Query::Q11 => Input::Nexmark,
        }
    }

    /// The query whose throughput this one is compared with: the
    /// hand-written program for the CSV queries, the generator alone for
    /// the Nexmark ones.
    pub fn baseline(self) -> Query {
        match self.input() {
            Input::Nexmark => Query::Generator,
            Input::Bids | Input::Sessions | Input::JoinStreams => Query::HandWritten,
        }
    }

    /// Whether `tidemark run` runs it (all but the hand-written program
    /// and DuckDB).
    pub fn is_tidemark(self) -> bool {
        !matches!(self, Query::HandWritten | Query::DuckDb)
    }
}

/// Where the CSV queries' inputs are, at one size.
pub struct CsvInputs {
    pub bids: PathBuf,
    pub sessions: PathBuf,
    pub join_left: PathBuf,
    pub join_right: PathBuf,
}

/// The `tidemark run` script of `query` (None for the hand-written
/// program and DuckDB), reading `csv` or `events` Nexmark events.
pub fn script(query: Query, csv: &CsvInputs, events: u64) -> Option<String> {
    let aggregate = |table: &str, tvf: &str| {
        format!(
            "{table}{WINDOW_SINK}INSERT INTO out\n\
             SELECT key, window_start, window_end, COUNT(*), SUM(price), MAX(price)\n\
             FROM TABLE({tvf})\nGROUP BY window_start, window_end, key;\n"
        )
    };
    let bids = || bids_table("bids", &csv.bids);
    Some(match query {
        Query::HandWritten | Query::DuckDb => return None,
        Query::Tumble => aggregate(
            &bids(),
            "TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)",
        ),
        Query::Hop => aggregate(
            &bids(),
            "HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '10' MINUTE)",
        ),
        Query::Cumulate => aggregate(
            &bids(),
            "CUMULATE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '10' MINUTE)",
        ),
        Query::Session => aggregate(
            &bids_table("bids", &csv.sessions),
            &format!(
                "SESSION(TABLE bids PARTITION BY key, DESCRIPTOR(ts), INTERVAL '{SESSION_GAP_S}' SECOND)"
            ),
        ),
        Query::Over => format!(
            "{}CREATE TABLE out (key STRING, ts TIMESTAMP(3), price DOUBLE, s DOUBLE, m DOUBLE)\n  \
             WITH ('connector' = 'blackhole');\n\
             INSERT INTO out\n\
             SELECT key, ts, price, SUM(price) OVER w, MAX(price) OVER w\nFROM bids\n\
             WINDOW w AS (PARTITION BY key ORDER BY ts ROWS BETWEEN 10 PRECEDING AND CURRENT ROW);\n",
            bids()
        ),
        Query::WindowJoin => format!(
            "{}{}CREATE TABLE out (key STRING, lts TIMESTAMP(3), rts TIMESTAMP(3), lprice DOUBLE, rprice DOUBLE)\n  \
             WITH ('connector' = 'blackhole');\n\
             INSERT INTO out\n\
             SELECT L.key, L.ts, R.ts, L.price, R.price\n\
             FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L\n\
             JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R\n\
             ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.key = R.key;\n",
            bids_table("l", &csv.join_left),
            bids_table("r", &csv.join_right)
        ),
        Query::Generator => format!("{}{NEXMARK_GENERATOR}\n", nexmark_tables(events)),
        Query::Q5 => format!("{}{NEXMARK_Q5}\n", nexmark_tables(events)),
        Query::Q8 => format!("{}{NEXMARK_Q8}\n", nexmark_tables(events)),
        Query::Q11 => format!("{}{NEXMARK_Q11}\n", nexmark_tables(events)),
    })
}

/// The sink of the window aggregations.
const WINDOW_SINK: &str = "CREATE TABLE out (key STRING, window_start TIMESTAMP(3), \
    window_end TIMESTAMP(3), n BIGINT, total DOUBLE, top DOUBLE)\n  WITH ('connector' = 'blackhole');\n";

/// A table over a generated `key,ts,price` CSV, with the watermark rule
/// the hand-written program follows.
fn bids_table(name: &str, csv: &Path) -> String {
    format!(
        "CREATE TABLE {name} (key STRING, ts TIMESTAMP(3), price DOUBLE,\n  \
         WATERMARK FOR ts AS ts - INTERVAL '2' SECOND\n) \
         WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'csv');\n",
        sql_string(&csv.display().to_string())
    )
}

/// `text` inside a SQL string literal.
pub fn sql_string(text: &str) -> String {
    text.replace('\'', "''")
}

/// The three Nexmark streams, each with the columns of its table.
pub const NEXMARK_STREAMS: [(&str, &str); 3] = [
    (
        "bid",
        "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, \
         dateTime TIMESTAMP(3), extra STRING",
    ),
    (
        "person",
        "id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, \
         state STRING, dateTime TIMESTAMP(3), extra STRING",
    ),
    (
        "auction",
        "id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT, \
         dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra STRING",
    ),
];

/// The nexmark tables, each over `events` events, and a blackhole sink
/// for each Nexmark query.
pub fn nexmark_tables(events: u64) -> String {
    nexmark_tables_from(&|stream| {
        format!("'connector' = 'nexmark', 'stream' = '{stream}', 'events.num' = '{events}'")
    })
}

/// The Nexmark tables, each with the options `with(stream)` (a connector
/// and what it reads), and a blackhole sink for each Nexmark query.
pub fn nexmark_tables_from(with: &dyn Fn(&str) -> String) -> String {
    let mut tables = String::new();
    for (stream, columns) in NEXMARK_STREAMS {
        tables.push_str(&format!(
            "CREATE TABLE {stream} ({columns}, \
             WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND) WITH ({});\n",
            with(stream)
        ));
    }
    format!(
        "{tables}\
         CREATE TABLE sink5 (auction BIGINT, num BIGINT, ws TIMESTAMP(3), we TIMESTAMP(3)) WITH ('connector' = 'blackhole');\n\
         CREATE TABLE sink7 (auction BIGINT, price BIGINT, bidder BIGINT, dt TIMESTAMP(3), extra STRING) WITH ('connector' = 'blackhole');\n\
         CREATE TABLE sink8 (id BIGINT, name STRING, ws TIMESTAMP(3)) WITH ('connector' = 'blackhole');\n\
         CREATE TABLE sink11 (bidder BIGINT, n BIGINT, ws TIMESTAMP(3), we TIMESTAMP(3)) WITH ('connector' = 'blackhole');\n\
         CREATE TABLE sink0 (auction BIGINT) WITH ('connector' = 'blackhole');\n"
    )
}

/// The generator alone: reads every bid and keeps none.
pub const NEXMARK_GENERATOR: &str = "INSERT INTO sink0 SELECT auction FROM bid WHERE price < 0;";

/// Queries as in `examples/nexmark`, into the blackhole sinks.
pub const NEXMARK_Q5: &str =
    "INSERT INTO sink5 SELECT auction, num, window_start, window_end FROM (\
     SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY num DESC) AS r FROM (\
     SELECT auction, COUNT(*) AS num, window_start, window_end \
     FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) \
     GROUP BY auction, window_start, window_end)) WHERE r <= 1;";
pub const NEXMARK_Q7: &str =
    "INSERT INTO sink7 SELECT auction, price, bidder, dateTime, extra FROM (\
     SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS r \
     FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))) WHERE r <= 1;";
pub const NEXMARK_Q8: &str = "INSERT INTO sink8 SELECT P.id, P.name, P.window_start \
     FROM (SELECT * FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))) P \
     WHERE P.id IN (SELECT seller FROM (SELECT * FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))) A \
     WHERE P.window_start = A.window_start AND P.window_end = A.window_end);";
pub const NEXMARK_Q11: &str = "INSERT INTO sink11 SELECT bidder, COUNT(*), window_start, window_end \
     FROM TABLE(SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) \
     GROUP BY bidder, window_start, window_end;";

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> CsvInputs {
        CsvInputs {
            bids: PathBuf::from("/data/bids.csv"),
            sessions: PathBuf::from("/data/it's sessions.csv"),
            join_left: PathBuf::from("/data/l.csv"),
            join_right: PathBuf::from("/data/r.csv"),
        }
    }

    #[test]
    fn every_tidemark_query_has_a_script_into_a_blackhole() {
        for query in Query::ALL {
            let script = script(query, &inputs(), 1_000);
            assert_eq!(script.is_some(), query.is_tidemark(), "{query:?}");
            if let Some(sql) = script {
                assert!(sql.contains("'connector' = 'blackhole'"), "{query:?}");
                assert!(sql.contains("INSERT INTO"), "{query:?}");
            }
        }
    }

    #[test]
    fn each_query_reads_its_own_input() -> anyhow::Result<()> {
        let session = script(Query::Session, &inputs(), 1).ok_or(anyhow::anyhow!("no script"))?;
        assert!(session.contains("'/data/it''s sessions.csv'"), "{session}");
        assert!(session.contains("INTERVAL '30' SECOND"));
        let join = script(Query::WindowJoin, &inputs(), 1).ok_or(anyhow::anyhow!("no script"))?;
        assert!(join.contains("/data/l.csv") && join.contains("/data/r.csv"));
        let q5 = script(Query::Q5, &inputs(), 12_345).ok_or(anyhow::anyhow!("no script"))?;
        assert!(q5.contains("'events.num' = '12345'"));
        Ok(())
    }

    #[test]
    fn baselines() {
        assert_eq!(Query::Session.baseline(), Query::HandWritten);
        assert_eq!(Query::Q11.baseline(), Query::Generator);
        assert_eq!(Query::Generator.baseline(), Query::Generator);
    }
}
