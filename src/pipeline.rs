//! The one driver every face calls (the CLI, [`document`](crate::document), Python):
//! bytes in, through a container, to one function per document kind, results out to a
//! [`Sink`].
//!
//! ```text
//! Input ──► format (told by content, or given) ──► container ──► document ──► Sink
//!                                                   mbox, message    html, css
//!                                                   warc
//! ```
//!
//! - [`run`] reads the input, tells its format ([`format::detect`]) unless one is
//!   given, finds the retrieval URL (RFC 1808 §3.3: [`Options::with_url`], else a saved
//!   page's marker, see [`retrieval`]), and hands the input to its container;
//! - a container finds the documents inside it and the base layer it adds (§3.2): an
//!   mbox its messages, a message its parts ([`mime`]), a WARC file its records' HTTP
//!   payloads ([`warc`]);
//! - each document goes through `document`, one function per kind: HTML (the
//!   streaming rewriter, §3.1 `<base href>`), CSS (CSS Syntax §3.2 for its charset, in
//!   every container alike).
//!
//! A new container is one module and one arm in [`run`]; a new kind of document, one
//! module and one arm in `document`.
//!
//! ```
//! use absolve::pipeline::{self, Input};
//! use absolve::{Collected, Options};
//!
//! let message = b"Content-Location: http://h/d/p.html\r\nContent-Type: text/html\r\n\r\n<a href=x>";
//! let mut sink = Collected::default();
//! let summary = pipeline::run(Input::Bytes(message), &Options::new(), &mut sink)?;
//! assert_eq!(summary.format, absolve::format::Format::Mime);
//! assert!(sink.output.ends_with(b"<a href=http://h/d/x>"));
//! let link = &sink.links[0];
//! assert_eq!((link.location.message, link.location.part.as_deref()), (Some(1), Some("1")));
//! # Ok::<(), absolve::Error>(())
//! ```

use crate::base::{Base, BaseSource};
use crate::compress::{Compression, Decoder, Encoder};
use crate::format::{self, Format};
use crate::html::emit::CssIn;
use crate::html::{self, Rewriter};
use crate::links::{Link, LinkRef};
use crate::options::Options;
use crate::sink::Sink;
use crate::sink::SinkWriter;
use crate::url::has_scheme;
use crate::wacz::Wacz;
use crate::warning::{Problem, Warning};
use crate::{css, mime, retrieval, warc};
use encoding_rs::Encoding;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many bytes are read at a time, and how many of the start tell the format.
const CHUNK: usize = 64 * 1024;

/// The most bytes an in-memory HTML document reserves ahead for its held bytes.
const RESERVE_LIMIT: usize = 8 << 20;

/// Where an input's bytes come from.
///
/// ```
/// use absolve::pipeline::Input;
///
/// let from_memory = Input::Bytes(b"<a href=x>");
/// let from_a_pipe = Input::Reader(Box::new(std::io::empty()));
/// let from_disk = Input::File(std::path::Path::new("page.html"));
/// # let _ = (from_memory, from_a_pipe, from_disk);
/// ```
#[non_exhaustive]
pub enum Input<'a> {
    /// A whole input in memory: an HTML `<base href>` is found wherever it is.
    Bytes(&'a [u8]),
    /// A stream (standard input, a socket): read once, in chunks; an HTML page's output
    /// is held back until its `<base href>` is known, up to
    /// [`html::Options::base_lookahead`] bytes.
    Reader(Box<dyn Read + 'a>),
    /// A file: read in chunks (a large HTML page is read twice, first for its
    /// `<base href>`, so that nothing is held back); a saved page's extended attribute
    /// can give its URL, and [`Options::with_keep_local`] can find the files beside it.
    File(&'a Path),
}

/// What [`run`] found: the format the input was read as, and whether anything changed.
///
/// ```
/// use absolve::pipeline::{self, Input};
/// use absolve::{Collected, Options};
///
/// let options = Options::new().with_url("http://h/")?;
/// let summary = pipeline::run(Input::Bytes(b"<a href=x>"), &options, &mut Collected::default())?;
/// assert_eq!(summary.format, absolve::format::Format::Html);
/// assert!(summary.changed);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Summary {
    /// The format given, or the one told by content.
    pub format: Format,
    /// Whether a link resolved to something other than what it said (as far as links
    /// were built: always when the sink wants links), or a WARC record was rewritten.
    pub changed: bool,
    /// How many messages a mail folder (mbox) held: the number of its last; 0 for the
    /// other formats.
    pub messages: usize,
}

/// What stops the reading of an input: an input or output error, a WARC file that
/// cannot be read on, or an input that cannot be read at all (a tar archive, a 7z or RAR
/// archive: [`format::unreadable`]). Damage inside a document is a [`Warning`], never an error.
///
/// ```
/// use absolve::{document, format::Format, Error, Options};
///
/// let options = Options::new().with_format(Some(Format::Warc));
/// let error = document::links(b"<p>not a WARC", &options).unwrap_err();
/// assert!(matches!(error, Error::Warc(absolve::warc::Error::NotWarc { .. })));
/// assert!(error.to_string().starts_with("not a WARC file: "));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading the input or writing the output failed.
    #[error(transparent)]
    Io(io::Error),
    /// The WARC file cannot be read on: it is not a WARC file, or its gzip data is
    /// damaged.
    #[error(transparent)]
    Warc(warc::Error),
    /// A ZIP file that is not a readable WACZ.
    #[error(transparent)]
    Wacz(crate::wacz::WaczError),
    /// An input without a format given that absolve does not read (a tar, 7z or RAR
    /// archive, a property list that is no web archive): refused, not read as HTML.
    #[error(transparent)]
    Unreadable(format::Unreadable),
    /// A WACZ is listed, never rewritten.
    #[error(
        "a WACZ is not rewritten: it is an archive's evidence (signed or hashed); rewrite the WARC files inside it instead (unzip it, then rewrite archive/*.warc.gz)"
    )]
    WaczNotRewritten,
    /// A property list that is not a readable Safari web archive.
    #[error(transparent)]
    WebArchive(crate::webarchive::Error),
    /// A WACZ read from a stream: a ZIP is read from its end.
    #[error(
        "a WACZ is read from a file, not a stream (a ZIP's directory is at its end): save it to a file first"
    )]
    WaczNotSeekable,
}

impl From<io::Error> for Error {
    fn from(error: io::Error) -> Self {
        Error::Io(error)
    }
}

impl From<warc::Error> for Error {
    fn from(error: warc::Error) -> Self {
        match error {
            warc::Error::Io(error) => Error::Io(error),
            other => Error::Warc(other),
        }
    }
}

