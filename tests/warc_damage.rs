//! Damaged WARC files: whatever the damage (gzip members cut, corrupt or padded; junk
//! between records; a wrong, absurd or missing `Content-Length`; a header block over
//! 1 MiB; an HTTP head over 256 KiB; a decompression bomb), the records around it are read,
//! a warning says where, and `rewrite` copies the damaged bytes as they are (a file whose
//! links are all absolute comes out byte for byte); a record its crawler cut short
//! (`WARC-Truncated`) is named too. The inputs are made in each test.

use crate::common::warc::{self, noise};
use crate::common::{absolve, stderr};
use absolve::warc::{Links, rewrite};
use absolve::{Collected, Event, Options};
use std::io::{Read, Write};

/// A `response` record whose HTML payload is `html`.
fn record(id: u32, html: &str) -> Vec<u8> {
    let http = warc::http_ok("Content-Type: text/html\r\n", html.as_bytes());
    warc::response(&id.to_string(), &format!("http://h{id}/dir/"), &http)
}

/// A record whose one link is relative (`rel{id}`) and one whose link is absolute.
fn relative(id: u32) -> Vec<u8> {
    record(id, &format!("<a href=rel{id}>"))
}
fn absolute(id: u32) -> Vec<u8> {
    record(id, &format!("<a href=http://x/abs{id}>"))
}

