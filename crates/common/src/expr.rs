//! Bound scalar expressions and aggregate calls.
//!
//! The SQL front end binds sqlparser's AST into these trees (columns by
//! index, every node typed with Flink's result-type rules); the engine
//! evaluates them over whole Arrow batches with arrow's kernels. They live
//! here because both sides speak them.

use crate::types::SqlType;
use datafusion_common::ScalarValue;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Column {
        index: usize,
        name: String,
        ty: SqlType,
    },
    Literal {
        value: ScalarValue,
        ty: SqlType,
    },
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
        ty: SqlType,
    },
    Not(Box<Expr>),
    Negate(Box<Expr>),
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    /// `CAST` (errors on a value that does not convert) or `TRY_CAST`
    /// (gives NULL instead).
    Cast {
        expr: Box<Expr>,
        to: SqlType,
        try_cast: bool,
    },
    /// `CASE WHEN c THEN v ... ELSE e END`; a `CASE x WHEN y` is bound to
    /// `x = y` conditions.
    Case {
        branches: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
        ty: SqlType,
    },
    Coalesce {
        args: Vec<Expr>,
        ty: SqlType,
    },
    /// A timestamp shifted by a constant number of milliseconds
    /// (`ts - INTERVAL '5' SECOND`).
    TimestampAdd {
        expr: Box<Expr>,
        millis: i64,
    },
    Function {
        func: ScalarFunction,
        args: Vec<Expr>,
        ty: SqlType,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Plus,
    Minus,
    Multiply,
    Divide,
    Modulo,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    And,
    Or,
    Concat,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Plus => "+",
            BinaryOp::Minus => "-",
            BinaryOp::Multiply => "*",
            BinaryOp::Divide => "/",
            BinaryOp::Modulo => "%",
            BinaryOp::Eq => "=",
            BinaryOp::NotEq => "<>",
            BinaryOp::Lt => "<",
            BinaryOp::LtEq => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::GtEq => ">=",
            BinaryOp::And => "AND",
            BinaryOp::Or => "OR",
            BinaryOp::Concat => "||",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq
                | BinaryOp::NotEq
                | BinaryOp::Lt
                | BinaryOp::LtEq
                | BinaryOp::Gt
                | BinaryOp::GtEq
        )
    }
}