/// Reads `input` as `options` say, every link made absolute (when the sink wants the
/// output) and listed (when it wants links), into `sink`.
///
/// The base of each document, innermost first (RFC 1808 §3): its own (`<base href>`, a
/// part's `Content-Base`...), its container's (§3.2), the retrieval URL (§3.3: the
/// [`Options::with_url`] one, else a saved page's marker; a WARC record's
/// `WARC-Target-URI` instead), none (§3.4, with [`Problem::NoBaseUrl`] when a relative
/// reference is left as it is).
///
/// ```
/// use absolve::pipeline::{self, Input};
/// use absolve::{Collected, Options, Problem};
///
/// let mut sink = Collected::default();
/// pipeline::run(Input::Bytes(b"<a href=x>"), &Options::new(), &mut sink)?;
/// assert_eq!(sink.output, b"<a href=x>");
/// assert_eq!(sink.warnings[0].problem, Problem::NoBaseUrl);
/// # Ok::<(), absolve::Error>(())
/// ```
pub fn run(input: Input<'_>, options: &Options, sink: &mut dyn Sink) -> Result<Summary, Error> {
    let (path, memory, mut reader): (Option<&Path>, Option<&[u8]>, Box<dyn Read + '_>) = match input
    {
        Input::Bytes(bytes) => (None, Some(bytes), Box::new(io::empty())),
        Input::Reader(reader) => (None, None, reader),
        Input::File(path) => (Some(path), None, Box::new(File::open(path)?)),
    };
    let head = match memory {
        Some(bytes) => bytes,
        None => &read_head(&mut reader)?,
    };
    let source = Source {
        head,
        rest: reader,
        whole: memory.is_some(),
        path,
        file: path,
    };
    run_source(source, 0, options, sink)
}

/// How many layers of compression are undone, one inside the other (a `.warc.gz` gzipped
/// again for the transfer, a `.tar.gz.gz`): real inputs have one or two, and each layer
/// holds its decoder's and encoder's buffers (up to about 100 MiB for xz), so a deeper
/// one is passed through as it is, with a warning.
pub const MAX_COMPRESSION_LAYERS: usize = 8;

/// [`run`] once the input's first bytes are read: its compression undone (the `layers`
/// around it already undone), its format told, its container or document run.
fn run_source(
    source: Source<'_>,
    layers: usize,
    options: &Options,
    sink: &mut dyn Sink,
) -> Result<Summary, Error> {
    let head = source.head;
    let name = source.file.or(source.path);
    let by_name = webarchive_by_name(name);
    if let (None, None, Some(unreadable)) = (options.format, by_name, format::unreadable(head)) {
        return Err(Error::Unreadable(unreadable));
    }
    if let (None, None, Some(kind)) = (options.format, by_name, format::binary_kind(head)) {
        return not_a_document(kind.into(), source, sink);
    }
    let format = options
        .format
        .or(by_name)
        .unwrap_or_else(|| damaged_warc_by_name(head, name).unwrap_or_else(|| detect(head)));
    // A gzipped WARC is read by the WARC container, which keeps one member per record.
    let compression = match Compression::detect(head) {
        Some(compression) => Some(compression),
        // The name is the file's: it speaks of the outer layer only.
        None if layers == 0 => named_compression(head, name, sink),
        None => None,
    };
    if let Some(compression) = compression
        && !(format == Format::Warc && compression == Compression::Gzip)
    {
        if layers >= MAX_COMPRESSION_LAYERS {
            return too_many_layers(compression, source, format, sink);
        }
        return compressed(compression, source, layers, options, sink);
    }
    if options.format.is_none()
        && format == Format::Html
        && let Some(kind) = no_document_told_html(head, name)
    {
        return not_a_document(kind, source, sink);
    }
    warn_on_forced_format(options.format, head, sink);
    warn_on_long_prolog(options.format, format, head, sink);
    let path = source.path;
    match format {
        Format::Warc => {
            // Each record carries its own bases (§3.1-§3.3): no retrieval URL is looked for.
            if options.url.url().is_some() {
                sink.warning(Warning::new(Problem::UrlUnused));
            }
            let changed = warc_file(source.reader(), options, sink)?;
            return Ok(Summary {
                format,
                changed,
                messages: 0,
            });
        }
        Format::Wacz => {
            let changed = wacz_file(source, options, sink)?;
            return Ok(Summary {
                format,
                changed,
                messages: 0,
            });
        }
        Format::WebArchive => {
            // Each resource carries its own URL (§3.3): no retrieval URL is looked for.
            let changed = webarchive_file(source, options, sink)?;
            return Ok(Summary {
                format,
                changed,
                messages: 0,
            });
        }
        _ => {}
    }
    let (outer, from_marker) = retrieval_base(options, path, head, format)?;
    let outer = in_standard(outer, options.standard());
    let local_hits = Arc::new(AtomicUsize::new(0));
    let mut html = options.html.clone();
    if let Some(path) = path.filter(|_| options.keep_local || from_marker) {
        let directory = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        html.keep_reference = Some(local_file_rule(
            directory,
            options.keep_local,
            Arc::clone(&local_hits),
        ));
    }
    let no_base = outer.url().is_none();
    let marker = outer.source();
    let mut messages = 0;
    let mut tally = Tally {
        inner: sink,
        changed: false,
        relative_left: false,
        watch: no_base,
    };
    match format {
        Format::Html => document(Kind::Html, source.into_body(), &outer, &html, &mut tally)?,
        Format::Css => held_whole(
            source,
            Held::Stylesheet,
            options.max_held,
            &mut tally,
            |css, sink| document(Kind::Css, Body::Memory(css), &outer, &html, sink),
        )?,
        Format::Feed | Format::Svg => {
            document(Kind::Xml, source.into_body(), &outer, &html, &mut tally)?
        }
        Format::Mime => held_whole(
            source,
            Held::Message,
            options.max_held,
            &mut tally,
            |file, sink| message_file(file, &outer, &html, sink),
        )?,
        Format::Mbox => messages = mbox(source, options.max_held, &outer, &html, &mut tally)?,
        Format::Warc | Format::Wacz | Format::WebArchive => {
            unreachable!("archives are read above")
        }
    }
    let Tally {
        inner: sink,
        changed,
        relative_left,
        ..
    } = tally;
    if no_base && relative_left {
        let problem = match path.and_then(saved_page_of) {
            Some(page) => Problem::SavedPageFile { page },
            None => Problem::NoBaseUrl,
        };
        sink.warning(Warning::new(problem));
    }
    let hits = local_hits.load(Ordering::Relaxed);
    if from_marker && !options.keep_local && hits > 0 {
        let problem = Problem::LocalFilesResolved {
            count: hits,
            marker,
        };
        sink.warning(Warning::new(problem));
    }
    Ok(Summary {
        format,
        changed,
        messages,
    })
}

/// A compressed input (gzip, bzip2, xz, zstd: [`compress`]): the decompressed bytes run as
/// any input, the output compressed again the same way. Damage partway ends the
/// decompressed stream: what came before it is processed and written, and the compressed
/// bytes from the damage on are copied as they are, with a warning that says where; in a
/// mail folder or a WARC file, only up to the next member that decodes, read on from
/// there ([`each_stream`]).
fn compressed(
    compression: Compression,
    source: Source<'_>,
    layers: usize,
    options: &Options,
    sink: &mut dyn Sink,
) -> Result<Summary, Error> {
    if let (false, Some(file)) = (source.whole, source.file) {
        return compressed_file(compression, file, source.path, options, sink);
    }
    let path = source.path;
    let input = io::BufReader::with_capacity(CHUNK, source.reader());
    let decoder = Decoder::new(compression, input);
    let streams = Streams {
        compression,
        path,
        layers: layers + 1,
    };
    each_stream(
        streams,
        decoder,
        options,
        sink,
        |mut decoder, inner, options, sink| {
            let summary = decompressed(compression, &mut decoder, inner, options, sink)?;
            Ok((summary, decoder))
        },
    )
}

/// RFC 8878 §3.1.2, LZ4 Frame Format §5: a zstd or LZ4 stream's skippable frames are
/// kept for the output, when there is one (`links` passes them over).
fn kept_skippable_frames(
    compression: Compression,
    sink: &dyn Sink,
) -> Option<crate::compress::SkippableFrames> {
    let skippable = matches!(compression, Compression::Zstd | Compression::Lz4);
    (skippable && sink.wants_output()).then(Default::default)
}

/// Where decompressed bytes are from: the file's path, how many layers of compression
/// are around them, the skippable frames kept for the encoder.
struct Inner<'a> {
    path: Option<&'a Path>,
    layers: usize,
    skippable: Option<crate::compress::SkippableFrames>,
}

/// What [`each_stream`] reads: a compression, the file's path, how many layers of
/// compression are around its decompressed bytes.
struct Streams<'a> {
    compression: Compression,
    path: Option<&'a Path>,
    layers: usize,
}

/// The formats read on after damage in their compression, from the next member that
/// decodes: a mail folder and a WARC file are sequences of messages (RFC 4155: each from
/// its `From_` line) and records (WARC/1.1 §4: each from its `WARC/` line), and the ones
/// after the damage are whole. A document cut by damage (HTML, CSS, a feed, a message)
/// is not: its rest is no document.
fn read_on_after_damage(format: Format) -> bool {
    matches!(format, Format::Mbox | Format::Warc)
}

/// The format [`read_on_after_damage`] a compressed file's name says (`folder.mbox.xz`,
/// `crawl.warc.zst`), if any.
fn sequence_by_name(path: Option<&Path>) -> Option<Format> {
    let format = format::from_extension(format::extension_of(path?)?)?;
    read_on_after_damage(format).then_some(format)
}

/// The decompressed stream `run` (processed as any input), then what follows it: its
/// damage said, and the compressed bytes from the damage on copied as they are. In a
/// format [`read_on_after_damage`], only those up to the next member that decodes
/// ([`Decoder::resume`]): `run` is given the stream from there, read as the same format,
/// the messages numbered on, and so on to the end.
fn each_stream<R: io::BufRead>(
    streams: Streams<'_>,
    mut decoder: Decoder<R>,
    options: &Options,
    sink: &mut dyn Sink,
    mut run: impl FnMut(
        Decoder<R>,
        Inner<'_>,
        &Options,
        &mut dyn Sink,
    ) -> Result<(Summary, Decoder<R>), Error>,
) -> Result<Summary, Error> {
    let options = &options.for_the_streams_of(&mut decoder);
    let mut numbered = NumberedOn {
        inner: sink,
        first: 0,
        read_on: false,
    };
    // The summary of the first stream that gave bytes.
    let mut first: Option<Summary> = None;
    loop {
        let skippable = kept_skippable_frames(streams.compression, numbered.inner);
        if let Some(frames) = &skippable {
            decoder.keep_skippable_frames(frames.clone());
        }
        let inner = Inner {
            path: streams.path,
            layers: streams.layers,
            skippable: skippable.clone(),
        };
        // A stream read on is read as the first one was, or as the file's name says when
        // the first gave nothing: it can start inside a message or record (a bzip2 or xz
        // block), which its content does not tell.
        let read_on_format = first
            .map(|first| first.format)
            .or_else(|| {
                numbered
                    .read_on
                    .then(|| sequence_by_name(streams.path))
                    .flatten()
            })
            .filter(|_| options.format.is_none());
        let read_on_options = numbered.read_on.then(|| Options {
            format: read_on_format.or(options.format),
            read_on: true,
            ..options.clone()
        });
        let read_on_options = read_on_options.as_ref().unwrap_or(options);
        let (summary, back) = run(decoder, inner, read_on_options, &mut numbered)?;
        decoder = back;
        numbered.first += summary.messages;
        let damage = decoder.damage().cloned();
        // Damage before any byte: the stream after it is the file's start, its format
        // told by its content.
        let gave_nothing = damage.is_some() && decoder.gave_nothing();
        let summary = match &mut first {
            Some(first) => {
                first.changed |= summary.changed;
                first.messages = numbered.first;
                *first
            }
            None if gave_nothing => summary,
            None => *first.insert(summary),
        };
        let sink = &mut *numbered.inner;
        let Some(damage) = damage else {
            if decoder.gave_nothing() && sink.wants_output() {
                // A whole stream of no content (an empty file, compressed): written as one.
                empty_stream(streams.compression, skippable.clone(), sink)?;
            }
            after_the_stream(decoder, None, skippable.as_ref(), sink)?;
            return Ok(summary);
        };
        let damage = match gave_nothing || read_on_after_damage(summary.format) {
            true => decoder
                .damage_read_on(&mut |bytes| match sink.wants_output() {
                    true => sink.output(bytes),
                    false => Ok(()),
                })?
                .unwrap_or(damage),
            false => damage,
        };
        if damage.resumed_at.is_none() {
            after_the_stream(decoder, Some(damage), skippable.as_ref(), sink)?;
            return Ok(summary);
        }
        stream_warnings(&decoder, Some(damage), skippable.as_ref(), sink);
        numbered.read_on = true;
    }
}

