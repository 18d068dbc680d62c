//! `absolve rewrite` and `absolve links`: one input at a time, through the library.

use super::input::{Checked, Format, InputArgs};
use super::output::{self, CliSink, LinksSink, RewriteSink};
use absolve::format;
use absolve::html::{self, Rewriter};
use absolve::links::Link;
use absolve::mime::{self, Part, Report};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How many bytes are read at a time.
const CHUNK: usize = 64 * 1024;

#[derive(Debug, Args)]
pub struct RewriteArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Write the rewritten input to PATH (one input only).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "PATH",
        conflicts_with = "in_place"
    )]
    output: Option<PathBuf>,
    /// Rewrite each FILE in place, through a temporary file and an atomic rename.
    #[arg(short = 'i', long = "in-place")]
    in_place: bool,
}

#[derive(Debug, Args)]
pub struct LinksArgs {
    #[command(flatten)]
    input: InputArgs,
}

/// An error about one input, worded for the user.
type Failure = String;

/// `absolve rewrite`.
pub fn rewrite(args: RewriteArgs) -> ExitCode {
    let (checked, inputs) = match prepare(&args.input) {
        Ok(prepared) => prepared,
        Err(message) => return fail(&message),
    };
    if args.output.is_some() && inputs.len() != 1 {
        return fail("-o takes exactly one input");
    }
    if args.in_place && inputs.iter().any(Option::is_none) {
        return fail("-i needs files, not standard input");
    }
    let result = if args.in_place {
        rewrite_in_place(&checked, &inputs)
    } else if let Some(path) = &args.output {
        let input = inputs[0].as_deref();
        output::write_atomically(path, |out| run(input, &checked, rewrite_sink(input, out)))
            .map_err(|e| vec![describe(input, e)])
    } else {
        rewrite_to_stdout(&checked, &inputs)
    };
    finish(result)
}

/// `absolve links`.
pub fn links(args: LinksArgs) -> ExitCode {
    let (checked, inputs) = match prepare(&args.input) {
        Ok(prepared) => prepared,
        Err(message) => return fail(&message),
    };
    let stdout = io::stdout().lock();
    let mut out = io::BufWriter::new(stdout);
    let mut failures = Vec::new();
    for input in &inputs {
        let label = output::label(input.as_deref());
        let sink = LinksSink {
            out: &mut out,
            label: &label,
            message: None,
            part: None,
            error: None,
        };
        if let Err(error) = run(input.as_deref(), &checked, sink) {
            if error.kind() == io::ErrorKind::BrokenPipe {
                return ExitCode::SUCCESS;
            }
            failures.push(describe(input.as_deref(), error));
        }
    }
    let flushed = out.flush();
    finish(if failures.is_empty() {
        flushed.map_err(|e| vec![e.to_string()])
    } else {
        Err(failures)
    })
}

/// Checks the options and that every input file can be opened, before anything is written.
fn prepare(args: &InputArgs) -> Result<(Checked, Vec<Option<PathBuf>>), Failure> {
    let checked = args.check()?;
    let inputs = args.inputs()?;
    for path in inputs.iter().flatten() {
        File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok((checked, inputs))
}

fn rewrite_sink<W: Write>(input: Option<&Path>, out: W) -> RewriteSink<W> {
    RewriteSink {
        out,
        label: output::label(input),
    }
}

fn rewrite_to_stdout(checked: &Checked, inputs: &[Option<PathBuf>]) -> Result<(), Vec<Failure>> {
    let stdout = io::stdout().lock();
    let mut out = io::BufWriter::with_capacity(CHUNK, stdout);
    let mut failures = Vec::new();
    for input in inputs {
        if let Err(error) = run(
            input.as_deref(),
            checked,
            rewrite_sink(input.as_deref(), &mut out),
        ) {
            if error.kind() == io::ErrorKind::BrokenPipe {
                return Ok(());
            }
            failures.push(describe(input.as_deref(), error));
        }
    }
    out.flush().map_err(|e| vec![e.to_string()])?;
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures)
    }
}

/// Each file through a temporary file and an atomic rename, files in parallel, with a
/// progress bar when standard error is a terminal.
fn rewrite_in_place(checked: &Checked, inputs: &[Option<PathBuf>]) -> Result<(), Vec<Failure>> {
    let progress = ProgressBar::new(inputs.len() as u64);
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let failures: Vec<Failure> = inputs
        .par_iter()
        .flatten()
        .filter_map(|path| {
            let result = output::write_atomically(path, |out| {
                run(Some(path), checked, rewrite_sink(Some(path), out))
            });
            progress.inc(1);
            result.err().map(|e| describe(Some(path), e))
        })
        .collect();
    progress.finish_and_clear();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures)
    }
}

/// Runs one input through the library into `sink`, by its format.
fn run<S: CliSink>(input: Option<&Path>, checked: &Checked, sink: S) -> io::Result<()> {
    let mut reader: Box<dyn Read> = match input {
        Some(path) => Box::new(File::open(path)?),
        None => Box::new(io::stdin().lock()),
    };
    let head = read_head(&mut reader)?;
    let format = match checked.format {
        Format::Auto => format::detect(&head),
        Format::Html => format::Format::Html,
        Format::Mime => format::Format::Mime,
        Format::Mbox => format::Format::Mbox,
        Format::Warc => format::Format::Warc,
    };
    match format {
        format::Format::Html => run_html(input, checked, &head, reader, sink),
        format::Format::Mime => run_message(checked, &head, reader, sink),
        format::Format::Mbox => run_mbox(checked, &head, reader, sink),
        format::Format::Warc => super::warc::run(checked, &head, reader, sink),
    }
}

