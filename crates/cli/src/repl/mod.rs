//! The interactive client: `tidemark` with no arguments, or `tidemark
//! repl`. Statements run in one session as `tidemark run` runs a script's,
//! with results drawn as a table as they arrive, history kept across
//! sessions, completion, and Ctrl-C cancelling the running query.
//!
//! - [`input`]: where a statement ends in typed text.
//! - [`complete`]: the completion helper.
//! - [`history`]: where history is kept.

mod complete;
mod history;
mod input;

use crate::session::{Output, Session};
use complete::{Names, SqlHelper};
use input::Command;
use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{Cmd, ConditionalEventHandler, Editor, Event, EventContext, KeyEvent, RepeatCount};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tidemark_common::{ResultMode, KNOWN_OPTIONS};

pub use history::HISTORY_ENV;

const PROMPT: &str = "tidemark> ";
/// The prompt of a statement's further lines, as wide as [`PROMPT`] so
/// that what is typed lines up.
const CONTINUATION: &str = "       -> ";
/// Entries kept in the history file.
const HISTORY_SIZE: usize = 10_000;
/// Exit code after a forced stop (a second Ctrl-C while a query winds
/// down), as a shell reports a process ended by SIGINT.
const INTERRUPTED_EXIT: i32 = 130;

/// How the client was started.
pub struct ReplOptions {
    /// The history file; `None`: no history.
    pub history: Option<PathBuf>,
    /// `--set` options, already checked.
    pub session: Session,
}

/// Resolves the history file from the flags, the environment and the
/// user's data folder.
pub fn history_file(no_history: bool, flag: Option<PathBuf>) -> Option<PathBuf> {
    history::default_history_path(no_history, flag)
}

/// Records whether the line was empty when Ctrl-C was pressed: rustyline
/// reports the interrupt but not the line, and a Ctrl-C at an empty
/// prompt means something else (a step towards leaving) than one that
/// clears a line.
struct CtrlC(Arc<AtomicBool>);

impl ConditionalEventHandler for CtrlC {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        self.0.store(ctx.line().is_empty(), Ordering::Relaxed);
        Some(Cmd::Interrupt)
    }
}

struct Repl {
    session: Session,
    editor: Editor<SqlHelper, DefaultHistory>,
    history: Option<PathBuf>,
    /// Whether a statement is running (so SIGINT cancels it).
    running: Arc<AtomicBool>,
    interactive: bool,
    /// Whether any statement failed: with input from a pipe, the exit
    /// code says so, as `tidemark run`'s does.
    failed: bool,
}

/// Runs the client until QUIT, EXIT or end of input.
pub fn run(options: ReplOptions) -> ExitCode {
    let mut session = options.session;
    session.default_result_mode = ResultMode::Tableau;
    session.interactive = true;
    let interactive = std::io::stdin().is_terminal();
    let config = match Config::builder()
        .max_history_size(HISTORY_SIZE)
        .and_then(|b| b.history_ignore_dups(true))
    {
        Ok(b) => b
            .history_ignore_space(true)
            .completion_type(CompletionType::List)
            .build(),
        Err(e) => {
            eprintln!("error: cannot configure the line editor: {e}");
            return ExitCode::from(1);
        }
    };
    let mut editor = match Editor::<SqlHelper, DefaultHistory>::with_config(config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: cannot start the line editor: {e}");
            return ExitCode::from(1);
        }
    };
    editor.set_helper(Some(SqlHelper::default()));
    let empty_interrupt = Arc::new(AtomicBool::new(false));
    editor.bind_sequence(
        KeyEvent::ctrl('C'),
        rustyline::EventHandler::Conditional(Box::new(CtrlC(Arc::clone(&empty_interrupt)))),
    );
    if let Some(path) = &options.history {
        if path.exists() {
            if let Err(e) = editor.load_history(path) {
                eprintln!("warning: cannot read history {}: {e}", path.display());
            }
        } else if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Err(e) = std::fs::create_dir_all(dir) {
                eprintln!("warning: cannot create {}: {e}", dir.display());
            }
        }
    }
    let running = Arc::new(AtomicBool::new(false));
    install_interrupt_handler(&running, &session.cancel, interactive);
    let mut repl = Repl {
        session,
        editor,
        history: options.history,
        running,
        interactive,
        failed: false,
    };
    if interactive {
        println!(
            "tidemark {}: Flink SQL, one statement at a time. HELP; lists statements, QUIT; or Ctrl-D leaves.",
            env!("CARGO_PKG_VERSION")
        );
    }
    repl.refresh_names();
    repl.main_loop(&empty_interrupt)
}

