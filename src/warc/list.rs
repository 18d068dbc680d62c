//! [`Links`]: the links of a WARC file, record by record.

use super::framing::Framing;
use super::payload::{self, DocKind};
use super::{Error, Options, RecordLink, Warning};
use std::collections::VecDeque;
use std::io::Read;

/// Streams the links of a WARC (plain or gzip, detected), record by record: the URLs of
/// each `response` record's HTTP header fields, then those of its HTML or CSS payload
/// (and of `resource` records, and the header fields of `revisit` records).
///
/// Memory holds one payload at a time; other records are read past without being held.
/// The iterator ends after the first [`Error`] (the input is then unreadable); warnings
/// (damaged records, read past) are collected for [`take_warnings`](Self::take_warnings).
///
/// ```
/// use absolve::warc::{Links, Options};
///
/// let body = "<base href='http://cdn.example/'><img src=i.png>";
/// let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
/// let warc = format!(
///     "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:2>\r\n\
///      WARC-Target-URI: <http://example.com/>\r\n\
///      Content-Type: application/http;msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
///     http.len()
/// );
/// let mut links = Links::new(warc.as_bytes(), Options::default());
/// let first = links.next().unwrap().unwrap();
/// assert_eq!(first.link.element, "base");
/// let second = links.next().unwrap().unwrap();
/// assert_eq!(second.link.resolved, "http://cdn.example/i.png");
/// assert_eq!(second.target_uri.as_deref(), Some("http://example.com/"));
/// assert!(links.next().is_none());
/// assert!(links.take_warnings().is_empty());
/// ```
pub struct Links<R: Read> {
    state: State<R>,
    options: Options,
    queue: VecDeque<RecordLink>,
    warnings: Vec<Warning>,
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
            options,
            queue: VecDeque::new(),
            warnings: Vec::new(),
        }
    }

    /// The warnings so far (each names its record), leaving none behind.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
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
        let id = record.id.clone().unwrap_or_default();
        let target_uri = analysis.target_uri.clone();
        let to_record_link = |link| RecordLink {
            record: id.clone(),
            target_uri: target_uri.clone(),
            link,
        };
        self.queue.extend(
            std::mem::take(&mut analysis.header_links)
                .into_iter()
                .map(to_record_link),
        );
        match analysis.document {
            Some(kind) => {
                payload::read_block(framing, &mut analysis, &mut warn)?;
                if let Some(body) = payload::payload(&analysis, &mut warn)
                    && (kind != DocKind::Untyped || payload::sniffs_as_html(&body))
                {
                    let done =
                        payload::process(&analysis, kind, &body, &self.options, false, &mut warn);
                    self.queue
                        .extend(done.links.into_iter().map(to_record_link));
                }
            }
            None => payload::copy_block(framing, &analysis, &mut |_| Ok(()), &mut warn)?,
        }
        framing.end_of_record()?;
        framing.previous = Some(record);
        let position = framing.position();
        framing.input.get_mut().forget_members_before(position);
        Ok(true)
    }
}

impl<R: Read> Iterator for Links<R> {
    type Item = Result<RecordLink, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(link) = self.queue.pop_front() {
                return Some(Ok(link));
            }
            match self.read_record() {
                Ok(true) => continue,
                Ok(false) => return None,
                Err(error) => {
                    self.state = State::Done;
                    return Some(Err(error));
                }
            }
        }
    }
}
