//! `absolve rewrite` and `absolve links`: each input through the library, N inputs at a
//! time (`-j N`), the output in input order.

mod spool;

use super::input::{Checked, Input, InputArgs, Inputs, Problem};
use super::output::{self, CliSink, LinksSink, RewriteSink};
use super::write;
use absolve::{pipeline, threads};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use spool::InOrder;
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, Write};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// How many bytes are read at a time.
const CHUNK: usize = 64 * 1024;

#[derive(Debug, Args)]
#[command(
    after_help = "Output goes to standard output unless -i or -o is given. Without a base \
(--url, or a saved page's record of its URL, or a <base href>) relative links stay as they are, \
with a warning.

Examples:
  absolve rewrite --url https://example.com/a/ page.html > out.html
  absolve rewrite -i page.html                   (a page saved by a browser knows its URL)
  absolve rewrite -i --keep-local saved/page.html  (./page_files/... stay local)
  absolve rewrite -r -i --url https://example.com/docs/ site/
  absolve rewrite -r -o copy/ mirror/            (a rewritten copy of the whole tree)
  absolve rewrite --format css --url https://example.com/css/site.css < site.css"
)]
pub struct RewriteArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Write the rewritten input to PATH (one input only; `-` is standard output); with -r
    /// and one DIRECTORY, PATH is a directory that gets a copy of the tree: documents
    /// rewritten, every other file copied unchanged.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "PATH",
        conflicts_with = "in_place"
    )]
    output: Option<PathBuf>,
    /// Rewrite each FILE in place, through a temporary file and an atomic rename (owner,
    /// mode and extended attributes kept; a file that does not change is not written).
    #[arg(short = 'i', long = "in-place")]
    in_place: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Each line is one JSON object with these keys, always in this order:
  file        the input's name (- for standard input)
  message     the message number in an mbox (1 for a lone message); null outside messages
  part        the MIME part number (1, 1.2); null outside messages
  record      the WARC-Record-ID of the record; null outside WARC files
  target_uri  that record's WARC-Target-URI, the page's URL; null outside WARC files
  element     the element (style for CSS in <style>, http for an HTTP header field)
  attribute   the attribute, or the header field's name; null for CSS in <style>
  original    the URL as the document gives it, character references decoded
  resolved    the URL resolved against its base: what rewrite writes
  base        the effective base; null when there is none (RFC 1808 §3.4)
  base_from   where that base came from: base-element, base-header, content-base,
              content-location, encapsulating, retrieval-url, saved-from, singlefile,
              httrack, origin-xattr, xml-base, none
  offset      the byte offset of the value in its document
  srcdoc      how deep in <iframe srcdoc> documents (0 in the document itself)
  kept        \"local\" when --keep-local kept it as written, else null

Examples:
  absolve links --url https://example.com/a/ page.html
  absolve links -r --keep-local saved/ | jq -r 'select(.kept == null) | .resolved'"
)]
pub struct LinksArgs {
    #[command(flatten)]
    input: InputArgs,
}

/// An error about one input, worded for the user.
type Failure = String;

/// What happened to the documents of one run, for the summary of `-r`.
#[derive(Debug, Default)]
struct Counts {
    changed: usize,
    unchanged: usize,
    failed: usize,
    /// Files under the directories that are not documents.
    skipped: usize,
    /// With `-r -o DIR`: how many of the skipped files were copied into DIR.
    copied: Option<usize>,
}

impl Counts {
    fn add(&mut self, result: &Result<Tally, Failure>) {
        match result {
            Ok(tally) if tally.changed => self.changed += 1,
            Ok(_) => self.unchanged += 1,
            Err(_) => self.failed += 1,
        }
    }

