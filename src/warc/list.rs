//! [`Links`]: the links of a WARC file, record by record.

use super::compressed::Source;
use super::framing::Framing;
use super::payload::{self, Analysis};
use super::{Error, Options, Warning};
use crate::Event;
use crate::links::{Link, LinkRef, Location};
use rayon::prelude::*;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::Read;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;

/// Streams the links of a WARC (plain or compressed: gzip, bzip2, xz, zstd or LZ4, told
/// by its first bytes; read on after damage as the command line reads it), record by
/// record, as
/// [`Event`]s: the URLs of each `response` record's HTTP header fields, then those of its
/// HTML or CSS payload (and of `resource` records, and the header fields of `revisit`
/// records), each [`Link`] located by the record's ID and target URI; each warning (a
/// damaged record, read past) before the links of the record it is about.
///
/// Memory is bounded by design, whatever the number of links or threads: payloads are
/// decoded as they are read, one at a time, then processed in batches of
/// [`BATCH_BYTES`], each in parallel on rayon's pool while the next batch is read (at most
/// `IN_FLIGHT` (2) batches at once), a batch keeping at most `BATCH_EVENTS` events; a
/// payload of [`LARGE_PAYLOAD`] bytes or more, or a record with more links than its batch
/// may keep, is processed on a thread of its own that hands each link on as it is found,
/// through a bounded channel, while nothing else is read. Events come out in file order.
/// Other records are read past without being held. Listed on a thread of a rayon pool
/// (files listed in parallel by a caller's `par_iter`), a batch is parsed on that thread
/// before the next is read, and split across the pool only while the pool has fewer files
/// being listed than threads.
/// The iterator ends after the first [`Error`] (the input is then unreadable); damaged
/// data (gzip or framing) is not an error: it is read past with a warning.
///
/// ```
/// use absolve::warc::Links;
/// use absolve::{Event, Options};
///
/// let body = "<base href='http://cdn.example/'><img src=i.png>";
/// let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
/// let warc = format!(
///     "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:2>\r\n\
///      WARC-Target-URI: <http://example.com/>\r\n\
///      Content-Type: application/http;msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
///     http.len()
/// );
/// let events: Vec<Event> = Links::new(warc.as_bytes(), Options::new()).collect::<Result<_, _>>()?;
/// let [Event::Link(first), Event::Link(second)] = &events[..] else { panic!("{events:?}") };
/// assert_eq!(first.element, "base");
/// assert_eq!(second.resolved, "http://cdn.example/i.png");
/// assert_eq!(second.location.target_uri.as_deref(), Some("http://example.com/"));
/// assert_eq!(second.location.record.as_deref(), Some("<urn:uuid:2>"));
/// # Ok::<(), absolve::warc::Error>(())
/// ```
pub struct Links<R: Read>(Source<R, Owned>);

/// Turns the links of a WARC file into what a reader writes (JSON lines, columns) on the
/// threads that find them, from [`LinkRef`]s: no [`Link`] is made, copied or handed
/// between threads. See [`EncodedLinks`].
pub trait Encode: Send + Sync + 'static {
    /// What links become: some lines' bytes, some rows of columns.
    type Output: Send + 'static;
    /// An empty output, for the next links of a record (a record's links may be given
    /// in several outputs, in order).
    fn start(&self) -> Self::Output;
    /// Adds a link to `output`.
    fn link(&self, output: &mut Self::Output, link: LinkRef<'_>);
}

/// What [`EncodedLinks`] hands out, in file order.
#[derive(Debug)]
pub enum Encoded<T> {
    /// Some links of a record, encoded.
    Links(T),
    /// A warning met.
    Warning(crate::Warning),
}

/// [`Links`] with each link encoded by an [`Encode`] where it is found (records are
/// processed in parallel): the outputs and warnings in file order, the same links in
/// the same order as [`Links`] gives them.
///
/// ```
/// use absolve::links::LinkRef;
/// use absolve::warc::{Encode, Encoded, EncodedLinks};
/// use absolve::Options;
///
/// /// A line per link: its resolved URL.
/// struct Lines;
///
/// impl Encode for Lines {
///     type Output = String;
///     fn start(&self) -> String {
///         String::new()
///     }
///     fn link(&self, output: &mut String, link: LinkRef<'_>) {
///         output.push_str(link.resolved);
///         output.push('\n');
///     }
/// }
///
/// let http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=b>b</a><img src=/i>";
/// let warc = format!(
///     "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://h/a/\r\n\
///      Content-Type: application/http;msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
///     http.len()
/// );
/// let mut text = String::new();
/// for item in EncodedLinks::new(warc.as_bytes(), Options::new(), Lines) {
///     match item? {
///         Encoded::Links(lines) => text.push_str(&lines),
///         Encoded::Warning(warning) => panic!("{warning}"),
///     }
/// }
/// assert_eq!(text, "http://h/a/b\nhttp://h/i\n");
/// # Ok::<(), absolve::warc::Error>(())
/// ```
pub struct EncodedLinks<R: Read, E: Encode>(Source<R, Encoding<E>>);

