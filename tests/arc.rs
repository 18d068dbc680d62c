//! ARC files (the Internet Archive's format before WARC, v1 and v2, plain and `.arc.gz`)
//! read as WARC files are: `links` over every fixture of fixtures/arc/ (snapshots, the
//! warnings of the damaged ones included), `rewrite` written back as ARC with each
//! record's `Archive-length` its new content's (checked here, and by warcio when the test
//! script's virtual environment has it), the damaged bytes passed through as they were,
//! `-i`, `-r`, stdin; and the ARC files of ../shared/corpus/warc against warcio.

use crate::common::{absolve, arc_file, arg, gzipped, json_lines, stderr};
use absolve::warc::Warning;
use absolve::{Collected, Options, Problem};
use std::io::Read;
use std::path::Path;
use std::process::Command;

/// The records of an ARC file as written: (header line, content), each content
/// `Archive-length` bytes (the header line's last field) then a newline; `None` when the
/// bytes do not frame so.
fn framed_records(mut bytes: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut records = Vec::new();
    while !bytes.is_empty() {
        let end = bytes.iter().position(|&b| b == b'\n')?;
        let line = String::from_utf8(bytes[..end].to_vec()).ok()?;
        let length: usize = line.rsplit(' ').next()?.parse().ok()?;
        let content = bytes.get(end + 1..end + 1 + length)?.to_vec();
        bytes = &bytes[end + 1 + length..];
        bytes = bytes.strip_prefix(b"\n")?;
        records.push((line, content));
    }
    Some(records)
}

/// The gzip members of `bytes`, each decompressed.
fn members(mut bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut members = Vec::new();
    while !bytes.is_empty() {
        let mut decoder = flate2::bufread::GzDecoder::new(bytes);
        let mut member = Vec::new();
        decoder.read_to_end(&mut member).unwrap();
        bytes = decoder.into_inner();
        members.push(member);
    }
    members
}

fn rewritten(path: &str) -> Vec<u8> {
    let out = absolve(&["rewrite", path], b"");
    assert!(out.status.success(), "{path}: {}", stderr(&out));
    out.stdout
}

#[test]
fn links_of_every_arc_fixture() {
    insta::glob!("../fixtures/arc", "*.arc*", |path| {
        let output = absolve(&["links", arg(path)], b"");
        let shown = path.display().to_string();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let stderr = stderr(&output).replace(&shown, &name);
        assert!(output.status.success(), "{name}: {stderr}");
        let links = String::from_utf8(output.stdout)
            .unwrap()
            .replace(&shown, &name);
        insta::assert_snapshot!("links", format!("{links}--- stderr\n{stderr}"));
    });
}

/// RFC 1808 §3: the embedded `<base>` first (v1.arc's based.html, in the snapshot), then,
/// with `--http-base-headers`, the HTTP message's `Content-Location`, then the record's URL.
#[test]
fn content_location_is_a_base_with_http_base_headers() {
    let file = "fixtures/arc/v2.arc";
    let from = |args: &[&str]| -> Vec<String> {
        json_lines(&absolve(args, b"").stdout)
            .iter()
            .filter(|l| l["original"] == "page2.html")
            .map(|l| format!("{} {}", l["base_from"], l["resolved"]))
            .collect()
    };
    assert_eq!(
        from(&["links", file]),
        ["\"retrieval-url\" \"http://example.com/b/page2.html\""]
    );
    assert_eq!(
        from(&["links", "--http-base-headers", file]),
        ["\"content-location\" \"http://example.com/c/page2.html\""]
    );
}

