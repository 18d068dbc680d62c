//! [`rewrite`]: a WARC file with the links of its HTML and CSS payloads made absolute.
//!
//! A record whose payload does not change is copied byte for byte (its gzip member too,
//! when it is a member of its own). A changed record stays a `response` (or `resource`)
//! record: readers, indexers and replay tools (warcio, cdxj-indexer, pywb, cc-pyspark)
//! parse the HTTP message and check the payload digest only in `response`, `request`
//! and `revisit` records; in a `conversion` record warcio takes the whole block as the
//! payload, so a payload digest computed as ISO 28500 §5.9 says fails `warcio check`.
//! Its HTTP body is decoded (the original `Transfer-Encoding`, `Content-Encoding` and
//! `Content-Length` kept as `X-Original-...` fields), its lengths and SHA-1 digests are
//! recomputed, and it has a new `WARC-Record-ID`; the original's is kept in the extension
//! field [`ORIGINAL_RECORD_ID`] (§5.11 forbids `WARC-Refers-To` in a `response` record).

/// The extension field of a rewritten record that names the record it replaces.
pub const ORIGINAL_RECORD_ID: &str = "Absolve-Original-Record-ID";

use super::framing::{Framing, Head};
use super::payload::{self, Analysis, DocKind};
use super::stream::{FailedCheck, MemberStart};
use super::{Error, Options, RecordRef, Summary, Warning};
use crate::Sink;
use crate::sink::SinkWriter;
use crate::spool::Spool;
use data_encoding::BASE32;
use flate2::Compression;
use flate2::write::GzEncoder;
use sha1::{Digest, Sha1};
use std::cell::RefCell;
use std::io::{Read, Write};

/// Records beyond this size are not held to find out whether the file is one gzip
/// member per record.
const MAX_HELD_FIRST_RECORD: u64 = 32 << 20;

/// Rewrites a WARC into `sink`'s output (gzip per record when the input was gzipped),
/// reporting each warning (it names its record) to the sink as well.
///
/// ```
/// use absolve::warc::rewrite;
/// use absolve::{Collected, Options};
///
/// let http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=b>";
/// let record = |kind: &str, block: &str| format!(
///     "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{kind}>\r\n\
///      WARC-Target-URI: http://h/a/\r\nContent-Type: application/http\r\n\
///      Content-Length: {}\r\n\r\n{block}\r\n\r\n", block.len());
/// let request = record("request", "GET /a/ HTTP/1.1\r\n\r\n");
/// let input = request.clone() + &record("response", http);
/// let mut out = Collected::output_only();
/// let summary = rewrite(input.as_bytes(), &Options::new(), &mut out)?;
/// assert_eq!((summary.records, summary.copied, summary.rewritten), (2, 1, 1));
/// assert!(out.warnings.is_empty());
/// let out = String::from_utf8(out.output).unwrap();
/// assert!(out.starts_with(&request));
/// assert!(out.contains("WARC-Type: response\r\n"));
/// assert!(out.contains("Absolve-Original-Record-ID: <urn:uuid:response>\r\n"));
/// assert!(out.ends_with("Content-Length: 21\r\n\r\n<a href=http://h/a/b>\r\n\r\n"));
/// # Ok::<(), absolve::warc::Error>(())
/// ```
pub fn rewrite<R: Read>(
    reader: R,
    options: &Options,
    sink: &mut dyn Sink,
) -> Result<Summary, Error> {
    let sink = RefCell::new(sink);
    let mut warn = |warning: Warning| sink.borrow_mut().warning(warning.into());
    let mut record_boundary = || sink.borrow_mut().record_boundary();
    let out = Output {
        out: SinkWriter(&sink),
        held: None,
        record_boundary: &mut record_boundary,
    };
    rewrite_into(reader, out, options, &mut warn)
}

/// [`rewrite`] into any writer.
fn rewrite_into<'a, R: Read, W: Write>(
    reader: R,
    out: Output<'a, W>,
    options: &'a Options,
    warn: &mut dyn FnMut(Warning),
) -> Result<Summary, Error> {
    let mut framing = Framing::new(reader, options)?;
    let gzip = framing.input.get_ref().gzip;
    // A plain file that goes on with gzip members keeps their compressed bytes too.
    framing.input.get_mut().keep_gzip = true;
    // Bytes skipped are handed back a bounded amount at a time, so that what is kept of
    // them (the compressed bytes, the bytes before the first record) stays bounded.
    framing.yield_after = Some(LEAD_LIMIT as u64);
    let mut job = Job {
        framing,
        out,
        options,
        gzip,
        aligned_file: None,
        member_mode: MemberMode::Own,
        open: None,
        lead: gzip.then(|| Lead::from(0)),
        deferred: None,
        summary: Summary::default(),
    };
    if gzip {
        job.framing.input.get_mut().tee().keeping = true;
    }
    while job.record(warn)? {}
    // A member still deferred at the end (cut short by it) was settled by the last read.
    job.release_deferred()?;
    job.close_member()?;
    job.out.flush()?;
    Ok(job.summary)
}

/// The output, and what is held back of it ([`Deferred`]): in a spool, 4 MiB in memory,
/// then in a temporary file, so that memory stays bounded whatever the member's size.
struct Output<'a, W> {
    out: W,
    held: Option<Spool<'static>>,
    /// Said where a record's output ends in a file that is not gzipped
    /// ([`Sink::record_boundary`](crate::Sink::record_boundary)).
    record_boundary: &'a mut dyn FnMut() -> std::io::Result<()>,
}

impl<W: Write> Output<'_, W> {
    /// Holds back what is written from here on.
    fn hold(&mut self) {
        self.held.get_or_insert_with(|| Spool::new(&[]));
    }

    /// Writes out what was held back; what follows is written out as it comes.
    fn release(&mut self) -> std::io::Result<()> {
        if let Some(mut held) = self.held.take() {
            held.for_each(&mut |piece| self.out.write_all(piece))?;
        }
        Ok(())
    }

    /// Drops what was held back; what follows is written out as it comes.
    fn drop_held(&mut self) {
        self.held = None;
    }
}

