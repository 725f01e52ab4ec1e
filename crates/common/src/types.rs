//! SQL types and their Arrow representation.
//!
//! tidemark keeps Flink's type names and result-type rules at the SQL level
//! and stores values in the Arrow type listed on [`SqlType::to_arrow`].

use arrow::datatypes::{DataType, TimeUnit};
use std::fmt;

/// The time zone tag of a `TIMESTAMP_LTZ` column in Arrow: instants are
/// UTC epoch milliseconds; the session zone applies only when shown.
pub const LTZ_ARROW_TZ: &str = "UTC";

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SqlType {
    Boolean,
    /// `TINYINT`: 1 byte, wrapping on overflow as Java's `byte`.
    TinyInt,
    /// `SMALLINT`: 2 bytes, wrapping on overflow as Java's `short`.
    SmallInt,
    Int,
    BigInt,
    /// `FLOAT` (also `REAL`): Flink's 4-byte floating point.
    Float,
    Double,
    Decimal(u8, i8),
    String,
    /// `TIMESTAMP(p)`: a wall-clock time without zone, p ≤ 3, kept at
    /// millisecond precision.
    Timestamp(u8),
    /// `TIMESTAMP_LTZ(p)`: an instant, shown in the session time zone.
    TimestampLtz(u8),
    /// `DATE`: a day without zone, days since 1970-01-01.
    Date,
    /// `TIME(p)`: a time of day without zone; p ≤ 3 is kept at millisecond
    /// precision, and digits past p are cut.
    Time(u8),
    /// The type of an untyped `NULL` literal before it is coerced.
    Null,
}

impl SqlType {
    pub fn to_arrow(&self) -> DataType {
        match self {
            SqlType::Boolean => DataType::Boolean,
            SqlType::TinyInt => DataType::Int8,
            SqlType::SmallInt => DataType::Int16,
            SqlType::Int => DataType::Int32,
            SqlType::BigInt => DataType::Int64,
            SqlType::Float => DataType::Float32,
            SqlType::Double => DataType::Float64,
            SqlType::Decimal(p, s) => DataType::Decimal128(*p, *s),
            SqlType::String => DataType::Utf8,
            SqlType::Timestamp(_) => DataType::Timestamp(TimeUnit::Millisecond, None),
            SqlType::TimestampLtz(_) => {
                DataType::Timestamp(TimeUnit::Millisecond, Some(LTZ_ARROW_TZ.into()))
            }
            SqlType::Date => DataType::Date32,
            SqlType::Time(_) => DataType::Time32(TimeUnit::Millisecond),
            SqlType::Null => DataType::Null,
        }
    }

    pub fn is_numeric(&self) -> bool {
        matches!(
            self,
            SqlType::TinyInt
                | SqlType::SmallInt
                | SqlType::Int
                | SqlType::BigInt
                | SqlType::Float
                | SqlType::Double
                | SqlType::Decimal(..)
        )
    }

    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            SqlType::TinyInt | SqlType::SmallInt | SqlType::Int | SqlType::BigInt
        )
    }

    /// FLOAT or DOUBLE.
    pub fn is_approximate(&self) -> bool {
        matches!(self, SqlType::Float | SqlType::Double)
    }

    pub fn is_timestamp(&self) -> bool {
        matches!(self, SqlType::Timestamp(_) | SqlType::TimestampLtz(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, SqlType::String)
    }

    /// Precision and scale of an exact numeric type, as Flink assigns them
    /// to integers when they meet a DECIMAL.
    pub fn decimal_precision_scale(&self) -> Option<(u8, i8)> {
        match self {
            SqlType::TinyInt => Some((3, 0)),
            SqlType::SmallInt => Some((5, 0)),
            SqlType::Int => Some((10, 0)),
            SqlType::BigInt => Some((19, 0)),
            SqlType::Decimal(p, s) => Some((*p, *s)),
            _ => None,
        }
    }
}

impl fmt::Display for SqlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SqlType::Boolean => f.write_str("BOOLEAN"),
            SqlType::TinyInt => f.write_str("TINYINT"),
            SqlType::SmallInt => f.write_str("SMALLINT"),
            SqlType::Int => f.write_str("INT"),
            SqlType::BigInt => f.write_str("BIGINT"),
            SqlType::Float => f.write_str("FLOAT"),
            SqlType::Double => f.write_str("DOUBLE"),
            SqlType::Decimal(p, s) => write!(f, "DECIMAL({p}, {s})"),
            SqlType::String => f.write_str("STRING"),
            SqlType::Timestamp(p) => write!(f, "TIMESTAMP({p})"),
            SqlType::TimestampLtz(p) => write!(f, "TIMESTAMP_LTZ({p})"),
            SqlType::Date => f.write_str("DATE"),
            SqlType::Time(p) => write!(f, "TIME({p})"),
            SqlType::Null => f.write_str("NULL"),
        }
    }
}