/// A rewritten ARC file frames as ARC: each header line's last field the length of its
/// new content (its other fields as they were), a newline after it; the pages' links
/// absolute; the records that did not change byte for byte as they were.
#[test]
fn rewrite_writes_each_records_length() {
    for file in ["v1.arc", "v2.arc", "space-in-url.arc"] {
        let path = format!("fixtures/arc/{file}");
        let input = std::fs::read(&path).unwrap();
        let output = rewritten(&path);
        let before = framed_records(&input).expect(file);
        let after = framed_records(&output).unwrap_or_else(|| panic!("{file}: not framed"));
        assert_eq!(before.len(), after.len(), "{file}");
        let mut changed = 0;
        for ((line, content), (new_line, new_content)) in before.iter().zip(&after) {
            let fields = |l: &str| l.rsplit_once(' ').unwrap().0.to_owned();
            assert_eq!(fields(line), fields(new_line), "{file}");
            if content != new_content {
                changed += 1;
                let text = String::from_utf8_lossy(new_content);
                assert!(!text.contains("href=\"page2.html\""), "{file}: {text}");
                assert!(text.contains("Content-Length: "), "{file}: {text}");
            }
        }
        assert!(changed > 0, "{file}");
        let links = json_lines(&absolve(&["links", "-"], &output).stdout);
        assert!(!links.is_empty(), "{file}");
        // HTTP header fields are left as they are (GUIDE, WARC web archives).
        for link in links.iter().filter(|l| l["element"] != "http") {
            assert_eq!(link["original"], link["resolved"], "{file}: {link}");
        }
        // Rewritten again: nothing left to change.
        let again = absolve(&["rewrite"], &output);
        assert_eq!(again.stdout, output, "{file}: {}", stderr(&again));
    }
}

/// `.arc.gz`: one gzip member per record, as it was read, each holding the record
/// rewritten as the plain file's is.
#[test]
fn a_gzipped_arc_is_written_a_member_per_record() {
    let input = std::fs::read("fixtures/arc/v1.arc.gz").unwrap();
    let plain = rewritten("fixtures/arc/v1.arc");
    let output = rewritten("fixtures/arc/v1.arc.gz");
    assert_eq!(members(&output).len(), members(&input).len());
    assert_eq!(members(&output).concat(), plain);
    for member in members(&output) {
        assert_eq!(framed_records(&member).map(|r| r.len()), Some(1));
    }
}

/// warcio reads the rewritten files: the same records, in order, with the same URLs,
/// and the lengths the contents have.
#[test]
#[cfg_attr(
    not(has_warcio),
    ignore = "warcio not found in target/venv (bash python/test.sh --setup-only makes it)"
)]
fn warcio_reads_the_rewritten_files() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["v1.arc", "v1.arc.gz", "v2.arc", "space-in-url.arc"] {
        let input = format!("fixtures/arc/{file}");
        let output = dir.path().join(file);
        std::fs::write(&output, rewritten(&input)).unwrap();
        let before = warcio_records(Path::new(&input)).unwrap();
        let after = warcio_records(&output).unwrap();
        let urls = |records: &[(String, String)]| -> Vec<String> {
            records.iter().map(|(url, _)| url.clone()).collect()
        };
        assert_eq!(urls(&before), urls(&after), "{file}");
        assert_ne!(before, after, "{file}: the lengths changed");
    }
}

/// Damage (a line that is no header, an `Archive-length` that is not a number, one too
/// short, one past the end of the file, a file cut short): a warning naming the record
/// and its offset, the records after it read, the damaged bytes written back as they were.
#[test]
fn damaged_bytes_pass_through_unchanged() {
    let cases = [
        (
            "damaged-header.arc",
            vec!["27 bytes at byte 337 after record 2 (at byte 144) are not an ARC record"],
            vec![
                &b"this line is no ARC header\n"[..],
                b"text/html abc\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=\"page2.html\">",
            ],
        ),
        (
            "short-length.arc",
            vec!["21 bytes at byte 315 after record 2 (at byte 142) are not an ARC record"],
            vec![&b"href=\"#top\">top</a>\n\n"[..]],
        ),
        (
            "overlong.arc",
            vec![
                "record 2 (at byte 138): Archive-length 619 runs past the end of the file, but a record starts at byte 332",
            ],
            vec![&b"text/html 619\nHTTP/1.1 200 OK\r\n"[..]],
        ),
        (
            "truncated.arc",
            vec![
                "record 3 (at byte 334): the file ends 29 bytes before the end of its content (Archive-length 119): truncated",
            ],
            vec![&b"text/html 119\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=\"page2.html\">"[..]],
        ),
    ];
    for (file, warnings, kept) in cases {
        let path = format!("fixtures/arc/{file}");
        let out = absolve(&["rewrite", &path], b"");
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        for warning in warnings {
            assert!(
                stderr(&out).contains(&format!("{path}: {warning}")),
                "{file}: {}",
                stderr(&out)
            );
        }
        for bytes in kept {
            let bytes = String::from_utf8_lossy(bytes).replace("\r\n", "\n");
            let output = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
            assert!(output.contains(&bytes), "{file}: {bytes:?} not in {output}");
        }
        // The records that are whole are rewritten.
        let links = json_lines(&absolve(&["links", "-"], &out.stdout).stdout);
        assert!(
            links
                .iter()
                .any(|l| l["resolved"] == "http://example.com/a/page2.html"
                    && l["original"] == l["resolved"]),
            "{file}"
        );
    }
}

