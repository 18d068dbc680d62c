//! How `rewrite -o` and `rewrite -i` write files, as a careful Unix tool does.
//!
//! - An output that is not a regular file (a FIFO, a device, the terminal) is opened and
//!   written directly, never replaced; what standard output is open on already (`-o
//!   /dev/stdout`: a pipe, a file, a terminal) is written through standard output.
//! - A regular file is written to a temporary file in its directory, synced (fsync(2)),
//!   renamed over the target (rename(2) replaces a name atomically, POSIX.1-2024) and its
//!   directory synced: after a crash the name holds the old content or the new, whole.
//! - The temporary file has no name (Linux open(2) `O_TMPFILE`) where the file system
//!   supports it, so that no signal, SIGKILL included, can leave it behind: it is given a
//!   `.absolve-*` name by linkat(2) only for the rename, with SIGINT, SIGTERM and SIGHUP
//!   held back. Elsewhere it is a named `.absolve-*` file from the start, which those
//!   signals remove before the process dies.
//! - A replaced file keeps its owner, group, mode and extended attributes (POSIX ACLs are
//!   the `system.posix_acl_*` attributes), or is refused before any work; a symbolic link
//!   stays a link and its target is rewritten; a file with several hard links is rewritten
//!   in its own inode so that every name sees the new content.
//! - `-i` leaves a file whose content does not change untouched (same inode, same mtime);
//!   a compressed file's content is its decompressed bytes.
//!
//! `ABSOLVE_TEMPORARY=named` makes the temporary file named even where `O_TMPFILE` works:
//! it is there to test the fallback.

use absolve::compress::Decoder;
use rustix::fs::{AtFlags, CWD, Mode, OFlags};
use rustix::io::Errno;
use std::ffi::OsString;
use std::fs::{self, File, Metadata, OpenOptions};
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Read, Seek, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};
use xattr::FileExt;

/// How many bytes are written and compared at a time.
const CHUNK: usize = 64 * 1024;

/// How many symbolic links are followed before giving up (Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// The name that stands for standard output in `-o` (and standard input in FILE).
pub const STANDARD_STREAM: &str = "-";

/// The prefix of every temporary file's name.
const PREFIX: &str = ".absolve-";

/// A failure worded for the user, naming the path it is about.
pub type Failure = String;

/// Why [`Output::write`] failed.
pub enum Error {
    /// The work (reading or rewriting the input) failed: the caller names the input.
    Work(io::Error),
    /// Writing the output failed; worded, naming the output. Nothing was replaced.
    Output(Failure),
}

/// Where `-o PATH` or `-i FILE` writes, checked before any work.
pub struct Output {
    /// The path as the user gave it, for messages.
    shown: PathBuf,
    destination: Destination,
}

enum Destination {
    /// Not a regular file: written directly.
    Direct(File),
    /// The regular file standard output already writes to.
    Stdout,
    /// A regular file, new or replaced, through a temporary file.
    File(Box<Replacement>),
}

/// A regular file written through a temporary file in its directory.
struct Replacement {
    /// The file's own path, symbolic links followed.
    real: PathBuf,
    /// The file it replaces, if it exists.
    original: Option<Metadata>,
    /// With `-i`: an unchanged file is left alone.
    in_place: bool,
    /// The file the new content is compared with, to tell whether it changed (`-i`: the
    /// file itself; `-r -o DIR`: the document copied).
    compare_with: Option<PathBuf>,
    /// Created up front for `-o`, so that its errors come before any work.
    temp: Option<Temp>,
}

