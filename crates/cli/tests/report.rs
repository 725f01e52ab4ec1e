//! The run report (`tidemark run --report`): its figures are the run
//! summary's, its late rows are the ones the operators counted, writing it
//! changes no output, and real Chromium renders it with the windows, late
//! rows and watermark points each job should show.
//!
//! The Chromium test needs Debian's `chromium`: `.ci/run` installs it and
//! sets `TIDEMARK_TEST_CHROMIUM`; with that set, a missing browser fails
//! the test. Screenshots go to `target/report-screenshots/`, and with
//! `TIDEMARK_BLESS=1` the two pictures the docs show into `docs/images/`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use tidemark::{Output, Session};
use tidemark_engine::RunSummary;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh scratch folder under the target folder.
fn scratch(name: &str) -> PathBuf {
    let dir = repo().join("target/report-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Runs the script at `path` (relative to the repository) with a report
/// to `report`: the summaries, and what was printed (rows, then summaries).
fn run_with_report(path: &str, report: &Path) -> (Vec<RunSummary>, String) {
    let path = repo().join(path);
    let sql = std::fs::read_to_string(&path).expect("script");
    let mut session = Session::new(tidemark::script_dir(&path));
    session
        .options
        .set("tidemark.report", report.display().to_string());
    let (mut rows, mut summary) = (Vec::new(), Vec::new());
    let summaries = session
        .execute_script(
            &sql,
            &mut Output {
                rows: &mut rows,
                summary: &mut summary,
                timing: false,
            },
        )
        .unwrap_or_else(|e| panic!("{}: {}", path.display(), e.render("script", &sql)));
    rows.extend(summary);
    (summaries, String::from_utf8_lossy(&rows).into_owned())
}

/// The value of attribute `attr` on every element whose tag starts with
/// `opening` (e.g. `<figure class="arrivals"`), in order.
fn attrs(html: &str, opening: &str, attr: &str) -> Vec<String> {
    let needle = format!(" {attr}=\"");
    html.match_indices(opening)
        .filter_map(|(at, _)| {
            let tag = &html[at..at + html[at..].find('>')?];
            let from = tag.find(&needle)? + needle.len();
            Some(tag[from..from + tag[from..].find('"')?].to_string())
        })
        .collect()
}

fn numbers(html: &str, opening: &str, attr: &str) -> Vec<u64> {
    attrs(html, opening, attr)
        .iter()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{attr}={v} is a count"))
        })
        .collect()
}

/// The figure `figure` (of `operator`, when given) in a query's section.
fn figure(section: &str, figure: &str, operator: Option<&str>) -> Option<u64> {
    let mut opening = format!("data-figure=\"{figure}\"");
    if let Some(op) = operator {
        opening.push_str(&format!(" data-operator=\"{op}\""));
    }
    let at = section.find(&opening)?;
    let text = &section[at..];
    let value = &text[text.find('>')? + 1..text.find("</td>")?];
    Some(
        value
            .replace('\u{202f}', "")
            .parse()
            .expect("a figure is a count"),
    )
}

/// Each query's section of the page.
fn sections(html: &str) -> Vec<&str> {
    html.split("<section class=\"query\"").skip(1).collect()
}

/// Jobs with late rows dropped, accepted and routed, through windows,
/// sessions, OVER and a union with an idle input.
const JOBS: [&str; 9] = [
    "examples/bids.sql",
    "sql-tests/tumble/lateness_allowed.sql",
    "sql-tests/tumble/late_rows_sink.sql",
    "sql-tests/hop/lateness_refire.sql",
    "sql-tests/session/lateness_merge.sql",
    "sql-tests/session/late_rows_sink.sql",
    "sql-tests/over/late_drop.sql",
    "sql-tests/idle/union_input_idle.sql",
    "sql-tests/idle/quiet_split.sql",
];

