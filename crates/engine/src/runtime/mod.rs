//! What runs a query: the stream items operators pass ([`stream`]), the
//! pipeline that drives source, operators and sink ([`pipeline`]), what
//! readers hand sources ([`read`]), the
//! checkpoint encoding of their state ([`snapshot`]), and an ordered
//! thread pool ([`ordered_pool`]), and what a run report records
//! ([`observe`]).

pub mod observe;
pub mod ordered_pool;
pub mod pipeline;
pub mod read;
pub mod snapshot;
pub mod stream;
