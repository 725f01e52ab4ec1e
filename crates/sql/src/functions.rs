//! Binds the scalar function library: string, numeric and time functions
//! with Flink 2.3's names, argument orders and result types.
//!
//! [`crate::expr_binder`] binds the arguments and hands a call here by
//! name ([`bind_call`]), or by syntax for the forms sqlparser parses
//! specially (`EXTRACT`, `FLOOR/CEIL(.. TO ..)`, `SUBSTRING`, `TRIM`).
//! Arity and argument types are checked here, with the span of the call or
//! of the offending argument; literal patterns (regexes, date formats) are
//! checked here too, so that they fail at planning rather than per row.

use crate::expr_binder::{coerce, unify_branches};
use crate::types::{arithmetic_type, common_type};
use datafusion_common::ScalarValue;
use sqlparser::ast::{self, DateTimeField, TrimWhereField};
use tidemark_common::date_pattern::{java_to_chrono_pattern, DatePattern, Dialect};
use tidemark_common::expr::{BinaryOp, Expr, ScalarFunction, TimeUnit};
use tidemark_common::{Error, Result, Span, SqlType};

/// One bound argument and where it is in the SQL.
pub struct Arg {
    pub expr: Expr,
    pub span: Span,
}

/// Binds a call of a library function; the arguments back when `name` is
/// not one.
pub fn bind_call(
    name: &str,
    args: Vec<Arg>,
    span: Span,
) -> std::result::Result<Result<Expr>, Vec<Arg>> {
    let call = Call { name, span };
    Ok(match name {
        "CONCAT" => call.concat(args),
        "CONCAT_WS" => call.concat_ws(args),
        "REPLACE" => call.replace(args),
        "REGEXP_EXTRACT" => call.regexp_extract(args),
        "SPLIT_INDEX" => call.split_index(args),
        "ROUND" => call.round(args),
        "MOD" => call.modulo(args),
        "POWER" => call.power(args),
        "IF" => call.if_(args),
        "NULLIF" => call.nullif(args),
        "DATE_FORMAT" => call.date_format(args),
        "UNIX_TIMESTAMP" => call.unix_timestamp(args),
        "FROM_UNIXTIME" => call.bind_from_unixtime(args),
        "YEAR" => call.time_part(args, TimeUnit::Year),
        "QUARTER" => call.time_part(args, TimeUnit::Quarter),
        "MONTH" => call.time_part(args, TimeUnit::Month),
        "WEEK" => call.time_part(args, TimeUnit::Week),
        "DAYOFMONTH" => call.time_part(args, TimeUnit::Day),
        "DAYOFWEEK" => call.time_part(args, TimeUnit::DayOfWeek),
        "DAYOFYEAR" => call.time_part(args, TimeUnit::DayOfYear),
        "HOUR" => call.time_part(args, TimeUnit::Hour),
        "MINUTE" => call.time_part(args, TimeUnit::Minute),
        "SECOND" => call.time_part(args, TimeUnit::Second),
        "TO_DATE" => call.to_date(args),
        "CURRENT_DATE" => Err(Error::plan(
            "CURRENT_DATE reads the clock, so its results could not be reproduced from the input; it is not supported",
            span,
        )
        .with_hint("CAST(pt AS DATE) of a PROCTIME() column gives the day of processing")),
        "DATE" => Err(Error::plan("DATE(x) is not a function", span)
            .with_hint("write CAST(x AS DATE), or DATE '2024-03-01' for a literal")),
        "SUBSTRING" | "SUBSTR" => call.substring_call(args),
        "LOCATE" => call.locate(args),
        "INITCAP" => call.strings(args, 1, "INITCAP(s)", ScalarFunction::InitCap),
        "REVERSE" => call.strings(args, 1, "REVERSE(s)", ScalarFunction::Reverse),
        "TRANSLATE" => call.strings(args, 3, "TRANSLATE(s, from, to)", ScalarFunction::Translate),
        "LPAD" => call.pad(args, ScalarFunction::Lpad),
        "RPAD" => call.pad(args, ScalarFunction::Rpad),
        "REPEAT" => call.string_int(args, "REPEAT(s, n)", ScalarFunction::Repeat),
        "LEFT" => call.string_int(args, "LEFT(s, n)", ScalarFunction::Left),
        "RIGHT" => call.string_int(args, "RIGHT(s, n)", ScalarFunction::Right),
        "REGEXP" => call.regexp(args),
        "REGEXP_REPLACE" => call.regexp_replace(args),
        "LTRIM" => call.side_trim(args, true),
        "RTRIM" => call.side_trim(args, false),
        "ASCII" => call.ascii(args),
        "CHR" => call.chr(args),
        "LN" => call.double(args, 1, "LN(x)", ScalarFunction::Ln),
        "LOG" if args.len() == 1 => call.double(args, 1, "LOG([base,] x)", ScalarFunction::Ln),
        "LOG" => call.double(args, 2, "LOG([base,] x)", ScalarFunction::Log),
        "LOG10" => call.double(args, 1, "LOG10(x)", ScalarFunction::Log10),
        "LOG2" => call.double(args, 1, "LOG2(x)", ScalarFunction::Log2),
        "EXP" => call.double(args, 1, "EXP(x)", ScalarFunction::Exp),
        "SQRT" => call.double(args, 1, "SQRT(x)", ScalarFunction::Sqrt),
        "SIGN" => call.sign(args),
        "CEILING" => match <[Arg; 1]>::try_from(args) {
            Ok([x]) => bind_floor_ceil(true, &DateTimeField::NoDateTime, x, span),
            Err(args) => call
                .arity(&args, 1, 1, "CEILING(x)")
                .and_then(|_| Err(Error::Internal("arity checked".into()))),
        },
        "TRUNCATE" => call.truncate(args),
        "BIN" => call.bin_hex(args, false),
        "HEX" => call.bin_hex(args, true),
        "PI" => call.pi(args),
        "GREATEST" => call.greatest_least(args, ScalarFunction::Greatest),
        "LEAST" => call.greatest_least(args, ScalarFunction::Least),
        "RAND" | "RAND_INTEGER" | "UUID" => Err(Error::plan(
            format!("{name} is not supported: its results could not be reproduced from the input"),
            span,
        )
        .with_hint("derive the value from the row, e.g. a hash of a key column")),
        "CURRENT_TIMESTAMP" | "NOW" | "LOCALTIMESTAMP" | "CURRENT_TIME" | "LOCALTIME"
        | "CURRENT_ROW_TIMESTAMP" => Err(Error::plan(
            format!("{name} is not supported: it reads the clock, so its results could not be reproduced from the input"),
            span,
        )
        .with_hint("use a PROCTIME() column for the processing time, or the rowtime for event time")),
        _ if FLINK_FUNCTIONS_NOT_YET.contains(&name) => Err(Error::plan(
            format!("{name} is a Flink SQL function tidemark does not support yet"),
            span,
        )
        .with_hint("docs/coming-from-flink.md lists the functions still missing")),
        _ => return Err(args),
    })
}

