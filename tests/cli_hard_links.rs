//! `rewrite -i` on one inode through two hard links, run twice at once: the runs take
//! turns (a lock on the inode), both succeed, and the file is whole: the same bytes as
//! one rewrite gives.

use crate::common::{stderr, warc};
use std::process::Command;

fn warc() -> Vec<u8> {
    let mut file = Vec::new();
    for n in 0..200 {
        let http = warc::http_ok(
            "Content-Type: text/html\r\n",
            format!("<a href=p{n}>").as_bytes(),
        );
        file.extend_from_slice(&warc::response(
            &n.to_string(),
            &format!("http://h/{n}/"),
            &http,
        ));
    }
    file
}

#[test]
fn concurrent_in_place_rewrites_of_hard_links_take_turns() {
    let dir = tempfile::tempdir().unwrap();
    let once = dir.path().join("once.warc");
    std::fs::write(&once, warc()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["rewrite", "-i", once.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = std::fs::read(&once).unwrap();
    assert_ne!(expected, warc());
    let (a, b) = (dir.path().join("a.warc"), dir.path().join("b.warc"));
    for run in 0..20 {
        let _ = std::fs::remove_file(&b);
        std::fs::write(&a, warc()).unwrap();
        std::fs::hard_link(&a, &b).unwrap();
        let children: Vec<_> = [&a, &b]
            .iter()
            .map(|path| {
                Command::new(env!("CARGO_BIN_EXE_absolve"))
                    .args(["rewrite", "-i", path.to_str().unwrap()])
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "run {run}: {}", stderr(&out));
        }
        assert!(
            std::fs::read(&a).unwrap() == expected,
            "run {run}: a is garbled"
        );
        assert!(
            std::fs::read(&b).unwrap() == expected,
            "run {run}: b is garbled"
        );
    }
}

/// A file name with a newline or an escape character cannot forge a line of standard
/// error: it is shown escaped, as `ls` and ripgrep show it.
#[test]
fn names_on_standard_error_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let name = dir.path().join("x\nabsolve: warning: forged\x1b[2J.warc");
    std::fs::write(&name, b"WARC/1.0\r\nWARC-Type: resource\r\n\r\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["links", name.to_str().unwrap()])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(
        err.contains("x\\nabsolve: warning: forged\\x1B[2J.warc"),
        "{err}"
    );
    assert!(
        !err.lines()
            .any(|l| l.starts_with("absolve: warning: forged")),
        "{err}"
    );
}