/// A compressed stream of no content, its kept skippable frames in it, written to `sink`.
fn empty_stream(
    compression: Compression,
    skippable: Option<crate::compress::SkippableFrames>,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let shared = RefCell::new(sink);
    encoder_keeping(compression, skippable, SinkWriter(&shared))?
        .finish()
        .map(drop)
}

/// An encoder of `compression` into `out` that writes back the zstd skippable `frames`
/// kept, if any ([`Encoder::keep_skippable_frames`]).
fn encoder_keeping<W: Write>(
    compression: Compression,
    frames: Option<crate::compress::SkippableFrames>,
    out: W,
) -> io::Result<Encoder<W>> {
    let mut encoder = Encoder::new(compression, out)?;
    if let Some(frames) = frames {
        encoder.keep_skippable_frames(frames);
    }
    Ok(encoder)
}

/// A sink for the streams of a compressed input read on after damage ([`each_stream`]):
/// the messages of a stream read on are numbered after those before it, and its format
/// is not said to mismatch (it starts inside the message or record the damage cut).
struct NumberedOn<'s> {
    inner: &'s mut dyn Sink,
    /// How many messages came before this stream.
    first: usize,
    /// Whether this stream was read on after damage.
    read_on: bool,
}

impl NumberedOn<'_> {
    fn number(&mut self, location: &mut crate::links::Location) {
        if let Some(message) = &mut location.message {
            *message += self.first;
        }
    }
}

impl Sink for NumberedOn<'_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner.output(bytes)
    }
    fn link(&mut self, mut link: Link) {
        self.number(&mut link.location);
        self.inner.link(link);
    }
    fn warning(&mut self, mut warning: Warning) {
        if self.read_on && matches!(warning.problem, Problem::FormatMismatch { .. }) {
            return;
        }
        self.number(&mut warning.location);
        self.inner.warning(warning);
    }
    fn wants_output(&self) -> bool {
        self.inner.wants_output()
    }
    fn wants_links(&self) -> bool {
        self.inner.wants_links()
    }
}

/// A compressed file: decompressed on a thread of its own, a few chunks ahead of the
/// reading (as `zcat file | absolve` would be, without the pipe), so that both cores
/// work.
fn compressed_file(
    compression: Compression,
    file: &Path,
    path: Option<&Path>,
    options: &Options,
    sink: &mut dyn Sink,
) -> Result<Summary, Error> {
    let input = io::BufReader::with_capacity(CHUNK, File::open(file)?);
    let decoder = Decoder::new(compression, input);
    let streams = Streams {
        compression,
        path,
        layers: 1,
    };
    each_stream(
        streams,
        decoder,
        options,
        sink,
        |decoder, inner, options, sink| {
            std::thread::scope(|scope| {
                let (sender, receiver) = std::sync::mpsc::sync_channel(CHUNKS_AHEAD);
                let worker = scope.spawn(move || decode_ahead(decoder, sender));
                // The reader (and its receiver) is dropped when this returns: the worker then
                // stops at its next chunk, however this ended.
                let result = decompressed(compression, Chunks::new(receiver), inner, options, sink);
                let decoder = worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                Ok((result?, decoder))
            })
        },
    )
}

/// How many decompressed chunks the decoding thread may have ready.
const CHUNKS_AHEAD: usize = 4;

/// Decompresses into `sender`, chunk by chunk, until the end, an error, or the reader is
/// gone; gives the decoder back (its damage, its rest).
fn decode_ahead<R: io::BufRead>(
    mut decoder: Decoder<R>,
    sender: std::sync::mpsc::SyncSender<io::Result<Vec<u8>>>,
) -> Decoder<R> {
    loop {
        let mut chunk = vec![0; 2 * CHUNK];
        let sent = match decoder.read(&mut chunk) {
            Ok(0) => return decoder,
            Ok(n) => {
                chunk.truncate(n);
                sender.send(Ok(chunk))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = sender.send(Err(e));
                return decoder;
            }
        };
        if sent.is_err() {
            return decoder;
        }
    }
}

