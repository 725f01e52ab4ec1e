//! Where the client keeps its history of statements. One file per user, so
//! that Up and Ctrl-R find statements from earlier sessions; overridable
//! for tests and for people who keep such files elsewhere, and off
//! entirely on request.

use std::ffi::OsString;
use std::path::PathBuf;

/// The environment variable naming the history file; empty turns it off.
pub const HISTORY_ENV: &str = "TIDEMARK_HISTORY";

/// The history file, if there is one: `--no-history` turns it off,
/// `--history FILE` names it, then `$TIDEMARK_HISTORY` (empty: off), then
/// `tidemark/history` in the user's data folder (`$XDG_DATA_HOME`, or
/// `~/.local/share`, on Linux).
pub fn history_path(
    no_history: bool,
    flag: Option<PathBuf>,
    env: Option<OsString>,
    data_dir: Option<PathBuf>,
) -> Option<PathBuf> {
    if no_history {
        return None;
    }
    if let Some(path) = flag {
        return Some(path);
    }
    if let Some(path) = env {
        return (!path.is_empty()).then(|| PathBuf::from(path));
    }
    data_dir.map(|d| d.join("tidemark").join("history"))
}

/// [`history_path`] for this process: its flags, environment and user.
pub fn default_history_path(no_history: bool, flag: Option<PathBuf>) -> Option<PathBuf> {
    history_path(
        no_history,
        flag,
        std::env::var_os(HISTORY_ENV),
        dirs::data_dir(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_then_environment_then_data_folder() {
        let data = Some(PathBuf::from("/data"));
        let env = Some(OsString::from("/env/h"));
        let flag = Some(PathBuf::from("/flag/h"));
        let cases = [
            (true, flag.clone(), env.clone(), None),
            (false, flag.clone(), env.clone(), Some("/flag/h")),
            (false, None, env.clone(), Some("/env/h")),
            (false, None, Some(OsString::new()), None),
            (false, None, None, Some("/data/tidemark/history")),
        ];
        for (no_history, flag, env, expected) in cases {
            assert_eq!(
                history_path(no_history, flag, env, data.clone()),
                expected.map(PathBuf::from)
            );
        }
        assert_eq!(history_path(false, None, None, None), None);
    }
}