/// Flink 2.3 built-in scalar functions tidemark does not have yet: named
/// as such, not as unknown.
const FLINK_FUNCTIONS_NOT_YET: &[&str] = &[
    "SIN",
    "COS",
    "TAN",
    "ASIN",
    "ACOS",
    "ATAN",
    "ATAN2",
    "SINH",
    "COSH",
    "TANH",
    "COT",
    "DEGREES",
    "RADIANS",
    "MD5",
    "SHA1",
    "SHA2",
    "SHA224",
    "SHA256",
    "SHA384",
    "SHA512",
    "TO_BASE64",
    "FROM_BASE64",
    "ENCODE",
    "DECODE",
    "JSON_VALUE",
    "JSON_QUERY",
    "JSON_OBJECT",
    "JSON_ARRAY",
    "JSON_STRING",
    "JSON_EXISTS",
    "JSON_OBJECTAGG",
    "JSON_ARRAYAGG",
    "REGEXP_EXTRACT_ALL",
    "REGEXP_INSTR",
    "REGEXP_COUNT",
    "REGEXP_SUBSTR",
    "SPLIT",
    "CONVERT_TZ",
    "IFNULL",
    "ELT",
    "PARSE_URL",
    "STR_TO_MAP",
    "URL_ENCODE",
    "URL_DECODE",
    "PRINTF",
    "UNHEX",
    "BTRIM",
    "STARTSWITH",
    "ENDSWITH",
    "INSTR",
    "TO_TIMESTAMP_TZ",
    "UNIX_DATE",
    "DATEDIFF",
    "TIMESTAMP_DIFF",
    "E",
    "CARDINALITY",
    "ELEMENT",
    "ARRAY_CONTAINS",
    "ARRAY_DISTINCT",
    "ARRAY_POSITION",
    "ARRAY_REMOVE",
    "ARRAY_REVERSE",
    "ARRAY_SLICE",
    "ARRAY_UNION",
    "ARRAY_CONCAT",
    "ARRAY_MAX",
    "ARRAY_MIN",
    "ARRAY_JOIN",
    "ARRAY_SORT",
    "ARRAY_EXCEPT",
    "ARRAY_INTERSECT",
    "MAP_KEYS",
    "MAP_VALUES",
    "MAP_ENTRIES",
    "MAP_FROM_ARRAYS",
    "MAP_UNION",
    "ARRAY",
    "MAP",
    "ROW",
    "UNNEST",
];

struct Call<'a> {
    name: &'a str,
    span: Span,
}

fn string_literal(s: impl Into<String>) -> Expr {
    Expr::Literal {
        value: ScalarValue::Utf8(Some(s.into())),
        ty: SqlType::String,
    }
}

fn int_literal(v: i32) -> Expr {
    Expr::Literal {
        value: ScalarValue::Int32(Some(v)),
        ty: SqlType::Int,
    }
}

/// The value of a constant integer argument: a literal, possibly negated.
fn constant_int(e: &Expr) -> Option<i64> {
    match e {
        Expr::Negate(inner) => constant_int(inner).map(|v| -v),
        other => other.int_literal(),
    }
}

fn constant_string(e: &Expr) -> Option<&str> {
    match e {
        Expr::Literal {
            value: ScalarValue::Utf8(Some(s)),
            ..
        } => Some(s),
        _ => None,
    }
}

