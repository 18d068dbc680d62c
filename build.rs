//! Tells the tests which optional test inputs this machine has, so that a test that cannot
//! run is reported by the test runner as ignored (with the reason), never as a pass:
//! - `has_shared`: the project's shared corpora at `../shared` (real pages, mail, WARC files,
//!   the RFC text);
//! - `has_chromium`: a headless Chromium for the browser test (`ABSOLVE_CHROMIUM`, else
//!   `/usr/bin/chromium`);
//! - `is_root`: the build runs as root, as the tests of file ownership and devices need;
//! - `has_strace`: strace(1), which shows the order of the fsync(2) and rename(2) calls.
//! - `has_user_xattr`: the temporary directory's file system takes `user.*` extended
//!   attributes (for the `user.xdg.origin.url` test).
//! - `has_warcio`: warcio in the test script's virtual environment (`target/venv`), for
//!   the WARC round trip (`warcio check`, `warcio index` on rewritten archives).
//! - `has_python3`: a `python3` with `plistlib` (the standard library's), which reads the
//!   web archives `rewrite` writes.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_shared)");
    println!("cargo::rustc-check-cfg=cfg(has_chromium)");
    println!("cargo::rustc-check-cfg=cfg(is_root)");
    println!("cargo::rustc-check-cfg=cfg(has_strace)");
    println!("cargo::rustc-check-cfg=cfg(has_user_xattr)");
    println!("cargo::rustc-check-cfg=cfg(has_warcio)");
    println!("cargo::rustc-check-cfg=cfg(has_python3)");
    println!("cargo::rerun-if-changed=/usr/bin/python3");
    let plistlib = std::process::Command::new("python3")
        .args(["-c", "import plistlib"])
        .output();
    if plistlib.is_ok_and(|out| out.status.success()) {
        println!("cargo::rustc-cfg=has_python3");
    }
    println!("cargo::rerun-if-changed=target/venv/bin/warcio");
    if Path::new("target/venv/bin/warcio").exists() {
        println!("cargo::rustc-cfg=has_warcio");
    }
    println!("cargo::rerun-if-changed=../shared");
    println!("cargo::rerun-if-env-changed=ABSOLVE_CHROMIUM");
    if Path::new("../shared/corpus").is_dir() {
        println!("cargo::rustc-cfg=has_shared");
    }
    let chromium = std::env::var("ABSOLVE_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    println!("cargo::rerun-if-changed={chromium}");
    if Path::new(&chromium).exists() {
        println!("cargo::rustc-cfg=has_chromium");
    }
    let uid = std::process::Command::new("id").arg("-u").output();
    if uid.is_ok_and(|out| out.stdout.trim_ascii() == b"0") {
        println!("cargo::rustc-cfg=is_root");
    }
    if Path::new("/usr/bin/strace").exists() {
        println!("cargo::rustc-cfg=has_strace");
    }
    if temp_dir_takes_user_xattrs() {
        println!("cargo::rustc-cfg=has_user_xattr");
    }
}

/// Sets a `user.*` attribute on a file in the temporary directory, where the tests make
/// theirs.
fn temp_dir_takes_user_xattrs() -> bool {
    let probe = std::env::temp_dir().join(format!("absolve-xattr-probe-{}", std::process::id()));
    if std::fs::write(&probe, b"").is_err() {
        return false;
    }
    let ok = xattr::SUPPORTED_PLATFORM && xattr::set(&probe, "user.absolve.probe", b"1").is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}
