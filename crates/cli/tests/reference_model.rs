//! The engine against a reference model: random streams (keys, disorder,
//! late rows) run through `tidemark` at random batch sizes and
//! parallelisms, and through a naive model written for clarity that
//! replays the rows one at a time in arrival order, with the watermark
//! rising after each row, exactly as the time semantics state them. Every
//! window kind and both OVER frames; the outputs must be equal. A third
//! of the tables are folders of several files, which the model
//! interleaves by the lowest per-file watermark as spec §8 states it, and
//! half the OVER queries set a state ttl (spec §10).
//!
//! `TIDEMARK_REFERENCE_CASES=N` runs N cases instead of the default;
//! `TIDEMARK_REFERENCE_SEED=S` starts from another seed.

mod common;
#[path = "reference_model/replay.rs"]
mod replay;

use common::{env_number, Rng};
use std::collections::BTreeMap;
use std::path::Path;
use tidemark::{Output, Session};

/// One input row.
#[derive(Clone, Debug)]
struct Row {
    key: String,
    ts: i64,
    v: i64,
}

/// 2024-03-01 09:00:00 UTC, in ms: where most streams start; some start
/// at 1969-12-31 23:59:55 and cross the epoch.
const BASE: i64 = 1_709_283_600_000;
const BEFORE_EPOCH: i64 = -5_000;
/// The watermark is `ts - DELAY` (ms).
const DELAY: i64 = 1_000;

fn stream(rng: &mut Rng) -> Vec<Row> {
    let rows = 1 + rng.below(60);
    let keys = 1 + rng.below(5);
    let base = if rng.below(8) == 0 {
        BEFORE_EPOCH
    } else {
        BASE
    };
    let mut t = base + rng.below(5_000) as i64;
    (0..rows)
        .map(|_| {
            t += rng.below(700) as i64;
            // Mostly in order; some rows behind, a few far behind.
            let behind = [0, 0, 0, 300, 1_500, 4_000][rng.below(6) as usize];
            Row {
                key: format!("k{}", rng.below(keys)),
                ts: t - behind,
                v: rng.below(100) as i64 - 50,
            }
        })
        .collect()
}

fn timestamp(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .expect("timestamp in range")
        .naive_utc()
        .format("%Y-%m-%d %H:%M:%S%.3f")
        .to_string()
}

/// The rows of a table in the order it gives them, and the watermark
/// before each row and after the last.
struct Arrivals {
    rows: Vec<Row>,
    wms: Vec<i64>,
}

/// A table of `splits` (files of a folder), row at a time as spec §8
/// states it: each split's watermark is the running maximum of `ts -
/// DELAY` over its own rows, starting below every time; the next row comes
/// from the split whose watermark is lowest (ties: the split listed
/// first); the table's watermark is `max(previous, min over the splits
/// not yet read to their end)`. One split gives its rows in file order.
fn interleave(splits: &[Vec<Row>]) -> Arrivals {
    let mut next = vec![0; splits.len()];
    let mut own = vec![i64::MIN; splits.len()];
    let mut table = i64::MIN;
    let (mut rows, mut wms) = (Vec::new(), vec![table]);
    let open = |next: &[usize], i: usize| next[i] < splits[i].len();
    while let Some(i) = (0..splits.len())
        .filter(|i| open(&next, *i))
        .min_by_key(|i| (own[*i], *i))
    {
        let row = splits[i][next[i]].clone();
        next[i] += 1;
        own[i] = own[i].max(row.ts - DELAY);
        rows.push(row);
        if let Some(lowest) = (0..splits.len())
            .filter(|j| open(&next, *j))
            .map(|j| own[j])
            .min()
        {
            table = table.max(lowest);
        } else {
            // The last row: its split, ending, still counts once.
            table = table.max(own[i]);
        }
        wms.push(table);
    }
    Arrivals { rows, wms }
}

/// Per-key aggregates of a window: COUNT(*), SUM, MIN, MAX.
#[derive(Clone, Debug)]
struct Agg {
    first_seq: usize,
    count: i64,
    sum: i64,
    min: i64,
    max: i64,
}

