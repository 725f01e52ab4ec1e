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
    Int,
    BigInt,
    Double,
    Decimal(u8, i8),
    String,
    /// `TIMESTAMP(p)`: a wall-clock time without zone; p ≤ 3 is kept at
    /// millisecond precision.
    Timestamp(u8),
    /// `TIMESTAMP_LTZ(p)`: an instant, shown in the session time zone.
    TimestampLtz(u8),
    /// The type of an untyped `NULL` literal before it is coerced.
    Null,
}

impl SqlType {
    pub fn to_arrow(&self) -> DataType {
        match self {
            SqlType::Boolean => DataType::Boolean,
            SqlType::Int => DataType::Int32,
            SqlType::BigInt => DataType::Int64,
            SqlType::Double => DataType::Float64,
            SqlType::Decimal(p, s) => DataType::Decimal128(*p, *s),
            SqlType::String => DataType::Utf8,
            SqlType::Timestamp(_) => DataType::Timestamp(TimeUnit::Millisecond, None),
            SqlType::TimestampLtz(_) => {
                DataType::Timestamp(TimeUnit::Millisecond, Some(LTZ_ARROW_TZ.into()))
            }
            SqlType::Null => DataType::Null,
        }
    }

    pub fn is_numeric(&self) -> bool {
        matches!(
            self,
            SqlType::Int | SqlType::BigInt | SqlType::Double | SqlType::Decimal(..)
        )
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, SqlType::Int | SqlType::BigInt)
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
            SqlType::Int => f.write_str("INT"),
            SqlType::BigInt => f.write_str("BIGINT"),
            SqlType::Double => f.write_str("DOUBLE"),
            SqlType::Decimal(p, s) => write!(f, "DECIMAL({p}, {s})"),
            SqlType::String => f.write_str("STRING"),
            SqlType::Timestamp(p) => write!(f, "TIMESTAMP({p})"),
            SqlType::TimestampLtz(p) => write!(f, "TIMESTAMP_LTZ({p})"),
            SqlType::Null => f.write_str("NULL"),
        }
    }
}
