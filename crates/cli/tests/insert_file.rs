//! INSERT INTO a file: an append-only query writes its rows (CSV or JSON
//! lines, as Flink writes them: a timestamp with only the fraction it
//! needs, quoted in CSV for its space); a query that emits updates writes
//! the last row per declared key.

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
        "a,\"1970-01-01 00:00:00\",5\nb,\"1970-01-01 00:00:00\",7\n\
         a,\"1970-01-01 00:00:05\",1\na,\"1970-01-01 00:00:10\",12\n"
    );
    assert_eq!(
        read("latest.csv"),
        "a,\"1970-01-01 00:00:00\",5\nb,\"1970-01-01 00:00:00\",8\nc,\"1970-01-01 00:00:00\",9\n\
         a,\"1970-01-01 00:00:05\",1\na,\"1970-01-01 00:00:10\",12\n"
    );
    assert_eq!(
        read("lines.json"),
        "{\"k\":\"a\",\"ws\":\"1970-01-01 00:00:00\",\"top\":5,\"avg_v\":5.0}\n\
         {\"k\":\"b\",\"ws\":\"1970-01-01 00:00:00\",\"top\":7,\"avg_v\":7.0}\n\
         {\"k\":\"a\",\"ws\":\"1970-01-01 00:00:05\",\"top\":1,\"avg_v\":1.0}\n\
         {\"k\":\"a\",\"ws\":\"1970-01-01 00:00:10\",\"top\":12,\"avg_v\":12.0}\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a file sink writes, its table reads back as it was: quoted
/// strings, NULLs under a null literal, DECIMALs in Java's shortest form,
/// instants written in UTC while the session is in another zone, and a
/// header line.
#[test]
fn a_written_file_reads_back_as_the_rows_it_was_written_from() {
    let dir = std::env::temp_dir().join(format!("tidemark-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(
        dir.join("in.json"),
        "{\"s\":\"a, \\\"quoted\\\" \\\\ one\",\"d\":100.00,\"t\":\"2024-03-01 09:00:00.5\",\"lt\":\"2024-03-01 09:00:00Z\"}\n\
         {\"s\":null,\"d\":null,\"t\":null,\"lt\":null}\n\
         {\"s\":\"\",\"d\":0.0000001,\"t\":\"1969-12-31 23:59:59.999\",\"lt\":\"2024-03-01 00:00:00.120Z\"}\n\
         {\"s\":\"line\\nbreak\",\"d\":-12.5,\"t\":\"2024-03-01 09:00:00\",\"lt\":\"2024-03-01 09:00:00.001Z\"}\n",
    )
    .expect("write input");
    let columns = "s STRING, d DECIMAL(10, 7), t TIMESTAMP(3), lt TIMESTAMP_LTZ(3)";
    let sql = format!(
        "SET 'table.local-time-zone' = 'Asia/Shanghai';\n\
         CREATE TABLE src ({columns}) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');\n\
         CREATE TABLE out ({columns}) WITH ('connector' = 'filesystem', 'path' = 'out.csv', 'format' = 'csv', \
         'csv.null-literal' = 'N/A', 'csv.header' = 'true');\n\
         INSERT INTO out SELECT * FROM src;\n\
         SELECT * FROM src;\n\
         SELECT * FROM out;\n"
    );
    let (mut rows, mut summary) = (Vec::new(), Vec::new());
    let result = tidemark::Session::new(&dir).execute_script(
        &sql,
        &mut tidemark::Output {
            rows: &mut rows,
            summary: &mut summary,
            timing: false,
        },
    );
    if let Err(e) = result {
        panic!("script failed: {}", e.render("script", &sql));
    }
    let written = std::fs::read_to_string(dir.join("out.csv")).expect("the file exists");
    assert_eq!(
        written,
        "s,d,t,lt\n\
         \"a, \"\"quoted\"\" \\ one\",1E+2,\"2024-03-01 09:00:00.5\",\"2024-03-01 09:00:00Z\"\n\
         N/A,N/A,N/A,N/A\n\
         ,1E-7,\"1969-12-31 23:59:59.999\",\"2024-03-01 00:00:00.12Z\"\n\
         \"line\nbreak\",-12.5,\"2024-03-01 09:00:00\",\"2024-03-01 09:00:00.001Z\"\n"
    );
    let printed = String::from_utf8(rows).expect("utf-8");
    let (read, back) = printed.split_at(printed.len() / 2);
    assert_eq!(read, back, "the file reads back as the rows written");
    assert!(
        read.contains("+I[, 0.0000001, 1969-12-31 23:59:59.999, 2024-03-01 08:00:00.120]"),
        "{read}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
