//! Fuzz target: a SQL script, planned without being run.
//! See `docs/fuzzing.md`.

use tidemark_fuzz::{check, scratch_dir, Target};

fn main() {
    let dir = scratch_dir(Target::Sql);
    afl::fuzz!(|data: &[u8]| {
        if let Err(failure) = check(Target::Sql, &dir, data) {
            panic!("{failure}");
        }
    });
}