/// How many links an encoded output holds at most before it is handed on, counted by
/// weight ([`LINK_UNIT`]s: fewer when they are long; a record processed on its own
/// hands its links on as they come).
const ENCODED_LINKS: usize = 64;

/// What a record's links and warnings become, on the thread that finds them.
pub(super) trait Mode: Send + Sync + 'static {
    /// What is handed out.
    type Item: Send + 'static;
    /// The most links an item holds.
    const LINKS: usize;
    /// Links gathered, not handed on yet.
    type Open: Send;
    /// What a link weighs held as an item, in [`LINK_UNIT`]s (at least one): what the
    /// batch and the channel limits count, so that they bound bytes, not only links.
    fn weight(&self, link: &LinkRef<'_>) -> usize;
    /// Takes a link of `weight`; a complete item to hand on, if one is.
    fn link(
        &self,
        open: &mut Option<Self::Open>,
        link: LinkRef<'_>,
        weight: usize,
    ) -> Option<Self::Item>;
    /// The links gathered, as an item.
    fn close(&self, open: Option<Self::Open>) -> Option<Self::Item>;
    /// A warning, as an item.
    fn warning(&self, warning: crate::Warning) -> Self::Item;
}

/// Each link made a [`Link`], an [`Event`] of its own.
struct Owned;

impl Mode for Owned {
    type Item = Event;
    const LINKS: usize = 1;
    type Open = ();
    /// A [`Link`] copies its own strings; it shares its location and base.
    fn weight(&self, link: &LinkRef<'_>) -> usize {
        units(link.original.len() + link.resolved.len())
    }
    fn link(&self, _: &mut Option<()>, link: LinkRef<'_>, _: usize) -> Option<Event> {
        Some(Event::Link(link.to_link()))
    }
    fn close(&self, _: Option<()>) -> Option<Event> {
        None
    }
    fn warning(&self, warning: crate::Warning) -> Event {
        Event::Warning(warning)
    }
}

/// Links encoded by an [`Encode`], [`ENCODED_LINKS`] at most to an output.
struct Encoding<E>(E);

impl<E: Encode> Mode for Encoding<E> {
    type Item = Encoded<E::Output>;
    const LINKS: usize = ENCODED_LINKS;
    type Open = (E::Output, usize);
    /// An encoder writes every field of every link: its location and base too.
    fn weight(&self, link: &LinkRef<'_>) -> usize {
        let location = &link.location;
        let text = |s: Option<&str>| s.map_or(0, str::len);
        units(
            link.original.len()
                + link.resolved.len()
                + link.base.map_or(0, |base| base.len())
                + text(location.file.as_deref())
                + text(location.record.as_deref())
                + text(location.target_uri.as_deref())
                + text(location.part.as_deref()),
        )
    }
    fn link(
        &self,
        open: &mut Option<Self::Open>,
        link: LinkRef<'_>,
        weight: usize,
    ) -> Option<Self::Item> {
        let (output, held) = open.get_or_insert_with(|| (self.0.start(), 0));
        self.0.link(output, link);
        *held += weight;
        match *held >= ENCODED_LINKS {
            true => self.close(open.take()),
            false => None,
        }
    }
    fn close(&self, open: Option<Self::Open>) -> Option<Self::Item> {
        open.map(|(output, _)| Encoded::Links(output))
    }
    fn warning(&self, warning: crate::Warning) -> Self::Item {
        Encoded::Warning(warning)
    }
}

/// The bytes a link is counted as one of, for the limits on links held
/// ([`BATCH_EVENTS`], [`CHANNEL_EVENTS`], [`ENCODED_LINKS`]): a Common Crawl record's link
/// weighs one; one of 90 KB (a 30 KB `WARC-Target-URI`, base and resolved URL) some 200,
/// so that 16,384 such links are not gathered (1.5 GB) before the record is streamed.
const LINK_UNIT: usize = 512;

/// `bytes` in [`LINK_UNIT`]s, at least one.
fn units(bytes: usize) -> usize {
    1 + bytes / LINK_UNIT
}

