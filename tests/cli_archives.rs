//! What users run on archives and mirrors: compressed mboxes (gzip, bzip2, xz, zstd) give
//! the records and the rewrite of the plain mbox, a truncated one keeps what comes before
//! the damage; pipermail folders and Maildirs under `-r`; a WACZ's WARC members; a wget
//! mirror's query file names (`--layout wget`); an HTTrack page's comment as its base;
//! `--spec whatwg` on `links`.

use crate::common::{absolve, arg, json_lines, stderr};
use absolve::compress::{ALL, Compression, Decoder, Encoder};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;

const MBOX: &str = "fixtures/mime/archive-two-messages.mbox";

/// `data` compressed with `compression`, by the library's encoder.
fn compressed(compression: Compression, data: &[u8]) -> Vec<u8> {
    let mut encoder = Encoder::new(compression, Vec::new()).unwrap();
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

/// `data` decompressed.
fn decompressed(compression: Compression, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut decoder = Decoder::new(compression, data);
    decoder.read_to_end(&mut out).unwrap();
    assert_eq!(decoder.damage(), None);
    out
}

/// Each JSON line of `links` without its `file` key.
fn records(stdout: &[u8]) -> Vec<Value> {
    json_lines(stdout)
        .into_iter()
        .map(|mut line| {
            line.as_object_mut().unwrap().remove("file");
            line
        })
        .collect()
}

/// Each JSON line's `file`.
fn files(stdout: &[u8]) -> Vec<String> {
    json_lines(stdout)
        .iter()
        .map(|line| line["file"].as_str().unwrap().to_owned())
        .collect()
}

/// An mbox of `count` messages, each with its own links, message 1 without a base of
/// its own.
fn many_messages(count: usize) -> Vec<u8> {
    let mut mbox = Vec::new();
    for n in 1..=count {
        write!(
            mbox,
            "From list@example.org Mon Jan  1 00:00:00 2024\nSubject: message {n}\n\
             Content-Type: text/html\n\n<p>Message {n}: <a href=\"m{n}.html\">m</a> \
             <img src=\"../img/{n}.png\"></p>\n\n"
        )
        .unwrap();
    }
    mbox
}

#[test]
fn links_of_a_compressed_mbox_are_the_plain_mbox_s_records() {
    let plain = std::fs::read(MBOX).unwrap();
    let url = ["--url", "http://lists.example.org/archive/"];
    let expected = absolve(&["links", url[0], url[1]], &plain);
    assert!(expected.status.success(), "{}", stderr(&expected));
    let expected = records(&expected.stdout);
    assert_eq!(expected.len(), 2);
    let dir = tempfile::tempdir().unwrap();
    for compression in ALL {
        let path = dir
            .path()
            .join(format!("x.mbox.{}", compression.extension()));
        std::fs::write(&path, compressed(compression, &plain)).unwrap();
        let out = absolve(&["links", url[0], url[1], arg(&path)], b"");
        assert!(out.status.success(), "{compression}: {}", stderr(&out));
        assert_eq!(records(&out.stdout), expected, "{compression}");
        assert!(
            files(&out.stdout).iter().all(|file| file == arg(&path)),
            "{compression}"
        );
        assert!(out.stderr.is_empty(), "{compression}: {}", stderr(&out));
    }
}

#[test]
fn rewrite_of_a_compressed_mbox_decompresses_to_the_plain_rewrite() {
    let plain = std::fs::read(MBOX).unwrap();
    let url = ["--url", "http://lists.example.org/archive/"];
    let expected = absolve(&["rewrite", url[0], url[1]], &plain);
    assert!(expected.status.success(), "{}", stderr(&expected));
    assert_ne!(expected.stdout, plain, "the plain rewrite changes a link");
    let dir = tempfile::tempdir().unwrap();
    for compression in ALL {
        let path = dir
            .path()
            .join(format!("x.mbox.{}", compression.extension()));
        std::fs::write(&path, compressed(compression, &plain)).unwrap();
        // To standard output, then to a file: both in the input's compression.
        let out = absolve(&["rewrite", url[0], url[1], arg(&path)], b"");
        assert!(out.status.success(), "{compression}: {}", stderr(&out));
        assert_eq!(Compression::detect(&out.stdout), Some(compression));
        assert_eq!(
            decompressed(compression, &out.stdout),
            expected.stdout,
            "{compression}"
        );
        let written = dir
            .path()
            .join(format!("out.mbox.{}", compression.extension()));
        let out = absolve(
            &["rewrite", url[0], url[1], "-o", arg(&written), arg(&path)],
            b"",
        );
        assert!(out.status.success(), "{compression}: {}", stderr(&out));
        let bytes = std::fs::read(&written).unwrap();
        assert_eq!(
            decompressed(compression, &bytes),
            expected.stdout,
            "{compression}"
        );
    }
}

#[test]
fn a_truncated_gzip_keeps_the_records_before_the_damage() {
    let plain = many_messages(400);
    let whole = compressed(Compression::Gzip, &plain);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("list.mbox.gz");
    let cut_at = whole.len() / 2;
    std::fs::write(&path, &whole[..cut_at]).unwrap();
    let url = ["--url", "http://lists.example.org/archive/"];

    let all = absolve(&["links", url[0], url[1]], &plain);
    let all = records(&all.stdout);
    assert_eq!(all.len(), 800);
    let out = absolve(&["links", url[0], url[1], arg(&path)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let kept = records(&out.stdout);
    assert!(
        kept.len() > 2 && kept.len() < all.len(),
        "{} of {}",
        kept.len(),
        all.len()
    );
    // What comes before the damage is listed as the whole file lists it (the last
    // message read may be cut short: only the records before it are compared).
    let before = kept.len() - 2;
    assert_eq!(kept[..before], all[..before]);
    let warnings = stderr(&out);
    let warning = warnings
        .lines()
        .find(|line| line.contains("compressed byte"))
        .unwrap_or_else(|| panic!("{warnings}"));
    assert!(warning.contains(arg(&path)), "{warning}");
    assert!(warning.contains("gzip"), "{warning}");

    // rewrite -o writes a file, with the same warning, and says so with status 0.
    let written = dir.path().join("out.mbox.gz");
    let out = absolve(
        &["rewrite", url[0], url[1], "-o", arg(&written), arg(&path)],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("compressed byte"), "{}", stderr(&out));
    let bytes = std::fs::read(&written).unwrap();
    assert_eq!(Compression::detect(&bytes), Some(Compression::Gzip));
    assert!(bytes.len() >= cut_at / 2, "{} bytes", bytes.len());
}

#[test]
fn a_pipermail_folder_s_txt_mboxes_are_processed() {
    let plain = std::fs::read(MBOX).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list");
    std::fs::create_dir(&list).unwrap();
    std::fs::write(list.join("2024-February.txt"), &plain).unwrap();
    std::fs::write(
        list.join("2024-January.txt.gz"),
        compressed(Compression::Gzip, &plain),
    )
    .unwrap();
    // A text file that is no mbox stays out.
    std::fs::write(list.join("notes.txt"), "Hello, <a href=x>.\n").unwrap();
    let url = "http://lists.example.org/pipermail/list/";
    let out = absolve(
        &["links", "-r", "--format", "mbox", "--url", url, arg(&list)],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let mut named = files(&out.stdout);
    named.dedup();
    let february = arg(&list.join("2024-February.txt")).to_owned();
    let january = arg(&list.join("2024-January.txt.gz")).to_owned();
    let mut expected = vec![february.clone(), january.clone()];
    expected.sort();
    assert_eq!(named, expected);
    // Each gives the mbox's records, resolved against its own URL.
    let lines = json_lines(&out.stdout);
    for file in [&february, &january] {
        let of_file: Vec<_> = lines.iter().filter(|l| l["file"] == **file).collect();
        assert_eq!(of_file.len(), 2, "{file}");
        assert_eq!(of_file[0]["resolved"], "http://one.example/a.html");
        assert_eq!(of_file[1]["message"], 2);
        assert_eq!(
            of_file[1]["resolved"],
            "http://lists.example.org/pipermail/list/b.html"
        );
    }
    assert!(
        stderr(&out).contains("2 files processed") && stderr(&out).contains("1 skipped"),
        "{}",
        stderr(&out)
    );
}

/// A message as a mail server delivers it: long trace and signature fields first (more
/// than the 4 KiB a walk looks at to tell a message by its content), then its
/// `Content-Type`, an HTML body with `link`.
fn delivered_message(link: &str) -> String {
    let mut message = String::from("Delivered-To: me@example.com\n");
    for n in 0..60 {
        message += &format!(
            "ARC-Seal: i={n}; a=rsa-sha256; t=1700000000; cv=none; d=example.com; s=arc;\n\
             \tb=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA{n:04}\n"
        );
    }
    message += "From: a@example.com\nContent-Type: text/html\n\n";
    message += &format!("<a href=\"{link}\">x</a>\n");
    message
}

#[test]
fn a_maildir_s_message_files_are_listed_each_with_its_own_file() {
    let dir = tempfile::tempdir().unwrap();
    let maildir = dir.path().join("Mail");
    for sub in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    let cur = maildir.join("cur/1700000000.M1P2.host:2,S");
    let new = maildir.join("new/1700000001.M3P4.host");
    // Being delivered: not a message of the Maildir yet.
    let tmp = maildir.join("tmp/1700000002.M5P6.host");
    std::fs::write(&cur, delivered_message("one.html")).unwrap();
    std::fs::write(&new, delivered_message("two.html")).unwrap();
    std::fs::write(&tmp, delivered_message("three.html")).unwrap();
    let out = absolve(
        &[
            "links",
            "-r",
            "--url",
            "http://mail.example/",
            arg(&maildir),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out.stdout);
    let listed: Vec<_> = lines
        .iter()
        .map(|l| {
            (
                l["file"].as_str().unwrap(),
                l["message"].as_u64(),
                l["original"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            (arg(&cur), Some(1), "one.html"),
            (arg(&new), Some(1), "two.html")
        ]
    );
    assert!(
        stderr(&out).contains("2 files processed") && stderr(&out).contains("1 skipped"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_wacz_lists_each_warc_member_s_records_under_its_own_name() {
    let wacz = "fixtures/wacz/small.wacz";
    let out = absolve(&["links", wacz], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let named = files(&out.stdout);
    let mut expected = Vec::new();
    for member in ["base-element.warc", "chunked-gzip.warc.gz"] {
        let label = format!("{wacz}!/archive/{member}");
        let warc = absolve(&["links", &format!("fixtures/warc/{member}")], b"");
        assert!(warc.status.success(), "{}", stderr(&warc));
        let of_warc = records(&warc.stdout);
        assert!(!of_warc.is_empty(), "{member}");
        let count = of_warc.len();
        expected.extend(of_warc);
        assert_eq!(
            named.iter().filter(|file| **file == label).count(),
            count,
            "{label}"
        );
    }
    assert_eq!(records(&out.stdout), expected);
    assert_eq!(named.len(), expected.len());
}

#[test]
fn rewrite_refuses_a_wacz() {
    let out = absolve(&["rewrite", "fixtures/wacz/small.wacz"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("WACZ"), "{}", stderr(&out));
}

/// `links -r --url https://www.example.com/` over `dir`, with `layout` if given: the
/// resolved URLs.
fn resolved_in_tree(dir: &Path, layout: Option<&str>) -> Vec<String> {
    let mut args = vec!["links", "-r", "--url", "https://www.example.com/"];
    if let Some(layout) = layout {
        args.extend(["--layout", layout]);
    }
    args.push(arg(dir));
    let out = absolve(&args, b"");
    assert!(out.status.success(), "{}", stderr(&out));
    json_lines(&out.stdout)
        .iter()
        .map(|l| l["resolved"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_wget_mirror_s_query_file_names_are_queries_with_layout_wget() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.php?id=3");
    std::fs::write(&page, r#"<!DOCTYPE html><a href="?id=2">previous</a>"#).unwrap();
    assert_eq!(
        resolved_in_tree(dir.path(), Some("wget")),
        ["https://www.example.com/page.php?id=2"]
    );
    // Each name is a path segment otherwise: its `?` percent-encoded.
    assert_eq!(
        resolved_in_tree(dir.path(), None),
        ["https://www.example.com/page.php%3Fid=3?id=2"]
    );
}

#[test]
fn an_httrack_page_s_comment_gives_its_base() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("b.html");
    std::fs::write(
        &page,
        "<!-- Mirrored from www.example.com/a/b.html by HTTrack Website Copier/3.x \
         [XR&CO'2014], Mon, 01 Jan 2024 -->\n<a href=\"c.html\">c</a>",
    )
    .unwrap();
    let out = absolve(&["links", arg(&page)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["base_from"], "httrack");
    assert_eq!(lines[0]["resolved"], "http://www.example.com/a/c.html");
}

/// `links --spec whatwg --url URL` on `page` from standard input.
fn whatwg_links(url: &str, page: &[u8]) -> (Vec<Value>, String) {
    let out = absolve(&["links", "--spec", "whatwg", "--url", url], page);
    assert!(out.status.success(), "{}", stderr(&out));
    (json_lines(&out.stdout), stderr(&out))
}

#[test]
fn links_with_spec_whatwg_resolve_as_browsers_do() {
    // Above the root: the URL Standard drops the `..` (RFC 1808 keeps it).
    let (lines, _) = whatwg_links(
        "http://ipf.example.cn/?p=1",
        br#"<img src="../upload/x.jpg">"#,
    );
    assert_eq!(lines[0]["resolved"], "http://ipf.example.cn/upload/x.jpg");

    // The query is encoded in the document's charset.
    let mut page = b"<meta charset=windows-1251><a href=\"?q=".to_vec();
    let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode("тест");
    page.extend_from_slice(&bytes);
    page.extend_from_slice(b"\">x</a>");
    let (lines, _) = whatwg_links("http://h.example/search", &page);
    assert_eq!(lines[0]["original"], "?q=тест");
    assert_eq!(
        lines[0]["resolved"],
        "http://h.example/search?q=%F2%E5%F1%F2"
    );

    // A reference it rejects stays as written, with a warning naming its offset.
    let (lines, warnings) = whatwg_links("http://h.example/", br#"<p><a href="http://[::1">"#);
    assert_eq!(lines[0]["resolved"], "http://[::1");
    assert_eq!(lines[0]["offset"], 12);
    assert!(
        warnings.contains("\"http://[::1\" at byte 12"),
        "{warnings}"
    );
}

#[test]
fn a_tree_s_xml_files_are_taken_when_they_are_feeds() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy("fixtures/feed/rss20.rss", dir.path().join("feed.xml")).unwrap();
    std::fs::write(
        dir.path().join("sitemap.xml"),
        "<?xml version=\"1.0\"?><urlset/>",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("rss.xml.gz"),
        compressed(
            Compression::Gzip,
            &std::fs::read("fixtures/feed/rss20.rss").unwrap(),
        ),
    )
    .unwrap();
    let out = absolve(&["links", "-r", "--url", "http://h/", arg(dir.path())], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let mut named = files(&out.stdout);
    named.dedup();
    let feed = arg(&dir.path().join("feed.xml")).to_owned();
    let packed = arg(&dir.path().join("rss.xml.gz")).to_owned();
    assert_eq!(named, [feed, packed]);
    assert!(
        stderr(&out)
            .ends_with("2 files processed, 2 changed, 0 unchanged, 1 skipped, 0 warnings\n"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_compressed_stylesheet_named_on_the_command_line_is_read_as_css() {
    // `style.css.gz` is known by its inner name, as under `-r` (it was read as HTML).
    let dir = tempfile::tempdir().unwrap();
    let css = b".a{background:url(img/a.png)}\n@import \"print.css\";\n";
    for compression in ALL {
        let path = dir
            .path()
            .join(format!("style.css.{}", compression.extension()));
        std::fs::write(&path, compressed(compression, css)).unwrap();
        let out = absolve(&["links", "--url", "http://e.com/", arg(&path)], b"");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let resolved: Vec<_> = json_lines(&out.stdout)
            .iter()
            .map(|line| line["resolved"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            resolved,
            ["http://e.com/img/a.png", "http://e.com/print.css"],
            "{compression}"
        );
    }
}