/// `record` with its WARC `Content-Length` value replaced by `length`.
fn with_length(record: &[u8], length: &str) -> String {
    let text = String::from_utf8(record.to_vec()).unwrap();
    let at = text.find("Content-Length: ").unwrap() + "Content-Length: ".len();
    let end = at + text[at..].find('\r').unwrap();
    format!("{}{length}{}", &text[..at], &text[end..])
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// The resolved links and the warnings of `input`: reading never stops with an error.
fn links(input: &[u8]) -> (Vec<String>, Vec<String>) {
    let (mut links, mut warnings) = (Vec::new(), Vec::new());
    for event in Links::new(input, Options::new()) {
        match event.unwrap_or_else(|e| panic!("an error: {e}")) {
            Event::Link(link) => links.push(link.resolved),
            Event::Warning(warning) => warnings.push(warning.to_string()),
        }
    }
    (links, warnings)
}

/// The output of `rewrite` and its warnings.
fn rewritten(input: &[u8]) -> (Vec<u8>, Vec<String>) {
    let mut out = Collected::output_only();
    rewrite(input, &Options::new(), &mut out).unwrap_or_else(|e| panic!("an error: {e}"));
    let warnings = out.warnings.iter().map(ToString::to_string).collect();
    (out.output, warnings)
}

/// Every gzip member of `file`, decompressed, in order.
fn gunzip(file: &[u8]) -> Vec<u8> {
    let mut text = Vec::new();
    flate2::read::MultiGzDecoder::new(file)
        .read_to_end(&mut text)
        .unwrap();
    text
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The kinds of gzip damage: the file's members and its damaged bytes, in or after the
/// second.
fn damaged_gzip_files() -> Vec<(&'static str, Vec<u8>, Vec<u8>)> {
    let [one, two, three] = [gz(&relative(1)), gz(&relative(2)), gz(&relative(3))];
    let mut bad_crc = two.clone();
    let at = bad_crc.len() - 6;
    bad_crc[at] ^= 0x55;
    let cut = two[..two.len() / 2].to_vec();
    let mut flipped = two.clone();
    let middle = flipped.len() / 2;
    flipped[middle..middle + 4].copy_from_slice(b"\xff\xff\xff\xff");
    let cases = [
        (
            "junk between members",
            [two.clone(), b"junk \0 junk".to_vec()].concat(),
        ),
        ("a bad CRC", bad_crc),
        ("a member cut short", cut),
        ("a corrupt member", flipped),
    ];
    let mut files: Vec<_> = cases
        .into_iter()
        .map(|(name, second)| {
            let file = [&one[..], &second, &three].concat();
            // Junk after a whole member: the junk alone is damaged (the record before it
            // is whole, and rewritten).
            let damaged = match second.strip_prefix(&two[..]) {
                Some(junk) if !junk.is_empty() => junk.to_vec(),
                _ => second,
            };
            (name, file, damaged)
        })
        .collect();
    let padded = [&one[..], &two, &three, &[0; 100]].concat();
    files.push(("NULs after the last member", padded, vec![0; 100]));
    files
}

/// Gzip damage never stops the reading: the records after it are read, and the warning
/// names the record and the byte offset.
#[test]
fn gzip_damage_is_read_past() {
    for (name, file, _) in damaged_gzip_files() {
        let (found, warnings) = links(&file);
        assert!(
            found.contains(&"http://h1/dir/rel1".to_owned()),
            "{name}: {found:?}"
        );
        assert!(
            found.contains(&"http://h3/dir/rel3".to_owned()),
            "{name}: {found:?}"
        );
        let warning = warnings
            .iter()
            .find(|w| w.contains("damaged gzip data"))
            .unwrap_or_else(|| panic!("{name}: {warnings:?}"));
        assert!(
            warning.contains("from byte") && warning.contains("record"),
            "{warning}"
        );
    }
}

/// `rewrite` copies the damaged bytes as they are, and every record around them.
#[test]
fn gzip_damage_is_copied_by_rewrite() {
    for (name, file, second) in damaged_gzip_files() {
        let (out, warnings) = rewritten(&file);
        assert!(
            contains(&out, &second),
            "{name}: the damaged bytes are copied"
        );
        assert!(!warnings.is_empty(), "{name}");
        if name == "junk between members" {
            // The record before the junk is whole: rewritten, not copied as it was.
            let two = gz(&relative(2));
            assert!(!contains(&out, &two), "{name}: record 2 is rewritten");
        }
        let (found, _) = links(&out);
        assert!(
            found.contains(&"http://h1/dir/rel1".to_owned()),
            "{name}: {found:?}"
        );
        assert!(
            found.contains(&"http://h3/dir/rel3".to_owned()),
            "{name}: {found:?}"
        );
    }
    // Records left as they are: the whole file comes out byte for byte.
    let file = [
        gz(&absolute(1)),
        b"\0\0junk".to_vec(),
        gz(&absolute(2)),
        vec![0; 9],
    ]
    .concat();
    assert_eq!(rewritten(&file).0, file);
}

/// The command line: status 0, the damage on standard error, the file written.
#[test]
fn gzip_damage_keeps_status_zero() {
    let (_, file, _) = damaged_gzip_files().remove(2);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::write(input.join("a.warc.gz"), &file).unwrap();
    std::fs::write(input.join("b.warc.gz"), gz(&relative(4))).unwrap();
    let out = absolve(&["links", "--format", "warc"], &file);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("damaged gzip data"),
        "{}",
        stderr(&out)
    );
    let copy = dir.path().join("out");
    let out = absolve(
        &[
            "rewrite",
            "-r",
            input.to_str().unwrap(),
            "-o",
            copy.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for name in ["a.warc.gz", "b.warc.gz"] {
        assert!(copy.join(name).exists(), "{name}: {}", stderr(&out));
    }
}

/// A plain WARC that goes on with gzip members: the gzip records are read and kept.
#[test]
fn plain_then_gzip_members() {
    let file = [relative(1), gz(&relative(2)), gz(&relative(3))].concat();
    let (found, _) = links(&file);
    assert_eq!(
        found,
        [
            "http://h1/dir/rel1",
            "http://h2/dir/rel2",
            "http://h3/dir/rel3"
        ]
    );
    let (out, _) = rewritten(&file);
    let (found, _) = links(&out);
    assert_eq!(
        found,
        [
            "http://h1/dir/rel1",
            "http://h2/dir/rel2",
            "http://h3/dir/rel3"
        ]
    );
}

/// A plain WARC whose record has a `Content-Length` too short, its HTTP payload gzip
/// (`Content-Encoding: gzip`): the payload's gzip member, met among the bytes skipped to
/// the next record, decompresses to no record and is no gzip WARC going on: it is copied
/// as it is, once, and a second rewrite changes nothing. Found by a rewrite-twice fuzzer:
/// the file was read as gzip from there, the member's decoded bytes written besides its
/// compressed bytes (each rewrite added them again), the records after it lost.
#[test]
fn a_gzip_payload_among_skipped_bytes_is_no_gzip_warc() {
    let page = gz(b"<html><a href=inner>page</a> and text after the link</html>");
    let http = warc::http_ok(
        "Content-Type: text/html\r\nContent-Encoding: gzip\r\n",
        &page,
    );
    // Ending inside the HTTP head: the payload is among the bytes skipped after it.
    let short = (http.len() - page.len() - 6).to_string();
    let first = warc::response_claiming("1", "http://h1/dir/", &short, &http);
    let file = [first, relative(2), relative(3)].concat();
    let (once, warnings) = rewritten(&file);
    let copies = once.windows(page.len()).filter(|w| *w == &page[..]).count();
    assert_eq!(copies, 1, "{warnings:?}");
    assert!(!contains(&once, b"<a href=inner>"), "decoded bytes written");
    let (twice, _) = rewritten(&once);
    assert!(twice == once, "a second rewrite changed it");
    let (found, _) = links(&file);
    assert_eq!(found, ["http://h2/dir/rel2", "http://h3/dir/rel3"]);
}

/// Junk or NUL padding that does not end in a newline: the next record is found all the
/// same, and `rewrite` copies the junk.
#[test]
fn junk_without_a_newline() {
    for junk in [&b"\0\0\0\0"[..], b"garbage", b"\r\n\0\0 x"] {
        let file = [absolute(1), junk.to_vec(), absolute(2)].concat();
        let (found, warnings) = links(&file);
        assert_eq!(found, ["http://x/abs1", "http://x/abs2"], "{junk:?}");
        assert!(
            warnings.iter().any(|w| w.contains("skipped")),
            "{warnings:?}"
        );
        assert_eq!(rewritten(&file).0, file, "{junk:?}");
    }
}

/// A record with an invalid `Content-Length` is copied as it is, never dropped.
#[test]
fn invalid_content_lengths_are_copied() {
    for length in [
        "-5",
        "abc",
        "12345678901234567890123",
        "18446744073709551615",
    ] {
        let bad = with_length(&absolute(2), length);
        let file = [absolute(1), bad.into_bytes(), absolute(3)].concat();
        let (out, warnings) = rewritten(&file);
        assert_eq!(out, file, "{length}");
        assert!(
            warnings.iter().any(|w| w.contains("Content-Length")),
            "{warnings:?}"
        );
        let (found, _) = links(&file);
        assert!(
            found.contains(&"http://x/abs3".to_owned()),
            "{length}: {found:?}"
        );
    }
}

/// A `Content-Length` that runs past the end of the file does not swallow the records
/// after it: their links resolve against their own target URI.
#[test]
fn overlong_content_length() {
    for length in ["18446744073709551615", "99999"] {
        let swallowing = with_length(&relative(2), length);
        let file = [
            relative(1),
            swallowing.into_bytes(),
            relative(3),
            relative(4),
        ]
        .concat();
        let (found, warnings) = links(&file);
        assert!(
            found.contains(&"http://h3/dir/rel3".to_owned()),
            "{length}: {found:?}"
        );
        assert!(
            found.contains(&"http://h4/dir/rel4".to_owned()),
            "{length}: {found:?}"
        );
        assert!(!warnings.is_empty());
        let (out, _) = rewritten(&file);
        let (found, _) = links(&out);
        assert!(
            found.contains(&"http://h4/dir/rel4".to_owned()),
            "{length}: {found:?}"
        );
        // Records with absolute links only come out byte for byte.
        let swallowing = with_length(&absolute(2), length).into_bytes();
        let file = [absolute(1), swallowing, absolute(3), absolute(4)].concat();
        assert_eq!(rewritten(&file).0, file, "{length}");
    }
}

/// A `response` record that is not HTML whose `Content-Length` runs past the end of the
/// file, with more than 16 MiB of records after it (a large image, then HTML records):
/// every record after it is found from where it really ends, a warning names it and that
/// offset, and `rewrite` copies it as it is and rewrites the records after it. Before, the
/// bytes after it were held up to 16 MiB, then taken as its block: no link after it.
#[test]
fn overlong_content_length_before_many_records() {
    let image = |id: u32, size: usize, length: Option<usize>| {
        let http = warc::http_ok("Content-Type: image/png\r\n", "x".repeat(size).as_bytes());
        let length = length.unwrap_or(http.len()).to_string();
        warc::response_claiming(
            &id.to_string(),
            &format!("http://h{id}/i.png"),
            &length,
            &http,
        )
    };
    let damaged = image(2, 1000, Some(10_000_000_000));
    let file = [
        relative(1),
        damaged.clone(),
        image(3, 17 << 20, None),
        relative(4),
        relative(5),
    ]
    .concat();
    let (found, warnings) = links(&file);
    assert_eq!(
        found,
        [
            "http://h1/dir/rel1",
            "http://h4/dir/rel4",
            "http://h5/dir/rel5"
        ]
    );
    let next = relative(1).len() + damaged.len() - 4;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("record 2 <urn:uuid:2> (at byte")
            && warnings[0].contains(&format!("a record starts at byte {}", next + 4)),
        "{warnings:?}"
    );
    let (out, warnings) = rewritten(&file);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        contains(&out, &damaged),
        "the damaged record is copied as it is"
    );
    assert!(contains(&out, &image(3, 17 << 20, None)));
    assert!(contains(&out, b"<a href=http://h5/dir/rel5>"));
    // Records with absolute links only come out byte for byte.
    let file = [absolute(1), damaged, image(3, 17 << 20, None), absolute(4)].concat();
    assert_eq!(rewritten(&file).0, file);
}

/// An HTML record whose `Content-Length` runs past the end of the file is copied as it
/// is by `rewrite` (a new `Content-Length` would hide the damage); its links are listed.
#[test]
fn overlong_html_record_is_copied_as_it_is() {
    let damaged = with_length(&relative(2), "10000000000").into_bytes();
    let file = [relative(1), damaged.clone(), relative(3)].concat();
    let (found, _) = links(&file);
    assert_eq!(
        found,
        [
            "http://h1/dir/rel1",
            "http://h2/dir/rel2",
            "http://h3/dir/rel3"
        ]
    );
    let (out, warnings) = rewritten(&file);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        contains(&out, &damaged),
        "the damaged record is copied as it is"
    );
    assert!(contains(&out, b"<a href=http://h3/dir/rel3>"));
}