    /// One line on standard error at the end of `-r`: files processed, changed,
    /// unchanged, skipped, warnings (issue 10), then failures if any.
    fn print(&self) {
        let processed = self.changed + self.unchanged + self.failed;
        let copied = match self.copied {
            Some(copied) if copied == self.skipped && copied > 0 => " (copied unchanged)".into(),
            Some(copied) if self.skipped > 0 => format!(" ({copied} copied unchanged)"),
            _ => String::new(),
        };
        let failed = if self.failed > 0 {
            format!(", {} failed", self.failed)
        } else {
            String::new()
        };
        stderr!(
            "absolve: {}, {} changed, {} unchanged, {} skipped{copied}, {}{failed}",
            plural(processed, "file processed", "files processed"),
            self.changed,
            self.unchanged,
            self.skipped,
            plural(output::warnings(), "warning", "warnings"),
        );
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `absolve rewrite`.
pub fn rewrite(args: RewriteArgs) -> ExitCode {
    use_threads(&args.input);
    let (checked, inputs) = match prepare(&args.input, false) {
        Ok(prepared) => prepared,
        Err(problem) => return fail(problem),
    };
    let tree_copy = args
        .output
        .as_deref()
        .is_some_and(|o| o != Path::new(write::STANDARD_STREAM))
        && inputs.roots.len() == 1
        && args.input.files.len() == 1;
    if let Err(message) = check_rewrite(&args, &inputs, tree_copy) {
        return fail(Problem::Usage(message));
    }
    if let Some(target) = args.output.as_deref().filter(|_| tree_copy)
        && let Err(message) = check_tree_target(target)
    {
        return fail(Problem::Failure(message));
    }
    inputs.warn_unreadable();
    let mut counts = Counts {
        skipped: inputs.others.len(),
        ..Counts::default()
    };
    let documents = &inputs.documents;
    let result = if args.in_place {
        rewrite_in_place(&checked, documents, &mut counts)
    } else if let Some(path) = args.output.as_deref().filter(|_| tree_copy) {
        copy_tree(&checked, &inputs, path, &mut counts)
    } else if let Some(path) = &args.output {
        let input = &documents[0];
        let label = input.path.as_deref();
        let target = match write::Output::create(path) {
            Ok(target) => target,
            Err(message) => return fail(Problem::Failure(message)),
        };
        target
            .write(|out| run(input, &checked, rewrite_sink(label, out)).map(drop))
            .map(drop)
            .map_err(|e| vec![describe_write(label, e)])
    } else {
        rewrite_to_stdout(&checked, documents)
    };
    if args.input.recursive {
        counts.print();
    }
    finish(result)
}

/// The usage rules of `rewrite` that clap cannot say.
fn check_rewrite(args: &RewriteArgs, inputs: &Inputs, tree_copy: bool) -> Result<(), String> {
    let to_stdout = args.output.as_deref() == Some(Path::new(write::STANDARD_STREAM));
    if args.input.recursive && !args.in_place && (args.output.is_none() || to_stdout) {
        return Err(
            "rewrite -r needs -i (rewrite the files in place) or -o DIR (a rewritten copy of the tree)"
                .into(),
        );
    }
    if args.output.is_some() && !tree_copy && inputs.documents.len() != 1 {
        return Err(format!(
            "-o takes exactly one input ({} given); with -r, one directory",
            inputs.documents.len()
        ));
    }
    if args.in_place && inputs.documents.iter().any(|i| i.path.is_none()) {
        return Err("-i needs files, not standard input".into());
    }
    if let (true, Some(out), Some(root)) = (tree_copy, &args.output, inputs.roots.first())
        && resolved_path(out)
            .zip(resolved_path(root))
            .is_some_and(|(o, r)| o.starts_with(&r))
    {
        return Err(format!(
            "-o {}: the copy cannot go inside the directory it copies",
            out.display()
        ));
    }
    Ok(())
}

/// `path` with its symbolic links and `..` resolved, whether or not its last components
/// exist yet.
fn resolved_path(path: &Path) -> Option<PathBuf> {
    let mut missing = Vec::new();
    let mut existing = std::path::absolute(path).ok()?;
    loop {
        if let Ok(real) = existing.canonicalize() {
            return Some(missing.into_iter().rev().fold(real, |p, c| p.join(c)));
        }
        missing.push(existing.file_name()?.to_owned());
        existing = existing.parent()?.to_path_buf();
    }
}

/// `absolve links`.
pub fn links(args: LinksArgs) -> ExitCode {
    use_threads(&args.input);
    let (checked, inputs) = match prepare(&args.input, true) {
        Ok(prepared) => prepared,
        Err(problem) => return fail(problem),
    };
    inputs.warn_unreadable();
    widen_pipe(&io::stdout());
    // Not locked: the writing may run on a thread of the pool (`Stdout` is `Send`).
    let mut out = io::BufWriter::with_capacity(CHUNK, io::stdout());
    let mut counts = Counts {
        skipped: inputs.others.len(),
        ..Counts::default()
    };
    let documents = &inputs.documents;
    let listed = match rayon::current_num_threads() {
        1 => {
            // One thread in all (-j 1): the reading runs on the pool's one thread too, where
            // a WARC file's pages are parsed by the thread that reads them, not beside it.
            rayon::scope(|_| links_in_turn(&checked, documents, &mut out, &mut counts))
        }
        _ if documents.len() > 1 => links_in_parallel(&checked, documents, &mut out, &mut counts),
        _ => links_in_turn(&checked, documents, &mut out, &mut counts),
    };
    let failures = match listed {
        Listed::PipeClosed => return ExitCode::SUCCESS,
        Listed::Done(failures) => failures,
    };
    let flushed = out.flush();
    if args.input.recursive {
        counts.print();
    }
    finish(if failures.is_empty() {
        flushed.map_err(|e| vec![e.to_string()])
    } else {
        Err(failures)
    })
}

/// How many bytes the pipe to the next command may hold: the links are many more bytes
/// than they were read from (650 MB of JSON lines for a 104 MB `.warc.gz`), and through a
/// pipe of Linux's default 64 KiB each 64 KiB written waited for the reader.
const PIPE_SIZE: usize = 1 << 20;

/// Makes a pipe on standard output hold [`PIPE_SIZE`] bytes (Linux's `F_SETPIPE_SZ`; 1
/// MiB is what an unprivileged process may ask for by default). Best effort: standard
/// output may be a file or a terminal, or the limit lower; nothing changes then.
fn widen_pipe(out: &io::Stdout) {
    #[cfg(not(target_os = "linux"))]
    let _ = out;
    #[cfg(target_os = "linux")]
    if rustix::fs::fstat(out)
        .is_ok_and(|s| rustix::fs::FileType::from_raw_mode(s.st_mode) == rustix::fs::FileType::Fifo)
    {
        let _ = rustix::pipe::fcntl_setpipe_size(out, PIPE_SIZE);
    }
}

/// `-j N`: the global thread pool gets N threads (rayon's default, one per core or
/// RAYON_NUM_THREADS, otherwise), at most four per core ([`threads::most_threads`]):
/// beyond that, threads only add memory. Every parallel part of the run uses it: the
/// files of `links` and `rewrite -i`/`-o DIR`, and the pages of a WARC file.
fn use_threads(args: &InputArgs) {
    let pool = threads::global_pool(args.threads);
    if let (true, Some(asked)) = (pool.lowered(), pool.asked) {
        let what = match asked {
            threads::Asked::Caller(n) => format!("-j {n}"),
            threads::Asked::Environment(n) => format!("{}={n}", threads::ENV),
        };
        let cores = threads::most_threads().get() / threads::PER_CORE;
        stderr!(
            "absolve: warning: {what}: using {} threads ({} for each of the {cores} cores \
             absolve may run on; more would only take more memory)",
            pool.threads,
            threads::PER_CORE,
        );
    }
}

/// How listing the links of the inputs ended.
enum Listed {
    /// Every input was processed; the failures, in input order.
    Done(Vec<Failure>),
    /// The reader of the output went away (`| head`): a success, as for `cat`.
    PipeClosed,
}

/// The links of each input, one input after the other, straight to `out`.
fn links_in_turn(
    checked: &Checked,
    documents: &[Input],
    out: &mut impl Write,
    counts: &mut Counts,
) -> Listed {
    let mut failures = Vec::new();
    for input in documents {
        let label = output::label(input.path.as_deref());
        let result = run(input, checked, LinksSink::new(&mut *out, &label));
        if let Err(error) = &result
            && error.kind() == io::ErrorKind::BrokenPipe
        {
            return Listed::PipeClosed;
        }
        let result = result.map_err(|e| describe(input.path.as_deref(), e));
        counts.add(&result);
        failures.extend(result.err());
    }
    Listed::Done(failures)
}

/// How many inputs may be processed ahead of the one being written, per thread: enough to
/// keep every thread busy behind a large file, few enough to bound the spools (each holds
/// at most [`spool::SPILL`] bytes in memory, the rest on disk).
const AHEAD_PER_THREAD: usize = 4;

/// What a task of [`links_in_parallel`] sends when its input is done: its lines not yet
/// written out and how it went, or the panic that ended it.
type Finished = std::thread::Result<(spool::Spool, io::Result<Tally>)>;

/// The links of the inputs on the global pool's threads, several inputs at a time. The
/// oldest input not yet written out writes straight to `out`; each one behind it writes
/// into its own [`Spool`](spool::Spool), emptied into `out` when its turn comes
/// ([`InOrder`]), so the output is that of [`links_in_turn`], byte for byte.
fn links_in_parallel(
    checked: &Checked,
    documents: &[Input],
    out: &mut (impl Write + Send),
    counts: &mut Counts,
) -> Listed {
    let window = rayon::current_num_threads() * AHEAD_PER_THREAD;
    let stop = AtomicBool::new(false);
    let shared = InOrder::new(out);
    let (done, finished) = mpsc::channel::<(usize, Finished)>();
    let mut failures = Vec::new();
    let mut pipe_closed = false;
    rayon::in_place_scope(|scope| {
        let (mut started, mut written) = (0, 0);
        let mut ready = BTreeMap::new();
        while written < documents.len() {
            while started < documents.len() && started < written + window {
                let (index, input, done, stop, shared) =
                    (started, &documents[started], done.clone(), &stop, &shared);
                scope.spawn(move |_| {
                    // A panic is sent too: the loop below waits for every input in turn.
                    let finished = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        let mut slot = shared.slot(index);
                        let result = match stop.load(Ordering::Relaxed) {
                            true => Ok(Tally::default()),
                            false => {
                                let label = output::label(input.path.as_deref());
                                // The many small writes of each line gathered before they
                                // reach the slot, as `BufWriter<Stdout>` gathers them in turn.
                                let mut lines =
                                    io::BufWriter::with_capacity(spool::BLOCK, &mut slot);
                                let result =
                                    run(input, checked, LinksSink::new(&mut lines, &label));
                                let flushed = lines.flush();
                                result.and_then(|tally| flushed.map(|()| tally))
                            }
                        };
                        let (left, written) = slot.finish();
                        // A failure to write comes first, as in turn (the sink stops at it).
                        (left, written.and(result))
                    }));
                    // The receiver is gone only once the writer stopped: nothing to tell.
                    let _ = done.send((index, finished));
                });
                started += 1;
            }
            let Ok((index, finished)) = finished.recv() else {
                break;
            };
            let (left, result) = finished.unwrap_or_else(|panic| {
                // A bug: the inputs not started are passed over, and the panic goes on
                // (status 101), as it would have listing the inputs in turn.
                stop.store(true, Ordering::Relaxed);
                std::panic::resume_unwind(panic)
            });
            ready.insert(index, (left, result));
            while let Some((left, result)) = ready.remove(&written) {
                let input = &documents[written];
                written += 1;
                if pipe_closed {
                    shared.finish_head(spool::Spool::new()).ok();
                    continue;
                }
                // The links found before a failure are written too, as in turn.
                let result = match (shared.finish_head(left), result) {
                    (_, Err(error)) if error.kind() == io::ErrorKind::BrokenPipe => Err(error),
                    (Err(error), _) => Err(error),
                    (Ok(()), result) => result,
                };
                if let Err(error) = &result
                    && error.kind() == io::ErrorKind::BrokenPipe
                {
                    pipe_closed = true;
                    stop.store(true, Ordering::Relaxed);
                    continue;
                }
                let result = result.map_err(|e| describe(input.path.as_deref(), e));
                counts.add(&result);
                failures.extend(result.err());
            }
        }
    });
    match pipe_closed {
        true => Listed::PipeClosed,
        false => Listed::Done(failures),
    }
}

