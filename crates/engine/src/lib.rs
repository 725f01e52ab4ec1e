//! tidemark's execution engine: Arrow-batch operators on one shared
//! event-time core, and the connectors that feed and drain them.
//!
//! - `time`: the event-time core — an operator's watermark and timers
//!   ([`EventTime`], [`TimerHandler`]), window slicing, merging windows,
//!   the injectable [`Clock`] and the trace ([`TraceLine`]).
//! - `ops`: the operators ([`Operator`]): window aggregation
//!   ([`WindowAggregate`], split by key in [`PartitionedWindowAggregate`]),
//!   session aggregation and SESSION rows, window Top-N, window join,
//!   UNION ALL and the stateless steps.
//! - `expr`: expressions over whole batches ([`EvalContext`]).
//! - `runtime`: the [`Pipeline`] that runs a query and its
//!   [`RunSummary`]; the [`StreamItem`]s operators pass; checkpoint state
//!   encoding ([`snapshot`]).
//! - `connectors`: tables read ([`TableSource`]) and written
//!   ([`TableSink`]); `formats`: csv, json and Flink's print format
//!   ([`write_changelog`], [`Changelog`]).

mod connectors;
mod expr;
mod formats;
mod ops;
mod runtime;
mod time;

pub use connectors::filesystem::parallel::ParallelRead;
pub use connectors::sink::{
    epoch_committed, is_transactional, open_sink, BadLayout, Epoch, LateLayout, StagedRename,
    TableSink,
};
pub use connectors::sink::{PrintLines, SinkWriter};
pub use connectors::source::{Idleness, TableSource};
pub use connectors::split::{Split, SplitReader};
pub use connectors::{
    connector, declarations, may_pause, of_table, register, split_kind, splits_may_pause,
    undecoded, Connector, OpenedSource, SourceSpec, CONNECTORS,
};
pub use expr::eval::EvalContext;
pub use formats::print::{format_value, write_changelog, Changelog};
pub use ops::accumulators::{new_accumulator, new_over_accumulator, Accumulator};
pub use ops::emit::{key_converter, ChunkRows};
pub use ops::keys::KeyIds;
pub use ops::operator::{held_bytes, HeldBytes, Operator, OperatorMetrics, StateSize};
pub use ops::partitioned::{
    auto_split, cores_to_split, partitionable, why_not_split, PartitionedWindowAggregate,
};
pub use ops::session_agg::SessionAggregate;
pub use ops::session_rows::SessionRows;
pub use ops::stateless::{Expand, Filter, ProcTimeWatermarks, Project, WindowLabels};
#[cfg(any(test, feature = "testing"))]
pub use ops::testing;
pub use ops::union::{Branch, UnionSource};
pub use ops::window_agg::{WindowAggregate, WindowAggregateSpec};
pub use ops::window_join::{JoinSide, WindowJoin, WindowJoinSpec};
pub use ops::window_rank::{WindowRank, WindowRankSpec};
pub use runtime::observe;
pub use runtime::pipeline::{Pipeline, PipelineSource, Progress, RunOutput, RunSummary};
pub use runtime::read::{ReadBatch, ReadStats};
pub use runtime::snapshot;
pub use runtime::stream::{AcceptedRow, BadRows, Chunk, LateRows, SideItem, StreamItem};
pub use time::align::HeldWatermark;
pub use time::clock::{Clock, ScriptedTime};
pub use time::late::LateBook;
pub use time::service::{EventTime, TimerHandler};
pub use time::trace::{instant, TraceEvent, TraceFacts, TraceLine, TraceRecord, Tracing};
