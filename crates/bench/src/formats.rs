//! The `json` benchmark: the TUMBLE aggregation over the same rows as CSV
//! and as JSON lines (the format Kafka users send, and the one the Kafka
//! source decodes values with), against DuckDB doing the same on one
//! thread when it is installed.

use crate::data;
use crate::driver::{print_ratio, run_commands, setup, Run, TumbleArgs};
use crate::duckdb;
use anyhow::{Context, Result};
use std::process::ExitCode;

/// The aggregation every program runs, into a blackhole.
const TUMBLE_INTO_BLACKHOLE: &str = "\
CREATE TABLE out (key STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s DOUBLE, m DOUBLE)
  WITH ('connector' = 'blackhole');
INSERT INTO out SELECT key, window_start, window_end, COUNT(*), SUM(price), MAX(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, key;
";

pub fn json(args: &TumbleArgs) -> Result<ExitCode> {
    let (_, tidemark, data) = setup(args)?;
    let json = data::json_lines(&data)?;
    let json_table = data::BIDS_TABLE
        .replace(
            "'path' = 'bids.csv'",
            &format!("'path' = '{}'", data::JSON_NAME),
        )
        .replace("'format' = 'csv'", "'format' = 'json'");
    let mut commands = Vec::new();
    for (name, table, file) in [
        (
            "tidemark, CSV",
            data::BIDS_TABLE.to_string(),
            "json-bench-csv.sql",
        ),
        ("tidemark, JSON", json_table, "json-bench-json.sql"),
    ] {
        let script = data.dir.join(file);
        std::fs::write(&script, format!("{table}{TUMBLE_INTO_BLACKHOLE}"))
            .with_context(|| format!("cannot write {}", script.display()))?;
        commands.push(Run::tidemark(name, &tidemark, &script, args.rows));
    }
    let python = duckdb::python();
    if let Ok(python) = &python {
        commands.push(duckdb::tumble(
            python,
            "DuckDB, CSV",
            &data.csv,
            "csv",
            args.rows,
        ));
        commands.push(duckdb::tumble(
            python,
            "DuckDB, JSON",
            &json,
            "json",
            args.rows,
        ));
    }
    let series = run_commands(&commands, args.runs, &|| Ok(()))?;
    print_ratio(&series[1], &series[0]);
    match python {
        Ok(_) => {
            print_ratio(&series[0], &series[2]);
            print_ratio(&series[1], &series[3]);
        }
        Err(why) => println!("{why}"),
    }
    Ok(ExitCode::SUCCESS)
}