/// Checks the options and that every input file can be opened, before anything is written.
fn prepare(args: &InputArgs, listing: bool) -> Result<(Checked, Inputs), Problem> {
    let checked = args.check()?;
    let inputs = args.inputs(&checked, listing)?;
    for path in inputs.documents.iter().filter_map(|i| i.path.as_ref()) {
        // A FIFO or device is not opened twice (nor waited on) here: only when it is read.
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            continue;
        }
        File::open(path).map_err(|e| Problem::Failure(format!("{}: {e}", path.display())))?;
    }
    Ok((checked, inputs))
}

fn rewrite_sink<W: Write>(input: Option<&Path>, out: W) -> RewriteSink<W> {
    RewriteSink {
        out,
        label: output::label(input),
    }
}

fn rewrite_to_stdout(checked: &Checked, inputs: &[Input]) -> Result<(), Vec<Failure>> {
    let stdout = io::stdout().lock();
    let mut out = io::BufWriter::with_capacity(CHUNK, stdout);
    let mut failures = Vec::new();
    for input in inputs {
        let label = input.path.as_deref();
        if let Err(error) = run(input, checked, rewrite_sink(label, &mut out)) {
            if error.kind() == io::ErrorKind::BrokenPipe {
                return Ok(());
            }
            failures.push(describe(label, error));
        }
    }
    out.flush().map_err(|e| vec![e.to_string()])?;
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures)
    }
}