/// The room an output of a [`LinkEncoder`](crate::LinkEncoder) starts with: the JSON
/// lines of [`ENCODED_LINKS`] links of some 450 bytes (a Common Crawl record's), so that
/// an output is seldom grown (and copied) as it is written.
const LINK_BYTES: usize = 32 << 10;

/// A sink's [`LinkEncoder`](crate::LinkEncoder) as an [`Encode`]: whether a link changed noted for it.
impl Encode for Arc<dyn crate::LinkEncoder> {
    type Output = crate::LinkBytes;
    fn start(&self) -> crate::LinkBytes {
        crate::LinkBytes {
            bytes: Vec::with_capacity(LINK_BYTES),
            ..crate::LinkBytes::default()
        }
    }
    fn link(&self, output: &mut crate::LinkBytes, link: LinkRef<'_>) {
        output.changed |= link.resolved != link.original;
        self.encode(link, output);
    }
}

/// The reader behind [`Links`] and [`EncodedLinks`].
pub(super) struct Reader<R: Read, M: Mode> {
    state: State<R>,
    options: Arc<Options>,
    mode: Arc<M>,
    queue: VecDeque<M::Item>,
    /// The records of the batch being handed out, in order.
    outcomes: VecDeque<Outcome<M::Item>>,
    /// A record being processed on a thread of its own: its events, handed out first.
    streaming: Option<Receiver<Streamed<M::Item>>>,
    /// Warnings met while reading, not yet given to a pending record.
    warnings: Vec<Warning>,
    /// Records read whose payloads are not processed yet, and their payload bytes.
    pending: Vec<Pending>,
    pending_bytes: usize,
    /// Batches being processed (or large records waiting), oldest first.
    in_flight: VecDeque<Flight<M::Item>>,
    /// An error met with records pending: reported after their links.
    deferred: Option<Error>,
    /// Counted among the files listed on a pool's threads (see [`OnPool`]), once it
    /// processes a batch on one.
    on_pool: Option<OnPool>,
}

/// How many WARC files are being listed on the threads of a rayon pool (a caller's
/// `par_iter` over files, `absolve links -r -j N`), by this process.
static LISTED_ON_POOL: AtomicUsize = AtomicUsize::new(0);

/// One file listed on a pool's thread: counted in [`LISTED_ON_POOL`] while it lives.
struct OnPool;

impl OnPool {
    fn new() -> Self {
        LISTED_ON_POOL.fetch_add(1, Ordering::Relaxed);
        OnPool
    }
}

