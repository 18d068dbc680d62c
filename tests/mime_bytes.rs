//! Byte-level properties of the MIME rewrite: what must change, and what must not.

use absolve::base::Base;
use absolve::mime::{self, Warning};
use absolve::{Problem, Sink};
use std::process::Command;

/// Keeps the MIME warnings (every warning about a message is one); drops the rest.
#[derive(Default)]
struct Warnings(Vec<Warning>);

impl Sink for Warnings {
    fn output(&mut self, _: &[u8]) -> std::io::Result<()> {
        Ok(())
    }
    fn warning(&mut self, warning: absolve::Warning) {
        match warning.problem {
            Problem::Mime(warning) => self.0.push(warning),
            problem => panic!("not a MIME warning: {problem:?}"),
        }
    }
}

fn rewrite(message: &[u8]) -> (Vec<u8>, Vec<Warning>) {
    let mut warnings = Warnings::default();
    let out = mime::rewrite_message(
        message,
        1,
        &Base::none(),
        &Default::default(),
        &mut warnings,
    );
    (out, warnings.0)
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("fixtures/mime/{name}")).unwrap()
}

/// The bytes of `new` with the lines that differ from `old` removed, for checking that
/// only the expected lines changed.
fn changed_lines(old: &[u8], new: &[u8]) -> Vec<String> {
    let old: Vec<_> = old.split(|&b| b == b'\n').collect();
    new.split(|&b| b == b'\n')
        .filter(|line| !old.contains(line))
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect()
}

#[test]
fn nested_bases_and_encodings_change_only_the_link_lines() {
    let input = fixture("base-headers-nested-multiparts-crlf.eml");
    let (out, warnings) = rewrite(&input);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        changed_lines(&input, &out),
        [
            "<a href=\"http://base.example/docs/inherits.html\">encapsulating</a>\r",
            "<img src=3D\"http://mhtml.example/site/page/pic.png\"><a href=3D\"http://mhtml=\r",
            ".example/site/page/very/long/path/that/is/split/by/a/soft/line/break.html\">=\r",
            "qp</a>\r",
            "PGEgaHJlZj0iaHR0cDovL2NvbnRlbnQtYmFzZS5leGFtcGxlL2NiL3JlbC5odG1sIj5iNjQ8L2E+\r",
            "Cg==\r",
            "body { background: url(http://mhtml.example/site/bg.png) }\r",
            "<a href=\"http://forwarded.example/f/fwd.html\">forwarded</a>\r",
        ]
    );
    // CRLF everywhere, as in the input.
    assert!(
        !String::from_utf8(out.clone())
            .unwrap()
            .replace("\r\n", "")
            .contains('\n')
    );
    assert!(out.ends_with(b"--outer--\r\nepilogue stays\r\n"));
}

#[test]
fn a_non_utf8_charset_is_kept_in_quoted_printable() {
    let (out, _) = rewrite(&fixture("latin1-quoted-printable-lf.eml"));
    assert_eq!(
        changed_lines(&fixture("latin1-quoted-printable-lf.eml"), &out),
        ["<a href=3D\"http://latin.example/dir/caf=E9.html\">caf=E9</a>"]
    );
}

#[test]
fn a_message_already_absolute_is_byte_identical() {
    let (once, _) = rewrite(&fixture("base-headers-nested-multiparts-crlf.eml"));
    let (twice, _) = rewrite(&once);
    assert_eq!(twice, once);
}

#[test]
fn signed_and_truncated_parts_pass_through_with_a_warning_naming_the_part() {
    let input = fixture("signed-message-unchanged.eml");
    let (out, warnings) = rewrite(&input);
    assert_eq!(out, input);
    assert!(
        matches!(&warnings[..], [Warning::PartUnchanged(part, _)] if part == "1"),
        "{warnings:?}"
    );
    let input = fixture("truncated-multipart.eml");
    let (out, warnings) = rewrite(&input);
    assert!(
        matches!(&warnings[..], [Warning::PartUnchanged(part, _)] if part == "2"),
        "{warnings:?}"
    );
    assert!(out.ends_with(b"PGEgaHJlZj0idHJ1bmNhdGVk"));
}