impl Agg {
    fn new(seq: usize, v: i64) -> Self {
        Agg {
            first_seq: seq,
            count: 1,
            sum: v,
            min: v,
            max: v,
        }
    }

    fn add(&mut self, v: i64) {
        self.count += 1;
        self.sum += v;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    fn merge(&mut self, other: &Agg) {
        self.first_seq = self.first_seq.min(other.first_seq);
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    fn line(&self, key: &str, start: i64, end: i64) -> String {
        self.change("+I", key, start, end)
    }

    /// The result row with its kind (`+I`, `-U`, `+U`).
    fn change(&self, kind: &str, key: &str, start: i64, end: i64) -> String {
        format!(
            "{kind}[{key}, {}, {}, {}, {}, {}, {}]",
            timestamp(start),
            timestamp(end),
            self.count,
            self.sum,
            self.min,
            self.max
        )
    }
}

/// The run summary's numbers a model predicts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Counts {
    windows_fired: u64,
    late_rows: u64,
    partially_late: u64,
    /// Late rows added within the allowed lateness (re-fires).
    accepted: u64,
    /// Keys whose state expired, and rows late because theirs had.
    expired: u64,
    late_expired: u64,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.windows_fired += other.windows_fired;
        self.late_rows += other.late_rows;
        self.partially_late += other.partially_late;
        self.accepted += other.accepted;
        self.expired += other.expired;
        self.late_expired += other.late_expired;
    }

