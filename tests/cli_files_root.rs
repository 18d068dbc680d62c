//! `rewrite -o`, `rewrite -i` and `-r` where only root can set the scene: files owned by
//! another user, trusted attributes, device files, another user's pipe, an unreadable
//! directory, and a run as an unprivileged user. Ignored (and so reported) unless the
//! build runs as root (`is_root`, set by build.rs).

use crate::common::{absolve, arg, stderr};
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::process::Command;

const URL: &str = "http://h/a/";

/// The user and group `nobody:nogroup` of Debian and Ubuntu.
const NOBODY: u32 = 65534;

#[test]
#[cfg_attr(
    not(is_root),
    ignore = "not run as root: this test sets owners, devices or another user's view (run the tests as root)"
)]
fn in_place_keeps_another_users_owner_group_and_mode() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("theirs.html");
    fs::write(&file, "<a href=x>").unwrap();
    std::os::unix::fs::chown(&file, Some(NOBODY), Some(NOBODY)).unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    let out = absolve(&["rewrite", "--url", URL, "-i", arg(&file)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(&file).unwrap(), b"<a href=http://h/a/x>");
    let metadata = fs::metadata(&file).unwrap();
    assert_eq!((metadata.uid(), metadata.gid()), (NOBODY, NOBODY));
    assert_eq!(metadata.mode() & 0o7777, 0o640);
}

#[test]
#[cfg_attr(
    not(is_root),
    ignore = "not run as root: this test sets owners, devices or another user's view (run the tests as root)"
)]
fn in_place_keeps_the_set_group_id_bit_and_trusted_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.html");
    fs::write(&file, "<a href=x>").unwrap();
    std::os::unix::fs::chown(&file, Some(NOBODY), Some(NOBODY)).unwrap();
    // chown(2) and writes clear the set-group-ID bit: it is set again after both.
    fs::set_permissions(&file, fs::Permissions::from_mode(0o2750)).unwrap();
    xattr::set(&file, "trusted.absolve", b"kept").unwrap();
    let out = absolve(&["rewrite", "--url", URL, "-i", arg(&file)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::metadata(&file).unwrap().mode() & 0o7777, 0o2750);
    assert_eq!(
        xattr::get(&file, "trusted.absolve").unwrap().as_deref(),
        Some(&b"kept"[..])
    );
}

#[test]
#[cfg_attr(
    not(is_root),
    ignore = "not run as root: this test sets owners, devices or another user's view (run the tests as root)"
)]
fn a_user_who_cannot_keep_the_owner_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    // A directory and a file that nobody may write, owned by root.
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
    let file = dir.path().join("roots.html");
    fs::write(&file, "<a href=x>").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o666)).unwrap();
    let inode = fs::metadata(&file).unwrap().ino();
    let out = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["rewrite", "--url", URL, "-i", arg(&file)])
        .uid(NOBODY)
        .gid(NOBODY)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out),
        format!(
            "absolve: {}: owned by 0:0, which this user cannot keep on a new file; left \
             unchanged (run as its owner or as root)\n",
            file.display()
        )
    );
    let metadata = fs::metadata(&file).unwrap();
    assert_eq!((metadata.ino(), metadata.uid()), (inode, 0));
    assert_eq!(fs::read(&file).unwrap(), b"<a href=x>");
}

#[test]
#[cfg_attr(
    not(is_root),
    ignore = "not run as root: this test sets owners, devices or another user's view (run the tests as root)"
)]
fn output_to_a_character_device_writes_into_it_and_it_stays_a_device() {
    let dir = tempfile::tempdir().unwrap();
    // A null device of our own (char 1:3), so that a regression cannot replace /dev/null.
    let null = dir.path().join("null");
    let made = Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .status()
        .unwrap();
    assert!(made.success());
    let out = absolve(&["rewrite", "--url", URL, "-o", arg(&null)], b"<a href=x>");
    assert!(out.status.success(), "{}", stderr(&out));
    let metadata = fs::symlink_metadata(&null).unwrap();
    assert!(metadata.file_type().is_char_device());
    assert_eq!(metadata.rdev(), fs::metadata("/dev/null").unwrap().rdev());
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// `-o /dev/stdout` where standard output is a pipe another user made (a container's
/// standard output, `sudo -u` into a pipe): written through standard output, not opened
/// again (opening it was refused: "Permission denied").
#[cfg(unix)]
#[test]
#[cfg_attr(
    not(is_root),
    ignore = "not run as root: this test sets owners, devices or another user's view (run the tests as root)"
)]
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
#[cfg_attr(
    not(is_root),
    ignore = "not run as root: this test sets owners, devices or another user's view (run the tests as root)"
)]
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