/// Each file through a temporary file and an atomic rename (see [`write`]), files in
/// parallel, with a progress bar when standard error is a terminal. Every file is checked
/// before any is rewritten. A file named twice (the same name, a hard link, a symbolic
/// link to it) is rewritten once: two rewrites of one inode at the same time would read
/// each other's half-written bytes.
fn rewrite_in_place(
    checked: &Checked,
    inputs: &[Input],
    counts: &mut Counts,
) -> Result<(), Vec<Failure>> {
    let mut seen: std::collections::HashMap<(u64, u64), &Path> = Default::default();
    let targets = inputs
        .iter()
        .filter_map(|input| input.path.as_deref().map(|path| (input, path)))
        .filter(|&(_, path)| match file_identity(path) {
            Some(identity) => match seen.get(&identity) {
                Some(first) => {
                    output::warn(
                        &path.display().to_string(),
                        &format!(
                            "the same file as {} (a link to it, or named twice): rewritten once",
                            first.display()
                        ),
                    );
                    false
                }
                None => {
                    seen.insert(identity, path);
                    true
                }
            },
            None => true,
        })
        .map(|(input, path)| write::Output::in_place(path).map(|target| (input, path, target)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|message| vec![message])?;
    let progress = progress_bar(targets.len());
    let results: Vec<Result<Tally, Failure>> = targets
        .into_par_iter()
        .map(|(input, path, target)| {
            // The file changed if its bytes did: the write compares them.
            let result =
                target.write(|out| run(input, checked, rewrite_sink(Some(path), out)).map(drop));
            progress.inc(1);
            result
                .map(|changed| Tally { changed })
                .map_err(|e| describe_write(Some(path), e))
        })
        .collect();
    progress.finish_and_clear();
    collect_results(results, counts)
}

/// The device and inode of the file `path` names, symbolic links followed.
#[cfg(unix)]
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_identity(_path: &Path) -> Option<(u64, u64)> {
    None
}

fn progress_bar(len: usize) -> ProgressBar {
    let progress = ProgressBar::new(len as u64);
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    progress
}

fn collect_results(
    results: Vec<Result<Tally, Failure>>,
    counts: &mut Counts,
) -> Result<(), Vec<Failure>> {
    results.iter().for_each(|r| counts.add(r));
    let failures: Vec<Failure> = results.into_iter().filter_map(Result::err).collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures)
    }
}

