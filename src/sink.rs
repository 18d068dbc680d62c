//! [`Sink`]: the one way results leave the library, whatever the input: the rewritten
//! bytes, each [`Link`] as it is found, each [`Warning`] as it is met. Nothing is
//! collected unless the sink collects it ([`Collected`] does, for inputs held in memory).

use crate::links::{Link, LinkRef};
use crate::warning::Warning;
use std::any::Any;
use std::io;
use std::sync::Arc;

/// Where results go: the output bytes, each link found, each warning. Nothing in the
/// library blocks or spawns on a sink's behalf: it calls these as it goes, in input
/// order.
///
/// An error returned by [`output`](Self::output) (an [`io::Error`], for example a closed
/// connection) is returned by the call that produced the bytes, and the caller decides
/// what to do. Links and warnings cannot fail.
///
/// ```
/// use absolve::base::Base;
/// use absolve::html::{Options, Rewriter};
/// use absolve::{Link, Sink, Warning};
/// use std::io::{self, Write};
///
/// /// Writes the page to any `Write` and keeps each resolved link.
/// struct Printer<W: Write> { out: W, found: Vec<String> }
///
/// impl<W: Write> Sink for Printer<W> {
///     fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
///         self.out.write_all(bytes)
///     }
///     fn link(&mut self, link: Link) {
///         self.found.push(link.resolved);
///     }
///     fn warning(&mut self, warning: Warning) {
///         eprintln!("warning: {warning}");
///     }
/// }
///
/// let base = Base::retrieval_url("http://h/a/")?;
/// let sink = Printer { out: Vec::new(), found: Vec::new() };
/// let mut rewriter = Rewriter::new(&base, &Options::default(), sink);
/// rewriter.write(b"<a href=b>b</a>")?;
/// let done = rewriter.end()?;
/// assert_eq!(done.out, b"<a href=http://h/a/b>b</a>");
/// assert_eq!(done.found, ["http://h/a/b"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Sink {
    /// The next bytes of the rewritten input.
    fn output(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// The next bytes of the rewritten input, passed through unchanged from byte `offset`
    /// of the input on: the HTML rewriter gives here the bytes between the values it may
    /// change, so that a sink can tell which bytes are new (the feed rewriter writes back
    /// only those). By default they go to [`output`](Self::output).
    fn output_unchanged(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let _ = offset;
        self.output(bytes)
    }
    /// A URL found, in input order, with its resolved form and where it is.
    fn link(&mut self, _link: Link) {}
    /// A URL found, borrowed from the document (see [`LinkRef`]): what the rewriters
    /// call. By default it is made a [`Link`] and given to [`link`](Self::link); a sink
    /// that only reads the link (to write it out) takes it here and saves the copies.
    fn link_ref(&mut self, link: LinkRef<'_>) {
        self.link(link.to_link());
    }
    /// Something that went wrong without stopping the work.
    fn warning(&mut self, _warning: Warning) {}
    /// Whether the bytes given to [`output`](Self::output) are used: a sink that drops
    /// them (one that only lists links) returns `false`, and the rewriters then do not
    /// build new values' bytes. `true` by default.
    fn wants_output(&self) -> bool {
        true
    }
    /// Whether [`link`](Self::link) is wanted: a sink that ignores links returns `false`,
    /// and the rewriters then do not build them. `true` by default.
    fn wants_links(&self) -> bool {
        true
    }
    /// A sink that writes each link out as bytes (JSON lines) may give how here: the
    /// links of a WARC file's records, which are processed in parallel, are then written
    /// by it on the threads that find them, and given to
    /// [`encoded_links`](Self::encoded_links) in order, rather than to
    /// [`link`](Self::link). `None` by default.
    fn link_encoder(&self) -> Option<Arc<dyn LinkEncoder>> {
        None
    }
    /// The rewrite of a WARC file that is not gzipped says here where a record's output
    /// ends (before each record after the first): a sink that compresses the output may
    /// end a member there, so that each record has one of its own, as a `.warc.gz` has a
    /// gzip member per record (LZ4: a frame per record, as resiliparse's FastWARC writes
    /// `.warc.lz4`). Nothing by default.
    fn record_boundary(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Links written by the [`link_encoder`](Self::link_encoder), in input order (each
    /// piece whole links). Called only if it gave one; an error is returned by the call
    /// that found the links.
    fn encoded_links(&mut self, _bytes: &[u8]) -> io::Result<()> {
        Ok(())
    }
}

/// Writes links as bytes on any thread: what [`Sink::link_encoder`] gives.
///
/// ```
/// use absolve::links::LinkRef;
/// use absolve::{LinkBytes, LinkEncoder};
///
/// /// A line per link: the resolved URL.
/// struct Urls;
///
/// impl LinkEncoder for Urls {
///     fn encode(&self, link: LinkRef<'_>, out: &mut LinkBytes) {
///         out.bytes.extend_from_slice(link.resolved.as_bytes());
///         out.bytes.push(b'\n');
///     }
/// }
///
/// let found = absolve::document::links(b"<a href=x>", &absolve::Options::new().with_url("http://h/")?)?;
/// let mut out = LinkBytes::default();
/// Urls.encode(found.links[0].borrowed(), &mut out);
/// assert_eq!(out.bytes, b"http://h/x\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait LinkEncoder: Send + Sync {
    /// Appends `link` to `out.bytes`.
    fn encode(&self, link: LinkRef<'_>, out: &mut LinkBytes);
}

/// Some consecutive links of one document as a [`LinkEncoder`] wrote them.
#[derive(Default)]
pub struct LinkBytes {
    /// The bytes written.
    pub bytes: Vec<u8>,
    /// What the encoder keeps from one link to the next of these (`None` at first): the
    /// JSON of the keys consecutive links share, for example.
    pub state: Option<Box<dyn Any + Send>>,
    /// Whether a link resolved to something other than what it said (set by the library).
    pub changed: bool,
}

impl std::fmt::Debug for LinkBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkBytes")
            .field("bytes", &String::from_utf8_lossy(&self.bytes))
            .field("changed", &self.changed)
            .finish_non_exhaustive()
    }
}

