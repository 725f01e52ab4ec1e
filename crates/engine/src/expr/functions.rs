//! The scalar function library: string, numeric and time functions with
//! Flink's semantics, evaluated over whole Arrow arrays.
//!
//! [`crate::expr::eval`] owns operators and CASE ([`crate::expr::cast`]
//! CAST) and hands every function call to [`evaluate_function`], the one
//! place a function is dispatched; the time functions are
//! [`crate::expr::temporal`], the newer string functions
//! [`crate::expr::strings`] and numeric ones [`crate::expr::math`]. Arguments arrive as arrays; where an argument
//! is a literal in the plan (a regex, a substring position) its bound
//! expression is read too, so that constant work happens once per batch
//! and arrow's kernels can be used.

use crate::expr::{math, strings, temporal};
use arrow::array::{Array, ArrayRef, AsArray, Int32Array, StringArray, StringBuilder};
use arrow::compute::cast;
use arrow::compute::kernels::concat_elements::concat_elements_utf8_many;
use arrow::compute::kernels::substring::substring_by_char;
use arrow::datatypes::{DataType, Decimal128Type, Float64Type, Int32Type, Int64Type};
use datafusion_common::ScalarValue;
use std::sync::Arc;
use tidemark_common::date_pattern::{java_to_chrono_pattern, DatePattern, Dialect};
use tidemark_common::expr::{Expr, ScalarFunction};
use tidemark_common::{Error, Result, SqlType};

