//! `tidemark.state.max-memory`: a query whose state outgrows it stops with
//! an error naming the operator, its state and the setting, instead of
//! growing until the machine runs out of memory.

use tidemark::{Output, Session};

fn run(sql: &str) -> (Result<(), String>, String) {
    let dir = std::env::temp_dir();
    let (mut rows, mut summary) = (Vec::new(), Vec::new());
    let result = Session::new(&dir).execute_script(
        sql,
        &mut Output {
            rows: &mut rows,
            summary: &mut summary,
            timing: true,
        },
    );
    (
        result.map(|_| ()).map_err(|e| e.render("job.sql", sql)),
        String::from_utf8_lossy(&summary).into_owned(),
    )
}

/// An hour-long TUMBLE over rows with (nearly) all-distinct keys: its
/// state grows with every row until the window fires.
const MANY_KEYS: &str = "CREATE TABLE t (k BIGINT, ts AS TO_TIMESTAMP_LTZ(k, 3), \
     WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '200000', 'rows-per-second' = '100000000', \
     'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '200000');\n";
const QUERY: &str = "SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), \
     INTERVAL '1' HOUR)) GROUP BY k, window_start, window_end;";

#[test]
fn state_past_the_limit_stops_the_query_with_a_clear_error() {
    let sql = format!("{MANY_KEYS}SET 'tidemark.state.max-memory' = '256 kb';\n{QUERY}");
    let (result, _) = run(&sql);
    let error = result.expect_err("the state limit must stop the query");
    for part in [
        "'tidemark.state.max-memory' = 256 KiB",
        "operator WindowAggregate holds",
        "keyed entries",
        "raise the limit",
    ] {
        assert!(error.contains(part), "{part:?} missing from: {error}");
    }
}

#[test]
fn under_the_limit_the_summary_shows_the_state_held() {
    let sql = format!("{MANY_KEYS}SET 'tidemark.state.max-memory' = '1 gb';\n{QUERY}");
    let (result, summary) = run(&sql);
    result.expect("well under the limit");
    let state = summary
        .lines()
        .find(|l| l.starts_with("state: WindowAggregate up to "))
        .unwrap_or_else(|| panic!("no state line in:\n{summary}"));
    assert!(state.ends_with(" entries)"), "{state}");
}
