//! tidemark's execution engine: Arrow-batch operators on one shared
//! event-time service.
//!
//! - [`stream`]: what flows between operators — [`Chunk`]s of rows that
//!   carry their arrival watermarks, and watermark advances.
//! - [`time_service`]: the event-time service (watermark, timers, cutting
//!   chunks at timer crossings) every stateful operator uses.
//! - [`window_agg`]: window aggregation with per-slice state;
//!   [`partitioned`]: the same split by key over threads.
//! - [`stateless`]: projection, filter, window labelling.
//! - [`source`]: tables as streams (CSV or JSON-lines files), watermark
//!   assignment.
//! - [`union`]: several inputs interleaved by the lowest watermark.
//! - [`window_join`]: window joins on the shared event-time service.
//! - [`format`]: Flink's print format of changelog rows.
//! - [`pipeline`]: a runnable chain and its run summary.

pub mod accumulators;
pub mod clock;
mod csv_source;
mod datagen;
pub mod emit;
mod emitted;
pub mod eval;
mod excerpt;
pub mod file_sink;
pub mod format;
mod functions;
mod json_source;
pub mod merging;
mod nexmark;
pub mod operator;
mod ordered_pool;
pub mod parallel_file;
pub mod partitioned;
pub mod pg_sink;
mod pipe_reader;
pub mod pipeline;
pub mod session_agg;
pub mod session_rows;
pub mod sink;
pub mod slicing;
pub mod snapshot;
pub mod source;
pub mod stateless;
pub mod stream;
pub mod time_service;
pub mod trace;
pub mod union;
pub mod window_agg;
mod window_buffer;
pub mod window_join;
pub mod window_rank;

pub use eval::EvalContext;
pub use operator::{Operator, OperatorMetrics};
pub use pipeline::{Pipeline, PipelineSource, Progress, RunOutput, RunSummary};
pub use stream::{Chunk, LateRows, SideItem, StreamItem};