/// Evaluates a call of `func` over its argument arrays (`values`, one per
/// bound argument in `args`). `time_zone` is the session zone that
/// UNIX_TIMESTAMP reads wall-clock text in.
pub(crate) fn evaluate_function(
    func: ScalarFunction,
    args: &[Expr],
    values: &[ArrayRef],
    ty: &SqlType,
    time_zone: chrono_tz::Tz,
) -> Result<ArrayRef> {
    if let Some(result) = on_wider_number(func, args, values, ty, time_zone)? {
        return Ok(result);
    }
    let string = |i: usize| values[i].as_string::<i32>();
    Ok(match func {
        ScalarFunction::Upper | ScalarFunction::Lower => {
            let s = string(0);
            let upper = func == ScalarFunction::Upper;
            Arc::new(
                s.iter()
                    .map(|v| {
                        v.map(|v| {
                            if upper {
                                v.to_uppercase()
                            } else {
                                v.to_lowercase()
                            }
                        })
                    })
                    .collect::<StringArray>(),
            )
        }
        ScalarFunction::CharLength => {
            let s = string(0);
            Arc::new(
                s.iter()
                    .map(|v| v.map(|v| v.chars().count() as i32))
                    .collect::<Int32Array>(),
            )
        }
        ScalarFunction::Abs => abs(&values[0])?,
        ScalarFunction::ProcTime => {
            return Err(Error::Internal(
                "PROCTIME() is filled in by the source".into(),
            ))
        }
        ScalarFunction::CurrentWatermark => {
            return Err(Error::Internal(
                "CURRENT_WATERMARK() is read from the column its operator adds".into(),
            ))
        }
        ScalarFunction::ToTimestamp => temporal::to_timestamp(string(0), string(1)),
        ScalarFunction::ToTimestampLtz { millis } => temporal::to_timestamp_ltz(&values[0], millis),
        ScalarFunction::Substring => substring(args, values)?,
        ScalarFunction::Concat => {
            let parts: Vec<&StringArray> = (0..values.len()).map(string).collect();
            Arc::new(concat_elements_utf8_many(&parts)?)
        }
        ScalarFunction::ConcatWs => concat_ws(values),
        ScalarFunction::Trim { leading, trailing } => {
            let (s, chars) = (string(0), string(1));
            let out: StringArray = s
                .iter()
                .zip(chars.iter())
                .map(|(s, chars)| {
                    let (s, chars) = (s?, chars?);
                    let strip = |c: char| chars.contains(c);
                    let s = if leading {
                        s.trim_start_matches(strip)
                    } else {
                        s
                    };
                    Some(if trailing {
                        s.trim_end_matches(strip)
                    } else {
                        s
                    })
                })
                .collect();
            Arc::new(out)
        }
        ScalarFunction::Replace => {
            let out: StringArray = string(0)
                .iter()
                .zip(string(1).iter())
                .zip(string(2).iter())
                .map(|((s, from), to)| Some(s?.replace(from?, to?)))
                .collect();
            Arc::new(out)
        }
        ScalarFunction::RegexpExtract => regexp_extract(values)?,
        ScalarFunction::Like { escape } => like(values, escape)?,
        ScalarFunction::SplitIndex => {
            let index = values[2].as_primitive::<Int32Type>();
            let out: StringArray = (0..values[0].len())
                .map(|i| {
                    if string(0).is_null(i) || string(1).is_null(i) || index.is_null(i) {
                        return None;
                    }
                    split_index(string(0).value(i), string(1).value(i), index.value(i))
                })
                .collect();
            Arc::new(out)
        }
        ScalarFunction::Round { digits } => round(&values[0], digits, ty)?,
        ScalarFunction::Power => Arc::new(arrow::compute::binary::<_, _, _, Float64Type>(
            values[0].as_primitive::<Float64Type>(),
            values[1].as_primitive::<Float64Type>(),
            f64::powf,
        )?),
        ScalarFunction::Extract(unit) => temporal::extract(&values[0], unit)?,
        ScalarFunction::FloorTime(unit) => temporal::truncate_time(&values[0], unit, false),
        ScalarFunction::CeilTime(unit) => temporal::truncate_time(&values[0], unit, true),
        // Flink writes a STRING argument with SimpleDateFormat.
        ScalarFunction::DateFormat if values[0].data_type() == &DataType::Utf8 => {
            temporal::date_format_text(string(0), &date_pattern(&args[1], Dialect::Simple)?)
        }
        ScalarFunction::DateFormat => {
            temporal::date_format(&values[0], &date_pattern(&args[1], Dialect::JavaTime)?)
        }
        ScalarFunction::TimestampDiff(unit) => {
            temporal::timestamp_diff(unit, &values[0], &values[1])?
        }
        ScalarFunction::TimestampAddUnit(unit) => {
            temporal::timestamp_add(unit, &values[0], &values[1])?
        }
        ScalarFunction::Locate => strings::locate(values),
        ScalarFunction::InitCap => strings::initcap(&values[0]),
        ScalarFunction::Lpad => strings::pad(values, true)?,
        ScalarFunction::Rpad => strings::pad(values, false)?,
        ScalarFunction::Repeat => strings::repeat(values)?,
        ScalarFunction::Reverse => strings::reverse(&values[0]),
        ScalarFunction::Regexp => strings::regexp(values),
        ScalarFunction::RegexpReplace => strings::regexp_replace(values)?,
        ScalarFunction::Left => strings::left_right(values, true),
        ScalarFunction::Right => strings::left_right(values, false),
        ScalarFunction::Ascii => strings::ascii(&values[0]),
        ScalarFunction::Chr => strings::chr(&values[0]),
        ScalarFunction::Overlay => strings::overlay(values),
        ScalarFunction::Translate => strings::translate(values),
        ScalarFunction::Ln => math::unary_double(&values[0], f64::ln),
        ScalarFunction::Log => math::log_base(&values[0], &values[1])?,
        ScalarFunction::Log10 => math::unary_double(&values[0], f64::log10),
        ScalarFunction::Log2 => math::unary_double(&values[0], |x| x.ln() / std::f64::consts::LN_2),
        ScalarFunction::Exp => math::unary_double(&values[0], f64::exp),
        // Flink computes SQRT(x) as POWER(x, 0.5): SQRT(-0.0) is 0.0.
        ScalarFunction::Sqrt => math::unary_double(&values[0], |x| x.powf(0.5)),
        ScalarFunction::Sign => math::sign(&values[0])?,
        ScalarFunction::Truncate { digits } => math::truncate(&values[0], digits, &ty.to_arrow())?,
        ScalarFunction::CeilNumber => math::ceil_floor(&values[0], true, &ty.to_arrow())?,
        ScalarFunction::FloorNumber => math::ceil_floor(&values[0], false, &ty.to_arrow())?,
        ScalarFunction::Bin => math::integer_digits(&values[0], false),
        ScalarFunction::Hex if values[0].data_type() == &DataType::Utf8 => {
            math::string_hex(&values[0])
        }
        ScalarFunction::Hex => math::integer_digits(&values[0], true),
        ScalarFunction::FromUnixtime => temporal::from_unixtime(
            &values[0],
            &date_pattern(&args[1], Dialect::Simple)?,
            time_zone,
        ),
        ScalarFunction::Greatest => math::greatest_least(values, true)?,
        ScalarFunction::Least => math::greatest_least(values, false)?,
        ScalarFunction::UnixTimestamp => {
            temporal::unix_timestamp(string(0), &chrono_format(&args[1])?, time_zone)
        }
    })
}