impl Drop for OnPool {
    fn drop(&mut self) {
        LISTED_ON_POOL.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether a batch read on a pool's thread is parsed in parallel on the pool: only while
/// fewer files are listed on pools than the pool has threads (the last files of a run, a
/// large file the others have finished before). With a file per thread, every thread is
/// busy already, and splitting each batch across the pool only makes a thread that waits
/// for a piece another took start another file meanwhile (rayon's work stealing): the
/// file being written waits behind it and the files after it spool. Measured over 30
/// WARC files (BENCHMARKS.md, "Crawl scale"): `-j 2` 1.64x as fast as `-j 1` when every
/// batch was split, 1.85x now (paired medians of 10 rounds), its system time 0.32 s
/// before, 0.10 s now.
fn parse_batch_in_parallel(listed_on_pool: usize, threads: usize) -> bool {
    listed_on_pool < threads
}

/// How many payload bytes are read before the batch is processed.
pub const BATCH_BYTES: usize = 4 << 20;

/// The decoded size from which a payload is processed on its own, its links handed on as
/// they are found rather than gathered.
pub const LARGE_PAYLOAD: usize = 8 << 20;

/// The most records in a batch.
const BATCH_RECORDS: usize = 256;

/// The most events a batch gathers, by weight ([`LINK_UNIT`]s: a link of some 460
/// bytes weighs one): a record that would take its batch beyond is processed again on its
/// own, streaming.
const BATCH_EVENTS: usize = 16 * 1024;

/// How many links (or warnings) a record processed on its own may have waiting to be
/// handed out: items of [`Mode::LINKS`] links (by weight) each, `CHANNEL_EVENTS / LINKS`
/// of them.
const CHANNEL_EVENTS: usize = 1024;

/// The most batches processed at once while the next is read.
pub const IN_FLIGHT: usize = 2;

/// A batch's records' outcomes, in order (or the panic that stopped it).
type Processed<T> = std::thread::Result<Vec<Outcome<T>>>;

/// What a record of a batch gave.
enum Outcome<T> {
    Events(Vec<T>),
    /// Too many links to gather: to be processed on its own, streaming.
    Alone(Box<Pending>),
}

/// Work handed out, in file order.
enum Flight<T> {
    Batch(Receiver<Processed<T>>),
    /// A large record, processed on its own when its turn comes.
    Large(Box<Pending>),
}

/// A record's payload, decoded.
enum PayloadBytes {
    /// No document to read.
    None,
    /// The block's bytes from this offset on (no coding to undo).
    InBlock(usize),
    /// Decoded.
    Decoded(Vec<u8>),
}

/// A record read, its payload not processed yet.
struct Pending {
    analysis: Analysis,
    payload: PayloadBytes,
    header_links: Vec<Link>,
    /// The warnings met while reading it (and the bytes before it).
    warnings: Vec<Warning>,
}

impl Pending {
    /// Decodes the payload of a record just read (one at a time, so that decoded
    /// payloads are held one per batch, not one per thread).
    fn new(mut analysis: Analysis, warnings: Vec<Warning>) -> Pending {
        let mut warnings = warnings;
        let header_links = std::mem::take(&mut analysis.header_links);
        let mut warn = |w: Warning| warnings.push(w);
        let payload = match analysis.document {
            Some(kind) => match payload::payload(&analysis, &mut warn) {
                Some(p) if payload::is_document(kind, &p.body) => match p.body {
                    Cow::Borrowed(body) => PayloadBytes::InBlock(
                        body.as_ptr() as usize - analysis.prefix.as_ptr() as usize,
                    ),
                    Cow::Owned(body) => PayloadBytes::Decoded(body),
                },
                _ => PayloadBytes::None,
            },
            None => PayloadBytes::None,
        };
        if !matches!(payload, PayloadBytes::InBlock(_)) {
            // The block is no longer needed: only its parsed heads are.
            analysis.prefix = Vec::new();
        }
        Pending {
            analysis,
            payload,
            header_links,
            warnings,
        }
    }

    /// The bytes held for it.
    fn size(&self) -> usize {
        match &self.payload {
            PayloadBytes::Decoded(body) => body.len() + self.analysis.prefix.len(),
            _ => self.analysis.prefix.len(),
        }
    }

    fn body(&self) -> Option<&[u8]> {
        match &self.payload {
            PayloadBytes::None => None,
            PayloadBytes::InBlock(at) => Some(&self.analysis.prefix[*at..]),
            PayloadBytes::Decoded(body) => Some(body),
        }
    }

    fn location(&self) -> Location {
        Location {
            record: self.analysis.head.identity().map(Arc::from),
            target_uri: self.analysis.target_uri.as_deref().map(Arc::from),
            ..Location::default()
        }
    }

    /// The record's events: its warnings, then its links (header fields first, then
    /// payload) and the rewriter's warnings as they come, each given to `emit` as it is
    /// found. `false` when `emit` refused one (then it is given no more).
    ///
    /// `emit` is given each item with the number of links and warnings in it.
    fn run<M: Mode>(
        &self,
        options: &Options,
        mode: &M,
        emit: &mut dyn FnMut(M::Item, usize) -> bool,
    ) -> bool {
        let run = RefCell::new(Run {
            open: true,
            emit,
            gathered: None,
            count: 0,
        });
        let give_link = |link: LinkRef<'_>| {
            let mut run = run.borrow_mut();
            if run.open {
                let weight = mode.weight(&link);
                run.count += weight;
                if let Some(item) = mode.link(&mut run.gathered, link, weight) {
                    run.hand_on(item);
                }
            }
        };
        let give_warning = |warning: Warning| {
            let mut run = run.borrow_mut();
            if run.open {
                if let Some(item) = mode.close(run.gathered.take()) {
                    run.hand_on(item);
                }
                run.count += 1;
                if run.open {
                    run.hand_on(mode.warning(warning.into()));
                }
            }
        };
        for warning in &self.warnings {
            give_warning(warning.clone());
        }
        let location = self.location();
        let mut link = |link: LinkRef<'_>| {
            give_link(LinkRef {
                location: &location,
                ..link
            });
        };
        for header_link in &self.header_links {
            link(header_link.borrowed());
        }
        if let (Some(kind), Some(body)) = (self.analysis.document, self.body()) {
            let mut warn = |w: Warning| give_warning(w);
            // Nothing is written: no output, no error.
            let _ = payload::process(
                &self.analysis,
                kind,
                body,
                options,
                None,
                Some(&mut link),
                &mut warn,
            );
        }
        let mut run = run.into_inner();
        if run.open
            && let Some(item) = mode.close(run.gathered.take())
        {
            run.hand_on(item);
        }
        run.open
    }

