//! tidemark's planner: turns a [`LogicalPlan`] into a runnable
//! [`Pipeline`] of engine operators.
//!
//! The entry point is [`plan_query`]. Window kinds are matched exhaustively
//! here to choose an operator; what the engine cannot run yet is a planning
//! error, never a silent fallback.

mod columns;
mod explain;

pub use explain::explain;
use std::sync::Arc;
use tidemark_common::catalog::TableDef;
use tidemark_common::expr::{AggregateCall, AggregateFunction};
use tidemark_common::window::WindowKind;
use tidemark_common::{Error, Result, SessionOptions, Span, SqlType};
use tidemark_engine::Clock;
use tidemark_engine::ParallelRead;
use tidemark_engine::SessionAggregate;
use tidemark_engine::SessionRows;
use tidemark_engine::Tracing;
use tidemark_engine::{auto_split, partitionable, PartitionedWindowAggregate};
use tidemark_engine::{Branch, UnionSource};
use tidemark_engine::{EvalContext, Operator, Pipeline, PipelineSource};
use tidemark_engine::{Expand, Filter, ProcTimeWatermarks, Project, WindowLabels};
use tidemark_engine::{Idleness, TableSource};
use tidemark_engine::{JoinSide, WindowJoin, WindowJoinSpec};
use tidemark_engine::{WindowAggregate, WindowAggregateSpec};
use tidemark_engine::{WindowRank, WindowRankSpec};
use tidemark_over::{OverAggregate, OverSpec};
use tidemark_sql::{LogicalPlan, WindowSpec};

/// A planned query: the pipeline and what its output rows look like.
pub struct PhysicalQuery {
    pub pipeline: Pipeline,
    pub output_types: Vec<SqlType>,
    pub eval: EvalContext,
    /// What the user should know before the run starts (a quiet input
    /// that can hold every window).
    pub warnings: Vec<String>,
}

pub fn plan_query(plan: &LogicalPlan, options: &SessionOptions) -> Result<PhysicalQuery> {
    let checkpoint_every = match options.get(tidemark_common::CHECKPOINT_DIR) {
        Some(_) => Some(options.checkpoint_every()?),
        None => None,
    };
    let options = &as_run(options);
    let eval = EvalContext {
        time_zone: options.local_time_zone()?,
    };
    let batch_size = options.batch_size()?;
    let mut operators: Vec<Box<dyn Operator>> = Vec::new();
    let clock = &run_clock(plan, options)?;
    let needed = columns::all_of(plan);
    let mut source = build(
        plan,
        &needed,
        &mut operators,
        options,
        batch_size,
        eval,
        clock,
    )?;
    if checkpoint_every.is_some() {
        source.track_positions();
    }
    Ok(PhysicalQuery {
        pipeline: Pipeline {
            source,
            operators,
            state_limit: options.state_limit()?,
            checkpoint_every,
            checkpoint_within: None,
            resumed: (0, tidemark_common::time::NO_WATERMARK),
            hold_gap_ms: largest_window(plan).unwrap_or(i64::MAX),
            journal: None,
            observer: None,
            live: false,
        },
        output_types: plan.schema().fields.iter().map(|f| f.ty.clone()).collect(),
        eval,
        warnings: held_watermark_warnings(plan, options)?,
    })
}

/// What window operators trace: their events with lines when the trace is
/// printed, in numbers only for a run report, else nothing.
fn tracing(options: &SessionOptions) -> Result<Tracing> {
    Ok(if options.trace()? {
        Tracing::Lines
    } else if options.trace_events()? {
        Tracing::Facts
    } else {
        Tracing::Off
    })
}

/// The options a query runs with: a checkpointed query runs on one thread,
/// since a checkpoint is taken between two batches of one reader with no
/// work in flight.
pub(crate) fn as_run(options: &SessionOptions) -> std::borrow::Cow<'_, SessionOptions> {
    if options.get(tidemark_common::CHECKPOINT_DIR).is_none() {
        return std::borrow::Cow::Borrowed(options);
    }
    let mut one_thread = options.clone();
    one_thread.set("parallelism.default", "1");
    std::borrow::Cow::Owned(one_thread)
}

