//! Bound expressions evaluated over whole Arrow batches ([`eval`]) and the
//! scalar function library they call ([`functions`]).

pub mod eval;
pub mod functions;
