//! Helpers shared by the command-line tests.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs the `absolve` binary with `args`, feeding `stdin`.
pub fn absolve(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("absolve runs");
    // A run that fails on its arguments exits without reading: a broken pipe is expected.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

/// Standard error as text.
#[allow(dead_code)]
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