/// What Flink's legacy group windows take of the emit settings: allowed
/// lateness on TUMBLE and HOP only with late firing on, which is what
/// tidemark does (a late row's update at once); without it Flink keeps
/// late rows but never emits them. SESSION takes none, as in Flink.
fn legacy_emit(window: &WindowSpec, options: &SessionOptions) -> Result<()> {
    let lateness = options.allow_lateness()?;
    let late_fire = options.late_fire()?;
    if matches!(window.kind, WindowKind::Session { .. }) {
        if lateness > 0 || late_fire {
            return Err(Error::plan(
                "a SESSION group window takes no emit strategy ('table.exec.emit.allow-lateness', 'table.exec.emit.late-fire.enabled'), as in Flink",
                window.span,
            )
            .with_hint("the SESSION window TVF takes allowed lateness: FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), gap)) GROUP BY window_start, window_end, k"));
        }
    } else if lateness > 0 && !late_fire {
        return Err(Error::plan(
            "allowed lateness on a group window needs late firing: SET 'table.exec.emit.late-fire.enabled' = 'true'",
            window.span,
        )
        .with_hint("without it Flink adds late rows to fired windows but never emits them; tidemark emits each late row's update at once"));
    }
    Ok(())
}

/// Whether Flink would run this aggregation in two phases (local
/// pre-aggregation, then global merge), which groups DOUBLE additions
/// differently: it does when every aggregate can merge partial results
/// (FIRST_VALUE and LAST_VALUE cannot) unless
/// `table.optimizer.agg-phase-strategy` is `ONE_PHASE`. Only DOUBLE SUM and
/// AVG can tell the difference.
fn two_phase_sums(aggregates: &[AggregateCall], options: &SessionOptions) -> bool {
    use AggregateFunction as F;
    let one_phase = options
        .get("table.optimizer.agg-phase-strategy")
        .is_some_and(|v| v.eq_ignore_ascii_case("ONE_PHASE"));
    let mergeable = !aggregates
        .iter()
        .any(|a| matches!(a.func, F::FirstValue | F::LastValue));
    let double_sums = aggregates
        .iter()
        .any(|a| matches!(a.func, F::Sum | F::Avg) && a.arg_type == Some(SqlType::Double));
    !one_phase && mergeable && double_sums
}

/// The zone whose wall clock windows over `rowtime` are laid out on: the
/// session zone for a TIMESTAMP_LTZ rowtime, unless it is UTC (where the
/// wall clock is the instant).
fn window_zone(rowtime: &SqlType, eval: EvalContext) -> Option<chrono_tz::Tz> {
    (matches!(rowtime, SqlType::TimestampLtz(_)) && eval.time_zone != chrono_tz::UTC)
        .then_some(eval.time_zone)
}

/// The engine clock `SET 'tidemark.clock'` asks for: `system` (default), or
/// `fake`, which reads row n at `tidemark.clock.start` + n ×
/// `tidemark.clock.step` (defaults 1970-01-01 00:00:00 and 1 s), so that
/// processing-time queries can be tested.
fn clock(options: &SessionOptions) -> Result<Clock> {
    let bad = |key: &str, value: &str, want: &str| {
        Error::plan(
            format!("'{key}' must be {want}, got '{value}'"),
            Span::default(),
        )
    };
    match options.get("tidemark.clock").unwrap_or("system") {
        "system" => Ok(Clock::System),
        "fake" => {
            let start_text = options
                .get("tidemark.clock.start")
                .unwrap_or("1970-01-01 00:00:00");
            let start = chrono::NaiveDateTime::parse_from_str(start_text, "%Y-%m-%d %H:%M:%S%.f")
                .map_err(|_| {
                    bad(
                        "tidemark.clock.start",
                        start_text,
                        "a time 'yyyy-MM-dd HH:mm:ss' (UTC)",
                    )
                })?
                .and_utc()
                .timestamp_millis();
            let step_text = options.get("tidemark.clock.step").unwrap_or("1 s");
            let step = tidemark_common::time::parse_duration_ms(step_text).map_err(|_| {
                bad(
                    "tidemark.clock.step",
                    step_text,
                    "a duration such as '500 ms'",
                )
            })?;
            Ok(Clock::Fake {
                start,
                step,
                rows: 0,
            })
        }
        other => Err(bad("tidemark.clock", other, "'system' or 'fake'")),
    }
}