impl Output {
    /// `-o PATH`: checked and opened before any work, errors naming `PATH`. `-o -` is
    /// standard output, as FILE `-` is standard input.
    pub fn create(path: &Path) -> Result<Output, Failure> {
        guard_signals();
        let fail = |e: io::Error| failure(path, &e);
        if path == Path::new(STANDARD_STREAM) {
            return Ok(Output {
                shown: path.to_owned(),
                destination: Destination::Stdout,
            });
        }
        if path.as_os_str().as_bytes().ends_with(b"/") {
            return Err(fail(Errno::ISDIR.into()));
        }
        let destination = match fs::metadata(path) {
            Ok(m) if m.is_dir() => return Err(fail(Errno::ISDIR.into())),
            // What standard output is open on (`-o /dev/stdout`, a pipe or a file) is
            // written through it, not opened again: opening a pipe another user made (a
            // container's standard output) is refused.
            Ok(m) if is_stdout(&m) => Destination::Stdout,
            Ok(m) if !m.is_file() => {
                Destination::Direct(OpenOptions::new().write(true).open(path).map_err(fail)?)
            }
            Ok(_) => {
                let real = follow_links(path).map_err(fail)?;
                let original = fs::metadata(&real).map_err(fail)?;
                check_owner(path, &original)?;
                let temp = Temp::create(directory(&real), 0o600).map_err(fail)?;
                Destination::File(Box::new(Replacement {
                    real,
                    original: Some(original),
                    in_place: false,
                    compare_with: None,
                    temp: Some(temp),
                }))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let real = follow_links(path).map_err(fail)?;
                // A new file: 0666 less the umask, as creat(2) makes it.
                let temp = Temp::create(directory(&real), 0o666).map_err(fail)?;
                Destination::File(Box::new(Replacement {
                    real,
                    original: None,
                    in_place: false,
                    compare_with: None,
                    temp: Some(temp),
                }))
            }
            Err(e) => return Err(fail(e)),
        };
        Ok(Output {
            shown: path.to_owned(),
            destination,
        })
    }

    /// `-i FILE`: a regular file (or a link to one) whose owner and group can be kept,
    /// in a directory this user can write; checked without opening it.
    pub fn in_place(path: &Path) -> Result<Output, Failure> {
        guard_signals();
        let fail = |e: io::Error| failure(path, &e);
        let real = follow_links(path).map_err(fail)?;
        let original = fs::metadata(&real).map_err(fail)?;
        if !original.is_file() {
            return Err(format!(
                "{}: is {}, not a regular file: -i rewrites regular files only",
                path.display(),
                kind_of(&original)
            ));
        }
        check_owner(path, &original)?;
        rustix::fs::access(directory(&real), rustix::fs::Access::WRITE_OK).map_err(|e| {
            format!(
                "{}: cannot write a temporary file in {}: {}",
                path.display(),
                directory(&real).display(),
                os_message(&e.into())
            )
        })?;
        Ok(Output {
            shown: path.to_owned(),
            destination: Destination::File(Box::new(Replacement {
                compare_with: Some(real.clone()),
                real,
                original: Some(original),
                in_place: true,
                temp: None,
            })),
        })
    }

    /// Tells [`Output::write`] to compare what is written with `original` (`-r -o DIR`:
    /// the document the copy is made from), so that it can say whether the content
    /// changed. `-i` compares with the file itself already.
    pub fn compared_with(mut self, original: &Path) -> Output {
        if let Destination::File(replacement) = &mut self.destination {
            replacement.compare_with = Some(original.to_owned());
        }
        self
    }

