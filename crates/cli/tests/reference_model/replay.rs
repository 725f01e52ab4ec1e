//! Replays with idle splits against the model: spec §8 row at a time on
//! the replay's scripted clock.

use super::*;

/// A row of a replay: when it arrives, and the row.
#[derive(Clone, Debug)]
struct Arrival {
    at: i64,
    row: Row,
}

/// The rows of a replay as the model gives them, and how often a split
/// went idle.
struct Replayed {
    input: Arrivals,
    went_idle: u64,
}

/// A replayed table of `splits` with an idle timeout, as spec §8 states
/// it, on the replay's clock. The clock starts at the first arrival and
/// moves only when nothing more can be taken, to the next arrival or idle
/// timeout. At each instant: rows that have arrived are ready; a split
/// with no ready row whose last row arrived `timeout` or more ago, and
/// with rows still to come, is idle — left out of the minimum — until a
/// row of it is ready again; rows are taken one at a time from the
/// counting split whose watermark is lowest (ties: the split listed
/// first) while it has one ready; each row meets the table's watermark
/// `max(told, its split's)`, and the table's watermark is `max(told, min
/// over the counting splits)` — a split whose last row was just taken
/// counts that once.
fn replay_model(splits: &[Vec<Arrival>], timeout: i64) -> Replayed {
    let n = splits.len();
    let mut went_idle = 0;
    let Some(start) = splits.iter().filter_map(|s| s.first()).map(|a| a.at).min() else {
        let input = Arrivals {
            rows: Vec::new(),
            wms: vec![i64::MIN],
        };
        return Replayed { input, went_idle };
    };
    let (mut ready, mut taken) = (vec![0; n], vec![0; n]);
    let mut own = vec![i64::MIN; n];
    let mut idle = vec![false; n];
    let mut quiet_since = vec![start; n];
    let mut told = i64::MIN;
    let (mut rows, mut wms) = (Vec::new(), Vec::new());
    let mut now = start;
    loop {
        for i in 0..n {
            while ready[i] < splits[i].len() && splits[i][ready[i]].at <= now {
                quiet_since[i] = splits[i][ready[i]].at;
                ready[i] += 1;
            }
        }
        loop {
            for i in 0..n {
                let queued = taken[i] < ready[i];
                let to_come = ready[i] < splits[i].len();
                if idle[i] && queued {
                    idle[i] = false;
                } else if !idle[i]
                    && !queued
                    && to_come
                    && timeout > 0
                    && now - quiet_since[i] >= timeout
                {
                    idle[i] = true;
                    went_idle += 1;
                }
            }
            let counting: Vec<usize> = (0..n)
                .filter(|i| taken[*i] < splits[*i].len() && !idle[*i])
                .collect();
            if let Some(lowest) = counting.iter().map(|i| own[*i]).min() {
                told = told.max(lowest);
            }
            let Some(&i) = counting.iter().min_by_key(|i| (own[**i], **i)) else {
                break;
            };
            if taken[i] == ready[i] {
                break;
            }
            let row = splits[i][taken[i]].row.clone();
            taken[i] += 1;
            wms.push(told.max(own[i]));
            own[i] = own[i].max(row.ts - DELAY);
            rows.push(row);
            // The split just read counts once more, even at its end.
            let lowest = (0..n)
                .filter(|j| !idle[*j] && (*j == i || taken[*j] < splits[*j].len()))
                .map(|j| own[j])
                .min();
            if let Some(lowest) = lowest {
                told = told.max(lowest);
            }
        }
        if (0..n).all(|i| taken[i] == splits[i].len()) {
            break;
        }
        let arrivals = (0..n).filter_map(|i| splits[i].get(ready[i]).map(|a| a.at));
        let deadlines = (0..n)
            .filter(|i| {
                timeout > 0 && !idle[*i] && taken[*i] == ready[*i] && ready[*i] < splits[*i].len()
            })
            .map(|i| quiet_since[i] + timeout)
            .filter(|t| *t > now);
        now = arrivals
            .chain(deadlines)
            .min()
            .expect("something to wait for");
    }
    wms.push(told);
    Replayed {
        input: Arrivals { rows, wms },
        went_idle,
    }
}

