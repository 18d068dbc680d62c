//! WACZ: the WARC members of a WACZ made by py-wacz from the repo's own WARCs
//! (fixtures/wacz/README.md) give, streamed from the ZIP, the records their WARCs give; a
//! damaged member is warned about by name and the others are listed; a member the ZIP's
//! directory does not list (a second member of a name) is warned about; a WACZ cut short
//! (its directory gone) is read from its members' local headers, with a warning.

use absolve::wacz::{Wacz, is_wacz, is_zip, member_label};
use std::fs::File;
use std::io::{BufReader, Read};

const FIXTURE: &str = "fixtures/wacz/small.wacz";

/// Each link as (record id, target URI, original, resolved).
fn records(reader: impl Read) -> Vec<(String, String, String, String)> {
    absolve::warc::Links::new(reader, Default::default())
        .filter_map(|event| match event.expect("a readable WARC") {
            absolve::Event::Link(link) => Some((
                link.location
                    .record
                    .as_deref()
                    .unwrap_or_default()
                    .to_owned(),
                link.location
                    .target_uri
                    .as_deref()
                    .unwrap_or_default()
                    .to_owned(),
                link.original.to_string(),
                link.resolved.to_string(),
            )),
            absolve::Event::Warning(_) => None,
        })
        .collect()
}

#[test]
fn the_fixture_is_a_wacz_and_its_warcs_come_in_zip_order() {
    let mut head = [0; 4];
    File::open(FIXTURE).unwrap().read_exact(&mut head).unwrap();
    assert!(is_zip(&head));
    assert!(is_wacz(File::open(FIXTURE).unwrap()));
    let wacz = Wacz::new(File::open(FIXTURE).unwrap()).unwrap();
    assert_eq!(
        wacz.warc_names().collect::<Vec<_>>(),
        ["archive/base-element.warc", "archive/chunked-gzip.warc.gz"]
    );
}

#[test]
fn each_member_gives_the_records_of_its_warc() {
    let mut wacz = Wacz::new(BufReader::new(File::open(FIXTURE).unwrap())).unwrap();
    let mut labels = Vec::new();
    wacz.for_each_warc(|name, reader| {
        let from_zip = records(BufReader::with_capacity(1 << 16, reader));
        let file = name.strip_prefix("archive/").unwrap();
        let from_file = records(File::open(format!("fixtures/warc/{file}"))?);
        assert!(!from_file.is_empty(), "{name} has links");
        assert_eq!(from_zip, from_file, "{name}");
        labels.push(member_label("small.wacz", name));
        Ok(())
    })
    .unwrap();
    assert_eq!(
        labels,
        [
            "small.wacz!/archive/base-element.warc",
            "small.wacz!/archive/chunked-gzip.warc.gz"
        ]
    );
}

#[test]
fn a_plain_warc_or_a_truncated_zip_is_not_a_wacz() {
    assert!(!is_wacz(
        File::open("fixtures/warc/base-element.warc").unwrap()
    ));
    let bytes = std::fs::read(FIXTURE).unwrap();
    let cut = std::io::Cursor::new(bytes[..bytes.len() / 2].to_vec());
    assert!(!is_wacz(cut.clone()));
    assert!(Wacz::new(cut).is_err());
}

/// A WARC of one response record linking to `page`.
fn warc_linking_to(page: &str) -> Vec<u8> {
    let body =
        format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=\"{page}\">x</a>");
    let head = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://e.com/\r\nContent-Type: application/http;msgtype=response\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    [head.as_bytes(), body.as_bytes(), b"\r\n\r\n"].concat()
}