    /// Runs `work` with a writer into this output, then puts the result in place. Returns
    /// whether the content changed: `false` only when it was compared (`-i`,
    /// [`Output::compared_with`]) and found the same.
    pub fn write(self, work: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<bool, Error> {
        let shown = self.shown;
        match self.destination {
            Destination::Direct(file) => write_through(&shown, file, None, work).map(|_| true),
            Destination::Stdout => {
                write_through(&shown, io::stdout().lock(), None, work).map(|_| true)
            }
            Destination::File(replacement) => replacement.write(&shown, work),
        }
    }
}

impl Replacement {
    fn write(
        mut self: Box<Self>,
        shown: &Path,
        work: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<bool, Error> {
        let fail = |e: io::Error| Error::Output(failure(shown, &e));
        // `-i`: the file's inode is locked while it is read and written, so that two runs
        // on it (through two hard links, which `-i` overwrites in place) take turns.
        let _lock = match self.in_place {
            true => Some(lock_inode(&self.real).map_err(fail)?),
            false => None,
        };
        let dir = directory(&self.real).to_owned();
        let temp = match self.temp.take() {
            Some(temp) => temp,
            None => Temp::create(&dir, 0o600).map_err(fail)?,
        };
        // The original is compared with what is written, to leave it alone if unchanged.
        let compare = self
            .compare_with
            .as_deref()
            .and_then(|path| File::open(path).ok())
            .map(Compare::new);
        let mut unchanged = write_through(shown, &temp.file, compare, work)?;
        if let (false, Some(path)) = (unchanged, &self.compare_with) {
            // A compressed file is compressed again in other bytes: its content tells.
            unchanged = same_decompressed(path, &temp.file).unwrap_or(false);
        }
        if unchanged && self.in_place {
            return Ok(false);
        }
        let Some(original) = &self.original else {
            return temp.commit(&self.real).map(|()| !unchanged).map_err(fail);
        };
        if original.nlink() > 1 {
            // Same inode: owner, group, mode and attributes stay as they are.
            return overwrite(shown, temp, &self.real).map(|()| !unchanged);
        }
        keep_metadata(shown, &self.real, original, &temp.file)?;
        temp.commit(&self.real).map(|()| !unchanged).map_err(fail)
    }
}

/// An exclusive `flock(2)` on the inode `path` names, held until the file returned is
/// closed; waits for another holder. If the name was renamed over while waiting (another
/// run replaced the file), the new inode is locked instead.
fn lock_inode(path: &Path) -> io::Result<File> {
    loop {
        let file = File::open(path)?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)?;
        let locked = file.metadata()?;
        let named = fs::metadata(path)?;
        if (locked.dev(), locked.ino()) == (named.dev(), named.ino()) {
            return Ok(file);
        }
    }
}

/// Writes `work`'s output through a buffer into `out`; with `compare`, returns whether the
/// output is the compared file's content.
fn write_through(
    shown: &Path,
    out: impl Write,
    compare: Option<Compare>,
    work: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<bool, Error> {
    let mut buffered = io::BufWriter::with_capacity(
        CHUNK,
        Tracked {
            out,
            compare,
            failed: false,
        },
    );
    let worked = work(&mut buffered).and_then(|()| buffered.flush());
    let tracked = buffered.get_mut();
    match worked {
        Err(e) if tracked.failed => Err(Error::Output(failure(shown, &e))),
        Err(e) => Err(Error::Work(e)),
        Ok(()) => Ok(tracked.compare.as_mut().is_some_and(Compare::same)),
    }
}

/// A writer that remembers whether the output failed, and compares what passes.
struct Tracked<W: Write> {
    out: W,
    compare: Option<Compare>,
    failed: bool,
}

impl<W: Write> Write for Tracked<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf).inspect_err(|_| self.failed = true)?;
        if let Some(compare) = &mut self.compare {
            compare.feed(&buf[..n]);
        }
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush().inspect_err(|_| self.failed = true)
    }
}

/// Compares bytes written with a file's content, a chunk at a time (memory stays bounded).
struct Compare {
    original: File,
    buf: Vec<u8>,
    same_so_far: bool,
}

