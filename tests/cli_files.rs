//! `rewrite -o` and `rewrite -i` on the file system, as a mature Unix tool behaves:
//! FIFOs, `/dev/fd`, signals, fsync, modes, ACLs, links, `-o -`. The tests that need root are in `cli_files_root.rs`.

use crate::common::{absolve, arg, stderr};
use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

const URL: &str = "http://h/a/";

/// The `.absolve-*` temporary files left in `dir`.
fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".absolve-"))
        .collect()
}

fn mkfifo(at: &Path) {
    let made = Command::new("mkfifo").arg(at).status().unwrap();
    assert!(made.success());
}

/// `absolve` with its standard input a pipe that is kept open (and never written), so that
/// a run which reads it would block.
fn spawn(args: &[&str], envs: &[(&str, &str)]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(args)
        .envs(envs.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for `child` at most `limit`; kills it and fails the test if it is still running.
fn wait_within(mut child: Child, limit: Duration) -> std::process::Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("absolve still running after {limit:?}: it waited for its input");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

/// Polls `ready` until it holds (at most 20 s).
fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < Duration::from_secs(20), "never: {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Whether process `pid` has a nameless file open in `dir` (an `O_TMPFILE` file shows as
/// `dir/#inode (deleted)` in /proc).
fn has_temporary_open_in(pid: u32, dir: &Path) -> bool {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(|fd| fs::read_link(fd.ok()?.path()).ok())
        .any(|target| target.starts_with(dir) && target.to_string_lossy().ends_with(" (deleted)"))
}

fn signal(child: &Child, signal: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
}

const SIGNALS: [(rustix::process::Signal, i32); 3] = [
    (rustix::process::Signal::INT, 2),
    (rustix::process::Signal::TERM, 15),
    (rustix::process::Signal::HUP, 1),
];

// Item 6: an output that is not a regular file is written directly, never replaced.

#[test]
fn output_to_a_fifo_is_written_into_it_and_it_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let input = dir.path().join("in.html");
    fs::write(&input, "<a href=x>").unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    let out = absolve(
        &["rewrite", "--url", URL, "-o", arg(&fifo), arg(&input)],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(reader.join().unwrap(), b"<a href=http://h/a/x>");
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn output_to_dev_fd_1_writes_to_standard_output_whatever_it_is() {
    // A pipe: /dev/fd/1 is not a regular file.
    let out = absolve(&["rewrite", "--url", URL, "-o", "/dev/fd/1"], b"<a href=x>");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, b"<a href=http://h/a/x>");
    // A regular file standard output is open on: written through standard output (as `>`
    // would), not replaced by a new file that the caller's descriptor no longer sees.
    let dir = tempfile::tempdir().unwrap();
    let captured = dir.path().join("stdout.txt");
    let file = File::create(&captured).unwrap();
    let inode = file.metadata().unwrap().ino();
    let mut child = Command::new(env!("CARGO_BIN_EXE_absolve"))
        .args(["rewrite", "--url", URL, "-o", "/dev/stdout"])
        .stdin(Stdio::piped())
        .stdout(file)
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"<a href=x>")
        .unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(fs::read(&captured).unwrap(), b"<a href=http://h/a/x>");
    assert_eq!(fs::metadata(&captured).unwrap().ino(), inode);
}

// Item 7: interrupted -o and -i leave no temporary file, and the input whole.

/// Interrupts `-o` while it waits for more input (slow standard input), with each signal;
/// `envs` chooses the temporary file's kind.
fn interrupt_output(envs: &[(&str, &str)]) {
    for (sig, number) in SIGNALS {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.html");
        fs::write(&target, "old").unwrap();
        let mut child = spawn(&["rewrite", "--url", URL, "-o", arg(&target)], envs);
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"<a href=x>").unwrap();
        stdin.flush().unwrap();
        let named = envs.iter().any(|(_, v)| *v == "named");
        wait_until("the temporary file is open", || {
            if named {
                !leftovers(dir.path()).is_empty()
            } else {
                has_temporary_open_in(child.id(), dir.path())
            }
        });
        if !named {
            assert!(leftovers(dir.path()).is_empty(), "O_TMPFILE: no name");
        }
        signal(&child, sig);
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.signal(), Some(number), "died of signal {number}");
        assert!(leftovers(dir.path()).is_empty(), "signal {number}");
        assert_eq!(fs::read(&target).unwrap(), b"old", "signal {number}");
    }
}

