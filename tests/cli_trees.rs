//! `-r` over directory trees: the summary's counts (a signed message is unchanged, what
//! was skipped and what copied), archives and Outlook files skipped with a warning (PDFs
//! without one), the `-o` target checked before any work, and one file
//! under two names rewritten once, many pages listed without the kernel faulting
//! each page's buffers in afresh, into a pipe widened to 1 MiB, and names that are not
//! UTF-8.

use crate::common::{absolve, arg, gzipped, stderr, tar_file};
use std::fs;
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");

/// The summary's "changed" counts files whose content changed, not links that resolve to
/// something else: a signed part's links are listed but never written.
#[test]
fn summary_counts_a_signed_message_as_unchanged() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("mail");
    fs::create_dir(&dir).unwrap();
    let message = Path::new(FIXTURES).join("mime/signed-message-unchanged.eml");
    fs::copy(&message, dir.join("signed.eml")).unwrap();
    let in_place = absolve(
        &["rewrite", "-r", "-i", "--url", "http://h/", arg(&dir)],
        b"",
    );
    assert!(in_place.status.success(), "{}", stderr(&in_place));
    assert!(
        stderr(&in_place).contains("1 file processed, 0 changed, 1 unchanged"),
        "{}",
        stderr(&in_place)
    );
    assert_eq!(
        fs::read(dir.join("signed.eml")).unwrap(),
        fs::read(&message).unwrap()
    );
    let copy = temp.path().join("copy");
    let copied = absolve(
        &[
            "rewrite",
            "-r",
            "-o",
            arg(&copy),
            "--url",
            "http://h/",
            arg(&dir),
        ],
        b"",
    );
    assert!(copied.status.success(), "{}", stderr(&copied));
    assert!(
        stderr(&copied).contains("1 file processed, 0 changed, 1 unchanged"),
        "{}",
        stderr(&copied)
    );
    assert_eq!(
        fs::read(copy.join("signed.eml")).unwrap(),
        fs::read(&message).unwrap()
    );
}

