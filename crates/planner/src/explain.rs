//! `EXPLAIN`: the operator tree, and under each window operator how time
//! works for it — where its rowtime and watermark come from, when a window
//! fires and when its state is freed, what happens to late rows, and how
//! its state is laid out. The answers to "when will my window fire?"
//! before the job runs.

use tidemark_common::window::{ms, WindowKind};
use tidemark_common::{Result, SessionOptions};
use tidemark_engine::{cores_to_split, why_not_split};
use tidemark_sql::{JoinType, LogicalPlan};

/// The plan as `EXPLAIN` prints it, with the session's options applied.
pub fn explain(plan: &LogicalPlan, options: &SessionOptions) -> Result<String> {
    let options = &crate::as_run(options);
    let mut out = String::new();
    let lateness = options.allow_lateness()?;
    let early = options.early_fire()?;
    let ttl = options.state_ttl()?;
    let late_places = late_rows_places(plan, options)?;
    let late = late_places.join(", ");
    let threads = options.parallelism()?;
    // Late rows routed anywhere besides the summary go out as whole rows
    // of their table: every column is decoded (`TableSource::keep_origin`).
    let whole_rows = late_places.len() > 1;
    // Each node with its depth, whether it runs as one input of a union
    // or a window join (`crate::branch_options`), and which of its
    // columns the steps above read.
    let mut stack = vec![(plan, 0, false, crate::columns::all_of(plan))];
    while let Some((node, depth, in_branch, needed)) = stack.pop() {
        let pad = "  ".repeat(depth);
        out.push_str(&format!("{pad}{}\n", node.header()));
        for line in read_details(node, threads)
            .into_iter()
            .chain(unread_details(node, &needed, whole_rows))
            .chain(idle_details(node, options)?)
            .chain(split_details(node, options, threads, in_branch)?)
            .chain(details(node, lateness, early, &late, ttl))
        {
            out.push_str(&format!("{pad}  | {line}\n"));
        }
        let branches = in_branch
            || matches!(
                node,
                LogicalPlan::Union { .. } | LogicalPlan::WindowJoin { .. }
            );
        let inputs_need = crate::columns::needed_by_inputs(node, &needed);
        stack.extend(
            node.inputs()
                .into_iter()
                .zip(inputs_need)
                .rev()
                .map(|(i, needs)| (i, depth + 1, branches, needs)),
        );
    }
    Ok(out)
}

/// Where the late rows of `plan` go: the run summary first, then any other
/// place.
fn late_rows_places(plan: &LogicalPlan, options: &SessionOptions) -> Result<Vec<String>> {
    let mut places = vec!["counted in the run summary".to_string()];
    for source in plan.scans() {
        let per_source = format!("table.exec.late-records.sink.{}", source.name);
        if let Some(sink) = options
            .get(&per_source)
            .or_else(|| options.get("table.exec.late-records.sink"))
        {
            places.push(format!("written to sink table {sink}"));
        }
    }
    if options.flag("tidemark.display.late-records")? {
        places.push("shown inline as LATE[...]".into());
    }
    Ok(places)
}

/// Where a scan's reading starts and ends, and how it is read at
/// parallelism `threads` (> 1); nothing for other nodes.
fn read_details(node: &LogicalPlan, threads: usize) -> Vec<String> {
    let LogicalPlan::Scan { table, .. } = node else {
        return Vec::new();
    };
    let Some(connector) = tidemark_engine::of_table(table) else {
        return Vec::new();
    };
    let mut details: Vec<String> = connector
        .explain_source(table)
        .map(|what| format!("source: {what}"))
        .into_iter()
        .collect();
    if threads >= 2 {
        details.push(format!("read: {}", connector.explain_read(table, threads)));
    }
    details
}

/// The physical columns of a scan's table that no step reads, which its
/// format leaves undecoded; nothing for other nodes, or when every column
/// is read (or kept whole, `whole_rows`).
fn unread_details(node: &LogicalPlan, needed: &[bool], whole_rows: bool) -> Vec<String> {
    let LogicalPlan::Scan { table, .. } = node else {
        return Vec::new();
    };
    if whole_rows {
        return Vec::new();
    }
    let unread = crate::columns::unread_physical(table, needed);
    let names = crate::columns::unread_names(table, &unread);
    if names.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "not decoded: {} (no step reads {})",
        names.join(", "),
        if names.len() == 1 { "it" } else { "them" }
    )]
}