/// The chunks another thread decompresses, as one reader.
struct Chunks {
    receiver: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Chunks {
    fn new(receiver: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>) -> Self {
        Chunks {
            receiver,
            chunk: Vec::new(),
            at: 0,
        }
    }
}

impl Read for Chunks {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.receiver.recv() {
                Ok(chunk) => {
                    self.chunk = chunk?;
                    self.at = 0;
                }
                // The decoder is done.
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The decompressed bytes run as any input (inside `layers` layers of compression), the
/// output compressed again the same way.
fn decompressed(
    compression: Compression,
    mut input: impl Read,
    inner: Inner<'_>,
    options: &Options,
    sink: &mut dyn Sink,
) -> Result<Summary, Error> {
    let Inner {
        path,
        layers,
        skippable,
    } = inner;
    let wants_output = sink.wants_output();
    let shared = RefCell::new(sink);
    let mut compressing = Compressing {
        shared: &shared,
        encoder: None,
        compression: wants_output.then_some(compression),
        skippable,
    };
    let head = read_head(&mut input)?;
    let inner = Source {
        head: &head,
        rest: Box::new(input),
        whole: false,
        path,
        // The file's bytes are compressed: it is not read again for a `<base href>`.
        file: None,
    };
    let summary = run_source(inner, layers, options, &mut compressing)?;
    if let Some(encoder) = compressing.encoder.take() {
        encoder.finish()?;
    }
    Ok(summary)
}

/// What an input [`detect`] tells HTML (its content names no other format) is when it
/// is no document: JSON ([`format::is_json`]), or a file named as a script, data or text
/// ([`format::is_not_a_document`]: `app.js`, `notes.txt`, `sitemap.xml`), which a tree's
/// walk skips for its name and a file given alone was read as HTML for.
fn no_document_told_html(head: &[u8], name: Option<&Path>) -> Option<Cow<'static, str>> {
    if format::is_json(head) {
        return Some("JSON data".into());
    }
    let extension = format::extension_of(name?)?;
    // A head that is all XML prolog may be a feed's or an SVG's whose root comes later:
    // read as HTML with the warning that says so ([`warn_on_long_prolog`]).
    let named = format::is_not_a_document(extension) && !crate::feed::ends_in_prolog(head);
    named.then(|| format!("a .{} file (by its name)", extension.to_ascii_lowercase()).into())
}

/// An image, a font or a program ([`format::binary_kind`]), or what
/// [`no_document_told_html`] finds, given with no format: said, and passed through as it
/// is (nothing in it is read as HTML).
fn not_a_document(
    kind: Cow<'static, str>,
    source: Source<'_>,
    sink: &mut dyn Sink,
) -> Result<Summary, Error> {
    passed_through(Problem::NotADocument(kind), source, Format::Html, sink)
}

/// An input not read, its `problem` said: its bytes copied as they are.
fn passed_through(
    problem: Problem,
    source: Source<'_>,
    format: Format,
    sink: &mut dyn Sink,
) -> Result<Summary, Error> {
    sink.warning(Warning::new(problem));
    if sink.wants_output() {
        copy_chunks(source.reader(), |bytes| sink.output(bytes))?;
    }
    Ok(Summary {
        format,
        changed: false,
        messages: 0,
    })
}

/// A compressed input inside [`MAX_COMPRESSION_LAYERS`] layers already: not undone but
/// passed through as it is (its bytes are the document's), with a warning.
fn too_many_layers(
    compression: Compression,
    source: Source<'_>,
    format: Format,
    sink: &mut dyn Sink,
) -> Result<Summary, Error> {
    let damage = crate::compress::Damage {
        compressed_offset: 0,
        decompressed_offset: 0,
        reason: crate::compress::DamageReason::TooManyLayers(compression, MAX_COMPRESSION_LAYERS),
        resumed_at: None,
    };
    passed_through(Problem::Compression(damage), source, format, sink)
}

/// After the decompressed stream: its `damage` said (where, what), what became of zstd
/// skippable frames said, and the compressed bytes from the damage on copied as they are.
fn after_the_stream<R: io::BufRead>(
    decoder: Decoder<R>,
    damage: Option<crate::compress::Damage>,
    skippable: Option<&crate::compress::SkippableFrames>,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    stream_warnings(&decoder, damage, skippable, sink);
    if sink.wants_output() {
        let mut rest = decoder.into_rest();
        copy_chunks(&mut rest, |bytes| sink.output(bytes))?;
    }
    Ok(())
}

/// The warnings about a decompressed stream: its `damage`, the zstd skippable frames not
/// kept or moved.
fn stream_warnings<R: io::BufRead>(
    decoder: &Decoder<R>,
    damage: Option<crate::compress::Damage>,
    skippable: Option<&crate::compress::SkippableFrames>,
    sink: &mut dyn Sink,
) {
    if let Some(damage) = damage {
        sink.warning(Warning::new(Problem::Compression(damage)));
    }
    if let Some(not_kept) = decoder.skippable_not_kept() {
        sink.warning(Warning::new(Problem::Compression(not_kept.clone())));
    }
    for note in skippable.map(|frames| frames.notes()).unwrap_or_default() {
        sink.warning(Warning::new(Problem::Compression(note)));
    }
}

/// The decompressed input's results on their way out: output compressed again, links and
/// warnings passed on.
struct Compressing<'a, 's> {
    shared: &'a RefCell<&'s mut dyn Sink>,
    /// The encoder, made at the first byte: a stream that gives none (damaged at its
    /// first byte) writes nothing, not an empty member ([`each_stream`] writes one for a
    /// whole empty stream).
    encoder: Option<Encoder<SinkWriter<'a, 's>>>,
    /// The compression to write, when there is an output.
    compression: Option<Compression>,
    skippable: Option<crate::compress::SkippableFrames>,
}

impl Sink for Compressing<'_, '_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let (None, Some(compression), false) =
            (&self.encoder, self.compression, bytes.is_empty())
        {
            let frames = self.skippable.take();
            self.encoder = Some(encoder_keeping(
                compression,
                frames,
                SinkWriter(self.shared),
            )?);
        }
        match &mut self.encoder {
            Some(encoder) => encoder.write_all(bytes),
            None => self.shared.borrow_mut().output(bytes),
        }
    }
    fn link(&mut self, link: Link) {
        self.shared.borrow_mut().link(link);
    }
    fn warning(&mut self, warning: Warning) {
        self.shared.borrow_mut().warning(warning);
    }
    /// A WARC record's output ended: the member (LZ4 frame) ends with it
    /// ([`Encoder::end_member`]).
    fn record_boundary(&mut self) -> io::Result<()> {
        match &mut self.encoder {
            Some(encoder) => encoder.end_member(),
            None => Ok(()),
        }
    }
    fn wants_output(&self) -> bool {
        self.shared.borrow().wants_output()
    }
    fn wants_links(&self) -> bool {
        self.shared.borrow().wants_links()
    }
}

/// A WACZ (Webrecorder's ZIP of WARC files): the links of each `archive/*.warc(.gz)`
/// member in turn, each link's `file` the member's path ([`Location::file`]). A WACZ is
/// not rewritten: it is an archive's evidence (signed, hashed); its WARC files are.
fn wacz_file(source: Source<'_>, options: &Options, sink: &mut dyn Sink) -> Result<bool, Error> {
    let open = || -> Result<Box<dyn ReadSeek + '_>, Error> {
        match (source.whole, source.file) {
            (true, _) => Ok(Box::new(io::Cursor::new(source.head))),
            (false, Some(path)) => Ok(Box::new(File::open(path)?)),
            (false, None) => Err(Error::WaczNotSeekable),
        }
    };
    if sink.wants_output() {
        // A ZIP that is no WACZ (a zipped site folder) is said to be one, with what to do.
        return Err(match open().map(Wacz::new) {
            Ok(Err(not_wacz @ crate::wacz::WaczError::NotWacz(_))) => Error::Wacz(not_wacz),
            _ => Error::WaczNotRewritten,
        });
    }
    let mut wacz = match Wacz::new(open()?) {
        Ok(wacz) => wacz,
        Err(crate::wacz::WaczError::Io(error)) => return Err(Error::Io(error)),
        // A download cut short loses the directory at the file's end first: the members
        // are found from their local headers.
        Err(crate::wacz::WaczError::Zip(error)) => match Wacz::from_local_headers(open()?) {
            Ok(wacz) => {
                let problem = Problem::WaczWithoutDirectory(error.to_string());
                sink.warning(Warning::new(problem));
                wacz
            }
            Err(crate::wacz::WaczError::Io(error)) => return Err(Error::Io(error)),
            Err(other) => return Err(Error::Wacz(other)),
        },
        Err(other) => return Err(Error::Wacz(other)),
    };
    for member in wacz.unlisted() {
        sink.warning(Warning::new(Problem::WaczUnlisted(member.clone())));
    }
    let mut changed = false;
    let names: Vec<Arc<str>> = wacz.warc_names().map(Arc::from).collect();
    for (number, name) in names.into_iter().enumerate() {
        let mut member_sink = InMember {
            file: name,
            inner: &mut *sink,
        };
        // A member that cannot be read is warned about, and the next one is read.
        let member = match wacz.warc(number) {
            Ok((_, member)) => member,
            Err(error) => {
                let reason = match error {
                    crate::wacz::WaczError::Zip(error) => error.to_string(),
                    other => other.to_string(),
                };
                let damage = crate::wacz::MemberDamage { offset: 0, reason };
                member_sink.warning(Warning::new(Problem::WaczMember(damage)));
                continue;
            }
        };
        let watched = Watched::new(member);
        let state = Rc::clone(&watched.state);
        let member = io::BufReader::with_capacity(CHUNK, watched);
        match warc_file(member, options, &mut member_sink) {
            Ok(member_changed) => changed |= member_changed,
            Err(error) => {
                let damage = member_damage(error, state.get())?;
                member_sink.warning(Warning::new(Problem::WaczMember(damage)));
            }
        }
    }
    Ok(changed)
}

/// A Safari web archive ([`webarchive`](crate::webarchive)), read whole if it is no
/// larger than [`Options::with_max_held`] (else passed through unchanged, or not listed,
/// with a warning, as a message is): the links of its HTML and CSS resources, or the
/// archive written back with them rewritten; whether anything changed.
fn webarchive_file(
    source: Source<'_>,
    options: &Options,
    sink: &mut dyn Sink,
) -> Result<bool, Error> {
    let mut read = Ok(false);
    held_whole(
        source,
        Held::WebArchive,
        options.max_held,
        sink,
        |archive, sink| match crate::webarchive::process(archive, options, sink) {
            Ok(written) => written.map(|changed| read = Ok(changed)),
            Err(error) => {
                read = Err(Error::WebArchive(error));
                Ok(())
            }
        },
    )?;
    read
}

/// A file named `.webarchive` (a compression's extension taken off) is read as a web
/// archive whatever its first bytes are: the keys may come late in a property list
/// some other writer made, and a damaged one (its magic number changed) is refused as
/// one rather than read as HTML (its binary data rewritten as text).
fn webarchive_by_name(name: Option<&Path>) -> Option<Format> {
    format::from_extension(format::extension_of(name?)?)
        .filter(|&format| format == Format::WebArchive)
}

/// What stopped the reading of a WACZ member, if it was the member's data (a damaged
/// or undecodable member, one that is no WARC); any other error (writing the output)
/// is passed on.
fn member_damage(error: Error, read: ReadState) -> Result<crate::wacz::MemberDamage, Error> {
    let damage = |offset, reason| Ok(crate::wacz::MemberDamage { offset, reason });
    match error {
        // Its hint (about --format) does not apply to a member.
        Error::Warc(warc::Error::NotWarc { start, .. }) => {
            damage(0, format!("not a WARC file: it starts with {start:?}"))
        }
        Error::Warc(warc::Error::Gzip { offset, reason }) => damage(
            read.bytes,
            format!("damaged gzip data near byte {offset}: {reason}"),
        ),
        Error::Io(error) | Error::Warc(warc::Error::Io(error)) if read.failed => {
            damage(read.bytes, error.to_string())
        }
        other => Err(other),
    }
}

/// How far a member was read, and whether reading it failed.
#[derive(Debug, Clone, Copy, Default)]
struct ReadState {
    bytes: u64,
    failed: bool,
}