/// Scalar functions beyond operators, CAST, CASE and COALESCE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarFunction {
    Upper,
    Lower,
    CharLength,
    Abs,
    /// `TO_TIMESTAMP_LTZ(epoch, precision)`: precision 0 reads seconds,
    /// 3 reads milliseconds.
    ToTimestampLtz {
        millis: bool,
    },
    /// `PROCTIME()`: the engine clock's time as a row is read; only as a
    /// whole computed column, which the source fills in.
    ProcTime,
    /// `TO_TIMESTAMP(text [, format])`: a TIMESTAMP(3) read with a chrono
    /// format (the binder translates Flink's Java pattern into its second
    /// argument); NULL when the text does not match.
    ToTimestamp,
    /// `CURRENT_WATERMARK(rowtime)`: the watermark in force when the row
    /// arrived, NULL before the first; the operator evaluating it supplies
    /// the per-row watermarks.
    CurrentWatermark,
    /// `SUBSTRING(s FROM pos [FOR len])`: 1-based, a negative `pos`
    /// counts from the end, a negative `len` gives NULL.
    Substring,
    /// `CONCAT(s, ...)`: NULL when any argument is.
    Concat,
    /// `CONCAT_WS(sep, s, ...)`: NULL arguments are skipped.
    ConcatWs,
    /// `TRIM([BOTH|LEADING|TRAILING] chars FROM s)`: the second argument
    /// is the set of characters to strip.
    Trim {
        leading: bool,
        trailing: bool,
    },
    Replace,
    /// `REGEXP_EXTRACT(s, regex, group)`: NULL when nothing matches.
    RegexpExtract,
    /// `SPLIT_INDEX(s, sep, index)`: the 0-based piece, NULL past the end.
    SplitIndex,
    /// `ROUND(x, digits)` with the digits a constant, HALF_UP.
    Round {
        digits: i32,
    },
    Power,
    /// `EXTRACT(unit FROM ts)` of a wall-clock TIMESTAMP, as BIGINT.
    Extract(TimeUnit),
    /// `FLOOR(ts TO unit)` of a wall-clock TIMESTAMP.
    FloorTime(TimeUnit),
    /// `CEIL(ts TO unit)` of a wall-clock TIMESTAMP.
    CeilTime(TimeUnit),
    /// `DATE_FORMAT(ts, pattern)`: a wall-clock TIMESTAMP written with a
    /// java.time pattern literal, or text written with a SimpleDateFormat
    /// one (see [`crate::date_pattern`]).
    DateFormat,
    /// `UNIX_TIMESTAMP(text, pattern)`: seconds since the epoch of the text
    /// read with a Java date pattern literal in the session zone;
    /// `i64::MIN` when it does not parse, as in Flink.
    UnixTimestamp,
    /// `s LIKE pattern [ESCAPE 'c']`: `%` any characters (line breaks
    /// too), `_` any one; without ESCAPE a backslash is a plain character,
    /// as in Flink. Case-sensitive.
    Like {
        escape: Option<char>,
    },
    /// `TIMESTAMPDIFF(unit, t1, t2)`: whole units from `t1` to `t2` as INT
    /// (the BIGINT count narrowed by wrapping, as Flink). Fixed units
    /// truncate toward zero; MONTH, QUARTER and YEAR count calendar months
    /// with month ends clamped, as Flink's month arithmetic does.
    TimestampDiff(TimeUnit),
    /// `TIMESTAMPADD(unit, n, ts)`: `ts` moved by `n` units; months clamp
    /// to the month's last day.
    TimestampAddUnit(TimeUnit),
    /// `LOCATE(needle, s [, start])`, also `POSITION(needle IN s)`: the
    /// 1-based character position, 0 when absent.
    Locate,
    /// `INITCAP(s)`: words of ASCII letters and digits capitalised.
    InitCap,
    /// `LPAD(s, len, pad)`.
    Lpad,
    /// `RPAD(s, len, pad)`.
    Rpad,
    /// `REPEAT(s, n)`.
    Repeat,
    Reverse,
    /// `REGEXP(s, regex)`: whether the regex matches anywhere in `s`.
    Regexp,
    /// `REGEXP_REPLACE(s, regex, replacement)`, the replacement literal.
    RegexpReplace,
    /// `LEFT(s, n)`.
    Left,
    /// `RIGHT(s, n)`.
    Right,
    /// `ASCII(s)`: the first UTF-8 byte, signed.
    Ascii,
    /// `CHR(n)`: the Latin-1 character `n` modulo 256.
    Chr,
    /// `OVERLAY(s PLACING r FROM start [FOR len])`.
    Overlay,
    /// `TRANSLATE(s, from, to)`.
    Translate,
    /// `LN(x)`, also `LOG(x)`: DOUBLE.
    Ln,
    /// `LOG(base, x)`: DOUBLE.
    Log,
    Log10,
    Log2,
    Exp,
    Sqrt,
    /// `SIGN(x)`: -1, 0 or 1 in the type of `x`.
    Sign,
    /// `TRUNCATE(x [, digits])` with the digits a constant: toward zero.
    Truncate {
        digits: i32,
    },
    /// `CEIL(x)` of a number.
    CeilNumber,
    /// `FLOOR(x)` of a number.
    FloorNumber,
    /// `BIN(n)`: the 64-bit two's complement in binary.
    Bin,
    /// `HEX(n)` (two's complement) or `HEX(s)` (UTF-8 bytes).
    Hex,
    /// `FROM_UNIXTIME(seconds [, format])`: the instant written in the
    /// session zone with a Java date pattern literal.
    FromUnixtime,
    /// `GREATEST(a, b, ...)`: NULL when any argument is.
    Greatest,
    /// `LEAST(a, b, ...)`: NULL when any argument is.
    Least,
}

/// The units of `EXTRACT`, `FLOOR(.. TO ..)` and `CEIL(.. TO ..)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Year,
    Quarter,
    Month,
    /// ISO week number for EXTRACT; weeks from Sunday for FLOOR and CEIL,
    /// as Flink.
    Week,
    Day,
    Hour,
    Minute,
    Second,
    /// Day of week, 1 (Sunday) to 7 (Saturday).
    DayOfWeek,
    /// Day of year, 1 to 366.
    DayOfYear,
}

impl TimeUnit {
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Year => "YEAR",
            TimeUnit::Quarter => "QUARTER",
            TimeUnit::Month => "MONTH",
            TimeUnit::Week => "WEEK",
            TimeUnit::Day => "DAY",
            TimeUnit::Hour => "HOUR",
            TimeUnit::Minute => "MINUTE",
            TimeUnit::Second => "SECOND",
            TimeUnit::DayOfWeek => "DOW",
            TimeUnit::DayOfYear => "DOY",
        }
    }
}

