//! Replays the fuzz corpus in an ordinary build: every file under
//! `fuzz/corpus/<target>/` and `fuzz/crashes/<target>/` goes through the
//! same check as the AFL++ target of that name (see `docs/fuzzing.md`).
//! A file that ends in an internal error, or whose error panics when
//! rendered, fails the test with its name.

#[path = "../../../fuzz/src/checks.rs"]
#[allow(dead_code)]
mod checks;

use checks::{check, Target};
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files directly inside `dir`, sorted; none if it does not exist.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found
}

fn replay(target: Target) {
    let scratch = std::env::temp_dir().join(format!(
        "tidemark-fuzz-replay-{}-{}",
        target.name(),
        std::process::id()
    ));
    std::fs::create_dir_all(&scratch).expect("scratch folder");
    let corpus = inputs(&fuzz_dir().join("corpus").join(target.name()));
    assert!(
        !corpus.is_empty(),
        "no corpus for the {} target",
        target.name()
    );
    let crashes = inputs(&fuzz_dir().join("crashes").join(target.name()));
    let mut failures = Vec::new();
    for path in corpus.iter().chain(&crashes) {
        let data = std::fs::read(path).expect("readable input");
        if let Err(failure) = check(target, &scratch, &data) {
            failures.push(format!("{}: {failure}", path.display()));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        failures.is_empty(),
        "{} of {} {} inputs failed:\n{}",
        failures.len(),
        corpus.len() + crashes.len(),
        target.name(),
        failures.join("\n")
    );
}

#[test]
fn sql_corpus_plans_or_fails_cleanly() {
    replay(Target::Sql);
}

#[test]
fn csv_corpus_is_read_or_rejected_cleanly() {
    replay(Target::Csv);
}

#[test]
fn json_corpus_is_read_or_rejected_cleanly() {
    replay(Target::Json);
}

#[test]
fn every_target_has_its_folder() {
    for target in Target::ALL {
        assert!(
            fuzz_dir().join("corpus").join(target.name()).is_dir(),
            "fuzz/corpus/{} is missing",
            target.name()
        );
    }
}
