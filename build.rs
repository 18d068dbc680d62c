//! Tells the tests which optional test inputs this machine has, so that a test that cannot
//! run is reported by the test runner as ignored (with the reason), never as a pass:
//! - `has_shared`: the project's shared corpora at `../shared` (real pages, mail, WARC files,
//!   the RFC text);
//! - `has_chromium`: a headless Chromium for the browser test (`ABSOLVE_CHROMIUM`, else
//!   `/usr/bin/chromium`);
//! - `has_warcio`: warcio in the test script's virtual environment (`target/venv`), for
//!   the WARC round trip (`warcio check`, `warcio index` on rewritten archives).

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_shared)");
    println!("cargo::rustc-check-cfg=cfg(has_chromium)");
    println!("cargo::rustc-check-cfg=cfg(has_warcio)");
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
}