/// A reader that counts its bytes and notes a failure to read, so that an error of the
/// input is told from one of the output.
struct Watched<R> {
    inner: R,
    state: Rc<Cell<ReadState>>,
}

impl<R> Watched<R> {
    fn new(inner: R) -> Self {
        Watched {
            inner,
            state: Rc::default(),
        }
    }
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut state = self.state.get();
        let result = self.inner.read(buf);
        match &result {
            Ok(n) => state.bytes += *n as u64,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => state.failed = true,
        }
        self.state.set(state);
        result
    }
}

/// Something to read a ZIP from.
trait ReadSeek: Read + io::Seek {}
impl<T: Read + io::Seek> ReadSeek for T {}

/// A member's links and warnings, located in it.
struct InMember<'s> {
    file: Arc<str>,
    inner: &'s mut dyn Sink,
}

impl Sink for InMember<'_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner.output(bytes)
    }
    fn link(&mut self, mut link: Link) {
        link.location.file = Some(Arc::clone(&self.file));
        self.inner.link(link);
    }
    fn warning(&mut self, mut warning: Warning) {
        warning.location.file = Some(Arc::clone(&self.file));
        self.inner.warning(warning);
    }
    fn wants_output(&self) -> bool {
        self.inner.wants_output()
    }
    fn wants_links(&self) -> bool {
        self.inner.wants_links()
    }
}

// The head holds as much as a feed's root is looked for in (a prolog up to that size).
const _: () = assert!(CHUNK >= crate::feed::SNIFF_LIMIT);

/// The format of an input none was given for, told by its first bytes.
fn detect(head: &[u8]) -> Format {
    format::detect(&head[..head.len().min(CHUNK)])
}

/// A file named `.warc` or `.warc.gz` whose gzip data cannot be decompressed from its
/// start: its content cannot tell, its name does (a damaged WARC, read with warnings and
/// copied as it is, not a damaged gzip of some other document).
fn damaged_warc_by_name(head: &[u8], name: Option<&Path>) -> Option<Format> {
    let named_warc =
        format::extension_of(name?).and_then(format::from_extension) == Some(Format::Warc);
    let mut start = [0; 5];
    let unreadable = head.starts_with(&[0x1f, 0x8b])
        && flate2::read::GzDecoder::new(head)
            .read_exact(&mut start)
            .is_err();
    (named_warc && (unreadable || magic_damaged(head))).then_some(Format::Warc)
}

/// Whether `head` is a gzip member whose magic number is damaged: with it restored, it
/// decodes up to its end at least (`compress::decodes_with_magic_restored`).
fn magic_damaged(head: &[u8]) -> bool {
    crate::compress::decodes_with_magic_restored(Compression::Gzip, head)
}

/// The compression a file's name says (`.mbox.gz`) when its bytes start with no magic
/// number: if they hold a member of it that decodes further on, its start is damaged, and
/// it is read from that member on; else it is read as it is, with a warning (a file saved
/// decompressed under its compressed name). A gzipped WARC is left to the WARC container.
fn named_compression(head: &[u8], name: Option<&Path>, sink: &mut dyn Sink) -> Option<Compression> {
    let name = name?;
    let compression = format::compression_named(name)?;
    let warc_gzip = compression == Compression::Gzip
        && format::extension_of(name).and_then(format::from_extension) == Some(Format::Warc);
    if warc_gzip {
        // The WARC container reads gzip itself, a damaged magic number too: data that is
        // no gzip at all is said, as for any other compressed name.
        if !head.starts_with(&[0x1f, 0x8b]) && !magic_damaged(head) {
            sink.warning(Warning::new(Problem::NotCompressed(compression)));
        }
        return None;
    }
    if crate::compress::starts_damaged(compression, head) {
        return Some(compression);
    }
    sink.warning(Warning::new(Problem::NotCompressed(compression)));
    None
}

/// Reads `reader` onto `bytes` until it ends or `bytes` holds `most` bytes; the buffer
/// grows by doubling, but never past `most` (no 512 MiB buffer for 256 MiB and a byte).
fn read_up_to(reader: &mut dyn Read, bytes: &mut Vec<u8>, most: u64) -> io::Result<()> {
    let most = usize::try_from(most).unwrap_or(usize::MAX);
    while bytes.len() < most {
        if bytes.len() == bytes.capacity() {
            let grow = bytes.len().max(CHUNK).min(most - bytes.len());
            bytes.reserve_exact(grow);
        }
        let room = (bytes.capacity() - bytes.len()).min(most - bytes.len());
        let n = reader.take(room as u64).read_to_end(bytes)?;
        if n == 0 {
            break;
        }
    }
    Ok(())
}

/// The first bytes of a stream, for telling formats apart.
fn read_head(reader: &mut dyn Read) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(CHUNK);
    reader.take(CHUNK as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// A forced format the content does not look like: said, not silent.
fn warn_on_forced_format(forced: Option<Format>, head: &[u8], sink: &mut dyn Sink) {
    let detected = detect(head);
    let mismatch = match (forced, detected) {
        (Some(Format::Mbox), found) if found != Format::Mbox => Problem::FormatMismatch {
            given: Format::Mbox,
            found,
        },
        (Some(Format::Mime), Format::Html) => Problem::FormatMismatch {
            given: Format::Mime,
            found: Format::Html,
        },
        // A document whose root is no feed's: read as XML, no element of it is a feed's
        // URL or HTML, and nothing changes. A prolog longer than the head does not tell.
        (Some(Format::Feed), Format::Html) if !crate::feed::ends_in_prolog(head) => {
            Problem::FormatMismatch {
                given: Format::Feed,
                found: Format::Html,
            }
        }
        _ => return,
    };
    sink.warning(Warning::new(mismatch));
}

/// An input told HTML whose head is all an XML prolog, longer than a feed's root is
/// looked for past ([`crate::feed::SNIFF_LIMIT`]): it may be a feed, said, not silent.
fn warn_on_long_prolog(forced: Option<Format>, told: Format, head: &[u8], sink: &mut dyn Sink) {
    let prolog_fills_head =
        head.len() >= crate::feed::SNIFF_LIMIT && crate::feed::ends_in_prolog(head);
    if forced.is_none() && told == Format::Html && prolog_fills_head {
        sink.warning(Warning::new(Problem::LongProlog));
    }
}

/// An input once its first bytes are read: those, the rest of the stream, whether the
/// bytes are the whole input (held in memory), the file it came from (for a saved page's
/// markers and the files beside it), and the file whose bytes these are (`None` once
/// decompressed: it cannot be read again for them).
struct Source<'a> {
    head: &'a [u8],
    rest: Box<dyn Read + 'a>,
    whole: bool,
    path: Option<&'a Path>,
    file: Option<&'a Path>,
}

impl<'a> Source<'a> {
    fn into_body(self) -> Body<'a> {
        if self.whole {
            Body::Memory(self.head)
        } else {
            Body::Stream {
                head: self.head,
                rest: self.rest,
                file: self.file,
            }
        }
    }

    /// The whole input in memory (a message is read whole: its parts are found in it)
    /// if it is at most `limit` bytes long; else the bytes read (one past the limit) and
    /// the rest unread. An input given whole is held already: no limit applies.
    #[allow(clippy::type_complexity)]
    fn read_at_most(
        mut self,
        limit: u64,
    ) -> io::Result<Result<std::borrow::Cow<'a, [u8]>, (Vec<u8>, Box<dyn Read + 'a>)>> {
        if self.whole {
            return Ok(Ok(std::borrow::Cow::Borrowed(self.head)));
        }
        let mut bytes = self.head.to_vec();
        read_up_to(&mut self.rest, &mut bytes, limit.saturating_add(1))?;
        if bytes.len() as u64 > limit {
            return Ok(Err((bytes, self.rest)));
        }
        Ok(Ok(std::borrow::Cow::Owned(bytes)))
    }

    /// The input as one reader, its first bytes included.
    fn reader(self) -> impl Read + 'a {
        self.head.chain(self.rest)
    }
}

/// The bytes of one document.
pub(crate) enum Body<'a> {
    /// All of it, in memory (a MIME part, a WARC payload, an input given as bytes).
    Memory(&'a [u8]),
    /// Its first bytes, the rest as a stream, and the file it is, if one.
    Stream {
        head: &'a [u8],
        rest: Box<dyn Read + 'a>,
        file: Option<&'a Path>,
    },
}

/// The kinds of document absolve rewrites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An HTML (or XHTML) document.
    Html,
    /// A CSS stylesheet.
    Css,
    /// An XML document of a vocabulary absolve reads: an Atom or RSS feed, an SVG image
    /// (one rewriter, [`feed::Rewriter`](crate::feed::Rewriter), reads both).
    Xml,
}

/// Rewrites (or lists) one document of kind `kind` against `base` (its outer base: a
/// document's own `<base href>` comes first), `options.charset` being its transport's
/// charset (a MIME part's, an HTTP response's, the caller's). One function per kind.
pub(crate) fn document(
    kind: Kind,
    body: Body<'_>,
    base: &Base,
    options: &html::Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    match kind {
        Kind::Html => html_document(body, base, options, sink),
        Kind::Css => stylesheet(body, base, options, sink),
        Kind::Xml => feed_document(body, base, options, sink),
    }
}