impl<W: Write> Write for Output<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match &mut self.held {
            Some(held) => held.write(bytes),
            None => self.out.write(bytes),
        }
    }
    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match &mut self.held {
            Some(held) => held.write_all(bytes),
            None => self.out.write_all(bytes),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self.held {
            Some(_) => Ok(()),
            None => self.out.flush(),
        }
    }
}

/// A gzip member holding several records, being read. RFC 1952 §2.3.1: its CRC-32 and
/// length are checked only at its end, after its last record; until then, what is written
/// for it is held back ([`Output`]) and its compressed bytes recorded
/// ([`Tee::begin_recording`](super::stream::Tee::begin_recording)). It ends whole: what
/// was held back is written out. Its trailer does not match ([`FailedCheck`]): that is
/// dropped, and the member's compressed bytes are copied as they are, every one of them.
/// Damage found in its deflate data is located: what was held back is written out, and
/// the damaged bytes are copied from where it was found, as before.
struct Deferred {
    member: MemberStart,
    /// The member's first record.
    first: RecordRef,
    /// How many times damage had been found when the member began to be deferred.
    damaged_before: u64,
    /// How many of its records were rewritten into what is held back.
    rewritten: u64,
}

/// How the records of the current gzip member are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MemberMode {
    /// Each record is a member of its own (as far as is known).
    Own,
    /// The member's compressed bytes are being copied: so are the rest of its records.
    Forwarding,
    /// The member holds several records: each is written as a new member.
    Recompressing,
}

/// How one record is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Plain input: the bytes as read.
    Plain,
    /// Gzip: the member's compressed bytes, copied as they are read.
    Forward,
    /// Gzip: the member's compressed bytes kept until the record is judged.
    Hold,
    /// Gzip: the record's bytes written into a new member.
    Recompress,
}

/// A record's new block: the changed HTTP head (if it has one) and the new payload, kept
/// apart so that they are not copied into one buffer.
struct NewBlock {
    http_head: Vec<u8>,
    body: Spool<'static>,
}

impl NewBlock {
    fn len(&self) -> u64 {
        self.http_head.len() as u64 + self.body.len()
    }
}

struct Job<'a, R: Read, W: Write> {
    framing: Framing<R>,
    out: Output<'a, W>,
    options: &'a Options,
    gzip: bool,
    /// Whether the file is one gzip member per record: known after the first record.
    aligned_file: Option<bool>,
    member_mode: MemberMode,
    /// The gzip member being written (a record recompressed, and any bytes after it that
    /// are not a record), compressed into memory and passed on as it grows.
    open: Option<GzEncoder<Vec<u8>>>,
    /// Gzip input before its first record, or after a record that ended its member: the
    /// bytes skipped since (while few). `None` once a record is found.
    lead: Option<Lead>,
    /// The gzip member holding several records whose output is held back until it ends.
    deferred: Option<Deferred>,
    summary: Summary,
}

/// The most bytes before a record of a gzip file held to be recompressed with it.
const LEAD_LIMIT: usize = 1 << 20;

/// Bytes that are not a record, in gzip members after the last record's (or from the
/// start of the file): their compressed bytes are copied as they are, unless a record
/// shares their member.
struct Lead {
    /// Where they start (decompressed offset).
    from: u64,
    /// The bytes skipped, while they are at most [`LEAD_LIMIT`]; `None` once more were
    /// (their member's compressed bytes are then copied as they are, as read).
    held: Option<Vec<u8>>,
}

impl Lead {
    fn from(from: u64) -> Self {
        Lead {
            from,
            held: Some(Vec::new()),
        }
    }
}