#[test]
fn interrupted_output_leaves_no_temporary_file() {
    interrupt_output(&[]);
}

#[test]
fn interrupted_output_leaves_no_named_temporary_file_either() {
    interrupt_output(&[("ABSOLVE_TEMPORARY", "named")]);
}

#[test]
fn killed_output_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.html");
    let mut child = spawn(&["rewrite", "--url", URL, "-o", arg(&target)], &[]);
    wait_until("the temporary file is open", || {
        has_temporary_open_in(child.id(), dir.path())
    });
    child.kill().unwrap();
    assert_eq!(child.wait().unwrap().signal(), Some(9));
    assert!(leftovers(dir.path()).is_empty());
    assert!(!target.exists());
}

/// A document big enough that rewriting it takes a while.
fn big_document() -> Vec<u8> {
    b"<a href=x>link</a> text\n".repeat(200_000)
}

#[test]
fn interrupted_in_place_leaves_the_input_whole_and_no_temporary_file() {
    let original = big_document();
    for envs in [&[][..], &[("ABSOLVE_TEMPORARY", "named")][..]] {
        for (sig, number) in SIGNALS {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("big.html");
            fs::write(&file, &original).unwrap();
            let child = spawn(&["rewrite", "--url", URL, "-i", arg(&file)], envs);
            wait_until("the temporary file is open", || {
                !leftovers(dir.path()).is_empty() || has_temporary_open_in(child.id(), dir.path())
            });
            signal(&child, sig);
            let out = child.wait_with_output().unwrap();
            assert_eq!(
                out.status.signal(),
                Some(number),
                "interrupted before it finished ({envs:?})"
            );
            assert!(leftovers(dir.path()).is_empty(), "{envs:?} signal {number}");
            assert!(
                fs::read(&file).unwrap() == original,
                "{envs:?} signal {number}"
            );
        }
    }
}

// Item 8: the file is synced before the rename, the directory after.

#[test]
#[cfg_attr(
    not(has_strace),
    ignore = "/usr/bin/strace not found: apt-get install strace"
)]
fn the_file_is_synced_before_the_rename_and_its_directory_after() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.html");
    fs::write(&file, "<a href=x>").unwrap();
    let trace = dir.path().join("strace.log");
    let traced = Command::new("strace")
        .args(["-f", "-qq", "-o", arg(&trace)])
        .args([
            "-e",
            "trace=open,openat,fsync,fdatasync,rename,renameat,renameat2",
        ])
        .arg(env!("CARGO_BIN_EXE_absolve"))
        .args(["rewrite", "--url", URL, "-i", arg(&file)])
        .output()
        .unwrap();
    assert!(traced.status.success(), "{}", stderr(&traced));
    let log = fs::read_to_string(&trace).unwrap();
    let calls: Vec<&str> = log
        .lines()
        .map(|l| {
            l.split_once(' ')
                .map_or(l, |(_pid, call)| call.trim_start())
        })
        .collect();
    let fd_of = |call: &str| call.rsplit(" = ").next().unwrap().trim().to_owned();
    let temp = calls
        .iter()
        .find(|c| c.contains("O_TMPFILE"))
        .map(|c| fd_of(c))
        .expect("an O_TMPFILE temporary file");
    let position = |wanted: &dyn Fn(&str) -> bool| calls.iter().position(|c| wanted(c));
    let synced = position(&|c| c.starts_with(&format!("fsync({temp})")))
        .unwrap_or_else(|| panic!("file synced: {log}"));
    let renamed = position(&|c| c.starts_with("rename")).expect("renamed");
    let dir_name = format!("\"{}\"", arg(dir.path()));
    let dir_open = calls[renamed..]
        .iter()
        .find(|c| c.starts_with("open") && c.contains(&dir_name))
        .map(|c| fd_of(c))
        .expect("directory opened after the rename");
    let dir_synced = position(&|c| c.starts_with(&format!("fsync({dir_open})")));
    assert!(synced < renamed, "{log}");
    assert!(dir_synced.is_some_and(|at| at > renamed), "{log}");
}