/// `rewrite -r -o DIR`: a complete copy of the tree in `target`, documents rewritten,
/// every other file (and symbolic link) copied as it is. `target` was checked by
/// [`check_tree_target`].
fn copy_tree(
    checked: &Checked,
    inputs: &Inputs,
    target: &Path,
    counts: &mut Counts,
) -> Result<(), Vec<Failure>> {
    let mut failures = Vec::new();
    let mkdir = |path: &Path| match fs::create_dir(path) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists || !path.is_dir() => {
            Err(format!("{}: {e}", path.display()))
        }
        _ => Ok(()),
    };
    failures.extend(mkdir(target).err());
    for (_, below) in &inputs.directories {
        failures.extend(mkdir(&target.join(below)).err());
    }
    if !failures.is_empty() {
        return Err(failures);
    }
    let mut copied = 0;
    for (root, below) in &inputs.others {
        match copy_other(&root.join(below), &target.join(below)) {
            Ok(true) => copied += 1,
            Ok(false) => {}
            Err(e) => failures.push(format!("{}: {e}", root.join(below).display())),
        }
    }
    counts.copied = Some(copied);
    let progress = progress_bar(inputs.documents.len());
    let results: Vec<Result<Tally, Failure>> = inputs
        .documents
        .par_iter()
        .filter_map(|input| {
            let (path, (_, below)) = (input.path.as_deref()?, input.tree.as_ref()?);
            let copy = target.join(below);
            let result = write::Output::create(&copy)
                .map(|target| target.compared_with(path))
                .map_err(write::Error::Output)
                .and_then(|target| {
                    target.write(|out| run(input, checked, rewrite_sink(Some(path), out)).map(drop))
                })
                .and_then(|changed| {
                    let permissions = fs::metadata(path)
                        .map_err(write::Error::Work)?
                        .permissions();
                    fs::set_permissions(&copy, permissions).map_err(write::Error::Work)?;
                    Ok(changed)
                });
            progress.inc(1);
            Some(
                result
                    .map(|changed| Tally { changed })
                    .map_err(|e| describe_write(Some(path), e)),
            )
        })
        .collect();
    progress.finish_and_clear();
    let rewritten = collect_results(results, counts);
    failures.extend(rewritten.err().into_iter().flatten());
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures)
    }
}

