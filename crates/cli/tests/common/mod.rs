//! What several integration tests share: a small seeded generator,
//! environment-variable knobs for longer runs, running a script for its
//! output, finding a tool CI installs, and the test broker
//! ([`kafka`]).

#![allow(dead_code)]

pub mod kafka;

/// splitmix64: a seeded stream of numbers, the same on every machine.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Runs `sql` in `session` and returns what it printed on stdout; a
/// failing script fails the test with the error as the user sees it.
pub fn run_script(session: &mut tidemark::Session, sql: &str) -> String {
    let (mut rows, mut summary) = (Vec::new(), Vec::new());
    let result = session.execute_script(
        sql,
        &mut tidemark::Output {
            rows: &mut rows,
            summary: &mut summary,
            timing: false,
        },
    );
    if let Err(e) = result {
        panic!("{}", e.render("script", sql));
    }
    String::from_utf8(rows).expect("UTF-8 output")
}

/// The number in environment variable `name`, or `default`.
pub fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A program a test needs that CI installs and names in environment
/// variable `env` (`.ci/run`): there, a missing one fails the test.
/// Elsewhere it is looked for at `usual`, and the test is skipped (None,
/// with a note) without it.
pub fn ci_tool(env: &str, usual: &str) -> Option<std::path::PathBuf> {
    match std::env::var_os(env) {
        Some(path) => {
            let path = std::path::PathBuf::from(path);
            assert!(path.exists(), "{env}={} does not exist", path.display());
            Some(path)
        }
        None => {
            let found = std::path::Path::new(usual);
            if found.exists() {
                Some(found.to_path_buf())
            } else {
                eprintln!("skipped: no {usual} (CI installs it and sets {env})");
                None
            }
        }
    }
}