/// A header block over 1 MiB is copied whole, with a warning; the next record is read.
#[test]
fn huge_header_block() {
    let fields = "X-A: 0123456789012345678901234567890123456789\r\n".repeat(25_000);
    let huge = String::from_utf8(absolute(2)).unwrap().replacen(
        "WARC-Type",
        &format!("{fields}WARC-Type"),
        1,
    );
    let file = [absolute(1), huge.into_bytes(), relative(3)].concat();
    let (found, warnings) = links(&file);
    assert!(
        found.contains(&"http://h3/dir/rel3".to_owned()),
        "{found:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("over 1 MiB")),
        "{warnings:?}"
    );
    let (out, _) = rewritten(&file);
    assert!(out.starts_with(&file[..file.len() - relative(3).len()]));
}

/// An HTTP header line over 256 KiB is not split: the payload is copied unchanged, with
/// a warning; a chunk larger than the data left is said.
#[test]
fn long_http_head_and_short_chunks() {
    let long = format!("X-Long: {}\r\n", "a".repeat(300 * 1024));
    let plain = relative(1);
    let length = plain.len() - 4 - plain.windows(4).position(|w| w == b"\r\n\r\n").unwrap() - 4;
    let file = with_length(&plain, &(length + long.len()).to_string()).replace(
        "Content-Type: text/html\r\n",
        &format!("Content-Type: text/html\r\n{long}"),
    );
    let (out, warnings) = rewritten(file.as_bytes());
    assert_eq!(out, file.as_bytes());
    assert!(
        warnings.iter().any(|w| w.contains("over 256 KiB")),
        "{warnings:?}"
    );

    let http = warc::http_ok(
        "Content-Type: text/html\r\nTransfer-Encoding: chunked\r\n",
        b"ffff\r\n<a href=x>",
    );
    let file = warc::response_without_id("http://h/", &http);
    let (found, warnings) = links(&file);
    assert_eq!(found, ["http://h/x"]);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("a chunk of 65535 bytes")),
        "{warnings:?}"
    );
}

/// A decompression bomb is copied unchanged by `rewrite` (never cut), with a warning.
#[test]
fn decompression_bomb_is_copied() {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(b"<a href=x>").unwrap();
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..260 {
        encoder.write_all(&zeros).unwrap();
    }
    let bomb = encoder.finish().unwrap();
    let http = warc::http_ok(
        "Content-Type: text/html\r\nContent-Encoding: gzip\r\n",
        &bomb,
    );
    let file = warc::response_without_id("http://h/", &http);
    let (out, warnings) = rewritten(&file);
    assert_eq!(out.len(), file.len());
    assert!(out == file);
    assert!(
        warnings.iter().any(|w| w.contains("decompression bomb")),
        "{warnings:?}"
    );
}

/// A whole-file gzip WARC (one stream, not a member per record) rewritten: one member
/// per record, each with its record's end.
#[test]
fn whole_file_gzip_comes_out_one_member_per_record() {
    let file = gz(&[relative(1), absolute(2), relative(3)].concat());
    let (out, _) = rewritten(&file);
    let mut members = 0;
    let mut rest = &out[..];
    while !rest.is_empty() {
        let mut decoder = flate2::bufread::GzDecoder::new(rest);
        let mut text = Vec::new();
        decoder.read_to_end(&mut text).unwrap();
        assert!(
            text.starts_with(b"WARC/1.0") && text.ends_with(b"\r\n\r\n"),
            "{text:?}"
        );
        rest = decoder.into_inner();
        members += 1;
    }
    assert_eq!(members, 3);
}

/// Gzip files in which no record can be read at all: the first member cut short a few
/// bytes in, its data overwritten, the gzip magic then garbage.
fn unreadable_gzip_files() -> Vec<(&'static str, Vec<u8>)> {
    let whole = gz(&[relative(1), relative(2)].concat());
    let mut overwritten = whole.clone();
    overwritten[10..].iter_mut().for_each(|b| *b = 0xff);
    vec![
        ("cut at byte 10", whole[..10].to_vec()),
        ("cut at byte 20", whole[..20].to_vec()),
        ("overwritten from byte 10", overwritten),
        ("magic then garbage", b"\x1f\x8b\x08\x00garbage".to_vec()),
    ]
}

/// A gzip WARC with no readable record is a damaged WARC, not an error: a warning with
/// the byte offset, no links, and `rewrite` copies its bytes as they are.
#[test]
fn unreadable_gzip_is_a_warning_and_copied() {
    for (name, file) in unreadable_gzip_files() {
        let (found, warnings) = links(&file);
        assert!(found.is_empty(), "{name}: {found:?}");
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("damaged gzip data from byte 0")),
            "{name}: {warnings:?}"
        );
        let (out, warnings) = rewritten(&file);
        assert_eq!(out, file, "{name}: copied as it is");
        assert!(!warnings.is_empty(), "{name}");
    }
}

