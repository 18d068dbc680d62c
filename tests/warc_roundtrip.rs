//! Round trip: `absolve rewrite` over every WARC fixture and every WARC file of the
//! shared corpus, then `warcio check` (digests) and `warcio index` (every record listed)
//! on the output, with the `warcio` of the test script's virtual environment.

use std::path::{Path, PathBuf};
use std::process::Command;

const WARCIO: &str = "target/venv/bin/warcio";

fn warcio(command: &str, path: &Path) -> (bool, String) {
    let out = Command::new(WARCIO)
        .arg(command)
        .arg(path)
        .output()
        .expect("warcio runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success() && !text.contains("failed"), text)
}

fn index_count(path: &Path) -> usize {
    warcio("index", path)
        .1
        .lines()
        .filter(|l| l.starts_with('{'))
        .count()
}

/// Rewrites `input` into `dir`, checks the output and returns it.
fn round_trip(input: &Path, dir: &Path) -> PathBuf {
    let name = input.file_name().unwrap().to_string_lossy();
    let gz = name.ends_with(".gz") || name.ends_with(".bad");
    let output = dir.join(format!(
        "{name}.out{}",
        if gz { ".warc.gz" } else { ".warc" }
    ));
    let run = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["rewrite", "--format", "warc"])
        .arg(input)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    output
}

/// Files that warcio itself reads with errors (wrong lengths, a whole-file gzip stream)
/// or whose digests were already wrong: their output is checked for what absolve fixes.
const BROKEN: [&str; 7] = [
    "example-digest.warc", // digests wrong in the input, copied as they are
    "example-trunc.warc",  // a Content-Length too short: that record's digest stays wrong
    "example-wrong-chunks.warc.gz", // likewise
    "clueweb-quirk.warc.gz", // WARC/0.18 digests over other bytes, copied as they are
    "chunked-gzip.warc.gz", // warcio digests the chunk framing; ours is rewritten anyway
    "example-bad.warc.gz.bad", // one gzip stream: warcio refuses it; the output is per record
    "example-bad-non-chunked.warc.gz",
];

#[test]
#[cfg_attr(
    not(has_warcio),
    ignore = "target/venv/bin/warcio not found: `bash python/test.sh --setup-only` makes it"
)]
fn rewritten_fixtures_pass_warcio() {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir("fixtures/warc").unwrap() {
        let input = entry.unwrap().path();
        if input.extension().is_some_and(|e| e == "py") {
            continue;
        }
        let output = round_trip(&input, dir.path());
        let (ok, report) = warcio("check", &output);
        assert!(ok, "{}: {report}", input.display());
        assert_eq!(
            index_count(&output),
            index_count(&input),
            "{}",
            input.display()
        );
    }
}

#[test]
#[cfg_attr(
    not(any(has_warcio, has_shared)),
    ignore = "target/venv/bin/warcio and ../shared/corpus/warc not found (`bash python/test.sh --setup-only` makes the first; the shared corpora are optional)"
)]
#[cfg_attr(
    all(has_shared, not(has_warcio)),
    ignore = "target/venv/bin/warcio not found: `bash python/test.sh --setup-only` makes it"
)]
#[cfg_attr(
    all(has_warcio, not(has_shared)),
    ignore = "../shared/corpus/warc not found (the shared corpora are optional)"
)]
fn rewritten_corpus_passes_warcio() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for folder in ["warcio", "jwarc", "ia-web-commons", "resiliparse"] {
        let mut files: Vec<_> = std::fs::read_dir(Path::new("../shared/corpus/warc").join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for input in files {
            let name = input.file_name().unwrap().to_string_lossy().into_owned();
            if !(name.ends_with(".warc") || name.contains(".warc.gz")) {
                continue;
            }
            let output = round_trip(&input, dir.path());
            let (ok, report) = warcio("check", &output);
            let listed = index_count(&output);
            if BROKEN.contains(&name.as_str()) {
                // At least every record warcio finds in the input is there.
                assert!(listed >= index_count(&input), "{name}: {listed}");
                continue;
            }
            assert!(ok, "{name}: {report}");
            assert_eq!(listed, index_count(&input), "{name}");
            checked += 1;
        }
    }
    assert!(checked >= 18, "{checked} files checked");
}

/// A whole-file gzip stream comes out one member per record, which warcio reads: its six
/// records, and no member of its own for a record's trailer (which warcio counted as
/// three more entries).
#[test]
#[cfg_attr(
    not(any(has_warcio, has_shared)),
    ignore = "target/venv/bin/warcio and ../shared/corpus/warc not found (`bash python/test.sh --setup-only` makes the first; the shared corpora are optional)"
)]
#[cfg_attr(
    all(has_shared, not(has_warcio)),
    ignore = "target/venv/bin/warcio not found: `bash python/test.sh --setup-only` makes it"
)]
#[cfg_attr(
    all(has_warcio, not(has_shared)),
    ignore = "../shared/corpus/warc not found (the shared corpora are optional)"
)]
fn a_whole_file_gzip_stream_comes_out_per_record() {
    let dir = tempfile::tempdir().unwrap();
    let input = Path::new("../shared/corpus/warc/warcio/example-bad.warc.gz.bad");
    assert!(!warcio("check", input).0);
    let output = round_trip(input, dir.path());
    let (ok, report) = warcio("check", &output);
    assert!(ok, "{report}");
    assert_eq!(index_count(&output), 6);
}

/// A file in which nothing changes is copied byte for byte, gzip members and all.
#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/warc not found (the shared corpora are optional)"
)]
fn unchanged_files_are_copied_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "warcio/example.warc.gz",
        "warcio/example.warc",
        "warcio/post-test.warc.gz",
        "jwarc/gzip_extra_sl.warc.gz",
        "resiliparse/block-sized-records.warc.gz",
    ] {
        let input = Path::new("../shared/corpus/warc").join(name);
        let output = round_trip(&input, dir.path());
        assert!(
            std::fs::read(&input).unwrap() == std::fs::read(&output).unwrap(),
            "{name}"
        );
    }
}
