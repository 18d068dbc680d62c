//! Snapshots of `absolve rewrite` and `absolve links` over every fixture in
//! fixtures/html/, with `--url http://example.com/dir/page.html` (RFC 1808 §3.3).
//! A fixture named `*.resolve-fragments.html` is run with `--resolve-fragments`.
//! (Text snapshots ignore trailing whitespace and line endings: the exact bytes are
//! asserted in tests/html_bytes.rs.)

use std::path::Path;
use std::process::Command;

const URL: &str = "http://example.com/dir/page.html";

fn absolve(subcommand: &str, path: &Path) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_absolve"));
    command.args([subcommand, "--url", URL]);
    if path.to_string_lossy().ends_with(".resolve-fragments.html") {
        command.arg("--resolve-fragments");
    }
    let output = command.arg(path).output().expect("absolve runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

#[test]
fn rewrite_and_links_of_every_html_fixture() {
    insta::glob!("../fixtures/html", "*.html", |path| {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let links = absolve("links", path).replace(&path.display().to_string(), &name);
        insta::assert_snapshot!("rewrite", absolve("rewrite", path));
        insta::assert_snapshot!("links", links);
    });
}