#[test]
fn mbox_keeps_separators_and_quoting_and_rewrites_each_message() {
    let input = fixture("archive-two-messages.mbox");
    let out = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["rewrite", "fixtures/mime/archive-two-messages.mbox"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let expected = String::from_utf8(input)
        .unwrap()
        .replace("href=\"a.html\"", "href=\"http://one.example/a.html\"");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/mime not found (the shared corpora are optional)"
)]
fn corpus_samples_rewrite_without_error_and_keep_their_part_structure() {
    let dir = std::path::Path::new("../shared/corpus/mime");
    if !dir.exists() {
        panic!("../shared is present but this input of it is missing");
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        for command in ["rewrite", "links"] {
            let out = Command::new(env!("CARGO_BIN_EXE_absolve"))
                .arg(command)
                .arg(&path)
                .output()
                .unwrap();
            assert!(out.status.success(), "{command} {}", path.display());
            if command == "rewrite" && !path.to_string_lossy().ends_with(".mbox") {
                let input = std::fs::read(&path).unwrap();
                let (before, _) = mime::parts(&input, &Base::none());
                let (after, _) = mime::parts(&out.stdout, &Base::none());
                let shape = |parts: &[mime::Part]| {
                    parts
                        .iter()
                        .map(|p| (p.path.clone(), p.mime_type.clone()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(shape(&before), shape(&after), "{}", path.display());
            }
        }
    }
}

/// MimeKit's test archives: `simple.mbox` puts each From_ line right after the last line
/// of the message before, with no blank line; it was read as 1 message (Python's mailbox
/// reads 3, as MimeKit does). `unmunged.mbox` has unquoted `From Russia with love` body
/// lines, one followed by `Year: 1963`: still the 2 messages its writer meant (no From_
/// line, no heading; Python reads 3 and MimeKit 4).
#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/mime not found (the shared corpora are optional)"
)]
fn mimekit_archives_are_split_where_their_messages_start() {
    for (name, messages) in [("mimekit__simple.mbox", 3), ("mimekit__unmunged.mbox", 2)] {
        let path = std::path::Path::new("../shared/corpus/mime").join(name);
        let Ok(archive) = std::fs::read(&path) else {
            panic!("../shared is present but {} is missing", path.display());
        };
        let entries: Vec<_> = mime::mbox::Messages::new(&archive[..])
            .collect::<Result<_, _>>()
            .unwrap();
        let numbers: Vec<_> = entries.iter().filter_map(|e| e.number).collect();
        assert_eq!(numbers, (1..=messages).collect::<Vec<_>>(), "{name}");
        let joined: Vec<u8> = entries
            .iter()
            .flat_map(|e| [&e.separator[..], &e.message[..]].concat())
            .collect();
        assert_eq!(joined, archive, "{name}: every byte kept, once");
    }
}

#[test]
fn a_part_without_charset_uses_the_callers_and_one_with_an_unknown_charset_is_kept() {
    let message = b"Content-Type: text/html\nContent-Location: http://h/\n\n<a href=\"caf\xe9\">\n";
    let options = absolve::html::Options {
        charset: Some(encoding_rs::WINDOWS_1252),
        ..Default::default()
    };
    let out = mime::rewrite_message(
        message,
        1,
        &Base::none(),
        &options,
        &mut Warnings::default(),
    );
    assert!(out.ends_with(b"<a href=\"http://h/caf\xe9\">\n"));
    let unknown =
        b"Content-Type: text/html; charset=x-klingon\nContent-Location: http://h/\n\n<a href=x>\n";
    let (out, warnings) = rewrite(unknown);
    assert_eq!(out, unknown);
    assert!(
        matches!(&warnings[..], [Warning::PartUnchanged(part, why)] if part == "1" && why.contains("x-klingon"))
    );
}

#[test]
fn every_corpus_sample_and_fixture_is_detected_by_content() {
    use absolve::format::{Format, detect};
    let dirs = ["../shared/corpus/mime", "fixtures/mime"];
    let mut seen = 0;
    for dir in dirs.iter().filter(|d| std::path::Path::new(d).exists()) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let expected = match path.extension().and_then(|e| e.to_str()) {
                Some("mbox") => Format::Mbox,
                Some("eml" | "mht" | "mhtml") => Format::Mime,
                _ => continue,
            };
            let head: Vec<u8> = std::fs::read(&path)
                .unwrap()
                .into_iter()
                .take(64 * 1024)
                .collect();
            assert_eq!(detect(&head), expected, "{}", path.display());
            seen += 1;
        }
    }
    assert!(seen >= 6);
    for dir in ["fixtures/html", "../shared/corpus/html"] {
        for entry in std::fs::read_dir(dir).into_iter().flatten() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "html") {
                assert_eq!(
                    detect(&std::fs::read(&path).unwrap()),
                    Format::Html,
                    "{}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn an_encapsulated_message_that_does_not_parse_gets_its_base_once() {
    let message = b"Content-Type: multipart/mixed; boundary=b\nContent-Base: http://h/\n\n--b\nContent-Type: message/rfc822\nContent-Location: a/b.html\n\n bad first line\n--b--\n";
    let (parts, _) = mime::parts(message, &Base::none());
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].base.url(), Some("http://h/a/b.html"));
}