/// A hostile `Archive-length` (1 TB, in a file of a few hundred bytes) drives no
/// allocation: the record is truncated, with its warning.
#[test]
fn a_huge_length_is_only_a_truncated_record() {
    let huge = b"http://h/x 1.2.3.4 20240101000000 text/html 999999999999\n<a href=x>\n";
    let mut arc = arc_file();
    arc.extend_from_slice(huge);
    let out = absolve(&["links", "-"], &arc);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the file ends 999999999988 bytes before the end of its content"),
        "{}",
        stderr(&out)
    );
    let mut sink = Collected::output_only();
    absolve::warc::rewrite(&arc[..], &Options::new(), &mut sink).unwrap();
    assert!(sink.output.ends_with(huge));
}

/// An ARC file is read wherever a WARC file is: by its first bytes (stdin, a file without
/// an extension), by `--format warc`, in place, and under `-r` (`.arc`, `.arc.gz`, no
/// extension), each record its offset as its identity.
#[test]
fn arc_files_are_read_as_warc_files_are() {
    let arc = arc_file();
    for args in [&["links"][..], &["links", "--format", "warc"]] {
        let out = absolve(args, &arc);
        assert!(out.status.success(), "{}", stderr(&out));
        let links = json_lines(&out.stdout);
        assert_eq!(links.len(), 2, "{links:?}");
        assert_eq!(links[0]["target_uri"], "http://example.com/d/p.html");
        assert_eq!(links[0]["record"], "120");
    }
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("crawl");
    std::fs::create_dir(&tree).unwrap();
    for (name, bytes) in [
        ("a.arc", arc.clone()),
        ("b.arc.gz", gzipped(&arc)),
        ("c", arc.clone()),
    ] {
        std::fs::write(tree.join(name), bytes).unwrap();
    }
    let listed = absolve(&["links", "-r", arg(&tree)], b"");
    assert!(listed.status.success(), "{}", stderr(&listed));
    assert_eq!(json_lines(&listed.stdout).len(), 6, "{}", stderr(&listed));
    assert!(
        stderr(&listed).contains("3 files processed"),
        "{}",
        stderr(&listed)
    );
    let in_place = absolve(&["rewrite", "-r", "-i", arg(&tree)], b"");
    assert!(in_place.status.success(), "{}", stderr(&in_place));
    let plain = std::fs::read(tree.join("a.arc")).unwrap();
    assert_ne!(plain, arc);
    assert_eq!(std::fs::read(tree.join("c")).unwrap(), plain);
    assert_eq!(
        members(&std::fs::read(tree.join("b.arc.gz")).unwrap()).concat(),
        plain
    );
    assert!(framed_records(&plain).is_some());
}

/// The records warcio reads in an ARC file: (URL, length as written); `None` when warcio
/// stops on it.
fn warcio_records(path: &Path) -> Option<Vec<(String, String)>> {
    const SCRIPT: &str = "import sys\n\
        from warcio.archiveiterator import ArchiveIterator\n\
        for r in ArchiveIterator(open(sys.argv[1], 'rb'), arc2warc=False):\n\
        \x20   print(r.rec_headers.get_header('uri') + '\\t' + r.rec_headers.get_header('length'))\n";
    let out = Command::new("target/venv/bin/python")
        .args(["-c", SCRIPT])
        .arg(path)
        .output()
        .expect("python runs");
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| {
                let (url, length) = l.rsplit_once('\t').unwrap();
                (url.to_owned(), length.to_owned())
            })
            .collect()
    })
}

