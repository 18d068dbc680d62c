//! Saved pages and site folders: the retrieval URL a saving tool left,
//! `--keep-local`, standalone stylesheets, and `-r` over whole trees of fixtures.

use crate::common::{absolve, json_lines, stderr};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const SAVED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/saved");

/// Runs `absolve` in `dir`, so that file names in its output are relative to it.
fn absolve_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// A copy of a fixture tree in a temporary directory, for runs that write.
fn copy_of(fixture: &str) -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join(fixture);
    for entry in walkdir::WalkDir::new(Path::new(SAVED).join(fixture)) {
        let entry = entry.unwrap();
        let below = entry
            .path()
            .strip_prefix(Path::new(SAVED).join(fixture))
            .unwrap();
        if entry.file_type().is_dir() {
            fs::create_dir_all(root.join(below)).unwrap();
        } else {
            fs::copy(entry.path(), root.join(below)).unwrap();
        }
    }
    (temp, root)
}

fn records(out: &Output) -> Vec<Value> {
    json_lines(&out.stdout)
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap()
}

/// `links -r` over every saved-page fixture: each record as `file original -> resolved
/// (base_from, kept)`, and the warnings and summary.
#[test]
fn links_over_the_whole_saved_tree() {
    // One thread: the warnings then come in input order too (with -j N only standard
    // output is in input order).
    let out = absolve_in(Path::new(SAVED), &["links", "-r", "-j", "1", "."]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listing: Vec<String> = records(&out)
        .iter()
        .map(|r| {
            format!(
                "{} {} -> {} ({}, kept {})",
                r["file"].as_str().unwrap(),
                r["original"].as_str().unwrap(),
                r["resolved"].as_str().unwrap(),
                r["base_from"].as_str().unwrap(),
                r["kept"]
            )
        })
        .collect();
    insta::assert_snapshot!("links_saved_tree", listing.join("\n"));
    insta::assert_snapshot!("links_saved_tree_stderr", stderr(&out));
}

/// The same with `--keep-local`: the Chrome page's own copies stay local.
#[test]
fn links_over_the_whole_saved_tree_keeping_local_files() {
    let out = absolve_in(Path::new(SAVED), &["links", "-r", "--keep-local", "."]);
    assert!(out.status.success(), "{}", stderr(&out));
    let kept: Vec<String> = records(&out)
        .iter()
        .filter(|r| r["kept"] == "local")
        .map(|r| format!("{} {}", r["file"], r["original"]))
        .collect();
    assert_eq!(
        kept,
        [
            r#""./chrome-complete/page.html" "./page_files/style.css""#,
            r#""./chrome-complete/page.html" "./page_files/app.js""#,
            r#""./chrome-complete/page.html" "./page_files/logo.png""#,
            r#""./chrome-complete/page.html" "./page_files/bg.png""#,
        ]
    );
    assert!(!stderr(&out).contains("--keep-local"), "{}", stderr(&out));
}

#[test]
fn chrome_complete_page_rewritten_in_place_with_keep_local() {
    let (_temp, root) = copy_of("chrome-complete");
    let out = absolve(
        &[
            "rewrite",
            "-r",
            "-i",
            "--keep-local",
            root.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let page = read(&root.join("page.html"));
    assert!(page.contains(r#"href="./page_files/style.css""#), "{page}");
    assert!(page.contains(r#"src="./page_files/logo.png""#), "{page}");
    assert!(
        page.contains(r#"url(&quot;./page_files/bg.png&quot;)"#),
        "{page}"
    );
    assert!(
        page.contains(r#"href="https://example.com/index.html""#),
        "{page}"
    );
    assert!(
        page.contains(r#"href="https://example.com/articles/other.html#top""#),
        "{page}"
    );
    assert!(page.contains(r##"href="#comments""##), "{page}");
    // The stylesheet beside it has no URL of its own: left as it is, with the warning.
    let css = Path::new(SAVED).join("chrome-complete/page_files/style.css");
    assert_eq!(read(&root.join("page_files/style.css")), read(&css));
    let err = stderr(&out);
    assert!(
        err.contains("style.css: no base URL: a file of the saved page ")
            && err.contains("page.html, which has no URL of its own: links left relative"),
        "{err}"
    );
    assert!(
        err.contains("2 files processed, 1 changed, 1 unchanged, 3 skipped, 1 warning"),
        "{err}"
    );
}

#[test]
fn chrome_complete_page_without_keep_local_warns_and_suggests_it() {
    let page = Path::new(SAVED).join("chrome-complete/page.html");
    let out = absolve(&["rewrite", page.to_str().unwrap()], b"");
    assert!(out.status.success());
    let html = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        html.contains(r#"href="https://example.com/articles/page_files/style.css""#),
        "{html}"
    );
    let err = stderr(&out);
    assert!(
        err.contains("page.html: 4 references name files beside it"),
        "{err}"
    );
    assert!(err.contains("saved-from"), "{err}");
    assert!(err.contains("pass --keep-local"), "{err}");
}

#[test]
fn chrome_html_only_page_gets_its_url_from_the_mark_of_the_web() {
    let (_temp, root) = copy_of("chrome-html-only");
    let out = absolve(&["rewrite", "-r", "-i", root.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let page = read(&root.join("post.html"));
    for expected in [
        r#"href="https://example.com/css/site.css""#,
        r#"href="https://example.com/blog/""#,
        r#"href="https://example.com/about.html""#,
        r#"srcset="https://example.com/blog/2024/images/photo-2x.jpg 2x""#,
        "<!-- saved from url=(0039)https://example.com/blog/2024/post.html -->",
    ] {
        assert!(page.contains(expected), "{expected} in {page}");
    }
    let links = absolve(&["links", root.join("post.html").to_str().unwrap()], b"");
    let records = records(&links);
    assert!(records.iter().all(|r| r["base_from"] == "saved-from"));
    assert_eq!(records.len(), 5);
}

#[test]
fn singlefile_page_gets_its_url_from_its_comment() {
    let page = Path::new(SAVED).join("singlefile/guide.html");
    let out = absolve(&["rewrite", page.to_str().unwrap()], b"");
    let html = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        html.contains(r#"href="https://www.example.net/docs/guide/next""#),
        "{html}"
    );
    assert!(
        html.contains(r#"href="https://www.example.net/docs/""#),
        "{html}"
    );
    assert!(html.contains("src=\"data:image/gif;base64,"), "{html}");
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    let links = records(&absolve(&["links", page.to_str().unwrap()], b""));
    assert!(links.iter().all(|r| r["base_from"] == "singlefile"));
    assert!(
        links
            .iter()
            .all(|r| r["base"] == "https://www.example.net/docs/guide/intro?lang=en")
    );
}

#[test]
fn an_explicit_url_wins_over_the_saved_marker() {
    let page = Path::new(SAVED).join("chrome-html-only/post.html");
    let out = absolve(
        &[
            "links",
            "--url",
            "http://mirror.test/p/",
            page.to_str().unwrap(),
        ],
        b"",
    );
    let records = records(&out);
    assert!(records.iter().all(|r| r["base_from"] == "retrieval-url"));
    assert_eq!(records[1]["resolved"], "http://mirror.test/");
}

/// The `user.xdg.origin.url` attribute, set here on a copy (Chromium, Firefox, curl and
/// wget set it on Linux downloads). Ignored where the temporary directory's file system
/// takes no user attributes (build.rs tells).
#[test]
#[cfg_attr(
    not(has_user_xattr),
    ignore = "the temporary directory's file system takes no user.* extended attributes (set TMPDIR to one that does)"
)]
fn a_download_gets_its_url_from_the_origin_xattr() {
    let (_temp, root) = copy_of("xattr");
    let file = root.join("download.html");
    xattr::set(
        &file,
        "user.xdg.origin.url",
        b"https://downloads.example/r/index.html",
    )
    .unwrap();
    let links = absolve(&["links", "-r", root.to_str().unwrap()], b"");
    let records = records(&links);
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| r["base_from"] == "origin-xattr"));
    assert_eq!(
        records[0]["resolved"],
        "https://downloads.example/r/files/report.pdf"
    );
    let out = absolve(&["rewrite", "-r", "-i", root.to_str().unwrap()], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(read(&file).contains(r#"href="https://downloads.example/""#));
}

#[test]
fn no_base_warns_once_per_document_with_relative_links() {
    let page = Path::new(SAVED).join("xattr/download.html");
    let out = absolve(&["rewrite", page.to_str().unwrap()], b"");
    assert!(out.status.success());
    assert_eq!(out.stdout, fs::read(&page).unwrap());
    assert_eq!(
        stderr(&out),
        format!(
            "absolve: warning: {}: no base URL: links left relative (pass --url)\n",
            page.display()
        )
    );
    let absolute_only = absolve(&["rewrite"], b"<a href=http://h/x>");
    assert!(stderr(&absolute_only).is_empty());
    let with_base = absolve(&["rewrite"], b"<base href=http://h/><a href=x>");
    assert!(stderr(&with_base).is_empty());
}

#[test]
fn wget_mirror_with_a_directory_url() {
    let (_temp, root) = copy_of("wget-mirror");
    let site = root.join("example.com");
    let out = absolve(
        &[
            "rewrite",
            "-r",
            "-i",
            "--url",
            "https://example.com",
            site.to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // Extensionless and unknown extensions, sniffed as HTML.
    assert!(read(&site.join("about")).contains(r#"href="https://example.com/index.html""#));
    assert!(
        read(&site.join("page.php?id=3")).contains(r#"href="https://example.com/page.php?id=4""#)
    );
    assert!(read(&site.join("news.aspx")).contains(r#"HREF="https://example.com/news/1.aspx""#));
    // Each segment percent-encoded: `docs/b c.html` is `docs/b%20c.html`.
    assert!(
        read(&site.join("docs/b c.html")).contains(r#"href="https://example.com/docs/c%20d.html""#)
    );
    // A `.css` file is a document of its own URL.
    assert!(read(&site.join("css/site.css")).contains("url('https://example.com/img/logo.png')"));
    assert!(
        read(&site.join("css/site.css")).contains(r#"@import "https://example.com/css/print.css""#)
    );
    // An .html file that starts with "From " is HTML, not an mbox.
    assert!(read(&site.join("editorial.html")).contains(r#"href="https://example.com/news.aspx""#));
    // The RSS feed wget saved without an extension is a document, told by its root
    // element; its one URL is absolute already, so its bytes are the same.
    // Not documents: skipped, byte for byte.
    for other in ["robots.txt", "feed", "img/logo.png"] {
        let original = Path::new(SAVED).join("wget-mirror/example.com").join(other);
        assert_eq!(
            fs::read(site.join(other)).unwrap(),
            fs::read(original).unwrap()
        );
    }
    assert!(
        stderr(&out).ends_with(
            "absolve: 8 files processed, 7 changed, 1 unchanged, 2 skipped, 0 warnings\n"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn wget_mirror_links_with_directory_url_give_each_file_its_url() {
    let site = Path::new(SAVED).join("wget-mirror");
    let out = absolve_in(
        &site,
        &[
            "links",
            "-r",
            "--url",
            "https://example.com/",
            "example.com",
        ],
    );
    let bases: std::collections::BTreeSet<String> = records(&out)
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["file"].as_str().unwrap(),
                r["base"].as_str().unwrap()
            )
        })
        .collect();
    let bases: Vec<&str> = bases.iter().map(String::as_str).collect();
    assert_eq!(
        bases,
        [
            "example.com/about https://example.com/about",
            "example.com/css/site.css https://example.com/css/site.css",
            "example.com/docs/b c.html https://example.com/docs/b%20c.html",
            "example.com/editorial.html https://example.com/editorial.html",
            "example.com/feed https://example.com/feed",
            "example.com/index.html https://example.com/index.html",
            "example.com/news.aspx https://example.com/news.aspx",
            "example.com/page.php?id=3 https://example.com/page.php%3Fid=3",
        ]
    );
}

#[test]
fn rewrite_recursive_to_a_directory_makes_a_complete_copy() {
    let source = Path::new(SAVED).join("wget-mirror");
    let temp = tempfile::tempdir().unwrap();
    let copy = temp.path().join("copy");
    let out = absolve(
        &[
            "rewrite",
            "-r",
            "--url",
            "https://example.com/",
            "-o",
            copy.to_str().unwrap(),
            source.join("example.com").to_str().unwrap(),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(source.join("example.com")).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let below = entry
                .path()
                .strip_prefix(source.join("example.com"))
                .unwrap();
            let copied = fs::read(copy.join(below)).unwrap();
            let same = copied == fs::read(entry.path()).unwrap();
            files.push(format!(
                "{} {}",
                below.display(),
                if same { "same" } else { "rewritten" }
            ));
        }
    }
    assert_eq!(
        files,
        [
            "about rewritten",
            "css/site.css rewritten",
            "docs/b c.html rewritten",
            "editorial.html rewritten",
            "feed same",
            "img/logo.png same",
            "index.html rewritten",
            "news.aspx rewritten",
            "page.php?id=3 rewritten",
            "robots.txt same",
        ]
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode();
        let original = source.join("example.com/about");
        assert_eq!(
            mode(&copy.join("about")),
            mode(&original),
            "the copy keeps the mode"
        );
    }
    assert!(
        stderr(&out)
            .contains("8 files processed, 7 changed, 1 unchanged, 2 skipped (copied unchanged)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn rewrite_recursive_without_in_place_or_output_is_refused() {
    let out = absolve(&["rewrite", "-r", "--url", "http://h/", SAVED], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("-r needs -i"), "{}", stderr(&out));
}

#[test]
fn rewrite_recursive_output_inside_the_tree_is_refused() {
    let (_temp, root) = copy_of("singlefile");
    let inside = root.join("out");
    let out = absolve(
        &[
            "rewrite",
            "-r",
            "-o",
            inside.to_str().unwrap(),
            root.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!inside.exists());
}

#[test]
fn standalone_css_resolves_against_its_own_url() {
    let css = b"@import 'a.css';\nbody{background:url(\"../i/b.png\")} .x{mask:url(#m)}";
    let out = absolve(
        &[
            "rewrite",
            "--format",
            "css",
            "--url",
            "https://h/s/site.css",
        ],
        css,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "@import 'https://h/s/a.css';\nbody{background:url(\"https://h/i/b.png\")} .x{mask:url(#m)}"
    );
    let links = absolve(
        &["links", "--format", "css", "--url", "https://h/s/site.css"],
        css,
    );
    let records = records(&links);
    assert_eq!(records.len(), 3);
    assert_eq!(records[0]["message"], Value::Null);
    assert_eq!(records[0]["part"], Value::Null);
    assert_eq!(records[1]["offset"], 37);
}

#[test]
fn a_css_file_is_a_stylesheet_by_its_name() {
    let temp = tempfile::tempdir().unwrap();
    let file = temp.path().join("site.css");
    fs::write(&file, "a{b:url(x.png)}").unwrap();
    let out = absolve(
        &[
            "rewrite",
            "--url",
            "http://h/c/site.css",
            file.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.stdout, b"a{b:url(http://h/c/x.png)}");
}

/// `--keep-local` on standard input cannot look beside the document: said, not silent.
#[test]
fn keep_local_on_standard_input_warns() {
    let page = fs::read(Path::new(SAVED).join("chrome-complete/page.html")).unwrap();
    let out = absolve(&["rewrite", "--keep-local"], &page);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("-: --keep-local: standard input has no place on disk"),
        "{}",
        stderr(&out)
    );
}

/// A saved XHTML page: Chrome writes its Mark of the Web after the XML declaration and
/// the doctype.
#[test]
fn mark_of_the_web_after_an_xml_declaration() {
    let page = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n<!-- saved from url=(0025)https://example.com/a/b.xhtml -->\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><a href=\"c\">c</a></html>";
    let out = absolve(&["links"], page);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\"resolved\":\"https://example.com/a/c\",\"base\":\"https://example.com/a/b.xhtml\",\"base_from\":\"saved-from\""),
        "{text}"
    );
}