impl Compare {
    fn new(original: File) -> Compare {
        Compare {
            original,
            buf: Vec::new(),
            same_so_far: true,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(CHUNK) {
            if !self.same_so_far {
                return;
            }
            self.buf.resize(chunk.len(), 0);
            self.same_so_far =
                self.original.read_exact(&mut self.buf).is_ok() && self.buf[..] == *chunk;
        }
    }

    /// Whether everything written is the whole file: nothing differed, nothing is left.
    fn same(&mut self) -> bool {
        self.same_so_far && matches!(self.original.read(&mut [0]), Ok(0))
    }
}

/// Whether `new`, just written, holds what the compressed file `original` holds once both
/// are decompressed: an input whose content did not change comes out compressed again in
/// other bytes (a gzip header's time and name gone, members or frames joined, another
/// encoder's choices), and is no change. Both must decompress whole, without damage; an
/// original that is not compressed is not looked at again (its bytes were compared).
fn same_decompressed(original: &Path, mut new: &File) -> io::Result<bool> {
    let mut original = io::BufReader::with_capacity(CHUNK, File::open(original)?);
    let Some(compression) = absolve::compress::detect_in(&mut original)? else {
        return Ok(false);
    };
    new.rewind()?;
    let mut before = Decoder::new(compression, original);
    let mut after = Decoder::new(compression, io::BufReader::with_capacity(CHUNK, new));
    let same = same_streams(&mut before, &mut after)?;
    Ok(same && before.damage().is_none() && after.damage().is_none())
}

/// Whether two readers give the same bytes to their ends, a chunk at a time.
fn same_streams(a: &mut impl Read, b: &mut impl Read) -> io::Result<bool> {
    let (mut left, mut right) = (Vec::with_capacity(CHUNK), Vec::with_capacity(CHUNK));
    loop {
        left.clear();
        right.clear();
        let n = a.by_ref().take(CHUNK as u64).read_to_end(&mut left)?;
        b.by_ref().take(CHUNK as u64).read_to_end(&mut right)?;
        if left != right {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

/// Gives the new file the original's owner, group, mode and extended attributes, in that
/// order: chown(2) clears the set-user-ID bits that the mode then restores, and the ACL
/// attribute is set last, with its mask matching the group bits already set.
fn keep_metadata(shown: &Path, real: &Path, original: &Metadata, temp: &File) -> Result<(), Error> {
    let fail = |what: &str, e: io::Error| {
        Error::Output(format!(
            "{}: cannot keep its {what}: {}; left unchanged",
            shown.display(),
            os_message(&e)
        ))
    };
    let current = temp.metadata().map_err(|e| fail("owner", e))?;
    if (current.uid(), current.gid()) != (original.uid(), original.gid()) {
        std::os::unix::fs::fchown(temp, Some(original.uid()), Some(original.gid()))
            .map_err(|e| fail("owner and group", e))?;
    }
    temp.set_permissions(fs::Permissions::from_mode(original.mode() & 0o7777))
        .map_err(|e| fail("mode", e))?;
    copy_xattrs(real, temp).map_err(|(name, e)| fail(&format!("extended attribute {name}"), e))
}

/// Makes `to`'s extended attributes exactly `from`'s (an attribute the temporary file got
/// from its directory's default ACL, and the original lacks, is removed).
fn copy_xattrs(from: &Path, to: &File) -> Result<(), (String, io::Error)> {
    let unnamed = |e: io::Error| (String::from("list"), e);
    let wanted: Vec<OsString> = match xattr::list(from) {
        Ok(names) => names.collect(),
        Err(e) if e.kind() == io::ErrorKind::Unsupported => return Ok(()),
        Err(e) => return Err(unnamed(e)),
    };
    let named = |name: &OsString| {
        let name = name.to_string_lossy().into_owned();
        move |e: io::Error| (name, e)
    };
    for name in to.list_xattr().map_err(unnamed)? {
        if !wanted.contains(&name) {
            to.remove_xattr(&name).map_err(named(&name))?;
        }
    }
    for name in &wanted {
        if let Some(value) = xattr::get(from, name).map_err(named(name))? {
            to.set_xattr(name, &value).map_err(named(name))?;
        }
    }
    Ok(())
}

/// A file with several hard links, rewritten in its own inode so that every name sees the
/// new content: the new content is complete in the temporary file first (a failed rewrite
/// changes nothing), space for it is reserved (fallocate(2), so that a full disk fails
/// before a byte changes), then it is copied over the original and synced while SIGINT,
/// SIGTERM and SIGHUP are held back. Should the copy still fail, the rewritten content is
/// kept under a `.absolve-*` name, which the message gives.
fn overwrite(shown: &Path, mut temp: Temp, real: &Path) -> Result<(), Error> {
    let _held = COMMITTING.read().unwrap_or_else(PoisonError::into_inner);
    let fail = |e: io::Error| Error::Output(failure(shown, &e));
    let mut original = OpenOptions::new().write(true).open(real).map_err(fail)?;
    let len = temp.file.metadata().map_err(fail)?.len();
    reserve(&original, len).map_err(fail)?;
    let copied = (|| {
        temp.file.rewind()?;
        io::copy(&mut temp.file, &mut original)?;
        original.set_len(len)?;
        original.sync_all()
    })();
    copied.map_err(|e| {
        let kept = temp.keep();
        Error::Output(format!(
            "{}: {} while writing into it in place (it has several hard links); {}",
            shown.display(),
            os_message(&e),
            match kept {
                Ok(name) => format!("its rewritten content is in {}", name.display()),
                Err(_) => "its rewritten content could not be kept".to_owned(),
            }
        ))
    })
}

/// Reserves the blocks `len` bytes need in `file` without changing its size or content;
/// where the file system cannot, writing will tell.
fn reserve(file: &File, len: u64) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    match rustix::fs::fallocate(file, rustix::fs::FallocateFlags::KEEP_SIZE, 0, len) {
        Ok(()) | Err(Errno::OPNOTSUPP | Errno::NOSYS) => {}
        Err(e) => return Err(e.into()),
    }
    let _ = (file, len);
    Ok(())
}

/// Names of the named temporary files, for the signal handler to remove.
static NAMED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Held (shared) while a name is given or a file overwritten; the signal handler takes it
/// exclusively, so that the process dies only between those steps.
static COMMITTING: RwLock<()> = RwLock::new(());

/// On SIGINT, SIGTERM and SIGHUP: waits for a rename or an overwrite under way, removes
/// the named temporary files, then dies of the signal as it would have without this.
fn guard_signals() {
    static GUARD: OnceLock<()> = OnceLock::new();
    GUARD.get_or_init(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let _held = COMMITTING.write().unwrap_or_else(PoisonError::into_inner);
                let names = NAMED.lock().unwrap_or_else(PoisonError::into_inner);
                for name in names.iter() {
                    let _ = fs::remove_file(name);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
            }
        });
    });
}

