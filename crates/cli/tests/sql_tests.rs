//! Runs the golden-file suite under `sql-tests/` as part of `cargo test`,
//! each case at the default batch size and at batch sizes 1 and 7.
//! Arguments that are not flags filter cases by path substring.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../sql-tests");
    let root = root.canonicalize().unwrap_or(root);
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let cases = match tidemark::golden::discover(&[root]) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot list sql-tests: {e}");
            return ExitCode::FAILURE;
        }
    };
    let total = cases.len();
    let cases: Vec<_> = cases
        .into_iter()
        .filter(|c| {
            filters.is_empty()
                || filters
                    .iter()
                    .any(|f| c.to_string_lossy().contains(f.as_str()))
        })
        .collect();
    let filtered_out = total - cases.len();
    let mut out = std::io::stdout();
    match tidemark::golden::run_all(&cases, false, &mut out) {
        Ok((passed, failed)) => {
            let status = if failed == 0 { "ok" } else { "FAILED" };
            println!(
                "\ntest result: {status}. {passed} passed; {failed} failed; 0 ignored; 0 measured; {filtered_out} filtered out"
            );
            if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