impl Call<'_> {
    fn arity(&self, args: &[Arg], min: usize, max: usize, signature: &str) -> Result<()> {
        if (min..=max).contains(&args.len()) {
            return Ok(());
        }
        let count = if min == max {
            format!("{min}")
        } else if max == usize::MAX {
            format!("at least {min}")
        } else {
            format!("{min} to {max}")
        };
        Err(Error::plan(
            format!(
                "{} takes {count} argument(s), got {}",
                self.name,
                args.len()
            ),
            self.span,
        )
        .with_hint(format!("call it as {signature}")))
    }

    /// The first `N` arguments, after checking that there are `N` to
    /// `max` of them, and an iterator over the optional rest.
    fn leading<const N: usize>(
        &self,
        args: Vec<Arg>,
        max: usize,
        signature: &str,
    ) -> Result<([Arg; N], std::vec::IntoIter<Arg>)> {
        self.arity(&args, N, max, signature)?;
        let mut it = args.into_iter();
        let first: Vec<Arg> = it.by_ref().take(N).collect();
        let first: [Arg; N] = first
            .try_into()
            .map_err(|_| Error::Internal("arity checked above".into()))?;
        Ok((first, it))
    }

    /// Exactly `N` arguments.
    fn exactly<const N: usize>(&self, args: Vec<Arg>, signature: &str) -> Result<[Arg; N]> {
        Ok(self.leading(args, N, signature)?.0)
    }

    fn string(&self, a: Arg, what: &str) -> Result<Expr> {
        let ty = a.expr.ty();
        if ty.is_string() || ty == SqlType::Null {
            return Ok(coerce(a.expr, &SqlType::String));
        }
        Err(Error::plan(
            format!("{}'s {what} must be a STRING, got {ty}", self.name),
            a.span,
        )
        .with_hint("use CAST(x AS STRING)"))
    }

    fn integer(&self, a: Arg, what: &str) -> Result<Expr> {
        let ty = a.expr.ty();
        if ty.is_integer() || ty == SqlType::Null {
            return Ok(coerce(a.expr, &SqlType::Int));
        }
        Err(Error::plan(
            format!("{}'s {what} must be an INT, got {ty}", self.name),
            a.span,
        ))
    }

    fn function(&self, func: ScalarFunction, args: Vec<Expr>, ty: SqlType) -> Result<Expr> {
        Ok(Expr::Function { func, args, ty })
    }

    fn concat(&self, args: Vec<Arg>) -> Result<Expr> {
        self.arity(&args, 1, usize::MAX, "CONCAT(s1, s2, ...)")?;
        let args = args
            .into_iter()
            .map(|a| self.string(a, "arguments"))
            .collect::<Result<_>>()?;
        self.function(ScalarFunction::Concat, args, SqlType::String)
    }

    fn concat_ws(&self, args: Vec<Arg>) -> Result<Expr> {
        self.arity(&args, 2, usize::MAX, "CONCAT_WS(separator, s1, s2, ...)")?;
        let args = args
            .into_iter()
            .enumerate()
            .map(|(i, a)| self.string(a, if i == 0 { "separator" } else { "arguments" }))
            .collect::<Result<_>>()?;
        self.function(ScalarFunction::ConcatWs, args, SqlType::String)
    }

    fn replace(&self, args: Vec<Arg>) -> Result<Expr> {
        self.arity(&args, 3, 3, "REPLACE(s, search, replacement)")?;
        let args = args
            .into_iter()
            .map(|a| self.string(a, "arguments"))
            .collect::<Result<_>>()?;
        self.function(ScalarFunction::Replace, args, SqlType::String)
    }

    fn regexp_extract(&self, args: Vec<Arg>) -> Result<Expr> {
        let ([s, regex], mut it) = self.leading(args, 3, "REGEXP_EXTRACT(s, regex [, group])")?;
        if let Some(pattern) = constant_string(&regex.expr) {
            if let Err(e) = regex::Regex::new(pattern) {
                return Err(Error::plan(
                    format!(
                        "REGEXP_EXTRACT: invalid regex '{pattern}': {}",
                        regex_error(&e)
                    ),
                    regex.span,
                )
                .with_hint("regexes follow Java's syntax except look-around and back-references"));
            }
        }
        let group = match it.next() {
            Some(g) => self.integer(g, "group")?,
            // As Flink: without a group, the whole match.
            None => int_literal(0),
        };
        let args = vec![self.string(s, "text")?, self.string(regex, "regex")?, group];
        self.function(ScalarFunction::RegexpExtract, args, SqlType::String)
    }

    /// A function of `n` STRING arguments that returns a STRING.
    fn strings(
        &self,
        args: Vec<Arg>,
        n: usize,
        signature: &str,
        func: ScalarFunction,
    ) -> Result<Expr> {
        self.arity(&args, n, n, signature)?;
        let args = args
            .into_iter()
            .map(|a| self.string(a, "arguments"))
            .collect::<Result<_>>()?;
        self.function(func, args, SqlType::String)
    }

    /// A function of a STRING and an INT that returns a STRING.
    fn string_int(&self, args: Vec<Arg>, signature: &str, func: ScalarFunction) -> Result<Expr> {
        let [s, n] = self.exactly(args, signature)?;
        let args = vec![self.string(s, "text")?, self.integer(n, "count")?];
        self.function(func, args, SqlType::String)
    }

    fn locate(&self, args: Vec<Arg>) -> Result<Expr> {
        let ([needle, s], mut it) = self.leading(args, 3, "LOCATE(needle, s [, start])")?;
        let mut args = vec![self.string(needle, "needle")?, self.string(s, "text")?];
        if let Some(start) = it.next() {
            args.push(self.integer(start, "start")?);
        }
        self.function(ScalarFunction::Locate, args, SqlType::Int)
    }

    fn pad(&self, args: Vec<Arg>, func: ScalarFunction) -> Result<Expr> {
        let signature = format!("{}(s, length, padding)", self.name);
        let [s, len, pad] = self.exactly(args, &signature)?;
        let args = vec![
            self.string(s, "text")?,
            self.integer(len, "length")?,
            self.string(pad, "padding")?,
        ];
        self.function(func, args, SqlType::String)
    }

    /// A regex argument; a literal one must compile.
    fn regex(&self, a: Arg) -> Result<Expr> {
        if let Some(pattern) = constant_string(&a.expr) {
            if let Err(e) = regex::Regex::new(pattern) {
                return Err(Error::plan(
                    format!(
                        "{}: invalid regex '{pattern}': {}",
                        self.name,
                        regex_error(&e)
                    ),
                    a.span,
                )
                .with_hint("regexes follow Java's syntax except look-around and back-references"));
            }
        }
        self.string(a, "regex")
    }

    fn regexp(&self, args: Vec<Arg>) -> Result<Expr> {
        let [s, regex] = self.exactly(args, "REGEXP(s, regex)")?;
        let args = vec![self.string(s, "text")?, self.regex(regex)?];
        self.function(ScalarFunction::Regexp, args, SqlType::Boolean)
    }

    fn regexp_replace(&self, args: Vec<Arg>) -> Result<Expr> {
        let [s, regex, with] = self.exactly(args, "REGEXP_REPLACE(s, regex, replacement)")?;
        let args = vec![
            self.string(s, "text")?,
            self.regex(regex)?,
            self.string(with, "replacement")?,
        ];
        self.function(ScalarFunction::RegexpReplace, args, SqlType::String)
    }

    /// LTRIM / RTRIM(s [, characters]): spaces by default (not tabs).
    fn side_trim(&self, args: Vec<Arg>, leading: bool) -> Result<Expr> {
        let signature = format!("{}(s [, characters])", self.name);
        let ([s], mut it) = self.leading(args, 2, &signature)?;
        let chars = match it.next() {
            Some(c) => self.string(c, "characters")?,
            None => string_literal(" "),
        };
        self.function(
            ScalarFunction::Trim {
                leading,
                trailing: !leading,
            },
            vec![self.string(s, "text")?, chars],
            SqlType::String,
        )
    }

    fn ascii(&self, args: Vec<Arg>) -> Result<Expr> {
        self.arity(&args, 1, 1, "ASCII(s)")?;
        let args = args
            .into_iter()
            .map(|a| self.string(a, "argument"))
            .collect::<Result<_>>()?;
        self.function(ScalarFunction::Ascii, args, SqlType::Int)
    }

    fn chr(&self, args: Vec<Arg>) -> Result<Expr> {
        self.arity(&args, 1, 1, "CHR(code)")?;
        let args = args
            .into_iter()
            .map(|a| self.integer(a, "code"))
            .collect::<Result<_>>()?;
        self.function(ScalarFunction::Chr, args, SqlType::String)
    }

    fn split_index(&self, args: Vec<Arg>) -> Result<Expr> {
        let [s, sep, index] = self.exactly(args, "SPLIT_INDEX(s, separator, index)")?;
        let args = vec![
            self.string(s, "text")?,
            self.string(sep, "separator")?,
            self.integer(index, "index")?,
        ];
        self.function(ScalarFunction::SplitIndex, args, SqlType::String)
    }

    fn numeric(&self, a: &Arg, what: &str) -> Result<SqlType> {
        let ty = a.expr.ty();
        if ty.is_numeric() {
            return Ok(ty);
        }
        Err(Error::plan(
            format!("{}'s {what} must be numeric, got {ty}", self.name),
            a.span,
        ))
    }

    /// A DOUBLE function of `n` numeric arguments, each cast to DOUBLE.
    fn double(
        &self,
        args: Vec<Arg>,
        n: usize,
        signature: &str,
        func: ScalarFunction,
    ) -> Result<Expr> {
        self.arity(&args, n, n, signature)?;
        let args = args
            .into_iter()
            .map(|a| {
                if a.expr.ty() != SqlType::Null {
                    self.numeric(&a, "arguments")?;
                }
                Ok(coerce(a.expr, &SqlType::Double))
            })
            .collect::<Result<_>>()?;
        self.function(func, args, SqlType::Double)
    }

    fn sign(&self, args: Vec<Arg>) -> Result<Expr> {
        let [x] = self.exactly(args, "SIGN(x)")?;
        let ty = self.numeric(&x, "argument")?;
        self.function(ScalarFunction::Sign, vec![x.expr], ty)
    }

    fn truncate(&self, args: Vec<Arg>) -> Result<Expr> {
        self.rounding(args, |digits| ScalarFunction::Truncate { digits })
    }

    fn bin_hex(&self, args: Vec<Arg>, hex: bool) -> Result<Expr> {
        let signature = if hex { "HEX(n or s)" } else { "BIN(n)" };
        let [x] = self.exactly(args, signature)?;
        let func = if hex {
            ScalarFunction::Hex
        } else {
            ScalarFunction::Bin
        };
        let arg = match x.expr.ty() {
            t if t.is_integer() => coerce(x.expr, &SqlType::BigInt),
            SqlType::Null => coerce(x.expr, &SqlType::BigInt),
            SqlType::String if hex => x.expr,
            other => {
                return Err(Error::plan(
                    format!(
                        "{}'s argument must be an INT or BIGINT{}, got {other}",
                        self.name,
                        if hex { " or a STRING" } else { "" }
                    ),
                    x.span,
                ))
            }
        };
        self.function(func, vec![arg], SqlType::String)
    }

    fn pi(&self, args: Vec<Arg>) -> Result<Expr> {
        self.arity(&args, 0, 0, "PI()")?;
        Ok(Expr::Literal {
            value: ScalarValue::Float64(Some(std::f64::consts::PI)),
            ty: SqlType::Double,
        })
    }

    /// GREATEST / LEAST: the arguments' common type, as comparisons find it.
    fn greatest_least(&self, args: Vec<Arg>, func: ScalarFunction) -> Result<Expr> {
        let signature = format!("{}(a, b, ...)", self.name);
        self.arity(&args, 1, usize::MAX, &signature)?;
        let mut ty = SqlType::Null;
        for a in &args {
            ty = common_type(&ty, &a.expr.ty()).ok_or_else(|| {
                Error::plan(
                    format!("{} cannot compare {ty} and {}", self.name, a.expr.ty()),
                    a.span,
                )
            })?;
        }
        if ty == SqlType::Null || ty == SqlType::Boolean {
            return Err(Error::plan(
                format!("{} needs comparable arguments, got {ty}", self.name),
                self.span,
            ));
        }
        let args = args.into_iter().map(|a| coerce(a.expr, &ty)).collect();
        self.function(func, args, ty)
    }

    fn round(&self, args: Vec<Arg>) -> Result<Expr> {
        self.rounding(args, |digits| ScalarFunction::Round { digits })
    }

    /// ROUND and TRUNCATE: `x [, digits]` with the digits a constant; a
    /// DECIMAL gets the type Flink gives ROUND's result.
    fn rounding(&self, args: Vec<Arg>, func: impl Fn(i32) -> ScalarFunction) -> Result<Expr> {
        let name = self.name;
        let ([x], mut it) = self.leading(args, 2, &format!("{name}(x [, digits])"))?;
        let ty = self.numeric(&x, "argument")?;
        let digits = match it.next() {
            None => 0,
            Some(d) => constant_int(&d.expr)
                .and_then(|v| i32::try_from(v).ok())
                .ok_or_else(|| {
                    Error::plan(
                        format!("{name}'s digits must be an integer literal"),
                        d.span,
                    )
                    .with_hint(format!("write e.g. {name}(x, 2)"))
                })?,
        };
        let ty = match ty {
            SqlType::Decimal(p, s) => {
                let (p, s) = round_decimal_type(p, s, digits);
                SqlType::Decimal(p, s)
            }
            other => other,
        };
        self.function(func(digits), vec![x.expr], ty)
    }

    fn modulo(&self, args: Vec<Arg>) -> Result<Expr> {
        let [a, b] = self.exactly(args, "MOD(a, b)")?;
        for x in [&a, &b] {
            let ty = x.expr.ty();
            if !(ty.is_integer() || matches!(ty, SqlType::Decimal(..) | SqlType::Null)) {
                return Err(Error::plan(
                    format!("MOD takes exact numbers (INT, BIGINT, DECIMAL), got {ty}"),
                    x.span,
                )
                .with_hint("for DOUBLE use a % b"));
            }
        }
        let (at, bt) = (a.expr.ty(), b.expr.ty());
        let mismatch = || Error::plan(format!("cannot apply MOD to {at} and {bt}"), self.span);
        if matches!(at, SqlType::Decimal(..)) || matches!(bt, SqlType::Decimal(..)) {
            let ty = arithmetic_type(BinaryOp::Modulo, &at, &bt).ok_or_else(mismatch)?;
            let operand = |e: Expr| {
                let t = e.ty();
                let (p, s) = t.decimal_precision_scale().unwrap_or((10, 0));
                coerce(e, &SqlType::Decimal(p, s))
            };
            return Ok(Expr::Binary {
                op: BinaryOp::Modulo,
                left: Box::new(operand(a.expr)),
                right: Box::new(operand(b.expr)),
                ty,
            });
        }
        // As Flink: the remainder has the divisor's type (it always fits).
        let wide = arithmetic_type(BinaryOp::Modulo, &at, &bt).ok_or_else(mismatch)?;
        let result = if bt == SqlType::Null {
            wide.clone()
        } else {
            bt
        };
        let rem = Expr::Binary {
            op: BinaryOp::Modulo,
            left: Box::new(coerce(a.expr, &wide)),
            right: Box::new(coerce(b.expr, &wide)),
            ty: wide,
        };
        Ok(coerce(rem, &result))
    }

    fn power(&self, args: Vec<Arg>) -> Result<Expr> {
        self.arity(&args, 2, 2, "POWER(base, exponent)")?;
        let args = args
            .into_iter()
            .map(|a| {
                if a.expr.ty() != SqlType::Null {
                    self.numeric(&a, "arguments")?;
                }
                Ok(coerce(a.expr, &SqlType::Double))
            })
            .collect::<Result<_>>()?;
        self.function(ScalarFunction::Power, args, SqlType::Double)
    }

    fn if_(&self, args: Vec<Arg>) -> Result<Expr> {
        let [c, a, b] = self.exactly(args, "IF(condition, then, else)")?;
        let cond = match c.expr.ty() {
            SqlType::Boolean => c.expr,
            SqlType::Null => coerce(c.expr, &SqlType::Boolean),
            other => {
                return Err(Error::plan(
                    format!("IF's condition must be a BOOLEAN, got {other}"),
                    c.span,
                ))
            }
        };
        let ty = unify_branches(&a.expr.ty(), &b.expr.ty(), b.span)?;
        Ok(Expr::Case {
            branches: vec![(cond, coerce(a.expr, &ty))],
            otherwise: Some(Box::new(coerce(b.expr, &ty))),
            ty,
        })
    }

    fn nullif(&self, args: Vec<Arg>) -> Result<Expr> {
        let [a, b] = self.exactly(args, "NULLIF(a, b)")?;
        let (at, bt) = (a.expr.ty(), b.expr.ty());
        if at == SqlType::Null {
            return Err(Error::plan("NULLIF of an untyped NULL", a.span)
                .with_hint("CAST the NULL to a type"));
        }
        let common = common_type(&at, &bt).ok_or_else(|| {
            Error::plan(format!("NULLIF cannot compare {at} and {bt}"), self.span)
        })?;
        let equal = Expr::Binary {
            op: BinaryOp::Eq,
            left: Box::new(coerce(a.expr.clone(), &common)),
            right: Box::new(coerce(b.expr, &common)),
            ty: SqlType::Boolean,
        };
        Ok(Expr::Case {
            branches: vec![(
                equal,
                Expr::Literal {
                    value: ScalarValue::Null,
                    ty: at.clone(),
                },
            )],
            otherwise: Some(Box::new(a.expr)),
            ty: at,
        })
    }

    /// A timestamp argument as a wall-clock TIMESTAMP: TIMESTAMP_LTZ in the
    /// session zone.
    fn wall_clock(&self, a: Arg) -> Result<Expr> {
        match a.expr.ty() {
            SqlType::Timestamp(_) => Ok(a.expr),
            // A DATE is its midnight, a TIME that time on 1970-01-01.
            SqlType::TimestampLtz(_) | SqlType::Null | SqlType::Date | SqlType::Time(_) => {
                Ok(coerce(a.expr, &SqlType::Timestamp(3)))
            }
            other => Err(Error::plan(
                format!("{} needs a TIMESTAMP, got {other}", self.name),
                a.span,
            )),
        }
    }

    /// A literal Java date pattern in `dialect`, checked as Java checks it
    /// (Flink fails the job where tidemark refuses the query); when
    /// `reads`, also checked to be one tidemark can read text with. The
    /// engine compiles it again, so that plans show the pattern as written.
    fn pattern(&self, a: Arg, dialect: Dialect, reads: bool) -> Result<Expr> {
        let Some(pattern) = constant_string(&a.expr) else {
            return Err(Error::plan(
                format!("{}'s format must be a string literal", self.name),
                a.span,
            ));
        };
        let checked = DatePattern::compile(pattern, dialect).map(|_| ());
        let checked = match checked {
            Ok(()) if reads => java_to_chrono_pattern(pattern).map(|_| ()),
            other => other,
        };
        match checked {
            Ok(()) => Ok(a.expr),
            Err(why) => Err(Error::plan(
                format!("{}'s pattern '{pattern}': {why}", self.name),
                a.span,
            )
            .with_hint(match dialect {
                Dialect::JavaTime => "a TIMESTAMP is written with the letters of Java's DateTimeFormatter",
                Dialect::Simple => "FROM_UNIXTIME, UNIX_TIMESTAMP and DATE_FORMAT of a STRING take the letters of Java's SimpleDateFormat",
            })),
        }
    }

    fn date_format(&self, args: Vec<Arg>) -> Result<Expr> {
        let [ts, format] = self.exactly(args, "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss')")?;
        if let ty @ (SqlType::Date | SqlType::Time(_)) = ts.expr.ty() {
            // As Flink, which takes a TIMESTAMP or text only.
            return Err(Error::plan(
                format!("DATE_FORMAT needs a TIMESTAMP or a STRING, got {ty}"),
                ts.span,
            )
            .with_hint("CAST it to TIMESTAMP(3) first"));
        }
        // Flink writes a timestamp with java.time's letters, but text
        // (read as a timestamp) with SimpleDateFormat's.
        let (ts, format) = if ts.expr.ty() == SqlType::String {
            (ts.expr, self.pattern(format, Dialect::Simple, false)?)
        } else {
            (
                self.wall_clock(ts)?,
                self.pattern(format, Dialect::JavaTime, false)?,
            )
        };
        self.function(
            ScalarFunction::DateFormat,
            vec![ts, format],
            SqlType::String,
        )
    }

    fn unix_timestamp(&self, args: Vec<Arg>) -> Result<Expr> {
        if args.is_empty() {
            return Err(Error::plan(
                "UNIX_TIMESTAMP() reads the clock, so its results could not be reproduced; it is not supported",
                self.span,
            )
            .with_hint("pass the time as text, UNIX_TIMESTAMP(s [, format]), or use a PROCTIME() column"));
        }
        let ([s], mut it) = self.leading(args, 2, "UNIX_TIMESTAMP(s [, format])")?;
        let s = self.string(s, "text")?;
        let format = match it.next() {
            Some(f) => self.pattern(f, Dialect::Simple, true)?,
            None => string_literal("yyyy-MM-dd HH:mm:ss"),
        };
        self.function(
            ScalarFunction::UnixTimestamp,
            vec![s, format],
            SqlType::BigInt,
        )
    }

    /// TO_DATE(s [, format]): the text read as TO_TIMESTAMP reads it (by
    /// default as `yyyy-MM-dd`), its day; NULL when it does not parse.
    fn to_date(&self, args: Vec<Arg>) -> Result<Expr> {
        let ([s], mut it) = self.leading(args, 2, "TO_DATE(s [, format])")?;
        let s = self.string(s, "text")?;
        let pattern = match it.next() {
            Some(f) => self.pattern(f, Dialect::JavaTime, true)?,
            None => string_literal("yyyy-MM-dd"),
        };
        let Some(Ok(chrono)) = constant_string(&pattern).map(java_to_chrono_pattern) else {
            return Err(Error::Internal("TO_DATE's format was checked".into()));
        };
        let ts = self.function(
            ScalarFunction::ToTimestamp,
            vec![s, string_literal(chrono)],
            SqlType::Timestamp(3),
        )?;
        Ok(coerce(ts, &SqlType::Date))
    }

    /// YEAR(ts), HOUR(ts), DAYOFWEEK(ts), ...: EXTRACT of that unit.
    fn time_part(&self, args: Vec<Arg>, unit: TimeUnit) -> Result<Expr> {
        let signature = format!("{}(ts)", self.name);
        let [ts] = self.exactly(args, &signature)?;
        let ts = self.wall_clock(ts)?;
        self.function(ScalarFunction::Extract(unit), vec![ts], SqlType::BigInt)
    }

    fn bind_from_unixtime(&self, args: Vec<Arg>) -> Result<Expr> {
        let ([n], mut it) = self.leading(args, 2, "FROM_UNIXTIME(seconds [, format])")?;
        let n = match n.expr.ty() {
            t if t.is_integer() || t == SqlType::Null => coerce(n.expr, &SqlType::BigInt),
            other => {
                return Err(Error::plan(
                    format!("FROM_UNIXTIME's seconds must be an INT or BIGINT, got {other}"),
                    n.span,
                ))
            }
        };
        let format = match it.next() {
            Some(f) => self.pattern(f, Dialect::Simple, false)?,
            None => string_literal("yyyy-MM-dd HH:mm:ss"),
        };
        self.function(
            ScalarFunction::FromUnixtime,
            vec![n, format],
            SqlType::String,
        )
    }

    fn substring_call(&self, args: Vec<Arg>) -> Result<Expr> {
        let ([s, start], mut it) = self.leading(args, 3, "SUBSTRING(s, start [, length])")?;
        self.substring(s, start, it.next())
    }

    fn substring(&self, s: Arg, start: Arg, length: Option<Arg>) -> Result<Expr> {
        let mut args = vec![self.string(s, "text")?, self.integer(start, "start")?];
        if let Some(l) = length {
            args.push(self.integer(l, "length")?);
        }
        self.function(ScalarFunction::Substring, args, SqlType::String)
    }
}