/// The command line: status 0, the warning names the file, and `-o`, `-i` and `-r -o DIR`
/// all write the file (its bytes unchanged); `links` prints nothing but the warning.
#[test]
fn unreadable_gzip_keeps_status_zero_and_is_written() {
    let (_, file) = unreadable_gzip_files().remove(0);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let path = input.join("a.warc.gz");
    std::fs::write(&path, &file).unwrap();
    let out = absolve(&["links", path.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("a.warc.gz") && stderr(&out).contains("from byte 0"),
        "{}",
        stderr(&out)
    );
    let single = dir.path().join("single.warc.gz");
    let out = absolve(
        &[
            "rewrite",
            path.to_str().unwrap(),
            "-o",
            single.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(&single).unwrap(), file);
    let copy = dir.path().join("out");
    let out = absolve(
        &[
            "rewrite",
            "-r",
            input.to_str().unwrap(),
            "-o",
            copy.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(copy.join("a.warc.gz")).unwrap(), file);
    let out = absolve(&["rewrite", "-i", path.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(&path).unwrap(), file);
}

/// Before the first record, bytes that are not one (a junk line in the record's own
/// member, or a junk member before it): the records are still rewritten, the junk kept.
#[test]
fn junk_before_the_first_record() {
    let whole = gz(&[b"junk line\n".to_vec(), relative(1), relative(2)].concat());
    let members = [gz(b"junk line\n"), gz(&relative(1)), gz(&relative(2))].concat();
    for file in [whole, members] {
        let (found, warnings) = links(&file);
        assert_eq!(found, ["http://h1/dir/rel1", "http://h2/dir/rel2"]);
        assert!(warnings.iter().any(|w| w.contains("10 bytes at byte 0")));
        let (out, _) = rewritten(&file);
        let mut plain = Vec::new();
        flate2::read::MultiGzDecoder::new(&out[..])
            .read_to_end(&mut plain)
            .unwrap();
        assert!(plain.starts_with(b"junk line\nWARC/1.0"));
        assert!(contains(&plain, b"<a href=http://h2/dir/rel2>"));
    }
}

/// More junk before the first record of a whole-file gzip than is held to be recompressed
/// with it (1 MiB): the member is copied as it is, records and all, and each record that
/// would have been rewritten says so (it was copied silently).
#[test]
fn records_sharing_a_member_with_much_junk_say_they_are_not_rewritten() {
    let junk = b"junk line\n".repeat(120_000);
    let file = gz(&[junk, relative(1), relative(2)].concat());
    let (out, warnings) = rewritten(&file);
    assert_eq!(out, file, "the member is copied as it is");
    for id in [1, 2] {
        assert!(
            warnings
                .iter()
                .any(|w| w.contains(&format!("<urn:uuid:{id}>")) && w.contains("copied unchanged")),
            "record {id}: {warnings:?}"
        );
    }
}

/// A whole-file gzip WARC (one member) damaged in the middle of a large non-HTML record
/// that is recompressed as it streams: the output holds each input byte once (the part
/// before the damage recompressed, the damaged part copied as it is), never the part
/// before the damage twice; a warning names the offset.
#[test]
fn whole_file_gzip_damage_is_not_repeated() {
    // Bytes that compress some (Huffman-coded, so that damage is found where it is, not
    // at the checksum), not much: a repeat would add half the output's size.
    let noise = warc::noise(2 << 20, 0x2545_f491_4f6c_dd1d);
    let image_http = warc::http_ok("Content-Type: image/png\r\n", &noise);
    let image = warc::response("img", "http://h/i.png", &image_http);
    let whole = gz(&[relative(1), image, relative(3)].concat());
    let middle = whole.len() / 2;
    // Random bytes over 4 KiB: a deflate block header among them is invalid.
    let mut corrupt = whole.clone();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for byte in &mut corrupt[middle..middle + 4096] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *byte = (state >> 24) as u8;
    }
    let cases = [
        ("truncated", whole[..middle].to_vec()),
        ("corrupt", corrupt),
    ];
    for (name, file) in cases {
        let (out, warnings) = rewritten(&file);
        assert!(
            out.len() < file.len() + (64 << 10),
            "{name}: {} bytes out of {} in",
            out.len(),
            file.len()
        );
        // What decompresses of the output: the first record rewritten, the image up to
        // the damage.
        let mut plain = Vec::new();
        let _ = flate2::read::MultiGzDecoder::new(&out[..]).read_to_end(&mut plain);
        assert!(contains(&plain, b"<a href=http://h1/dir/rel1>"), "{name}");
        assert!(
            plain.len() > (1 << 20) - (64 << 10),
            "{name}: {}",
            plain.len()
        );
        if name == "corrupt" {
            let warning = warnings
                .iter()
                .find(|w| w.contains("damaged gzip data"))
                .unwrap_or_else(|| panic!("{name}: {warnings:?}"));
            assert!(warning.contains("found at byte"), "{warning}");
            // The damaged part is copied as it is, once: from where it was found.
            let found_at: usize = warning
                .split("found at byte ")
                .nth(1)
                .and_then(|rest| rest.split(':').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{warning}"));
            assert!(
                found_at >= middle && found_at < middle + (128 << 10),
                "{warning}"
            );
            let tail = &file[found_at..];
            assert!(out.ends_with(tail), "{name}");
            assert!(plain.len() + tail.len() < file.len() + (2 << 20), "{name}");
        }
    }
}

/// Bytes that are not a record after the last one, in a gzip member of their own or in
/// the last record's member (a whole-file gzip): copied once, never both recompressed and
/// as they were.
#[test]
fn junk_after_the_last_record_is_copied_once() {
    let junk = b"garbage text\n".repeat(3);
    let own_member = [gz(&absolute(1)), gz(&junk)].concat();
    let whole = gz(&[absolute(1), junk.clone()].concat());
    for (name, file) in [("own member", own_member), ("whole file", whole)] {
        let (out, warnings) = rewritten(&file);
        assert!(
            warnings.iter().any(|w| w.contains("are not a record")),
            "{name}"
        );
        let mut plain = Vec::new();
        flate2::read::MultiGzDecoder::new(&out[..])
            .read_to_end(&mut plain)
            .unwrap();
        assert_eq!(plain, [absolute(1), junk.clone()].concat(), "{name}");
        let mut whole_out = Vec::new();
        let mut decoder = flate2::read::MultiGzDecoder::new(&out[..]);
        decoder.read_to_end(&mut whole_out).unwrap();
        assert!(
            decoder.into_inner().is_empty(),
            "{name}: nothing after the members"
        );
    }
    let own_member = [gz(&absolute(1)), gz(&junk)].concat();
    assert_eq!(rewritten(&own_member).0, own_member, "copied byte for byte");
}

/// Records sharing a gzip member (recompressed) followed by records in members of their
/// own (copied): whatever was read ahead of the shared member's end, each member comes out
/// whole, and the output reads back with every record and no warning.
#[test]
fn shared_member_then_own_members() {
    let image = |id: u32| {
        let http = warc::http_ok("Content-Type: image/png\r\n", b"PNG");
        warc::response(&id.to_string(), "http://h/i.png", &http)
    };
    // A large member after the shared one: more than is read ahead of its start.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let text: String = (0..400_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(b'a' + (state >> 24) as u8 % 26)
        })
        .collect();
    let third = record(3, &format!("<a href=rel3>{text}"));
    let file = [
        gz(&[relative(1), image(2)].concat()),
        gz(&third),
        gz(&image(4)),
        gz(&absolute(5)),
    ]
    .concat();
    let (out, warnings) = rewritten(&file);
    assert!(warnings.is_empty(), "{warnings:?}");
    let (found, warnings) = links(&out);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        found,
        ["http://h1/dir/rel1", "http://h3/dir/rel3", "http://x/abs5"]
    );
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(&out[..])
        .read_to_end(&mut plain)
        .unwrap();
    assert!(contains(&plain, &image(2)) && plain.ends_with(&absolute(5)));
}

/// A run of junk longer than what is held of it at a time (4 MiB), between gzip members or
/// after the last: after a record's own member, after a whole-file member (its records
/// recompressed), after one ending in bytes that are not a record, or with no member after
/// it. `rewrite` copies it once, in place, as it is, with one warning; the records around
/// it are read. (A junk run after a recompressed member ending in bytes that are not a
/// record was dropped at the next record.)
#[test]
fn long_junk_runs_are_copied_once_in_place() {
    let junk = vec![b'J'; 10 << 20];
    let whole = gz(&[relative(1), relative(3)].concat());
    let whole_tail = gz(&[relative(1), relative(3), b"garbage\n".to_vec()].concat());
    let cases = [
        ("own member", gz(&absolute(1)), Some(gz(&absolute(2)))),
        ("own member, last", gz(&absolute(1)), None),
        ("whole file", whole.clone(), Some(gz(&absolute(2)))),
        ("whole file, last", whole, None),
        (
            "whole file, bytes after",
            whole_tail,
            Some(gz(&absolute(2))),
        ),
    ];
    for (name, before, after) in cases {
        let after = after.unwrap_or_default();
        let file = [&before[..], &junk, &after].concat();
        let (out, warnings) = rewritten(&file);
        let damaged: Vec<_> = warnings
            .iter()
            .filter(|w| w.contains("damaged gzip data"))
            .collect();
        assert_eq!(damaged.len(), 1, "{name}: {warnings:?}");
        assert!(
            damaged[0].contains(&format!("from byte {} ", before.len())),
            "{name}: {warnings:?}"
        );
        // The junk once, in place: right after the first member(s), which decompress
        // whole; the last member as it was (its link is absolute).
        let at = out
            .windows(64)
            .position(|w| w == &junk[..64])
            .unwrap_or_else(|| panic!("{name}: no junk in the output"));
        assert_eq!(&out[at..at + junk.len()], &junk[..], "{name}");
        assert_eq!(&out[at + junk.len()..], &after[..], "{name}");
        assert!(!contains(&out[..at], b"JJJJ"), "{name}");
        let mut plain = Vec::new();
        flate2::read::MultiGzDecoder::new(&out[..at])
            .read_to_end(&mut plain)
            .unwrap();
        assert!(contains(&plain, b"<urn:uuid:1>\r\n"), "{name}");
        if !after.is_empty() {
            let (found, _) = links(&file);
            assert!(found.contains(&"http://x/abs2".to_owned()), "{name}");
        }
    }
    // Members of their own left as they are: byte for byte.
    let file = [gz(&absolute(1)), junk.clone(), gz(&absolute(2))].concat();
    assert_eq!(rewritten(&file).0, file);
}

/// A whole-file gzip member holding several records, damaged (corrupt deflate data) in
/// bytes between two of its records, followed by a member of its own: the damaged
/// compressed bytes are copied as they are, from where the damage was found, with a
/// warning, and the record after them is read.
#[test]
fn damage_between_records_of_a_recompressed_member_is_copied() {
    // Bytes that are not a record, compressing some (Huffman-coded, so that damage is
    // found where it is).
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let noise: Vec<u8> = (0..400_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            b'a' + (state >> 24) as u8 % 16
        })
        .collect();
    let mut member = gz(&[relative(1), relative(3), noise].concat());
    let middle = member.len() / 2;
    for byte in &mut member[middle..middle + 4096] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *byte = (state >> 24) as u8;
    }
    let last = gz(&absolute(2));
    let file = [&member[..], &last].concat();
    let (out, warnings) = rewritten(&file);
    let warning = warnings
        .iter()
        .find(|w| w.contains("damaged gzip data"))
        .unwrap_or_else(|| panic!("{warnings:?}"));
    let found_at: usize = warning
        .split("found at byte ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{warning}"));
    assert!(found_at > middle && found_at < member.len(), "{warning}");
    // The damaged part, as it is, then the last member as it was.
    assert!(out.ends_with(&file[found_at..]), "{warnings:?}");
    let (found, _) = links(&out);
    assert!(
        found.contains(&"http://h1/dir/rel1".to_owned()),
        "{found:?}"
    );
    assert!(found.contains(&"http://x/abs2".to_owned()), "{found:?}");
}