/// The idle rule in force for a scan of a table that may pause (spec
/// §8); nothing for other nodes: a table read to its end is never idle.
fn idle_details(node: &LogicalPlan, options: &SessionOptions) -> Result<Vec<String>> {
    let LogicalPlan::Scan { table, .. } = node else {
        return Ok(Vec::new());
    };
    if !tidemark_engine::splits_may_pause(table) || table.watermark.is_none() {
        return Ok(Vec::new());
    }
    let timeout = crate::idle_timeout(table, options)?;
    let key = if table.option("scan.watermark.idle-timeout").is_some() {
        "'scan.watermark.idle-timeout'"
    } else {
        "'table.exec.source.idle-timeout'"
    };
    let clock = if table.option("connector") == Some("replay") {
        "the replay's scripted clock"
    } else {
        "the engine's clock"
    };
    Ok(vec![if timeout > 0 {
        format!(
            "idle: a split with no row for {} on {clock} leaves the watermark until its next row ({key})",
            tidemark_common::window::ms(timeout)
        )
    } else {
        "idle: never: a quiet split holds the watermark, and every window behind it ('table.exec.source.idle-timeout' is 0)".into()
    }])
}

/// Whether a window aggregation is split by key at parallelism `threads`;
/// nothing for other nodes, or at parallelism 1.
fn split_details(
    node: &LogicalPlan,
    options: &SessionOptions,
    threads: usize,
    in_branch: bool,
) -> Result<Vec<String>> {
    let LogicalPlan::WindowAggregate { window, keys, .. } = node else {
        return Ok(Vec::new());
    };
    if threads < 2 {
        return Ok(Vec::new());
    }
    if in_branch {
        return Ok(vec![
            "parallel: on one thread: it is an input of a UNION ALL or window join, whose rows must go out before its watermark moves the others' on".into(),
        ]);
    }
    let blocker = why_not_split(
        &window.kind,
        keys.len(),
        options.allow_lateness()?,
        options.early_fire()?,
        options.trace()?,
    );
    let split = format!(
        "split by key over {threads} threads (a hash of the key picks the thread that aggregates it), results merged in one thread's order"
    );
    let how = match (blocker, options.split_by_key()?) {
        (Some(why), _) => format!("on one thread: {why}"),
        (None, Some(false)) => "on one thread ('tidemark.parallel.split-by-key' is false)".into(),
        (None, Some(true)) => split,
        (None, None) => format!(
            "{split}, on a machine with {} cores or more ('tidemark.parallel.split-by-key' is auto), else on one thread; the same results either way",
            cores_to_split(threads)
        ),
    };
    Ok(vec![format!("parallel: {how}")])
}