#[test]
fn the_reports_figures_are_the_summarys_and_its_late_rows_the_operators() {
    let dir = scratch("figures");
    for job in JOBS {
        let report = dir.join(format!("{}.html", job.replace('/', "_")));
        let (summaries, _) = run_with_report(job, &report);
        let html = std::fs::read_to_string(&report).expect("the report was written");
        let sections = sections(&html);
        assert_eq!(
            sections.len(),
            summaries.len(),
            "{job}: one section per query"
        );
        for (section, s) in sections.iter().zip(&summaries) {
            for src in &s.sources {
                let shown = attrs(
                    section,
                    "<td class=\"n\" data-figure=\"rows-read\"",
                    "data-table",
                );
                assert!(
                    shown.contains(&src.table),
                    "{job}: rows read of {}",
                    src.table
                );
            }
            let rows_read: u64 = s.sources.iter().map(|src| src.rows_read).sum();
            let arrived: u64 = numbers(section, "<figure class=\"arrivals\"", "data-rows")
                .iter()
                .sum();
            assert_eq!(arrived, rows_read, "{job}: rows drawn in arrival order");
            assert_eq!(
                figure(section, "rows-emitted", None),
                Some(s.rows_emitted),
                "{job}"
            );
            let (mut late, mut accepted) = (0, 0);
            for (name, m) in &s.operators {
                if m.windows_fired > 0 {
                    assert_eq!(
                        figure(section, "windows-fired", Some(name)),
                        Some(m.windows_fired),
                        "{job}: windows fired by {name}"
                    );
                }
                if m.late_rows > 0 {
                    assert_eq!(
                        figure(section, "late-rows", Some(name)),
                        Some(m.late_rows),
                        "{job}"
                    );
                    // The lateness picture says the summary's 99 % advice.
                    let advice = tidemark::summary::keeping_delay(
                        m,
                        tidemark::summary::watermark_delay(s),
                        990,
                    );
                    assert!(section.contains(&advice), "{job}: {advice}");
                }
                late += m.late_rows;
                accepted += m.late_rows_accepted;
            }
            let routed: u64 = s.late_routed.iter().map(|(.., n)| n).sum();
            // Late rows as the operators told them, row by row, against
            // their counters.
            let told = |attr| -> u64 {
                numbers(section, "<figure class=\"arrivals\"", attr)
                    .iter()
                    .sum()
            };
            assert_eq!(
                told("data-dropped") + told("data-routed"),
                late,
                "{job}: late rows"
            );
            assert_eq!(told("data-routed"), routed, "{job}: late rows routed");
            assert_eq!(told("data-accepted"), accepted, "{job}: late rows accepted");
        }
    }
}

/// The report with what depends on timing cut out: the state picture and
/// the summary as printed (its state and elapsed lines).
fn without_timing(html: &str) -> String {
    let mut out = html.to_string();
    for (open, close) in [
        ("-state-0\">", "</figure></div>"),
        ("<pre class=\"summary\">", "</pre>"),
    ] {
        let mut from = 0;
        while let Some(at) = out[from..].find(open).map(|i| i + from) {
            let end = at + out[at..].find(close).expect("closed") + close.len();
            out.replace_range(at..end, "");
            from = at;
        }
    }
    out
}

#[test]
fn the_pictures_are_the_same_at_every_batch_size_and_parallelism() {
    let dir = scratch("invariance");
    for job in JOBS {
        let path = repo().join(job);
        let mut pages = Vec::new();
        for (i, settings) in [
            &[][..],
            &[("tidemark.batch-size", "1")][..],
            &[("tidemark.batch-size", "7"), ("parallelism.default", "2")][..],
        ]
        .iter()
        .enumerate()
        {
            let report = dir.join(format!("{i}.html"));
            let report_setting = report.display().to_string();
            let mut all = settings.to_vec();
            all.push(("tidemark.report", report_setting.as_str()));
            tidemark::golden::run_case(&path, &all);
            let html = std::fs::read_to_string(&report).expect("report");
            pages.push(without_timing(&html));
        }
        assert!(pages[0].contains("<figure class=\"arrivals\""), "{job}");
        assert_eq!(pages[0], pages[1], "{job}: batch size 1");
        assert_eq!(pages[0], pages[2], "{job}: batch size 7, parallelism 2");
    }
}

#[test]
fn writing_a_report_changes_no_output() {
    let dir = scratch("unchanged");
    let cases = tidemark::golden::discover(&[repo().join("sql-tests")]).expect("cases");
    assert!(cases.len() > 200);
    let report = dir.join("report.html");
    let report_setting = report.display().to_string();
    let mut with_windows = 0;
    for case in &cases {
        let plain = tidemark::golden::run_case(case, &[]);
        let reported =
            tidemark::golden::run_case(case, &[("tidemark.report", report_setting.as_str())]);
        // Listing the options (`SET;`) shows the report's too.
        let strip = |text: &str| -> String {
            text.lines()
                .filter(|l| !l.contains("tidemark.report"))
                .map(|l| format!("{l}\n"))
                .collect()
        };
        assert_eq!(strip(&plain), strip(&reported), "{}", case.display());
        if std::fs::read_to_string(&report).is_ok_and(|h| h.contains("<g class=\"window\"")) {
            with_windows += 1;
        }
    }
    assert!(
        with_windows > 50,
        "reports drew windows for {with_windows} cases"
    );
}

