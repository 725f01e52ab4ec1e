//! The window kinds of the window table-valued functions, as one closed
//! enum: the front end validates and normalises them in one place, the
//! planner matches on them exhaustively to choose an operator.

use std::fmt;

/// A window TVF's shape; all lengths are milliseconds, validated positive
/// and (for HOP and CUMULATE) integral multiples by the front end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowKind {
    Tumble {
        size: i64,
        offset: i64,
    },
    Hop {
        slide: i64,
        size: i64,
        offset: i64,
    },
    Cumulate {
        step: i64,
        max_size: i64,
        offset: i64,
    },
    Session {
        gap: i64,
    },
}

impl WindowKind {
    pub fn name(&self) -> &'static str {
        match self {
            WindowKind::Tumble { .. } => "TUMBLE",
            WindowKind::Hop { .. } => "HOP",
            WindowKind::Cumulate { .. } => "CUMULATE",
            WindowKind::Session { .. } => "SESSION",
        }
    }
}

impl fmt::Display for WindowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WindowKind::Tumble { size, offset } => {
                write!(f, "TUMBLE(size={}{})", ms(*size), show_offset(*offset))
            }
            WindowKind::Hop {
                slide,
                size,
                offset,
            } => {
                write!(
                    f,
                    "HOP(slide={}, size={}{})",
                    ms(*slide),
                    ms(*size),
                    show_offset(*offset)
                )
            }
            WindowKind::Cumulate {
                step,
                max_size,
                offset,
            } => write!(
                f,
                "CUMULATE(step={}, max_size={}{})",
                ms(*step),
                ms(*max_size),
                show_offset(*offset)
            ),
            WindowKind::Session { gap } => write!(f, "SESSION(gap={})", ms(*gap)),
        }
    }
}

fn show_offset(offset: i64) -> String {
    if offset == 0 {
        String::new()
    } else {
        format!(", offset={}", ms(offset))
    }
}

/// A duration the way people write it: `5 s`, `1 min`, `250 ms`.
pub fn ms(v: i64) -> String {
    const UNITS: [(i64, &str); 4] = [
        (86_400_000, "d"),
        (3_600_000, "h"),
        (60_000, "min"),
        (1_000, "s"),
    ];
    if v != 0 && v != i64::MIN {
        for (unit, name) in UNITS {
            if v % unit == 0 {
                return format!("{} {name}", v / unit);
            }
        }
    }
    format!("{v} ms")
}

/// An OVER window's frame: the rows before the current one it covers,
/// up to the current row (and, for RANGE, the current row's peers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverFrame {
    pub units: FrameUnits,
    /// How far back: `n` rows or `n` ms; `None` is UNBOUNDED PRECEDING.
    pub preceding: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameUnits {
    Rows,
    Range,
}

impl fmt::Display for OverFrame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (units, back) = match (self.units, self.preceding) {
            (FrameUnits::Rows, None) => ("ROWS", "UNBOUNDED".to_string()),
            (FrameUnits::Range, None) => ("RANGE", "UNBOUNDED".to_string()),
            (FrameUnits::Rows, Some(n)) => ("ROWS", n.to_string()),
            (FrameUnits::Range, Some(d)) => ("RANGE", ms(d)),
        };
        write!(f, "{units} BETWEEN {back} PRECEDING AND CURRENT ROW")
    }
}

/// Which rows of a window join come out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinType {
    Inner,
    Left,
    Right,
    Full,
    /// Left rows with a partner, each once (`EXISTS`, `IN`).
    Semi,
    /// Left rows without a partner (`NOT EXISTS`; `NOT IN`, where the IN
    /// key is NULL-aware: a NULL on either side is "unknown" and so never
    /// proves the absence of a partner).
    Anti {
        null_aware: bool,
    },
}

impl JoinType {
    /// Whether the output has the right input's columns.
    pub fn keeps_right(self) -> bool {
        !matches!(self, JoinType::Semi | JoinType::Anti { .. })
    }
}
