//! The text log as it lands in a file: no ANSI colour codes when stderr is not a terminal.

use std::fs::File;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::process::TIMEOUT;

#[tokio::test]
async fn a_text_log_written_to_a_file_has_no_escape_codes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("server.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sudoku-race-server"))
        .args(["--listen", "127.0.0.1:0", "--log-format", "text"])
        .arg("--db")
        .arg(dir.path().join("results.sqlite3"))
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(File::create(&log).expect("log file"))
        .spawn()
        .expect("start the server binary");
    let listening = async {
        loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if text.contains("listening") {
                break text;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let text = tokio::time::timeout(TIMEOUT, listening).await;
    let _ = child.kill();
    let text = text.unwrap_or_else(|_| {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        panic!("no `listening` line in {text:?}")
    });
    let _ = child.wait();
    assert!(
        !text.contains('\u{1b}'),
        "escape codes in the log: {text:?}"
    );
    assert!(text.contains("INFO"), "{text:?}");
}
