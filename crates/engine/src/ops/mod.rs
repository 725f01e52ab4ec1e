//! The operators of a pipeline: the [`operator::Operator`] interface, the
//! windowed skeleton they share ([`emit`]), how they number group keys
//! ([`keys`]), their aggregate state ([`accumulators`]), and one module per
//! operator.

pub mod accumulators;
pub mod emit;
pub mod emitted;
pub(crate) mod keys;
pub mod operator;
pub mod partitioned;
pub mod session_agg;
pub mod session_rows;
pub mod stateless;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod union;
pub mod window_agg;
pub mod window_buffer;
pub mod window_join;
pub mod window_rank;