/// SIGINT while a statement runs cancels it; a second one before it has
/// stopped ends the process, for a query stuck inside one batch. At the
/// prompt the terminal is in raw mode and Ctrl-C reaches the line editor
/// as a key instead. With input from a pipe there is no prompt to return
/// to, so SIGINT ends the process as usual.
fn install_interrupt_handler(
    running: &Arc<AtomicBool>,
    cancel: &Arc<AtomicBool>,
    interactive: bool,
) {
    let (running, cancel) = (Arc::clone(running), Arc::clone(cancel));
    let installed = ctrlc::set_handler(move || {
        if running.load(Ordering::SeqCst) {
            if cancel.swap(true, Ordering::SeqCst) {
                std::process::exit(INTERRUPTED_EXIT);
            }
        } else if !interactive {
            std::process::exit(INTERRUPTED_EXIT);
        }
    });
    if let Err(e) = installed {
        eprintln!("warning: Ctrl-C will not cancel queries: {e}");
    }
}

impl Repl {
    fn main_loop(&mut self, empty_interrupt: &AtomicBool) -> ExitCode {
        let mut pending = String::new();
        // A Ctrl-C at an empty prompt arms this; a second one leaves.
        let mut armed = false;
        loop {
            let prompt = if input::is_blank(&pending) {
                PROMPT
            } else {
                CONTINUATION
            };
            if let Some(h) = self.editor.helper_mut() {
                h.pending.clone_from(&pending);
            }
            match self.editor.readline(prompt) {
                Ok(line) => {
                    armed = false;
                    pending.push_str(&line);
                    pending.push('\n');
                    if let Some(command) = input::command(&pending) {
                        self.remember(pending.trim_end());
                        pending.clear();
                        if self.command(command) {
                            return self.exit_code();
                        }
                        continue;
                    }
                    let split = input::split(&pending);
                    if split.statements.is_empty() {
                        if input::is_blank(split.rest) {
                            pending.clear();
                        }
                        continue;
                    }
                    let done = pending.len() - split.rest.len();
                    self.remember(pending[..done].trim_end());
                    let statements: Vec<String> =
                        split.statements.iter().map(|s| s.to_string()).collect();
                    pending = if input::is_blank(split.rest) {
                        String::new()
                    } else {
                        split.rest.trim_start().to_string()
                    };
                    for statement in statements {
                        if self.statement(&statement) {
                            return self.exit_code();
                        }
                    }
                }
                Err(ReadlineError::Interrupted) => {
                    let was_empty = empty_interrupt.swap(false, Ordering::Relaxed);
                    if !input::is_blank(&pending) || !was_empty {
                        pending.clear();
                        armed = false;
                    } else if armed {
                        return ExitCode::SUCCESS;
                    } else {
                        armed = true;
                        eprintln!("(Ctrl-C again, QUIT; or Ctrl-D to leave)");
                    }
                }
                Err(ReadlineError::Eof) => {
                    // From a pipe, a last statement may lack its `;`; at a
                    // terminal, Ctrl-D abandons what was typed.
                    if !self.interactive && !input::is_blank(&pending) {
                        let rest = std::mem::take(&mut pending);
                        self.statement(&rest);
                    }
                    return self.exit_code();
                }
                Err(e) => {
                    eprintln!("error: cannot read input: {e}");
                    return ExitCode::from(1);
                }
            }
        }
    }