/// The WARC fuzz target's find: bytes before the first record held to go with it, then a
/// gzip member that begins inside the record's head (the member before it damaged): the
/// held bytes were sliced from that member's start, past their end (a panic).
#[test]
fn a_member_beginning_inside_the_first_records_head() {
    let head = b"abc\nWARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://a/\r\n";
    let rest = b"Content-Type: text/html\r\nContent-Length: 12\r\n\r\n<a href=x>x\n\r\n\r\n";
    let mut damaged = gz(head);
    let crc = damaged.len() - 8;
    damaged[crc] ^= 0xff;
    for input in [
        [gz(head), gz(rest)].concat(),
        [damaged.clone(), gz(rest)].concat(),
        [b"\x1f\x8b\x08\x00junk".to_vec(), damaged, gz(rest)].concat(),
    ] {
        let (output, _) = rewritten(&input);
        let mut all = Vec::new();
        flate2::read::MultiGzDecoder::new(&output[..])
            .read_to_end(&mut all)
            .ok();
        assert!(contains(&all, b"http://a/x") || contains(&output, &input[input.len() - 20..]));
        let (found, _) = links(&input);
        assert_eq!(found, ["http://a/x"]);
    }
}

/// Every member's decompressed bytes, the members that do not decompress left out.
fn whole_members(mut file: &[u8]) -> Vec<Vec<u8>> {
    let mut members = Vec::new();
    while !file.is_empty() {
        let mut decoder = flate2::bufread::GzDecoder::new(file);
        let mut plain = Vec::new();
        match decoder.read_to_end(&mut plain) {
            Ok(_) => {
                members.push(plain);
                file = decoder.into_inner();
            }
            Err(_) => match file[1..].windows(3).position(|w| w == b"\x1f\x8b\x08") {
                Some(next) => file = &file[1 + next..],
                None => break,
            },
        }
    }
    members
}

/// RFC 1952 §2.3.1: a damaged member whose deflate data still decodes, past its record's
/// end (bytes after the record), its CRC-32 wrong: the damage is found only after the
/// record was read. Its member is copied as it is, once, and the record after it is
/// written once (it was written twice, copied then rewritten, and the damaged member
/// re-encoded as a valid one).
#[test]
fn damage_found_after_its_records_end_is_copied_as_it_is() {
    let [one, three] = [gz(&relative(1)), gz(&relative(3))];
    let mut two = gz(&[relative(2), b"garbage".to_vec()].concat());
    let crc = two.len() - 8;
    two[crc] ^= 0x55;
    let file = [&one[..], &two, &three].concat();
    let (out, warnings) = rewritten(&file);
    assert!(
        contains(&out, &two),
        "the damaged member copied: {warnings:?}"
    );
    let warning = warnings
        .iter()
        .find(|w| w.contains("damaged gzip data"))
        .unwrap_or_else(|| panic!("{warnings:?}"));
    assert!(
        warning.contains(&format!("from byte {}", one.len())),
        "{warning}"
    );
    let records: Vec<String> = whole_members(&out)
        .iter()
        .map(|m| String::from_utf8_lossy(m).into_owned())
        .collect();
    assert_eq!(records.len(), 2, "{records:?}");
    assert!(
        records[0].contains("<a href=http://h1/dir/rel1>"),
        "{records:?}"
    );
    assert!(
        records[1].contains("<a href=http://h3/dir/rel3>"),
        "{records:?}"
    );
}

/// A member damaged from its first deflate block (nothing decodes): the record in the
/// member before it is whole (its CRC-32 checked), and rewritten.
#[test]
fn the_record_before_a_damaged_member_is_rewritten() {
    let [one, three] = [gz(&relative(1)), gz(&relative(3))];
    let mut two = gz(&relative(2));
    // After the 10-byte header: block type 11, reserved (RFC 1951 §3.2.3), an error.
    two[10..14].copy_from_slice(b"\xff\xff\xff\xff");
    let file = [&one[..], &two, &three].concat();
    let (out, warnings) = rewritten(&file);
    assert!(
        contains(&out, &two),
        "the damaged member copied: {warnings:?}"
    );
    assert!(!contains(&out, &one), "record 1 rewritten: {warnings:?}");
    assert!(!contains(&out, &three), "record 3 rewritten: {warnings:?}");
}

/// A file cut inside its last record, after a link: the record passes through as it is,
/// with its warning (it was written whole, with a new Content-Length, and for gzip in a
/// new complete member: the truncation hidden from every later reader).
#[test]
fn a_truncated_record_is_copied_as_it_is() {
    let last = record(2, "<a href=rel2>two</a> and some text after the link");
    let cut = &last[..last.len() - 12];
    let plain = [&relative(1)[..], cut].concat();
    let (out, warnings) = rewritten(&plain);
    assert!(out.ends_with(cut), "{warnings:?}");
    assert!(
        warnings.iter().any(|w| w.contains("truncated")),
        "{warnings:?}"
    );
    let member = gz(&last);
    let cut = &member[..member.len() - 12];
    let gzipped = [&gz(&relative(1))[..], cut].concat();
    let (out, warnings) = rewritten(&gzipped);
    assert!(out.ends_with(cut), "{warnings:?}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("cut short") || w.contains("truncated")),
        "{warnings:?}"
    );
}