/// ABS; the most negative integer stays as it is (it wraps, as Java's
/// `Math.abs`).
/// The numeric functions that keep their argument's type (ABS, SIGN,
/// ROUND, TRUNCATE, FLOOR, CEIL), for TINYINT, SMALLINT and FLOAT: computed
/// on the value widened to INT or DOUBLE, and narrowed back (a TINYINT's
/// ABS(-128) wraps to -128, as Java's byte does). None for other calls.
fn on_wider_number(
    func: ScalarFunction,
    args: &[Expr],
    values: &[ArrayRef],
    ty: &SqlType,
    time_zone: chrono_tz::Tz,
) -> Result<Option<ArrayRef>> {
    let keeps_type = matches!(
        func,
        ScalarFunction::Abs
            | ScalarFunction::Sign
            | ScalarFunction::Round { .. }
            | ScalarFunction::Truncate { .. }
            | ScalarFunction::CeilNumber
            | ScalarFunction::FloorNumber
    );
    let wide = match ty {
        SqlType::TinyInt | SqlType::SmallInt => SqlType::Int,
        SqlType::Float => SqlType::Double,
        _ => return Ok(None),
    };
    let Some(v) = values.first().filter(|_| keeps_type && values.len() == 1) else {
        return Ok(None);
    };
    let widened = arrow::compute::cast(v, &wide.to_arrow())?;
    let out = evaluate_function(func, args, &[widened], &wide, time_zone)?;
    let options = arrow::compute::CastOptions {
        safe: true,
        ..Default::default()
    };
    let narrowed = match ty {
        // Wrap as Java's (byte) and (short) do.
        SqlType::TinyInt => Arc::new(
            out.as_primitive::<Int32Type>()
                .unary::<_, arrow::datatypes::Int8Type>(|x| x as i8),
        ) as ArrayRef,
        SqlType::SmallInt => Arc::new(
            out.as_primitive::<Int32Type>()
                .unary::<_, arrow::datatypes::Int16Type>(|x| x as i16),
        ),
        // Flink rounds a FLOAT through BigDecimal, which has no -0.0.
        _ if matches!(func, ScalarFunction::Round { .. }) => {
            let f = arrow::compute::cast_with_options(&out, &ty.to_arrow(), &options)?;
            Arc::new(
                f.as_primitive::<arrow::datatypes::Float32Type>()
                    .unary::<_, arrow::datatypes::Float32Type>(|x| x + 0.0),
            )
        }
        _ => arrow::compute::cast_with_options(&out, &ty.to_arrow(), &options)?,
    };
    Ok(Some(narrowed))
}

fn abs(v: &ArrayRef) -> Result<ArrayRef> {
    Ok(match v.data_type() {
        DataType::Int32 => Arc::new(
            v.as_primitive::<Int32Type>()
                .unary::<_, Int32Type>(|v| v.wrapping_abs()),
        ),
        DataType::Int64 => Arc::new(
            v.as_primitive::<Int64Type>()
                .unary::<_, Int64Type>(|v| v.wrapping_abs()),
        ),
        DataType::Float64 => Arc::new(
            v.as_primitive::<Float64Type>()
                .unary::<_, Float64Type>(f64::abs),
        ),
        DataType::Decimal128(p, s) => Arc::new(
            v.as_primitive::<Decimal128Type>()
                .unary::<_, Decimal128Type>(|v| v.wrapping_abs())
                .with_precision_and_scale(*p, *s)?,
        ),
        other => return Err(Error::Internal(format!("ABS over {other}"))),
    })
}