impl<R: Read, W: Write> Job<'_, R, W> {
    /// Writes `bytes` into the open gzip member, opening one if none is.
    fn member_write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        write_member(&mut self.open, &mut self.out, bytes)
    }

    /// Ends the open gzip member, if one is.
    fn close_member(&mut self) -> std::io::Result<()> {
        if let Some(member) = self.open.take() {
            self.out.write_all(&member.finish()?)?;
        }
        Ok(())
    }

    /// Writes the kept compressed bytes before the member at or after `at` (all: `None`).
    fn forward(&mut self, at: Option<u64>) -> Result<(), Error> {
        self.close_member()?;
        forward_kept(&mut self.framing, &mut self.out, at)
    }

    /// The next record's head; bytes before it that are not a record are copied: as they
    /// are (plain), with the compressed bytes of their member (forwarding), or into the
    /// open gzip member.
    fn next_head(&mut self, warn: &mut dyn FnMut(Warning)) -> Result<Option<Head>, Error> {
        let gzip = self.gzip;
        let forwarding = self.member_mode == MemberMode::Forwarding;
        let leading = gzip && self.lead.is_some();
        // Bytes recompressed into the open member: their compressed bytes are not kept
        // (each input byte goes out once); damage or a new member keeps them again.
        let lean = gzip && !leading && !forwarding && self.go_lean();
        // Damage found while skipping in a member being recompressed: where, so that the
        // damaged bytes are copied as they are, not dropped with the member's.
        let recompressing = gzip && !leading && self.member_mode == MemberMode::Recompressing;
        let mut damage_found_at = None;
        let mut noting = |warning: Warning| {
            if let Warning::DamagedGzip { found_at, .. } = &warning {
                damage_found_at.get_or_insert(*found_at);
            }
            warn(warning)
        };
        let (open, out, lead) = (&mut self.open, &mut self.out, &mut self.lead);
        let mut skipped = |bytes: &[u8]| -> std::io::Result<()> {
            if let Some(lead) = lead.as_mut().filter(|_| leading) {
                // In members of their own (as far as is known): held (a record may share
                // their member) while few, else their compressed bytes are copied as read.
                if let Some(held) = &mut lead.held {
                    match held.len() + bytes.len() <= LEAD_LIMIT {
                        true => held.extend_from_slice(bytes),
                        false => lead.held = None,
                    }
                }
                return Ok(());
            }
            match (gzip, forwarding) {
                (false, _) => out.write_all(bytes),
                (true, true) => Ok(()),
                (true, false) => write_member(open, out, bytes),
            }
        };
        let head = self.framing.next_head(&mut noting, &mut skipped);
        if lean {
            let stream = self.framing.input.get_mut();
            stream.lean = false;
            stream.tee().keeping = true;
        }
        let head = head?;
        // The member being deferred ended, or is damaged: settled before the bytes after
        // it are passed on.
        let member_copied = self.settle_deferred(false, warn)?;
        // A member copied as it is holds the damage: no byte of it is copied again.
        if recompressing && !member_copied && damage_found_at.is_some() {
            self.forward_damaged(damage_found_at)?;
        }
        if leading && (head.is_some() || self.framing.yielded) {
            self.end_lead(head.as_ref().map(|head| &head.record))?;
        }
        if leading && head.is_none() && !self.framing.yielded {
            // The end: the compressed bytes kept are copied as they are.
            self.lead = None;
        }
        if !self.gzip && self.framing.input.get_ref().gzip {
            // The plain file went on with gzip members.
            self.gzip = true;
            self.member_mode = MemberMode::Own;
        }
        Ok(head)
    }

    /// Stops keeping the compressed bytes read from here on, when what they decode to is
    /// recompressed, and drops those kept of it: not when the next member has begun (read
    /// ahead), whose bytes are kept, nor while bytes that are not gzip data are skipped.
    /// Damage or a new member keeps them again.
    fn go_lean(&mut self) -> bool {
        let at = self.framing.position();
        let stream = self.framing.input.get_ref();
        if stream.member_after(at).is_some() || stream.skipping() {
            // A run of bytes that are not gzip data is being skipped: it is kept.
            return false;
        }
        self.drop_kept_to(at + 1);
        let stream = self.framing.input.get_mut();
        stream.lean = true;
        stream.tee().keeping = false;
        true
    }

    /// Gzip input in members with no record (see [`Lead`]), after some bytes that are not
    /// one, or at the next record (`found`). The compressed bytes of members before the
    /// one being read are copied as they are (no record is in them); a record that shares
    /// its member with the bytes before it gets them recompressed before it when they were
    /// held (that member deferred, [`Deferred`]), else its member is copied as it is.
    fn end_lead(&mut self, found: Option<&RecordRef>) -> Result<(), Error> {
        let position = self.framing.position();
        let stream = self.framing.input.get_ref();
        let current = stream
            .members
            .iter()
            .rev()
            .find(|m| m.decompressed <= position)
            .copied();
        let Some(record) = found else {
            if self.lead.as_ref().is_some_and(|lead| lead.held.is_none()) {
                // Too many bytes to hold: their member is copied as it is, as read.
                self.member_mode = MemberMode::Forwarding;
                return self.forward(Some(position + 1));
            }
            if let Some(member) = current {
                self.forward(Some(member.decompressed))?;
            }
            return Ok(());
        };
        let Some(Lead { from, held }) = self.lead.take() else {
            return Ok(());
        };
        let start = self.framing.start;
        if stream.member_at(start).is_some() || current.is_none() {
            return self.forward(Some(start));
        }
        let member = current.expect("checked just above");
        // The held bytes go before the record in its member only when that member began
        // among them (not inside the record's head, where a member may also begin).
        let whole = held.filter(|held| {
            held.len() as u64 == start - from
                && member.decompressed >= from
                && member.decompressed <= start
        });
        match whole {
            Some(held) => {
                self.forward(Some(member.decompressed))?;
                self.defer_member(member, record)?;
                self.member_write(&held[(member.decompressed - from) as usize..])?;
                self.member_mode = MemberMode::Recompressing;
            }
            None => self.member_mode = MemberMode::Forwarding,
        }
        Ok(())
    }

    /// Defers the gzip member starting at `member`, whose first record is `first`, as it
    /// turns out to hold several records ([`Deferred`]): when its compressed bytes are all
    /// kept from its start (else it is not deferred, and damage at its end is copied from
    /// where it was found).
    fn defer_member(&mut self, member: MemberStart, first: &RecordRef) -> Result<(), Error> {
        if self.deferred.is_some() {
            return Ok(());
        }
        let stream = self.framing.input.get_mut();
        let damaged_before = stream.damaged;
        if !stream.tee().begin_recording(member.compressed)? {
            return Ok(());
        }
        self.out.hold();
        self.deferred = Some(Deferred {
            member,
            first: first.clone(),
            damaged_before,
            rewritten: 0,
        });
        Ok(())
    }

    /// Settles the member being deferred once its end is known: its trailer does not match
    /// (its compressed bytes are copied as they are: `true`), it is damaged in its deflate
    /// data, or it ended (what was held back is written out). `changed`: the record being
    /// written, in it, has links to change.
    fn settle_deferred(
        &mut self,
        changed: bool,
        warn: &mut dyn FnMut(Warning),
    ) -> Result<bool, Error> {
        let Some(deferred) = &self.deferred else {
            return Ok(false);
        };
        let stream = self.framing.input.get_ref();
        let failed = stream
            .failed_check
            .filter(|check| check.member == deferred.member.compressed);
        if let Some(check) = failed {
            return self.copy_deferred(check, changed, warn);
        }
        if stream.damaged != deferred.damaged_before || stream.member_ended(deferred.member) {
            self.release_deferred()?;
        }
        Ok(false)
    }

    /// Writes out what was held back for the member being deferred, if one is: it ended
    /// whole, or its damage is located.
    fn release_deferred(&mut self) -> Result<(), Error> {
        if self.deferred.take().is_some() {
            self.framing.input.get_mut().tee().end_recording();
            self.out.release()?;
        }
        Ok(())
    }

    /// The member being deferred, whose trailer does not match (`check`): what was held
    /// back for it is dropped, and its compressed bytes are copied as they are (the records
    /// in it still to be read are copied with them: [`MemberMode::Forwarding`]); `true`
    /// when they were.
    fn copy_deferred(
        &mut self,
        check: FailedCheck,
        changed: bool,
        warn: &mut dyn FnMut(Warning),
    ) -> Result<bool, Error> {
        let Some(deferred) = self.deferred.take() else {
            return Ok(false);
        };
        let tee = self.framing.input.get_mut().tee();
        let Some(mut recording) = tee.end_recording() else {
            // Bytes before the member's start were given back: its damage is copied from
            // where it was found, as for a member not deferred.
            self.out.release()?;
            return Ok(false);
        };
        self.out.drop_held();
        self.open = None;
        // Kept bytes before the member (none are expected: passed on before it began).
        let before = check
            .member
            .saturating_sub(tee.kept_from)
            .min(tee.kept.len());
        tee.kept.write_front(before, &mut self.out)?;
        tee.kept_from += before;
        tee.drop_kept_before(tee.kept_from);
        recording
            .bytes
            .write_front(check.end - recording.from, &mut self.out)?;
        tee.drop_kept_before(check.end);
        self.member_mode = MemberMode::Forwarding;
        self.summary.rewritten -= deferred.rewritten;
        self.summary.copied += deferred.rewritten;
        let not_rewritten = deferred.rewritten + u64::from(changed);
        if not_rewritten > 0 {
            warn(Warning::DamagedMemberCopied {
                first: deferred.first,
                offset: check.member,
                end: check.end,
                not_rewritten,
            });
        }
        Ok(true)
    }

    /// Reads and writes one record; `Ok(false)` at the end of the input.
    fn record(&mut self, warn: &mut dyn FnMut(Warning)) -> Result<bool, Error> {
        let Some(head) = self.next_head(warn)? else {
            if self.framing.yielded {
                if self.gzip && self.framing.input.get_ref().skipping() {
                    // A pause in a run of bytes that are not gzip data: passed on as they are.
                    let found_at = self.framing.input.get_ref().first_damage_found_at();
                    self.forward_damaged(found_at)?;
                    return Ok(true);
                }
                // A pause while skipping: what is kept of the bytes skipped is passed on.
                if self.gzip && self.member_mode == MemberMode::Forwarding {
                    let at = self.framing.position();
                    self.forward(Some(at + 1))?;
                }
                return Ok(true);
            }
            if self.gzip {
                // Bytes after the last record (damaged gzip data, padding) are copied.
                self.forward(None)?;
            }
            return Ok(false);
        };
        if !self.gzip && self.summary.records > 0 && self.out.held.is_none() {
            // Each record's output in a frame of its own, when it is compressed (LZ4).
            (self.out.record_boundary)()?;
        }
        self.summary.records += 1;
        let start = self.framing.start;
        let damaged_before = self.framing.input.get_ref().damaged;
        self.framing.input.get_mut().damage_produced = None;
        let record = head.record.clone();
        if self.gzip {
            self.drop_or_forward_kept(start)?;
        }
        if !head.has_length {
            // Copied as it is: its head now, its bytes as bytes that are not a record.
            warn(super::arc::no_length(&head));
            self.summary.copied += 1;
            self.framing.previous = Some(record);
            if !self.gzip {
                self.out.write_all(&head.raw)?;
            } else if self.framing.input.get_ref().member_at(start).is_some()
                || self.member_mode == MemberMode::Forwarding
            {
                self.close_member()?;
                self.member_mode = MemberMode::Forwarding;
            } else {
                self.close_member()?;
                self.member_write(&head.raw)?;
            }
            return Ok(true);
        }
        self.close_member()?;
        let mut analysis = payload::analyze(&mut self.framing, head, self.options, warn)?;
        let plan = self.plan(start, &analysis);
        if let Some(member) = self.framing.input.get_ref().member_at(start)
            && plan == Plan::Recompress
        {
            // A member of a file whose first member held several records: it may too.
            self.defer_member(member, &record)?;
        }
        if plan == Plan::Forward && analysis.document.is_some() {
            // Its member is copied as read (more bytes before it than are held, or a
            // record before it copied as it was): its changes cannot be written.
            warn(Warning::NotRewritten {
                record: record.clone(),
                reason: "it shares its gzip member with bytes copied as they are".to_owned(),
            });
        }
        let document = analysis.document.filter(|_| plan != Plan::Forward);
        let held_block = document.is_some()
            || (plan == Plan::Hold && analysis.head.length <= MAX_HELD_FIRST_RECORD);
        let changed = if held_block {
            payload::read_block(&mut self.framing, &mut analysis, warn)?;
            let damaged = self.damaged_before(damaged_before, self.framing.position());
            match document {
                // GUIDE, Warnings: the damaged part passes through unchanged (a new
                // Content-Length would make it look whole).
                Some(_) if damaged || analysis.truncated => None,
                Some(kind) => rewritten_block(&analysis, kind, self.options, warn)?,
                None => None,
            }
        } else {
            self.stream_block(plan, &analysis, damaged_before, warn)?;
            None
        };
        // ISO 28500 §4: two CRLFs end a record. A record copied as it was keeps what
        // followed its block, even without them (damaged framing passes through as it
        // is, so that a reader recovers from it as it does from the input; a rewritten
        // record gets its own).
        let read_trailer = self.framing.end_of_record(&record, warn)?;
        let trailer: &[u8] = &read_trailer;
        if plan == Plan::Hold {
            // RFC 1952 §2.3.1: a member's CRC-32 is checked at its end, which may be after
            // the record's: known before the record is written.
            self.framing.probe_member_end(start)?;
        }
        self.framing.previous = Some(record.clone());
        let damage_found_at = self.framing.input.get_ref().first_damage_found_at();
        let damage_offset = self.framing.input.get_ref().first_damage_offset();
        self.framing.report_damage(warn);
        let end = self.framing.position();
        let damaged = self.damaged_before(damaged_before, end);
        // The member being deferred may have ended in the record, or after it.
        let member_copied = self.settle_deferred(changed.is_some(), warn)?;
        if changed.is_some() && damaged && !member_copied {
            // GUIDE, Compressed files: damaged gzip data is copied as it is, never
            // re-encoded (what it decodes to is not the record).
            warn(damaged_not_rewritten(&record, plan, damage_found_at));
        }
        let new_record = match changed.filter(|_| !damaged) {
            Some(block) if analysis.head.arc => Some((
                super::arc::converted_line(&analysis.head.raw, block.len()),
                block,
            )),
            Some(mut block) => match converted_head(&analysis, &mut block)? {
                Ok(head) => Some((head, block)),
                Err(reason) => {
                    warn(Warning::NotRewritten { record, reason });
                    None
                }
            },
            None => None,
        };
        if new_record.is_some() {
            // The original block is no longer needed: it is not held beside the new one.
            analysis.prefix = Vec::new();
        }
        let done = Done {
            damage_found_at,
            damage_offset,
            plan,
            start,
            end,
            held_block,
            damaged,
            member_copied,
        };
        self.finish_record(done, &analysis, trailer, new_record)?;
        Ok(true)
    }

    /// Whether gzip damage was met (since the count was `damaged_before`) before the
    /// record's bytes up to decompressed offset `to` were all produced: damage found only
    /// after them (bytes that are not a member after the record's member) leaves it whole.
    fn damaged_before(&self, damaged_before: u64, to: u64) -> bool {
        let stream = self.framing.input.get_ref();
        stream.damaged != damaged_before && stream.damage_produced.is_none_or(|p| p < to)
    }

    /// How a record starting at decompressed offset `start` is written.
    fn plan(&mut self, start: u64, analysis: &Analysis) -> Plan {
        if !self.gzip {
            return Plan::Plain;
        }
        let stream = self.framing.input.get_ref();
        let own_member = stream.member_at(start).is_some();
        if !own_member {
            return match self.member_mode {
                MemberMode::Forwarding => Plan::Forward,
                _ => Plan::Recompress,
            };
        }
        self.member_mode = MemberMode::Own;
        match self.aligned_file {
            None if analysis.document.is_none() && analysis.head.length > MAX_HELD_FIRST_RECORD => {
                Plan::Forward
            }
            None => Plan::Hold,
            Some(false) => Plan::Recompress,
            Some(true) if analysis.document.is_some() => Plan::Hold,
            Some(true) => Plan::Forward,
        }
    }

    /// Streams a block that is not held: copied, forwarded or recompressed as read.
    fn stream_block(
        &mut self,
        plan: Plan,
        analysis: &Analysis,
        damaged_before: u64,
        warn: &mut dyn FnMut(Warning),
    ) -> Result<(), Error> {
        match plan {
            Plan::Plain => {
                self.out.write_all(&analysis.head.raw)?;
                let out = &mut self.out;
                payload::copy_block(&mut self.framing, analysis, &mut |b| out.write_all(b), warn)
            }
            Plan::Hold => payload::copy_block(&mut self.framing, analysis, &mut |_| Ok(()), warn),
            Plan::Forward => {
                // The member's compressed bytes go out as they are read, a chunk at a time.
                // Its block is watched for a record start as any other's (a block that
                // runs past the end of the file ends there): the compressed bytes of the
                // members after its own are kept meanwhile, not passed on.
                let start = self.framing.start;
                self.forward(Some(start + 1))?;
                let out = &mut self.out;
                let mut forward =
                    |framing: &mut Framing<R>| forward_kept(framing, out, Some(start + 1));
                payload::copy_block_with(
                    &mut self.framing,
                    analysis,
                    &mut |_| Ok(()),
                    &mut forward,
                    warn,
                )
            }
            Plan::Recompress => {
                self.member_write(&analysis.head.raw)?;
                // The compressed bytes of what is recompressed are not kept (each input
                // byte goes out once, and they would grow with the record); damage keeps
                // them again from where it is found.
                let lean = self.framing.input.get_ref().damaged == damaged_before && self.go_lean();
                let (open, out) = (&mut self.open, &mut self.out);
                let mut write = |b: &[u8]| write_member(open, out, b);
                let copied = payload::copy_block(&mut self.framing, analysis, &mut write, warn);
                if lean {
                    let stream = self.framing.input.get_mut();
                    stream.lean = false;
                    stream.tee().keeping = true;
                }
                copied
            }
        }
    }

    /// Writes what is left of the record once it is read, and settles the gzip state.
    fn finish_record(
        &mut self,
        done: Done,
        analysis: &Analysis,
        trailer: &[u8],
        mut new_record: Option<(Vec<u8>, NewBlock)>,
    ) -> Result<(), Error> {
        let Done {
            damage_found_at,
            damage_offset,
            plan,
            start,
            end,
            held_block,
            damaged,
            member_copied,
        } = done;
        let original = |out: &mut dyn Write| -> std::io::Result<()> {
            out.write_all(&analysis.head.raw)?;
            out.write_all(&analysis.prefix)?;
            out.write_all(trailer)
        };
        // The new payload is copied from its spool, never gathered with the rest. Two
        // CRLFs end a WARC record (ISO 28500 §4), a newline an ARC record.
        let record_end: &[u8] = match analysis.head.arc {
            true => b"\n",
            false => b"\r\n\r\n",
        };
        let new = |out: &mut dyn Write, (head, block): &mut (Vec<u8>, NewBlock)| {
            out.write_all(head)?;
            out.write_all(&block.http_head)?;
            block.body.for_each(&mut |piece| out.write_all(piece))?;
            out.write_all(record_end)
        };
        match new_record {
            Some(_) => {
                self.summary.rewritten += 1;
                if let Some(deferred) = &mut self.deferred {
                    deferred.rewritten += 1;
                }
            }
            None => self.summary.copied += 1,
        }
        if plan == Plan::Plain {
            match &mut new_record {
                Some(record) => new(&mut self.out, record)?,
                None if held_block => original(&mut self.out)?,
                None => self.out.write_all(trailer)?,
            }
            return Ok(());
        }
        let stream = self.framing.input.get_ref();
        let member_ends_here = stream.member_at(end).is_some()
            || stream.at_member_end(end)
            // The file's end: the framing's, not only the stream's (bytes given back and
            // read again may all be in the framing's buffer, records still to come).
            || (stream.member_after(start).is_none() && self.framing.at_end()?);
        if self.aligned_file.is_none() {
            self.aligned_file = Some(member_ends_here);
        }
        let next_mode = if member_ends_here {
            MemberMode::Own
        } else if plan == Plan::Forward
            || (plan == Plan::Hold && !held_block)
            || self.member_mode == MemberMode::Forwarding
            || damaged
        {
            MemberMode::Forwarding
        } else {
            MemberMode::Recompressing
        };
        if plan == Plan::Hold && next_mode == MemberMode::Recompressing {
            // The record's member goes on after it: it holds several records.
            if let Some(member) = self.framing.input.get_ref().member_at(start) {
                self.defer_member(member, &analysis.head.record)?;
                if let Some(deferred) = self.deferred.as_mut().filter(|_| new_record.is_some()) {
                    deferred.rewritten += 1;
                }
            }
        }
        match plan {
            // Damaged gzip data: the record's compressed bytes are copied as they are (with
            // its member's, when that was copied whole).
            _ if damaged && (plan != Plan::Recompress || member_copied) => {
                self.forward(Some(end))?
            }
            _ if damaged => {
                // Recompressed up to the damage (a held block: what was read of it), the
                // compressed bytes from where it was found copied as they are: each input
                // byte once.
                let mut member = MemberWriter {
                    open: &mut self.open,
                    out: &mut self.out,
                };
                match held_block {
                    true => original(&mut member)?,
                    false => member.write_all(trailer)?,
                }
                if let Some(found_at) = damage_found_at {
                    self.framing
                        .input
                        .get_mut()
                        .tee()
                        .drop_kept_before(found_at);
                }
                self.forward(Some(end))?;
            }
            Plan::Forward => self.forward(Some(end))?,
            Plan::Hold if !held_block => self.forward(Some(end))?,
            Plan::Hold if new_record.is_none() && member_ends_here => self.forward(Some(end))?,
            _ => {
                // Compressed as it is written, a piece at a time.
                let mut member = MemberWriter {
                    open: &mut self.open,
                    out: &mut self.out,
                };
                match &mut new_record {
                    Some(record) => new(&mut member, record)?,
                    None if held_block => original(&mut member)?,
                    None => member.write_all(trailer)?,
                }
                match damage_offset {
                    // Damage after the record's member (the record is whole): the damaged
                    // bytes, from the damaged member's start (the bytes before the damage
                    // was found are as damaged), are passed on as they are, after it.
                    Some(offset) if self.gzip => {
                        self.close_member()?;
                        let tee = self.framing.input.get_mut().tee();
                        tee.drop_kept_before(offset);
                        self.forward(Some(end))?;
                    }
                    _ => self.drop_kept_to(end),
                }
            }
        }
        self.member_mode = next_mode;
        if next_mode == MemberMode::Own {
            // What follows, up to the next record, is in members of its own.
            self.lead = Some(Lead::from(end));
        }
        self.framing.input.get_mut().forget_members_before(end);
        Ok(())
    }

    /// Before a record: the kept compressed bytes before it are written out if its member
    /// is being forwarded, else dropped.
    fn drop_or_forward_kept(&mut self, start: u64) -> Result<(), Error> {
        if self.member_mode == MemberMode::Forwarding {
            self.forward(Some(start))?;
        } else {
            self.drop_kept_to(start);
        }
        Ok(())
    }

    /// Passes on the kept bytes of damaged gzip data (bytes that are not a member, or
    /// those of a damaged member from where the damage was found) before the next member
    /// after it, as they are: in a member being recompressed, the compressed bytes before
    /// the damage are dropped (what they decode to is recompressed); else they are copied.
    fn forward_damaged(&mut self, found_at: Option<u64>) -> Result<(), Error> {
        let Some(found_at) = found_at else {
            return Ok(());
        };
        let stream = self.framing.input.get_mut();
        let limit = stream
            .members
            .iter()
            .find(|m| m.compressed > found_at)
            .map_or(u64::MAX, |m| m.compressed);
        self.close_member()?;
        let tee = self.framing.input.get_mut().tee();
        if self.member_mode == MemberMode::Recompressing && self.lead.is_none() {
            tee.drop_kept_before(found_at);
        }
        let n = limit.saturating_sub(tee.kept_from).min(tee.kept.len());
        tee.kept.write_front(n, &mut self.out)?;
        tee.kept_from += n;
        tee.drop_kept_before(tee.kept_from);
        Ok(())
    }

    /// Drops the kept compressed bytes of members before decompressed offset `to`.
    fn drop_kept_to(&mut self, to: u64) {
        let stream = self.framing.input.get_mut();
        let limit = match stream.members.iter().find(|m| m.decompressed >= to) {
            Some(member) => member.compressed,
            None => stream.tee().consumed,
        };
        stream.tee().drop_kept_before(limit);
    }
}