/// A record that is not a document (an image) whose `Content-Length` runs far past the
/// end of the file, the next records within the bytes read with its HTTP head: they are
/// read (the block is taken to end where they start), and `rewrite` copies the image's
/// bytes as they are and rewrites them. They were swallowed: no link, one warning saying
/// the file was truncated.
#[test]
fn overlong_non_document_records_end_at_the_next_record() {
    let http = warc::http_ok("Content-Type: image/png\r\n", b"\x01PNG....");
    let image = warc::response_claiming("png", "http://h/i.png", "1000000000000", &http);
    let file = [&image[..], &relative(1), &relative(2)].concat();
    let (found, warnings) = links(&file);
    assert_eq!(
        found,
        ["http://h1/dir/rel1", "http://h2/dir/rel2"],
        "{warnings:?}"
    );
    let overlong = format!("a record starts at byte {}", image.len());
    assert!(
        warnings.iter().any(|w| w.contains(&overlong)),
        "{warnings:?}"
    );
    let (out, _) = rewritten(&file);
    assert!(out.starts_with(&image[..]));
    let (found, _) = links(&out);
    assert_eq!(found, ["http://h1/dir/rel1", "http://h2/dir/rel2"]);
    assert!(contains(&out, b"<a href=http://h2/dir/rel2>"));
}

/// The same in a gzip file of one member per record: the image's member was copied as
/// it was read, without watching its block, so the records after it were taken into it
/// (none rewritten, one warning saying the file was truncated). Now they are found and
/// rewritten, the image's member copied byte for byte, and the warning says where its
/// block was taken to end.
#[test]
fn overlong_non_document_member_ends_at_the_next_record() {
    let http = warc::http_ok("Content-Type: image/png\r\n", b"\x01PNG....");
    let image = warc::response_claiming("png", "http://h/i.png", "1000000000000", &http);
    let first = relative(1);
    let file = [
        gz(&first),
        gz(&image[..]),
        gz(&relative(2)),
        gz(&relative(3)),
    ]
    .concat();
    let (out, warnings) = rewritten(&file);
    let overlong = format!(
        "record 2 <urn:uuid:png> (at byte {}): Content-Length 1000000000000 runs past the end of the file, but a record starts at byte {}",
        first.len(),
        first.len() + image.len()
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains(&overlong), "{warnings:?}");
    assert!(
        contains(&out, &gz(&image[..])),
        "the image's member is copied as it is"
    );
    let (found, _) = links(&out);
    assert_eq!(
        found,
        [
            "http://h1/dir/rel1",
            "http://h2/dir/rel2",
            "http://h3/dir/rel3"
        ]
    );
    let text = gunzip(&out);
    assert!(
        contains(&text, b"<a href=http://h3/dir/rel3>"),
        "record 4 is rewritten"
    );
    // Records with absolute links only come out byte for byte.
    let file = [gz(&absolute(1)), gz(&image[..]), gz(&absolute(2))].concat();
    assert_eq!(rewritten(&file).0, file);
}

/// In a whole-file gzip WARC, the records after an overlong one are read again from the
/// bytes given back; the last of them were taken for the end of the file once the stream
/// had given them all to the framing's buffer (the stream at its end, the framing not),
/// and the records after that one were copied, "sharing their gzip member with bytes
/// copied as they are", not rewritten. Now every one is rewritten.
#[test]
fn whole_file_gzip_records_after_an_overlong_one_are_all_rewritten() {
    let swallowing = with_length(&relative(2), "10000000000").into_bytes();
    let file = gz(&[
        relative(1),
        swallowing,
        relative(3),
        relative(4),
        relative(5),
    ]
    .concat());
    let (out, warnings) = rewritten(&file);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("runs past the end of the file"),
        "{warnings:?}"
    );
    let text = gunzip(&out);
    for id in [1, 3, 4, 5] {
        let link = format!("<a href=http://h{id}/dir/rel{id}>");
        assert!(
            contains(&text, link.as_bytes()),
            "record {id} is not rewritten"
        );
    }
}

/// `gz(bytes)` with its trailer (RFC 1952 §2.3.1) wrong: the CRC-32 (`crc`) or the length.
fn wrong_trailer(bytes: &[u8], crc: bool) -> Vec<u8> {
    let mut member = gz(bytes);
    let at = member.len() - if crc { 6 } else { 2 };
    member[at] ^= 1;
    member
}

/// A `response` record of an image whose payload is `payload`.
fn image(id: u32, payload: &[u8]) -> Vec<u8> {
    let http = warc::http_ok("Content-Type: image/png\r\n", payload);
    warc::response(&id.to_string(), "http://h/i.png", &http)
}

/// A whole-file gzip WARC (one member, several records) whose trailer is wrong, the CRC-32
/// or the length (RFC 1952 §2.3.1): the damage is somewhere in the member, found only at
/// its end, after every record. `rewrite` copies the file as it is, every byte; it
/// rewrote the records before the last and recompressed the last as decoded (the damage
/// silently repaired: a new, valid trailer), without the 8 bytes of the old one. The
/// warnings say that the file ends where the damage was found (not "the rest of the file
/// is skipped": nothing follows), and which records were not rewritten. `links` lists
/// every record's links, as read, with the warning.
#[test]
fn whole_file_gzip_with_a_wrong_trailer_is_copied_as_it_is() {
    for crc in [true, false] {
        let file = wrong_trailer(&[relative(1), absolute(2), relative(3)].concat(), crc);
        let (out, warnings) = rewritten(&file);
        assert!(
            out == file,
            "crc {crc}: the file is copied as it is: {warnings:?}"
        );
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].contains(&format!(
                "damaged gzip data from byte 0 of the file after record 3 <urn:uuid:3> (at byte {}) (found at byte {}: corrupt gzip stream does not have a matching checksum): the file ends there",
                relative(1).len() + absolute(2).len(),
                file.len()
            )),
            "{warnings:?}"
        );
        assert!(
            warnings[1].contains(&format!(
                "record 1 <urn:uuid:1> (at byte 0) and the records after it in the gzip member from byte 0 to byte {} of the file: its CRC-32 or length does not match what it decodes to: the member is copied as it is, 2 of its records not rewritten",
                file.len()
            )),
            "{warnings:?}"
        );
        let (found, warnings) = links(&file);
        assert_eq!(
            found,
            ["http://h1/dir/rel1", "http://x/abs2", "http://h3/dir/rel3"]
        );
        assert!(
            warnings.len() == 1 && warnings[0].ends_with(": the file ends there"),
            "{warnings:?}"
        );
    }
}

/// The same member with a wrong trailer followed by bytes: a member of its own (rewritten,
/// the damaged member before it copied as it is), bytes that are not gzip data, or NUL
/// padding (copied as they are, after it); one beginning with bytes that are not a record
/// (copied as it is); and a member of its own with a wrong trailer
/// at the end of a file of one member per record (copied as it is, the member before it
/// rewritten). The warnings say where reading resumed, or that the file ends there.
#[test]
fn a_member_with_a_wrong_trailer_is_copied_as_it_is_whatever_follows() {
    let damaged = wrong_trailer(&[relative(1), relative(2)].concat(), true);
    let file = [&damaged[..], &gz(&relative(3))].concat();
    let (out, warnings) = rewritten(&file);
    assert!(out.starts_with(&damaged), "{warnings:?}");
    assert!(
        contains(
            &gunzip(&out[damaged.len()..]),
            b"<a href=http://h3/dir/rel3>"
        ),
        "record 3 is rewritten"
    );
    assert!(
        warnings.iter().any(|w| w.ends_with(&format!(
            "resumed at the next gzip member, byte {}",
            damaged.len()
        ))),
        "{warnings:?}"
    );
    for junk in [b"junk, not gzip data\n".repeat(3), vec![0; 100]] {
        let file = [&damaged[..], &junk].concat();
        let (out, warnings) = rewritten(&file);
        assert!(out == file, "copied as it is: {warnings:?}");
    }
    // Bytes that are not a record before the first, in the member.
    let file = wrong_trailer(
        &[b"junk line\n".to_vec(), relative(1), relative(2)].concat(),
        true,
    );
    let (out, warnings) = rewritten(&file);
    assert!(out == file, "copied as it is: {warnings:?}");
    let last = wrong_trailer(&relative(2), true);
    let file = [&gz(&relative(1))[..], &last].concat();
    let (out, warnings) = rewritten(&file);
    assert!(out.ends_with(&last), "{warnings:?}");
    assert!(
        contains(
            &gunzip(&out[..out.len() - last.len()]),
            b"<a href=http://h1/dir/rel1>"
        ),
        "record 1 is rewritten"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("damaged gzip data") && w.ends_with(": the file ends there")),
        "{warnings:?}"
    );
}