    /// The numbers in the engine's summary lines.
    fn from_summary(summary: &str) -> Self {
        let number_before = |words: &[&str]| -> u64 {
            words
                .iter()
                .filter_map(|w| summary.find(w).map(|at| (at, w)))
                .map(|(at, _)| {
                    summary[..at]
                        .trim_end()
                        .rsplit(' ')
                        .next()
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0)
                })
                .sum()
        };
        Counts {
            windows_fired: number_before(&[" windows fired", " window fired"]),
            late_rows: number_before(&[" late rows dropped", " late row dropped"]),
            partially_late: number_before(&[" rows partially late", " row partially late"]),
            accepted: number_before(&[" late rows added", " late row added"]),
            expired: number_before(&[" keys' state expired", " key's state expired"]),
            late_expired: number_before(&[" of them because its key's state had expired"]),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Aligned {
    Tumble { size: i64 },
    Hop { slide: i64, size: i64 },
    Cumulate { step: i64, max: i64 },
}

impl Aligned {
    /// The windows `[start, end)` holding `ts`.
    fn windows(self, ts: i64) -> Vec<(i64, i64)> {
        let floor = |t: i64, unit: i64| t - t.rem_euclid(unit);
        match self {
            Aligned::Tumble { size } => vec![(floor(ts, size), floor(ts, size) + size)],
            Aligned::Hop { slide, size } => {
                let last = floor(ts, slide);
                (0..size / slide)
                    .map(|i| (last - i * slide, last - i * slide + size))
                    .collect()
            }
            Aligned::Cumulate { step, max } => {
                let start = floor(ts, max);
                (1..=max / step)
                    .map(|k| (start, start + k * step))
                    .filter(|(_, end)| *end > ts)
                    .collect()
            }
        }
    }

    fn sql(self) -> String {
        match self {
            Aligned::Tumble { size } => format!("TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '{size}' MILLISECOND)"),
            Aligned::Hop { slide, size } => format!(
                "HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '{slide}' MILLISECOND, INTERVAL '{size}' MILLISECOND)"
            ),
            Aligned::Cumulate { step, max } => format!(
                "CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '{step}' MILLISECOND, INTERVAL '{max}' MILLISECOND)"
            ),
        }
    }
}

/// TUMBLE, HOP and CUMULATE aggregation, row at a time: a row goes into
/// each of its windows whose end - 1 the watermark before it has not
/// reached; a window fires when the watermark reaches its end - 1, keys in
/// the order of their first row in it.
fn model_aligned(kind: Aligned, input: &Arrivals, counts: &mut Counts) -> Vec<String> {
    let (rows, wms) = (&input.rows[..], &input.wms[..]);
    // (end, start) -> key -> aggregates
    let mut open: BTreeMap<(i64, i64), BTreeMap<String, Agg>> = BTreeMap::new();
    let mut out = Vec::new();
    let fire = |open: &mut BTreeMap<(i64, i64), BTreeMap<String, Agg>>,
                upto: i64,
                out: &mut Vec<String>,
                counts: &mut Counts| {
        while let Some(entry) = open.first_entry() {
            let (end, start) = *entry.key();
            if end - 1 > upto {
                break;
            }
            counts.windows_fired += 1;
            let keys = entry.remove();
            let mut keys: Vec<(String, Agg)> = keys.into_iter().collect();
            keys.sort_by_key(|(_, a)| a.first_seq);
            out.extend(keys.iter().map(|(k, a)| a.line(k, start, end)));
        }
    };
    for (seq, row) in rows.iter().enumerate() {
        let wm = wms[seq];
        let windows = kind.windows(row.ts);
        let mut added = 0;
        for (start, end) in &windows {
            if end - 1 > wm {
                added += 1;
                open.entry((*end, *start))
                    .or_default()
                    .entry(row.key.clone())
                    .and_modify(|a| a.add(row.v))
                    .or_insert_with(|| Agg::new(seq, row.v));
            }
        }
        if added == 0 {
            counts.late_rows += 1;
        } else if added < windows.len() {
            counts.partially_late += 1;
        }
        if wms[seq + 1] > wm {
            fire(&mut open, wms[seq + 1], &mut out, counts);
        }
    }
    fire(&mut open, i64::MAX, &mut out, counts);
    out
}

/// TUMBLE aggregation with allowed lateness, row at a time: as above, but
/// a window keeps its state until the watermark reaches end - 1 +
/// lateness; a row that arrives after the window fired and before that is
/// added, and the window fires again at once for the row's key: `-U` of
/// what it last emitted and `+U` of the new result (`+I` if the key had
/// none there).
fn model_tumble_lateness(
    size: i64,
    lateness: i64,
    input: &Arrivals,
    counts: &mut Counts,
) -> Vec<String> {
    let (rows, wms) = (&input.rows[..], &input.wms[..]);
    // (end, start) -> key -> (aggregates, what was last emitted)
    type Window = BTreeMap<String, (Agg, Option<Agg>)>;
    let mut windows: BTreeMap<(i64, i64), Window> = BTreeMap::new();
    let mut out = Vec::new();
    let advance = |windows: &mut BTreeMap<(i64, i64), Window>,
                   from: i64,
                   to: i64,
                   out: &mut Vec<String>,
                   counts: &mut Counts| {
        // Timers in time order: a window's fire at end - 1, its cleanup at
        // end - 1 + lateness (after its fire when both are due).
        let mut due: Vec<(i64, u8, (i64, i64))> = Vec::new();
        for &(end, start) in windows.keys() {
            if end - 1 > from && end - 1 <= to {
                due.push((end - 1, 0, (end, start)));
            }
            if end - 1 + lateness <= to {
                due.push((end - 1 + lateness, 1, (end, start)));
            }
        }
        due.sort();
        for (_, what, window) in due {
            if what == 1 {
                windows.remove(&window);
                continue;
            }
            let Some(keys) = windows.get_mut(&window) else {
                continue;
            };
            counts.windows_fired += 1;
            let (end, start) = window;
            let mut lines: Vec<(usize, String)> = Vec::new();
            for (key, (agg, emitted)) in keys.iter_mut() {
                *emitted = Some(agg.clone());
                lines.push((agg.first_seq, agg.line(key, start, end)));
            }
            lines.sort();
            out.extend(lines.into_iter().map(|(_, l)| l));
        }
    };
    for (seq, row) in rows.iter().enumerate() {
        let wm = wms[seq];
        let start = row.ts - row.ts.rem_euclid(size);
        let end = start + size;
        if end - 1 + lateness <= wm {
            counts.late_rows += 1;
        } else {
            let keys = windows.entry((end, start)).or_default();
            let (agg, emitted) = keys
                .entry(row.key.clone())
                .and_modify(|(a, _)| a.add(row.v))
                .or_insert_with(|| (Agg::new(seq, row.v), None));
            if end - 1 <= wm {
                // Fired already: it fires again for this key, at once.
                counts.accepted += 1;
                match emitted {
                    None => out.push(agg.change("+I", &row.key, start, end)),
                    Some(old) => {
                        out.push(old.change("-U", &row.key, start, end));
                        out.push(agg.change("+U", &row.key, start, end));
                    }
                }
                *emitted = Some(agg.clone());
            }
        }
        if wms[seq + 1] > wm {
            advance(&mut windows, wm, wms[seq + 1], &mut out, counts);
        }
    }
    advance(&mut windows, wms[rows.len()], i64::MAX, &mut out, counts);
    out
}

/// SESSION aggregation, row at a time: a row opens `[ts, ts + gap)`, which
/// merges with the key's open sessions it overlaps or touches; the row is
/// late if the merged session's end - 1 is not past the watermark; a
/// session fires when the watermark reaches its end - 1, in (end, first
/// row) order across keys.
fn model_session(gap: i64, input: &Arrivals, counts: &mut Counts) -> Vec<String> {
    let (rows, wms) = (&input.rows[..], &input.wms[..]);
    // key -> open sessions (start, end, aggregates)
    let mut open: BTreeMap<String, Vec<(i64, i64, Agg)>> = BTreeMap::new();
    let mut out = Vec::new();
    let fire = |open: &mut BTreeMap<String, Vec<(i64, i64, Agg)>>,
                upto: i64,
                out: &mut Vec<String>,
                counts: &mut Counts| {
        let mut due: Vec<(i64, usize, String)> = Vec::new();
        for (key, sessions) in open.iter_mut() {
            sessions.retain(|(start, end, agg)| {
                if end - 1 <= upto {
                    due.push((*end, agg.first_seq, agg.line(key, *start, *end)));
                    false
                } else {
                    true
                }
            });
        }
        due.sort();
        counts.windows_fired += due.len() as u64;
        out.extend(due.into_iter().map(|(_, _, line)| line));
    };
    for (seq, row) in rows.iter().enumerate() {
        let wm = wms[seq];
        let sessions = open.entry(row.key.clone()).or_default();
        let (mut start, mut end) = (row.ts, row.ts + gap);
        let mut agg = Agg::new(seq, row.v);
        let (touching, apart): (Vec<_>, Vec<_>) = std::mem::take(sessions)
            .into_iter()
            .partition(|(s, e, _)| *s <= row.ts + gap && *e >= row.ts);
        for (s, e, a) in &touching {
            start = start.min(*s);
            end = end.max(*e);
            agg.merge(a);
        }
        if end - 1 <= wm {
            counts.late_rows += 1;
            // Late: the key's sessions stay as they were.
            *sessions = touching.into_iter().chain(apart).collect();
        } else {
            *sessions = apart;
            sessions.push((start, end, agg));
        }
        if wms[seq + 1] > wm {
            fire(&mut open, wms[seq + 1], &mut out, counts);
        }
    }
    fire(&mut open, i64::MAX, &mut out, counts);
    out
}

#[derive(Clone, Copy, Debug)]
enum Frame {
    Rows(usize),
    Range(i64),
}

/// OVER aggregation, row at a time: a row whose rowtime is not after the
/// last one its key emitted is late; others wait until a watermark advance
/// reaches their rowtime, then go out in rowtime order (ties: arrival),
/// each with SUM, MIN and COUNT over its frame. With a `ttl` (spec §10) a
/// key's state — its emitted rows and last emitted rowtime — goes once
/// the watermark reaches its last emitted rowtime + ttl (at one instant,
/// rows go out before state expires), and a row of a key without state
/// (none emitted since, none waiting) is late when it is ttl or more
/// behind the watermark. Lines are grouped by key: the order across keys
/// at one advance is the engine's to choose.
fn model_over(
    frame: Frame,
    ttl: Option<i64>,
    input: &Arrivals,
    counts: &mut Counts,
) -> BTreeMap<String, Vec<String>> {
    let (rows, wms) = (&input.rows[..], &input.wms[..]);
    let mut waiting: Vec<(i64, usize, Row)> = Vec::new();
    let mut emitted: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    let mut last: BTreeMap<String, i64> = BTreeMap::new();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut expired = 0;
    // Everything due up to `upto`, instant by instant.
    let mut advance = |waiting: &mut Vec<(i64, usize, Row)>,
                       last: &mut BTreeMap<String, i64>,
                       upto: i64| loop {
        waiting.sort_by_key(|(ts, seq, _)| (*ts, *seq));
        let next_row = waiting.first().map(|(ts, ..)| *ts).filter(|ts| *ts <= upto);
        let next_expiry = ttl.and_then(|ttl| {
            last.iter()
                .map(|(k, l)| (l.saturating_add(ttl), k.clone()))
                .filter(|(at, _)| *at <= upto)
                .min()
        });
        match (next_row, next_expiry) {
            (Some(at), expiry) if expiry.as_ref().is_none_or(|(e, _)| at <= *e) => {
                let (due, keep): (Vec<_>, Vec<_>) = std::mem::take(waiting)
                    .into_iter()
                    .partition(|(ts, _, _)| *ts == at);
                *waiting = keep;
                for (i, (_, _, row)) in due.iter().enumerate() {
                    last.insert(row.key.clone(), row.ts);
                    let done = emitted.entry(row.key.clone()).or_default();
                    done.push(row.clone());
                    let in_frame: Vec<i64> = match frame {
                        Frame::Rows(n) => done.iter().rev().take(n + 1).map(|r| r.v).collect(),
                        // Peers (same rowtime) are all in: they go out at
                        // the same instant, so those after this one count
                        // too.
                        Frame::Range(d) => done
                            .iter()
                            .chain(due[i + 1..].iter().map(|(_, _, r)| r))
                            .filter(|r| r.key == row.key && r.ts >= row.ts - d && r.ts <= row.ts)
                            .map(|r| r.v)
                            .collect(),
                    };
                    let sum: i64 = in_frame.iter().sum();
                    let min = in_frame.iter().min().copied().unwrap_or_default();
                    out.entry(row.key.clone()).or_default().push(format!(
                        "+I[{}, {}, {}, {sum}, {min}, {}]",
                        row.key,
                        timestamp(row.ts),
                        row.v,
                        in_frame.len()
                    ));
                }
            }
            (_, Some((_, key))) => {
                last.remove(&key);
                emitted.remove(&key);
                expired += 1;
            }
            (_, None) => break,
        }
    };
    for (seq, row) in rows.iter().enumerate() {
        let wm = wms[seq];
        let stateless =
            !last.contains_key(&row.key) && waiting.iter().all(|(_, _, w)| w.key != row.key);
        let expired_row = ttl.is_some_and(|ttl| stateless && row.ts <= wm.saturating_sub(ttl));
        if expired_row {
            counts.late_rows += 1;
            counts.late_expired += 1;
        } else if last.get(&row.key).is_none_or(|l| row.ts > *l) {
            waiting.push((row.ts, seq, row.clone()));
        } else {
            counts.late_rows += 1;
        }
        if wms[seq + 1] > wm {
            advance(&mut waiting, &mut last, wms[seq + 1]);
        }
    }
    advance(&mut waiting, &mut last, i64::MAX);
    counts.expired += expired;
    out
}

/// The rows tidemark emits for `query` over a table of `splits`: one
/// file, or a folder of one file per split.
fn engine(
    dir: &Path,
    splits: &[Vec<Row>],
    query: &str,
    batch_size: u64,
    threads: u64,
) -> (Vec<String>, Counts) {
    let csv = |rows: &[Row]| -> String {
        rows.iter()
            .map(|r| format!("{},{},{}\n", r.key, timestamp(r.ts), r.v))
            .collect()
    };
    let path = if let [rows] = splits {
        std::fs::write(dir.join("in.csv"), csv(rows)).expect("write input");
        "in.csv"
    } else {
        let folder = dir.join("in");
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).expect("create the folder");
        for (i, rows) in splits.iter().enumerate() {
            std::fs::write(folder.join(format!("s{i}.csv")), csv(rows)).expect("write input");
        }
        "in/"
    };
    let sql = format!(
        "CREATE TABLE t (k STRING, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts - INTERVAL '{DELAY}' MILLISECOND) \
         WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv');\n\
         SET 'tidemark.batch-size' = '{batch_size}';\n\
         SET 'parallelism.default' = '{threads}';\n\
         SET 'tidemark.parallel.piece-bytes' = '64';\n\
         SET 'tidemark.parallel.split-by-key' = 'true';\n{query};"
    );
    run_script(dir, &sql)
}

/// The rows a script prints, and the counts of its summary.
fn run_script(dir: &Path, sql: &str) -> (Vec<String>, Counts) {
    let (mut out, mut summary) = (Vec::new(), Vec::new());
    let result = Session::new(dir).execute_script(
        sql,
        &mut Output {
            rows: &mut out,
            summary: &mut summary,
            timing: false,
        },
    );
    if let Err(e) = result {
        panic!("query failed: {}", e.render("query", sql));
    }
    let lines = String::from_utf8(out)
        .expect("UTF-8 output")
        .lines()
        .map(str::to_string)
        .collect();
    let summary = String::from_utf8(summary).expect("UTF-8 summary");
    (lines, Counts::from_summary(&summary))
}

/// The first line where two outputs differ, for a readable failure.
fn first_difference(got: &[String], want: &[String]) -> String {
    let n = got.len().max(want.len());
    (0..n)
        .find(|i| got.get(*i) != want.get(*i))
        .map(|i| {
            format!(
                "line {}: engine {:?}, model {:?}",
                i + 1,
                got.get(i),
                want.get(i)
            )
        })
        .unwrap_or_default()
}

fn by_key(lines: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in lines {
        let key = line
            .trim_start_matches("+I[")
            .split(',')
            .next()
            .unwrap_or_default()
            .to_string();
        out.entry(key).or_default().push(line.clone());
    }
    out
}

#[test]
fn engine_matches_the_row_at_a_time_model() {
    let cases = env_number("TIDEMARK_REFERENCE_CASES", 1_200);
    let mut rng = Rng(env_number("TIDEMARK_REFERENCE_SEED", 0x7265_6665));
    let dir = std::env::temp_dir().join(format!("tidemark-reference-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut lines_compared = 0;
    let mut seen = Counts::default();
    for case in 0..cases {
        let rows = stream(&mut rng);
        // A third of the tables are folders of up to three files, each row
        // dealt to one of them (spec §8).
        let files = if rng.below(3) == 0 {
            2 + rng.below(2) as usize
        } else {
            1
        };
        let mut splits = vec![Vec::new(); files];
        for row in &rows {
            splits[rng.below(files as u64) as usize].push(row.clone());
        }
        let input = interleave(&splits);
        let batch_size = [1, 2, 3, 7, 64][rng.below(5) as usize];
        let threads = 1 + rng.below(2);
        let aggregates = "COUNT(*), SUM(v), MIN(v), MAX(v)";
        let unit = 500 * (1 + rng.below(4) as i64);
        let what =
            format!("case {case}, batch size {batch_size}, {threads} threads, files {splits:?}");
        let mut counts = Counts::default();
        // The query, the model's rows, and whether they are compared key by key.
        let (query, want, keyed) = match case % 7 {
            kind @ 0..=2 => {
                let kind = match kind {
                    0 => Aligned::Tumble { size: unit * 2 },
                    1 => Aligned::Hop {
                        slide: unit,
                        size: unit * (1 + rng.below(4) as i64),
                    },
                    _ => Aligned::Cumulate {
                        step: unit,
                        max: unit * (1 + rng.below(4) as i64),
                    },
                };
                let query = format!(
                    "SELECT k, window_start, window_end, {aggregates} FROM TABLE({}) GROUP BY k, window_start, window_end",
                    kind.sql()
                );
                let want = model_aligned(kind, &input, &mut counts);
                (query, want, false)
            }
            6 => {
                let (size, lateness) = (unit * 2, 500 * rng.below(6) as i64);
                let query = format!(
                    "SET 'table.exec.emit.allow-lateness' = '{lateness} ms'; \
                     SELECT k, window_start, window_end, {aggregates} FROM TABLE({}) GROUP BY k, window_start, window_end",
                    Aligned::Tumble { size }.sql()
                );
                let want = model_tumble_lateness(size, lateness, &input, &mut counts);
                (query, want, false)
            }
            3 => {
                let gap = unit;
                let query = format!(
                    "SELECT k, window_start, window_end, {aggregates} FROM TABLE(SESSION(TABLE t PARTITION BY k, \
                     DESCRIPTOR(ts), INTERVAL '{gap}' MILLISECOND)) GROUP BY k, window_start, window_end"
                );
                let want = model_session(gap, &input, &mut counts);
                (query, want, false)
            }
            kind => {
                let (frame, sql) = if kind == 4 {
                    let n = rng.below(4) as usize;
                    (
                        Frame::Rows(n),
                        format!("ROWS BETWEEN {n} PRECEDING AND CURRENT ROW"),
                    )
                } else {
                    let d = unit * rng.below(4) as i64;
                    (
                        Frame::Range(d),
                        format!(
                            "RANGE BETWEEN INTERVAL '{d}' MILLISECOND PRECEDING AND CURRENT ROW"
                        ),
                    )
                };
                let over = format!("OVER (PARTITION BY k ORDER BY ts {sql})");
                // Half the OVER queries forget a key's state after a ttl
                // at least as long as a RANGE frame (spec §10).
                let longest = match frame {
                    Frame::Range(d) => d,
                    Frame::Rows(_) => 0,
                };
                let ttl = (rng.below(2) == 0).then(|| longest.max(1) + unit * rng.below(4) as i64);
                let set_ttl = ttl
                    .map(|t| format!("SET 'tidemark.state.ttl' = '{t} ms'; "))
                    .unwrap_or_default();
                let query = format!(
                    "{set_ttl}SELECT k, ts, v, SUM(v) {over}, MIN(v) {over}, COUNT(*) {over} FROM t"
                );
                // Lines key by key: the order across keys is the engine's.
                let want = model_over(frame, ttl, &input, &mut counts)
                    .into_values()
                    .flatten()
                    .collect();
                (query, want, true)
            }
        };
        let (got, got_counts) = engine(&dir, &splits, &query, batch_size, threads);
        let got: Vec<String> = if keyed {
            by_key(&got).into_values().flatten().collect()
        } else {
            got
        };
        assert_eq!(got_counts, counts, "{what}\n{query}");
        assert!(
            got == want,
            "{what}\n{query}\n{}",
            first_difference(&got, &want)
        );
        seen.add(&counts);
        lines_compared += want.len();
    }
    let _ = std::fs::remove_dir_all(&dir);
    // The streams must give the model something to say.
    assert!(
        lines_compared as u64 > cases * 3,
        "{lines_compared} lines compared"
    );
    assert!(
        seen.windows_fired > cases
            && seen.late_rows > cases / 20
            && seen.partially_late > cases / 50
            && seen.accepted > cases / 50
            && seen.expired > cases / 20
            && seen.late_expired > 0,
        "too few fires or late rows to test much: {seen:?}"
    );
}