// Item 9: owner, group, mode, ACLs and extended attributes are kept (owner: as root, in
// cli_files_root.rs).

#[test]
fn in_place_keeps_the_mode_and_the_extended_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.html");
    fs::write(&file, "<a href=x>").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    xattr::set(&file, "user.absolve.origin", b"http://h/a/").unwrap();
    let out = absolve(&["rewrite", "--url", URL, "-i", arg(&file)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(&file).unwrap(), b"<a href=http://h/a/x>");
    assert_eq!(fs::metadata(&file).unwrap().mode() & 0o7777, 0o640);
    assert_eq!(
        xattr::get(&file, "user.absolve.origin").unwrap().as_deref(),
        Some(&b"http://h/a/"[..])
    );
}

/// A POSIX ACL as Linux stores it in `system.posix_acl_access` (version 2, then entries of
/// tag, permissions, id): owner rw, user 65534 rw, group r, mask rw, other none. The ACL
/// mask is shown as the group bits of the mode: 0660.
fn acl_user_nobody_rw() -> Vec<u8> {
    let mut acl = 2u32.to_le_bytes().to_vec();
    let undefined = u32::MAX;
    for (tag, perm, id) in [
        (0x01u16, 6u16, undefined), // ACL_USER_OBJ rw
        (0x02, 6, 65534),           // ACL_USER nobody rw
        (0x04, 4, undefined),       // ACL_GROUP_OBJ r
        (0x10, 6, undefined),       // ACL_MASK rw
        (0x20, 0, undefined),       // ACL_OTHER none
    ] {
        acl.extend(tag.to_le_bytes());
        acl.extend(perm.to_le_bytes());
        acl.extend(id.to_le_bytes());
    }
    acl
}

#[test]
fn in_place_keeps_the_posix_acl_and_does_not_widen_the_mode() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.html");
    fs::write(&file, "<a href=x>").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    xattr::set(&file, "system.posix_acl_access", &acl_user_nobody_rw()).unwrap();
    let acl = xattr::get(&file, "system.posix_acl_access").unwrap();
    let mode = fs::metadata(&file).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o660, "the mask is the group bits");
    let out = absolve(&["rewrite", "--url", URL, "-i", arg(&file)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(&file).unwrap(), b"<a href=http://h/a/x>");
    assert_eq!(xattr::get(&file, "system.posix_acl_access").unwrap(), acl);
    assert_eq!(fs::metadata(&file).unwrap().mode() & 0o7777, mode);
}

#[test]
fn a_default_acl_of_the_directory_does_not_reach_the_rewritten_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.html");
    fs::write(&file, "<a href=x>").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
    // A new file in the directory would get this ACL (and its wider mode).
    xattr::set(
        dir.path(),
        "system.posix_acl_default",
        &acl_user_nobody_rw(),
    )
    .unwrap();
    let out = absolve(&["rewrite", "--url", URL, "-i", arg(&file)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(xattr::get(&file, "system.posix_acl_access").unwrap(), None);
    assert_eq!(fs::metadata(&file).unwrap().mode() & 0o7777, 0o600);
}

// Item 10: symbolic links stay links to the rewritten target; hard links are not split.

#[test]
fn in_place_on_a_symlink_rewrites_its_target_and_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("real")).unwrap();
    let target = dir.path().join("real/page.html");
    fs::write(&target, "<a href=x>").unwrap();
    let link = dir.path().join("link.html");
    std::os::unix::fs::symlink("real/page.html", &link).unwrap();
    let out = absolve(&["rewrite", "--url", URL, "-i", arg(&link)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_link(&link).unwrap(), Path::new("real/page.html"));
    assert_eq!(fs::read(&target).unwrap(), b"<a href=http://h/a/x>");
    assert!(leftovers(dir.path()).is_empty() && leftovers(&dir.path().join("real")).is_empty());
}