    /// Its events gathered, unless they take the batch's count beyond [`BATCH_EVENTS`].
    fn gather<M: Mode>(self, options: &Options, mode: &M, count: &AtomicUsize) -> Outcome<M::Item> {
        let mut events = Vec::new();
        let mut kept = 0;
        let complete = self.run(options, mode, &mut |event, n| {
            if count.fetch_add(n, Ordering::Relaxed) >= BATCH_EVENTS {
                return false;
            }
            kept += n;
            events.push(event);
            true
        });
        match complete {
            true => Outcome::Events(events),
            false => {
                count.fetch_sub(kept, Ordering::Relaxed);
                Outcome::Alone(Box::new(self))
            }
        }
    }

    /// Its events handed out through a bounded channel, from a thread of its own (a
    /// panic there is handed out too, to be resumed by the reader).
    fn stream<M: Mode>(self, options: Arc<Options>, mode: Arc<M>) -> Receiver<Streamed<M::Item>> {
        // Counted in links: 1,024 outputs of 64 links held a whole record of 65,536 links
        // with an 8 KB URL each (512 MB) while the reader took them.
        let (send, receive) = std::sync::mpsc::sync_channel((CHANNEL_EVENTS / M::LINKS).max(1));
        std::thread::spawn(move || {
            let run = std::panic::catch_unwind(AssertUnwindSafe(|| {
                // The receiver is gone only if the iterator was dropped: then stop sending.
                self.run(&options, &*mode, &mut |event, _| {
                    send.send(Ok(event)).is_ok()
                });
            }));
            if let Err(panic) = run {
                let _ = send.send(Err(panic));
            }
        });
        receive
    }
}

/// A record's run: items handed on until `emit` refuses one.
struct Run<'e, T, O> {
    open: bool,
    emit: &'e mut dyn FnMut(T, usize) -> bool,
    /// Links gathered for the next item.
    gathered: Option<O>,
    /// The weight of the links and warnings since the last item handed on.
    count: usize,
}

impl<T, O> Run<'_, T, O> {
    fn hand_on(&mut self, item: T) {
        let count = std::mem::take(&mut self.count);
        self.open = (self.emit)(item, count);
    }
}

/// An event of a record processed on its own, or the panic that stopped it.
type Streamed<T> = std::thread::Result<T>;

enum State<R> {
    /// The input has not been looked at yet.
    Start(R),
    Reading(Box<Framing<R>>),
    Done,
}

impl<R: Read> Links<R> {
    /// Links of the WARC read from `reader` (plain, or compressed: gzip, bzip2, xz, zstd
    /// or LZ4, told by its magic number).
    pub fn new(reader: R, options: Options) -> Self {
        Links(Source::new(reader, options, Owned))
    }
}

impl<R: Read, E: Encode> EncodedLinks<R, E> {
    /// The links of the WARC read from `reader` (plain, or compressed: gzip, bzip2, xz,
    /// zstd or LZ4, told by its magic number), each encoded by `encoder`.
    pub fn new(reader: R, options: Options, encoder: E) -> Self {
        EncodedLinks(Source::new(reader, options, Encoding(encoder)))
    }
}

impl<R: Read> Iterator for Links<R> {
    type Item = Result<Event, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }
}

impl<R: Read, E: Encode> Iterator for EncodedLinks<R, E> {
    type Item = Result<Encoded<E::Output>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }
}

impl<R: Read, M: Mode> Reader<R, M> {
    /// The records of `reader`, a WARC plain or gzip.
    pub(super) fn new(reader: R, options: Arc<Options>, mode: Arc<M>) -> Self {
        Reader {
            state: State::Start(reader),
            options,
            mode,
            queue: VecDeque::new(),
            outcomes: VecDeque::new(),
            streaming: None,
            warnings: Vec::new(),
            pending: Vec::new(),
            pending_bytes: 0,
            in_flight: VecDeque::new(),
            deferred: None,
            on_pool: None,
        }
    }