/// The time details of a window operator; nothing for other nodes.
fn details(
    node: &LogicalPlan,
    lateness: i64,
    early: Option<i64>,
    late: &str,
    ttl: Option<i64>,
) -> Vec<String> {
    if let LogicalPlan::WindowRank { input, limit, .. } = node {
        let late = if input.has_window_aggregate() {
            "counted in the run summary"
        } else {
            late
        };
        let state = match limit {
            Some((_, n)) => format!("state: the rows of each window not yet ended that may still rank within {n}, and the first of each partition"),
            None => "state: the rows of each window not yet ended".into(),
        };
        return vec![
            "emit: a window's rows, ranked, when the watermark passes window_end - 1".into(),
            format!("late rows: a row whose window was already ranked; {late}"),
            state,
        ];
    }
    if let LogicalPlan::WindowJoin { kind, .. } = node {
        let emit = match kind {
            JoinType::Inner => "each left row with its right partners (equal keys; NULL equals nothing), in arrival order",
            JoinType::Left => "each left row with its right partners, or once with NULLs for the right columns",
            JoinType::Right => "the pairs of partners, then each right row without a partner, with NULLs for the left columns",
            JoinType::Full => "each left row with its partners or NULLs, then each right row without a partner, with NULLs for the left columns",
            JoinType::Semi => "each left row that has a right partner, once",
            JoinType::Anti { null_aware: false } => "each left row without a right partner",
            JoinType::Anti { null_aware: true } => "each left row that NOT IN proves has no right partner: none when the IN key is NULL or a right row's is, unless the window has no right rows",
        };
        return vec![
            "time: the lower of the two inputs' watermarks (rows are read from the input with the lower one; an input that has ended no longer holds it back)".into(),
            format!("fire: when the watermark reaches window_end - 1 ms: {emit}"),
            format!("late rows: a row whose window has already fired; {late}"),
            "state: each window's rows of both inputs, freed when it fires".into(),
        ];
    }
    if let LogicalPlan::OverAggregate {
        input,
        time_column,
        frame,
        ..
    } = node
    {
        return over_details(input, *time_column, frame, late, ttl);
    }
    let (input, window, aggregated) = match node {
        LogicalPlan::WindowAggregate { input, window, .. } => (input, window, true),
        LogicalPlan::WindowTvf { input, window, .. } => (input, window, false),
        _ => return Vec::new(),
    };
    let mut lines = vec![format!("time: {}", time_origin(input, window.time_column))];
    if let (Some(kind), true) = (window.attached, aggregated) {
        lines.extend(attached_details(kind, lateness, early, late));
        return lines;
    }
    // Late rows are routed as rows of a source table: only where the
    // operator reads one, not the results of a window below.
    let late = if input.has_window_aggregate() {
        "counted in the run summary"
    } else {
        late
    };
    let stateless_tvf = !aggregated && !matches!(window.kind, WindowKind::Session { .. });
    if stateless_tvf {
        lines.push(
            "each row is labelled with its windows as it arrives: no state, no firing, no late rows"
                .into(),
        );
        return lines;
    }
    let end = match window.kind {
        WindowKind::Session { gap } => format!("session end (last row + {})", ms(gap)),
        _ => "window_end".into(),
    };
    lines.push(format!("fire: when the watermark reaches {end} - 1 ms"));
    if let (Some(every), true) = (early, aggregated) {
        lines.push(format!(
            "early: at the first watermark and every {} of watermark progress, open windows emit their partial results (+I, then -U/+U when they change)",
            ms(every)
        ));
    }
    // The SESSION TVF without aggregation keeps no lateness.
    let lateness = if aggregated { lateness } else { 0 };
    if lateness == 0 {
        lines.push(format!(
            "cleanup: at {end} - 1 ms, with the fire (allowed lateness 0 ms)"
        ));
    } else {
        let changes = match window.kind {
            WindowKind::Session { .. } => {
                "a late row until then updates its fired session (-U/+U), or retracts fired sessions it merges (-D) and fires the merged one (+I)"
            }
            _ => "a late row until then makes its fired windows fire again (-U/+U, or +I for a new key)",
        };
        lines.push(format!(
            "cleanup: at {end} - 1 ms + {} (allowed lateness); {changes}",
            ms(lateness)
        ));
    }
    let late_rule = match window.kind {
        WindowKind::Session { .. } => "a row whose session (after merging) is cleaned up",
        WindowKind::Tumble { .. } => "a row whose window is cleaned up",
        _ => {
            "a row all of whose windows are cleaned up (one late for only some counts in the rest)"
        }
    };
    lines.push(format!("late rows: {late_rule}; {late}"));
    lines.push(format!("state: {}", state_layout(window.kind, aggregated)));
    lines
}

/// The time details of an aggregation over rows that carry their `kind`
/// window (another window's results).
fn attached_details(
    kind: WindowKind,
    lateness: i64,
    early: Option<i64>,
    late: &str,
) -> Vec<String> {
    let mut lines = vec![
        format!("windows: each row's own {kind} window, by its window_start and window_end"),
        "fire: when the watermark reaches window_end - 1 ms".into(),
    ];
    if let Some(every) = early {
        lines.push(format!(
            "early: at the first watermark and every {} of watermark progress, open windows emit their partial results (+I, then -U/+U when they change)",
            ms(every)
        ));
    }
    lines.push(match lateness {
        0 => "cleanup: at window_end - 1 ms, with the fire (allowed lateness 0 ms)".into(),
        _ => format!(
            "cleanup: at window_end - 1 ms + {} (allowed lateness); a late row until then makes its window fire again (-U/+U, or +I for a new key)",
            ms(lateness)
        ),
    });
    lines.push(format!(
        "late rows: a row whose window is cleaned up; {late}"
    ));
    lines.push("state: accumulators per key and window".into());
    lines
}

/// The time details of an OVER aggregation.
fn over_details(
    input: &LogicalPlan,
    time_column: usize,
    frame: &tidemark_common::window::OverFrame,
    late: &str,
    ttl: Option<i64>,
) -> Vec<String> {
    use tidemark_common::window::FrameUnits;
    let late = if input.has_window_aggregate() {
        "counted in the run summary"
    } else {
        late
    };
    let state = match (frame.units, frame.preceding) {
        (FrameUnits::Rows, Some(n)) => format!("per key, its last {n} emitted rows"),
        (FrameUnits::Range, Some(d)) => format!(
            "per key, its rows from its last emitted rowtime - {} on",
            ms(d)
        ),
        (_, None) => "per key, running accumulators (no rows)".into(),
    };
    let (late_rule, expiry) = match ttl {
        None => (
            String::new(),
            "kept forever (no 'tidemark.state.ttl')".to_string(),
        ),
        Some(ttl) => (
            format!(
                ", or of a key without state {} or more behind the watermark (expired)",
                ms(ttl)
            ),
            format!(
                "a key's state expires once the watermark is {} past its last emitted row (tidemark.state.ttl)",
                ms(ttl)
            ),
        ),
    };
    vec![
        format!("time: {}", time_origin(input, time_column)),
        "emit: each row when the watermark passes its rowtime (a row accepted behind the watermark at the next advance), in rowtime order per key".into(),
        format!("late rows: a row whose key already emitted its rowtime or a later one{late_rule}; {late}"),
        format!("state: rows waiting for the watermark, and {state}; {expiry}"),
    ]
}