/// With `-r -o DIR` the summary still says "skipped", and how many of those files were
/// copied: a FIFO is not.
#[cfg(unix)]
#[test]
fn tree_copy_summary_says_skipped_and_what_was_copied() {
    let temp = tempfile::tempdir().unwrap();
    let tree = temp.path().join("tree");
    fs::create_dir(&tree).unwrap();
    fs::write(tree.join("p.html"), "<a href=x>").unwrap();
    fs::write(tree.join("notes.txt"), "text").unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        tree.join("fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let copy = temp.path().join("copy");
    let out = absolve(
        &[
            "rewrite",
            "-r",
            "-o",
            arg(&copy),
            "--url",
            "http://h/",
            arg(&tree),
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "1 file processed, 1 changed, 0 unchanged, 2 skipped (1 copied unchanged), 1 warning"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!copy.join("fifo").exists());
    assert_eq!(fs::read_to_string(copy.join("notes.txt")).unwrap(), "text");
}

/// `-r -o DIR` where DIR is a file, or where its parent is missing: refused before any
/// work, naming `-o` DIR, with no summary and nothing created.
#[test]
fn tree_copy_target_is_checked_before_any_work() {
    let temp = tempfile::tempdir().unwrap();
    let tree = temp.path().join("tree");
    fs::create_dir(&tree).unwrap();
    fs::write(tree.join("p.html"), "<a href=x>").unwrap();
    let file = temp.path().join("file");
    fs::write(&file, "keep").unwrap();
    let onto_file = absolve(
        &[
            "rewrite",
            "-r",
            "-o",
            arg(&file),
            "--url",
            "http://h/",
            arg(&tree),
        ],
        b"",
    );
    assert_eq!(onto_file.status.code(), Some(1));
    let text = stderr(&onto_file);
    assert!(
        text.contains(&format!(
            "-o {}: exists and is not a directory",
            file.display()
        )),
        "{text}"
    );
    assert!(!text.contains("processed"), "no summary: {text}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "keep");

    let deep = temp.path().join("missing/copy");
    let no_parent = absolve(
        &[
            "rewrite",
            "-r",
            "-o",
            arg(&deep),
            "--url",
            "http://h/",
            arg(&tree),
        ],
        b"",
    );
    assert_eq!(no_parent.status.code(), Some(1));
    let text = stderr(&no_parent);
    assert!(text.contains(&format!("-o {}", deep.display())), "{text}");
    assert!(!text.contains("processed"), "no summary: {text}");
    assert!(!temp.path().join("missing").exists());
}

/// Two names of one file under `-r -i` (hard links), or one file named twice: rewritten
/// once. Rewritten twice at the same time, in its own inode, each rewrite read the other's
/// half-written bytes and the file came out garbled.
#[cfg(unix)]
#[test]
fn one_file_under_two_names_is_rewritten_once() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("tree");
    fs::create_dir(&dir).unwrap();
    let page = "<p><a href=x>a</a><img src=y.png>\n".repeat(20_000);
    fs::write(dir.join("a.html"), &page).unwrap();
    fs::hard_link(dir.join("a.html"), dir.join("b.html")).unwrap();
    let source = temp.path().join("source.html");
    fs::write(&source, &page).unwrap();
    let expected = absolve(&["rewrite", "--url", "http://h/", arg(&source)], b"").stdout;
    let out = absolve(
        &["rewrite", "-r", "-i", "--url", "http://h/", arg(&dir)],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("b.html: the same file as"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(dir.join("a.html")).unwrap(), expected);
    let a = dir.join("a.html");
    fs::write(&a, &page).unwrap();
    let twice = absolve(
        &[
            "rewrite",
            "-i",
            "--url",
            "http://h/",
            arg(&a),
            arg(&a),
            arg(&dir.join("b.html")),
        ],
        b"",
    );
    assert!(twice.status.success(), "{}", stderr(&twice));
    assert_eq!(stderr(&twice).matches("the same file as").count(), 2);
    assert_eq!(fs::read(&a).unwrap(), expected);
}

/// Over many pages in a row, each document's buffers (its held bytes, its edits) are
/// reused from the allocator's heap, not mapped afresh and faulted in page by page by the
/// kernel (glibc's thresholds, set in `src/main.rs`): 150 pages of 240 KB, each with a
/// long `<style>` held whole, took 43,057 minor page faults before, 1,092 now. Counted by
/// `wait4`'s resource usage of the one child, so that other tests' children do not count.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
#[allow(clippy::zombie_processes)] // reaped by `wait4`, for its resource usage
fn many_pages_do_not_fault_their_buffers_in_afresh() {
    use std::process::{Command, Stdio};
    let temp = tempfile::tempdir().unwrap();
    let links: String = (0..3000)
        .map(|n| format!("<p><a href=\"d/{n}.html\">link {n}</a></p>\n"))
        .collect();
    // A long `<style>` is held whole until its end tag.
    let rules: String = (0..3000)
        .map(|n| format!(".c{n} {{ background: url(i/{n}.png) }}\n"))
        .collect();
    let page = format!("<!doctype html><title>t</title><style>{rules}</style>{links}");
    assert!(page.len() > 100_000, "{}", page.len());
    for n in 0..150 {
        fs::write(temp.path().join(format!("page{n:03}.html")), &page).unwrap();
    }
    let child = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args([
            "links",
            "-r",
            "-j",
            "1",
            "--url",
            "http://h/",
            arg(temp.path()),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: `rusage` is plain integers (all-zero is a valid value); `wait4` writes the
    // status and the usage of our own child, which nothing else waits for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "status {status}"
    );
    assert!(
        usage.ru_minflt < 5000,
        "{} minor page faults for 150 pages",
        usage.ru_minflt
    );
}

/// `links` widens a pipe on its standard output to 1 MiB (Linux's `F_SETPIPE_SZ`): its
/// JSON lines are several times the bytes read, and through the default 64 KiB pipe every
/// 64 KiB written waited for the reader (BENCHMARKS.md, "WARC links").
#[cfg(target_os = "linux")]
#[test]
fn links_widens_the_pipe_it_writes_to() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let page = Path::new(FIXTURES).join("html");
    let mut child = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["links", "-r", "--url", "http://h/", arg(&page)])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut pipe = child.stdout.take().unwrap();
    let mut lines = Vec::new();
    pipe.read_to_end(&mut lines).unwrap();
    assert!(child.wait().unwrap().success());
    assert!(!lines.is_empty());
    // The read end names the same pipe: its size is what the writer set.
    assert_eq!(rustix::pipe::fcntl_getpipe_size(&pipe).unwrap(), 1 << 20);
}

/// Under `-r`, an Outlook message or data file is skipped with a warning saying how to
/// convert it; a PDF and an Office document that is no `.msg` are skipped as images are,
/// with none (a site's mirror holds many). Before, the `.msg` and `.pst` were skipped with
/// no word: their messages' links were neither listed nor said to be left.
#[test]
fn outlook_files_in_a_tree_are_warned_about_pdfs_are_not() {
    let temp = tempfile::tempdir().unwrap();
    let compound = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\0\0<a href=x>".as_slice();
    let files: [(&str, &[u8]); 5] = [
        ("offer.msg", compound),
        ("report.doc", compound),
        ("outlook.pst", b"!BDN\x8a\x41\0\0<a href=x>"),
        ("paper.pdf", b"%PDF-1.4\n<a href=x>\n"),
        ("page.html", b"<a href=x>"),
    ];
    for (name, bytes) in files {
        fs::write(temp.path().join(name), bytes).unwrap();
    }
    let out = absolve(
        &["links", "-r", "--url", "http://h/", arg(temp.path())],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stderr(&out);
    for name in ["offer.msg", "outlook.pst"] {
        let warning = format!("warning: {}: ", temp.path().join(name).display());
        assert!(text.contains(&warning), "{warning}: {text}");
    }
    assert_eq!(text.matches(": skipped\n").count(), 2, "{text}");
    assert!(
        text.contains("`msgconvert FILE`") && text.contains("`readpst -r FILE`"),
        "{text}"
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 1);
}

/// Under `-r`, tar archives, found by their content whatever
/// their names, are skipped with a warning that names each and says what it is and what
/// to do (status 0: the tree's documents are done): `-i` leaves them, `-o` copies them
/// byte for byte, `links` lists nothing of them.
#[test]
fn tar_files_in_a_tree_are_skipped_with_a_warning() {
    let temp = tempfile::tempdir().unwrap();
    let tree = temp.path().join("crawl");
    fs::create_dir(&tree).unwrap();
    let files = [("e.tar", tar_file()), ("f", tar_file())];
    for (name, bytes) in &files {
        fs::write(tree.join(name), bytes).unwrap();
    }
    fs::write(tree.join("page.html"), "<a href=x>").unwrap();
    let said = |out: &std::process::Output| {
        let text = stderr(out);
        for (name, what) in [("e.tar", "a tar archive"), ("f", "a tar archive")] {
            let path = tree.join(name);
            let warning = format!("warning: {}: {what}", path.display());
            assert!(text.contains(&warning), "{warning}: {text}");
        }
        assert_eq!(text.matches(": skipped\n").count(), 2, "{text}");
    };
    let url = "http://h/";
    let listed = absolve(&["links", "-r", arg(&tree)], b"");
    assert!(listed.status.success(), "{}", stderr(&listed));
    said(&listed);
    let listed = String::from_utf8(listed.stdout).unwrap();
    assert_eq!(listed.lines().count(), 1, "{listed}");
    let copy = temp.path().join("copy");
    let copied = absolve(
        &["rewrite", "-r", "-o", arg(&copy), "--url", url, arg(&tree)],
        b"",
    );
    assert!(copied.status.success(), "{}", stderr(&copied));
    said(&copied);
    assert!(
        stderr(&copied)
            .contains("1 changed, 0 unchanged, 2 skipped (copied unchanged), 2 warnings"),
        "{}",
        stderr(&copied)
    );
    let in_place = absolve(&["rewrite", "-r", "-i", "--url", url, arg(&tree)], b"");
    assert!(in_place.status.success(), "{}", stderr(&in_place));
    said(&in_place);
    for (name, bytes) in &files {
        assert_eq!(&fs::read(copy.join(name)).unwrap(), bytes, "{name}");
        assert_eq!(&fs::read(tree.join(name)).unwrap(), bytes, "{name}");
    }
}

/// About 7 KB of prolog before a feed's root, as some generators write: an XML
/// declaration, a DOCTYPE with an internal subset, comments, processing instructions,
/// blank lines; the first line a comment when `comment_first`.
fn long_prolog(comment_first: bool) -> String {
    let mut prolog = String::new();
    if comment_first {
        prolog.push_str("<!-- generated -->\n");
    } else {
        prolog.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    }
    prolog.push_str("<!DOCTYPE rss [\n  <!ENTITY site \"http://x/\">\n  <!-- a note -->\n]>\n");
    for i in 0..80 {
        prolog.push_str(&format!(
            "<!-- build {i}: lorem ipsum dolor sit amet, consectetur adipiscing -->\n\t\n\
             <?xml-stylesheet type=\"text/xsl\" href=\"s{i}.xsl\"?>\n"
        ));
    }
    assert!(prolog.len() > 7000, "{}", prolog.len());
    prolog
}

/// A feed whose root came after more than the 4 KiB `-r` reads to tell a file was not
/// a feed: `feed.xml` was skipped, `news` (no extension, a comment first) was read as
/// HTML (the `<!--` pattern of MIME Sniffing) and its `<link>` not found, and
/// `atom.xml.gz` skipped. The prolog is read past, up to 64 KiB.
#[test]
fn feeds_after_a_long_prolog_are_taken() {
    let dir = tempfile::tempdir().unwrap();
    let rss = "<rss version=\"2.0\"><channel><link>news/</link></channel></rss>\n";
    let atom = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><link href=\"a/b\"/></feed>\n";
    fs::write(dir.path().join("feed.xml"), long_prolog(false) + rss).unwrap();
    fs::write(dir.path().join("news"), long_prolog(true) + rss).unwrap();
    let packed = gzipped((long_prolog(false) + atom).as_bytes());
    fs::write(dir.path().join("atom.xml.gz"), packed).unwrap();
    let out = absolve(&["links", "-r", "--url", "http://h/", arg(dir.path())], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let links = crate::common::json_lines(&out.stdout);
    // Each prolog's 80 `xml-stylesheet` instructions are links too.
    let stylesheets = links
        .iter()
        .filter(|link| link["element"] == "xml-stylesheet")
        .count();
    assert_eq!(stylesheets, 3 * 80);
    let mut found: Vec<_> = links
        .iter()
        .filter(|link| link["element"] != "xml-stylesheet")
        .map(|link| {
            let file = link["file"].as_str().unwrap().to_owned();
            let name = Path::new(&file)
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            (name, link["element"].clone(), link["resolved"].clone())
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        found,
        [
            ("atom.xml.gz".into(), "link".into(), "http://h/a/b".into()),
            ("feed.xml".into(), "link".into(), "http://h/news/".into()),
            ("news".into(), "link".into(), "http://h/news/".into()),
        ]
    );
    assert!(
        stderr(&out).contains("3 files processed, 3 changed, 0 unchanged, 0 skipped"),
        "{}",
        stderr(&out)
    );
}

/// A file name that is not UTF-8 (Latin-1's `café`, as an old Windows or Samba share
/// wrote it) has its extension all the same: `.css` is taken, `.txt` is not sniffed. Its
/// JSON `file` writes the byte `\xE9` (U+FFFD would make two names one), with a warning.
#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_keep_their_extension_and_their_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let temp = tempfile::tempdir().unwrap();
    let named = |name: &[u8]| temp.path().join(std::ffi::OsStr::from_bytes(name));
    fs::write(named(b"caf\xE9.css"), "a { background: url(i.png) }").unwrap();
    fs::write(named(b"caf\xE8.css"), "a { background: url(j.png) }").unwrap();
    fs::write(named(b"caf\xE9.txt"), "<p><a href=x>a page?</a>").unwrap();
    let out = absolve(
        &["links", "-r", "--url", "http://h/", arg(temp.path())],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = crate::common::json_lines(&out.stdout);
    let files: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| (l["file"].as_str().unwrap(), l["resolved"].as_str().unwrap()))
        .collect();
    let root = arg(temp.path());
    assert_eq!(
        files,
        [
            (&*format!("{root}/caf\\xE8.css"), "http://h/j.png"),
            (&*format!("{root}/caf\\xE9.css"), "http://h/i.png"),
        ]
    );
    let err = stderr(&out);
    assert!(
        err.contains("caf\\xE9.css: the file's name is not UTF-8: \"file\" writes each byte"),
        "{err}"
    );
    assert!(err.contains("2 files processed"), "{err}");
}
