//! The event-time core every stateful operator shares: the watermark and
//! timers of an operator ([`service`]), how aligned windows cut time into
//! slices ([`slicing`]), how merging windows join ([`merging`]), the
//! injectable clock for processing time ([`clock`]), and the trace of what
//! happened when ([`trace`]).

pub mod clock;
pub mod merging;
pub mod service;
pub mod slicing;
pub mod trace;
