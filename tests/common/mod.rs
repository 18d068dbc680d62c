//! Runners and generators shared by the test modules: running the `absolve` binary,
//! reading its output, and generated MIME input.

use std::io::Write;
use std::path::Path;
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

/// Runs `absolve` with `args`, writing `stdin` from another thread so that a large
/// input and a large output do not block each other.
pub fn absolve_piped(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("absolve runs");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A path as a command-line argument.
pub fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Each line of `bytes` (JSON lines, as `absolve links` writes them) parsed.
pub fn json_lines(bytes: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// A message nested `depth` levels deep: `multipart/mixed` and `message/rfc822`
/// alternating, an HTML part at the bottom.
pub fn alternating(depth: usize) -> Vec<u8> {
    let mut head = b"MIME-Version: 1.0\r\n".to_vec();
    let mut tail = Vec::new();
    for i in 0..depth {
        head.extend(
            format!("Content-Type: multipart/mixed; boundary=\"b{i:06}x\"\r\n\r\n--b{i:06}x\r\nContent-Type: message/rfc822\r\n\r\n")
                .as_bytes(),
        );
        tail.push(format!("\r\n--b{i:06}x--\r\n"));
    }
    head.extend_from_slice(b"Content-Type: text/html\r\n\r\n<a href=\"deep\">x</a>");
    for t in tail.iter().rev() {
        head.extend_from_slice(t.as_bytes());
    }
    head
}