/// A temporary file in the target's directory: without a name where `O_TMPFILE` works,
/// else a named one, removed when dropped.
struct Temp {
    file: File,
    dir: PathBuf,
    name: Option<PathBuf>,
}

impl Temp {
    /// A temporary file in `dir`, created with `mode` less the umask.
    fn create(dir: &Path, mode: u32) -> io::Result<Temp> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if anonymous_files() {
            let flags = OFlags::RDWR | OFlags::TMPFILE | OFlags::CLOEXEC;
            match rustix::fs::open(dir, flags, Mode::from_raw_mode(mode)) {
                Ok(fd) => {
                    return Ok(Temp {
                        file: File::from(fd),
                        dir: dir.to_owned(),
                        name: None,
                    });
                }
                // The file system (or kernel) has no O_TMPFILE: a named file instead.
                Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let mut names = NAMED.lock().unwrap_or_else(PoisonError::into_inner);
        let (file, name) = tempfile::Builder::new()
            .prefix(PREFIX)
            .permissions(fs::Permissions::from_mode(mode))
            .tempfile_in(dir)?
            .keep()
            .map_err(|e| e.error)?;
        names.push(name.clone());
        Ok(Temp {
            file,
            dir: dir.to_owned(),
            name: Some(name),
        })
    }

    /// Syncs the file, renames it over `target`, then syncs the directory (the rename is
    /// durable only then).
    fn commit(mut self, target: &Path) -> io::Result<()> {
        self.file.sync_all()?;
        {
            let _held = COMMITTING.read().unwrap_or_else(PoisonError::into_inner);
            let name = match self.name.take() {
                Some(name) => name,
                None => self.link()?,
            };
            let renamed = fs::rename(&name, target);
            forget_name(&name);
            if renamed.is_err() {
                let _ = fs::remove_file(&name);
            }
            renamed?;
        }
        File::open(&self.dir)?.sync_all()
    }

    /// Keeps the file under a `.absolve-*` name in its directory, and gives that name.
    fn keep(mut self) -> io::Result<PathBuf> {
        let name = match self.name.take() {
            Some(name) => name,
            None => self.link()?,
        };
        forget_name(&name);
        Ok(name)
    }

    /// Gives the nameless file a fresh `.absolve-*` name in its directory (linkat(2)
    /// through its /proc/self/fd link, which needs no privilege).
    fn link(&self) -> io::Result<PathBuf> {
        use std::os::fd::AsRawFd;
        let source = format!("/proc/self/fd/{}", self.file.as_raw_fd());
        let random = RandomState::new();
        for attempt in 0u32.. {
            let name = self.dir.join(format!(
                "{PREFIX}{:012x}",
                random.hash_one(attempt) & 0xffff_ffff_ffff
            ));
            match rustix::fs::linkat(CWD, &source, CWD, &name, AtFlags::SYMLINK_FOLLOW) {
                Err(Errno::EXIST) if attempt < 100 => continue,
                result => return result.map(|()| name).map_err(io::Error::from),
            }
        }
        unreachable!("the loop returns")
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if let Some(name) = self.name.take() {
            let _ = fs::remove_file(&name);
            forget_name(&name);
        }
    }
}

/// The signal handler no longer needs to remove `name`.
fn forget_name(name: &Path) {
    NAMED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|n| n != name);
}