/// The warning for a changed record whose gzip member is damaged: copied as it is, or,
/// in a member being recompressed (a whole-file gzip stream whose deflate data is damaged
/// after the record's start), written as it was decoded into a new member.
fn damaged_not_rewritten(record: &RecordRef, plan: Plan, found_at: Option<u64>) -> Warning {
    match (plan, found_at) {
        (Plan::Recompress, Some(found_at)) => Warning::RecompressedDamaged {
            record: record.clone(),
            found_at,
        },
        _ => Warning::NotRewritten {
            record: record.clone(),
            reason: "its gzip member is damaged".to_owned(),
        },
    }
}

/// Writes `bytes` into the open gzip member `open` (one opened if none is), its
/// compressed bytes passed on to `out` as they grow.
fn write_member<W: Write>(
    open: &mut Option<GzEncoder<Vec<u8>>>,
    out: &mut W,
    bytes: &[u8],
) -> std::io::Result<()> {
    let member = open.get_or_insert_with(|| GzEncoder::new(Vec::new(), Compression::default()));
    member.write_all(bytes)?;
    let compressed = member.get_mut();
    if compressed.len() >= super::stream::CHUNK {
        out.write_all(compressed)?;
        compressed.clear();
    }
    Ok(())
}

/// Writes into the open gzip member (see [`write_member`]).
struct MemberWriter<'a, W> {
    open: &'a mut Option<GzEncoder<Vec<u8>>>,
    out: &'a mut W,
}

