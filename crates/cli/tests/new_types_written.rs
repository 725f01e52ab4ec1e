//! TINYINT, SMALLINT, FLOAT, DATE and TIME written by a file sink in the csv
//! and json formats: byte for byte what Flink 2.3 writes for the same rows
//! (its files, from the same query, are the expected text below), and read
//! back as the same rows.

mod common;

use common::run_script as run;
use tidemark::Session;

const INPUT: &str = "1,2024-03-01,12:34:56,12:34:56.789,1.5,7,-3\n\
    2,2024-3-1,01:02:03,00:00:00.1,0.1,127,32767\n\
    3,1970-01-01,23:59:59.999,23:59:59,1.0E10,-128,-32768\n";

const COLUMNS: &str = "id INT, dt DATE, tm TIME, tm3 TIME(3), f FLOAT, ti TINYINT, si SMALLINT, \
    tm1 TIME(1), tm2 TIME(2), fz FLOAT";

/// Flink 2.3's csv file for the query below.
const FLINK_CSV: &str =
    "1,2024-03-01,12:34:56,12:34:56.789,1.5,7,-3,12:34:56.7,12:34:56.78,1.5E-10\n\
    2,2024-03-01,01:02:03,00:00:00.1,0.1,127,32767,00:00:00.1,00:00:00.1,1.0E-11\n\
    3,1970-01-01,23:59:59,23:59:59,1.0E10,-128,-32768,23:59:59,23:59:59,1.0\n";

/// Flink 2.3's json file for the query below.
const FLINK_JSON: &str = "{\"id\":1,\"dt\":\"2024-03-01\",\"tm\":\"12:34:56\",\"tm3\":\"12:34:56.789\",\"f\":1.5,\"ti\":7,\"si\":-3,\"tm1\":\"12:34:56.7\",\"tm2\":\"12:34:56.78\",\"fz\":1.5E-10}\n\
    {\"id\":2,\"dt\":\"2024-03-01\",\"tm\":\"01:02:03\",\"tm3\":\"00:00:00.1\",\"f\":0.1,\"ti\":127,\"si\":32767,\"tm1\":\"00:00:00.1\",\"tm2\":\"00:00:00.1\",\"fz\":1.0E-11}\n\
    {\"id\":3,\"dt\":\"1970-01-01\",\"tm\":\"23:59:59\",\"tm3\":\"23:59:59\",\"f\":1.0E10,\"ti\":-128,\"si\":-32768,\"tm1\":\"23:59:59\",\"tm2\":\"23:59:59\",\"fz\":1.0}\n";

#[test]
fn new_types_are_written_as_flink_writes_them_and_read_back() {
    let dir =
        std::env::temp_dir().join(format!("tidemark-new-types-written-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("in.csv"), INPUT).expect("write input");
    let mut session = Session::new(&dir);
    let shown = run(
        &mut session,
        &format!(
            "CREATE TABLE src (id INT, dt DATE, tm TIME, tm3 TIME(3), f FLOAT, ti TINYINT, si SMALLINT) \
             WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');\n\
             CREATE TABLE oc ({COLUMNS}) WITH ('connector' = 'filesystem', 'path' = 'out.csv', 'format' = 'csv');\n\
             CREATE TABLE oj ({COLUMNS}) WITH ('connector' = 'filesystem', 'path' = 'out.json', 'format' = 'json');\n\
             INSERT INTO oc SELECT *, CAST(tm3 AS TIME(1)), CAST(tm3 AS TIME(2)), f * 1e-10 FROM src;\n\
             INSERT INTO oj SELECT *, CAST(tm3 AS TIME(1)), CAST(tm3 AS TIME(2)), f * 1e-10 FROM src;\n\
             SELECT * FROM oc;\n\
             SELECT * FROM oj;"
        ),
    );
    let csv = std::fs::read_to_string(dir.join("out.csv")).expect("csv written");
    let json = std::fs::read_to_string(dir.join("out.json")).expect("json written");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(csv, FLINK_CSV);
    assert_eq!(json, FLINK_JSON);
    // Both files read back as the same rows, as Flink prints them.
    let want = "+I[1, 2024-03-01, 12:34:56, 12:34:56.789, 1.5, 7, -3, 12:34:56.7, 12:34:56.78, 1.5E-10]\n\
        +I[2, 2024-03-01, 01:02:03, 00:00:00.1, 0.1, 127, 32767, 00:00:00.1, 00:00:00.1, 1.0E-11]\n\
        +I[3, 1970-01-01, 23:59:59, 23:59:59.0, 1.0E10, -128, -32768, 23:59:59.0, 23:59:59.0, 1.0]\n";
    assert_eq!(shown, format!("{want}{want}"));
}

#[test]
fn floats_that_are_not_numbers_are_written_as_flink_writes_them() {
    let dir = std::env::temp_dir().join(format!("tidemark-float-written-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("in.csv"), "NaN\n-Infinity\n-0.0\n1.0E-5\n").expect("write input");
    let mut session = Session::new(&dir);
    run(
        &mut session,
        "CREATE TABLE s (f FLOAT) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');\n\
         CREATE TABLE oj (f FLOAT, d DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'out.json', 'format' = 'json');\n\
         CREATE TABLE oc (f FLOAT, d DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'out.csv', 'format' = 'csv');\n\
         INSERT INTO oj SELECT f, CAST(f AS DOUBLE) FROM s;\n\
         INSERT INTO oc SELECT f, CAST(f AS DOUBLE) FROM s;",
    );
    let csv = std::fs::read_to_string(dir.join("out.csv")).expect("csv written");
    let json = std::fs::read_to_string(dir.join("out.json")).expect("json written");
    let _ = std::fs::remove_dir_all(&dir);
    // Flink 2.3's files for the same statements: NaN and the infinities
    // are JSON strings.
    assert_eq!(
        json,
        "{\"f\":\"NaN\",\"d\":\"NaN\"}\n{\"f\":\"-Infinity\",\"d\":\"-Infinity\"}\n\
         {\"f\":-0.0,\"d\":-0.0}\n{\"f\":1.0E-5,\"d\":9.999999747378752E-6}\n"
    );
    assert_eq!(
        csv,
        "NaN,NaN\n-Infinity,-Infinity\n-0.0,-0.0\n1.0E-5,9.999999747378752E-6\n"
    );
}