/// The idle timeout of `table`'s splits: its `scan.watermark.idle-timeout`
/// or else the session's `table.exec.source.idle-timeout` (spec §8).
pub(crate) fn idle_timeout(table: &TableDef, options: &SessionOptions) -> Result<i64> {
    match table.option("scan.watermark.idle-timeout") {
        Some(text) => tidemark_common::time::parse_duration_ms(text)
            .ok()
            .filter(|ms| *ms >= 0)
            .ok_or_else(|| {
                Error::plan(
                    format!(
                        "table {}: 'scan.watermark.idle-timeout' must be a duration such as '30 s' (or 0: never), got '{text}'",
                        table.name
                    ),
                    Span::default(),
                )
            }),
        None => options.idle_timeout(),
    }
}

/// A window over the result of a window aggregation needs that result to
/// be insert-only: it cannot take back a row it has windowed. With allowed
/// lateness (or early firing) the aggregation emits updates, so the plan is
/// rejected, as Flink rejects update streams there.
fn insert_only_input(
    input: &LogicalPlan,
    window: Span,
    options: &SessionOptions,
    what: &str,
) -> Result<()> {
    if !input.has_window_aggregate() {
        return Ok(());
    }
    let updating = [
        (
            "table.exec.emit.allow-lateness",
            options.allow_lateness()? > 0,
        ),
        ("tidemark.emit.early-fire", options.early_fire()?.is_some()),
    ];
    match updating.iter().find(|(_, on)| *on) {
        None => Ok(()),
        Some((key, _)) => Err(Error::plan(
            format!(
                "this {what} reads a window aggregation that emits updates ('{key}' is set), but a {what} needs insert-only input"
            ),
            window,
        )
        .with_hint(format!("RESET '{key}', or window the source table directly"))),
    }
}

/// The price of deterministic interleaving, stated at start (spec §8):
/// without an idle timeout, an input that may pause holds the watermark
/// of every other split or input it is read with until it sends again.
fn held_watermark_warnings(plan: &LogicalPlan, options: &SessionOptions) -> Result<Vec<String>> {
    let scans = plan.scans();
    let mut warnings = Vec::new();
    // A table option that cannot act is said so (spec §8: a read to the
    // end is never idle).
    for table in &scans {
        if table.option("scan.watermark.idle-timeout").is_some()
            && !tidemark_engine::splits_may_pause(table)
        {
            warnings.push(format!(
                "warning: table {}: 'scan.watermark.idle-timeout' changes nothing here: its splits are read to their end, and such a read is never idle",
                table.name
            ));
        }
    }
    let pausing: Vec<_> = scans
        .iter()
        .filter(|t| t.watermark.is_some() && tidemark_engine::splits_may_pause(t))
        .collect();
    let mut beside_others = Vec::new();
    for table in &pausing {
        if idle_timeout(table, options)? > 0 {
            continue;
        }
        if tidemark_engine::split_kind(table).is_some() {
            warnings.push(format!(
                "warning: table {} reads several splits that may pause, with no idle timeout: a quiet split holds the table's watermark, and every window behind it, until it sends again; set 'table.exec.source.idle-timeout' (or the table's 'scan.watermark.idle-timeout')",
                table.name
            ));
        } else if scans.len() > 1 {
            beside_others.push(table.name.as_str());
        }
    }
    let (what, verb) = match beside_others.as_slice() {
        [] => return Ok(warnings),
        [one] => (format!("table {one}"), "may"),
        [init @ .., last] => (format!("tables {} and {last}", init.join(", ")), "may each"),
    };
    warnings.push(format!(
        "warning: {what} {verb} pause, with no idle timeout: a quiet input holds the watermark of the query's other inputs, and every window behind it, until it sends again; set 'table.exec.source.idle-timeout' (or the table's 'scan.watermark.idle-timeout')"
    ));
    Ok(warnings)
}

/// The clock of a run: a replay's scripted clock, shared by every table
/// of the run, when it reads a replay; else the one the options choose.
fn run_clock(plan: &LogicalPlan, options: &SessionOptions) -> Result<Clock> {
    if !reads_replay(plan) {
        return clock(options);
    }
    if options.get("tidemark.clock").is_some_and(|c| c != "system") {
        return Err(Error::plan(
            "a query that reads a replay table runs on the replay's clock: 'tidemark.clock' cannot be set too",
            Span::default(),
        )
        .with_hint("RESET 'tidemark.clock'"));
    }
    Ok(Clock::Scripted(tidemark_engine::ScriptedTime::new()))
}