    /// Runs one statement (with its `;`); true if it asks to leave.
    fn statement(&mut self, text: &str) -> bool {
        if let Some(command) = input::command(text) {
            return self.command(command);
        }
        if input::is_blank(text) {
            return false;
        }
        // Spans count lines from the statement's first line, as typed.
        let text = text.trim_start();
        self.session.cancel.store(false, Ordering::SeqCst);
        self.running.store(true, Ordering::SeqCst);
        let stdout = std::io::stdout();
        let mut rows = stdout.lock();
        let mut summary = std::io::stderr();
        let result = self.session.execute_script(
            text,
            &mut Output {
                rows: &mut rows,
                summary: &mut summary,
                timing: true,
            },
        );
        self.running.store(false, Ordering::SeqCst);
        drop(rows);
        if let Err(e) = result {
            let _ = std::io::stdout().flush();
            eprint!("{}", e.render("stdin", text));
            self.failed = true;
        }
        self.refresh_names();
        false
    }

    /// At a terminal, errors were seen as they happened: leaving is a
    /// success. From a pipe, a failed statement fails the run.
    fn exit_code(&self) -> ExitCode {
        if self.failed && !self.interactive {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        }
    }

    /// Runs a client command; true if it asks to leave.
    fn command(&mut self, command: Command) -> bool {
        match command {
            Command::Quit => true,
            Command::Help => {
                print!("{}", help());
                false
            }
        }
    }

    /// Adds an entry to the history, and appends it to the file at once
    /// so that a session that is killed keeps it. An entry typed with a
    /// leading space is left out, as shells do.
    fn remember(&mut self, entry: &str) {
        if entry.trim().is_empty() {
            return;
        }
        if !matches!(self.editor.add_history_entry(entry), Ok(true)) {
            return;
        }
        if let Some(path) = &self.history {
            if let Err(e) = self.editor.append_history(path) {
                eprintln!("warning: cannot write history {}: {e}", path.display());
                // Once is enough.
                self.history = None;
            }
        }
    }

    fn refresh_names(&mut self) {
        let names = Names::from_catalog(&self.session.catalog);
        if let Some(h) = self.editor.helper_mut() {
            h.names = names;
        }
    }
}

/// `HELP`: the statements and the options.
fn help() -> String {
    let mut out = String::from(
        "Statements (end each with ;):
  CREATE TABLE t (...) WITH (...)     declare a table ('path' is relative to the current folder)
  CREATE VIEW v AS SELECT ...         declare a view
  SELECT ...                          run a query; rows are shown as they arrive, Ctrl-C cancels
  INSERT INTO t SELECT ...            run a query into a table
  EXPLAIN SELECT ...                  show the plan, when windows fire and where late rows go
  SHOW TABLES / SHOW VIEWS            list what is declared
  SHOW CREATE TABLE t / VIEW v        the statement that declares it
  DESCRIBE t                          columns, types, rowtime, watermark, connector options
  SET 'key' = 'value' / SET           set an option / list them
  RESET 'key' / RESET                 forget one option / all
  HELP / QUIT / EXIT                  this text / leave (so do Ctrl-D and Ctrl-C twice)
Options:
",
    );
    let width = KNOWN_OPTIONS.iter().map(|k| k.key.len()).max().unwrap_or(0);
    for known in KNOWN_OPTIONS {
        let key = if known.key.ends_with('.') {
            format!("{}<table>", known.key)
        } else {
            known.key.to_string()
        };
        out.push_str(&format!(
            "  {key:width$}  {}\n",
            known.help,
            width = width + 7
        ));
    }
    out.push_str(
        "Keys: Tab completes, Up/Down and Ctrl-R search history, Ctrl-C clears the line.\n",
    );
    out
}
