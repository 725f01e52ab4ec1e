//! The `tidemark` command's library: sessions that run scripts
//! ([`Session`]), the run summary ([`summary`]), and the golden-file test
//! runner ([`golden`]) that `tidemark test` and `cargo test` share.

pub mod golden;
mod late;
mod session;
pub mod summary;

pub use session::{script_dir, Output, Session};