#[test]
fn output_onto_a_symlink_writes_its_target_even_a_dangling_one() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.html");
    fs::write(&input, "<a href=x>").unwrap();
    let target = dir.path().join("target.html");
    fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.html");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let dangling = dir.path().join("dangling.html");
    std::os::unix::fs::symlink("new.html", &dangling).unwrap();
    for (out, written) in [(&link, &target), (&dangling, &dir.path().join("new.html"))] {
        let run = absolve(&["rewrite", "--url", URL, "-o", arg(out), arg(&input)], b"");
        assert!(run.status.success(), "{}", stderr(&run));
        assert!(fs::symlink_metadata(out).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(written).unwrap(), b"<a href=http://h/a/x>");
    }
}

#[test]
fn in_place_on_a_hard_linked_file_keeps_its_inode_so_every_name_sees_the_change() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.html");
    fs::write(&file, "<a href=x>").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    let other = dir.path().join("b.html");
    fs::hard_link(&file, &other).unwrap();
    let inode = fs::metadata(&file).unwrap().ino();
    let out = absolve(&["rewrite", "--url", URL, "-i", arg(&file)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    for name in [&file, &other] {
        let metadata = fs::metadata(name).unwrap();
        assert_eq!((metadata.ino(), metadata.nlink()), (inode, 2));
        assert_eq!(metadata.mode() & 0o7777, 0o640);
        assert_eq!(fs::read(name).unwrap(), b"<a href=http://h/a/x>");
    }
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn output_onto_a_longer_hard_linked_file_replaces_all_of_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.html");
    fs::write(&file, "old content, longer than the new one\n".repeat(100)).unwrap();
    let other = dir.path().join("b.html");
    fs::hard_link(&file, &other).unwrap();
    let out = absolve(&["rewrite", "--url", URL, "-o", arg(&file)], b"<a href=y>");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(&other).unwrap(), b"<a href=http://h/a/y>");
    assert_eq!(fs::metadata(&file).unwrap().nlink(), 2);
}

// Item 11: a file whose content does not change is not written at all.