/// `-o DIR` of `rewrite -r`, checked before any work: a directory, or a name that can
/// become one (its parent exists: only DIR itself is made, as `cp -r` and `mkdir` make it).
fn check_tree_target(target: &Path) -> Result<(), Failure> {
    match fs::metadata(target) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(format!(
            "-o {}: exists and is not a directory: with -r, -o names the directory that gets the copy",
            target.display()
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let parent = match target.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            if parent.is_dir() {
                Ok(())
            } else {
                Err(format!(
                    "-o {}: {} is not an existing directory",
                    target.display(),
                    parent.display()
                ))
            }
        }
        Err(e) => Err(format!("-o {}: {e}", target.display())),
    }
}

/// A file that is not a document, copied byte for byte; a symbolic link made anew.
/// Returns whether it was copied (a special file is not, with a warning).
fn copy_other(from: &Path, to: &Path) -> io::Result<bool> {
    let metadata = fs::symlink_metadata(from)?;
    #[cfg(unix)]
    if metadata.file_type().is_symlink() {
        let target = fs::read_link(from)?;
        if fs::symlink_metadata(to).is_ok() {
            fs::remove_file(to)?;
        }
        std::os::unix::fs::symlink(target, to)?;
        return Ok(true);
    }
    if metadata.is_file() {
        fs::copy(from, to)?;
        Ok(true)
    } else {
        output::warn(
            &from.display().to_string(),
            &"not a regular file or a symbolic link: not copied",
        );
        Ok(false)
    }
}