/// Whether `plan` reads a table of the replay connector.
fn reads_replay(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::Scan { table, .. } => table.option("connector") == Some("replay"),
        other => other.inputs().into_iter().any(reads_replay),
    }
}

/// `tidemark.state.ttl` for an OVER aggregation over `frame`: a RANGE
/// frame longer than the ttl would need rows the ttl lets go (spec §10).
fn over_ttl(
    frame: &tidemark_common::window::OverFrame,
    options: &SessionOptions,
) -> Result<Option<i64>> {
    let Some(ttl) = options.state_ttl()? else {
        return Ok(None);
    };
    if let (tidemark_common::window::FrameUnits::Range, Some(range)) =
        (frame.units, frame.preceding)
    {
        if range > ttl {
            return Err(Error::plan(
                format!(
                    "this OVER window's RANGE frame ({}) is longer than 'tidemark.state.ttl' ({}): a key's rows would expire while its frame still needs them",
                    tidemark_common::window::ms(range),
                    tidemark_common::window::ms(ttl)
                ),
                Span::default(),
            )
            .with_hint("make 'tidemark.state.ttl' at least as long as the frame"));
        }
    }
    Ok(Some(ttl))
}

/// The longest window of `plan` (a session's gap), if it has windows: a
/// held watermark behind the others by more than this stalls a window.
fn largest_window(plan: &LogicalPlan) -> Option<i64> {
    let own = match plan {
        LogicalPlan::WindowTvf { window, .. } | LogicalPlan::WindowAggregate { window, .. } => {
            Some(match window.kind {
                WindowKind::Tumble { size, .. } | WindowKind::Hop { size, .. } => size,
                WindowKind::Cumulate { max_size, .. } => max_size,
                WindowKind::Session { gap } => gap,
            })
        }
        _ => None,
    };
    plan.inputs()
        .into_iter()
        .filter_map(largest_window)
        .chain(own)
        .max()
}

/// The options an input's steps are built with, when a union or a window
/// join reads it: a window aggregation among them runs on one thread, as
/// the rows it fires must go out before the input's watermark moves the
/// union's on (spec §1), which a split aggregation's pool does not promise.
fn branch_options(options: &SessionOptions) -> SessionOptions {
    let mut one_thread = options.clone();
    one_thread.set("tidemark.parallel.split-by-key", "false");
    one_thread
}