/// What tidemark emits for `query` over a replay of `splits` (one file
/// each) with the idle timeout `timeout`.
fn engine_replay(
    dir: &Path,
    splits: &[Vec<Arrival>],
    timeout: i64,
    query: &str,
    batch_size: u64,
) -> (Vec<String>, Counts) {
    let folder = dir.join("replay");
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("create the folder");
    for (i, split) in splits.iter().enumerate() {
        let text: String = split
            .iter()
            .map(|a| {
                format!(
                    "{},{},{},{}\n",
                    timestamp(a.at),
                    a.row.key,
                    timestamp(a.row.ts),
                    a.row.v
                )
            })
            .collect();
        std::fs::write(folder.join(format!("s{i}.csv")), text).expect("write input");
    }
    let sql = format!(
        "CREATE TABLE t (arrived TIMESTAMP(3), k STRING, ts TIMESTAMP(3), v INT, \
         WATERMARK FOR ts AS ts - INTERVAL '{DELAY}' MILLISECOND) \
         WITH ('connector' = 'replay', 'path' = 'replay/', 'format' = 'csv', \
         'replay.arrival-column' = 'arrived', 'scan.watermark.idle-timeout' = '{timeout} ms');\n\
         SET 'tidemark.batch-size' = '{batch_size}';\n{query};"
    );
    run_script(dir, &sql)
}

#[test]
fn replays_with_idle_splits_match_the_model() {
    let cases = env_number("TIDEMARK_REFERENCE_CASES", 1_200) / 3;
    let mut rng = Rng(env_number("TIDEMARK_REFERENCE_SEED", 0x7265_6665) ^ 0x1D1E);
    let dir = std::env::temp_dir().join(format!("tidemark-reference-idle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (mut lines_compared, mut late, mut idle_spells) = (0, 0, 0);
    for case in 0..cases {
        // Two or three splits; each sends rows with pauses, some long.
        let files = 2 + rng.below(2) as usize;
        let keys = 1 + rng.below(3);
        let splits: Vec<Vec<Arrival>> = (0..files)
            .map(|_| {
                let mut at = BASE + rng.below(2_000) as i64;
                (0..rng.below(15))
                    .map(|_| {
                        at += [50, 200, 400, 1_500, 6_000][rng.below(5) as usize];
                        let behind = [0, 0, 300, 1_500, 4_000][rng.below(5) as usize];
                        Arrival {
                            at,
                            row: Row {
                                key: format!("k{}", rng.below(keys)),
                                ts: at - behind,
                                v: rng.below(100) as i64 - 50,
                            },
                        }
                    })
                    .collect()
            })
            .collect();
        let timeout = [0, 500, 1_000, 3_000][rng.below(4) as usize];
        let batch_size = [1, 2, 64][rng.below(3) as usize];
        let Replayed { input, went_idle } = replay_model(&splits, timeout);
        idle_spells += went_idle;
        let mut counts = Counts::default();
        let (query, want, keyed) = if case % 2 == 0 {
            let kind = Aligned::Tumble { size: 1_000 };
            let query = format!(
                "SELECT k, window_start, window_end, COUNT(*), SUM(v), MIN(v), MAX(v) FROM TABLE({}) GROUP BY k, window_start, window_end",
                kind.sql()
            );
            (query, model_aligned(kind, &input, &mut counts), false)
        } else {
            let over = "OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)";
            let query =
                format!("SELECT k, ts, v, SUM(v) {over}, MIN(v) {over}, COUNT(*) {over} FROM t");
            let want = model_over(Frame::Rows(1), None, &input, &mut counts)
                .into_values()
                .flatten()
                .collect();
            (query, want, true)
        };
        let (got, got_counts) = engine_replay(&dir, &splits, timeout, &query, batch_size);
        let got: Vec<String> = if keyed {
            by_key(&got).into_values().flatten().collect()
        } else {
            got
        };
        let what = format!(
            "case {case}, idle timeout {timeout} ms, batch size {batch_size}, splits {splits:?}"
        );
        assert_eq!(got_counts, counts, "{what}\n{query}");
        assert!(
            got == want,
            "{what}\n{query}\n{}",
            first_difference(&got, &want)
        );
        lines_compared += want.len();
        late += counts.late_rows;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        lines_compared as u64 > cases * 2 && late > cases / 10 && idle_spells > cases / 4,
        "too little compared: {lines_compared} lines, {late} late rows, {idle_spells} idle spells"
    );
}