    /// Reads the next record; `Ok(false)` at the end of the input.
    fn read_record(&mut self) -> Result<bool, Error> {
        let framing = match std::mem::replace(&mut self.state, State::Done) {
            State::Start(reader) => Box::new(Framing::new(reader, &self.options)?),
            State::Reading(framing) => framing,
            State::Done => return Ok(false),
        };
        self.state = State::Reading(framing);
        let State::Reading(framing) = &mut self.state else {
            unreachable!("set just above")
        };
        let warnings = &mut self.warnings;
        let mut warn = |w: Warning| warnings.push(w);
        let Some(head) = framing.next_head(&mut warn, &mut |_| Ok(()))? else {
            self.state = State::Done;
            return Ok(false);
        };
        let record = head.record.clone();
        if !head.has_length {
            warn(super::arc::no_length(&head));
            framing.previous = Some(record);
            return Ok(true);
        }
        let mut analysis = payload::analyze(framing, head, &self.options, &mut warn)?;
        match analysis.document {
            Some(_) => payload::read_block(framing, &mut analysis, &mut warn)?,
            None => payload::copy_block(framing, &analysis, &mut |_| Ok(()), &mut warn)?,
        }
        framing.end_of_record(&record, &mut warn)?;
        framing.previous = Some(record);
        framing.report_damage(&mut warn);
        let position = framing.position();
        framing.input.get_mut().forget_members_before(position);
        let pending = Pending::new(analysis, std::mem::take(&mut self.warnings));
        if pending.size() >= LARGE_PAYLOAD {
            if !self.pending.is_empty() {
                self.process_pending();
            }
            self.in_flight.push_back(Flight::Large(Box::new(pending)));
            return Ok(true);
        }
        self.pending_bytes += pending.size();
        self.pending.push(pending);
        if self.pending_bytes >= BATCH_BYTES || self.pending.len() >= BATCH_RECORDS {
            self.process_pending();
        }
        Ok(true)
    }

    /// Sends the pending records' payloads to be processed, in parallel on rayon's pool,
    /// while the caller reads on.
    ///
    /// On a thread of a rayon pool (a caller's `par_iter`) the batch is processed before
    /// this returns (waiting there for a job sent to the pool could wait forever, every
    /// thread of the pool waiting likewise): in parallel on the pool only while fewer files
    /// are listed on pools than it has threads ([`parse_batch_in_parallel`]).
    fn process_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        self.pending_bytes = 0;
        let options = Arc::clone(&self.options);
        let mode = Arc::clone(&self.mode);
        let (done, receiver) = std::sync::mpsc::sync_channel(1);
        let on_pool = rayon::current_thread_index().is_some();
        if on_pool && self.on_pool.is_none() {
            self.on_pool = Some(OnPool::new());
        }
        let parallel = !on_pool
            || parse_batch_in_parallel(
                LISTED_ON_POOL.load(Ordering::Relaxed),
                rayon::current_num_threads(),
            );
        let job = move || {
            let count = AtomicUsize::new(0);
            let gather = |p: Pending| p.gather(&options, &*mode, &count);
            let processed = std::panic::catch_unwind(AssertUnwindSafe(|| match parallel {
                true => pending.into_par_iter().map(gather).collect(),
                false => pending.into_iter().map(gather).collect(),
            }));
            // The receiver is gone only if the iterator was dropped: nothing to tell.
            let _ = done.send(processed);
        };
        match on_pool {
            true => job(),
            false => rayon::spawn(job),
        }
        self.in_flight.push_back(Flight::Batch(receiver));
    }

    /// Takes the outcomes of the oldest work in flight, waiting for it if `wait`;
    /// whether it did.
    fn collect_oldest(&mut self, wait: bool) -> bool {
        let processed = match self.in_flight.front() {
            None => return false,
            Some(Flight::Large(_)) => {
                let Some(Flight::Large(pending)) = self.in_flight.pop_front() else {
                    unreachable!("just seen")
                };
                self.outcomes.push_back(Outcome::Alone(pending));
                return true;
            }
            Some(Flight::Batch(oldest)) => match wait {
                true => oldest.recv().ok(),
                false => oldest.try_recv().ok(),
            },
        };
        let Some(processed) = processed else {
            return false;
        };
        self.in_flight.pop_front();
        let done = processed.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        self.outcomes.extend(done);
        true
    }
}