/// A feed, streaming ([`feed::Rewriter`](crate::feed::Rewriter)): each element's base its
/// `xml:base` against its parent's, the outermost `base`; `options.charset` the
/// transport's.
fn feed_document(
    body: Body<'_>,
    base: &Base,
    options: &html::Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let mut rewriter = crate::feed::Rewriter::new(base, options, options.charset, sink);
    match body {
        Body::Memory(bytes) => {
            for chunk in bytes.chunks(CHUNK) {
                rewriter.write(chunk)?;
            }
        }
        Body::Stream { head, rest, .. } => {
            rewriter.write(head)?;
            copy_chunks(rest, |chunk| rewriter.write(chunk))?;
        }
    }
    rewriter.end().map(drop)
}

/// An HTML document. In memory, its `<base href>` (§3.1) is waited for wherever it is.
/// From a file larger than the base lookahead, the file is looked at first: with no
/// `<base` in its bytes its base is the outer one; otherwise it is scanned for its
/// `<base href>`. Either way nothing is held back while rewriting it.
fn html_document(
    body: Body<'_>,
    base: &Base,
    options: &html::Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let (head, rest, file) = match body {
        Body::Memory(bytes) => return html_in_memory(bytes, base, options, sink),
        Body::Stream { head, rest, file } => (head, rest, file),
    };
    let large_file = match file {
        Some(path) => std::fs::metadata(path)?.len() > options.base_lookahead as u64,
        None => false,
    };
    let mut rewriter = match file.filter(|_| large_file) {
        Some(path) => {
            let document_base = if file_may_have_base_element(path)? {
                html::scan_base(File::open(path)?, base, options)?
            } else {
                base.clone()
            };
            Rewriter::with_document_base(base, &document_base, options, sink)
        }
        None => Rewriter::new(base, options, sink),
    };
    rewriter.write(head)?;
    copy_chunks(rest, |chunk| rewriter.write(chunk))?;
    rewriter.end().map(drop)
}

/// A whole HTML document in memory: its `<base href>` waited for as long as it takes.
fn html_in_memory(
    bytes: &[u8],
    base: &Base,
    options: &html::Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let options = html::Options {
        base_lookahead: usize::MAX,
        ..options.clone()
    };
    let mut rewriter = if html::may_have_base_element(bytes) {
        Rewriter::new(base, &options, sink)
    } else {
        Rewriter::with_document_base(base, base, &options, sink)
    };
    // Room for what is held until the `<base href>` is known, rather than doubling (and
    // copying) as it comes.
    rewriter.reserve(bytes.len().min(RESERVE_LIMIT));
    // Chunks keep the parser's working set in cache.
    for chunk in bytes.chunks(CHUNK) {
        rewriter.write(chunk)?;
    }
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

/// A stylesheet, read whole: its `url()` and `@import` values against `base`, in its
/// charset by CSS Syntax §3.2 ([`css::stylesheet_encoding`]: BOM, the transport's,
/// `@charset`, UTF-8), the same rule in every container. One that is not ASCII-compatible
/// is read through UTF-8 ([`html::transcode`]: UTF-16, ISO-2022-JP); the replacement
/// encoding passes through unchanged, with a warning.
fn stylesheet(
    body: Body<'_>,
    base: &Base,
    options: &html::Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let held;
    let bytes: &[u8] = match body {
        Body::Memory(bytes) => bytes,
        Body::Stream { head, mut rest, .. } => {
            let mut all = head.to_vec();
            rest.read_to_end(&mut all)?;
            held = all;
            &held
        }
    };
    let encoding: &'static Encoding = css::stylesheet_encoding(bytes, options.charset);
    if html::transcode::is_transcoded(encoding) {
        return html::transcode::write_css_transcoded(bytes, encoding, base, options, sink);
    }
    if !encoding.is_ascii_compatible() {
        sink.warning(html::Warning::UnsupportedCharset(encoding.name()).into());
        return sink.output(bytes);
    }
    // Each URL is reported and each changed token written as it is met: nothing grows
    // with the number of URLs.
    html::emit::write_css(bytes, CssIn::Raw, encoding, base, options, sink)
}

/// An input read whole (a MIME message, an `.eml` or MHTML page, is message number 1,
/// its headers the encapsulating base of its parts, §3.2; a stylesheet) and given to
/// `run`, if it is no larger than `limit` ([`Options::with_max_held`]). A larger one is
/// passed through unchanged when the sink wants output, and not read on when it wants
/// links only, with a warning either way: memory stays bounded.
fn held_whole(
    source: Source<'_>,
    what: Held,
    limit: u64,
    sink: &mut dyn Sink,
    run: impl FnOnce(&[u8], &mut dyn Sink) -> io::Result<()>,
) -> io::Result<()> {
    let (read, rest) = match source.read_at_most(limit)? {
        Ok(whole) => return run(&whole, sink),
        Err(too_large) => too_large,
    };
    let mut size = read.len() as u64;
    let passed_through = sink.wants_output();
    if passed_through {
        sink.output(&read)?;
        drop(read);
        copy_chunks(rest, |bytes| {
            size += bytes.len() as u64;
            sink.output(bytes)
        })?;
    }
    let mut warning = Warning::new(Problem::TooLarge(TooLarge {
        what,
        size,
        limit,
        passed_through,
    }));
    if what == Held::Message {
        warning.location.message = Some(1);
    }
    sink.warning(warning);
    Ok(())
}

/// What is held whole in memory to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Held {
    /// A MIME message (an `.eml`, an MHTML page).
    Message,
    /// A stylesheet.
    Stylesheet,
    /// A Safari web archive (a property list is parsed whole).
    WebArchive,
}

impl std::fmt::Display for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Held::Message => "the message",
            Held::Stylesheet => "the stylesheet",
            Held::WebArchive => "the web archive",
        })
    }
}

/// A message or stylesheet over the limit of bytes held in memory
/// ([`Options::with_max_held`]): passed through unchanged by a rewrite (which read all
/// of it, so `size` is its size), not read on when listing links (`size` is how far it
/// was read, one byte past the limit).
///
/// ```
/// use absolve::pipeline::{Held, TooLarge};
///
/// let rewritten = TooLarge { what: Held::Message, size: 300, limit: 100, passed_through: true };
/// assert_eq!(rewritten.to_string(), "the message is 300 bytes, over the limit of 100 bytes held in \
///     memory to read it: passed through unchanged (raise the limit, Options::with_max_held, to rewrite it)");
/// let listed = TooLarge { passed_through: false, size: 101, ..rewritten };
/// assert!(listed.to_string().starts_with("the message is over 100 bytes, the limit held in memory"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.worded("Options::with_max_held"))]
pub struct TooLarge {
    /// A message or a stylesheet.
    pub what: Held,
    /// How many bytes of it were read.
    pub size: u64,
    /// The limit.
    pub limit: u64,
    /// Whether it was passed through (a rewrite), or left unread (a listing).
    pub passed_through: bool,
}

impl TooLarge {
    /// What happened, naming `knob` as the way to raise the limit (the CLI names its
    /// `--max-held` flag, the Python binding its `max_held=` argument; `Display` names
    /// [`Options::with_max_held`]).
    ///
    /// ```
    /// use absolve::pipeline::{Held, TooLarge};
    ///
    /// let listed = TooLarge { what: Held::Stylesheet, size: 101, limit: 100, passed_through: false };
    /// assert_eq!(listed.worded("--max-held"), "the stylesheet is over 100 bytes, the limit held in \
    ///     memory to read it: its links are not listed (raise the limit, --max-held, to list them)");
    /// ```
    pub fn worded(&self, knob: &str) -> String {
        let Self {
            what,
            size,
            limit,
            passed_through,
        } = self;
        let (size, limit) = (bytes(*size), bytes(*limit));
        if *passed_through {
            format!(
                "{what} is {size}, over the limit of {limit} held in memory to read \
                 it: passed through unchanged (raise the limit, {knob}, to rewrite it)"
            )
        } else {
            format!(
                "{what} is over {limit}, the limit held in memory to read it: its links \
                 are not listed (raise the limit, {knob}, to list them)"
            )
        }
    }
}

/// `n` bytes, worded: "1 byte", "2 bytes".
fn bytes(n: u64) -> String {
    match n {
        1 => "1 byte".to_owned(),
        n => format!("{n} bytes"),
    }
}