#[test]
fn in_place_leaves_an_unchanged_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("done.html");
    fs::write(
        &file,
        "<a href=http://h/a/x>already absolute</a>\n".repeat(5000),
    )
    .unwrap();
    let long_ago = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    let before = fs::metadata(&file).unwrap();
    let changed = dir.path().join("changed.html");
    fs::write(&changed, "<a href=x>").unwrap();
    let out = absolve(
        &["rewrite", "--url", URL, "-i", arg(&file), arg(&changed)],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let after = fs::metadata(&file).unwrap();
    assert_eq!(after.ino(), before.ino());
    assert_eq!(after.modified().unwrap(), long_ago);
    assert_eq!(fs::read(&changed).unwrap(), b"<a href=http://h/a/x>");
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn in_place_leaves_a_compressed_file_whose_content_does_not_change_untouched() {
    use absolve::compress::{ALL, Compression, Encoder};
    let compressed = |c: Compression, data: &[u8]| {
        let mut encoder = Encoder::new(c, Vec::new()).unwrap();
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let long_ago = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let page: &[u8] = b"<a href=\"http://h/a/x\">x</a>\n<img src=http://h/i.png>\n";
    let mut files = Vec::new();
    for c in ALL {
        // Two members (frames, streams), as `cat a.gz b.gz` makes: a rewrite joins them.
        let mut bytes = compressed(c, &page[..20]);
        bytes.extend(compressed(c, &page[20..]));
        files.push((format!("page.html.{}", c.extension()), bytes));
    }
    // gzip as gzip(1) writes it: the file's name and time in its header.
    let mut named = flate2::GzBuilder::new()
        .filename("page.html")
        .mtime(1_000_000_000)
        .write(Vec::new(), flate2::Compression::best());
    named.write_all(page).unwrap();
    files.push(("named.html.gz".to_owned(), named.finish().unwrap()));
    for (name, bytes) in &files {
        let file = dir.path().join(name);
        fs::write(&file, bytes).unwrap();
        File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        let before = fs::metadata(&file).unwrap();
        let out = absolve(&["rewrite", "--url", URL, "-i", arg(&file)], b"");
        assert!(out.status.success(), "{}", stderr(&out));
        let after = fs::metadata(&file).unwrap();
        assert_eq!(fs::read(&file).unwrap(), *bytes, "{name}: the same bytes");
        assert_eq!(after.ino(), before.ino(), "{name}");
        assert_eq!(after.modified().unwrap(), long_ago, "{name}");
    }
    // A change is written, compressed the same way.
    let file = dir.path().join("changed.html.gz");
    fs::write(&file, compressed(Compression::Gzip, b"<a href=x>")).unwrap();
    let out = absolve(&["rewrite", "--url", URL, "-i", arg(&file)], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let mut text = Vec::new();
    let written = fs::read(&file).unwrap();
    absolve::compress::Decoder::new(Compression::Gzip, &written[..])
        .read_to_end(&mut text)
        .unwrap();
    assert_eq!(text, b"<a href=http://h/a/x>");
    assert!(leftovers(dir.path()).is_empty());
}

// Item 12: a new file gets 0666 less the umask; -i on a FIFO is refused without hanging.

#[test]
fn a_new_output_file_gets_0666_less_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    for (umask, mode, temporary) in [
        ("022", 0o644, "anonymous"),
        ("027", 0o640, "anonymous"),
        ("002", 0o664, "anonymous"),
        ("027", 0o640, "named"),
    ] {
        let target = dir.path().join(format!("out-{umask}-{temporary}.html"));
        let status = Command::new("sh")
            .env("ABSOLVE_TEMPORARY", temporary)
            .args(["-c", &format!("umask {umask}; exec \"$0\" \"$@\"")])
            .arg(env!("CARGO_BIN_EXE_absolve"))
            .args(["rewrite", "--url", URL, "-o", arg(&target), "/dev/null"])
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(
            fs::metadata(&target).unwrap().mode() & 0o7777,
            mode,
            "umask {umask}"
        );
    }
}

#[test]
fn in_place_on_a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.html");
    mkfifo(&fifo);
    let child = spawn(&["rewrite", "--url", URL, "-i", arg(&fifo)], &[]);
    let out = wait_within(child, Duration::from_secs(10));
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out),
        format!(
            "absolve: {}: is a FIFO, not a regular file: -i rewrites regular files only\n",
            fifo.display()
        )
    );
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

// Item 13: -o errors name the output and come before any work.

#[test]
fn output_into_a_directory_is_refused_naming_it_before_reading_input() {
    let dir = tempfile::tempdir().unwrap();
    let shown = format!("{}/", arg(dir.path()));
    for output in [shown.as_str(), arg(dir.path())] {
        // Standard input stays open: a run that read it first would never end.
        let child = spawn(&["rewrite", "--url", URL, "-o", output], &[]);
        let out = wait_within(child, Duration::from_secs(10));
        assert!(!out.status.success());
        assert_eq!(stderr(&out), format!("absolve: {output}: Is a directory\n"));
    }
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn output_into_a_missing_directory_is_refused_naming_it_before_reading_input() {
    let output = "/nonexistent/dir/out.html";
    let child = spawn(&["rewrite", "--url", URL, "-o", output], &[]);
    let out = wait_within(child, Duration::from_secs(10));
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out),
        "absolve: /nonexistent/dir/out.html: No such file or directory\n"
    );
}

#[test]
fn output_to_a_new_file_in_an_existing_directory_works_and_leaves_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let target: PathBuf = dir.path().join("out.html");
    let out = absolve(
        &["rewrite", "--url", URL, "-o", arg(&target)],
        b"<a href=x>",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(&target).unwrap(), b"<a href=http://h/a/x>");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
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
