//! `absolve links` and `absolve rewrite` on WARC files: the command-line contract
//! (`--format warc`, `--http-base-headers`, `record`/`target_uri`, `element: "http"`,
//! `base_from`, `rewrite -o` and `-i`, `-r`), over the fixtures in fixtures/warc/.

use crate::common::{absolve, arg, gzipped, json_lines, stderr, tar_file, warc};
use std::io::Read;
use std::path::Path;
use std::process::Command;

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(args)
        .output()
        .expect("absolve runs")
}

#[test]
fn links_of_every_warc_fixture() {
    insta::glob!("../fixtures/warc", "*.warc*", |path| {
        let out = run(&["links", path.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let links = String::from_utf8(out.stdout)
            .unwrap()
            .replace(&path.display().to_string(), &name);
        insta::assert_snapshot!("links", links);
    });
}

/// Content-Base and Content-Location are bases only with --http-base-headers, as §3.2
/// layers: Content-Base first (RFC 2068 §14.11), each resolved against the target URI.
#[test]
fn http_base_headers() {
    let file = "fixtures/warc/http-base-headers.warc";
    let plain = json_lines(&run(&["links", file]).stdout);
    let a = |links: &[serde_json::Value], record: &str| {
        links
            .iter()
            .find(|l| l["element"] == "a" && l["record"].as_str().unwrap().ends_with(record))
            .cloned()
            .unwrap()
    };
    let first = a(&plain, "0001>");
    assert_eq!(first["base_from"], "retrieval-url");
    assert_eq!(first["resolved"], "http://example.com/a/b/page2.html");
    let layered = json_lines(&run(&["links", "--http-base-headers", file]).stdout);
    let first = a(&layered, "0001>");
    assert_eq!(first["base_from"], "content-base");
    assert_eq!(first["resolved"], "http://base.example/cb/page2.html");
    let second = a(&layered, "0002>");
    assert_eq!(second["base_from"], "content-location");
    assert_eq!(second["resolved"], "http://example.com/a/moved/page2.html");
    // The header's own link resolves against the target URI, whatever the flag.
    let header = layered
        .iter()
        .find(|l| l["attribute"] == "content-location")
        .unwrap();
    assert_eq!(header["element"], "http");
    assert_eq!(header["resolved"], "http://example.com/cl/page.html");
    assert_eq!(header["base_from"], "retrieval-url");
}

/// Every line has `record` and `target_uri`; header URLs are `element: "http"` with the
/// lower-case header name; a revisit's headers are listed; nothing comes from the body of
/// a non-HTML record.
#[test]
fn header_links_and_revisits() {
    let links = json_lines(&run(&["links", "fixtures/warc/http-headers.warc"]).stdout);
    let http: Vec<_> = links
        .iter()
        .filter(|l| l["element"] == "http")
        .map(|l| {
            (
                l["attribute"].as_str().unwrap(),
                l["resolved"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        http,
        [
            ("location", "http://example.net/new/path"),
            ("content-location", "http://example.net/old/path.html"),
            ("link", "http://example.net/style.css"),
            ("link", "http://example.net/old/next.html"),
            ("link", "https://cdn.example/font.woff2"),
            ("refresh", "http://example.net/old/refresh.html"),
            ("location", "http://example.net/revisited/"),
            ("link", "http://example.net/old/r.css"),
        ]
    );
    for link in &links {
        assert!(
            link["record"]
                .as_str()
                .unwrap()
                .starts_with("<urn:uuid:33333333")
        );
        assert_eq!(link["target_uri"], "http://example.net/old/path?q=1");
    }
}

/// A body chunked and gzip-encoded, read from standard input with --format warc.
#[test]
fn chunked_gzip_body_from_a_pipe() {
    let input = std::fs::read("fixtures/warc/chunked-gzip.warc.gz").unwrap();
    let out = absolve(&["links", "--format", "warc"], &input);
    assert!(out.status.success(), "{}", stderr(&out));
    let links = json_lines(&out.stdout);
    let resolved: Vec<_> = links
        .iter()
        .map(|l| l["resolved"].as_str().unwrap())
        .collect();
    assert_eq!(
        resolved,
        [
            "http://example.org/dir/s.css",
            "http://example.org/x?a=1&b=2",
            "http://example.org/dir/bg.png"
        ]
    );
    assert_eq!(links[0]["file"], "-");
}

/// `rewrite -o out.warc.gz`: a gzip member per record; unchanged records' members copied
/// byte for byte; the changed record decoded, with its codings renamed.
#[test]
fn rewrite_to_a_gzip_file() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("out.warc.gz");
    let input = "fixtures/warc/chunked-gzip.warc.gz";
    let out = run(&["rewrite", input, "-o", out_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let original = std::fs::read(input).unwrap();
    let rewritten = std::fs::read(&out_path).unwrap();
    let before = gzip_members(&original);
    let after = gzip_members(&rewritten);
    assert_eq!(after.len(), 4, "one member per record");
    assert_eq!(after[0], before[0], "warcinfo copied");
    assert_eq!(after[1], before[1], "request copied");
    assert_eq!(after[3], before[3], "image copied");
    let mut text = String::new();
    flate2::read::GzDecoder::new(after[2])
        .read_to_string(&mut text)
        .unwrap();
    assert!(
        text.contains("X-Original-Transfer-Encoding: chunked\r\n"),
        "{text}"
    );
    assert!(text.contains("X-Original-Content-Encoding: gzip\r\n"));
    assert!(text.contains("<link rel=stylesheet href=\"http://example.org/dir/s.css\">"));
    assert!(text.contains(
        "Absolve-Original-Record-ID: <urn:uuid:22222222-0000-4000-8000-000000000002>\r\n"
    ));
}

/// The gzip members of a file, split by decompressing each in turn.
fn gzip_members(file: &[u8]) -> Vec<&[u8]> {
    let mut members = Vec::new();
    let mut rest = file;
    while !rest.is_empty() {
        let mut decoder = flate2::bufread::GzDecoder::new(rest);
        std::io::copy(&mut decoder, &mut std::io::sink()).unwrap();
        let left = decoder.into_inner().len();
        members.push(&rest[..rest.len() - left]);
        rest = &rest[rest.len() - left..];
    }
    members
}

/// `rewrite -i`, over a directory with `-r`: .warc and .warc.gz files are taken, in place.
#[test]
fn rewrite_in_place_recursively() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["base-element.warc", "http-headers.warc"] {
        std::fs::copy(Path::new("fixtures/warc").join(name), dir.path().join(name)).unwrap();
    }
    std::fs::write(dir.path().join("notes.txt"), "<a href=x>").unwrap();
    let out = run(&["rewrite", "-i", "-r", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.path().join("base-element.warc")).unwrap();
    assert!(text.contains("<a href=\"http://example.com/base/dir/rel.html\">"));
    assert!(text.contains("@import \"http://example.com/site/css/print.css\""));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        "<a href=x>"
    );
    // Nothing in http-headers.warc changes but its <a>: the revisit is copied as it was.
    let headers = std::fs::read_to_string(dir.path().join("http-headers.warc")).unwrap();
    let original = std::fs::read_to_string("fixtures/warc/http-headers.warc").unwrap();
    let revisit = original.find("WARC/1.1\r\nWARC-Type: revisit").unwrap();
    assert!(headers.ends_with(&original[revisit..]));
}

/// What is not a WARC is refused with a message that says what it is; a WARC's damage
/// is a warning, with exit status 0.
#[test]
fn not_a_warc() {
    let out = absolve(
        &["links", "--format", "warc"],
        b"filedesc://x.arc 0.0.0.0 2024 text/plain 10\n",
    );
    // An ARC file is read as one (tests/arc.rs): its version block cut short is a warning.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("-: record 1 (at byte 0): the file ends 10 bytes before"),
        "{}",
        stderr(&out)
    );
    // An LZ4 frame's header alone: decompressed (it was refused), and cut short.
    let out = absolve(
        &["links", "--format", "warc"],
        b"\x04\x22\x4d\x18\x64\x40\xa7",
    );
    assert!(
        stderr(&out).contains("the lz4 stream is truncated"),
        "{}",
        stderr(&out)
    );
    // An HTML page: not a WARC, and the message says what it is and what to do.
    let out = absolve(
        &["links", "--format", "warc"],
        b"<!doctype html>\n<a href=x>\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not a WARC file") && stderr(&out).contains("it is HTML"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("leave --format out"));
    // Gzip data that cannot be decompressed looks like a damaged WARC: a warning.
    let out = absolve(&["links", "--format", "warc"], b"\x1f\x8b\x08\x00garbage");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("damaged gzip data from byte 0"),
        "{}",
        stderr(&out)
    );
}

/// Without `--format`, a tar archive (plain or gzipped), a 7z and a RAR archive, a
/// binary property list that is no Safari web archive (no `WebMainResource` key, no
/// `.webarchive` name: its strings' lengths are written before them), an Outlook message
/// or data file, an Emacs Babyl mailbox and a PDF document are refused as
/// `--format warc` refuses them, saying what they are (status 1), where they were read as
/// HTML: `links` listed "URLs" out of their bytes, `rewrite` broke a tar member's size (its
/// file then cut short on extraction), `-i` in place. (ARC files and LZ4 data are read:
/// tests/arc.rs, tests/compress_lz4.rs.)
#[test]
fn auto_refuses_file_archives() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, what) in [
        ("site.tar", tar_file(), "a tar archive"),
        ("site.tar.gz", gzipped(&tar_file()), "a tar archive"),
        (
            "site.7z",
            b"7z\xBC\xAF\x27\x1C\x00\x04<a href=x>".to_vec(),
            "a 7z archive",
        ),
        (
            "site.rar",
            b"Rar!\x1A\x07\x01\x00<a href=x>".to_vec(),
            "a RAR archive",
        ),
        (
            "settings.plist",
            b"bplist00\xd1\x01\x02TPageO\x10\x0a<a href=x>".to_vec(),
            "a binary property list that is not a Safari web archive",
        ),
        // An Outlook message's HTML body is a stream of its compound file, its size in
        // the file's directory: rewritten as text, Outlook could no longer open it.
        (
            "offer.msg",
            b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\0\0<a href=x>".to_vec(),
            "an OLE2 compound file (an Outlook .msg message",
        ),
        (
            "outlook.pst",
            b"!BDN\x8a\x41\0\0<a href=x>".to_vec(),
            "an Outlook data file (.pst, .ost)",
        ),
        (
            "RMAIL",
            b"BABYL OPTIONS: -*- rmail -*-\nVersion: 5\n\x1f\x0c\n0, unseen,,\n*** EOOH ***\nContent-Type: text/html\n\n<a href=x>\n\x1f".to_vec(),
            "an Emacs Babyl mailbox (RMAIL)",
        ),
        (
            "paper.pdf",
            b"%PDF-1.4\n1 0 obj <</Type /Catalog>> endobj\n<a href=x>\n".to_vec(),
            "a PDF document",
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let listed = absolve(&["links", arg(&path)], b"");
        assert_eq!(listed.status.code(), Some(1), "{name}: {}", stderr(&listed));
        assert!(listed.stdout.is_empty(), "{name}");
        assert!(
            stderr(&listed).contains(&format!("{name}: {what}")),
            "{name}: {}",
            stderr(&listed)
        );
        let piped = absolve(&["links"], &bytes);
        assert!(stderr(&piped).contains(&format!("-: {what}")), "{name}");
        assert_eq!(piped.status.code(), Some(1), "{name}");
        let url = "http://x.example/";
        let in_place = absolve(&["rewrite", "-i", "--url", url, arg(&path)], b"");
        assert_eq!(in_place.status.code(), Some(1), "{name}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name}");
        let rewritten = absolve(&["rewrite", "--url", url, arg(&path)], b"");
        assert_eq!(rewritten.status.code(), Some(1), "{name}");
        assert!(rewritten.stdout.is_empty(), "{name}");
    }
}

/// Without `--format`, an image, an audio or video file, a font or a program (told by
/// its signature, as the MIME Sniffing Standard tells them) is no document: it is passed
/// through as it is, with a warning saying what it is (status 0), where it was read as
/// HTML in silence: `links` listed "URLs" out of its bytes and `rewrite` changed them.
/// `--format html` still reads it as a page.
#[test]
fn auto_passes_images_media_and_fonts_through_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let riff = |form: &[u8]| [b"RIFF\x24\0\0\0", form].concat();
    for (name, head, what) in [
        (
            "logo.png",
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec(),
            "a PNG image",
        ),
        (
            "photo.jpg",
            b"\xFF\xD8\xFF\xE0\0\x10JFIF".to_vec(),
            "a JPEG image",
        ),
        ("anim.gif", b"GIF89a\x01\0\x01\0".to_vec(), "a GIF image"),
        ("photo.webp", riff(b"WEBPVP8 "), "a WebP image"),
        (
            "favicon.ico",
            b"\0\0\x01\0\x01\0".to_vec(),
            "a Windows icon",
        ),
        (
            "clip.mp4",
            b"\0\0\0\x18ftypmp42\0\0\0\0".to_vec(),
            "an ISO media file",
        ),
        (
            "clip.webm",
            b"\x1A\x45\xDF\xA3\x9f".to_vec(),
            "a WebM or Matroska file",
        ),
        (
            "song.mp3",
            b"ID3\x04\0\0\0\0\0\0".to_vec(),
            "an MP3 audio file",
        ),
        ("sound.wav", riff(b"WAVEfmt "), "a WAVE audio file"),
        ("font.woff2", b"wOF2\0\x01\0\0".to_vec(), "a WOFF2 font"),
        ("font.ttf", b"\0\x01\0\0\0\x0f".to_vec(), "a TrueType font"),
        (
            "app.wasm",
            b"\0asm\x01\0\0\0".to_vec(),
            "a WebAssembly module",
        ),
    ] {
        let bytes = [&head[..], b"<a href=x>\n"].concat();
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let listed = absolve(&["links", "--url", "http://h/", arg(&path)], b"");
        assert!(listed.status.success(), "{name}: {}", stderr(&listed));
        assert!(listed.stdout.is_empty(), "{name}");
        let said = format!("{name}: {what}");
        assert!(
            stderr(&listed).contains(&said),
            "{name}: {}",
            stderr(&listed)
        );
        let rewritten = absolve(&["rewrite", "--url", "http://h/", arg(&path)], b"");
        assert!(rewritten.status.success(), "{name}");
        assert_eq!(rewritten.stdout, bytes, "{name}");
        let forced = absolve(
            &[
                "links",
                "--format",
                "html",
                "--url",
                "http://h/",
                arg(&path),
            ],
            b"",
        );
        assert_eq!(json_lines(&forced.stdout).len(), 1, "{name}");
    }
}

/// Without `--format`, JSON (a JSON Feed, an API's answer), whose strings escape HTML's
/// quotes (`<a href=\"x\">`), and a file named as a script, data or text that holds no
/// mbox, message or feed are no documents: passed through as they are, with a warning.
/// Read as HTML, the JSON came out broken (the backslashes taken into the URL) and a
/// script's string rewritten. A pipermail archive named `.txt` is still read as an mbox.
#[test]
fn auto_passes_json_and_scripts_through_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let json = br#"{"version": "https://jsonfeed.org/version/1.1", "items": [{"url": "p/1", "content_html": "<a href=\"p/2\">two</a>"}]}"#;
    let script = b"document.write(\"<a href=\\\"x\\\">\");\n";
    let notes = b"See <a href=\"notes.html\">the notes</a>.\n";
    for (name, bytes, what) in [
        ("feed.json", &json[..], "JSON data"),
        ("feed", &json[..], "JSON data"),
        ("app.js", &script[..], "a .js file (by its name)"),
        ("README.TXT", &notes[..], "a .txt file (by its name)"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let rewritten = absolve(&["rewrite", "--url", "http://h/", arg(&path)], b"");
        assert!(rewritten.status.success(), "{name}");
        assert_eq!(rewritten.stdout, bytes, "{name}");
        let said = format!("{name}: {what}, not a document: passed through unchanged");
        assert!(
            stderr(&rewritten).contains(&said),
            "{name}: {}",
            stderr(&rewritten)
        );
        let listed = absolve(&["links", "--url", "http://h/", arg(&path)], b"");
        assert!(listed.stdout.is_empty(), "{name}");
    }
    let piped = absolve(&["links", "--url", "http://h/"], json);
    assert!(piped.stdout.is_empty());
    assert!(stderr(&piped).contains("-: JSON data, not a document"));
    let pipermail = dir.path().join("2024-January.txt");
    std::fs::write(
        &pipermail,
        "From a at b.example  Mon Jan  1 00:00:00 2024\nFrom: a at b.example\nSubject: x\n\
         Content-Type: text/html\n\n<a href=\"y\">y</a>\n",
    )
    .unwrap();
    let listed = absolve(&["links", "--url", "http://h/", arg(&pipermail)], b"");
    assert_eq!(json_lines(&listed.stdout)[0]["resolved"], "http://h/y");
}

#[test]
fn a_wrong_content_length_is_a_warning() {
    let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>";
    let mut warc = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:short>\r\n\
         WARC-Target-URI: http://h/\r\nContent-Length: {}\r\n\
         Content-Type: application/http\r\n\r\n",
        page.len() - 3
    )
    .into_bytes();
    warc.extend_from_slice(page);
    warc.extend_from_slice(b"\r\n\r\nWARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://h/r\r\nContent-Type: text/html\r\nContent-Length: 10\r\n\r\n<a href=y>\r\n\r\n");
    let out = absolve(&["links"], &warc);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("after record 1 <urn:uuid:short>"),
        "{}",
        stderr(&out)
    );
    let links = json_lines(&out.stdout);
    assert_eq!(links.last().unwrap()["resolved"], "http://h/y");
}