impl ScalarFunction {
    pub fn name(self) -> &'static str {
        match self {
            ScalarFunction::Upper => "UPPER",
            ScalarFunction::Lower => "LOWER",
            ScalarFunction::CharLength => "CHAR_LENGTH",
            ScalarFunction::Abs => "ABS",
            ScalarFunction::ToTimestampLtz { .. } => "TO_TIMESTAMP_LTZ",
            ScalarFunction::ToTimestamp => "TO_TIMESTAMP",
            ScalarFunction::ProcTime => "PROCTIME",
            ScalarFunction::CurrentWatermark => "CURRENT_WATERMARK",
            ScalarFunction::Substring => "SUBSTRING",
            ScalarFunction::Concat => "CONCAT",
            ScalarFunction::ConcatWs => "CONCAT_WS",
            ScalarFunction::Trim { .. } => "TRIM",
            ScalarFunction::Replace => "REPLACE",
            ScalarFunction::RegexpExtract => "REGEXP_EXTRACT",
            ScalarFunction::Like { .. } => "LIKE",
            ScalarFunction::SplitIndex => "SPLIT_INDEX",
            ScalarFunction::Round { .. } => "ROUND",
            ScalarFunction::Power => "POWER",
            ScalarFunction::Extract(_) => "EXTRACT",
            ScalarFunction::FloorTime(_) => "FLOOR",
            ScalarFunction::CeilTime(_) => "CEIL",
            ScalarFunction::DateFormat => "DATE_FORMAT",
            ScalarFunction::UnixTimestamp => "UNIX_TIMESTAMP",
            ScalarFunction::TimestampDiff(_) => "TIMESTAMPDIFF",
            ScalarFunction::TimestampAddUnit(_) => "TIMESTAMPADD",
            ScalarFunction::Locate => "LOCATE",
            ScalarFunction::InitCap => "INITCAP",
            ScalarFunction::Lpad => "LPAD",
            ScalarFunction::Rpad => "RPAD",
            ScalarFunction::Repeat => "REPEAT",
            ScalarFunction::Reverse => "REVERSE",
            ScalarFunction::Regexp => "REGEXP",
            ScalarFunction::RegexpReplace => "REGEXP_REPLACE",
            ScalarFunction::Left => "LEFT",
            ScalarFunction::Right => "RIGHT",
            ScalarFunction::Ascii => "ASCII",
            ScalarFunction::Chr => "CHR",
            ScalarFunction::Overlay => "OVERLAY",
            ScalarFunction::Translate => "TRANSLATE",
            ScalarFunction::Ln => "LN",
            ScalarFunction::Log => "LOG",
            ScalarFunction::Log10 => "LOG10",
            ScalarFunction::Log2 => "LOG2",
            ScalarFunction::Exp => "EXP",
            ScalarFunction::Sqrt => "SQRT",
            ScalarFunction::Sign => "SIGN",
            ScalarFunction::Truncate { .. } => "TRUNCATE",
            ScalarFunction::CeilNumber => "CEIL",
            ScalarFunction::FloorNumber => "FLOOR",
            ScalarFunction::Bin => "BIN",
            ScalarFunction::Hex => "HEX",
            ScalarFunction::FromUnixtime => "FROM_UNIXTIME",
            ScalarFunction::Greatest => "GREATEST",
            ScalarFunction::Least => "LEAST",
        }
    }
}

impl Expr {
    /// The value of an integer literal (INT or BIGINT).
    pub fn int_literal(&self) -> Option<i64> {
        match self {
            Expr::Literal {
                value: ScalarValue::Int32(Some(v)),
                ..
            } => Some(i64::from(*v)),
            Expr::Literal {
                value: ScalarValue::Int64(Some(v)),
                ..
            } => Some(*v),
            _ => None,
        }
    }

    pub fn ty(&self) -> SqlType {
        match self {
            Expr::Column { ty, .. }
            | Expr::Literal { ty, .. }
            | Expr::Binary { ty, .. }
            | Expr::Case { ty, .. }
            | Expr::Coalesce { ty, .. }
            | Expr::Function { ty, .. } => ty.clone(),
            Expr::Not(_) | Expr::IsNull { .. } => SqlType::Boolean,
            Expr::Negate(e) => e.ty(),
            Expr::Cast { to, .. } => to.clone(),
            Expr::TimestampAdd { expr, .. } => expr.ty(),
        }
    }

    /// A BOOLEAN literal.
    pub fn boolean(value: bool) -> Expr {
        Expr::Literal {
            value: ScalarValue::Boolean(Some(value)),
            ty: SqlType::Boolean,
        }
    }