impl<W: Write> Write for MemberWriter<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        write_member(self.open, self.out, bytes)?;
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Where a record read ends, how it was written, and whether gzip damage was met in it.
struct Done {
    /// Where the first damage in the record was found in the (compressed) file.
    damage_found_at: Option<u64>,
    /// Where that damage starts in the (compressed) file.
    damage_offset: Option<u64>,
    plan: Plan,
    start: u64,
    end: u64,
    held_block: bool,
    damaged: bool,
    /// Its gzip member, holding several records, was copied as it is ([`Deferred`]).
    member_copied: bool,
}

/// Writes the kept compressed bytes: all of them (`None`), or those before the first
/// member that starts at or after decompressed offset `at`.
fn forward_kept<R: Read, W: Write>(
    framing: &mut Framing<R>,
    out: &mut W,
    at: Option<u64>,
) -> Result<(), Error> {
    let stream = framing.input.get_mut();
    let limit = at
        .and_then(|at| stream.members.iter().find(|m| m.decompressed >= at))
        .map_or(u64::MAX, |member| member.compressed);
    let tee = stream.tee();
    let n = limit.saturating_sub(tee.kept_from).min(tee.kept.len());
    tee.kept.write_front(n, out)?;
    tee.kept_from += n;
    tee.drop_kept_before(tee.kept_from);
    Ok(())
}