/// The Python binding wraps `Links` in a class that moves between threads.
#[test]
fn links_is_send() {
    fn send<T: Send>(_: &T) {}
    send(&absolve::warc::Links::new(
        std::fs::File::open("Cargo.toml").unwrap(),
        Default::default(),
    ));
}

/// A WARC of `records` HTML responses, record `n` linking to `p{n}`.
fn numbered_warc(records: usize) -> Vec<u8> {
    let mut file = Vec::new();
    for n in 0..records {
        let http = warc::http_ok(
            "Content-Type: text/html\r\n",
            format!("<a href=p{n}>").as_bytes(),
        );
        let fields = [
            ("WARC-Type", "response"),
            ("WARC-Record-ID", &format!("<urn:n:{n}>")),
            ("WARC-Target-URI", "http://h/"),
            ("Content-Type", "application/http"),
        ];
        file.extend_from_slice(&warc::record(&fields, &http));
    }
    file
}

/// `Links` used from inside a rayon pool (a caller's `par_iter`), even a pool of one
/// thread: its batches are processed there, never waited for from the pool's only thread.
#[test]
fn links_inside_a_rayon_pool_of_one_thread() {
    let warc = numbered_warc(600);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let count = pool.install(|| {
        absolve::warc::Links::new(&warc[..], Default::default())
            .map(Result::unwrap)
            .filter(|event| matches!(event, absolve::Event::Link(_)))
            .count()
    });
    assert_eq!(count, 600);
}

