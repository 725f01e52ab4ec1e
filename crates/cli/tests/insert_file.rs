//! INSERT INTO a file: an append-only query writes its rows (CSV or JSON
//! lines); a query that emits updates writes the last row per declared
//! key.

use tidemark::{Output, Session};

#[test]
fn insert_into_files_appends_or_keeps_the_last_row_per_key() {
    let dir = std::env::temp_dir().join(format!("tidemark-insert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // tumble/lateness_updates.csv: with 4 s lateness, b's window [0, 5)
    // is updated from 7 to 8 and c's row joins it late.
    std::fs::write(
        dir.join("in.csv"),
        "a,1970-01-01 00:00:01,5\nb,1970-01-01 00:00:02,7\na,1970-01-01 00:00:06,1\n\
         a,1970-01-01 00:00:03,2\nc,1970-01-01 00:00:04,9\nb,1970-01-01 00:00:04.500,8\n\
         a,1970-01-01 00:00:12,12\na,1970-01-01 00:00:00,100\n",
    )
    .expect("write input");
    let sql = "
CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE appended (k STRING, ws TIMESTAMP(3), top INT)
WITH ('connector' = 'filesystem', 'path' = 'appended.csv', 'format' = 'csv');
CREATE TABLE latest (k STRING, ws TIMESTAMP(3), top INT, PRIMARY KEY (k, ws) NOT ENFORCED)
WITH ('connector' = 'filesystem', 'path' = 'latest.csv', 'format' = 'csv');
CREATE TABLE lines (k STRING, ws TIMESTAMP(3), top INT, avg_v DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'lines.json', 'format' = 'json');
INSERT INTO appended SELECT k, window_start, MAX(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k;
INSERT INTO lines SELECT k, window_start, MAX(v), AVG(CAST(v AS DOUBLE))
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k;
SET 'table.exec.emit.allow-lateness' = '4 s';
INSERT INTO latest SELECT k, window_start, MAX(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k;
";
    let (mut rows, mut summary) = (Vec::new(), Vec::new());
    let result = Session::new(&dir).execute_script(
        sql,
        &mut Output {
            rows: &mut rows,
            summary: &mut summary,
            timing: false,
        },
    );
    if let Err(e) = result {
        panic!("script failed: {}", e.render("script", sql));
    }
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect("the file exists");
    assert_eq!(
        read("appended.csv"),
        "a,1970-01-01 00:00:00.000,5\nb,1970-01-01 00:00:00.000,7\n\
         a,1970-01-01 00:00:05.000,1\na,1970-01-01 00:00:10.000,12\n"
    );
    assert_eq!(
        read("latest.csv"),
        "a,1970-01-01 00:00:00.000,5\nb,1970-01-01 00:00:00.000,8\nc,1970-01-01 00:00:00.000,9\n\
         a,1970-01-01 00:00:05.000,1\na,1970-01-01 00:00:10.000,12\n"
    );
    assert_eq!(
        read("lines.json"),
        "{\"k\":\"a\",\"ws\":\"1970-01-01 00:00:00.000\",\"top\":5,\"avg_v\":5.0}\n\
         {\"k\":\"b\",\"ws\":\"1970-01-01 00:00:00.000\",\"top\":7,\"avg_v\":7.0}\n\
         {\"k\":\"a\",\"ws\":\"1970-01-01 00:00:05.000\",\"top\":1,\"avg_v\":1.0}\n\
         {\"k\":\"a\",\"ws\":\"1970-01-01 00:00:10.000\",\"top\":12,\"avg_v\":12.0}\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