/// A whole-file gzip member larger than what is held in memory of it (the output held
/// back, 4 MiB, and the compressed bytes recorded, 1 MiB: the rest in temporary files),
/// its trailer wrong: copied as it is, every byte; whole, rewritten, its records come out
/// in order.
#[test]
fn a_large_member_with_a_wrong_trailer_is_copied_as_it_is() {
    let mut records = Vec::new();
    for id in 0..40 {
        records.push(relative(2 * id));
        records.push(image(
            2 * id + 1,
            &noise(300_000, 0x2545_f491_4f6c_dd1d + u64::from(id)),
        ));
    }
    let records = records.concat();
    let whole = gz(&records);
    let mut damaged = whole.clone();
    let crc = damaged.len() - 8;
    damaged[crc] ^= 1;
    assert!(damaged.len() > 5 << 20, "{} bytes", damaged.len());
    let (out, warnings) = rewritten(&damaged);
    assert!(out == damaged, "copied as it is: {warnings:?}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("40 of its records not rewritten")),
        "{warnings:?}"
    );
    let (out, warnings) = rewritten(&whole);
    assert!(warnings.is_empty(), "{warnings:?}");
    let text = gunzip(&out);
    let (found, _) = links(&out);
    let expected: Vec<String> = (0..40)
        .map(|id| format!("http://h{0}/dir/rel{0}", 2 * id))
        .collect();
    assert_eq!(found, expected);
    for id in [0, 39] {
        let payload = noise(300_000, 0x2545_f491_4f6c_dd1d + u64::from(id));
        assert!(contains(&text, &image(2 * id + 1, &payload)), "image {id}");
    }
}

/// An HTTP head with no blank line after it: the body's lines are taken as (invalid,
/// ignored) header fields and nothing of them is read; that is said (it was silent: 0
/// links, status 0). A head that merely ends with the block, all its lines fields, is
/// accepted quietly.
#[test]
fn a_head_without_its_blank_line_that_swallows_the_body_is_warned_about() {
    let warc = |block: &[u8]| {
        let fields = [
            ("WARC-Type", "response"),
            ("WARC-Record-ID", "<urn:uuid:h>"),
            ("WARC-Target-URI", "http://e.com/d/p.html"),
            ("Content-Type", "application/http; msgtype=response"),
        ];
        warc::record(&fields, block)
    };
    let swallowed = warc(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n<html><a href=\"a.html\">a</a>\r\n<img src=x.png>\r\n",
    );
    let (_, warnings) = links(&swallowed);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("urn:uuid:h") && w.contains("no blank line ends the head: 2 lines")),
        "{warnings:?}"
    );
    let head_only = warc(b"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n Folded: on\r\n");
    assert_eq!(links(&head_only), (vec![], vec![]));
}

/// The ways a gzip member is damaged whose deflate data may still decode on, past the
/// member's end, into the members after it (RFC 1952 §2.3.1: the damage is then found
/// there, or at the end of the file, or never as such): a byte flipped at each position, the
/// member cut at each length, its last bytes overwritten.
fn damaged_variants(member: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut variants = Vec::new();
    for at in 10..member.len() {
        let mut flipped = member.to_vec();
        flipped[at] ^= 0x55;
        variants.push((format!("byte {at} flipped"), flipped));
    }
    for length in 10..member.len() {
        variants.push((format!("cut at {length}"), member[..length].to_vec()));
    }
    for n in 1..=16 {
        let mut tail = member.to_vec();
        let at = tail.len() - n;
        tail[at..].fill(0xff);
        variants.push((format!("last {n} bytes 0xff"), tail));
    }
    variants
}

/// A damaged member (one record, or two) followed by members of their own: whatever the
/// damage, the records after it are rewritten and listed, and the damaged member's last
/// bytes come out as they are. Found by a damage fuzzer (74 of 400 files lost records):
/// deflate data decoding on into the next member made the search for it start past its
/// start (the whole file after it skipped, or copied unread), or hid the damage as a file
/// cut short (nothing after it read, no warning); a head cut by the damage took its
/// fields, and a block its bytes, from the next member: that record swallowed, the two
/// rewritten as one with the first one's URL as the base.
#[test]
fn records_after_a_member_whose_damage_reads_on_are_rewritten() {
    let after = [gz(&relative(3)), gz(&relative(4))].concat();
    for member in [gz(&relative(1)), gz(&[relative(1), relative(2)].concat())] {
        for (name, damaged) in damaged_variants(&member) {
            let file = [&damaged[..], &after].concat();
            let (out, warnings) = rewritten(&file);
            let text: Vec<u8> = whole_members(&out).concat();
            for id in [3, 4] {
                assert!(
                    contains(
                        &text,
                        format!("<a href=http://h{id}/dir/rel{id}>").as_bytes()
                    ),
                    "{name}: record {id} is not rewritten: {warnings:?}"
                );
            }
            let tail = &damaged[damaged.len().saturating_sub(8)..];
            assert!(
                contains(&out, tail),
                "{name}: the damaged bytes: {warnings:?}"
            );
            assert!(
                warnings.iter().any(|w| w.contains("damaged gzip data")),
                "{name}: {warnings:?}"
            );
            let (found, _) = links(&file);
            for id in [3, 4] {
                let link = format!("http://h{id}/dir/rel{id}");
                assert!(found.contains(&link), "{name}: {found:?}");
            }
        }
    }
}

/// A gzip member that ends the file without its trailer (RFC 1952 §2.3.1: CRC-32 and
/// length never read), every record in it whole: what it decoded to is not checked, and a
/// warning says so. It was silent (damaged deflate data can decode to the end of the
/// file this way too, with no error).
#[test]
fn a_last_member_without_its_trailer_is_warned_about() {
    let member = gz(&[relative(1), relative(2)].concat());
    let file = [&gz(&relative(0))[..], &member[..member.len() - 8]].concat();
    let cut_short = |warnings: &[String]| {
        warnings.iter().any(|w| {
            w.contains(&format!(
                "damaged gzip data from byte {}",
                file.len() - member.len() + 8
            )) && w.contains("the file ends inside a gzip member (cut short)")
        })
    };
    let (out, warnings) = rewritten(&file);
    assert!(cut_short(&warnings), "{warnings:?}");
    assert!(contains(&gunzip(&out), b"<a href=http://h2/dir/rel2>"));
    let (found, warnings) = links(&file);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(cut_short(&warnings), "{warnings:?}");
}

