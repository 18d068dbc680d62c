//! Snapshot of `absolve resolve` over fixtures/resolve/: the RFC 1808 §5 references, read
//! from standard input, resolved by both standards side by side.

use std::process::{Command, Stdio};

fn resolve_file(standard: &str, path: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["resolve", "--rfc", standard, "http://a/b/c/d;p?q#f"])
        .stdin(Stdio::from(std::fs::File::open(path).expect("fixture")))
        .output()
        .expect("absolve runs");
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn rfc1808_section5_references_by_both_standards() {
    let path = "fixtures/resolve/rfc1808-section5.txt";
    let references = std::fs::read_to_string(path).unwrap();
    let rfc1808 = resolve_file("1808", path);
    let rfc3986 = resolve_file("3986", path);
    let table: String = references
        .lines()
        .zip(rfc1808.lines())
        .zip(rfc3986.lines())
        .map(|((reference, old), new)| format!("{reference:<14} {old:<26} {new}\n"))
        .collect();
    assert_eq!(table.lines().count(), 39);
    insta::assert_snapshot!(table);
}