/// Builds the chain bottom-up: returns the source and appends operators in
/// the order rows flow through them. `needed`: which of `plan`'s columns
/// the steps above read (a table's other columns are not decoded).
fn build(
    plan: &LogicalPlan,
    needed: &[bool],
    operators: &mut Vec<Box<dyn Operator>>,
    options: &SessionOptions,
    batch_size: usize,
    eval: EvalContext,
    clock: &Clock,
) -> Result<PipelineSource> {
    let inputs_need = columns::needed_by_inputs(plan, needed);
    // The chain of the node's one input, for a node that has one.
    let build_input = |operators: &mut Vec<Box<dyn Operator>>| -> Result<PipelineSource> {
        let input = plan
            .input()
            .ok_or_else(|| Error::Internal("a plan node without its input".into()))?;
        let input_needs = inputs_need.first().map_or(&[][..], Vec::as_slice);
        build(
            input,
            input_needs,
            operators,
            options,
            batch_size,
            eval,
            clock,
        )
    };
    match plan {
        LogicalPlan::Scan { table, .. } => {
            let connector = tidemark_engine::of_table(table).map(|c| c.declaration());
            if let Some(connector) = connector.filter(|c| !c.capabilities.read) {
                return Err(Error::plan(
                    format!(
                        "table '{}' cannot be read: connector '{}' only writes",
                        table.name, connector.name
                    ),
                    Span::default(),
                ));
            }
            let mut source = TableSource::open(
                Arc::clone(table),
                batch_size,
                ParallelRead {
                    threads: options.parallelism()?,
                    piece_bytes: options.piece_bytes()?,
                },
                eval,
                clock.clone(),
            )?;
            source.leave_unread(columns::unread_physical(table, needed));
            source.set_idleness(Idleness {
                timeout_ms: idle_timeout(table, options)?,
                // A run report records idle turns itself.
                trace: options.trace()?,
            });
            Ok(PipelineSource::Table(Box::new(source)))
        }
        LogicalPlan::OverAggregate {
            input,
            partition,
            time_column,
            frame,
            aggregates,
            schema,
        } => {
            let source = build_input(operators)?;
            let in_schema = input.schema();
            operators.push(Box::new(OverAggregate::new(OverSpec {
                partition: partition.clone(),
                key_types: partition
                    .iter()
                    .map(|k| in_schema.field(*k).ty.clone())
                    .collect(),
                time_column: *time_column,
                frame: *frame,
                aggregates: aggregates.clone(),
                output_schema: schema.to_arrow(),
                // An OVER aggregation traces an event per row it emits,
                // each cutting the output around it: only when the trace
                // is printed. A run report needs none of them (its late
                // rows come as late rows).
                trace: options.trace()?,
                ttl: over_ttl(frame, options)?,
            })?));
            Ok(source)
        }
        LogicalPlan::WindowRank {
            input,
            partition,
            order,
            window_end,
            funcs,
            latest_first,
            limit,
            schema,
        } => {
            insert_only_input(input, Span::default(), options, "window Top-N")?;
            let source = build_input(operators)?;
            let in_schema = input.schema();
            operators.push(Box::new(WindowRank::new(WindowRankSpec {
                partition: partition.clone(),
                partition_types: partition
                    .iter()
                    .map(|k| in_schema.field(*k).ty.clone())
                    .collect(),
                order: order
                    .iter()
                    .map(|key| {
                        let options = arrow::compute::SortOptions {
                            descending: key.descending,
                            nulls_first: key.nulls_first,
                        };
                        (key.column, options, in_schema.field(key.column).ty.clone())
                    })
                    .collect(),
                latest_first: *latest_first,
                window_end: *window_end,
                funcs: funcs.clone(),
                limit: *limit,
                output_schema: schema.to_arrow(),
            })?));
            Ok(source)
        }
        LogicalPlan::WindowJoin {
            left,
            right,
            kind,
            keys,
            null_equal,
            condition,
            window_ends,
            schema,
        } => {
            let mut branches = Vec::with_capacity(2);
            let in_branch = branch_options(options);
            for (side, side_needs) in [left, right].into_iter().zip(&inputs_need) {
                insert_only_input(side, Span::default(), options, "window join")?;
                let mut steps = Vec::new();
                match build(side, side_needs, &mut steps, &in_branch, batch_size, eval, clock)? {
                    PipelineSource::Table(table) => branches.push(Branch::new(*table, steps)),
                    PipelineSource::Union(_) => {
                        return Err(Error::plan(
                            "a window join whose input is itself a window join or a UNION ALL is not supported yet: each side must read one table",
                            Span::default(),
                        ))
                    }
                }
            }
            let side = |plan: &LogicalPlan, keys: Vec<usize>, window_end: usize| JoinSide {
                schema: plan.schema().to_arrow(),
                keys,
                window_start: plan
                    .windowed_rows()
                    .map_or(window_end.saturating_sub(1), |w| w.start),
                window_end,
            };
            operators.push(Box::new(WindowJoin::new(WindowJoinSpec {
                kind: *kind,
                key_types: keys
                    .iter()
                    .map(|(l, _)| left.schema().field(*l).ty.clone())
                    .collect(),
                null_equal: null_equal.clone(),
                condition: condition.clone().map(|c| (c, eval)),
                left: side(left, keys.iter().map(|(l, _)| *l).collect(), window_ends.0),
                right: side(right, keys.iter().map(|(_, r)| *r).collect(), window_ends.1),
                trace: options.trace_events()?,
                output_schema: schema.to_arrow(),
            })?));
            Ok(PipelineSource::Union(Box::new(UnionSource::tagged(
                branches,
            ))))
        }
        LogicalPlan::Union { inputs, .. } => {
            let mut branches = Vec::with_capacity(inputs.len());
            let in_branch = branch_options(options);
            for (input, input_needs) in inputs.iter().zip(&inputs_need) {
                insert_only_input(input, Span::default(), options, "UNION ALL")?;
                let mut steps = Vec::new();
                match build(input, input_needs, &mut steps, &in_branch, batch_size, eval, clock)? {
                    PipelineSource::Table(table) => branches.push(Branch::new(*table, steps)),
                    PipelineSource::Union(_) => {
                        return Err(Error::plan(
                            "a UNION ALL whose input is itself a window join, or a UNION ALL under a projection, is not supported yet: each input must read one table",
                            Span::default(),
                        ))
                    }
                }
            }
            Ok(PipelineSource::Union(Box::new(UnionSource::new(branches))))
        }
        LogicalPlan::Filter { input, predicate } => {
            let source = build_input(operators)?;
            operators.push(Box::new(Filter::new(
                predicate.clone(),
                eval,
                input.schema().fields.len(),
            )));
            Ok(source)
        }
        LogicalPlan::Expand { nulled, schema, .. } => {
            let source = build_input(operators)?;
            operators.push(Box::new(Expand::new(nulled.clone(), schema.to_arrow())));
            Ok(source)
        }
        LogicalPlan::Project {
            input,
            exprs,
            schema,
        } => {
            let source = build_input(operators)?;
            operators.push(Box::new(Project::new(
                exprs.clone(),
                schema.to_arrow(),
                eval,
                input.schema().fields.len(),
            )?));
            Ok(source)
        }
        LogicalPlan::WindowTvf {
            input,
            window,
            schema,
        } => {
            insert_only_input(input, window.span, options, "window")?;
            let source = build_input(operators)?;
            match window.kind {
                WindowKind::Tumble { .. }
                | WindowKind::Hop { .. }
                | WindowKind::Cumulate { .. } => operators.push(Box::new(WindowLabels::new(
                    window.kind,
                    window.time_column,
                    schema.to_arrow(),
                    window_zone(&input.schema().field(window.time_column).ty, eval),
                )?)),
                WindowKind::Session { gap } => {
                    let in_schema = input.schema();
                    operators.push(Box::new(SessionRows::new(
                        gap,
                        window.time_column,
                        window.partition.clone(),
                        window
                            .partition
                            .iter()
                            .map(|c| in_schema.field(*c).ty.clone())
                            .collect(),
                        schema.to_arrow(),
                        window_zone(&in_schema.field(window.time_column).ty, eval),
                        tracing(options)?,
                    )?))
                }
            }
            Ok(source)
        }
        LogicalPlan::WindowAggregate {
            input,
            window,
            keys,
            aggregates,
            schema,
        } => {
            insert_only_input(input, window.span, options, "window")?;
            if matches!(window.kind, WindowKind::Session { .. }) && options.early_fire()?.is_some()
            {
                return Err(Error::plan(
                    "early firing ('tidemark.emit.early-fire') does not apply to SESSION windows: a session's bounds are not known until it closes",
                    window.span,
                )
                .with_hint("RESET 'tidemark.emit.early-fire' for this query"));
            }
            if window.legacy {
                legacy_emit(window, options)?;
            }
            let source = build_input(operators)?;
            let in_schema = input.schema();
            if in_schema.field(window.time_column).proctime {
                operators.push(Box::new(ProcTimeWatermarks::new(window.time_column)));
            }
            let lateness = options.allow_lateness()?;
            let early_fire = options.early_fire()?;
            let spec = WindowAggregateSpec {
                kind: window.kind,
                time_column: window.time_column,
                key_columns: keys.clone(),
                key_types: keys
                    .iter()
                    .map(|k| in_schema.field(*k).ty.clone())
                    .collect(),
                aggregates: aggregates.clone(),
                lateness,
                output_schema: schema.to_arrow(),
                // Flink has no lateness on window TVFs: nothing to match.
                two_phase_sums: lateness == 0
                    && early_fire.is_none()
                    && two_phase_sums(aggregates, options),
                zone: window_zone(&in_schema.field(window.time_column).ty, eval),
                trace: tracing(options)?,
                early_fire,
                key_share: None,
                attached: window.attached.is_some(),
            };
            let threads = options.parallelism()?;
            match window.kind {
                WindowKind::Tumble { .. }
                | WindowKind::Hop { .. }
                | WindowKind::Cumulate { .. } => {
                    let split = options
                        .split_by_key()?
                        .unwrap_or_else(|| auto_split(threads));
                    if threads > 1 && split && partitionable(&spec).is_none() {
                        // Results of an input that may pause go out as
                        // they are made.
                        let bounded = !input.scans().iter().any(|t| tidemark_engine::may_pause(t));
                        operators.push(Box::new(PartitionedWindowAggregate::new(
                            spec, threads, bounded,
                        )?))
                    } else {
                        operators.push(Box::new(WindowAggregate::new(spec)?))
                    }
                }
                WindowKind::Session { .. } => {
                    operators.push(Box::new(SessionAggregate::new(spec)?))
                }
            }
            Ok(source)
        }
    }
}