/// A record that runs on from its own gzip member into a second one, damaged (a byte
/// inserted, deleted or changed at each position): the damage is found at that member's
/// end (RFC 1952 §2.3.1), after the record's block. The record is copied as it is, its
/// two members byte for byte, and the record after them is rewritten once; a second
/// rewrite changes nothing. Found by a rewrite-twice fuzzer: only the record's own member
/// was read to its end before the record was written, so the record was rewritten from
/// what the damaged member decoded to (its bytes lost), and the next record written
/// twice, copied and rewritten.
#[test]
fn a_record_running_on_into_a_damaged_member_is_copied_as_it_is() {
    let body: Vec<u8> = noise(600, 0x2545_f491_4f6c_dd1d);
    let html = [&b"<a href=rel1>"[..], &body, b"<a href=late1>"].concat();
    let first = record(1, std::str::from_utf8(&html).unwrap());
    let (head, rest) = first.split_at(200);
    let [own, next] = [gz(head), gz(rest)];
    let after = gz(&relative(2));
    for at in 12..next.len() - 8 {
        let mut inserted = next.clone();
        inserted.insert(at, 0x22);
        let mut deleted = next.clone();
        deleted.remove(at);
        let mut changed = next.clone();
        changed[at] ^= 0x55;
        for (how, damaged) in [
            ("inserted", inserted),
            ("deleted", deleted),
            ("changed", changed),
        ] {
            let file = [&own[..], &damaged, &after].concat();
            let (once, warnings) = rewritten(&file);
            let name = format!("a byte {how} at {at}");
            assert!(contains(&once, &damaged), "{name}: {warnings:?}");
            let text: Vec<u8> = whole_members(&once).concat();
            let rewritten_twos = text
                .windows(b"http://h2/dir/rel2".len())
                .filter(|w| *w == b"http://h2/dir/rel2")
                .count();
            assert_eq!(rewritten_twos, 1, "{name}: {warnings:?}");
            assert!(!contains(&once, &after), "{name}: record 2 copied too");
            // Cut by the damage, not by the end of the file (it said "the file ends").
            assert!(
                !warnings.iter().any(|w| w.contains("the file ends")),
                "{name}: {warnings:?}"
            );
            let (twice, _) = rewritten(&once);
            assert!(twice == once, "{name}: a second rewrite changed it");
        }
    }
}

/// Damaged members that give nothing (their first deflate block is not one), one after
/// another between two records: every byte of them comes out as it was, between the
/// records rewritten. A version of the fix above that paused the stream after each of
/// them (as is right inside a record) lost the bytes of the third: read ahead of the
/// first record's end, and passed on as if whole.
#[test]
fn damaged_members_one_after_another_between_records_are_all_copied() {
    let damaged = |id: u32| {
        let mut member = gz(&relative(id));
        // After the 10-byte header: block type 11, reserved (RFC 1951 §3.2.3), an error.
        member[10..14].copy_from_slice(b"\xff\xff\xff\xff");
        member
    };
    let middle = [damaged(2), damaged(3), damaged(4), damaged(5)].concat();
    let file = [gz(&relative(1)), middle.clone(), gz(&relative(6))].concat();
    let (once, warnings) = rewritten(&file);
    assert!(contains(&once, &middle), "{warnings:?}");
    let text: Vec<u8> = whole_members(&once).concat();
    for id in [1, 6] {
        let link = format!("<a href=http://h{id}/dir/rel{id}>");
        assert!(
            contains(&text, link.as_bytes()),
            "record {id}: {warnings:?}"
        );
    }
    let (twice, _) = rewritten(&once);
    assert!(twice == once, "a second rewrite changed it");
}

/// A gzip WARC of three records, one member each, the magic number of the member at
/// `damaged` (0, 1 or 2) damaged; and the links of the whole file.
fn with_a_damaged_magic_number(damaged: usize) -> (Vec<u8>, Vec<u8>) {
    let members: Vec<Vec<u8>> = (1..=3).map(|id| gz(&relative(id))).collect();
    let whole = members.concat();
    let at: usize = members[..damaged].iter().map(Vec::len).sum();
    let mut file = whole.clone();
    file[at + 1] ^= 0x10;
    (file, whole)
}

/// A record's gzip member whose magic number is damaged is read with it restored (the
/// rest of it decodes, its CRC-32 matched), with a warning; `rewrite` writes what the
/// whole file gives. Before: its record was lost, its bytes copied as damage; the first
/// member's, and the file was read as HTML, with no word at all.
#[test]
fn a_member_whose_magic_number_is_damaged_is_read_with_it_restored() {
    for damaged in [0, 1, 2] {
        let (file, whole) = with_a_damaged_magic_number(damaged);
        let (found, warnings) = links(&file);
        assert_eq!(found, links(&whole).0, "member {damaged}: {warnings:?}");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("a gzip member whose magic number is damaged at byte")
                && warnings[0].contains("read with it restored"),
            "{warnings:?}"
        );
        let (out, _) = rewritten(&file);
        assert_eq!(
            gunzip(&out),
            gunzip(&rewritten(&whole).0),
            "member {damaged}"
        );
    }
    // By the command line, the first member's magic number damaged: the name says WARC.
    let (file, whole) = with_a_damaged_magic_number(0);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawl.warc.gz");
    std::fs::write(&path, &file).unwrap();
    let out = absolve(&["links", path.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0));
    let listed = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(
        listed.lines().count(),
        links(&whole).0.len(),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out)
            .contains("crawl.warc.gz: a gzip member whose magic number is damaged at byte 0")
    );
}

/// A file named `.warc.gz` that is no gzip data at all is read as it is, and said.
/// Before: read as it is with no word (the generic warning was left to the WARC
/// container, which never saw it).
#[test]
fn a_file_named_warc_gz_that_is_not_gzip_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("saved.warc.gz");
    std::fs::write(&path, b"<a href=x>").unwrap();
    let out = absolve(
        &["links", "--url", "http://h/", path.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("saved.warc.gz: its name says gzip, but it is not gzip data"),
        "{}",
        stderr(&out)
    );
}

/// A page its crawler cut short (`WARC-Truncated: length`), its `<style>` ending inside a
/// `url(`: the links of what was kept are listed, the partial URL among them, as a browser
/// replaying the record would load it; a warning names the record and the reason, so that
/// neither the missing links nor the partial one pass unsaid. Before: no word.
#[test]
fn a_record_its_crawler_cut_short_is_named() {
    let cut = warc::http_ok(
        "Content-Type: text/html\r\n",
        b"<a href=kept.html>k</a><style>p { background: url(images/ban",
    );
    let whole = warc::http_ok("Content-Type: text/html\r\n", b"<a href=whole.html>w</a>");
    let fields = |id| {
        [
            ("WARC-Type", "response"),
            ("WARC-Record-ID", id),
            ("WARC-Target-URI", "http://h.example/d/"),
            ("WARC-Truncated", "length"),
            ("Content-Type", "application/http; msgtype=response"),
        ]
    };
    let file = [
        warc::record(&fields("<urn:uuid:cut>"), &cut),
        warc::response("whole", "http://h.example/e/", &whole),
    ]
    .concat();
    for command in ["links", "rewrite"] {
        let out = absolve(&[command], &file);
        assert!(out.status.success(), "{}", stderr(&out));
        let said = stderr(&out);
        assert!(
            said.contains("record 1 <urn:uuid:cut> (at byte 0): WARC-Truncated: length: its crawler kept only the start of the payload"),
            "{command}: {said}"
        );
        assert_eq!(
            said.matches("WARC-Truncated").count(),
            1,
            "{command}: {said}"
        );
    }
    let out = absolve(&["links"], &file);
    let resolved: Vec<_> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["resolved"].clone())
        .collect();
    assert_eq!(
        resolved,
        [
            "http://h.example/d/kept.html",
            "http://h.example/d/images/ban",
            "http://h.example/e/whole.html"
        ]
    );
}