/// A stored (uncompressed) WACZ of `members`, then `damage` applied to its bytes.
fn stored_wacz(members: &[(&str, Vec<u8>)], damage: impl Fn(&mut Vec<u8>)) -> Vec<u8> {
    use std::io::Write;
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("datapackage.json", options).unwrap();
    zip.write_all(br#"{"profile": "data-package", "wacz_version": "1.1.1"}"#)
        .unwrap();
    for (name, bytes) in members {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    let mut bytes = zip.finish().unwrap().into_inner();
    damage(&mut bytes);
    bytes
}

/// Writes `bytes` as `dir/name` and runs `absolve links` on it: the path and the run.
fn links_of_written(
    dir: &std::path::Path,
    name: &str,
    bytes: Vec<u8>,
) -> (std::path::PathBuf, std::process::Output) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_absolve"))
        .arg("links")
        .arg(&path)
        .output()
        .unwrap();
    (path, out)
}

/// Sets the "encrypted" flag (bit 0 of the general purpose flags) of the member named
/// `name`, in its local header and its central directory header (APPNOTE 4.3.7, 4.3.12).
fn flag_encrypted(bytes: &mut [u8], name: &[u8]) {
    for (signature, flags_at, name_at) in [(&b"PK\x03\x04"[..], 6, 30), (b"PK\x01\x02", 8, 46)] {
        let header = (0..bytes.len() - name_at - name.len())
            .find(|&i| bytes[i..].starts_with(signature) && bytes[i + name_at..].starts_with(name))
            .unwrap();
        bytes[header + flags_at] |= 1;
    }
}

/// GUIDE (Warnings and exit codes): damaged input is not an error. A member with a bad
/// CRC, an encrypted one and one that is no WARC are each warned about, named as
/// `NAME.wacz!/archive/...`; the members after them are listed, status 0.
#[test]
fn a_damaged_member_is_warned_about_and_the_others_are_listed() {
    let good = ("archive/b.warc", warc_linking_to("b.html"));
    let cases: [(&str, Vec<u8>, &str); 3] = [
        (
            "bad-crc",
            stored_wacz(
                &[("archive/a.warc", warc_linking_to("a.html")), good.clone()],
                |b| {
                    let at = b.windows(6).position(|w| w == b"a.html").unwrap();
                    b[at] = b'A';
                },
            ),
            "Invalid checksum",
        ),
        (
            "encrypted",
            stored_wacz(
                &[("archive/a.warc", warc_linking_to("a.html")), good.clone()],
                |b| flag_encrypted(b, b"archive/a.warc"),
            ),
            "Password required",
        ),
        (
            "not-a-warc",
            stored_wacz(
                &[("archive/a.warc", b"<a href=x>".to_vec()), good.clone()],
                |_| {},
            ),
            "not a WARC file",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, reason) in cases {
        let (_, out) = links_of_written(dir.path(), &format!("{name}.wacz"), bytes);
        let warnings = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {warnings}");
        let files: Vec<String> = crate::common::json_lines(&out.stdout)
            .iter()
            .map(|l| {
                l["file"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(files.last().map(String::as_str), Some("b.warc"), "{name}");
        let member = format!("{name}.wacz!/archive/a.warc: member unreadable from byte ");
        assert!(
            warnings.contains(&member) && warnings.contains(reason),
            "{name}: {warnings}"
        );
    }
}

/// Two members of one name (`zip` writes them; the crate reading keeps the last): the
/// one the directory as read does not list was passed over without a word (its links
/// missing, status 0). It is named, with its offset, in a warning; the other is read.
#[test]
fn a_second_member_of_a_name_is_warned_about() {
    let bytes = stored_wacz(
        &[
            ("archive/a.warc", warc_linking_to("first.html")),
            ("archive/z.warc", warc_linking_to("second.html")),
        ],
        |b| {
            let mut at = 0;
            while let Some(i) = b[at..].windows(14).position(|w| w == b"archive/z.warc") {
                b[at + i + 8] = b'a';
                at += i + 14;
            }
        },
    );
    let first = bytes
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"PK\x03\x04")
        .nth(1)
        .unwrap()
        .0;
    let dir = tempfile::tempdir().unwrap();
    let (path, out) = links_of_written(dir.path(), "twice.wacz", bytes);
    let warnings = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{warnings}");
    let links = crate::common::json_lines(&out.stdout);
    assert_eq!(links.len(), 1);
    assert_eq!(links[0]["original"], "second.html");
    let expected = format!(
        "twice.wacz: a member at byte {first} of the file (archive/a.warc) is not in the ZIP's directory"
    );
    assert!(warnings.contains(&expected), "{warnings}");
    let wacz = Wacz::new(File::open(&path).unwrap()).unwrap();
    assert_eq!(wacz.unlisted().len(), 1);
    let fixture = Wacz::new(File::open(FIXTURE).unwrap()).unwrap();
    assert!(fixture.unlisted().is_empty());
}

#[test]
fn a_wacz_cut_short_is_read_from_its_local_headers() {
    // Before: "not a readable ZIP file: ... Could not find EOCD", status 1, nothing
    // listed. Cut before its manifest (both WARC members whole), the links are the whole
    // file's; cut inside its last WARC member, the first member's are all there.
    use crate::common::{self, arg, json_lines};
    let bytes = std::fs::read(FIXTURE).unwrap();
    let manifest = memchr::memmem::find(&bytes, b"datapackage.json").unwrap();
    let header = memchr::memmem::rfind(&bytes[..manifest], b"PK\x03\x04").unwrap();
    let last_warc = memchr::memmem::find(&bytes, b"archive/chunked-gzip.warc.gz").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let whole = common::absolve(&["links", FIXTURE], b"");
    let whole: Vec<serde_json::Value> = json_lines(&whole.stdout);
    let first_member: Vec<&serde_json::Value> = whole
        .iter()
        .filter(|l| l["file"].as_str().unwrap().ends_with("base-element.warc"))
        .collect();
    assert!(!first_member.is_empty());
    for (cut, all) in [(header, true), (last_warc + 200, false)] {
        let path = dir.path().join("cut.wacz");
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let out = common::absolve(&["links", arg(&path)], b"");
        assert!(out.status.success(), "{}", common::stderr(&out));
        let stderr = common::stderr(&out);
        assert!(
            stderr.contains("its ZIP directory is unreadable"),
            "{stderr}"
        );
        let links = json_lines(&out.stdout);
        let resolved = |ls: &[&serde_json::Value]| -> Vec<String> {
            ls.iter().map(|l| l["resolved"].to_string()).collect()
        };
        let got: Vec<&serde_json::Value> = links.iter().collect();
        if all {
            assert_eq!(resolved(&got), resolved(&whole.iter().collect::<Vec<_>>()));
        } else {
            assert!(resolved(&got).starts_with(&resolved(&first_member)));
        }
    }
}

#[test]
fn a_wacz_cut_before_its_first_warc_says_so() {
    // Cut inside its indexes, before any WARC member: nothing to list, and the error says
    // why and what to do (it said only "Could not find EOCD").
    use crate::common::{self, arg};
    let bytes = std::fs::read(FIXTURE).unwrap();
    let first_warc = memchr::memmem::find(&bytes, b"archive/").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.wacz");
    std::fs::write(&path, &bytes[..first_warc - 40]).unwrap();
    let out = common::absolve(&["links", arg(&path)], b"");
    assert_eq!(out.status.code(), Some(1));
    let stderr = common::stderr(&out);
    assert!(
        stderr.contains("directory is unreadable (cut short?) and no WARC member"),
        "{stderr}"
    );
    assert!(stderr.contains("fetch it again"), "{stderr}");
}

/// A ZIP that is no WACZ (a zipped site folder) is refused, saying what to do with it
/// (status 1), never read as a document: the message said only that it had no
/// `datapackage.json`.
#[test]
fn a_zip_of_pages_says_to_extract_it() {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("site/index.html", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(b"<a href=x.html>x</a>").unwrap();
    let bytes = zip.finish().unwrap().into_inner();
    let dir = tempfile::tempdir().unwrap();
    let (path, out) = links_of_written(dir.path(), "site.zip", bytes.clone());
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("a ZIP file but not a WACZ: no datapackage.json")
            && stderr.contains("`unzip FILE`, then run `absolve rewrite -r` over the folder"),
        "{stderr}"
    );
    // `rewrite` (in place too) says the same, and leaves the file as it was.
    for flags in [&["rewrite"][..], &["rewrite", "-i"]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_absolve"))
            .args(flags)
            .args(["--url", "http://e.com/"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{flags:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("not a WACZ") && stderr.contains("`unzip FILE`"),
            "{stderr}"
        );
    }
    assert_eq!(std::fs::read(path).unwrap(), bytes);
}

/// A WACZ is listed, never rewritten (it is an archive's evidence): `rewrite` refuses it,
/// saying so (status 1), and leaves it as it was.
#[test]
fn a_wacz_is_not_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.wacz");
    std::fs::copy(FIXTURE, &path).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["rewrite", "-i"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("a WACZ is not rewritten"), "{stderr}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(FIXTURE).unwrap()
    );
}
