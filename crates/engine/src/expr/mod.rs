//! Bound expressions evaluated over whole Arrow batches ([`eval`]), with
//! CAST ([`cast`]), DECIMAL arithmetic ([`decimal`]) and the scalar
//! function library they call ([`functions`], its time functions in
//! [`temporal`], more string and numeric functions in
//! [`strings`] and [`math`]).

mod cast;
pub(crate) mod decimal;
pub mod eval;
pub mod functions;
mod math;
mod strings;
mod temporal;