/// The new block of a record whose document changed, or `None` when it is unchanged
/// (or cannot be decoded, or is untyped and not HTML, or decodes to more than the cap: a
/// decompression bomb is copied as it is, never cut). The new payload is spooled (held
/// in memory while small, else in a temporary file), not held beside the old one.
fn rewritten_block(
    analysis: &Analysis,
    kind: DocKind,
    options: &Options,
    warn: &mut dyn FnMut(Warning),
) -> Result<Option<NewBlock>, Error> {
    let Some(payload) = payload::payload(analysis, warn) else {
        return Ok(None);
    };
    if payload.capped {
        warn(Warning::NotRewritten {
            record: analysis.head.record.clone(),
            reason: format!(
                "its payload decodes to more than {} MiB (a decompression bomb?)",
                super::http::MAX_DECODED >> 20
            ),
        });
        return Ok(None);
    }
    let body = payload.body;
    if !payload::is_document(kind, &body) {
        return Ok(None);
    }
    let mut spool = Spool::new(&body);
    payload::process(analysis, kind, &body, options, Some(&mut spool), None, warn)?;
    if !spool.changed() {
        return Ok(None);
    }
    let spool = spool.detach();
    drop(body);
    let http_head = match &analysis.http {
        Some(http) => new_http_head(&analysis.prefix[..http.len], spool.len()),
        None => Vec::new(),
    };
    Ok(Some(NewBlock {
        http_head,
        body: spool,
    }))
}