/// How a window operator keeps its state.
fn state_layout(kind: WindowKind, aggregated: bool) -> String {
    match kind {
        WindowKind::Tumble { size, .. } => {
            format!("accumulators per key and window ({} slices)", ms(size))
        }
        WindowKind::Hop { slide, size, .. } => format!(
            "accumulators per key and {} slice; a window merges its {} slices when it fires",
            ms(slide),
            size / slide.max(1)
        ),
        WindowKind::Cumulate { step, max_size, .. } => format!(
            "accumulators per key and {} slice; the n-th window of a cycle merges its first n slices (up to {})",
            ms(step),
            max_size / step.max(1)
        ),
        WindowKind::Session { .. } if aggregated => {
            "accumulators per key and open session; sessions a row joins are merged".into()
        }
        WindowKind::Session { .. } => {
            "rows per partition key and open session, held until the session fires".into()
        }
    }
}

/// Where column `column` of `plan` gets its time from.
fn time_origin(plan: &LogicalPlan, column: usize) -> String {
    match plan {
        LogicalPlan::Scan { table, schema } => {
            let field = schema.field(column);
            if field.proctime {
                return format!(
                    "processing time {}.{}: windows fire on the engine clock",
                    table.name, field.name
                );
            }
            let from = match table.kinds.get(column) {
                Some(tidemark_common::catalog::ColumnKind::Metadata { key, .. }) => {
                    format!(" (metadata '{key}')")
                }
                _ => String::new(),
            };
            match &table.watermark {
                Some(w) if w.column == column => match tidemark_engine::split_kind(table) {
                    None => format!(
                        "rowtime {}.{}{from}; watermark: the running maximum of {}, after every row",
                        table.name, field.name, w.expr
                    ),
                    Some(kind) => format!(
                        "rowtime {}.{}{from}; watermark: per {kind}, the running maximum of {} over its rows, after every row; the table's is the lowest of its {kind}s' (never going back), rows taken from the {kind} whose watermark is lowest",
                        table.name, field.name, w.expr
                    ),
                },
                _ => format!("{}.{}", table.name, field.name),
            }
        }
        LogicalPlan::Filter { input, .. } => time_origin(input, column),
        LogicalPlan::Expand { input, .. } if column < input.schema().len() => {
            time_origin(input, column)
        }
        LogicalPlan::WindowRank { input, .. } if column < input.schema().len() => {
            time_origin(input, column)
        }
        LogicalPlan::WindowRank { .. } => "the rank of the window ranking below".into(),
        LogicalPlan::Expand { .. } => "the number of the grouping set".into(),
        LogicalPlan::OverAggregate { input, schema, .. } => {
            if column < input.schema().len() {
                time_origin(input, column)
            } else {
                format!(
                    "{} of the OVER aggregation below",
                    schema.field(column).name
                )
            }
        }
        LogicalPlan::WindowJoin { .. } => "a column of the window join below".into(),
        LogicalPlan::Union { inputs, .. } => {
            let each: Vec<String> = inputs.iter().map(|i| time_origin(i, column)).collect();
            format!(
                "the union of [{}]; watermark: the minimum of the inputs' (an ended input no longer counts)",
                each.join("; ")
            )
        }
        LogicalPlan::Project { input, exprs, .. } => match exprs[column].as_column() {
            Some(index) => time_origin(input, index),
            None => format!("computed as {}", exprs[column]),
        },
        LogicalPlan::WindowTvf { input, window, .. } => {
            let width = input.schema().fields.len();
            if column < width {
                time_origin(input, column)
            } else {
                format!("window_time of {}", window.kind)
            }
        }
        LogicalPlan::WindowAggregate { window, keys, .. } => {
            if column == keys.len() + 2 {
                format!(
                    "window_time of the {} aggregation below (its window_end - 1 ms), watermark passed on from it",
                    window.kind
                )
            } else {
                "a column of the window aggregation below".into()
            }
        }
    }
}
