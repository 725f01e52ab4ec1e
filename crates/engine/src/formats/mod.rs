//! How rows are written as text and read from it: the csv and json
//! formats that decode bytes for any connector carrying them ([`csv`],
//! [`json`]), Flink's print format of changelog rows ([`print`]), and the
//! caret picture under a data error ([`excerpt`]).

pub mod csv;
pub mod excerpt;
pub mod json;
pub mod print;