/// The header fields of a changed HTTP message renamed `X-Original-...`: the codings that
/// were undone, and the length that changed.
const RENAMED: [&str; 3] = ["transfer-encoding", "content-encoding", "content-length"];

/// The HTTP head of a changed response: the original lines, the codings and length
/// renamed (nothing is lost), and the new `Content-Length`.
fn new_http_head(head: &[u8], body_length: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(head.len() + 64);
    let mut lines = head.split_inclusive(|&b| b == b'\n');
    if let Some(status) = lines.next() {
        out.extend_from_slice(status);
    }
    for line in lines {
        let bare = super::framing::trim_line_end(line);
        if bare.is_empty() {
            break;
        }
        let name = bare.split(|&b| b == b':').next().unwrap_or_default();
        let name = String::from_utf8_lossy(name).trim().to_ascii_lowercase();
        if RENAMED.contains(&name.as_str()) {
            out.extend_from_slice(b"X-Original-");
        }
        out.extend_from_slice(bare);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("Content-Length: {body_length}\r\n\r\n").as_bytes());
    out
}

/// ISO 28500 §5.8/§5.9: the digest value `algorithm:value` of a SHA-1 `hash`, written in
/// the form of the `original` value (hex or base32); only SHA-1 is known here.
fn digest(original: &str, hash: &[u8]) -> Result<String, String> {
    let (algorithm, value) = original.split_once(':').unwrap_or(("", original));
    if !algorithm.eq_ignore_ascii_case("sha1") {
        return Err(format!("digest algorithm {algorithm:?} is not supported"));
    }
    let encoded = if value.len() == 40 && value.bytes().all(|b| b.is_ascii_hexdigit()) {
        hash.iter().map(|b| format!("{b:02x}")).collect()
    } else {
        BASE32.encode(hash)
    };
    Ok(format!("{algorithm}:{encoded}"))
}

