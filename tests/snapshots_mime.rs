//! Snapshots of `absolve links` over every fixture in fixtures/mime/ (messages, MHTML,
//! mbox), without --url: every base comes from the messages themselves.

use std::process::Command;

#[test]
fn links_of_every_mime_fixture() {
    insta::glob!("../fixtures/mime", "*.*", |path| {
        let output = Command::new(env!("CARGO_BIN_EXE_absolve"))
            .arg("links")
            .arg(path)
            .output()
            .expect("absolve runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{}: {stderr}", path.display());
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let links = String::from_utf8(output.stdout)
            .unwrap()
            .replace(&path.display().to_string(), &name);
        insta::assert_snapshot!("links", links);
    });
}
