//! Snapshots of `absolve links` over every Safari web archive in fixtures/webarchive/
//! (binary and XML property lists, frames, a `<base href>`, a Latin-1 page, damaged
//! resources), without --url: each resource's base is its own WebResourceURL. Standard
//! error (the warnings naming each damaged resource) is part of the snapshot.

use std::process::Command;

#[test]
fn links_of_every_webarchive_fixture() {
    insta::glob!("../fixtures/webarchive", "*.webarchive", |path| {
        let output = Command::new(env!("CARGO_BIN_EXE_absolve"))
            .arg("links")
            .arg(path)
            .output()
            .expect("absolve runs");
        let shown = path.display().to_string();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).replace(&shown, &name);
        assert!(output.status.success(), "{name}: {stderr}");
        let links = String::from_utf8(output.stdout)
            .unwrap()
            .replace(&shown, &name);
        insta::assert_snapshot!("links", format!("{links}--- stderr\n{stderr}"));
    });
}