    pub fn column(index: usize, name: impl Into<String>, ty: SqlType) -> Expr {
        Expr::Column {
            index,
            name: name.into(),
            ty,
        }
    }

    /// The column this expression is, if it is a bare column reference.
    pub fn as_column(&self) -> Option<usize> {
        match self {
            Expr::Column { index, .. } => Some(*index),
            _ => None,
        }
    }

    /// Whether `CURRENT_WATERMARK` appears in this expression.
    pub fn reads_watermark(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| {
            found |= matches!(
                e,
                Expr::Function {
                    func: ScalarFunction::CurrentWatermark,
                    ..
                }
            )
        });
        found
    }

    /// Replaces every `CURRENT_WATERMARK(..)` by a read of column `index`,
    /// where the evaluating operator puts the per-row watermarks.
    pub fn with_watermark_column(mut self, index: usize) -> Expr {
        self.rewrite(&mut |e| {
            if let Expr::Function {
                func: ScalarFunction::CurrentWatermark,
                ty,
                ..
            } = e
            {
                *e = Expr::column(index, "CURRENT_WATERMARK", ty.clone());
            }
        });
        self
    }

    /// Calls `f` on this expression and every one inside it.
    pub fn visit(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Column { .. } | Expr::Literal { .. } => {}
            Expr::Binary { left, right, .. } => {
                left.visit(f);
                right.visit(f);
            }
            Expr::Not(e) | Expr::Negate(e) => e.visit(f),
            Expr::IsNull { expr, .. }
            | Expr::Cast { expr, .. }
            | Expr::TimestampAdd { expr, .. } => expr.visit(f),
            Expr::Case {
                branches,
                otherwise,
                ..
            } => {
                for (c, v) in branches {
                    c.visit(f);
                    v.visit(f);
                }
                if let Some(o) = otherwise {
                    o.visit(f);
                }
            }
            Expr::Coalesce { args, .. } | Expr::Function { args, .. } => {
                args.iter().for_each(|a| a.visit(f))
            }
        }
    }

    /// Calls `f` on every expression inside this one, then on it.
    fn rewrite(&mut self, f: &mut impl FnMut(&mut Expr)) {
        match self {
            Expr::Column { .. } | Expr::Literal { .. } => {}
            Expr::Binary { left, right, .. } => {
                left.rewrite(f);
                right.rewrite(f);
            }
            Expr::Not(e) | Expr::Negate(e) => e.rewrite(f),
            Expr::IsNull { expr, .. }
            | Expr::Cast { expr, .. }
            | Expr::TimestampAdd { expr, .. } => expr.rewrite(f),
            Expr::Case {
                branches,
                otherwise,
                ..
            } => {
                for (c, v) in branches {
                    c.rewrite(f);
                    v.rewrite(f);
                }
                if let Some(o) = otherwise {
                    o.rewrite(f);
                }
            }
            Expr::Coalesce { args, .. } | Expr::Function { args, .. } => {
                args.iter_mut().for_each(|a| a.rewrite(f))
            }
        }
        f(self);
    }

    /// This expression with each column `c` it reads replaced by `f(c)`
    /// (kept where `f` gives None): the expression moved under the node
    /// that computed its input's columns.
    pub fn substitute_columns(mut self, f: &mut impl FnMut(usize) -> Option<Expr>) -> Expr {
        self.rewrite(&mut |e| {
            if let Expr::Column { index, .. } = e {
                if let Some(new) = f(*index) {
                    *e = new;
                }
            }
        });
        self
    }

    /// Calls `f` on every column index this expression reads.
    pub fn visit_columns(&self, f: &mut impl FnMut(usize)) {
        self.visit(&mut |e| {
            if let Expr::Column { index, .. } = e {
                f(*index)
            }
        });
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Column { name, .. } => write!(f, "{name}"),
            Expr::Literal { value, ty } => {
                if value.is_null() {
                    write!(f, "NULL")
                } else if ty.is_string() {
                    write!(f, "'{value}'")
                } else {
                    write!(f, "{value}")
                }
            }
            Expr::Binary {
                op, left, right, ..
            } => write!(f, "({left} {} {right})", op.symbol()),
            Expr::Not(e) => write!(f, "NOT {e}"),
            Expr::Negate(e) => write!(f, "-{e}"),
            Expr::IsNull { expr, negated } => {
                write!(f, "{expr} IS {}NULL", if *negated { "NOT " } else { "" })
            }
            Expr::Cast { expr, to, try_cast } => {
                write!(
                    f,
                    "{}({expr} AS {to})",
                    if *try_cast { "TRY_CAST" } else { "CAST" }
                )
            }
            Expr::Case {
                branches,
                otherwise,
                ..
            } => {
                write!(f, "CASE")?;
                for (c, v) in branches {
                    write!(f, " WHEN {c} THEN {v}")?;
                }
                if let Some(o) = otherwise {
                    write!(f, " ELSE {o}")?;
                }
                write!(f, " END")
            }
            Expr::Coalesce { args, .. } => write!(f, "COALESCE({})", join(args)),
            Expr::TimestampAdd { expr, millis } => {
                if *millis < 0 {
                    write!(f, "{expr} - {}", crate::window::ms(millis.saturating_neg()))
                } else {
                    write!(f, "{expr} + {}", crate::window::ms(*millis))
                }
            }
            Expr::Function {
                func: ScalarFunction::ToTimestampLtz { millis },
                args,
                ..
            } => {
                let precision = if *millis { 3 } else { 0 };
                write!(f, "TO_TIMESTAMP_LTZ({}, {precision})", join(args))
            }
            Expr::Function {
                func: ScalarFunction::Extract(unit),
                args,
                ..
            } => write!(f, "EXTRACT({} FROM {})", unit.name(), join(args)),
            Expr::Function {
                func: func @ (ScalarFunction::FloorTime(unit) | ScalarFunction::CeilTime(unit)),
                args,
                ..
            } => write!(f, "{}({} TO {})", func.name(), join(args), unit.name()),
            Expr::Function {
                func:
                    func
                    @ (ScalarFunction::TimestampDiff(unit) | ScalarFunction::TimestampAddUnit(unit)),
                args,
                ..
            } => write!(f, "{}({}, {})", func.name(), unit.name(), join(args)),
            Expr::Function {
                func: ScalarFunction::Round { digits },
                args,
                ..
            } => write!(f, "ROUND({}, {digits})", join(args)),
            Expr::Function {
                func: ScalarFunction::Truncate { digits },
                args,
                ..
            } => write!(f, "TRUNCATE({}, {digits})", join(args)),
            Expr::Function { func, args, .. } => write!(f, "{}({})", func.name(), join(args)),
        }
    }
}