/// Files listed at once on a pool's threads (a caller's `par_iter`, as `links -r -j N`
/// does): each gives the links it gives alone, in its own order, whether its batches were
/// parsed where they were read (a file per thread) or split across the pool (the last
/// files, once threads are free).
#[test]
fn files_listed_at_once_on_a_pool_give_what_they_give_alone() {
    use rayon::prelude::*;
    let list = |warc: &Vec<u8>| -> Vec<String> {
        absolve::warc::Links::new(&warc[..], Default::default())
            .map(|event| match event.unwrap() {
                absolve::Event::Link(link) => {
                    format!("{:?} {}", link.location.record, link.resolved)
                }
                absolve::Event::Warning(warning) => warning.to_string(),
            })
            .collect()
    };
    // Several batches each (a batch holds at most 256 records), of other sizes.
    let warcs: Vec<Vec<u8>> = (0..6).map(|n| numbered_warc(300 + 150 * n)).collect();
    let alone: Vec<Vec<String>> = warcs.iter().map(list).collect();
    for threads in [2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let together: Vec<Vec<String>> = pool.install(|| warcs.par_iter().map(list).collect());
        assert_eq!(together, alone, "{threads} threads");
    }
}

/// Payloads are processed in parallel batches: links still come in file order.
#[test]
fn links_come_in_file_order_across_batches() {
    let warc = numbered_warc(600);
    let links: Vec<_> = absolve::warc::Links::new(&warc[..], Default::default())
        .map(Result::unwrap)
        .filter_map(|event| match event {
            absolve::Event::Link(link) => Some(link),
            absolve::Event::Warning(_) => None,
        })
        .collect();
    assert_eq!(links.len(), 600);
    for (n, link) in links.iter().enumerate() {
        assert_eq!(
            link.location.record.as_deref(),
            Some(&*format!("<urn:n:{n}>"))
        );
        assert_eq!(link.resolved, format!("http://h/p{n}"));
    }
}

