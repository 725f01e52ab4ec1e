//! tidemark's SQL front end.
//!
//! - [`parse_script`] turns SQL text into [`Statement`]s: sqlparser with the
//!   [`FlinkDialect`], plus tidemark's own parsing of `CREATE TABLE ...
//!   WATERMARK FOR` and `SET`.
//! - [`Catalog`] checks and stores declared tables and views, and shows
//!   them again (`SHOW CREATE TABLE`).
//! - [`QueryBinder`] binds a query to a [`LogicalPlan`].

mod binder;
mod catalog;
mod dialect;
mod expr_binder;
mod functions;
mod join;
mod over;
mod plan;
mod show;
mod statement;
mod table_options;
mod types;
mod window_tvf;

pub use binder::{insert_plan, QueryBinder};
pub use catalog::Catalog;
pub use dialect::FlinkDialect;
pub use expr_binder::{interval_millis, nearest};
pub use plan::{LogicalPlan, WindowSpec, WindowedRows};
pub use show::{quote_ident, quote_string};
pub use sqlparser::ast as sql_ast;
pub use statement::{options_map, parse_script, span_of, ColumnDef, CreateTable, Statement};
pub use tidemark_common::window::JoinType;
pub use window_tvf::{split_call, TvfCall};