/// A sink shared by two users (a compressor writing its output, a rewriter passing on
/// links), its output as a [`Write`](io::Write).
pub(crate) struct SinkWriter<'a, 's>(pub &'a std::cell::RefCell<&'s mut dyn Sink>);

impl io::Write for SinkWriter<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().output(buf)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        (**self).output(bytes)
    }
    fn output_unchanged(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        (**self).output_unchanged(offset, bytes)
    }
    fn link(&mut self, link: Link) {
        (**self).link(link);
    }
    fn link_ref(&mut self, link: LinkRef<'_>) {
        (**self).link_ref(link);
    }
    fn warning(&mut self, warning: Warning) {
        (**self).warning(warning);
    }
    fn wants_output(&self) -> bool {
        (**self).wants_output()
    }
    fn wants_links(&self) -> bool {
        (**self).wants_links()
    }
    fn link_encoder(&self) -> Option<Arc<dyn LinkEncoder>> {
        (**self).link_encoder()
    }
    fn encoded_links(&mut self, bytes: &[u8]) -> io::Result<()> {
        (**self).encoded_links(bytes)
    }
    fn record_boundary(&mut self) -> io::Result<()> {
        (**self).record_boundary()
    }
}

/// One result, for a reader that pulls them ([`warc::Links`](crate::warc::Links)) rather
/// than having them pushed to a [`Sink`]: what a sink's [`link`](Sink::link) and
/// [`warning`](Sink::warning) would be given, in the same order.
///
/// ```
/// use absolve::{Event, Problem, Warning};
///
/// let event = Event::Warning(Warning::new(Problem::NoBaseUrl));
/// assert!(matches!(event, Event::Warning(w) if w.problem == Problem::NoBaseUrl));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A link found.
    Link(Link),
    /// A warning met.
    Warning(Warning),
}

/// Collects everything in memory: what the in-memory entry points return.
/// [`Collected::default`] keeps the output, links and warnings;
/// [`Collected::output_only`] and [`Collected::links_only`] keep less, and the rewriters
/// then do not build what is not kept.
///
/// ```
/// use absolve::base::Base;
/// use absolve::html::{Options, Rewriter};
/// use absolve::Collected;
///
/// let base = Base::retrieval_url("http://h/")?;
/// let mut rewriter = Rewriter::new(&base, &Options::default(), Collected::default());
/// rewriter.write(b"<img src=i.png>")?;
/// let done = rewriter.end()?;
/// assert_eq!(done.output, b"<img src=http://h/i.png>");
/// assert_eq!(done.links[0].resolved, "http://h/i.png");
/// assert!(done.warnings.is_empty());
///
/// let mut fast = Rewriter::new(&base, &Options::default(), Collected::output_only());
/// fast.write(b"<img src=i.png>")?;
/// assert!(fast.end()?.links.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collected {
    /// The rewritten input.
    pub output: Vec<u8>,
    /// Every URL found, in order (empty when `keep_links` is off).
    pub links: Vec<Link>,
    /// What went wrong without stopping the work, in order.
    pub warnings: Vec<Warning>,
    /// Whether links are built and kept (`true` by default).
    pub keep_links: bool,
    /// Whether the rewritten bytes are built and kept (`true` by default).
    pub keep_output: bool,
}

impl Default for Collected {
    fn default() -> Self {
        Collected {
            output: Vec::new(),
            links: Vec::new(),
            warnings: Vec::new(),
            keep_links: true,
            keep_output: true,
        }
    }
}

impl Collected {
    /// Keeps the output and the warnings, not the links.
    ///
    /// ```
    /// assert!(!absolve::Collected::output_only().keep_links);
    /// ```
    pub fn output_only() -> Self {
        Collected {
            keep_links: false,
            ..Collected::default()
        }
    }

    /// Keeps the links and the warnings, not the output (which is then not built).
    ///
    /// ```
    /// use absolve::base::Base;
    /// use absolve::html::{Options, Rewriter};
    /// use absolve::Collected;
    ///
    /// let base = Base::retrieval_url("http://h/")?;
    /// let mut rewriter = Rewriter::new(&base, &Options::default(), Collected::links_only());
    /// rewriter.write(b"<a href=x>")?;
    /// let collected = rewriter.end()?;
    /// assert_eq!((collected.links[0].resolved.as_str(), collected.output.len()), ("http://h/x", 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn links_only() -> Self {
        Collected {
            keep_output: false,
            ..Collected::default()
        }
    }
}

impl Sink for Collected {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.keep_output {
            self.output.extend_from_slice(bytes);
        }
        Ok(())
    }
    fn link(&mut self, link: Link) {
        if self.keep_links {
            self.links.push(link);
        }
    }
    fn warning(&mut self, warning: Warning) {
        self.warnings.push(warning);
    }
    fn wants_output(&self) -> bool {
        self.keep_output
    }
    fn wants_links(&self) -> bool {
        self.keep_links
    }
}