fn join(args: &[Expr]) -> String {
    args.iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The aggregate functions of a window aggregation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggregateFunction {
    CountStar,
    Count,
    Sum,
    Min,
    Max,
    Avg,
    ListAgg,
    FirstValue,
    LastValue,
    /// OVER only: the row's number in its key, 1, 2, 3, ...
    RowNumber,
    /// OVER only: as Flink computes them over a rowtime order, the number
    /// of the key's rows up to the current row's rowtime, its peers
    /// included.
    Rank,
    DenseRank,
    /// OVER only: the argument `n` rows back (`offset` in the call).
    Lag,
}

impl AggregateFunction {
    pub fn name(self) -> &'static str {
        match self {
            AggregateFunction::CountStar | AggregateFunction::Count => "COUNT",
            AggregateFunction::Sum => "SUM",
            AggregateFunction::Min => "MIN",
            AggregateFunction::Max => "MAX",
            AggregateFunction::Avg => "AVG",
            AggregateFunction::ListAgg => "LISTAGG",
            AggregateFunction::FirstValue => "FIRST_VALUE",
            AggregateFunction::LastValue => "LAST_VALUE",
            AggregateFunction::RowNumber => "ROW_NUMBER",
            AggregateFunction::Rank => "RANK",
            AggregateFunction::DenseRank => "DENSE_RANK",
            AggregateFunction::Lag => "LAG",
        }
    }
}

/// One aggregate of a window aggregation. Its arguments are columns of the
/// aggregation's input (the planner projects expressions into columns
/// first), and `separator` is LISTAGG's constant separator.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateCall {
    pub func: AggregateFunction,
    pub arg: Option<usize>,
    pub arg_type: Option<SqlType>,
    pub distinct: bool,
    pub separator: Option<String>,
    /// LAG's offset: how many rows back.
    pub offset: u32,
    /// LAG's default: the input column read from the current row when
    /// the key has no row that far back.
    pub lag_default: Option<usize>,
    pub ty: SqlType,
}

impl fmt::Display for AggregateCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let distinct = if self.distinct { "DISTINCT " } else { "" };
        match self.arg {
            None => write!(f, "{}(*)", self.func.name()),
            Some(a) => write!(f, "{}({distinct}${a})", self.func.name()),
        }
    }
}