/// The last line of a regex error: the reason, without the pattern drawn
/// again with a caret (the caller points at the SQL instead).
pub fn regex_error(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text.lines().last().unwrap_or_default();
    last.strip_prefix("error: ").unwrap_or(last).to_string()
}

/// `SUBSTRING(s FROM start [FOR length])`.
pub fn bind_substring(s: Arg, start: Option<Arg>, length: Option<Arg>, span: Span) -> Result<Expr> {
    let call = Call {
        name: "SUBSTRING",
        span,
    };
    let Some(start) = start else {
        return Err(Error::plan("SUBSTRING needs a start position", span)
            .with_hint("write SUBSTRING(s FROM 2 FOR 3)"));
    };
    call.substring(s, start, length)
}

/// `POSITION(needle IN s)`: LOCATE without a start.
pub fn bind_position(needle: Arg, s: Arg, span: Span) -> Result<Expr> {
    let call = Call {
        name: "POSITION",
        span,
    };
    let args = vec![call.string(needle, "needle")?, call.string(s, "text")?];
    call.function(ScalarFunction::Locate, args, SqlType::Int)
}

/// `OVERLAY(s PLACING r FROM start [FOR length])`.
pub fn bind_overlay(s: Arg, r: Arg, start: Arg, length: Option<Arg>, span: Span) -> Result<Expr> {
    let call = Call {
        name: "OVERLAY",
        span,
    };
    let mut args = vec![
        call.string(s, "text")?,
        call.string(r, "replacement")?,
        call.integer(start, "start")?,
    ];
    if let Some(l) = length {
        args.push(call.integer(l, "length")?);
    }
    call.function(ScalarFunction::Overlay, args, SqlType::String)
}