/// `(message, resolved)` of each link `absolve links` lists in `mbox` (base
/// `http://e.com/`), and its warnings.
fn mbox_links(mbox: &[u8]) -> (Vec<(u64, String)>, String) {
    let out = crate::common::absolve(
        &["links", "--format", "mbox", "--url", "http://e.com/"],
        mbox,
    );
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    let links = crate::common::json_lines(&out.stdout)
        .iter()
        .map(|l| (l["message"].as_u64().unwrap(), l["resolved"].to_string()))
        .collect();
    (links, crate::common::stderr(&out))
}

/// RFC 4155: the blank line after a base64 body is what makes the next `From ` line a
/// separator; re-encoding the body keeps it (and every other line ending around it).
#[test]
fn a_rewritten_base64_part_keeps_the_blank_line_before_the_next_message() {
    for eol in ["\n", "\r\n"] {
        let b64 = "PGEgaHJlZj0iYjY0Lmh0bWwiPmI8L2E+";
        let mbox = [
            "From e@b Mon Jan  1 00:00:00 2024",
            "Subject: b64",
            "Content-Type: text/html",
            "Content-Transfer-Encoding: base64",
            "",
            b64,
            "",
            "From f@b Mon Jan  1 00:00:00 2024",
            "Content-Type: text/html",
            "",
            "<a href=\"next.html\">n</a>",
            "",
        ]
        .join(eol);
        let out = crate::common::absolve(&["rewrite", "--url", "http://e.com/"], mbox.as_bytes());
        assert!(out.status.success());
        let (before, _) = mbox_links(mbox.as_bytes());
        let (after, warnings) = mbox_links(&out.stdout);
        assert_eq!(
            before,
            [
                (1, "\"http://e.com/b64.html\"".into()),
                (2, "\"http://e.com/next.html\"".into())
            ]
        );
        assert_eq!(after, before, "{warnings}");
        assert!(warnings.is_empty(), "{warnings}");
        let rewritten = String::from_utf8(out.stdout).unwrap();
        let expected = mbox
            .replace(b64, "PGEgaHJlZj0iaHR0cDovL2UuY29tL2I2NC5odG1sIj5iPC9hPg==")
            .replace("\"next.html\"", "\"http://e.com/next.html\"");
        assert_eq!(rewritten, expected);
    }
}

/// RFC 2045 §6.7 allows no 8-bit octet, NUL or control character in a quoted-printable
/// body, but sloppy mailers write raw UTF-8 there. The decoder absolve uses drops such
/// octets ("a robust implementation might exclude them"): `café.html` became `caf.html`,
/// and a NUL on a rewritten line was lost. They are kept, as Python's email keeps them;
/// the rewritten line carries them `=XX`-encoded, the other lines are copied as they were.
#[test]
fn octets_quoted_printable_does_not_allow_are_kept() {
    let message = b"Content-Type: text/html; charset=utf-8\nContent-Base: http://h/\n\
Content-Transfer-Encoding: quoted-printable\n\n\
<a href=3D\"caf\xc3\xa9.html\">caf\xc3\xa9</a>\x00=\xff\n<p>raw \xc3\xa9 =3D kept</p>\n";
    let (out, warnings) = rewrite(message);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        changed_lines(message, &out),
        ["<a href=3D\"http://h/caf=C3=A9.html\">caf=C3=A9</a>=00=3D=FF"]
    );
    assert!(out.ends_with(b"\n<p>raw \xc3\xa9 =3D kept</p>\n"));
}

