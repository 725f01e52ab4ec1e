//! The one error type of tidemark, split by who is at fault.
//!
//! The CLI maps [`Error::exit_code`] onto its documented exit codes and
//! prints plan errors with the offending SQL line and a caret.

use crate::span::{Span, SpanRender};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user's SQL is wrong: it does not parse, or it does not mean
    /// anything tidemark can run.
    #[error("{message}")]
    Plan {
        message: String,
        span: Span,
        hint: Option<String>,
    },
    /// The data is wrong: a field that does not parse, a short row. The
    /// message names the file, line and field.
    #[error("{0}")]
    Input(String),
    /// A query failed while running: a failing CAST, a division by zero.
    #[error("{0}")]
    Execution(String),
    /// The environment failed us: a file that cannot be opened or written.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// A broken invariant inside tidemark.
    #[error("internal error: {0}; this is a bug in tidemark, please report it")]
    Internal(String),
}

impl Error {
    pub fn plan(message: impl Into<String>, span: Span) -> Self {
        Error::Plan {
            message: message.into(),
            span,
            hint: None,
        }
    }

    pub fn with_hint(self, new_hint: impl Into<String>) -> Self {
        match self {
            Error::Plan { message, span, .. } => Error::Plan {
                message,
                span,
                hint: Some(new_hint.into()),
            },
            other => other,
        }
    }

    /// Gives a plan error without a position the given one.
    pub fn or_span(self, fallback: Span) -> Self {
        match self {
            Error::Plan {
                message,
                span,
                hint,
            } if !span.is_known() => Error::Plan {
                message,
                span: fallback,
                hint,
            },
            other => other,
        }
    }

    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    /// The exit code of the `tidemark` command for this error: 1 for every
    /// kind (2 is kept for usage errors, which never become an `Error`).
    pub fn exit_code(&self) -> i32 {
        1
    }

    /// The error as a user reads it: for SQL errors, the position, the line
    /// of `source` with a caret and the hint.
    pub fn render(&self, file: &str, source: &str) -> String {
        match self {
            Error::Plan {
                message,
                span,
                hint,
            } => {
                let mut out = String::new();
                if span.is_known() {
                    out.push_str(&format!("error: {file}:{span}: {message}\n"));
                    out.push_str(
                        &SpanRender {
                            source,
                            span: *span,
                        }
                        .to_string(),
                    );
                    out.push('\n');
                } else {
                    out.push_str(&format!("error: {file}: {message}\n"));
                }
                if let Some(hint) = hint {
                    out.push_str(&format!("hint: {hint}\n"));
                }
                out
            }
            other => format!("error: {other}\n"),
        }
    }
}

impl From<arrow::error::ArrowError> for Error {
    fn from(e: arrow::error::ArrowError) -> Self {
        match e {
            arrow::error::ArrowError::DivideByZero => Error::Execution("division by zero".into()),
            arrow::error::ArrowError::ArithmeticOverflow(m) => Error::Execution(m),
            arrow::error::ArrowError::CastError(m) => Error::Execution(m),
            other => Error::Internal(format!("arrow: {other}")),
        }
    }
}

/// Builds an [`Error::Plan`]: `plan_err!(span, "unknown column {name}")`.
#[macro_export]
macro_rules! plan_err {
    ($span:expr, $($arg:tt)*) => {
        Err($crate::Error::plan(format!($($arg)*), $span))
    };
}

/// Builds an [`Error::Internal`].
#[macro_export]
macro_rules! internal_err {
    ($($arg:tt)*) => {
        Err($crate::Error::Internal(format!($($arg)*)))
    };
}
