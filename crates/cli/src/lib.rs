//! The `tidemark` command's library: sessions that run scripts
//! ([`Session`]), the run summary ([`summary`]), the interactive client
//! ([`repl`]), and the golden-file test runner ([`golden`]) that `tidemark
//! test` and `cargo test` share.

mod checkpoint;
pub mod export;
pub mod golden;
mod journal;
mod late;
pub mod live;
mod progress;
pub mod repl;
pub mod report;
mod session;
mod show;
pub mod summary;
mod tableau;

pub use session::{script_dir, unread_setting, Output, Session};