/// The first bytes of the input, for telling formats apart.
fn read_head(reader: &mut dyn Read) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(CHUNK);
    reader.take(CHUNK as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// An HTML document. A file larger than the base lookahead is looked at first: with no
/// `<base` in its bytes its base is the outer one; otherwise it is scanned for its
/// `<base href>`. Either way nothing is held back while rewriting it.
fn run_html<S: CliSink>(
    input: Option<&Path>,
    checked: &Checked,
    head: &[u8],
    reader: Box<dyn Read>,
    sink: S,
) -> io::Result<()> {
    let options = checked.options.clone();
    let outer = checked.outer.clone();
    let large_file = match input {
        Some(path) => std::fs::metadata(path)?.len() > options.base_lookahead as u64,
        None => false,
    };
    let mut rewriter = match input.filter(|_| large_file) {
        Some(path) => {
            let document_base = if file_may_have_base_element(path)? {
                html::scan_base(File::open(path)?, &outer, &options)?
            } else {
                outer.clone()
            };
            Rewriter::with_document_base(outer, document_base, options, sink)
        }
        None => Rewriter::new(outer, options, sink),
    };
    rewriter.write(head)?;
    copy_chunks(reader, |chunk| rewriter.write(chunk))?;
    rewriter.end().map(drop)
}

/// [`html::may_have_base_element`] over a file, read in chunks that overlap by the four
/// bytes a `<base` could straddle.
fn file_may_have_base_element(path: &Path) -> io::Result<bool> {
    let mut file = File::open(path)?;
    let mut buf = vec![0; CHUNK + 4];
    let mut kept = 0;
    loop {
        let n = file.read(&mut buf[kept..])?;
        if n == 0 {
            return Ok(false);
        }
        let filled = kept + n;
        if html::may_have_base_element(&buf[..filled]) {
            return Ok(true);
        }
        kept = filled.min(4);
        buf.copy_within(filled - kept..filled, 0);
    }
}

/// One MIME message (or MHTML page), read whole: memory is bounded by the message.
fn run_message<S: CliSink>(
    checked: &Checked,
    head: &[u8],
    mut reader: Box<dyn Read>,
    mut sink: S,
) -> io::Result<()> {
    let mut message = head.to_vec();
    reader.read_to_end(&mut message)?;
    let rewritten = rewrite_one_message(checked, &message, 1, &mut sink);
    sink.output(&rewritten)
}

/// An mbox archive, one message at a time; separator lines are written as they were.
fn run_mbox<S: CliSink>(
    checked: &Checked,
    head: &[u8],
    reader: Box<dyn Read>,
    mut sink: S,
) -> io::Result<()> {
    let archive = io::BufReader::with_capacity(CHUNK, head.chain(reader));
    for (index, entry) in mime::mbox::Messages::new(archive).enumerate() {
        let entry = entry?;
        sink.output(&entry.separator)?;
        if entry.separator.is_empty() {
            // Bytes before the first separator line are not a message: kept as they are.
            sink.output(&entry.message)?;
            continue;
        }
        let rewritten = rewrite_one_message(checked, &entry.message, index + 1, &mut sink);
        sink.output(&mime::mbox::update_content_length(
            &entry.message,
            rewritten,
        ))?;
    }
    Ok(())
}

/// Rewrites one message, its links and warnings reported with its number and parts.
fn rewrite_one_message<S: CliSink>(
    checked: &Checked,
    message: &[u8],
    number: usize,
    sink: &mut S,
) -> Vec<u8> {
    let mut report = MessageReport { sink, number };
    mime::rewrite_message(message, &checked.outer, &checked.options, &mut report)
}

/// Passes a message's reports to the CLI sink, located by message number and part.
struct MessageReport<'a, S: CliSink> {
    sink: &'a mut S,
    number: usize,
}

impl<S: CliSink> Report for MessageReport<'_, S> {
    fn wants_links(&self) -> bool {
        self.sink.wants_links()
    }
    fn link(&mut self, part: &Part, link: &Link) {
        self.sink.locate(Some(self.number), Some(&part.path));
        self.sink.link(link);
    }
    fn warning(&mut self, warning: mime::Warning) {
        output::warn(
            &format!("{} message {}", self.sink.label(), self.number),
            &warning,
        );
    }
}

/// Reads `reader` to the end in chunks.
fn copy_chunks(
    mut reader: impl Read,
    mut write: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut buf = vec![0; CHUNK];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => write(&buf[..n])?,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

fn describe(input: Option<&Path>, error: io::Error) -> Failure {
    format!("{}: {error}", output::label(input))
}

fn fail(message: &str) -> ExitCode {
    eprintln!("absolve: {message}");
    ExitCode::FAILURE
}

fn finish(result: Result<(), Vec<Failure>>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failures) => {
            for failure in failures {
                eprintln!("absolve: {failure}");
            }
            ExitCode::FAILURE
        }
    }
}