/// Runs one input through the library's pipeline into `sink`, with its retrieval URL:
/// `--url` (per file under -r), else what the saving tool left (the library looks),
/// else none, with a warning if relative links stay relative.
fn run<S: CliSink>(input: &Input, checked: &Checked, mut sink: S) -> io::Result<Tally> {
    let path = input.path.as_deref();
    let mut options = checked.options.clone().with_format(input.format);
    if let Some(url) = &input.url {
        options = options.with_base(url.clone());
    }
    if checked.options.keep_local() && path.is_none() {
        output::warn(
            sink.label(),
            &"--keep-local: standard input has no place on disk: no reference is kept local",
        );
    }
    if sink.wants_links() && path.is_some_and(output::is_not_utf8) {
        output::warn(
            sink.label(),
            &"the file's name is not UTF-8: \"file\" writes each byte of it that is not as \\xNN",
        );
    }
    let source = match path {
        Some(path) => pipeline::Input::File(path),
        None => pipeline::Input::Reader(Box::new(io::stdin().lock())),
    };
    let summary = pipeline::run(source, &options, &mut sink).map_err(worded)?;
    if let Some(error) = sink.take_error() {
        return Err(error);
    }
    Ok(Tally {
        changed: summary.changed,
    })
}

/// A library error as the CLI words it (the caller adds the file name).
fn worded(error: absolve::Error) -> io::Error {
    match error {
        absolve::Error::Io(error) => error,
        other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
    }
}

/// What one document showed, for the summary of `-r`.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    /// A link resolved to something other than what it said, or the file was written
    /// anew.
    changed: bool,
}

fn describe(input: Option<&Path>, error: io::Error) -> Failure {
    format!("{}: {error}", output::escaped(&output::label(input)))
}

/// A failure of the work names the input; one of the output is worded already.
fn describe_write(input: Option<&Path>, error: write::Error) -> Failure {
    match error {
        write::Error::Work(error) => describe(input, error),
        write::Error::Output(message) => message,
    }
}

/// A problem before any work: a usage error exits 2, a failure 1.
fn fail(problem: Problem) -> ExitCode {
    let (message, code) = match problem {
        Problem::Usage(message) => (message, ExitCode::from(super::USAGE)),
        Problem::Failure(message) => (message, ExitCode::FAILURE),
    };
    stderr!("absolve: {message}");
    code
}

fn finish(result: Result<(), Vec<Failure>>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failures) => {
            for failure in failures {
                stderr!("absolve: {failure}");
            }
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use std::time::Duration;

    #[derive(Parser)]
    struct Command {
        #[command(flatten)]
        input: InputArgs,
    }

    /// An output that panics at its first write: a bug, in a task that writes out.
    struct PanicsOnWrite;

    impl Write for PanicsOnWrite {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            panic!("a bug in a task");
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A task that panics (here writing the first input's lines straight out, as the head
    /// does past a block of them) ends the run with its panic, where the loop waiting for
    /// the inputs in turn waited for it forever.
    #[test]
    fn a_panicking_task_ends_the_run_with_its_panic() {
        let dir = tempfile::tempdir().unwrap();
        let page: String = (0..2000)
            .map(|i| format!("<a href=\"p{i}.html\">x</a>\n"))
            .collect();
        let mut args = vec![
            "absolve".to_owned(),
            "--url".to_owned(),
            "http://h/".to_owned(),
        ];
        for name in ["a.html", "b.html", "c.html"] {
            std::fs::write(dir.path().join(name), &page).unwrap();
            args.push(dir.path().join(name).display().to_string());
        }
        let input = Command::parse_from(args).input;
        let (checked, inputs) = prepare(&input, true).unwrap_or_else(|_| panic!("inputs"));
        let (done, ended) = mpsc::channel();
        std::thread::spawn(move || {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .unwrap();
            let run = std::panic::catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    let mut counts = Counts::default();
                    links_in_parallel(&checked, &inputs.documents, &mut PanicsOnWrite, &mut counts)
                })
            }));
            let _ = done.send(run.is_err());
        });
        let panicked = ended.recv_timeout(Duration::from_secs(60));
        assert_eq!(
            panicked,
            Ok(true),
            "the run did not end with the task's panic"
        );
    }
}