#[test]
fn a_report_that_cannot_be_written_fails_before_the_job_runs() {
    let dir = scratch("unwritable");
    let script = dir.join("job.sql");
    let marker = dir.join("ran.csv");
    std::fs::write(
        &script,
        format!(
            "CREATE TABLE s (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\n\
             CREATE TABLE out (x INT) WITH ('connector' = 'filesystem', 'path' = '{}', 'format' = 'csv');\n\
             INSERT INTO out SELECT x FROM s;\n",
            marker.display()
        ),
    )
    .expect("script");
    let output = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .arg("run")
        .arg("--report")
        .arg(dir.join("no/such/folder/run.html"))
        .arg(&script)
        .output()
        .expect("tidemark runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot write the report"), "{stderr}");
    assert!(!marker.exists(), "the job must not have run");
    // And in a script, at its SET.
    std::fs::write(
        &script,
        "SET 'tidemark.report' = '/no/such/folder/run.html';\nSELECT 1;\n",
    )
    .expect("script");
    let output = Command::new(env!("CARGO_BIN_EXE_tidemark"))
        .arg("run")
        .arg(&script)
        .output()
        .expect("tidemark runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write the report"), "{stderr}");
    assert!(
        stderr.contains("job.sql:1:"),
        "the error names the SET: {stderr}"
    );
    assert!(output.stdout.is_empty(), "nothing ran after the SET");
}

/// Chromium headless, as on a closed network, with a profile of its own.
fn headless(chromium: &Path, profile: &Path) -> Command {
    let mut command = Command::new(chromium);
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ]);
    command.arg(format!("--user-data-dir={}", profile.display()));
    command
}

