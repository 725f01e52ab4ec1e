//! Bound expressions evaluated over whole Arrow batches ([`eval`]), with
//! CAST ([`cast`]), DECIMAL arithmetic ([`decimal`]) and the scalar
//! function library they call ([`functions`], its time functions in
//! [`temporal`], more string functions in [`strings`]).

mod cast;
pub(crate) mod decimal;
pub mod eval;
pub mod functions;
mod strings;
mod temporal;