/// `TRIM([BOTH|LEADING|TRAILING] [chars FROM] s)`: spaces by default.
pub fn bind_trim(
    side: Option<&TrimWhereField>,
    chars: Option<Arg>,
    s: Arg,
    span: Span,
) -> Result<Expr> {
    let call = Call { name: "TRIM", span };
    let (leading, trailing) = match side {
        None | Some(TrimWhereField::Both) => (true, true),
        Some(TrimWhereField::Leading) => (true, false),
        Some(TrimWhereField::Trailing) => (false, true),
    };
    let chars = match chars {
        Some(c) => call.string(c, "characters")?,
        None => string_literal(" "),
    };
    let s = call.string(s, "text")?;
    call.function(
        ScalarFunction::Trim { leading, trailing },
        vec![s, chars],
        SqlType::String,
    )
}

/// `EXTRACT(unit FROM ts)`, a BIGINT.
pub fn bind_extract(field: &DateTimeField, ts: Arg, span: Span) -> Result<Expr> {
    let call = Call {
        name: "EXTRACT",
        span,
    };
    let unit = match field {
        DateTimeField::Dow | DateTimeField::DayOfWeek => TimeUnit::DayOfWeek,
        DateTimeField::Doy | DateTimeField::DayOfYear => TimeUnit::DayOfYear,
        other => time_unit(other).ok_or_else(|| {
            Error::plan(format!("EXTRACT of {other} is not supported"), span)
                .with_hint("use YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, DOW or DOY")
        })?,
    };
    let ts = call.wall_clock(ts)?;
    call.function(ScalarFunction::Extract(unit), vec![ts], SqlType::BigInt)
}

