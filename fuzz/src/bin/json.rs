//! Fuzz target: the contents of a JSON-lines file, read through a table
//! with a column of every type. See `docs/fuzzing.md`.

use tidemark_fuzz::{check, scratch_dir, Target};

fn main() {
    let dir = scratch_dir(Target::Json);
    afl::fuzz!(|data: &[u8]| {
        if let Err(failure) = check(Target::Json, &dir, data) {
            panic!("{failure}");
        }
    });
}