/// The DOM Chromium built from `page`.
fn rendered_dom(chromium: &Path, profile: &Path, page: &Path) -> String {
    let output = headless(chromium, profile)
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A screenshot of `page`, `height` pixels tall, to `png`.
fn screenshot(chromium: &Path, profile: &Path, page: &Path, height: u32, png: &Path) {
    let output = headless(chromium, profile)
        .arg(format!("--window-size=1000,{height}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bytes = std::fs::read(png).expect("a screenshot");
    // A PNG, and not a blank page: a blank one compresses to a few KB.
    assert_eq!(&bytes[1..4], b"PNG");
    assert!(
        bytes.len() > 15_000,
        "{}: {} bytes",
        png.display(),
        bytes.len()
    );
}

#[test]
fn chromium_renders_each_jobs_windows_late_rows_and_watermarks() {
    let Some(chromium) = common::ci_tool("TIDEMARK_TEST_CHROMIUM", "/usr/bin/chromium") else {
        return;
    };
    let dir = scratch("chromium");
    let shots = repo().join("target/report-screenshots");
    std::fs::create_dir_all(&shots).expect("screenshot folder");
    let profile = dir.join("profile");
    let bless = std::env::var("TIDEMARK_BLESS").is_ok_and(|v| v == "1");
    // The pictures the README and docs/time-semantics.md show: some
    // figures of a report, cut out onto a page of their own.
    let docs_pictures = [
        ("bids", &["q1-arrivals-0", "q1-windows-0"][..], 660),
        ("union_idle", &["q1-watermarks-0"][..], 400),
    ];
    let render = |job: &str, name: &str, height: u32| -> String {
        let page = dir.join(format!("{name}.html"));
        run_with_report(job, &page);
        let dom = rendered_dom(&chromium, &profile, &page);
        let png = shots.join(format!("{name}.png"));
        screenshot(&chromium, &profile, &page, height, &png);
        for (picture, anchors, height) in docs_pictures.iter().filter(|p| p.0 == name) {
            let html = std::fs::read_to_string(&page).expect("report");
            let head = &html[..html.find("<body>").expect("a body")];
            let mut cut = format!("{head}<body>");
            for anchor in anchors.iter() {
                let from = html
                    .find(&format!("<div id=\"{anchor}\">"))
                    .unwrap_or_else(|| panic!("{anchor} in the report"));
                let to = from + html[from..].find("</figure></div>").expect("its end") + 15;
                cut.push_str(&html[from..to]);
            }
            cut.push_str("</body></html>");
            let cut_page = dir.join(format!("{picture}-docs.html"));
            std::fs::write(&cut_page, cut).expect("cut page");
            let png = shots.join(format!("{picture}-docs.png"));
            screenshot(&chromium, &profile, &cut_page, *height, &png);
            if bless {
                let docs = repo().join(format!(
                    "docs/images/report-{}.png",
                    picture.replace('_', "-")
                ));
                std::fs::create_dir_all(docs.parent().expect("docs/images")).expect("docs/images");
                std::fs::copy(&png, docs).expect("copied");
            }
        }
        dom
    };

    // TUMBLE 10 s over 18 bids, watermark 3 s behind: the bid of 09:00:08
    // arrives after the watermark reached 09:00:16.250, when [09:00:00,
    // 09:00:10) had fired and been freed: one late row, dropped. Four
    // windows; the first two fire on the way (at 09:00:10.400 and
    // 09:00:21), the last two at the end of input. Every row but the first
    // met a watermark, so the red line has 17 points.
    let dom = render("examples/bids.sql", "bids", 2300);
    assert_eq!(
        numbers(&dom, "<figure class=\"arrivals\"", "data-dropped"),
        vec![1]
    );
    assert_eq!(
        numbers(&dom, "<figure class=\"arrivals\"", "data-rows"),
        vec![18]
    );
    assert_eq!(
        numbers(&dom, "<polyline class=\"watermark\"", "data-points"),
        vec![17]
    );
    assert_eq!(
        attrs(&dom, "<g class=\"window\"", "data-fired"),
        ["1709283610400", "1709283621000", "end", "end"]
    );
    assert_eq!(
        numbers(&dom, "<g class=\"window\"", "data-rows"),
        vec![7, 5, 4, 1]
    );
    assert_eq!(
        numbers(&dom, "<g class=\"window\"", "data-late"),
        vec![1, 0, 0, 0]
    );
    assert_eq!(dom.matches("<path class=\"late-row\"").count(), 1);

    // HOP with allowed lateness: late rows re-fire the windows they join.
    let dom = render("sql-tests/hop/lateness_refire.sql", "hop_lateness", 2300);
    assert_eq!(
        numbers(&dom, "<figure class=\"arrivals\"", "data-accepted"),
        vec![2]
    );
    assert_eq!(
        numbers(&dom, "<figure class=\"arrivals\"", "data-dropped"),
        vec![1]
    );
    let refires: u64 = numbers(&dom, "<g class=\"window\"", "data-refires")
        .iter()
        .sum();
    assert!(
        refires >= 2,
        "each accepted row re-fired a window: {refires}"
    );
    assert_eq!(dom.matches("<g class=\"window\"").count(), 9);

    // Sessions: merged and re-fired within the lateness.
    let dom = render(
        "sql-tests/session/lateness_merge.sql",
        "session_lateness",
        2300,
    );
    assert_eq!(
        numbers(&dom, "<figure class=\"arrivals\"", "data-accepted"),
        vec![7]
    );
    assert!(dom.contains("Windows of SessionAggregate"));
    // Every session that fired has its key; b@5 would have opened [5 s,
    // 8 s), cleaned up before it came: that session only has the late
    // row's mark, and no firing.
    let fired = attrs(&dom, "<g class=\"window\"", "data-fired");
    let keys = numbers(&dom, "<g class=\"window\"", "data-keys");
    let late = numbers(&dom, "<g class=\"window\"", "data-late");
    let starts = attrs(&dom, "<g class=\"window\"", "data-start");
    assert_eq!(fired.len(), 10);
    for i in 0..fired.len() {
        if starts[i] == "5000" {
            assert_eq!((fired[i].as_str(), keys[i], late[i]), ("", 0, 1));
        } else {
            assert!(
                !fired[i].is_empty() && keys[i] == 1 && late[i] == 0,
                "session {i}"
            );
        }
    }

    // OVER: no windows; the job sets the trace, so its picture shows the
    // rows made final as the watermark passed them.
    let dom = render("sql-tests/over/late_drop.sql", "over_late", 2000);
    assert_eq!(
        numbers(&dom, "<figure class=\"arrivals\"", "data-dropped"),
        vec![2]
    );
    assert!(
        numbers(
            &dom,
            "<figure class=\"windows emissions\"",
            "data-emissions"
        )[0] > 0
    );
    assert_eq!(
        numbers(&dom, "<figure class=\"lateness\"", "data-late"),
        vec![2]
    );

    // A union whose input b goes idle at 00:04 and comes back at 00:09:
    // one idle spell, both inputs holding the watermark in turn, and b3
    // dropped late.
    let dom = render("sql-tests/idle/union_input_idle.sql", "union_idle", 2700);
    assert_eq!(
        numbers(&dom, "<figure class=\"watermarks\"", "data-lanes"),
        vec![2]
    );
    assert_eq!(
        numbers(&dom, "<figure class=\"watermarks\"", "data-idle-spells"),
        vec![1]
    );
    assert_eq!(attrs(&dom, "<rect class=\"idle\"", "data-lane"), ["b"]);
    let holders = attrs(&dom, "<rect class=\"holder\"", "fill");
    assert!(
        holders.len() > 5 && holders.iter().any(|f| *f != holders[0]),
        "{holders:?}"
    );
    assert_eq!(
        numbers(&dom, "<figure class=\"arrivals\"", "data-dropped")
            .iter()
            .sum::<u64>(),
        1
    );
}