/// RFC 2045 §6.4: an entity with an unrecognized Content-Transfer-Encoding is treated as
/// `application/octet-stream`. One was read as if it had none: a damaged
/// `quoted-printabl` part had its `href=3D"x.html"` rewritten into
/// `"http://h/3D&quot;x.html&quot;"`, silently. It passes through, with a warning.
#[test]
fn a_part_in_an_unknown_transfer_encoding_passes_through_with_a_warning() {
    let message = b"Content-Type: text/html\r\nContent-Base: http://h/\r\n\
Content-Transfer-Encoding: quoted-printabl\r\n\r\n<a href=3D\"x.html\">x</a>\r\n";
    let (out, warnings) = rewrite(message);
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(message)
    );
    assert!(
        matches!(&warnings[..], [Warning::PartUnchanged(part, why)]
            if part == "1" && why.contains("unknown Content-Transfer-Encoding")),
        "{warnings:?}"
    );
    for known in ["7bit", "8BIT", "binary", " Binary "] {
        let message = format!(
            "Content-Type: text/html\nContent-Base: http://h/\nContent-Transfer-Encoding: {known}\n\n<a href=x>\n"
        );
        let (out, warnings) = rewrite(message.as_bytes());
        assert!(warnings.is_empty(), "{known}: {warnings:?}");
        assert!(out.ends_with(b"<a href=http://h/x>\n"), "{known}");
    }
}

#[test]
fn a_base64_part_with_characters_outside_its_alphabet_is_read_as_decoders_read_it() {
    // RFC 2045 §6.8: characters outside the base64 alphabet "must be ignored by decoding
    // software", and an `=` is the end of the data. A mailing list's footer written
    // after a base64 body, or a stray line in it: Python's email reads the page (with a
    // defect), and so does absolve, its links listed, the part left as it is by
    // `rewrite` (a body encoded again would lose those characters), with a warning
    // naming the first of them. Before: "bad transfer encoding (Base64 decode error:
    // invalid symbol ...)", no link listed.
    use base64::Engine;
    let html = b"<p><a href=\"x.html\">x</a> <a href=\"y.html\">y</a></p>\n";
    let encoded = base64::engine::general_purpose::STANDARD.encode(html);
    assert!(
        encoded.ends_with('='),
        "data padded: the footer's letters are after its end"
    );
    let lines: Vec<&str> = encoded
        .as_bytes()
        .chunks(20)
        .map(|line| std::str::from_utf8(line).unwrap())
        .collect();
    let head = "Content-Type: text/html\r\nContent-Base: http://h/d/\r\n\
                Content-Transfer-Encoding: base64\r\n\r\n";
    let footer = "_______________________________________________\r\n\
                  List mailing list -- list@lists.example.org\r\n";
    let stray_line = format!(
        "{}\r\n-- \r\n{}\r\n",
        lines[..2].join("\r\n"),
        lines[2..].join("\r\n")
    );
    let cases = [
        (
            format!("{head}{}\r\n{footer}", lines.join("\r\n")),
            head.len() + encoded.len() + 2 * lines.len(),
        ),
        (format!("{head}{stray_line}"), head.len() + 44),
    ];
    for (message, at) in cases {
        let found = absolve::document::links(message.as_bytes(), &absolve::Options::new()).unwrap();
        let resolved: Vec<&str> = found.links.iter().map(|l| l.resolved.as_str()).collect();
        assert_eq!(
            resolved,
            ["http://h/d/x.html", "http://h/d/y.html"],
            "{message}"
        );
        let (out, warnings) = rewrite(message.as_bytes());
        assert_eq!(String::from_utf8_lossy(&out), message);
        let offset = at - head.len();
        assert!(
            matches!(&warnings[..], [Warning::PartUnchanged(part, why)]
                if part == "1" && why.contains("outside the base64 alphabet")
                    && why.contains(&format!("byte {offset} of its body"))),
            "{offset}: {warnings:?}"
        );
    }
}
