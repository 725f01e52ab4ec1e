//! Late rows into a filesystem sink table: the file holds them with the
//! source's columns and the metadata the sink declares, and appears under
//! its name only when the run succeeds.

use std::path::Path;
use tidemark::{Output, Session};

const TABLES: &str = "
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE late_t (k STRING, ts TIMESTAMP(3), v INT, watermark TIMESTAMP(3), operator STRING)
WITH ('connector' = 'filesystem', 'path' = 'late.csv', 'format' = 'csv');
SET 'table.exec.late-records.sink' = 'late_t';
";

fn run(dir: &Path, query: &str) -> Result<String, String> {
    let sql = format!("{TABLES}{query}");
    let (mut rows, mut summary) = (Vec::new(), Vec::new());
    let result = Session::new(dir).execute_script(
        &sql,
        &mut Output {
            rows: &mut rows,
            summary: &mut summary,
            timing: false,
        },
    );
    match result {
        Ok(_) => Ok(String::from_utf8_lossy(&rows).into_owned()),
        Err(e) => Err(e.render("query", &sql)),
    }
}

#[test]
fn late_rows_land_in_the_sink_file_only_when_the_run_succeeds() {
    let dir = std::env::temp_dir().join(format!("tidemark-late-sink-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // The spec's example: rows at 2 s (watermark 6 s) and 1 s (9 s) are late.
    std::fs::write(
        dir.join("in.csv"),
        "k,1970-01-01 00:00:01,1\nk,1970-01-01 00:00:02,2\nk,1970-01-01 00:00:04,4\n\
         k,1970-01-01 00:00:06,6\nk,1970-01-01 00:00:03,3\nk,1970-01-01 00:00:08,8\n\
         k,1970-01-01 00:00:02,2\nk,1970-01-01 00:00:11,11\nk,1970-01-01 00:00:01,1\n\
         k,1970-01-01 00:00:13,13\n",
    )
    .expect("write input");
    let late = dir.join("late.csv");
    let _ = std::fs::remove_file(&late);

    let window = "SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), \
                  INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k";
    // A run that fails (integer division by zero, after the late rows)
    // leaves no file behind.
    let failing = "SELECT k, window_start, COUNT(*) / (COUNT(*) - 2) FROM TABLE(TUMBLE(TABLE t, \
                   DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k;";
    assert!(
        run(&dir, failing).is_err(),
        "division by zero fails the run"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("list dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("late"))
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");

    let out = run(&dir, &format!("{window};")).expect("the run succeeds");
    assert!(out.contains("+I[k, 1970-01-01 00:00:00.000, 4]"), "{out}");
    let text = std::fs::read_to_string(&late).expect("the sink file exists");
    assert_eq!(
        text,
        // As Flink writes csv: timestamps quoted for their space, without
        // a fraction they do not need.
        "k,\"1970-01-01 00:00:02\",2,\"1970-01-01 00:00:06\",WindowAggregate\n\
         k,\"1970-01-01 00:00:01\",1,\"1970-01-01 00:00:09\",WindowAggregate\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