/// The text of a string literal argument.
fn literal_text(e: &Expr) -> Result<&str> {
    match e {
        Expr::Literal {
            value: ScalarValue::Utf8(Some(s)),
            ..
        } => Ok(s),
        other => Err(Error::Internal(format!(
            "expected a format literal, got {other}"
        ))),
    }
}

/// The chrono format of a Java date pattern literal (the binder checked
/// that it translates).
/// The literal pattern of a call, compiled once for the batch (the front
/// end checked it).
fn date_pattern(e: &Expr, dialect: Dialect) -> Result<DatePattern> {
    let pattern = literal_text(e)?;
    DatePattern::compile(pattern, dialect)
        .map_err(|e| Error::Internal(format!("date pattern '{pattern}' was not checked: {e}")))
}

fn chrono_format(e: &Expr) -> Result<String> {
    let pattern = literal_text(e)?;
    java_to_chrono_pattern(pattern)
        .map_err(|e| Error::Internal(format!("date pattern '{pattern}' was not checked: {e}")))
}

/// Flink's SUBSTRING on characters: position 0 reads as 1, a negative
/// position counts from the end, a start past the end gives '' and a
/// negative length NULL.
fn flink_substring(s: &str, pos: i64, len: Option<i64>) -> Option<String> {
    if len.is_some_and(|l| l < 0) {
        return None;
    }
    let chars = s.chars().count() as i64;
    let start = match pos {
        p if p > 0 => p - 1,
        0 => 0,
        p => chars + p,
    };
    if start < 0 || start >= chars {
        return Some(String::new());
    }
    let take = len.unwrap_or(i64::MAX).min(chars - start);
    Some(s.chars().skip(start as usize).take(take as usize).collect())
}

fn substring(args: &[Expr], values: &[ArrayRef]) -> Result<ArrayRef> {
    let s = values[0].as_string::<i32>();
    let pos = args[1].int_literal();
    let len = args.get(2).map(Expr::int_literal);
    // A constant positive start and a constant length (or none) is arrow's
    // substring_by_char exactly.
    if let (Some(p), None | Some(Some(0..))) = (pos, len) {
        if p > 0 {
            let len = len.flatten().map(|l| l as u64);
            return Ok(Arc::new(substring_by_char(s, p - 1, len)?));
        }
    }
    let as_i64 = |v: &ArrayRef| cast(v, &DataType::Int64);
    let pos = as_i64(&values[1])?;
    let pos = pos.as_primitive::<Int64Type>();
    let len = values.get(2).map(as_i64).transpose()?;
    let len = len.as_ref().map(|l| l.as_primitive::<Int64Type>());
    let out: StringArray = (0..s.len())
        .map(|i| {
            if s.is_null(i) || pos.is_null(i) || len.is_some_and(|l| l.is_null(i)) {
                return None;
            }
            flink_substring(s.value(i), pos.value(i), len.map(|l| l.value(i)))
        })
        .collect();
    Ok(Arc::new(out))
}

fn concat_ws(values: &[ArrayRef]) -> ArrayRef {
    let sep = values[0].as_string::<i32>();
    let parts: Vec<&StringArray> = values[1..].iter().map(|v| v.as_string::<i32>()).collect();
    let mut out = StringBuilder::with_capacity(sep.len(), sep.len() * 16);
    let mut buf = String::new();
    for i in 0..sep.len() {
        if sep.is_null(i) {
            out.append_null();
            continue;
        }
        buf.clear();
        let mut first = true;
        for p in parts.iter().filter(|p| p.is_valid(i)) {
            if !first {
                buf.push_str(sep.value(i));
            }
            buf.push_str(p.value(i));
            first = false;
        }
        out.append_value(&buf);
    }
    Arc::new(out.finish())
}