const CORPUS: &str = "../shared/corpus/warc";

/// The ARC files of the shared corpus: as many records as warcio reads (warcio stops on
/// ia-web-commons' Heritrix file, whose records have no newline after their content:
/// there, every record's URL is checked in the file), each link's record URL one of
/// them, the warnings ARC ones.
#[test]
#[cfg_attr(
    not(all(has_shared, has_warcio)),
    ignore = "../shared/corpus/warc or warcio in target/venv not found (both optional)"
)]
fn corpus_arc_files_read_as_warcio_reads_them() {
    let files = [
        ("warcio/example.arc", 2, 1),
        ("warcio/example.arc.gz", 2, 1),
        ("warcio/example-space-in-url.arc", 2, 1),
        ("warcio/bad.arc", 4, 0),
        (
            "ia-web-commons/IAH-20080430204825-00000-blackbook-truncated.arc",
            0,
            290,
        ),
    ];
    for (name, warcio_count, link_count) in files {
        let path = Path::new(CORPUS).join(name);
        let input = std::fs::read(&path).unwrap();
        let mut sink = Collected::output_only();
        let summary = absolve::warc::rewrite(&input[..], &Options::new(), &mut sink).unwrap();
        for warning in &sink.warnings {
            assert!(
                matches!(
                    &warning.problem,
                    Problem::Warc(
                        Warning::ArcNoLength { .. }
                            | Warning::ArcResynchronised { .. }
                            | Warning::ArcTruncated { .. }
                            | Warning::BadHttp { .. }
                    )
                ),
                "{name}: {warning}"
            );
        }
        let links = json_lines(&absolve(&["links", arg(&path)], b"").stdout);
        assert_eq!(links.len(), link_count, "{name}");
        match warcio_records(&path) {
            Some(records) => {
                assert_eq!(records.len(), warcio_count, "{name}");
                assert_eq!(summary.records as usize, records.len(), "{name}");
                for link in &links {
                    let url = link["target_uri"].as_str().unwrap();
                    assert!(records.iter().any(|(u, _)| u == url), "{name}: {url}");
                }
            }
            None => {
                assert_eq!(warcio_count, 0, "{name}: warcio reads it now");
                let text = String::from_utf8_lossy(&input);
                for link in &links {
                    let url = link["target_uri"].as_str().unwrap();
                    assert!(text.contains(&format!("{url} ")), "{name}: {url}");
                }
                assert_eq!(summary.records, 9, "{name}");
            }
        }
    }
}

/// A record of an `.arc.gz` cut partway through its content by a damaged gzip member:
/// the warning names its `Archive-length`, not a WARC `Content-Length`, which an ARC
/// record has none of.
#[test]
fn a_record_cut_by_damaged_gzip_data_names_its_archive_length() {
    let arc = arc_file();
    let split = arc.windows(6).position(|w| w == b"\nhttp:").unwrap() + 1;
    let page = [
        &b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"[..],
        &b"<a href=\"q.html\">".repeat(200),
    ]
    .concat();
    let mut second = format!(
        "http://example.com/d/q.html 1.2.3.4 20140216050221 text/html {}\n",
        page.len()
    )
    .into_bytes();
    second.extend_from_slice(&page);
    second.push(b'\n');
    // The response's record in two members, the second cut short: its content ends
    // where the next record's member starts.
    let half = split + (arc.len() - split) / 2;
    let mut damaged = gzipped(&arc[half..]);
    damaged.truncate(damaged.len() / 2);
    let file = [gzipped(&arc[..half]), damaged, gzipped(&second)].concat();
    let out = absolve(&["links", "-"], &file);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("(Archive-length "), "{said}");
    assert!(said.contains("cut by damaged compressed data"), "{said}");
    assert!(!said.contains("Content-Length"), "{said}");
    let links = json_lines(&out.stdout);
    assert!(
        links
            .iter()
            .any(|l| l["resolved"] == "http://example.com/d/q.html"),
        "{said}"
    );
}