/// The hasher of a name-based record ID for the conversion of `original` (RFC 4122
/// §4.3, SHA-1 form): the new block is hashed after it, so that the same input gives the
/// same output.
fn record_id_hasher(original: &RecordRef) -> Sha1 {
    let mut hasher = Sha1::new();
    hasher.update(b"absolve conversion of ");
    hasher.update(original.id.as_deref().unwrap_or_default().as_bytes());
    hasher
}

/// The record ID (a UUID, RFC 4122 §4.3) of a name-based SHA-1 `hash`.
fn record_id(hash: &[u8]) -> String {
    let mut b: [u8; 16] = hash[..16].try_into().expect("16 of 20 bytes");
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// The hashes of a new block, made in one pass over its spooled payload.
struct Hashes {
    block: Vec<u8>,
    payload: Vec<u8>,
    id: Vec<u8>,
}

fn hashes(original: &RecordRef, block: &mut NewBlock) -> std::io::Result<Hashes> {
    let mut whole = Sha1::new();
    let mut payload = Sha1::new();
    let mut id = record_id_hasher(original);
    whole.update(&block.http_head);
    id.update(&block.http_head);
    block.body.for_each(&mut |piece| {
        whole.update(piece);
        payload.update(piece);
        id.update(piece);
        Ok(())
    })?;
    Ok(Hashes {
        block: whole.finalize().to_vec(),
        payload: payload.finalize().to_vec(),
        id: id.finalize().to_vec(),
    })
}

/// The header block of the record that replaces a changed record, whose new block is
/// `block` (written after it, then two CRLFs); `Err` (inside) when a digest cannot be
/// made. The header's lines are copied as they were, byte for byte (a value that is not
/// UTF-8 included), but those of the fields the new block changes: `WARC-Record-ID`
/// (the old one kept as [`ORIGINAL_RECORD_ID`]), `Content-Length` and the digests
/// (ISO 28500 §5.2, §5.8, §5.9), written anew in their place, with the line ending
/// they had, in place of the lines they had.
fn converted_head(
    analysis: &Analysis,
    block: &mut NewBlock,
) -> std::io::Result<Result<Vec<u8>, String>> {
    let head: &Head = &analysis.head;
    let hashes = hashes(&head.record, block)?;
    let mut out = Vec::with_capacity(head.raw.len() + 256);
    let mut lines = head.raw.split_inclusive(|&b| b == b'\n');
    out.extend_from_slice(lines.next().unwrap_or(b"WARC/1.0\r\n"));
    let mut replacing = false;
    for line in lines {
        let bare = super::framing::trim_line_end(line);
        if bare.is_empty() {
            break;
        }
        if bare.starts_with(b" ") || bare.starts_with(b"\t") {
            if !replacing {
                out.extend_from_slice(line);
            }
            continue;
        }
        replacing = false;
        let Some(name) = changed_field(bare) else {
            out.extend_from_slice(line);
            continue;
        };
        replacing = true;
        let value = head.field(name).unwrap_or_default();
        let ending = &line[bare.len()..];
        let mut field = |name: &str, value: &str| {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value.as_bytes());
            out.extend_from_slice(ending);
        };
        let written = written_name(bare);
        match name {
            "WARC-Record-ID" => {
                field(&written, &record_id(&hashes.id));
                field(ORIGINAL_RECORD_ID, value);
            }
            "Content-Length" => field(&written, &block.len().to_string()),
            _ => {
                let hash = match name {
                    "WARC-Block-Digest" => &hashes.block,
                    _ => &hashes.payload,
                };
                match digest(value, hash) {
                    Ok(digest) => field(&written, &digest),
                    Err(reason) => return Ok(Err(reason)),
                }
            }
        }
    }
    out.extend_from_slice(b"\r\n");
    Ok(Ok(out))
}

/// The fields a new block changes, as [`converted_head`] names them.
const CHANGED_FIELDS: [&str; 4] = [
    "WARC-Record-ID",
    "Content-Length",
    "WARC-Block-Digest",
    "WARC-Payload-Digest",
];

/// Which of [`CHANGED_FIELDS`] the header line `line` starts (names are
/// case-insensitive, ISO 28500 §4).
fn changed_field(line: &[u8]) -> Option<&'static str> {
    let colon = line.iter().position(|&b| b == b':')?;
    let name = line[..colon].trim_ascii();
    CHANGED_FIELDS
        .into_iter()
        .find(|field| name.eq_ignore_ascii_case(field.as_bytes()))
}

/// The name of the field the header line `line` starts, as written.
fn written_name(line: &[u8]) -> String {
    let name = line.split(|&b| b == b':').next().unwrap_or_default();
    String::from_utf8_lossy(name.trim_ascii()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renamed_http_fields() {
        let head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nContent-Type: text/html\r\n\r\n";
        let out = new_http_head(head, 12);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 200 OK\r\nX-Original-Content-Encoding: gzip\r\nX-Original-Transfer-Encoding: chunked\r\nContent-Type: text/html\r\nContent-Length: 12\r\n\r\n"
        );
    }

    #[test]
    fn digests_keep_their_algorithm_and_form() {
        let empty = Sha1::digest(b"");
        assert_eq!(
            digest("sha1:X", &empty).unwrap(),
            "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"
        );
        assert_eq!(
            digest("sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709", &empty).unwrap(),
            "sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709"
        );
        assert!(digest("sha256:x", &empty).is_err());
    }

    #[test]
    fn record_ids_are_uuids() {
        let r = RecordRef {
            number: 1,
            offset: 0,
            id: Some("<urn:uuid:x>".into()),
        };
        let id_of = |block: &[u8]| {
            let mut hasher = record_id_hasher(&r);
            hasher.update(block);
            record_id(&hasher.finalize())
        };
        let id = id_of(b"block");
        assert_eq!(id.len(), "<urn:uuid:>".len() + 36);
        assert_eq!(&id[24..25], "5");
        assert_eq!(id, id_of(b"block"));
        assert_ne!(id, id_of(b"other"));
    }
}
