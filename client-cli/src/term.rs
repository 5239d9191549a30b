//! The terminal: checks that we have one, enters raw mode and the alternate screen, restores it
//! on every exit path (a drop guard, and ratatui's panic hook), and sends logs to a file.

use std::fs::File;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Mutex;

use ratatui::DefaultTerminal;
use tracing_subscriber::EnvFilter;

/// Why the terminal could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TermError {
    /// stdin or stdout is not a terminal.
    #[error("this command needs an interactive terminal (stdin and stdout must be a tty)")]
    NotATerminal,
    /// Raw mode or the alternate screen failed.
    #[error("cannot set up the terminal: {0}")]
    Setup(#[from] std::io::Error),
}

/// Whether stdin and stdout are both terminals.
pub fn is_interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// Owns the terminal in raw mode; restores it when dropped.
pub struct TermGuard {
    /// The ratatui terminal.
    pub terminal: DefaultTerminal,
}

impl TermGuard {
    /// Check for a terminal, then enter raw mode and the alternate screen. A panic hook that
    /// restores the terminal is installed first.
    pub fn enter() -> Result<TermGuard, TermError> {
        if !is_interactive() {
            return Err(TermError::NotATerminal);
        }
        match ratatui::try_init() {
            Ok(terminal) => Ok(TermGuard { terminal }),
            Err(e) => {
                ratatui::restore();
                Err(TermError::Setup(e))
            }
        }
    }
}

impl Drop for TermGuard {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// Where logs go: `$SUDOKU_RACE_LOG`, else `sudoku-race.log` in the temp directory.
pub fn log_path() -> PathBuf {
    std::env::var_os("SUDOKU_RACE_LOG")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("sudoku-race.log"))
}

/// Send tracing output to the log file (filter from `RUST_LOG`, default `info`), never to the
/// screen. Returns the path used. A log file that cannot be opened disables logging.
pub fn log_to_file() -> Option<PathBuf> {
    let path = log_path();
    let file = File::options().create(true).append(true).open(&path).ok()?;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .try_init();
    Some(path)
}

/// Send tracing output to stderr (for the screenless commands).
pub fn log_to_stderr() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .try_init();
}
