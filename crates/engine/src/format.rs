//! Placeholder print format, replaced by the full Flink print format.
use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::*;
use tidemark_common::{Result, RowKind, SqlType};

pub fn format_value(array: &dyn Array, ty: &SqlType, row: usize, tz: chrono_tz::Tz, out: &mut String) -> Result<()> {
    let _ = tz;
    if array.is_null(row) {
        out.push_str("<NULL>");
        return Ok(());
    }
    match ty {
        SqlType::Int => out.push_str(&array.as_primitive::<Int32Type>().value(row).to_string()),
        SqlType::BigInt => out.push_str(&array.as_primitive::<Int64Type>().value(row).to_string()),
        SqlType::Double => out.push_str(&array.as_primitive::<Float64Type>().value(row).to_string()),
        SqlType::String => out.push_str(array.as_string::<i32>().value(row)),
        SqlType::Boolean => out.push_str(if array.as_boolean().value(row) { "TRUE" } else { "FALSE" }),
        SqlType::Decimal(_, _) => out.push_str(&array.as_primitive::<Decimal128Type>().value_as_string(row)),
        SqlType::Timestamp(_) | SqlType::TimestampLtz(_) => {
            let v = array.as_primitive::<TimestampMillisecondType>().value(row);
            let dt = chrono::DateTime::from_timestamp_millis(v).map(|d| d.naive_utc());
            out.push_str(&dt.map(|d| d.format("%Y-%m-%d %H:%M:%S%.3f").to_string()).unwrap_or_default())
        }
        SqlType::Null => out.push_str("<NULL>"),
    }
    Ok(())
}

pub fn write_changelog(batch: &RecordBatch, types: &[SqlType], kinds: &[RowKind], tz: chrono_tz::Tz, out: &mut String) -> Result<()> {
    for row in 0..batch.num_rows() {
        out.push_str(kinds[row].short());
        out.push('[');
        for (c, ty) in types.iter().enumerate() {
            if c > 0 {
                out.push_str(", ");
            }
            format_value(batch.column(c).as_ref(), ty, row, tz, out)?;
        }
        out.push_str("]\n");
    }
    Ok(())
}