impl<R: Read, M: Mode> Reader<R, M> {
    pub(super) fn next(&mut self) -> Option<Result<M::Item, Error>> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                return Some(Ok(event));
            }
            if let Some(streaming) = &self.streaming {
                match streaming.recv() {
                    Ok(Ok(event)) => return Some(Ok(event)),
                    Ok(Err(panic)) => std::panic::resume_unwind(panic),
                    Err(_) => self.streaming = None,
                }
                continue;
            }
            match self.outcomes.pop_front() {
                Some(Outcome::Events(events)) => {
                    self.queue.extend(events);
                    continue;
                }
                Some(Outcome::Alone(pending)) => {
                    let mode = Arc::clone(&self.mode);
                    self.streaming = Some(pending.stream(Arc::clone(&self.options), mode));
                    continue;
                }
                None => {}
            }
            let reading = !matches!(self.state, State::Done) && self.deferred.is_none();
            // While reading, work not done yet is waited for only when enough is in
            // flight (or a large record is: nothing more is read until it is handed out);
            // the next records are read meanwhile.
            let large = self.in_flight.iter().any(|f| matches!(f, Flight::Large(_)));
            let wait = !reading || large || self.in_flight.len() >= IN_FLIGHT;
            if self.collect_oldest(wait) {
                continue;
            }
            if !reading {
                if !self.pending.is_empty() {
                    self.process_pending();
                    continue;
                }
                if !self.warnings.is_empty() {
                    // Warnings after the last record (a truncated file, trailing junk).
                    let mode = &self.mode;
                    let warnings = self.warnings.drain(..).map(|w| mode.warning(w.into()));
                    self.queue.extend(warnings);
                    continue;
                }
                return self.deferred.take().map(Err);
            }
            match self.read_record() {
                Ok(true) => {}
                Ok(false) => self.state = State::Done,
                Err(error) => {
                    self.state = State::Done;
                    self.deferred = Some(error);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each link as the JSON of its [`LinkRef`], a line each.
    struct Json;

    impl Encode for Json {
        type Output = Vec<String>;
        fn start(&self) -> Vec<String> {
            Vec::new()
        }
        fn link(&self, output: &mut Vec<String>, link: LinkRef<'_>) {
            output.push(serde_json::to_string(&link).expect("a link serializes"));
        }
    }

    /// A response record of `body` at `uri`, or, without `length`, one with no
    /// `Content-Length` (read past with a warning).
    fn record(uri: &str, body: &str, length: bool) -> String {
        let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
        let length = match length {
            true => format!("Content-Length: {}\r\n", http.len()),
            false => String::new(),
        };
        format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:{uri}>\r\n\
             WARC-Target-URI: {uri}\r\nContent-Type: application/http;msgtype=response\r\n\
             {length}\r\n{http}\r\n\r\n"
        )
    }

    /// A batch read on a pool's thread is split across the pool only while some thread
    /// has no file of its own.
    #[test]
    fn batches_are_split_only_while_threads_have_no_file() {
        assert!(
            parse_batch_in_parallel(1, 2),
            "the last file: the other thread helps"
        );
        assert!(!parse_batch_in_parallel(2, 2), "a file per thread");
        assert!(
            !parse_batch_in_parallel(3, 2),
            "a file started while another waited"
        );
        assert!(!parse_batch_in_parallel(1, 1), "one thread");
    }

    /// A file listed on a pool's thread is counted while its links are found, whether it
    /// is read to the end or dropped after its first item.
    #[test]
    fn files_listed_on_pool_threads_are_counted_while_listed() {
        struct Seen(Arc<std::sync::Mutex<Vec<usize>>>);
        impl Encode for Seen {
            type Output = ();
            fn start(&self) {}
            fn link(&self, _: &mut (), _: LinkRef<'_>) {
                let listed = LISTED_ON_POOL.load(Ordering::Relaxed);
                self.0.lock().expect("not poisoned").push(listed);
            }
        }
        let page: String = (0..10).map(|i| format!("<a href=p{i}>")).collect();
        let warc = record("http://h/a/", &page, true);
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let links = || EncodedLinks::new(warc.as_bytes(), Options::new(), Seen(Arc::clone(&seen)));
        // Off any pool: not counted.
        assert_eq!(links().count(), 1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a pool");
        pool.install(|| {
            assert_eq!(links().count(), 1);
            let mut first = links();
            assert!(first.next().is_some());
            drop(first);
        });
        // Other tests may list files on pools at the same time, so the count is not
        // exact: what is asserted is that each link found on a pool saw its file counted.
        let seen = seen.lock().expect("not poisoned");
        assert_eq!(seen.len(), 30);
        assert!(seen[10..].iter().all(|&listed| listed >= 1), "{seen:?}");
    }

    /// A record processed on its own holds at most [`CHANNEL_EVENTS`] links ahead of the
    /// reader, however many an output holds.
    #[test]
    fn a_streamed_record_holds_few_encoded_links_ahead() {
        /// Links in outputs not dropped yet, counted in `held`.
        struct Held {
            links: usize,
            held: Arc<AtomicUsize>,
        }
        impl Drop for Held {
            fn drop(&mut self) {
                self.held.fetch_sub(self.links, Ordering::Relaxed);
            }
        }
        struct Counted(Arc<AtomicUsize>);
        impl Encode for Counted {
            type Output = Held;
            fn start(&self) -> Held {
                Held {
                    links: 0,
                    held: Arc::clone(&self.0),
                }
            }
            fn link(&self, output: &mut Held, _: LinkRef<'_>) {
                output.links += 1;
                self.0.fetch_add(1, Ordering::Relaxed);
            }
        }
        let links = 4 * BATCH_EVENTS;
        let warc = record("http://h/a/", &"<a href=x>".repeat(links), true);
        let held = Arc::new(AtomicUsize::new(0));
        let mut reader =
            EncodedLinks::new(warc.as_bytes(), Options::new(), Counted(Arc::clone(&held)));
        drop(reader.next());
        // Until the thread finding them stops, waiting for the reader.
        let mut seen = 0;
        for _ in 0..200 {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let now = held.load(Ordering::Relaxed);
            if now == seen && now > 0 {
                break;
            }
            seen = now;
        }
        let ahead = held.load(Ordering::Relaxed);
        // The channel's, one being sent and one being filled.
        assert!(
            ahead <= CHANNEL_EVENTS + 2 * ENCODED_LINKS,
            "{ahead} links held ahead"
        );
        assert_eq!(reader.count() + 1, links / ENCODED_LINKS);
    }

    /// Links are held by their weight, not their number: 5,000 links of a record whose
    /// `WARC-Target-URI` is 30 KB (each encoded with it, its base and its resolved URL:
    /// ~90 KB) were gathered in a batch, up to 16,384 of them (1.5 GB from a 730 KB file),
    /// before the record was streamed. The bytes held in outputs stay under 16 MB.
    #[test]
    fn long_links_are_held_by_their_bytes() {
        /// Bytes of links in outputs not dropped yet: counted, never allocated.
        struct Held {
            bytes: usize,
            held: Arc<(AtomicUsize, AtomicUsize)>,
        }
        impl Drop for Held {
            fn drop(&mut self) {
                self.held.0.fetch_sub(self.bytes, Ordering::Relaxed);
            }
        }
        struct Weighed(Arc<(AtomicUsize, AtomicUsize)>);
        impl Encode for Weighed {
            type Output = Held;
            fn start(&self) -> Held {
                Held {
                    bytes: 0,
                    held: Arc::clone(&self.0),
                }
            }
            fn link(&self, output: &mut Held, link: LinkRef<'_>) {
                let bytes = link.resolved.len()
                    + link.base.map_or(0, |b| b.len())
                    + link.location.target_uri.as_deref().map_or(0, str::len);
                output.bytes += bytes;
                let now = self.0.0.fetch_add(bytes, Ordering::Relaxed) + bytes;
                self.0.1.fetch_max(now, Ordering::Relaxed);
            }
        }
        let uri = format!("http://h/{}/", "p".repeat(30_000));
        let warc = record(&uri, &"<a href=x>".repeat(5_000), true);
        let held = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
        let reader = EncodedLinks::new(warc.as_bytes(), Options::new(), Weighed(Arc::clone(&held)));
        let outputs = reader.count();
        let peak = held.1.load(Ordering::Relaxed);
        assert!(peak < 16 << 20, "{peak} bytes held at most");
        assert!(outputs >= 5_000 / ENCODED_LINKS, "{outputs} outputs");
    }

    /// Encoded where they are found, the links and warnings are those of [`Links`], in
    /// the same order, split into outputs of at most [`ENCODED_LINKS`] links.
    #[test]
    fn encoded_links_are_the_links() {
        let many: String = (0..ENCODED_LINKS + 5)
            .map(|i| format!("<a href=p{i}>"))
            .collect();
        let warc = [
            record("http://h/a/", "<base href=/b/><img src=i.png>", true),
            record("http://h/c/", "<a href=x>", false),
            record("http://h/d/", &many, true),
            record(
                "http://h/e/",
                "<style>p{background:url(e.png)}</style>",
                true,
            ),
        ]
        .concat();
        let mut expected = Vec::new();
        for event in Links::new(warc.as_bytes(), Options::new()) {
            expected.push(match event.expect("readable") {
                Event::Link(link) => serde_json::to_string(&link).expect("serializes"),
                Event::Warning(warning) => format!("warning: {warning}"),
            });
        }
        let mut found = Vec::new();
        let mut largest = 0;
        for item in EncodedLinks::new(warc.as_bytes(), Options::new(), Json) {
            match item.expect("readable") {
                Encoded::Links(lines) => {
                    largest = largest.max(lines.len());
                    found.extend(lines);
                }
                Encoded::Warning(warning) => found.push(format!("warning: {warning}")),
            }
        }
        assert_eq!(found, expected);
        assert_eq!(largest, ENCODED_LINKS);
        assert!(expected.iter().any(|line| line.starts_with("warning: ")));
        assert_eq!(expected.len(), 2 + 1 + ENCODED_LINKS + 5 + 1 + 1);
    }
}