/// An mbox archive, one message at a time; separator lines are written as they were,
/// and so are the bytes before the first one, which are no message. A message longer
/// than `limit` ([`Options::with_max_held`]) is not held: passed through unchanged (its
/// links not listed), with a warning once its end is found.
fn mbox(
    source: Source<'_>,
    limit: u64,
    outer: &Base,
    options: &html::Options,
    sink: &mut dyn Sink,
) -> io::Result<usize> {
    let mut archive = io::BufReader::with_capacity(CHUNK, source.reader());
    // An MMDF mailbox starts with a line of Control-A bytes, which no mbox does.
    let entries: Box<dyn Iterator<Item = io::Result<mime::mbox::Entry>>> =
        match io::BufRead::fill_buf(&mut archive)?.first() {
            Some(1) => Box::new(mime::mmdf::Messages::new(archive).with_limit(limit)),
            _ => Box::new(mime::mbox::Messages::new(archive).with_limit(limit)),
        };
    let mut last = 0;
    // The message too large to hold being passed through: its number, its size so far.
    let mut too_large: Option<(usize, u64)> = None;
    for entry in entries {
        let mut entry = entry?;
        last = entry.number.unwrap_or(last);
        if !entry.continued
            && let Some((number, size)) = too_large.take()
        {
            warn_too_large_message(number, size, limit, sink);
        }
        // A piece of a message too large to hold is located by the message's number.
        let number = entry.number.or(too_large.map(|(number, _)| number));
        if let (Some(number), Some(warning)) = (number, entry.warning.take()) {
            sink.warning(mime::located(number, warning));
        }
        sink.output(&entry.separator)?;
        match entry.number {
            Some(number) if entry.too_large => {
                too_large = Some((number, entry.message.len() as u64));
                sink.output(&entry.message)?;
            }
            Some(number) => one_message(&entry.message, number, outer, options, sink)?,
            None => {
                if let Some((_, size)) = &mut too_large {
                    *size += entry.message.len() as u64;
                }
                sink.output(&entry.message)?;
            }
        }
    }
    if let Some((number, size)) = too_large {
        warn_too_large_message(number, size, limit, sink);
    }
    Ok(last)
}

/// Message `number` of an mbox, `size` bytes, was longer than `limit`: passed through.
fn warn_too_large_message(number: usize, size: u64, limit: u64, sink: &mut dyn Sink) {
    let mut warning = Warning::new(Problem::TooLarge(TooLarge {
        what: Held::Message,
        size,
        limit,
        passed_through: sink.wants_output(),
    }));
    warning.location.message = Some(number);
    sink.warning(warning);
}

/// A file holding one message: an `.eml`, an MHTML page, or Apple Mail's `.emlx`
/// ([`mime::emlx`]).
fn message_file(
    file: &[u8],
    outer: &Base,
    options: &html::Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    match mime::emlx::split(file) {
        Some(emlx) => emlx_file(&emlx, outer, options, sink),
        None => one_message(file, 1, outer, options, sink),
    }
}

/// Apple Mail's `.emlx`: its message read as any, the rewrite's length written on its
/// first line (the rewrite [`spooled`], as a counted message's is), the property list
/// after it passed through. A length past the file's end leaves the file as it is, its
/// links listed from what there is.
fn emlx_file(
    emlx: &mime::emlx::Emlx<'_>,
    outer: &Base,
    options: &html::Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let warning = if emlx.missing > 0 {
        let held = emlx.message.len() as u64;
        Some(mime::Warning::EmlxCutShort(emlx.count, held))
    } else if !mime::emlx::is_property_list(emlx.after) {
        let at = (emlx.count_line.len() + emlx.message.len()) as u64;
        Some(mime::Warning::EmlxNoPropertyList(at))
    } else {
        None
    };
    if let Some(warning) = warning {
        sink.warning(mime::located(1, warning));
    }
    if !sink.wants_output() {
        return one_message(emlx.message, 1, outer, options, sink);
    }
    let rewrite = |spooling: &mut dyn Sink| one_message(emlx.message, 1, outer, options, spooling);
    match spooled(emlx.message, sink, rewrite)? {
        // A file cut short is written as it is.
        Some((len, rewritten)) if emlx.missing == 0 => {
            sink.output(&mime::emlx::count_line(emlx, len))?;
            copy_chunks(rewritten, |bytes| sink.output(bytes))?;
        }
        _ => {
            for part in [emlx.count_line, emlx.message] {
                sink.output(part)?;
            }
        }
    }
    sink.output(emlx.after)
}

/// Message `number`, its links and warnings located by its number and parts. The rewrite
/// of a message with a `Content-Length` header (mboxcl) is spooled (in memory while
/// small, then in a temporary file: never held beside the message), since the header,
/// before the body, must give the new length; then written with it.
fn one_message(
    message: &[u8],
    number: usize,
    outer: &Base,
    options: &html::Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    if !mime::mbox::has_content_length(message) || !sink.wants_output() {
        return mime::write_message(message, number, outer, options, sink);
    }
    let rewrite =
        |spooling: &mut dyn Sink| mime::write_message(message, number, outer, options, spooling);
    match spooled(message, sink, rewrite)? {
        Some((len, rewritten)) => {
            let grown = len as i64 - message.len() as i64;
            write_counted(message, rewritten, grown, sink)
        }
        None => sink.output(message),
    }
}

/// `original`'s rewrite by `rewrite`, spooled (in memory while small, then in a temporary
/// file: never held beside it) so that a count before it can be written first: its
/// length and bytes, `None` when it is the same as `original`. Links and warnings go to
/// `sink` as they are found.
fn spooled(
    original: &[u8],
    sink: &mut dyn Sink,
    rewrite: impl FnOnce(&mut dyn Sink) -> io::Result<()>,
) -> io::Result<Option<(u64, crate::spool::SpoolReader)>> {
    let mut spool = crate::spool::Spool::new(original);
    rewrite(&mut Spooling {
        spool: &mut spool,
        inner: sink,
    })?;
    match spool.changed() {
        true => Ok(Some((spool.len(), spool.into_reader()?))),
        false => Ok(None),
    }
}

/// A message's rewrite, read back from `rewritten`, its `Content-Length` moved by `grown`
/// bytes ([`mime::mbox::new_content_length`]). A rewrite leaves the heading as it was:
/// the digits are where they were in `message`, and are replaced only if found there.
fn write_counted(
    message: &[u8],
    mut rewritten: impl Read,
    grown: i64,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    if let Some((digits, value)) = mime::mbox::new_content_length(message, grown) {
        copy_chunks((&mut rewritten).take(digits.start as u64), |bytes| {
            sink.output(bytes)
        })?;
        let mut old = vec![0; digits.len()];
        rewritten.read_exact(&mut old)?;
        match old == message[digits] {
            true => sink.output(value.to_string().as_bytes())?,
            false => sink.output(&old)?,
        }
    }
    copy_chunks(rewritten, |bytes| sink.output(bytes))
}

/// A sink whose output goes to a spool; links and warnings passed on.
struct Spooling<'a, 'o> {
    spool: &'a mut crate::spool::Spool<'o>,
    inner: &'a mut dyn Sink,
}

impl Sink for Spooling<'_, '_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.spool.write_all(bytes)
    }
    fn link(&mut self, link: Link) {
        self.inner.link(link);
    }
    fn link_ref(&mut self, link: crate::links::LinkRef<'_>) {
        self.inner.link_ref(link);
    }
    fn warning(&mut self, warning: Warning) {
        self.inner.warning(warning);
    }
    fn wants_links(&self) -> bool {
        self.inner.wants_links()
    }
}

/// A WARC file: its links, or the archive rewritten; whether anything changed.
fn warc_file(input: impl Read, options: &Options, sink: &mut dyn Sink) -> Result<bool, Error> {
    if sink.wants_links() && !sink.wants_output() {
        let mut changed = false;
        if let Some(encoder) = sink.link_encoder() {
            // Each link written where it is found, in parallel; the bytes in file order.
            for item in warc::EncodedLinks::new(input, options.clone(), encoder) {
                match item? {
                    warc::Encoded::Links(links) => {
                        changed |= links.changed;
                        sink.encoded_links(&links.bytes)?;
                    }
                    warc::Encoded::Warning(warning) => sink.warning(warning),
                }
            }
            return Ok(changed);
        }
        for event in warc::Links::new(input, options.clone()) {
            match event? {
                crate::Event::Link(link) => {
                    changed |= link.resolved != link.original;
                    sink.link(link);
                }
                crate::Event::Warning(warning) => sink.warning(warning),
            }
            // A write error (a closed pipe) is reported by the sink's next output.
            sink.output(&[])?;
        }
        return Ok(changed);
    }
    let summary = warc::rewrite(input, options, sink)?;
    Ok(summary.rewritten > 0)
}

/// The retrieval URL of an input, and whether a saved page's marker gave it: the one
/// given, else a marker (HTML comments in its first bytes, a file's extended
/// attribute), else none.
fn retrieval_base(
    options: &Options,
    path: Option<&Path>,
    head: &[u8],
    format: Format,
) -> io::Result<(Base, bool)> {
    if options.url.url().is_some() {
        return Ok((options.url.clone(), false));
    }
    let html = format == Format::Html;
    let found = match path {
        Some(path) => retrieval::find(path, head, html)?,
        None if html => retrieval::from_comments(head),
        None => None,
    };
    Ok(match found.and_then(|found| found.base().ok()) {
        Some(base) => (base, true),
        None => (Base::none(), false),
    })
}