/// Flink's REGEXP_EXTRACT: the group of the first match; NULL when nothing
/// matches or the group does not exist or took no part in the match.
/// `s LIKE pattern`: each distinct pattern (usually the one literal) is
/// made a regex once and matched against the whole string.
fn like(values: &[ArrayRef], escape: Option<char>) -> Result<ArrayRef> {
    let s = values[0].as_string::<i32>();
    let pattern = values[1].as_string::<i32>();
    let mut compiled: Option<(String, regex::Regex)> = None;
    let mut out = arrow::array::BooleanBuilder::with_capacity(s.len());
    for i in 0..s.len() {
        if s.is_null(i) || pattern.is_null(i) {
            out.append_null();
            continue;
        }
        let p = pattern.value(i);
        if compiled.as_ref().is_none_or(|(text, _)| text != p) {
            let re = regex::Regex::new(&like_regex(p, escape)?)
                .map_err(|e| Error::Execution(format!("LIKE pattern '{p}': {e}")))?;
            compiled = Some((p.to_string(), re));
        }
        let Some((_, re)) = &compiled else {
            return Err(Error::Internal("pattern compiled above".into()));
        };
        out.append_value(re.is_match(s.value(i)));
    }
    Ok(Arc::new(out.finish()))
}

/// A LIKE pattern as an anchored regex: `%` any characters, line breaks
/// too; `_` any one; every other character itself. After the escape
/// character, `%`, `_` and the escape character stand for themselves;
/// anything else after it is an error, as in Flink.
fn like_regex(pattern: &str, escape: Option<char>) -> Result<String> {
    let mut out = String::from("(?s)^");
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if Some(c) == escape {
            match chars.next() {
                Some(next) if next == '%' || next == '_' || Some(next) == escape => {
                    out.push_str(&regex::escape(&next.to_string()));
                }
                _ => {
                    return Err(Error::Execution(format!(
                        "LIKE pattern '{pattern}': the escape character must be followed by '%', '_' or itself"
                    )))
                }
            }
            continue;
        }
        match c {
            '%' => out.push_str(".*"),
            '_' => out.push('.'),
            c => out.push_str(&regex::escape(&c.to_string())),
        }
    }
    out.push('$');
    Ok(out)
}

fn regexp_extract(values: &[ArrayRef]) -> Result<ArrayRef> {
    let s = values[0].as_string::<i32>();
    let pattern = values[1].as_string::<i32>();
    let group = values[2].as_primitive::<Int32Type>();
    // A literal pattern is the same on every row: compile it once.
    let mut compiled: Option<(String, regex::Regex)> = None;
    let mut out = StringBuilder::with_capacity(s.len(), s.len() * 8);
    for i in 0..s.len() {
        if s.is_null(i) || pattern.is_null(i) || group.is_null(i) {
            out.append_null();
            continue;
        }
        let p = pattern.value(i);
        if compiled.as_ref().is_none_or(|(text, _)| text != p) {
            let re = regex::Regex::new(p).map_err(|e| {
                let text = e.to_string();
                let reason = text.lines().last().unwrap_or_default();
                let reason = reason.strip_prefix("error: ").unwrap_or(reason);
                Error::Execution(format!("REGEXP_EXTRACT: invalid regex '{p}': {reason}"))
            })?;
            compiled = Some((p.to_string(), re));
        }
        let Some((_, re)) = &compiled else {
            return Err(Error::Internal("regex compiled above".into()));
        };
        let found = usize::try_from(group.value(i))
            .ok()
            .and_then(|g| re.captures(s.value(i))?.get(g));
        match found {
            Some(m) => out.append_value(m.as_str()),
            None => out.append_null(),
        }
    }
    Ok(Arc::new(out.finish()))
}

/// Flink's SPLIT_INDEX (commons-lang's splitByWholeSeparatorPreserveAllTokens):
/// empty text has no pieces, an empty separator splits on whitespace.
fn split_index<'a>(s: &'a str, sep: &str, index: i32) -> Option<&'a str> {
    let index = usize::try_from(index).ok()?;
    if s.is_empty() {
        return None;
    }
    if sep.is_empty() {
        return s.split(char::is_whitespace).nth(index);
    }
    s.split(sep).nth(index)
}

