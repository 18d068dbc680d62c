//! [`Links`]: the links of a WARC file, record by record.

use super::framing::Framing;
use super::payload::{self, Analysis};
use super::{Error, Options, Warning};
use crate::Event;
use crate::links::{Link, Location};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::io::Read;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::mpsc::Receiver;

/// Streams the links of a WARC (plain or gzip, detected), record by record, as
/// [`Event`]s: the URLs of each `response` record's HTTP header fields, then those of its
/// HTML or CSS payload (and of `resource` records, and the header fields of `revisit`
/// records), each [`Link`] located by the record's ID and target URI; each warning (a
/// damaged record, read past) before the links of the record it is about.
///
/// Payloads are read in batches of [`BATCH_BYTES`], each processed in parallel on rayon's
/// pool while the next batch is read (at most `IN_FLIGHT` (2) batches at once, so memory
/// holds at most `IN_FLIGHT + 1` batches beyond the largest payload); events come out in
/// file order. Other records are read past without being held.
/// The iterator ends after the first [`Error`] (the input is then unreadable).
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
    /// Warnings met while reading, not yet given to a pending record.
    warnings: Vec<Warning>,
    /// Records read whose payloads are not processed yet, and their payload bytes.
    pending: Vec<Pending>,
    pending_bytes: usize,
    /// Batches being processed, oldest first.
    in_flight: VecDeque<Receiver<Processed>>,
    /// An error met with records pending: reported after their links.
    deferred: Option<Error>,
}

/// How many payload bytes are read before the batch is processed.
pub const BATCH_BYTES: usize = 4 << 20;

/// The most records in a batch.
const BATCH_RECORDS: usize = 256;

/// The most batches processed at once while the next is read.
pub const IN_FLIGHT: usize = 2;

/// A batch's records' events, in order (or the panic that stopped it).
type Processed = std::thread::Result<Vec<Vec<Event>>>;

/// A record read, its payload not processed yet.
struct Pending {
    analysis: Analysis,
    header_links: Vec<Link>,
    /// The warnings met while reading it (and the bytes before it).
    warnings: Vec<Warning>,
}

impl Pending {
    /// The record's events: its warnings, then its links (header fields first, then
    /// payload).
    fn finish(self, options: &Options) -> Vec<Event> {
        let mut warnings = self.warnings;
        let mut warn = |w: Warning| warnings.push(w);
        let analysis = &self.analysis;
        let mut links = self.header_links;
        if let Some(kind) = analysis.document
            && let Some(body) = payload::payload(analysis, &mut warn)
            && payload::is_document(kind, &body)
        {
            links.extend(payload::process(analysis, kind, &body, options, false, &mut warn).links);
        }
        let location = Location {
            record: analysis.head.record.id.as_deref().map(Arc::from),
            target_uri: analysis.target_uri.as_deref().map(Arc::from),
            ..Location::default()
        };
        let mut events = Vec::with_capacity(warnings.len() + links.len());
        events.extend(warnings.into_iter().map(|w| Event::Warning(w.into())));
        events.extend(links.into_iter().map(|mut link| {
            link.location = location.clone();
            Event::Link(link)
        }));
        events
    }
}

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
        let Some(head) = framing.next_head(&mut warn)? else {
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
        self.pending_bytes += analysis.prefix.len();
        let header_links = std::mem::take(&mut analysis.header_links);
        self.pending.push(Pending {
            analysis,
            header_links,
            warnings: std::mem::take(&mut self.warnings),
        });
        framing.end_of_record()?;
        framing.previous = Some(record);
        let position = framing.position();
        framing.input.get_mut().forget_members_before(position);
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
            let processed = std::panic::catch_unwind(AssertUnwindSafe(|| {
                pending
                    .into_par_iter()
                    .map(|p| p.finish(&options))
                    .collect()
            }));
            // The receiver is gone only if the iterator was dropped: nothing to tell.
            let _ = done.send(processed);
        };
        match rayon::current_thread_index() {
            Some(_) => job(),
            None => rayon::spawn(job),
        }
        self.in_flight.push_back(receiver);
    }

    /// Queues the links of the oldest batch in flight, waiting for it if `wait`; whether
    /// it did.
    fn collect_oldest(&mut self, wait: bool) -> bool {
        let Some(oldest) = self.in_flight.front() else {
            return false;
        };
        let processed = match wait {
            true => oldest.recv().ok(),
            false => oldest.try_recv().ok(),
        };
        let Some(processed) = processed else {
            return false;
        };
        self.in_flight.pop_front();
        let done = processed.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        self.queue.extend(done.into_iter().flatten());
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
            let reading = !matches!(self.state, State::Done) && self.deferred.is_none();
            // While reading, a batch that is not done yet is waited for only when enough
            // are in flight; the next records are read meanwhile.
            let wait = !reading || self.in_flight.len() >= IN_FLIGHT;
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
