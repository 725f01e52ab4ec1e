//! A table written in the json format reads back as the same rows: every
//! type the sinks write goes through the JSON-lines source unchanged.

mod common;

use common::run_script as run;
use tidemark::Session;

#[test]
fn json_written_by_a_sink_reads_back_unchanged() {
    let dir = std::env::temp_dir().join(format!("tidemark-json-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(
        dir.join("in.csv"),
        "a,2024-01-01 00:00:01.250,5,1.5,12.34,true,2024-01-01 00:00:01Z\n\
         b \"quoted\",2024-01-01 00:00:02,,-0.0,-0.01,false,\n\
         ,1969-12-31 23:59:59.999,-7,1.0E7,0.00,,2024-01-01 00:00:03.5Z\n",
    )
    .expect("write input");
    let columns = "s STRING, ts TIMESTAMP(3), i INT, d DOUBLE, m DECIMAL(10, 2), b BOOLEAN, l TIMESTAMP_LTZ(3)";
    let mut session = Session::new(&dir);
    let direct = run(
        &mut session,
        &format!(
            "CREATE TABLE src ({columns}) WITH ('connector' = 'filesystem', 'path' = 'in.csv', \
             'format' = 'csv', 'csv.null-literal' = '');\n\
             CREATE TABLE out ({columns}) WITH ('connector' = 'filesystem', 'path' = 'out.json', 'format' = 'json');\n\
             SELECT * FROM src;\n\
             INSERT INTO out SELECT * FROM src;\n\
             SELECT * FROM out;"
        ),
    );
    let _ = std::fs::remove_dir_all(&dir);
    let (first, second) = direct.split_at(direct.len() / 2);
    assert!(first.contains("+I[b \"quoted\""), "{direct}");
    assert_eq!(first, second, "read back differs:\n{direct}");
}