/// ROUND with Flink's HALF_UP: integers and decimals exactly, a DOUBLE on
/// its shortest decimal form (as `BigDecimal.valueOf`), so 2.675 rounds to
/// 2.68.
fn round(v: &ArrayRef, digits: i32, ty: &SqlType) -> Result<ArrayRef> {
    Ok(match v.data_type() {
        DataType::Int32 => Arc::new(
            v.as_primitive::<Int32Type>()
                .unary::<_, Int32Type>(|x| round_integer(i128::from(x), digits) as i32),
        ),
        DataType::Int64 => Arc::new(
            v.as_primitive::<Int64Type>()
                .unary::<_, Int64Type>(|x| round_integer(i128::from(x), digits) as i64),
        ),
        DataType::Float64 => Arc::new(
            v.as_primitive::<Float64Type>()
                .unary::<_, Float64Type>(|x| round_double(x, digits)),
        ),
        DataType::Decimal128(_, s) => {
            let s = *s;
            let Some((to_p, to_s)) = ty.decimal_precision_scale() else {
                return Err(Error::Internal(format!("ROUND of a DECIMAL typed {ty}")));
            };
            let limit = 10i128.checked_pow(u32::from(to_p)).unwrap_or(i128::MAX);
            let out: arrow::array::Decimal128Array = v
                .as_primitive::<Decimal128Type>()
                .unary_opt::<_, Decimal128Type>(|x| {
                let r = round_decimal(x, s, digits)?;
                (r.abs() < limit).then_some(r)
            });
            Arc::new(out.with_precision_and_scale(to_p, to_s)?)
        }
        other => return Err(Error::Internal(format!("ROUND over {other}"))),
    })
}

/// An integer rounded HALF_UP to `digits` (only negative digits change
/// it); the caller narrows it by wrapping, as Java's `intValue()`.
fn round_integer(x: i128, digits: i32) -> i128 {
    if digits >= 0 {
        return x;
    }
    let Some(unit) = 10i128.checked_pow(digits.unsigned_abs()) else {
        return 0;
    };
    crate::expr::decimal::div_pow10_half_up(x, digits.unsigned_abs()).saturating_mul(unit)
}

/// A decimal of scale `s` rounded HALF_UP to `digits`, at the result scale
/// the binder gives.
fn round_decimal(x: i128, s: i8, digits: i32) -> Option<i128> {
    let s = i32::from(s);
    if digits >= s {
        return Some(x);
    }
    // Dropping more than 38 digits leaves 0 (div_pow10_half_up sees to it).
    let dropped = u32::try_from(i64::from(s) - i64::from(digits)).unwrap_or(u32::MAX);
    let q = crate::expr::decimal::div_pow10_half_up(x, dropped);
    if digits >= 0 || q == 0 {
        Some(q)
    } else {
        q.checked_mul(10i128.checked_pow(digits.unsigned_abs())?)
    }
}

fn round_double(x: f64, digits: i32) -> f64 {
    round_double_to(x, digits, true)
}

