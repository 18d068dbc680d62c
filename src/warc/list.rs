//! [`Links`]: the links of a WARC file, record by record.

use super::framing::Framing;
use super::payload::{self, Analysis};
use super::{Error, Options, Warning};
use crate::Event;
use crate::links::{Link, Location};
use rayon::prelude::*;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::Read;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;

/// Streams the links of a WARC (plain or gzip, detected), record by record, as
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
/// Other records are read past without being held.
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
pub struct Links<R: Read> {
    state: State<R>,
    options: Arc<Options>,
    queue: VecDeque<Event>,
    /// The records of the batch being handed out, in order.
    outcomes: VecDeque<Outcome>,
    /// A record being processed on a thread of its own: its events, handed out first.
    streaming: Option<Receiver<Streamed>>,
    /// Warnings met while reading, not yet given to a pending record.
    warnings: Vec<Warning>,
    /// Records read whose payloads are not processed yet, and their payload bytes.
    pending: Vec<Pending>,
    pending_bytes: usize,
    /// Batches being processed (or large records waiting), oldest first.
    in_flight: VecDeque<Flight>,
    /// An error met with records pending: reported after their links.
    deferred: Option<Error>,
}

/// How many payload bytes are read before the batch is processed.
pub const BATCH_BYTES: usize = 4 << 20;

/// The decoded size from which a payload is processed on its own, its links handed on as
/// they are found rather than gathered.
pub const LARGE_PAYLOAD: usize = 8 << 20;

/// The most records in a batch.
const BATCH_RECORDS: usize = 256;

/// The most events a batch gathers (some 460 bytes each): a record that would take its
/// batch beyond is processed again on its own, streaming.
const BATCH_EVENTS: usize = 16 * 1024;

/// How many events a record processed on its own may have waiting to be handed out.
const CHANNEL_EVENTS: usize = 1024;

/// The most batches processed at once while the next is read.
pub const IN_FLIGHT: usize = 2;

/// A batch's records' outcomes, in order (or the panic that stopped it).
type Processed = std::thread::Result<Vec<Outcome>>;

/// What a record of a batch gave.
enum Outcome {
    Events(Vec<Event>),
    /// Too many links to gather: to be processed on its own, streaming.
    Alone(Box<Pending>),
}

/// Work handed out, in file order.
enum Flight {
    Batch(Receiver<Processed>),
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
            record: self.analysis.head.record.id.as_deref().map(Arc::from),
            target_uri: self.analysis.target_uri.as_deref().map(Arc::from),
            ..Location::default()
        }
    }

    /// The record's events: its warnings, then its links (header fields first, then
    /// payload) and the rewriter's warnings as they come, each given to `emit` as it is
    /// found. `false` when `emit` refused one (then it is given no more).
    fn run(&self, options: &Options, emit: &mut dyn FnMut(Event) -> bool) -> bool {
        let open = RefCell::new((true, emit));
        let give = |event: Event| {
            let mut open = open.borrow_mut();
            if open.0 {
                open.0 = (open.1)(event);
            }
        };
        for warning in &self.warnings {
            give(Event::Warning(warning.clone().into()));
        }
        let location = self.location();
        let mut link = |mut link: Link| {
            link.location = location.clone();
            give(Event::Link(link));
        };
        for header_link in &self.header_links {
            link(header_link.clone());
        }
        if let (Some(kind), Some(body)) = (self.analysis.document, self.body()) {
            let mut warn = |w: Warning| give(Event::Warning(w.into()));
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
        open.into_inner().0
    }

    /// Its events gathered, unless they take the batch's count beyond [`BATCH_EVENTS`].
    fn gather(self, options: &Options, count: &AtomicUsize) -> Outcome {
        let mut events = Vec::new();
        let complete = self.run(options, &mut |event| {
            if count.fetch_add(1, Ordering::Relaxed) >= BATCH_EVENTS {
                return false;
            }
            events.push(event);
            true
        });
        match complete {
            true => Outcome::Events(events),
            false => {
                count.fetch_sub(events.len(), Ordering::Relaxed);
                Outcome::Alone(Box::new(self))
            }
        }
    }

    /// Its events handed out through a bounded channel, from a thread of its own (a
    /// panic there is handed out too, to be resumed by the reader).
    fn stream(self, options: Arc<Options>) -> Receiver<Streamed> {
        let (send, receive) = std::sync::mpsc::sync_channel(CHANNEL_EVENTS);
        std::thread::spawn(move || {
            let run = std::panic::catch_unwind(AssertUnwindSafe(|| {
                // The receiver is gone only if the iterator was dropped: then stop sending.
                self.run(&options, &mut |event| send.send(Ok(event)).is_ok());
            }));
            if let Err(panic) = run {
                let _ = send.send(Err(panic));
            }
        });
        receive
    }
}

/// An event of a record processed on its own, or the panic that stopped it.
type Streamed = std::thread::Result<Event>;

enum State<R> {
    /// The input has not been looked at yet.
    Start(R),
    Reading(Box<Framing<R>>),
    Done,
}

impl<R: Read> Links<R> {
    /// Links of the WARC read from `reader` (plain, or gzip detected by its magic number).
    pub fn new(reader: R, options: Options) -> Self {
        Links {
            state: State::Start(reader),
            options: Arc::new(options),
            queue: VecDeque::new(),
            outcomes: VecDeque::new(),
            streaming: None,
            warnings: Vec::new(),
            pending: Vec::new(),
            pending_bytes: 0,
            in_flight: VecDeque::new(),
            deferred: None,
        }
    }

    /// Reads the next record; `Ok(false)` at the end of the input.
    fn read_record(&mut self) -> Result<bool, Error> {
        let framing = match std::mem::replace(&mut self.state, State::Done) {
            State::Start(reader) => Box::new(Framing::new(reader)?),
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
            warn(Warning::NoContentLength {
                record: record.clone(),
            });
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
    /// this returns, in parallel all the same: waiting there for a job sent to the pool
    /// could wait forever, every thread of the pool waiting likewise.
    fn process_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        self.pending_bytes = 0;
        let options = Arc::clone(&self.options);
        let (done, receiver) = std::sync::mpsc::sync_channel(1);
        let job = move || {
            let count = AtomicUsize::new(0);
            let processed = std::panic::catch_unwind(AssertUnwindSafe(|| {
                pending
                    .into_par_iter()
                    .map(|p| p.gather(&options, &count))
                    .collect()
            }));
            // The receiver is gone only if the iterator was dropped: nothing to tell.
            let _ = done.send(processed);
        };
        match rayon::current_thread_index() {
            Some(_) => job(),
            None => rayon::spawn(job),
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

impl<R: Read> Iterator for Links<R> {
    type Item = Result<Event, Error>;

    fn next(&mut self) -> Option<Self::Item> {
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
                    self.streaming = Some(pending.stream(Arc::clone(&self.options)));
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
                    let warnings = self.warnings.drain(..).map(|w| Event::Warning(w.into()));
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