/// `FLOOR(ts TO unit)` / `CEIL(ts TO unit)`: the same type as `ts`; a
/// TIMESTAMP_LTZ is rounded on the session zone's wall clock.
pub fn bind_floor_ceil(ceil: bool, field: &DateTimeField, ts: Arg, span: Span) -> Result<Expr> {
    let name = if ceil { "CEIL" } else { "FLOOR" };
    let call = Call { name, span };
    if *field == DateTimeField::NoDateTime {
        // As Flink: integers and DOUBLE keep their type, DECIMAL(p, s)
        // becomes DECIMAL(p, 0).
        let ty = match ts.expr.ty() {
            SqlType::Decimal(p, _) => SqlType::Decimal(p, 0),
            t if t.is_numeric() => t,
            other => {
                return Err(Error::plan(
                    format!("{name} needs a number, or a timestamp with TO unit; got {other}"),
                    ts.span,
                ))
            }
        };
        let func = if ceil {
            ScalarFunction::CeilNumber
        } else {
            ScalarFunction::FloorNumber
        };
        return call.function(func, vec![ts.expr], ty);
    }
    let unit = time_unit(field)
        .filter(|u| !matches!(u, TimeUnit::DayOfWeek | TimeUnit::DayOfYear))
        .ok_or_else(|| {
            Error::plan(format!("{name} to {field} is not supported"), span)
                .with_hint("use SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR")
        })?;
    let ty = ts.expr.ty();
    // As Flink: a DATE or TIME is rounded as its timestamp and stays a DATE
    // or TIME (FLOOR(d TO MONTH) is the first of d's month).
    if !(ty.is_timestamp() || matches!(ty, SqlType::Date | SqlType::Time(_))) {
        return Err(Error::plan(
            format!("{name}(.. TO {}) needs a TIMESTAMP, got {ty}", unit.name()),
            ts.span,
        ));
    }
    let wall = call.wall_clock(ts)?;
    let func = if ceil {
        ScalarFunction::CeilTime(unit)
    } else {
        ScalarFunction::FloorTime(unit)
    };
    let wall_ty = wall.ty();
    let rounded = Expr::Function {
        func,
        args: vec![wall],
        ty: wall_ty,
    };
    Ok(coerce(rounded, &ty))
}