/// A DOUBLE cut to `digits` on its shortest decimal form, rounded HALF_UP
/// or (for TRUNCATE) toward zero.
pub(crate) fn round_double_to(x: f64, digits: i32, half_up: bool) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    // `{:e}` is the shortest form that reads back as `x`: d.ddde±x, that is
    // 0.dddd * 10^(exp + 1).
    let text = format!("{:e}", x.abs());
    let Some((mantissa, exp)) = text.split_once('e') else {
        return x;
    };
    let Ok(exp) = exp.parse::<i32>() else {
        return x;
    };
    let all: Vec<u8> = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|d| d - b'0')
        .collect();
    let keep = i64::from(exp) + 1 + i64::from(digits);
    if keep >= all.len() as i64 {
        return x;
    }
    if keep < 0 {
        return 0.0;
    }
    let keep = keep as usize;
    let mut kept = all[..keep]
        .iter()
        .fold(0u128, |acc, &d| acc * 10 + u128::from(d));
    if half_up && all[keep] >= 5 {
        kept += 1;
    }
    if kept == 0 {
        return 0.0;
    }
    // Read back through text: the double nearest the rounded decimal.
    let magnitude: f64 = format!("{kept}e{}", i64::from(exp) + 1 - keep as i64)
        .parse()
        .unwrap_or(f64::NAN);
    if x < 0.0 {
        -magnitude
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn like_patterns_become_anchored_regexes() {
        let matches = |p: &str, escape: Option<char>, s: &str| {
            regex::Regex::new(&like_regex(p, escape).expect("a pattern"))
                .expect("a regex")
                .is_match(s)
        };
        assert!(matches("a%", None, "a\nline"), "% spans line breaks");
        assert!(matches("a_c", None, "abc") && !matches("a_c", None, "abbc"));
        assert!(
            matches("a.c", None, "a.c") && !matches("a.c", None, "abc"),
            "regex characters are plain"
        );
        assert!(
            matches("a\\%", None, "a\\x"),
            "a backslash is plain without ESCAPE"
        );
        assert!(matches("a!%", Some('!'), "a%") && !matches("a!%", Some('!'), "ab"));
        assert!(matches("a!!", Some('!'), "a!"));
        assert!(
            like_regex("a!b", Some('!')).is_err(),
            "the escape before a plain character"
        );
        assert!(
            like_regex("a!", Some('!')).is_err(),
            "the escape at the end"
        );
    }

    use super::*;

    #[test]
    fn substring_follows_flink_at_the_edges() {
        let cases = [
            ("hello", 0, Some(2), Some("he")),
            ("hello", -2, None, Some("lo")),
            ("hello", -7, Some(3), Some("")),
            ("hello", 9, None, Some("")),
            ("hello", 2, Some(0), Some("")),
            ("hello", 2, Some(-1), None),
            ("héllo", 2, Some(2), Some("él")),
            ("hello", -2, Some(1), Some("l")),
        ];
        for (s, pos, len, want) in cases {
            assert_eq!(
                flink_substring(s, pos, len).as_deref(),
                want,
                "{s} {pos} {len:?}"
            );
        }
    }

    #[test]
    fn split_index_follows_commons_lang() {
        assert_eq!(split_index("a,b,,c", ",", 2), Some(""));
        assert_eq!(split_index("a,b", ",", 5), None);
        assert_eq!(split_index("a,b", ",", -1), None);
        assert_eq!(split_index("", ",", 0), None);
        assert_eq!(split_index("a b", "", 1), Some("b"));
        assert_eq!(split_index("a::b", "::", 1), Some("b"));
        assert_eq!(split_index("a,b,", ",", 2), Some(""));
    }

    #[test]
    fn rounding_is_half_up_on_the_decimal_form() {
        let cases = [
            (2.5, 0, 3.0),
            (-2.5, 0, -3.0),
            (0.125, 2, 0.13),
            (1.005, 2, 1.01),
            (2.675, 2, 2.68),
            (-0.5, 0, -1.0),
            (1e300, -2, 1e300),
            (0.4, 0, 0.0),
            (1234.5678, -2, 1200.0),
            (9.99, 1, 10.0),
            (0.0004, 2, 0.0),
            (0.005, 2, 0.01),
        ];
        for (x, d, want) in cases {
            assert_eq!(round_double(x, d), want, "ROUND({x}, {d})");
        }
        assert_eq!(round_integer(125, -1), 130);
        assert_eq!(round_integer(-125, -1), -130);
        assert_eq!(round_integer(2_147_483_647, -1) as i32, -2_147_483_646);
        assert_eq!(round_decimal(12345, 4, 2), Some(123));
        assert_eq!(round_decimal(-1235, 3, 2), Some(-124));
        assert_eq!(round_decimal(1234, 2, -1), Some(10));
        assert_eq!(round_decimal(1234, 2, i32::MIN), Some(0));
        assert_eq!(round_integer(1234, i32::MIN), 0);
        assert_eq!(round_double(1234.5, i32::MIN), 0.0);
        assert_eq!(round_double(1234.5, i32::MAX), 1234.5);
    }
}
