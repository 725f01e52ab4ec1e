//! Types every layer of tidemark shares.
//!
//! - [`Error`] and [`Result`]: one error enum, split by who is at fault
//!   (the user's SQL, the data, the environment, or tidemark itself), with
//!   [`Span`]s that point into the SQL text.
//! - [`SqlType`], [`Field`] and [`Schema`]: the SQL-level view of a stream's
//!   columns, mapped onto Arrow types.
//! - [`SessionOptions`]: the `SET 'key' = 'value'` store and its typed readers;
//!   [`KNOWN_OPTIONS`] lists every key read.
//! - [`expr`]: bound scalar expressions and aggregate calls, shared by the
//!   front end that builds them and the engine that evaluates them.
//! - [`window`]: the closed enum of window kinds.
//! - [`catalog`]: declared tables; [`connector`]: what connectors and
//!   formats declare (options, capabilities).
//! - [`date_pattern`]: Java date patterns (java.time's and SimpleDateFormat's
//!   letters) compiled once and written as Flink writes them.
//! - [`time`]: instants, durations and the saturating arithmetic that event
//!   time needs.

pub mod catalog;
mod changelog;
mod config;
pub mod connector;
pub mod date_pattern;
mod error;
pub mod expr;
mod schema;
mod span;
pub mod time;
mod types;
pub mod window;

pub use changelog::RowKind;
pub use config::{
    is_known_option, parse_memory_size, show_bytes, CheckpointEvery, KnownOption, ResultMode,
    SessionOptions, CHECKPOINT_DIR, CHECKPOINT_INTERVAL, DEFAULT_PIECE_BYTES, IDLE_TIMEOUT,
    KNOWN_OPTIONS, RESULT_MODE, STATE_TTL,
};
pub use error::{Error, Result};
pub use schema::{Field, Schema};
pub use span::{Span, SpanRender};
pub use types::{SqlType, LTZ_ARROW_TZ};