/// The retrieval URL as the chosen standard reads it: by the URL Standard, parsed and
/// serialized as a browser holds it (`HTTP://H` is `http://h/`); one it does not parse
/// is kept as given (each reference against it is then left as it is, with a warning).
fn in_standard(base: Base, standard: crate::Standard) -> Base {
    match (standard, base.url()) {
        (crate::Standard::Whatwg, Some(url)) => {
            Base::absolute_with(standard, url, base.source()).unwrap_or(base)
        }
        _ => base,
    }
}

/// The [`Options::with_keep_local`] rule for a document in `directory`: a reference with
/// no scheme and no network path, its query and fragment cut and its %XX decoded, names a
/// file that exists when joined to the directory (a path from `/` is taken as it is, as a
/// file: URL would be), or a directory with an `index.html`. Each such reference is
/// counted; it is kept only when `keep` is set.
fn local_file_rule(directory: PathBuf, keep: bool, hits: Arc<AtomicUsize>) -> html::KeepReference {
    Arc::new(move |reference: &str| {
        let exists = names_local_file(&directory, reference);
        if exists {
            hits.fetch_add(1, Ordering::Relaxed);
        }
        keep && exists
    })
}

fn names_local_file(directory: &Path, reference: &str) -> bool {
    if has_scheme(reference) || reference.starts_with("//") {
        return false;
    }
    let path = reference.split(['?', '#']).next().unwrap_or_default();
    if path.is_empty() {
        return false;
    }
    let decoded: Vec<u8> = percent_encoding::percent_decode_str(path).collect();
    let named = directory.join(path_from_bytes(&decoded));
    named.is_file() || (named.is_dir() && named.join("index.html").is_file())
}

/// A path from its bytes: as they are on Unix, where a name is any bytes; elsewhere read
/// as UTF-8 (a byte that is not, U+FFFD).
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// The saved page a file belongs to, if it is inside the folder a browser saved beside
/// the page ("Web page, complete": Chrome and Firefox save `NAME.html` with its images and
/// stylesheets in `NAME_files/`): such a file has no URL of its own.
fn saved_page_of(path: &Path) -> Option<PathBuf> {
    path.ancestors().skip(1).find_map(|folder| {
        // The name's bytes: a page named in Latin-1 has its folder all the same.
        let name = folder.file_name()?.as_encoded_bytes();
        let page = name.strip_suffix(b"_files")?;
        ["html", "htm", "xhtml", "shtml"]
            .iter()
            .map(|extension| {
                let file_name = [page, b".", extension.as_bytes()].concat();
                folder.with_file_name(path_from_bytes(&file_name))
            })
            .find(|candidate| candidate.is_file())
    })
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

/// Passes everything on, noting whether a link changed and whether a relative
/// reference was left for want of a base (links are built for that when `watch` is
/// set, even if the sink does not want them).
struct Tally<'s> {
    inner: &'s mut dyn Sink,
    changed: bool,
    relative_left: bool,
    watch: bool,
}

impl Tally<'_> {
    /// Notes whether `link` changed, or was left relative for want of a base.
    fn note(&mut self, link: LinkRef<'_>) {
        self.changed |= link.resolved != link.original;
        self.relative_left |= link.base_from == BaseSource::None && is_relative(link.original);
    }
}

impl Sink for Tally<'_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner.output(bytes)
    }
    fn link(&mut self, link: Link) {
        self.note(link.borrowed());
        if self.inner.wants_links() {
            self.inner.link(link);
        }
    }
    /// Passed on borrowed: a sink that writes links out makes no [`Link`] of it.
    fn link_ref(&mut self, link: LinkRef<'_>) {
        self.note(link);
        if self.inner.wants_links() {
            self.inner.link_ref(link);
        }
    }
    fn warning(&mut self, warning: Warning) {
        self.inner.warning(warning);
    }
    fn wants_output(&self) -> bool {
        self.inner.wants_output()
    }
    fn wants_links(&self) -> bool {
        self.watch || self.inner.wants_links()
    }
}

/// A reference that a base would change: not empty, not fragment-only, with no scheme.
pub(crate) fn is_relative(reference: &str) -> bool {
    !reference.is_empty() && !reference.starts_with('#') && !has_scheme(reference)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Collected;

    /// A page saved under a name that is not UTF-8 (Latin-1's `pé.html`) owns its
    /// `pé_files/` folder as any other: its files have no URL of their own.
    #[cfg(unix)]
    #[test]
    fn a_saved_page_named_in_latin1_owns_its_folder() {
        use std::os::unix::ffi::OsStrExt;
        let temp = tempfile::tempdir().unwrap();
        let named = |name: &[u8]| temp.path().join(std::ffi::OsStr::from_bytes(name));
        std::fs::create_dir(named(b"p\xE9_files")).unwrap();
        std::fs::write(named(b"p\xE9.html"), "<p>").unwrap();
        let css = named(b"p\xE9_files/style.css");
        assert_eq!(saved_page_of(&css), Some(named(b"p\xE9.html")));
        assert_eq!(saved_page_of(&named(b"other/style.css")), None);
    }

    /// A limit of one byte is "1 byte" (it said "1 bytes").
    #[test]
    fn a_one_byte_limit_is_worded_in_the_singular() {
        let too_large = TooLarge {
            what: Held::Message,
            size: 2,
            limit: 1,
            passed_through: true,
        };
        assert!(
            too_large
                .worded("--max-held")
                .starts_with("the message is 2 bytes, over the limit of 1 byte held"),
            "{too_large}"
        );
    }

    fn listed(input: &[u8], options: &Options) -> Vec<String> {
        let mut sink = Collected::links_only();
        run(Input::Bytes(input), options, &mut sink).unwrap();
        sink.links.into_iter().map(|l| l.original).collect()
    }

    /// A WARC `response` record for `uri` whose body has `content_type`.
    fn response(uri: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
        let mut http =
            format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\r\n").into_bytes();
        http.extend_from_slice(body);
        let mut record = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\n\
             WARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype=response\r\n\
             Content-Length: {}\r\n\r\n",
            http.len()
        )
        .into_bytes();
        record.extend_from_slice(&http);
        record.extend_from_slice(b"\r\n\r\n");
        record
    }

    /// CSS Syntax §3.2 in every container: a stylesheet's `@charset` counts whether it
    /// is a file, a MIME part or a WARC record's payload (it did only for a file).
    #[test]
    fn a_stylesheets_charset_rule_is_the_same_in_every_container() {
        let css = b"@charset \"iso-8859-1\"; a{background:url(caf\xe9.png)}";
        let options = Options::new().with_url("http://h/s.css").unwrap();
        let as_file = listed(css, &options.clone().with_format(Some(Format::Css)));
        assert_eq!(as_file, ["caf\u{e9}.png"]);

        let mut message = b"Content-Type: text/css\r\n\r\n".to_vec();
        message.extend_from_slice(css);
        assert_eq!(listed(&message, &options), as_file);

        let warc = response("http://h/s.css", "text/css", css);
        assert_eq!(listed(&warc, &Options::new()), as_file);
        // The transport's charset wins over `@charset` (§3.2 step 2), in a record too.
        let utf8 = response("http://h/s.css", "text/css; charset=utf-8", css);
        assert_eq!(listed(&utf8, &Options::new()), ["caf\u{fffd}.png"]);
    }

    /// One warning when no base resolves a relative reference, whatever the face.
    #[test]
    fn no_base_url_is_said_once_and_only_when_a_reference_stays_relative() {
        let mut sink = Collected::output_only();
        run(
            Input::Bytes(b"<a href=x><img src=y>"),
            &Options::new(),
            &mut sink,
        )
        .unwrap();
        assert_eq!(sink.warnings, [Warning::new(Problem::NoBaseUrl)]);
        let mut sink = Collected::output_only();
        let absolute = b"<a href=http://h/x><a href=#top>";
        run(Input::Bytes(absolute), &Options::new(), &mut sink).unwrap();
        assert!(sink.warnings.is_empty(), "{:?}", sink.warnings);
        let mut sink = Collected::output_only();
        let based = b"<base href=http://h/><a href=x>";
        run(Input::Bytes(based), &Options::new(), &mut sink).unwrap();
        assert!(sink.warnings.is_empty(), "{:?}", sink.warnings);
    }

    /// A stream and the same bytes in memory give the same output and links.
    #[test]
    fn a_reader_and_bytes_give_the_same() {
        let page = b"<a href=x><base href=/b/><img src=y>".repeat(3);
        let options = Options::new().with_url("http://h/d/").unwrap();
        let mut from_bytes = Collected::default();
        run(Input::Bytes(&page), &options, &mut from_bytes).unwrap();
        let mut from_reader = Collected::default();
        let reader = Input::Reader(Box::new(&page[..]));
        run(reader, &options, &mut from_reader).unwrap();
        assert_eq!(from_bytes, from_reader);
        assert!(from_bytes.output.starts_with(b"<a href=http://h/b/x>"));
    }
}