/// `--url` has no part in a WARC file (each record has its WARC-Target-URI): it is said,
/// and the links are those without it.
#[test]
fn url_is_not_used_for_warc() {
    let file = "fixtures/warc/http-base-headers.warc";
    let plain = run(&["links", file]);
    let with_url = run(&["links", "--url", "http://elsewhere.example/", file]);
    assert!(with_url.status.success(), "{}", stderr(&with_url));
    assert_eq!(with_url.stdout, plain.stdout);
    assert!(
        stderr(&with_url).contains("--url is not used for a WARC file"),
        "{}",
        stderr(&with_url)
    );
    assert!(!stderr(&plain).contains("--url"));
}

/// A WARC record of `warc_type` with no `WARC-Target-URI`, holding `block`.
fn untargeted(warc_type: &str, id: &str, content_type: &str, block: &str) -> Vec<u8> {
    let fields = [
        ("WARC-Type", warc_type),
        ("WARC-Record-ID", &format!("<urn:uuid:{id}>")),
        ("Content-Type", content_type),
    ];
    warc::record(&fields, block.as_bytes())
}

/// A record without `WARC-Target-URI` has no base (RFC 1808 §3.4): its relative links are
/// left as they are with a warning naming the file and the record, as a file without
/// `--url` gets one; a record whose links are absolute, or whose `<base href>` is, gets
/// none.
#[test]
fn a_record_without_target_uri_warns_when_links_stay_relative() {
    let http = "application/http; msgtype=response";
    let warc = [
        untargeted(
            "response",
            "r",
            http,
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=\"a.html\">a</a>",
        ),
        untargeted("resource", "s", "text/html", "<a href=\"b.html\">b</a>"),
        untargeted("resource", "t", "text/html", "<a href=\"http://h/c\">c</a>"),
        untargeted(
            "resource",
            "u",
            "text/html",
            "<base href=\"http://h/\"><a href=\"d.html\">d</a>",
        ),
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("untargeted.warc");
    std::fs::write(&path, &warc).unwrap();
    for command in ["links", "rewrite"] {
        let out = absolve(&[command, arg(&path)], b"");
        assert!(out.status.success(), "{command}: {}", stderr(&out));
        let warnings: Vec<_> = stderr(&out)
            .lines()
            .filter(|l| l.contains("no WARC-Target-URI"))
            .map(str::to_owned)
            .collect();
        let file = path.display();
        assert_eq!(
            warnings,
            [
                format!(
                    "absolve: warning: {file}: record 1 <urn:uuid:r> (at byte 0): no WARC-Target-URI, so no base URL: relative links are left as they are"
                ),
                format!(
                    "absolve: warning: {file}: record 2 <urn:uuid:s> (at byte 203): no WARC-Target-URI, so no base URL: relative links are left as they are"
                ),
            ],
            "{command}: {}",
            stderr(&out)
        );
    }
}

/// `--spec whatwg`: a URL in an HTTP header field that the URL Standard rejects is left as
/// it is with a warning naming the file, the record, the field and the offset, as one in
/// the payload is; with `--http-base-headers`, a `Content-Location` it rejects is passed
/// over as a base with a warning. The RFCs reject nothing: no warning.
#[test]
fn header_urls_the_url_standard_rejects_are_warned_about() {
    let block = "HTTP/1.1 302 Found\r\nContent-Type: text/html\r\nLocation: http://[::1\r\n\
                 Link: <http://a b/>; rel=x\r\nContent-Location: http://[::2\r\n\r\n\
                 <a href=\"p.html\">p</a>";
    let fields = [
        ("WARC-Type", "response"),
        ("WARC-Record-ID", "<urn:uuid:w>"),
        ("WARC-Target-URI", "http://example.com/d/p"),
        ("Content-Type", "application/http; msgtype=response"),
    ];
    let warc = warc::record(&fields, block.as_bytes());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("headers.warc");
    std::fs::write(&path, &warc).unwrap();
    let record = format!("{}: record 1 <urn:uuid:w> (at byte 0): ", path.display());
    let rejected = |url: &str, field: &str, reason: &str| {
        let at = block.find(url).unwrap();
        format!(
            "{record}the URL {url:?} of the HTTP {field} header at byte {at} of its block is not a URL by the URL Standard ({reason}): left as it is"
        )
    };
    let expected = [
        rejected("http://[::1", "location", "invalid IPv6 address"),
        rejected("http://a b/", "link", "invalid international domain name"),
        rejected("http://[::2", "content-location", "invalid IPv6 address"),
        format!(
            "{record}HTTP Content-Location at byte {} of its block: \"http://[::2\" cannot be a base URL: the URL Standard does not parse it (invalid IPv6 address): passed over as a base",
            block.find("http://[::2").unwrap()
        ),
    ];
    for command in ["links", "rewrite"] {
        let args = [
            command,
            "--spec",
            "whatwg",
            "--http-base-headers",
            arg(&path),
        ];
        let out = absolve(&args, b"");
        assert!(out.status.success(), "{command}: {}", stderr(&out));
        let warnings: Vec<_> = stderr(&out)
            .lines()
            .map(|l| l.strip_prefix("absolve: warning: ").unwrap_or(l).to_owned())
            .collect();
        assert_eq!(warnings, expected, "{command}");
        let rfc = absolve(&[command, "--http-base-headers", arg(&path)], b"");
        assert_eq!(stderr(&rfc), "", "{command}");
    }
    let args = [
        "links",
        "--spec",
        "whatwg",
        "--http-base-headers",
        arg(&path),
    ];
    let links = json_lines(&absolve(&args, b"").stdout);
    let location = links.iter().find(|l| l["attribute"] == "location").unwrap();
    assert_eq!(location["resolved"], "http://[::1");
    // The payload's base is the target URI: the Content-Location was passed over.
    let a = links.iter().find(|l| l["element"] == "a").unwrap();
    assert_eq!(a["resolved"], "http://example.com/d/p.html");
}

/// ISO 28500 §4 writes header fields in UTF-8. A `WARC-Target-URI` holding another byte
/// (`caf\xE9`, Latin-1) names the URL of that byte, `caf%E9`, not of U+FFFD; `rewrite`
/// writes the header back with its bytes as they were (it rebuilt it from lossy text:
/// `caf\xEF\xBF\xBD`); a warning names the record and the fields.
#[test]
fn header_bytes_that_are_not_utf8_are_kept() {
    let body = b"<a href=\"x.html\">x</a>";
    let mut http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    http.extend_from_slice(body);
    let mut warc = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n".to_vec();
    warc.extend_from_slice(b"WARC-Target-URI: http://example.com/caf\xE9/page\r\n");
    warc.extend_from_slice(b"X-Note: \xFF raw\n");
    warc.extend_from_slice(
        format!(
            "Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            http.len()
        )
        .as_bytes(),
    );
    warc.extend_from_slice(&http);
    warc.extend_from_slice(b"\r\n\r\n");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("latin1.warc");
    std::fs::write(&input, &warc).unwrap();

    let out = run(&["links", arg(&input)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let links = json_lines(&out.stdout);
    assert_eq!(links.len(), 1);
    assert_eq!(links[0]["target_uri"], "http://example.com/caf%E9/page");
    assert_eq!(links[0]["resolved"], "http://example.com/caf%E9/x.html");
    assert!(
        stderr(&out).contains(
            "record 1 <urn:uuid:1> (at byte 0): header fields WARC-Target-URI, X-Note hold bytes that are not UTF-8"
        ),
        "{}",
        stderr(&out)
    );

    let output = dir.path().join("out.warc");
    let out = run(&["rewrite", arg(&input), "-o", arg(&output)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let written = std::fs::read(&output).unwrap();
    let kept = |line: &[u8]| written.windows(line.len()).any(|w| w == line);
    assert!(kept(
        b"\r\nWARC-Target-URI: http://example.com/caf\xE9/page\r\n"
    ));
    assert!(
        kept(b"\r\nX-Note: \xFF raw\n"),
        "the line and its LF ending kept"
    );
    assert!(kept(b"href=\"http://example.com/caf%E9/x.html\""));
    assert!(kept(b"\r\nAbsolve-Original-Record-ID: <urn:uuid:1>\r\n"));
    assert!(!kept("\u{FFFD}".as_bytes()));
}

/// A `text/xml` response that is an RSS feed after an 8 KB prolog (a DOCTYPE with an
/// internal subset, comments) is read as a feed: only its first 5,780 bytes were sniffed
/// (0 links).
#[test]
fn a_text_xml_feed_after_a_long_prolog_is_read() {
    let body = format!(
        "<?xml version=\"1.0\"?>\r\n<!DOCTYPE rss [<!ENTITY site \"x\">]>\r\n{}<rss version=\"2.0\"><channel><link>a/</link><item><link>b.html</link></item></channel></rss>\r\n",
        "<!-- a comment that goes on and on -->\r\n".repeat(200)
    );
    let http = warc::http_ok("Content-Type: text/xml\r\n", body.as_bytes());
    let fields = [
        ("WARC-Type", "response"),
        ("WARC-Record-ID", "<urn:uuid:1>"),
        ("WARC-Target-URI", "http://h/d/feed.xml"),
        ("Content-Type", "application/http; msgtype=response"),
    ];
    let warc = warc::record(&fields, &http);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("feed.warc");
    std::fs::write(&input, warc).unwrap();
    let out = run(&["links", arg(&input)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let resolved: Vec<String> = json_lines(&out.stdout)
        .iter()
        .map(|l| l["resolved"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(resolved, ["http://h/d/a/", "http://h/d/b.html"]);
}
