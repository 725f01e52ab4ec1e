//! The live page (`tidemark run --ui`): a running stdin job serves its
//! page and `/metrics`; Prometheus's own parser (`promtool check metrics`)
//! reads the metrics, whose figures are the summary's at the end; a
//! client that sends nothing is dropped while the job goes on; other paths
//! are 404; an address in use or not this machine's fails before the job.
//!
//! promtool comes from Debian's prometheus package: `.ci/run` installs it
//! and sets `TIDEMARK_TEST_PROMTOOL`; with that set, a missing promtool
//! fails the test.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/live-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Clicks piped in; TUMBLE 10 s, watermark 2 s behind, lateness 5 s.
const JOB: &str = "CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id STRING,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'stdin', 'format' = 'csv');
SET 'table.exec.emit.allow-lateness' = '5 s';
SELECT user_id, window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, user_id;
";

/// A running `tidemark run --ui`, its stderr lines arriving on a channel.
struct Running {
    child: Child,
    stderr: mpsc::Receiver<String>,
    address: String,
}

fn start(dir: &Path, ui: &str) -> Running {
    let script = dir.join("job.sql");
    std::fs::write(&script, JOB).expect("script");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .args(["run", "--ui", ui])
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tidemark starts");
    let (tx, stderr) = mpsc::channel();
    let err = child.stderr.take().expect("stderr");
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // Rows on stdout are read (and dropped) so the job never blocks.
    let mut out = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut out, &mut std::io::sink());
    });
    let first = stderr
        .recv_timeout(Duration::from_secs(30))
        .expect("tidemark says where the page is");
    let address = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in: {first}"))
        .to_string();
    Running {
        child,
        stderr,
        address,
    }
}

/// `GET path` over a plain socket: the status and the body.
fn get(address: &str, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("the page is served");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .expect("request sent");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("response read");
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}

