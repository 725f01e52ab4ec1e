//! The `filesystem` connector: a file read on several threads
//! ([`parallel`]) and files and folders written ([`sink`]).

pub mod parallel;
pub mod sink;
