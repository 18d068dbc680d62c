//! Acceptance review of issues 10 and 8 (files): what a user meets around `-r`, `-o` and
//! `--keep-local` that the first round of tests did not pin down.

mod common;

use common::{absolve, stderr};
use std::fs;
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

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

/// With `-r -o DIR` the summary still says "skipped" (issue 10's wording), and how many of
/// those files were copied: a FIFO is not.
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

/// `-o -` is standard output, as FILE `-` is standard input; `-r -o -` is refused.
#[test]
fn output_dash_is_standard_output() {
    let temp = tempfile::tempdir().unwrap();
    let out = absolve(&["rewrite", "--url", "http://h/", "-o", "-"], b"<a href=x>");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, b"<a href=http://h/x>");
    let recursive = absolve(
        &[
            "rewrite",
            "-r",
            "-o",
            "-",
            "--url",
            "http://h/",
            arg(temp.path()),
        ],
        b"",
    );
    assert_eq!(recursive.status.code(), Some(2));
    assert!(recursive.stdout.is_empty());
    assert!(!Path::new("-").exists());
}

/// `--keep-local` on standard input cannot look beside the document: said, not silent.
#[test]
fn keep_local_on_standard_input_warns() {
    let page = fs::read(Path::new(FIXTURES).join("saved/chrome-complete/page.html")).unwrap();
    let out = absolve(&["rewrite", "--keep-local"], &page);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("-: --keep-local: standard input has no place on disk"),
        "{}",
        stderr(&out)
    );
}

/// The --url help says what happens without a base: an absolute `<base href>` still
/// applies, and is applied.
#[test]
fn without_url_an_absolute_base_element_still_applies_as_the_help_says() {
    let help = String::from_utf8(absolve(&["rewrite", "--help"], b"").stdout).unwrap();
    assert!(
        help.contains("unless the document has an absolute <base href>"),
        "{help}"
    );
    assert!(!help.contains("without any, nothing changes"), "{help}");
    let out = absolve(&["rewrite"], b"<base href=http://b/d/><a href=x>");
    assert_eq!(out.stdout, b"<base href=http://b/d/><a href=http://b/d/x>");
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

/// `-o /dev/stdout` where standard output is a pipe another user made (a container's
/// standard output, `sudo -u` into a pipe): written through standard output, not opened
/// again (opening it was refused: "Permission denied").
#[cfg(unix)]
#[test]
#[cfg_attr(not(is_root), ignore = "needs root: run the tests as root")]
fn output_to_dev_stdout_on_another_users_pipe() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let page = dir.path().join("page.html");
    fs::write(&page, "<a href=x>").unwrap();
    fs::set_permissions(&page, fs::Permissions::from_mode(0o644)).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args([
            "rewrite",
            "--url",
            "http://h/",
            "-o",
            "/dev/stdout",
            arg(&page),
        ])
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, b"<a href=http://h/x>");
}

/// `-r` over a tree with a directory this user cannot read: stopped before any work, the
/// message naming that directory once.
#[cfg(unix)]
#[test]
#[cfg_attr(not(is_root), ignore = "needs root: run the tests as root")]
fn an_unreadable_directory_is_named() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    let locked = tree.join("locked");
    fs::create_dir_all(&locked).unwrap();
    fs::write(tree.join("a.html"), "<a href=x>").unwrap();
    for (path, mode) in [(dir.path(), 0o755), (&tree, 0o755), (&locked, 0o000)] {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["links", "-r", "--url", "http://h/", arg(&tree)])
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "absolve: {}: Permission denied (os error 13)\n",
            locked.display()
        )
    );
    assert!(out.stdout.is_empty());
}
