//! Mail folders as they are kept and published, for a walk over a tree (`-r`):
//! - Maildir (<https://cr.yp.to/proto/maildir.html>): a folder with `tmp/`, `new/` and
//!   `cur/`, one message a file in `new/` or `cur/` ([`is_maildir_message`]);
//! - Mailman's pipermail archives: mboxes named `2024-January.txt` (and `.txt.gz`), told
//!   by content ([`looks_like_mbox_text`]);
//! - any name a walk takes, with a compression extension added
//!   ([`strip_compression_extension`]).
//!
//! ```
//! use absolve::mailfolder::strip_compression_extension;
//! use absolve::compress::Compression;
//!
//! assert_eq!(strip_compression_extension("2024-January.txt.gz"), ("2024-January.txt", Some(Compression::Gzip)));
//! ```

use crate::compress::Compression;
use crate::format::{Format, detect};
use std::path::Path;

/// Whether `path` is a message of a Maildir: a file directly in a `cur/` or `new/` folder
/// whose parent also holds `cur/`, `new/` and `tmp/` (the Maildir layout), and whose name
/// does not start with a dot (a dot file is not a message: `.` and `..`, editors' files).
/// Only the path's folders are looked at, not the file's content nor its name's form
/// (`1700000000.M1P2.host:2,S`: `:2,` and flags in `cur/`, none in `new/`).
///
/// ```
/// let dir = tempfile::tempdir()?;
/// for sub in ["cur", "new", "tmp"] {
///     std::fs::create_dir(dir.path().join(sub))?;
/// }
/// let message = dir.path().join("cur/1700000000.M1P2.host:2,S");
/// std::fs::write(&message, "From: a@b\n\nhello\n")?;
/// assert!(absolve::mailfolder::is_maildir_message(&message));
/// assert!(!absolve::mailfolder::is_maildir_message(&dir.path().join("tmp/x")));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn is_maildir_message(path: &Path) -> bool {
    // Read as bytes: a name that is not UTF-8 is a message file all the same.
    let Some(name) = path.file_name() else {
        return false;
    };
    if name.as_encoded_bytes().starts_with(b".") {
        return false;
    }
    let Some(folder) = path.parent() else {
        return false;
    };
    let in_cur_or_new = folder.file_name().is_some_and(|n| n == "cur" || n == "new");
    let Some(maildir) = folder.parent() else {
        return false;
    };
    in_cur_or_new
        && ["cur", "new", "tmp"]
            .iter()
            .all(|sub| maildir.join(sub).is_dir())
        && path.is_file()
}

/// Whether the first bytes of a file named as text (`.txt`, as Mailman's pipermail names
/// its monthly archives: `2024-January.txt`) are an mbox: a From_ line then a header
/// block, as [`crate::format::detect`] tells an mbox. Text that merely mentions "From "
/// is not.
///
/// ```
/// use absolve::mailfolder::looks_like_mbox_text;
///
/// let pipermail = b"From alice at example.org  Mon Jan  1 00:00:00 2024\nFrom: alice at example.org (Alice)\nDate: Mon, 01 Jan 2024 00:00:00 +0000\nSubject: [list] Hello\n\nBody\n";
/// assert!(looks_like_mbox_text(pipermail));
/// assert!(!looks_like_mbox_text(b"From the start, this is a note.\nNothing else.\n"));
/// ```
pub fn looks_like_mbox_text(head: &[u8]) -> bool {
    detect(head) == Format::Mbox
}

/// A file name without its compression extension (`.gz`, `.bz2`, `.xz`, `.zst`, `.lz4`, any case),
/// and the compression it names; the name as it is and `None` without one. A walk takes
/// `x.mbox.gz`, `2024-January.txt.gz`, `page.html.gz`, `feed.xml.gz` by the name before.
/// A name that is only an extension (`.gz`) is left as it is.
///
/// ```
/// use absolve::compress::Compression;
/// use absolve::mailfolder::strip_compression_extension;
///
/// assert_eq!(strip_compression_extension("x.mbox.ZST"), ("x.mbox", Some(Compression::Zstd)));
/// assert_eq!(strip_compression_extension("page.html"), ("page.html", None));
/// assert_eq!(strip_compression_extension(".gz"), (".gz", None));
/// ```
pub fn strip_compression_extension(name: &str) -> (&str, Option<Compression>) {
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() => {
            match Compression::from_extension(extension) {
                Some(c) => (stem, Some(c)),
                None => (name, None),
            }
        }
        _ => (name, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn maildir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["cur", "new", "tmp"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        dir
    }

    #[test]
    fn messages_in_new_and_cur_only() {
        let dir = maildir();
        let new = dir.path().join("new/1700000000.M1P2.host");
        let cur = dir.path().join("cur/1700000001.M3P4.host:2,RS");
        let tmp = dir.path().join("tmp/1700000002.M5P6.host");
        let dot = dir.path().join("cur/.hidden");
        for p in [&new, &cur, &tmp, &dot] {
            std::fs::write(p, "From: a@b\n\nx\n").unwrap();
        }
        assert!(is_maildir_message(&new));
        assert!(is_maildir_message(&cur));
        assert!(!is_maildir_message(&tmp));
        assert!(!is_maildir_message(&dot));
    }

    #[test]
    fn a_cur_folder_without_its_siblings_is_not_a_maildir() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("cur")).unwrap();
        std::fs::create_dir(dir.path().join("new")).unwrap();
        let file = dir.path().join("cur/1700000000.M1P2.host:2,S");
        std::fs::write(&file, "x").unwrap();
        assert!(!is_maildir_message(&file));
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        assert!(is_maildir_message(&file));
        // A folder inside cur/ is not a message.
        let sub = dir.path().join("cur/sub");
        std::fs::create_dir(&sub).unwrap();
        assert!(!is_maildir_message(&sub));
    }

    #[test]
    fn pipermail_month_is_an_mbox() {
        // Pipermail writes addresses with " at " and the From_ line with two spaces.
        let month = b"From bob at lists.example.org  Tue Feb  6 10:00:00 2024\nFrom: bob at lists.example.org (Bob)\nDate: Tue, 06 Feb 2024 10:00:00 +0000\nSubject: [Example] Links\nIn-Reply-To: <1@example.org>\nMessage-ID: <2@example.org>\n\nSee <a href=\"x.html\">x</a>\n";
        assert!(looks_like_mbox_text(month));
        assert!(!looks_like_mbox_text(b"Release notes\n============\n"));
        assert!(!looks_like_mbox_text(b"From here on\nwe talk.\n"));
    }

    #[test]
    fn every_compression_extension_is_stripped() {
        for c in crate::compress::ALL {
            let name = format!("2024-January.txt.{}", c.extension());
            assert_eq!(
                strip_compression_extension(&name),
                ("2024-January.txt", Some(c))
            );
        }
        assert_eq!(strip_compression_extension("a.tar"), ("a.tar", None));
        assert_eq!(strip_compression_extension("noext"), ("noext", None));
    }
}
