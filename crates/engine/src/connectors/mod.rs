//! Where rows come from and go to: a declared table read as a stream
//! ([`source`]) or written as a sink ([`sink`]), and one module per
//! connector: [`filesystem`] (files and folders, read once or followed),
//! [`stdin`], [`datagen`], [`nexmark`] and [`jdbc`] (PostgreSQL).

pub mod datagen;
pub mod filesystem;
pub mod jdbc;
pub mod nexmark;
pub mod sink;
pub mod source;
pub mod stdin;