/// Whether temporary files can be nameless: /proc is needed to give them a name.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn anonymous_files() -> bool {
    std::env::var_os("ABSOLVE_TEMPORARY").is_none_or(|v| v != "named")
        && Path::new("/proc/self/fd").is_dir()
}

/// The file a path names once the symbolic links of its last component are followed, as
/// open(2) follows them: a dangling link gives the name it points to.
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_owned();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                current = directory(&current).join(target);
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(Errno::LOOP.into())
}

/// The directory a file is in.
fn directory(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Whether `metadata` is the file standard output is open on.
fn is_stdout(metadata: &Metadata) -> bool {
    rustix::fs::fstat(io::stdout())
        .is_ok_and(|s| (s.st_dev, s.st_ino) == (metadata.dev(), metadata.ino()))
}

/// Refuses, before any work, a file whose owner or group this user could not give back
/// to the new file: only root can give a file away, and a group only to one of its own.
fn check_owner(shown: &Path, original: &Metadata) -> Result<(), Failure> {
    use rustix::process::{Gid, Uid, getegid, geteuid, getgroups};
    let euid = geteuid();
    if euid.is_root() {
        return Ok(());
    }
    let gid = Gid::from_raw(original.gid());
    let member = gid == getegid() || getgroups().is_ok_and(|groups| groups.contains(&gid));
    if Uid::from_raw(original.uid()) == euid && member {
        return Ok(());
    }
    Err(format!(
        "{}: owned by {}:{}, which this user cannot keep on a new file; left unchanged \
         (run as its owner or as root)",
        shown.display(),
        original.uid(),
        original.gid()
    ))
}

/// What a file that is not a regular file is, for messages.
fn kind_of(metadata: &Metadata) -> &'static str {
    let kind = metadata.file_type();
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// `path: what went wrong`.
fn failure(path: &Path, error: &io::Error) -> Failure {
    format!("{}: {}", path.display(), os_message(error))
}

/// An error's text without the ` (os error N)` that [`io::Error`] appends.
fn os_message(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_owned(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compare(original: &[u8], written: &[&[u8]]) -> bool {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(original).unwrap();
        file.rewind().unwrap();
        let mut compare = Compare::new(file);
        for bytes in written {
            compare.feed(bytes);
        }
        compare.same()
    }

    #[test]
    fn the_same_bytes_in_any_pieces_are_the_same() {
        let big = vec![7u8; 3 * CHUNK + 5];
        assert!(compare(b"abc", &[b"a", b"bc"]));
        assert!(compare(b"", &[]));
        assert!(compare(&big, &[&big[..10], &big[10..]]));
    }

    #[test]
    fn a_prefix_a_longer_output_or_another_byte_differs() {
        assert!(!compare(b"abc", &[b"ab"]));
        assert!(!compare(b"abc", &[b"abc", b"d"]));
        assert!(!compare(b"abc", &[b"abd"]));
        assert!(!compare(b"", &[b"x"]));
        let mut big = vec![7u8; 2 * CHUNK];
        let original = big.clone();
        big[CHUNK + 1] = 8;
        assert!(!compare(&original, &[&big]));
    }

    #[test]
    fn links_are_followed_relative_to_their_directory_and_loops_end() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::create_dir(d.join("sub")).unwrap();
        std::os::unix::fs::symlink("sub/b", d.join("a")).unwrap();
        std::os::unix::fs::symlink("c", d.join("sub/b")).unwrap();
        assert_eq!(follow_links(&d.join("a")).unwrap(), d.join("sub/c"));
        std::os::unix::fs::symlink("loop", d.join("loop")).unwrap();
        let error = follow_links(&d.join("loop")).unwrap_err();
        assert_eq!(error.raw_os_error(), Some(Errno::LOOP.raw_os_error()));
    }

    #[test]
    fn messages_lose_the_os_error_number() {
        let error = io::Error::from(Errno::ISDIR);
        assert_eq!(failure(Path::new("out/"), &error), "out/: Is a directory");
    }
}