fn time_unit(field: &DateTimeField) -> Option<TimeUnit> {
    Some(match field {
        DateTimeField::Year | DateTimeField::Years => TimeUnit::Year,
        DateTimeField::Quarter => TimeUnit::Quarter,
        DateTimeField::Month | DateTimeField::Months => TimeUnit::Month,
        DateTimeField::Week(None) | DateTimeField::Weeks => TimeUnit::Week,
        DateTimeField::Day | DateTimeField::Days => TimeUnit::Day,
        DateTimeField::Hour | DateTimeField::Hours => TimeUnit::Hour,
        DateTimeField::Minute | DateTimeField::Minutes => TimeUnit::Minute,
        DateTimeField::Second | DateTimeField::Seconds => TimeUnit::Second,
        _ => return None,
    })
}

/// `TIMESTAMPDIFF(unit, t1, t2)` (INT) and `TIMESTAMPADD(unit, n, ts)`
/// (the type of `ts`); `unit` is the keyword as sqlparser parsed it.
pub fn bind_timestamp_unit_call(
    name: &str,
    unit: Option<&ast::Expr>,
    args: Vec<Arg>,
    span: Span,
) -> Result<Expr> {
    let call = Call { name, span };
    let diff = name == "TIMESTAMPDIFF";
    let signature = if diff {
        "TIMESTAMPDIFF(unit, t1, t2)"
    } else {
        "TIMESTAMPADD(unit, n, ts)"
    };
    let units = "SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR";
    let Some(unit_expr) = unit else {
        return Err(Error::plan(format!("{name} needs a unit first"), span)
            .with_hint(format!("call it as {signature}, the unit one of {units}")));
    };
    let unit_span = crate::expr_binder::spanned(unit_expr);
    let unit = match unit_expr {
        ast::Expr::Identifier(id) if id.quote_style.is_none() => {
            Some(id.value.to_ascii_uppercase())
        }
        _ => None,
    }
    .and_then(|u| {
        Some(match u.as_str() {
            "SECOND" => TimeUnit::Second,
            "MINUTE" => TimeUnit::Minute,
            "HOUR" => TimeUnit::Hour,
            "DAY" => TimeUnit::Day,
            "WEEK" => TimeUnit::Week,
            "MONTH" => TimeUnit::Month,
            "QUARTER" => TimeUnit::Quarter,
            "YEAR" => TimeUnit::Year,
            _ => return None,
        })
    })
    .ok_or_else(|| {
        Error::plan(
            format!("{name}'s unit must be one of {units}, not {unit_expr}"),
            unit_span,
        )
    })?;
    // Two arguments after the unit; count the unit in the message.
    if args.len() != 2 {
        return Err(Error::plan(
            format!("{name} takes 3 argument(s), got {}", args.len() + 1),
            span,
        )
        .with_hint(format!("call it as {signature}")));
    }
    let mut it = args.into_iter();
    let (Some(a), Some(b)) = (it.next(), it.next()) else {
        return Err(Error::Internal("arity checked above".into()));
    };
    let timestamp = |a: Arg| -> Result<Expr> {
        match a.expr.ty() {
            t if t.is_timestamp() => Ok(a.expr),
            // As Flink: a DATE counts as its midnight.
            SqlType::Null | SqlType::Date => Ok(coerce(a.expr, &SqlType::Timestamp(3))),
            other => Err(Error::plan(
                format!("{name} needs a TIMESTAMP or TIMESTAMP_LTZ, got {other}"),
                a.span,
            )),
        }
    };
    if diff {
        let (t1, t2) = (timestamp(a)?, timestamp(b)?);
        let ltz = |e: &Expr| matches!(e.ty(), SqlType::TimestampLtz(_));
        if ltz(&t1) != ltz(&t2) {
            return Err(Error::plan(
                format!(
                    "TIMESTAMPDIFF of a {} and a {}: both must be TIMESTAMP or both TIMESTAMP_LTZ, as in Flink",
                    t1.ty(),
                    t2.ty()
                ),
                span,
            )
            .with_hint("CAST one of them"));
        }
        return call.function(
            ScalarFunction::TimestampDiff(unit),
            vec![t1, t2],
            SqlType::Int,
        );
    }
    let n = match a.expr.ty() {
        t if t.is_integer() => a.expr,
        SqlType::Null => coerce(a.expr, &SqlType::Int),
        other => {
            return Err(Error::plan(
                format!("TIMESTAMPADD's count must be an INT or BIGINT, got {other}"),
                a.span,
            ))
        }
    };
    let n = coerce(n, &SqlType::BigInt);
    let is_date = b.expr.ty() == SqlType::Date;
    let ts = timestamp(b)?;
    let ty = ts.ty();
    let moved = call.function(ScalarFunction::TimestampAddUnit(unit), vec![n, ts], ty)?;
    // TIMESTAMPADD of a DATE is a DATE, as in Flink.
    Ok(if is_date {
        coerce(moved, &SqlType::Date)
    } else {
        moved
    })
}

/// Flink's result type of ROUND(DECIMAL(p, s), digits): unchanged when
/// nothing is dropped, else one more integer digit for the carry.
pub fn round_decimal_type(p: u8, s: i8, digits: i32) -> (u8, i8) {
    let (p, s) = (i32::from(p), i32::from(s));
    if digits >= s {
        (p as u8, s as i8)
    } else if digits < 0 {
        ((1 + p - s).min(38) as u8, 0)
    } else {
        ((1 + p - s + digits).min(38) as u8, digits as i8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_of_a_decimal_is_typed_as_flink_types_it() {
        assert_eq!(round_decimal_type(5, 4, 2), (4, 2));
        assert_eq!(round_decimal_type(5, 4, 0), (2, 0));
        assert_eq!(round_decimal_type(4, 2, -1), (3, 0));
        assert_eq!(round_decimal_type(2, 1, 5), (2, 1));
        assert_eq!(round_decimal_type(38, 2, 0), (37, 0));
    }
}