/// The value of the sample `name{...}` whose labels include `labels`.
fn sample(metrics: &str, name: &str, labels: &[&str]) -> Option<f64> {
    metrics
        .lines()
        .filter(|l| !l.starts_with('#'))
        .find(|l| {
            l.split(['{', ' ']).next() == Some(name) && labels.iter().all(|lb| l.contains(lb))
        })
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

/// Metric names kept as Flink spells them, which Prometheus's linter
/// would have in snake_case.
const FLINK_NAMES: [&str; 12] = [
    "tidemark_job_currentInputWatermark",
    "tidemark_job_currentOutputWatermark",
    "tidemark_job_numRecordsOut",
    "tidemark_operator_numLateRecordsDropped",
    "tidemark_operator_numRecordsIn",
    "tidemark_operator_numRecordsOut",
    "tidemark_source_currentOutputWatermark",
    "tidemark_source_numRecordsOut",
    "tidemark_source_watermarkLag",
    "tidemark_split_currentOutputWatermark",
    "tidemark_split_numRecordsIn",
    "tidemark_split_watermarkLag",
];

#[test]
fn a_running_stdin_job_serves_its_page_and_metrics_that_promtool_reads() {
    let Some(promtool) = common::ci_tool("TIDEMARK_TEST_PROMTOOL", "/usr/bin/promtool") else {
        return;
    };
    let dir = scratch("metrics");
    // A port alone: this machine's loopback address (0: a free port).
    let mut run = start(&dir, "0");
    assert!(run.address.starts_with("127.0.0.1:"), "{}", run.address);
    // A client that connects and sends nothing.
    let mut stuck = TcpStream::connect(&run.address).expect("connects");
    let stuck_since = Instant::now();

    // 00:00:00 .. 00:00:22, one a second: the watermark reaches 20 s, so
    // [0 s, 10 s) fired and was freed at 15 s, [10 s, 20 s) fired at 20 s
    // and is kept until 25 s. Then a row of 15 s: late, within the
    // lateness, [10 s, 20 s) fires again; and a row of 3 s: its window is
    // gone, dropped. 25 rows; windows open: [10 s, 20 s) kept, [20 s,
    // 30 s) not fired.
    let mut stdin = run.child.stdin.take().expect("stdin");
    for s in 0..=22 {
        writeln!(stdin, "2024-01-01 00:00:{s:02},u{}", s % 3).expect("row");
    }
    writeln!(stdin, "2024-01-01 00:00:15,u1").expect("row");
    writeln!(stdin, "2024-01-01 00:00:03,u1").expect("row");
    stdin.flush().expect("flushed");

    // The page catches up within a second or so.
    let deadline = Instant::now() + Duration::from_secs(30);
    let metrics = loop {
        let (status, body) = get(&run.address, "/metrics");
        assert_eq!(status, 200);
        if sample(&body, "tidemark_split_numRecordsIn", &[]) == Some(25.0)
            && sample(
                &body,
                "tidemark_operator_late_rows_accepted_total",
                &["WindowAggregate"],
            ) == Some(1.0)
        {
            break body;
        }
        assert!(
            Instant::now() < deadline,
            "metrics never caught up:\n{body}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    // Prometheus's parser reads it: exit 0, or 3 for lint only, and the
    // only lint is the camelCase of Flink's names.
    let mut check = Command::new(&promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool runs");
    check
        .stdin
        .take()
        .expect("stdin")
        .write_all(metrics.as_bytes())
        .expect("metrics to promtool");
    let checked = check.wait_with_output().expect("promtool ends");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
    assert!(
        matches!(checked.status.code(), Some(0 | 3)),
        "promtool could not parse the metrics: {said}\n{metrics}"
    );
    for line in said.lines().filter(|l| !l.trim().is_empty()) {
        let name = line.split_whitespace().next().unwrap_or("");
        assert!(
            FLINK_NAMES.contains(&name) && line.contains("camelCase"),
            "promtool: {line}"
        );
    }
    let value = |name, labels: &[&str]| {
        sample(&metrics, name, labels).unwrap_or_else(|| panic!("{name} {labels:?} in\n{metrics}"))
    };
    let wa = ["operator=\"WindowAggregate\""];
    assert_eq!(
        value("tidemark_source_numRecordsOut", &["table=\"clicks\""]),
        25.0
    );
    assert_eq!(value("tidemark_operator_numLateRecordsDropped", &wa), 1.0);
    assert_eq!(value("tidemark_operator_windows_fired_total", &wa), 2.0);
    assert_eq!(value("tidemark_operator_windows_open", &wa), 2.0);
    // 22 s − 2 s: the watermark in milliseconds since the epoch.
    assert_eq!(
        value(
            "tidemark_source_currentOutputWatermark",
            &["table=\"clicks\""]
        ),
        1_704_067_220_000.0
    );
    assert_eq!(
        value("tidemark_job_currentInputWatermark", &["query=\"1\""]),
        1_704_067_220_000.0
    );
    assert_eq!(value("tidemark_split_idle", &["split=\"stdin\""]), 0.0);

    // The page, running, with its windows; anything else is 404.
    let (status, page) = get(&run.address, "/");
    assert_eq!(status, 200);
    assert!(page.contains("data-status=\"running: this page refreshes itself\""));
    assert!(page.contains("http-equiv=\"refresh\""));
    assert!(page.matches("<g class=\"window\"").count() >= 2, "{page}");
    assert_eq!(get(&run.address, "/robots.txt").0, 404);
    assert_eq!(get(&run.address, "/metrics/../admin").0, 404);

    // The client that sent nothing was dropped, and the job went on.
    stuck
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let mut buf = [0u8; 64];
    let closed = matches!(stuck.read(&mut buf), Ok(0) | Err(_));
    assert!(closed, "a silent client is dropped");
    assert!(
        stuck_since.elapsed() < Duration::from_secs(20),
        "dropped after the client timeout"
    );

    // The end of input fires the rest; the summary's figures are those
    // the metrics showed.
    drop(stdin);
    let status = run.child.wait().expect("tidemark ends");
    assert!(status.success());
    let summary: Vec<String> = run.stderr.try_iter().collect();
    let summary = summary.join("\n");
    assert!(summary.contains("source clicks: 25 rows read"), "{summary}");
    assert!(
        summary.contains("1 late row dropped")
            && summary.contains("1 late row added within the allowed lateness"),
        "{summary}"
    );
}

#[test]
fn an_address_in_use_or_not_this_machines_fails_before_the_job() {
    let dir = scratch("refused");
    let script = dir.join("job.sql");
    std::fs::write(&script, JOB).expect("script");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = taken.local_addr().expect("address").port();
    let run = |ui: &str| {
        Command::new(env!("CARGO_BIN_EXE_tidemark"))
            .args(["run", "--ui", ui])
            .arg(&script)
            .stdin(Stdio::null())
            .output()
            .expect("tidemark runs")
    };
    let out = run(&format!("127.0.0.1:{port}"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the address is in use"), "{err}");
    assert!(out.stdout.is_empty(), "nothing ran");
    // TEST-NET-3: never an address of this machine.
    let out = run("203.0.113.7:8081");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is not an address of this machine"), "{err}");
    let out = run("not an address");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--ui not an address"));
}
