//! The streaming feed rewriter: quick-xml as a tokenizer over a bounded window of the
//! input, the base of each element from `xml:base` (W3C XML Base), URLs spliced into the
//! original bytes.

use super::content::{self, Piece, PieceKind};
use super::escape::{self, Unreadable};
use super::namespaces::Namespaces;
use super::vocabulary::{Ns, TextType, Value, text_type, values};
use super::{MAX_DEPTH, MAX_HELD, MAX_SCOPE_BYTES, Warning, doctype, xhtml};
use crate::base::{Base, BaseSource};
use crate::html::attributes::Namespace;
use crate::html::emit::{self, FragmentRule};
use crate::html::transcode::{self, Events, Transcoding};
use crate::html::{Collected, Options, Sink};
use crate::links::{Kept, Link};
use arrayvec::ArrayVec;
use encoding_rs::Encoding;
use quick_xml::Reader;
use quick_xml::errors::{Error as XmlError, SyntaxError};
use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesPI, BytesStart, Event};
use quick_xml::name::QName;
use std::borrow::Cow;
use std::collections::HashSet;
use std::io;
use std::ops::Range;

/// The streaming feed rewriter: feed it chunks with [`write`](Self::write), finish with
/// [`end`](Self::end). The rewritten bytes, the links and the HTML rewriter's warnings go
/// to the [`Sink`]; feed warnings ([`Warning`]) too, as [`Problem::Feed`](crate::Problem::Feed).
///
/// Memory is bounded whatever the feed's size: it holds one token at a time (a tag, a
/// comment, a text piece), and the content of one element whose text is a URL or HTML,
/// each at most [`MAX_HELD`] bytes (or [`Options::max_buffer`] if smaller); past that
/// the content (or, for a tag, the rest of the feed) passes through unchanged with a
/// warning. Elements nest at most [`MAX_DEPTH`] deep.
///
/// ```
/// use absolve::base::Base;
/// use absolve::feed::Rewriter;
/// use absolve::html::{Collected, Options};
///
/// let base = Base::retrieval_url("http://h/feed.xml").unwrap();
/// let mut rewriter = Rewriter::new(&base, &Options::default(), None, Collected::default());
/// for chunk in [&b"<rss><channel><link>/ho"[..], b"me</link></channel></rss>"] {
///     rewriter.write(chunk)?;
/// }
/// let done = rewriter.end()?;
/// assert_eq!(done.output, b"<rss><channel><link>http://h/home</link></channel></rss>");
/// assert_eq!((done.links[0].element.as_str(), done.links[0].offset), ("link", 20));
/// assert!(done.warnings.is_empty());
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Rewriter<S: Sink> {
    /// The input not yet written out; `pending[0]` is at `machine.pending_start`.
    pending: Vec<u8>,
    machine: Machine<S>,
    /// A feed in UTF-16 or ISO-2022-JP, read through UTF-8 from its start.
    transcoded: Option<Box<Transcoded>>,
}

/// A feed in a charset that is not ASCII-compatible (the tokenizer reads bytes as
/// ASCII): decoded to UTF-8 as it is read ([`crate::html::transcode`]), rewritten there,
/// written back in its charset, every byte outside a changed value its own.
struct Transcoded {
    transcoding: Transcoding,
    inner: Rewriter<Events>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The charset is not known yet (a BOM or an XML declaration may still come).
    Starting,
    Running,
    /// Everything from here passes through as it is.
    PassThrough,
    /// The charset is not ASCII-compatible: the feed is read through UTF-8 ([`Transcoded`]).
    Transcoding,
}

/// An open element.
struct Scope {
    /// Its qualified name's range in `Machine::names`.
    name: Range<usize>,
    /// Where its local name starts in `Machine::names`.
    local_start: usize,
    /// Whether it pushed a base onto `Machine::bases`.
    pushed_base: bool,
    /// Whether it opened a level of `Machine::namespaces`.
    pushed_ns: bool,
    /// Whether its children are XHTML.
    xhtml_children: bool,
    /// Its start tag's offset.
    offset: u64,
    /// What it adds to `Machine::scope_bytes`.
    cost: usize,
}

/// An element whose content is a URL or HTML, held until its end tag.
struct Held {
    kind: HeldKind,
    /// How many scopes are open with it (its own included).
    depth: usize,
    content_start: u64,
    pieces: Vec<Piece>,
    /// The comments and processing instructions in it (ranges in the content).
    markup: Vec<Range<usize>>,
    element: String,
    base: Base,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeldKind {
    Url,
    Html,
    /// The CSS of a `<style>` in inline XHTML.
    Css,
    /// Base64 of HTML or XHTML (Atom 0.3 `mode="base64"`).
    Base64Html,
}

/// An attribute value as written (its references unread), the quote around it, and
/// whether it is a processing instruction's pseudo-attribute.
struct Quoted<'w> {
    raw: &'w [u8],
    quote: u8,
    in_instruction: bool,
}

/// An attribute of the tag being read: ranges in the current window.
#[derive(Debug, Clone)]
struct Attr {
    key: Range<usize>,
    value: Range<usize>,
    quote: u8,
}

struct Machine<S: Sink> {
    sink: S,
    options: Options,
    transport: Option<&'static Encoding>,
    outer: Base,
    encoding: &'static Encoding,
    state: State,
    /// The offset of `pending[0]`: everything before it is written out.
    pending_start: u64,
    /// How far the tokens are handled.
    processed: u64,
    read: u64,
    /// How far output has been written (original bytes or their replacements).
    emitted: u64,
    limit: usize,
    namespaces: Namespaces,
    scopes: Vec<Scope>,
    /// The bytes the open elements keep: names, namespace declarations, bases.
    scope_bytes: usize,
    names: Vec<u8>,
    bases: Vec<Base>,
    held: Option<Held>,
    attrs: Vec<Attr>,
    wants_output: bool,
    wants_links: bool,
    error: Option<io::Error>,
    /// Where the document starts (past a BOM): an XML declaration is only there.
    document_start: u64,
    /// Whether the root element has started.
    root_seen: bool,
    /// How many `]` end the character data read last (at most 2): a `]]>` may be cut
    /// between two pieces of text.
    brackets: u8,
    /// The kinds of [`Warning::IllFormed`] reported, one bit each ([`Flaw`]).
    flaws: u8,
    /// The check of every byte against the charset, done up to `checked` (`None`: no
    /// more checks, one bad sequence reported).
    charset_check: Option<CharsetCheck>,
    checked: u64,
    /// The values reported [`Warning::Undecodable`] since the bytes were last checked:
    /// their bad bytes are not reported again.
    undecodable: Vec<Range<u64>>,
}

/// Whether bytes, arriving piece by piece, are valid in a charset (XML 1.0 §4.3.3): a
/// sequence cut between two pieces is read whole.
enum CharsetCheck {
    /// UTF-8, by the standard library's validation, and the bytes of a sequence the last
    /// piece's end cut.
    Utf8(ArrayVec<u8, 4>),
    /// Another charset, by its own streaming decoder.
    Other(encoding_rs::Decoder),
}

impl CharsetCheck {
    fn new(encoding: &'static Encoding) -> Self {
        if encoding == encoding_rs::UTF_8 {
            CharsetCheck::Utf8(ArrayVec::new())
        } else {
            CharsetCheck::Other(encoding.new_decoder_without_bom_handling())
        }
    }

    /// The offset of the first bad sequence of `bytes` (at offset `at`, after the pieces
    /// before), if any; `last`: nothing follows them.
    fn first_bad(&mut self, mut bytes: &[u8], mut at: u64, last: bool) -> Option<u64> {
        match self {
            CharsetCheck::Utf8(cut) => {
                // The cut sequence first, a byte at a time (at most 3).
                while !cut.is_empty() {
                    let Some((&byte, rest)) = bytes.split_first() else {
                        return last.then(|| at - cut.len() as u64);
                    };
                    cut.push(byte);
                    (bytes, at) = (rest, at + 1);
                    match std::str::from_utf8(cut) {
                        Ok(_) => cut.clear(),
                        Err(error) if error.error_len().is_none() => {}
                        Err(_) => return Some(at - cut.len() as u64),
                    }
                }
                let error = std::str::from_utf8(bytes).err()?;
                let valid = error.valid_up_to();
                if error.error_len().is_some() || last {
                    return Some(at + valid as u64);
                }
                // At most 3 bytes of a sequence that may go on in the next piece.
                cut.try_extend_from_slice(&bytes[valid..]).ok()?;
                None
            }
            CharsetCheck::Other(decoder) => {
                let mut scratch = [0u8; 4096];
                loop {
                    let (result, read, _) =
                        decoder.decode_to_utf8_without_replacement(bytes, &mut scratch, last);
                    (bytes, at) = (&bytes[read..], at + read as u64);
                    match result {
                        encoding_rs::DecoderResult::InputEmpty => return None,
                        encoding_rs::DecoderResult::OutputFull => {}
                        encoding_rs::DecoderResult::Malformed(length, extra) => {
                            return Some(at - u64::from(extra) - u64::from(length));
                        }
                    }
                }
            }
        }
    }
}

/// The kinds of [`Warning::IllFormed`], each reported once a feed.
#[derive(Debug, Clone, Copy)]
enum Flaw {
    /// XML 1.0 §2.2, §4.3.3: bytes not valid in the charset.
    Undecodable,
    /// §2.1: text or an element outside the root element.
    OutsideRoot,
    /// §2.4: `]]>` in character data.
    CdataEnd,
    /// §2.8: an XML declaration that is not one, or not at the start.
    Declaration,
    /// §2.2: a control character (U+0000 to U+001F but tab, line feed and carriage
    /// return), which no XML 1.0 document holds.
    Control,
}

/// The offset of the first control character XML 1.0 does not allow in `bytes` (§2.2,
/// `Char`): a byte below 0x20 but tab, line feed and carriage return. In every
/// ASCII-compatible charset such a byte is that control, and no multi-byte sequence holds
/// one. Looked at 32 bytes at a time, which the compiler turns into vector compares.
fn first_control(bytes: &[u8]) -> Option<usize> {
    const CHUNK: usize = 32;
    let is_control = |b: u8| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r');
    bytes.chunks(CHUNK).enumerate().find_map(|(n, chunk)| {
        let any = chunk.iter().fold(false, |any, &b| any | is_control(b));
        any.then(|| n * CHUNK + chunk.iter().position(|&b| is_control(b)).expect("one is"))
    })
}

impl<S: Sink> Rewriter<S> {
    /// A rewriter of a feed whose outermost base is `base` (the document's: RFC 1808
    /// §3.2-3.4), with the transport's charset if there is one (`charset`: a MIME part's,
    /// an HTTP `Content-Type`'s, `--charset`); [`Options::charset`] is not read.
    pub fn new(
        base: &Base,
        options: &Options,
        charset: Option<&'static Encoding>,
        sink: S,
    ) -> Self {
        let wants_output = sink.wants_output();
        let wants_links = sink.wants_links();
        Rewriter {
            pending: Vec::new(),
            transcoded: None,
            machine: Machine {
                sink,
                options: options.clone(),
                transport: charset,
                outer: base.clone(),
                encoding: encoding_rs::UTF_8,
                state: State::Starting,
                pending_start: 0,
                processed: 0,
                read: 0,
                emitted: 0,
                limit: MAX_HELD.min(options.max_buffer.max(1)),
                namespaces: Namespaces::default(),
                scopes: Vec::new(),
                scope_bytes: 0,
                names: Vec::new(),
                bases: Vec::new(),
                held: None,
                attrs: Vec::new(),
                wants_output,
                wants_links,
                error: None,
                document_start: 0,
                root_seen: false,
                brackets: 0,
                flaws: 0,
                charset_check: None,
                checked: 0,
                undecodable: Vec::new(),
            },
        }
    }

    /// Feeds the next chunk of the feed; writes out what is settled.
    pub fn write(&mut self, chunk: &[u8]) -> io::Result<()> {
        if self.transcoded.is_some() {
            return self.transcode(chunk, false);
        }
        self.pending.extend_from_slice(chunk);
        self.machine.read += chunk.len() as u64;
        self.pump(false);
        if self.machine.state == State::Transcoding {
            return self.start_transcoding(false);
        }
        self.machine.error.take().map_or(Ok(()), Err)
    }

    /// The charset is not ASCII-compatible: a rewriter of the feed's UTF-8 text (its
    /// charset fixed: the XML declaration names the other) is given every byte so far.
    fn start_transcoding(&mut self, ending: bool) -> io::Result<()> {
        let m = &self.machine;
        let inner = Rewriter::new(
            &m.outer,
            &m.options,
            Some(encoding_rs::UTF_8),
            Events::like(&m.sink),
        );
        self.transcoded = Some(Box::new(Transcoded {
            transcoding: Transcoding::new(m.encoding),
            inner,
        }));
        let held = std::mem::take(&mut self.pending);
        self.transcode(&held, ending)
    }

    /// The next bytes of a feed read through UTF-8 (`last`: the end).
    fn transcode(&mut self, bytes: &[u8], last: bool) -> io::Result<()> {
        let Transcoded { transcoding, inner } =
            &mut **self.transcoded.as_mut().expect("transcoding");
        let text = transcoding.decode(bytes, last);
        if !text.is_empty() {
            inner.write(text)?;
        }
        transcoding.replay(&mut inner.machine.sink, &mut self.machine.sink)
    }

    /// Ends a feed read through UTF-8.
    fn end_transcoded(mut self) -> io::Result<S> {
        self.transcode(&[], true)?;
        let Transcoded {
            mut transcoding,
            inner,
        } = *self.transcoded.take().expect("transcoding");
        let mut events = inner.end()?;
        transcoding.replay(&mut events, &mut self.machine.sink)?;
        transcoding.finish(&mut self.machine.sink)?;
        Ok(self.machine.sink)
    }

    /// Ends the feed: writes out everything left and returns the sink.
    pub fn end(mut self) -> io::Result<S> {
        if self.transcoded.is_some() {
            return self.end_transcoded();
        }
        self.pump(true);
        if self.machine.state == State::Transcoding {
            self.start_transcoding(false)?;
            return self.end_transcoded();
        }
        let m = &mut self.machine;
        if m.state == State::Running {
            // A sequence the feed's end cuts is not valid either.
            m.check_bytes(m.checked, &self.pending, true);
        }
        if m.state == State::Running
            && let Some(innermost) = m.scopes.last()
        {
            let name = String::from_utf8_lossy(&m.names[innermost.name.clone()]).into_owned();
            m.warn(Warning::Unclosed {
                offset: innermost.offset,
                open: m.scopes.len(),
                name,
            });
        }
        m.held = None;
        m.state = State::PassThrough;
        m.flush(&self.pending);
        match self.machine.error.take() {
            Some(error) => Err(error),
            None => Ok(self.machine.sink),
        }
    }

    /// Handles every complete token in the window, writes out what is settled, and keeps
    /// the window within the limit.
    fn pump(&mut self, ending: bool) {
        let m = &mut self.machine;
        if m.state == State::Starting && !m.start(&self.pending, ending) {
            return;
        }
        if m.state == State::Transcoding {
            return;
        }
        if m.state == State::Running {
            m.tokens(&self.pending, ending);
        }
        m.flush(&self.pending);
        self.compact();
        let m = &mut self.machine;
        if self.pending.len() > m.limit && !ending {
            match m.held.take() {
                Some(held) => m.warn(Warning::ContentTooLarge {
                    offset: held.content_start,
                    limit: m.limit,
                }),
                None if m.state == State::Running => {
                    m.warn(Warning::TokenTooLarge {
                        offset: m.processed,
                        limit: m.limit,
                    });
                    m.pass_through();
                }
                None => {}
            }
            m.flush(&self.pending);
            self.compact();
        }
    }

    /// Drops the bytes already written out.
    fn compact(&mut self) {
        let m = &mut self.machine;
        let done = (m.emitted - m.pending_start) as usize;
        if done > 0 {
            self.pending.drain(..done);
            m.pending_start = m.emitted;
        }
    }
}

/// A token of the window, with its range there.
struct Token<'a> {
    event: Event<'a>,
    range: Range<usize>,
}

impl<S: Sink> Machine<S> {
    /// A feed problem, to the sink with every other warning.
    fn warn(&mut self, warning: Warning) {
        self.sink
            .warning(crate::Warning::new(crate::Problem::Feed(warning)));
    }

    /// The charset: a BOM, else the transport's, else the XML declaration's `encoding`,
    /// else UTF-8 (XML 1.0 §4.3.3 and Appendix F, RFC 7303 §3). Returns whether it is
    /// known (an XML declaration may still be arriving).
    fn start(&mut self, pending: &[u8], ending: bool) -> bool {
        if pending.len() < 3 && !ending {
            return false;
        }
        if let Some((encoding, bom)) = Encoding::for_bom(pending) {
            self.processed = bom as u64;
            return self.use_encoding(encoding, 0);
        }
        if let Some(encoding) = self.transport {
            return self.use_encoding(encoding, 0);
        }
        let declaration_may_follow = pending.starts_with(b"<?xml") || b"<?xml".starts_with(pending);
        if declaration_may_follow
            && memchr::memmem::find(pending, b"?>").is_none()
            && pending.len() < DECLARATION_WINDOW
            && !ending
        {
            return false;
        }
        // Only a declaration that ends within the window counts, however much of the
        // feed has arrived: the charset never depends on how the feed was cut in chunks.
        let declared = declared_encoding(&pending[..pending.len().min(DECLARATION_WINDOW)]);
        // A declaration read as ASCII cannot be UTF-16's: the document is not UTF-16
        // (as HTML's rule for `<meta charset=utf-16>`), so it is read as UTF-8.
        let encoding = match declared {
            Declared::Known(e) if e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE => {
                encoding_rs::UTF_8
            }
            Declared::Known(e) => e,
            Declared::Unknown(label) => {
                self.warn(Warning::UnknownCharset { offset: 0, label });
                encoding_rs::UTF_8
            }
            Declared::None => encoding_rs::UTF_8,
        };
        self.use_encoding(encoding, 0)
    }

    /// Starts reading in `encoding`, or through UTF-8 if it is UTF-16 or ISO-2022-JP,
    /// or passes the feed through if it is the replacement encoding (the tokenizer reads
    /// bytes as ASCII).
    fn use_encoding(&mut self, encoding: &'static Encoding, offset: u64) -> bool {
        self.encoding = encoding;
        if transcode::is_transcoded(encoding) {
            self.state = State::Transcoding;
        } else if encoding.is_ascii_compatible() {
            self.state = State::Running;
            self.document_start = self.processed;
            self.checked = self.processed;
            self.charset_check = Some(CharsetCheck::new(encoding));
        } else {
            self.warn(Warning::UnsupportedCharset {
                offset,
                charset: encoding.name(),
            });
            self.pass_through();
        }
        true
    }

    fn pass_through(&mut self) {
        self.state = State::PassThrough;
        self.held = None;
    }

    /// Handles the tokens of the window from `processed` on.
    fn tokens(&mut self, pending: &[u8], ending: bool) {
        let from = (self.processed - self.pending_start) as usize;
        let window = &pending[from..];
        // Where in the window the reader's input starts (past a DOCTYPE read here).
        let mut start = 0;
        let (mut reader, mut skipped) = reader_of(window);
        while self.state == State::Running {
            let before = start + reader.buffer_position() as usize + skipped;
            if before == window.len() {
                break;
            }
            match doctype::end(&window[before..]) {
                doctype::Scan::NotDoctype => {}
                doctype::Scan::Ends(len) => {
                    let at = window_start(self.pending_start, pending, window) + before as u64;
                    self.doctype(&window[before..before + len], at);
                    start = before + len;
                    self.processed = self.pending_start + (from + start) as u64;
                    (reader, skipped) = reader_of(&window[start..]);
                    continue;
                }
                doctype::Scan::Cut if !ending => break,
                doctype::Scan::Cut => {
                    self.warn(Warning::Malformed {
                        offset: self.processed,
                        reason: "the DOCTYPE is not closed".to_owned(),
                    });
                    self.pass_through();
                    break;
                }
            }
            let event = reader.read_event();
            let after = start + reader.buffer_position() as usize + skipped;
            match event {
                Ok(Event::Eof) => break,
                // Text at the end of the window may go on in the next chunk.
                Ok(Event::Text(text)) if after == window.len() && !ending => {
                    // Held text is read again whole; other text is passed here.
                    if self.held.is_none() {
                        let at = window_start(self.pending_start, pending, window) + before as u64;
                        self.character_data(&text, at);
                        self.processed += (after - before) as u64;
                    }
                    break;
                }
                Ok(event) => {
                    if skipped > 0 && before == start + skipped {
                        // The BOM quick-xml dropped is text, as it is where a window
                        // does not start on it: it begins the text after it, or stands
                        // alone before markup.
                        match &event {
                            Event::Text(text) if text.as_ptr() == window[before..].as_ptr() => {
                                let bytes = &window[start..before + text.len()];
                                let at = window_start(self.pending_start, pending, window)
                                    + before as u64;
                                self.character_data(text, at);
                                self.piece(PieceKind::Text, bytes, window, pending);
                                self.processed = self.pending_start + (from + after) as u64;
                                continue;
                            }
                            _ => {
                                self.piece(PieceKind::Text, &window[start..before], window, pending)
                            }
                        }
                    }
                    let token = Token {
                        event,
                        range: before..after,
                    };
                    self.token(token, window, pending);
                    if self.state == State::Running {
                        self.processed = self.pending_start + (from + after) as u64;
                    }
                }
                Err(error) => {
                    let at = start + reader.error_position() as usize + skipped;
                    let from_end = (window.len() - at) as u64;
                    if ending || !incomplete(&error, from_end) {
                        self.warn(Warning::Malformed {
                            offset: self.processed,
                            reason: error.to_string(),
                        });
                        self.pass_through();
                    }
                    break;
                }
            }
        }
    }

    /// A document type declaration, `bytes` at `at` (XML 1.0 §2.8, its end found by
    /// [`doctype::end`]).
    fn doctype(&mut self, bytes: &[u8], at: u64) {
        // XML 1.0 §2.8: a DOCTYPE belongs in the prolog. One inside an element is no part
        // of its text: read as one, it was dropped from a URL element's text when the URL
        // was written back. The rest passes through, as after other malformed markup.
        if self.root_seen && self.scopes.is_empty() {
            self.flaw(
                Flaw::OutsideRoot,
                at,
                "a DOCTYPE after the root element (XML 1.0 §2.8: only in the prolog)",
            );
        }
        if !self.scopes.is_empty() {
            self.warn(Warning::Malformed {
                offset: at,
                reason: "a DOCTYPE inside an element (XML 1.0 §2.8: only in the prolog)".to_owned(),
            });
            return self.pass_through();
        }
        // XML 1.0 §4.2: entities a DTD declares are never expanded (no "billion laughs"),
        // and no external DTD is fetched. Only a declaration counts: not the words in a
        // comment, a processing instruction or a literal of the subset.
        if doctype::declares_entities(bytes) {
            self.warn(Warning::EntityDeclarations { offset: at });
            self.namespaces.declare_entities(bytes);
        }
    }

    /// The offset in the feed of `inner`, a slice of the window.
    fn offset_of(&self, window: &[u8], inner: &[u8], pending: &[u8]) -> u64 {
        let window_start = self.pending_start + (pending.len() - window.len()) as u64;
        window_start + (inner.as_ptr() as usize - window.as_ptr() as usize) as u64
    }

    fn token(&mut self, token: Token, window: &[u8], pending: &[u8]) {
        let window_start = self.pending_start + (pending.len() - window.len()) as u64;
        let at = window_start + token.range.start as u64;
        match &token.event {
            Event::Text(text) => self.character_data(text, at),
            Event::Start(_) | Event::Empty(_) if self.scopes.is_empty() => {
                if self.root_seen {
                    self.flaw(Flaw::OutsideRoot, at, OUTSIDE_ROOT);
                }
                self.root_seen = true;
                self.brackets = 0;
            }
            Event::CData(_) | Event::GeneralRef(_) if self.scopes.is_empty() => {
                self.flaw(Flaw::OutsideRoot, at, OUTSIDE_ROOT);
                self.brackets = 0;
            }
            Event::Decl(decl) => {
                if at != self.document_start {
                    self.flaw(
                        Flaw::Declaration,
                        at,
                        "an XML declaration not at the document's start (XML 1.0 §2.8; §2.6: the target `xml` is reserved)",
                    );
                } else if let Some(reason) = declaration_error(decl) {
                    self.flaw(Flaw::Declaration, at, reason);
                }
            }
            _ => self.brackets = 0,
        }
        match &token.event {
            Event::Start(start) => self.open(start, at, false, window, pending),
            Event::Empty(start) => self.open(start, at, true, window, pending),
            Event::End(end) => self.close(end.name(), at, pending),
            Event::Text(text) => self.piece(PieceKind::Text, text, window, pending),
            Event::GeneralRef(_) => {
                let bytes = &window[token.range.clone()];
                self.piece(PieceKind::Reference, bytes, window, pending);
            }
            Event::CData(cdata) => self.piece(PieceKind::CData, cdata, window, pending),
            // Read by `doctype::end` before quick-xml sees one; kept for safety.
            Event::DocType(doctype) => self.doctype(doctype, at),
            Event::PI(pi) if !self.root_seen && pi.target() == b"xml-stylesheet" => {
                self.stylesheet_instruction(pi, window, pending)
            }
            Event::PI(_) | Event::Comment(_) => {
                if let Some(held) = &mut self.held {
                    let from = (at - held.content_start) as usize;
                    held.markup.push(from..from + token.range.len());
                }
            }
            Event::Decl(_) | Event::Eof => {}
        }
    }

    /// A piece of the held element's content.
    fn piece(&mut self, kind: PieceKind, bytes: &[u8], window: &[u8], pending: &[u8]) {
        let start = self.offset_of(window, bytes, pending);
        if let Some(held) = &mut self.held {
            let from = (start - held.content_start) as usize;
            held.pieces.push(Piece {
                kind,
                raw: from..from + bytes.len(),
            });
        }
    }

    /// A start tag (or an empty element).
    fn open(&mut self, start: &BytesStart, at: u64, empty: bool, window: &[u8], pending: &[u8]) {
        if let Some(held) = self.held.take() {
            // An element inside a URL or escaped HTML: the content is not text, and
            // passes through as it is.
            self.warn(Warning::MarkupInContent {
                offset: held.content_start,
                element: held.element,
                child: String::from_utf8_lossy(start.name().as_ref()).into_owned(),
            });
        }
        if start.name().as_ref().is_empty() {
            self.warn(Warning::Malformed {
                offset: at,
                reason: "a tag without a name".to_owned(),
            });
            return self.pass_through();
        }
        if !empty && self.scopes.len() >= MAX_DEPTH {
            self.warn(Warning::TooDeep {
                offset: at,
                limit: MAX_DEPTH,
            });
            return self.pass_through();
        }
        let content_offset = self.offset_of(window, start, pending);
        let content_in_window = (content_offset
            - (self.pending_start + (pending.len() - window.len()) as u64))
            as usize;
        if let Err(error) = self.read_attributes(start, content_in_window, window) {
            // XML 1.0 §3.1: attribute specifications are `S Name Eq AttValue`, each name
            // once (WFC: Unique Att Spec). Rewriting a value inside a malformed list could
            // move the quotes that tell where the tag ends: the rest passes through.
            self.warn(Warning::Malformed {
                offset: at,
                reason: format!(
                    "the attributes of <{}>: {error}",
                    String::from_utf8_lossy(start.name().as_ref())
                ),
            });
            return self.pass_through();
        }
        // What the open elements keep (names, namespace declarations, bases) is bounded.
        let declarations: usize = self
            .attrs
            .iter()
            .filter(|a| window[a.key.clone()].starts_with(b"xmlns"))
            .map(|a| a.key.len() + a.value.len())
            .sum();
        let cost = start.name().as_ref().len() + declarations;
        if !empty && self.scope_bytes + cost > MAX_SCOPE_BYTES {
            self.warn(Warning::ScopeTooLarge {
                offset: at,
                limit: MAX_SCOPE_BYTES,
            });
            return self.pass_through();
        }
        // Only a tag that declares namespaces opens a level of the namespaces.
        let pushed_ns = declarations > 0;
        if pushed_ns && let Err(error) = self.namespaces.push(start) {
            self.warn(Warning::Malformed {
                offset: at,
                reason: error.to_string(),
            });
            return self.pass_through();
        }
        let ns = self.namespaces.of_element(start.name());
        let own_base = self.element_base(window, pending);
        let pushed_base = own_base.is_some();
        let base = own_base.unwrap_or_else(|| self.bases.last().unwrap_or(&self.outer).clone());
        let qname = start.name();
        let local = start.local_name();
        let parent = self.scopes.last();
        let parent_local = parent.map_or(&b""[..], |p| &self.names[p.local_start..p.name.end]);
        let in_xhtml = parent.is_some_and(|p| p.xhtml_children);
        let mut xhtml_children = in_xhtml;
        let mut hold = None;
        if in_xhtml {
            self.xhtml_tag(start, content_offset, ns, &base, window, pending);
            if is_style(ns, local.as_ref()) {
                hold = Some(HeldKind::Css);
            }
        } else {
            let found: ArrayVec<Value, 4> =
                values(ns, local.as_ref(), parent_local).take(4).collect();
            for value in found {
                match value {
                    Value::Attribute(name) => {
                        self.url_attribute(name, local.as_ref(), &base, window, pending)
                    }
                    Value::Text => hold = Some(HeldKind::Url),
                    Value::Html => hold = Some(HeldKind::Html),
                    Value::TextConstruct => {
                        let kind = self.attr_text(b"type", window);
                        let mode = self.attr_text(b"mode", window);
                        match text_type(kind.as_deref(), mode.as_deref()) {
                            TextType::Html => hold = Some(HeldKind::Html),
                            TextType::Xhtml => xhtml_children = true,
                            TextType::Base64Html => hold = Some(HeldKind::Base64Html),
                            TextType::Text => {}
                        }
                    }
                    Value::XhtmlBody => {
                        self.xhtml_tag(start, content_offset, ns, &base, window, pending);
                        xhtml_children = true;
                    }
                }
            }
        }
        if empty {
            if pushed_ns {
                self.namespaces.pop();
            }
            return;
        }
        let name_start = self.names.len();
        self.names.extend_from_slice(qname.as_ref());
        let cost = cost
            + if pushed_base {
                base.url().map_or(0, str::len)
            } else {
                0
            };
        self.scope_bytes += cost;
        if pushed_base {
            self.bases.push(base.clone());
        }
        self.scopes.push(Scope {
            name: name_start..self.names.len(),
            local_start: self.names.len() - local.as_ref().len(),
            pushed_base,
            pushed_ns,
            xhtml_children,
            offset: at,
            cost,
        });
        if let Some(kind) = hold {
            self.held = Some(Held {
                kind,
                depth: self.scopes.len(),
                content_start: window_start(self.pending_start, pending, window)
                    + (content_in_window + start.len() + 1) as u64,
                pieces: Vec::new(),
                markup: Vec::new(),
                element: String::from_utf8_lossy(local.as_ref()).into_owned(),
                base,
            });
        }
    }

    /// Collects the attributes of the tag whose content starts at `content` in the window;
    /// an attribute list that is not well-formed (a name twice, a value without quotes, no
    /// `=`) is an error.
    fn read_attributes(
        &mut self,
        start: &BytesStart,
        content: usize,
        window: &[u8],
    ) -> Result<(), AttrError> {
        self.attrs.clear();
        if start.len() == start.name().as_ref().len() {
            return Ok(());
        }
        let tag = &window[content..content + start.len()];
        let mut names = UniqueNames::default();
        // quick-xml's own duplicate check compares each name with every earlier one: time
        // grew with the square of the attributes (100,000 on one tag took 46 s).
        for attribute in start.attributes().with_checks(false) {
            let attribute = attribute?;
            let key = attribute.key.into_inner();
            let key_at = key.as_ptr() as usize - window.as_ptr() as usize;
            if !names.insert(key) {
                // The error says where the first one is: the tag is read again for it.
                let first = start
                    .attributes()
                    .with_checks(false)
                    .flatten()
                    .find(|a| a.key.as_ref() == key)
                    .map_or(0, |a| {
                        (a.key.as_ref().as_ptr() as usize).saturating_sub(tag.as_ptr() as usize)
                    });
                return Err(AttrError::Duplicated(key_at.saturating_sub(content), first));
            }
            let Cow::Borrowed(value) = attribute.value else {
                continue;
            };
            let value_at = value.as_ptr() as usize - window.as_ptr() as usize;
            if key_at < content || value_at > content + tag.len() {
                continue;
            }
            let quote = window
                .get(value_at.wrapping_sub(1))
                .copied()
                .filter(|q| *q == b'"' || *q == b'\'')
                .unwrap_or(b'"');
            self.attrs.push(Attr {
                key: key_at..key_at + key.len(),
                value: value_at..value_at + value.len(),
                quote,
            });
        }
        Ok(())
    }

    /// The raw value of the attribute named `key` (as written) of the current tag.
    fn attr<'w>(&self, key: &[u8], window: &'w [u8]) -> Option<&'w [u8]> {
        self.attrs
            .iter()
            .find(|a| &window[a.key.clone()] == key)
            .map(|a| &window[a.value.clone()])
    }

    /// The value of the attribute named `key` of the current tag, its references read
    /// (XML 1.0 §3.3.3: `type="&#104;tml"` is `html`); as written if it cannot be read.
    fn attr_text<'w>(&self, key: &[u8], window: &'w [u8]) -> Option<Cow<'w, [u8]>> {
        let raw = self.attr(key, window)?;
        if !raw.contains(&b'&') {
            return Some(Cow::Borrowed(raw));
        }
        Some(match escape::read_value(raw, self.encoding) {
            Ok(text) => Cow::Owned(escape::encode(&text, self.encoding)),
            Err(_) => Cow::Borrowed(raw),
        })
    }

    /// W3C XML Base §4.2: the element's base is its `xml:base` resolved against its
    /// parent's base; without one, the parent's (`None`: the parent's base applies).
    fn element_base(&mut self, window: &[u8], pending: &[u8]) -> Option<Base> {
        let raw = self.attr(b"xml:base", window)?;
        let offset = self.offset_of(window, raw, pending);
        let value = match escape::read_value(raw, self.encoding) {
            Ok(value) => value,
            Err(unreadable) => {
                self.unreadable(unreadable, offset..offset + raw.len() as u64);
                return None;
            }
        };
        let parent = self.bases.last().unwrap_or(&self.outer);
        let standard = self.options.standard;
        let mut url = String::with_capacity(parent.url().map_or(0, str::len) + value.len());
        // `xml:base=""` (or a value naming the parent's base) gives the parent's URL, as
        // RFC 3986 §5.2 resolves an empty reference; it is the element's base all the
        // same, and its links say `xml-base` (the innermost base that applied).
        let resolved = parent.try_resolve_into(standard, xml_trimmed(&value), None, &mut url);
        // By the URL Standard the base is the URL parser's result (§4.4, "the basic URL
        // parser" with the parent's base): a value it rejects (`http://[bad/`, a port
        // past 65535) gives none, and the parent's base applies (XML Base §4.2: the base
        // of an element without a usable `xml:base` is its parent's), with a warning.
        match resolved
            .ok()
            .and_then(|()| Base::absolute_with(standard, &url, BaseSource::XmlBase).ok())
        {
            Some(base) => Some(base),
            None => {
                self.warn(Warning::UnusableBase { offset, value });
                None
            }
        }
    }

    /// A feed URL in attribute `name` of element `element`.
    fn url_attribute(
        &mut self,
        name: &str,
        element: &[u8],
        base: &Base,
        window: &[u8],
        pending: &[u8],
    ) {
        let Some(attr) = self
            .attrs
            .iter()
            .find(|a| &window[a.key.clone()] == name.as_bytes())
            .cloned()
        else {
            return;
        };
        let raw = &window[attr.value.clone()];
        let value = Quoted {
            raw,
            quote: attr.quote,
            in_instruction: false,
        };
        self.attribute_value(element, name, value, base, window, pending);
    }

    /// The URL in the attribute (or pseudo-attribute) `name` of `element`, whose value is
    /// `value` in the window: read, resolved against `base`, written back escaped for its
    /// quote where it changed (in an instruction a `?>` too: XML 1.0 §2.6, it ends at the
    /// first one), and reported.
    fn attribute_value(
        &mut self,
        element: &[u8],
        name: &str,
        value: Quoted,
        base: &Base,
        window: &[u8],
        pending: &[u8],
    ) {
        let raw = value.raw;
        let offset = self.offset_of(window, raw, pending);
        let original = match escape::read_value(raw, self.encoding) {
            Ok(value) => value,
            Err(unreadable) => {
                return self.unreadable(unreadable, offset..offset + raw.len() as u64);
            }
        };
        let (resolved, kept) = self.resolve(&original, base, offset);
        if resolved != original && self.wants_output {
            let mut text = escape::attribute(&resolved, value.quote);
            if value.in_instruction {
                text = text.replace("?>", "?&gt;");
            }
            let written = escape::encode(&text, self.encoding);
            self.splice(offset..offset + raw.len() as u64, &written, pending);
        }
        let resolved = resolved.into_owned();
        self.report(element, Some(name), original, resolved, base, offset, kept);
    }

    /// Associating Style Sheets with XML documents 1.0 (Second Edition) §2
    /// (<https://www.w3.org/TR/xml-stylesheet/#the-xml-stylesheet-processing-instruction>):
    /// "The xml-stylesheet processing instruction is allowed only in the prolog of an XML
    /// document", and its `href` pseudo-attribute is a URI reference; its base is the
    /// document's (XML Base §4.2: a processing instruction's base URI is its parent's,
    /// here the document entity's), never an element's `xml:base`. A feed's XSLT
    /// (`<?xml-stylesheet href="/pretty-feed.xsl"?>`) and an SVG image's CSS are named so.
    /// Pseudo-attributes that are not well-formed are left as written, with a warning.
    fn stylesheet_instruction(&mut self, pi: &BytesPI, window: &[u8], pending: &[u8]) {
        let at = self.offset_of(window, pi, pending);
        // Browsers read no style sheet from a list with an error anywhere in it.
        let mut href = None;
        for attribute in pi.attributes().with_checks(false) {
            match attribute {
                Ok(attribute) if attribute.key.as_ref() == b"href" => href = Some(attribute.value),
                Ok(_) => {}
                Err(error) => {
                    return self.warn(Warning::NotWellFormed {
                        offset: at,
                        reason: pseudo_attribute_error(&error),
                    });
                }
            }
        }
        let Some(Cow::Borrowed(raw)) = href else {
            return;
        };
        let in_window = raw.as_ptr() as usize - window.as_ptr() as usize;
        let quote = window
            .get(in_window.wrapping_sub(1))
            .copied()
            .filter(|q| *q == b'\'')
            .unwrap_or(b'"');
        let base = self.outer.clone();
        let value = Quoted {
            raw,
            quote,
            in_instruction: true,
        };
        self.attribute_value(b"xml-stylesheet", "href", value, &base, window, pending);
    }

    /// An XHTML start tag whose content (name and attributes) is at `offset`, of an
    /// element of namespace `ns`.
    fn xhtml_tag(
        &mut self,
        start: &BytesStart,
        offset: u64,
        ns: Ns,
        base: &Base,
        window: &[u8],
        pending: &[u8],
    ) {
        if !self
            .attrs
            .iter()
            .any(|a| xhtml::may_hold_url(&window[a.key.clone()], &window[a.value.clone()]))
        {
            return;
        }
        let namespace = match ns {
            Ns::Svg => Namespace::Svg,
            Ns::MathMl => Namespace::MathMl,
            _ => Namespace::Html,
        };
        let tag = xhtml::Tag {
            start,
            offset,
            namespace,
        };
        let collected = Collected {
            keep_links: self.wants_links,
            keep_output: self.wants_output,
            ..Collected::default()
        };
        let done = xhtml::rewrite(&tag, base, &self.options, self.encoding, collected);
        if let Some(attributes) = done.attributes {
            let from = offset + start.name().as_ref().len() as u64;
            self.splice(from..offset + start.len() as u64, &attributes, pending);
        }
        for link in done.links {
            self.sink.link(link);
        }
        if any_undecodable(&done.warnings, &done.feed_warnings) {
            self.undecodable.push(offset..offset + start.len() as u64);
        }
        for warning in done.warnings {
            self.sink.warning(warning.into());
        }
        for warning in done.feed_warnings {
            self.warn(warning);
        }
    }

    /// An end tag at `at`.
    fn close(&mut self, name: QName, at: u64, pending: &[u8]) {
        let Some(scope) = self.scopes.last() else {
            self.warn(Warning::Mismatched {
                offset: at,
                expected: None,
                found: String::from_utf8_lossy(name.as_ref()).into_owned(),
            });
            return self.pass_through();
        };
        let open = &self.names[scope.name.clone()];
        if open != name.as_ref() {
            self.warn(Warning::Mismatched {
                offset: at,
                expected: Some(String::from_utf8_lossy(open).into_owned()),
                found: String::from_utf8_lossy(name.as_ref()).into_owned(),
            });
            return self.pass_through();
        }
        if self
            .held
            .as_ref()
            .is_some_and(|h| h.depth == self.scopes.len())
        {
            let held = self.held.take().expect("checked above");
            self.finish(held, at, pending);
        }
        let scope = self.scopes.pop().expect("checked above");
        self.scope_bytes -= scope.cost;
        self.names.truncate(scope.name.start);
        if scope.pushed_base {
            self.bases.pop();
        }
        if scope.pushed_ns {
            self.namespaces.pop();
        }
    }

    /// The end of a held element: its content ends at `end`.
    fn finish(&mut self, held: Held, end: u64, pending: &[u8]) {
        let from = (held.content_start - self.pending_start) as usize;
        let raw = &pending[from..(end - self.pending_start) as usize];
        match held.kind {
            HeldKind::Url => self.url_text(&held, raw, pending),
            HeldKind::Html => self.html_text(&held, raw, end, pending),
            HeldKind::Css => self.css_text(&held, raw, end, pending),
            HeldKind::Base64Html => self.base64_text(&held, raw, end, pending),
        }
    }

    /// An element whose text is a URL: XML whitespace around it is no part of it.
    fn url_text(&mut self, held: &Held, raw: &[u8], pending: &[u8]) {
        let mut value = Vec::with_capacity(raw.len());
        let mut starts = Vec::with_capacity(held.pieces.len());
        for piece in &held.pieces {
            let bytes = &raw[piece.raw.clone()];
            starts.push(value.len());
            match piece.kind {
                PieceKind::Reference => {
                    let name = &bytes[1..bytes.len().saturating_sub(1).max(1)];
                    match escape::reference(name, self.encoding) {
                        Some(stands_for) => value.extend_from_slice(&stands_for),
                        None => {
                            let offset = held.content_start + piece.raw.start as u64;
                            let name = String::from_utf8_lossy(name).into_owned();
                            return self.unreadable(Unreadable::Entity(name), offset..offset);
                        }
                    }
                }
                PieceKind::Text => {
                    if let Some(at) = escape::bare_ampersand(bytes) {
                        let offset = held.content_start + piece.raw.start as u64;
                        let malformed = Unreadable::NotWellFormed(escape::BARE_AMPERSAND, at);
                        return self.unreadable(malformed, offset..offset);
                    }
                    value.extend_from_slice(bytes);
                }
                PieceKind::CData => value.extend_from_slice(bytes),
            }
        }
        let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
        let Some(first) = value.iter().position(|b| !is_space(b)) else {
            return;
        };
        let last = value
            .iter()
            .rposition(|b| !is_space(b))
            .expect("a first one")
            + 1;
        let piece_of = |at: usize| starts.partition_point(|&s| s <= at) - 1;
        let (first_piece, last_piece) = (piece_of(first), piece_of(last - 1));
        let raw_at = |piece: usize, at: usize, end: bool| {
            let p = &held.pieces[piece];
            match p.kind {
                PieceKind::Reference if end => p.raw.end,
                PieceKind::Reference => p.raw.start,
                _ => p.raw.start + (at - starts[piece]),
            }
        };
        let mut range = raw_at(first_piece, first, false)..raw_at(last_piece, last - 1, true);
        if held.pieces[last_piece].kind != PieceKind::Reference {
            range.end += 1;
        }
        let offset = held.content_start + range.start as u64;
        let original = match escape::decode(&value[first..last], self.encoding) {
            Some(text) => text.into_owned(),
            None => {
                let content = held.content_start..held.content_start + raw.len() as u64;
                return self.unreadable(Unreadable::Undecodable, offset..content.end);
            }
        };
        let (mut resolved, kept) = self.resolve(&original, &held.base, offset);
        // XML 1.0 §2.5, §2.6: a comment or processing instruction inside the URL is no
        // part of its text; it is kept where it falls in the resolved URL (between the
        // bytes that match those it stood between), or, where no place can be told, the
        // element is left as written (listed so), with a warning.
        let inside: Vec<&Range<usize>> = held
            .markup
            .iter()
            .filter(|m| range.contains(&m.start))
            .collect();
        let mut url = Vec::new();
        let mut places = Vec::new();
        if resolved != original {
            url = escape::encode(&resolved, self.encoding);
            let points = markup_points(held, &inside, &starts, value.len(), first..last);
            match content::markup_places(&value[first..last], &url, &points, self.encoding) {
                Some(found) => places = found,
                None => {
                    self.warn(Warning::MarkupInUrl {
                        offset: held.content_start + inside[0].start as u64,
                        element: held.element.clone(),
                    });
                    resolved = Cow::Borrowed(&original);
                }
            }
        }
        if resolved != original && self.wants_output {
            let one_cdata =
                first_piece == last_piece && held.pieces[first_piece].kind == PieceKind::CData;
            let mut written = Vec::with_capacity(url.len() + 16);
            if one_cdata {
                escape::cdata_bytes(&url, &mut written);
            } else {
                // Written as text: a CDATA section the value starts or ends in is
                // closed before it or opened after it.
                if held.pieces[first_piece].kind == PieceKind::CData {
                    written.extend_from_slice(b"]]>");
                }
                text_with_markup(&url, &inside, &places, raw, &mut written);
                if held.pieces[last_piece].kind == PieceKind::CData {
                    written.extend_from_slice(b"<![CDATA[");
                }
            }
            let start = held.content_start;
            self.splice(
                start + range.start as u64..start + range.end as u64,
                &written,
                pending,
            );
        }
        let resolved = resolved.into_owned();
        let element = held.element.clone();
        self.report(
            element.as_bytes(),
            None,
            original,
            resolved,
            &held.base,
            offset,
            kept,
        );
    }

    /// An element whose text is HTML: its links are placed at the content's start.
    fn html_text(&mut self, held: &Held, raw: &[u8], end: u64, pending: &[u8]) {
        self.content_text(held, raw, end, pending, content::rewrite, true);
    }

    /// The text of a `<style>` in inline XHTML: CSS, each link at its own offset.
    fn css_text(&mut self, held: &Held, raw: &[u8], end: u64, pending: &[u8]) {
        self.content_text(held, raw, end, pending, content::rewrite_css, false);
    }

    /// Base64 of HTML (Atom 0.3 `mode="base64"`): decoded, rewritten and encoded again;
    /// its links are placed at the content's start.
    fn base64_text(&mut self, held: &Held, raw: &[u8], end: u64, pending: &[u8]) {
        self.content_text(held, raw, end, pending, content::rewrite_base64, true);
    }

    /// Text content rewritten by `rewrite`: spliced in if it changed, its links and
    /// warnings handed on (its links placed at the content's start if `at_start`).
    fn content_text(
        &mut self,
        held: &Held,
        raw: &[u8],
        end: u64,
        pending: &[u8],
        rewrite: fn(&[u8], &[content::Piece], &content::Context) -> content::Done,
        at_start: bool,
    ) {
        let context = content::Context {
            base: &held.base,
            options: &self.options,
            encoding: self.encoding,
            wants_output: self.wants_output,
            wants_links: self.wants_links,
            offset: held.content_start,
            markup: &held.markup,
            element: &held.element,
        };
        let done = rewrite(raw, &held.pieces, &context);
        if let Some(content) = done.content {
            self.splice(held.content_start..end, &content, pending);
        }
        for mut link in done.links {
            if at_start {
                link.offset = held.content_start;
            }
            self.sink.link(link);
        }
        if any_undecodable(&done.warnings, &done.feed_warnings) {
            self.undecodable.push(held.content_start..end);
        }
        for warning in done.warnings {
            self.sink.warning(warning.into());
        }
        for warning in done.feed_warnings {
            self.warn(warning);
        }
    }

    /// The resolved form of the feed URL at `offset`, and why it was kept if it was: as
    /// the HTML rewriter resolves one, by the same function (the same reading of
    /// whitespace, the same references left alone, the query in the feed's charset by the
    /// URL Standard); one the URL Standard rejects is left as written, with a warning.
    fn resolve<'a>(
        &mut self,
        reference: &'a str,
        base: &Base,
        offset: u64,
    ) -> (Cow<'a, str>, Option<Kept>) {
        let fragments = FragmentRule::by_options(&self.options);
        let resolved = emit::resolve(reference, base, &self.options, fragments, self.encoding);
        if let Some(reason) = resolved.failure {
            self.warn(Warning::Unparsable {
                offset,
                reference: reference.to_owned(),
                reason,
            });
        }
        (resolved.text, resolved.kept)
    }

    /// Reports a feed URL.
    #[allow(clippy::too_many_arguments)]
    fn report(
        &mut self,
        element: &[u8],
        attribute: Option<&str>,
        original: String,
        resolved: String,
        base: &Base,
        offset: u64,
        kept: Option<Kept>,
    ) {
        if !self.wants_links {
            return;
        }
        self.sink.link(Link {
            location: Default::default(),
            element: String::from_utf8_lossy(element).into_owned(),
            attribute: attribute.map(str::to_owned),
            original,
            resolved,
            base: base.shared_url(),
            base_from: base.source(),
            offset,
            srcdoc: 0,
            kept,
        });
    }

    /// A value at `value` (`value.start` its offset) left as written, with a warning.
    fn unreadable(&mut self, unreadable: Unreadable, value: Range<u64>) {
        let offset = value.start;
        let warning = match unreadable {
            Unreadable::Undecodable => {
                self.undecodable.push(value);
                Warning::Undecodable {
                    offset,
                    charset: self.encoding.name(),
                }
            }
            Unreadable::Entity(reason) => Warning::Entity { offset, reason },
            Unreadable::NotWellFormed(reason, at) => Warning::NotWellFormed {
                offset: offset + at as u64,
                reason,
            },
        };
        self.warn(warning);
    }

    /// Writes the original bytes up to `range.start`, then `bytes` in place of the range.
    fn splice(&mut self, range: Range<u64>, bytes: &[u8], pending: &[u8]) {
        if range.start < self.emitted {
            return;
        }
        self.write_through(range.start, pending);
        self.output(bytes);
        self.emitted = range.end;
    }

    /// Writes out the original bytes up to `to`.
    fn write_through(&mut self, to: u64, pending: &[u8]) {
        if to > self.emitted {
            let from = (self.emitted - self.pending_start) as usize;
            let to_index = (to - self.pending_start) as usize;
            let bytes = &pending[from..to_index];
            if self.wants_output
                && self.error.is_none()
                && let Err(error) = self.sink.output_unchanged(self.emitted, bytes)
            {
                self.error = Some(error);
            }
            self.emitted = to;
        }
    }

    fn output(&mut self, bytes: &[u8]) {
        if self.wants_output
            && self.error.is_none()
            && let Err(error) = self.sink.output(bytes)
        {
            self.error = Some(error);
        }
    }

    /// A [`Warning::IllFormed`] of kind `flaw` at `offset`, unless one was reported.
    fn flaw(&mut self, flaw: Flaw, offset: u64, reason: impl Into<String>) {
        if !self.said(flaw) {
            self.flaws |= 1 << flaw as u8;
            self.warn(Warning::IllFormed {
                offset,
                reason: reason.into(),
            });
        }
    }

    /// Whether a [`Warning::IllFormed`] of kind `flaw` was reported in this feed.
    fn said(&self, flaw: Flaw) -> bool {
        self.flaws & (1 << flaw as u8) != 0
    }

    /// Character data `text` at `at`, outside a CDATA section: XML 1.0 §2.4, it holds no
    /// `]]>` (even cut between two pieces); §2.1, outside the root element it is
    /// whitespace only.
    fn character_data(&mut self, text: &[u8], at: u64) {
        // The `]` before each `>`, those of the text before it counted when it has none.
        let brackets_before = |end: usize| {
            let own = text[..end]
                .iter()
                .rev()
                .take(2)
                .take_while(|&&b| b == b']')
                .count();
            if own == end {
                own + usize::from(self.brackets)
            } else {
                own
            }
        };
        let end = memchr::memchr_iter(b'>', text).find(|&i| brackets_before(i) >= 2);
        self.brackets = brackets_before(text.len()).min(2) as u8;
        if let Some(end) = end {
            self.flaw(
                Flaw::CdataEnd,
                at + end as u64 - 2,
                "`]]>` in character data (XML 1.0 §2.4: written `]]&gt;`)",
            );
        }
        if self.scopes.is_empty()
            && let Some(first) = text
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        {
            self.flaw(Flaw::OutsideRoot, at + first as u64, OUTSIDE_ROOT);
        }
    }

    /// Checks the bytes from `checked` up to `to` against the feed's charset (XML 1.0
    /// §4.3.3: a document in an encoding holds only its byte sequences), through the
    /// charset's own streaming decoder: a sequence cut between two windows is read whole.
    /// The first bad sequence that no [`Warning::Undecodable`] value holds is reported,
    /// and no more bytes are checked. `last`: the feed ends at `to`.
    fn check_bytes(&mut self, to: u64, pending: &[u8], last: bool) {
        let mut at = self.checked;
        if to < at || (to == at && !last) {
            return;
        }
        self.checked = to;
        let bytes =
            &pending[(at - self.pending_start) as usize..(to - self.pending_start) as usize];
        if !self.said(Flaw::Control)
            && let Some(control) = first_control(bytes)
        {
            let reason = format!(
                "the control character U+{:04X} (XML 1.0 §2.2: only tab, line feed and carriage return are characters)",
                bytes[control]
            );
            self.flaw(Flaw::Control, at + control as u64, reason);
        }
        let reported = std::mem::take(&mut self.undecodable);
        while let Some(check) = &mut self.charset_check {
            let bytes =
                &pending[(at - self.pending_start) as usize..(to - self.pending_start) as usize];
            let Some(bad) = check.first_bad(bytes, at, last) else {
                return;
            };
            let Some(value) = reported.iter().find(|r| r.contains(&bad)) else {
                self.charset_check = None;
                let reason = format!(
                    "a byte sequence not valid {} (XML 1.0 §4.3.3)",
                    self.encoding.name()
                );
                return self.flaw(Flaw::Undecodable, bad, reason);
            };
            // Reported with its value: the check goes on past the value.
            *check = CharsetCheck::new(self.encoding);
            if value.end >= to {
                self.checked = value.end;
                return;
            }
            at = value.end;
        }
    }

    /// Writes out what is settled: up to the tokens handled, not into a held content.
    fn flush(&mut self, pending: &[u8]) {
        let limit = match (&self.held, self.state) {
            (_, State::PassThrough) => self.pending_start + pending.len() as u64,
            (Some(held), _) => held.content_start,
            (None, _) => self.processed,
        };
        if self.state == State::Running {
            self.check_bytes(limit, pending, false);
        }
        self.write_through(limit, pending);
        if self.state == State::PassThrough {
            self.processed = self.emitted;
        }
    }
}

/// XML 1.0 §3.1, WFC Unique Att Spec: the names of one tag's attributes seen so far, each
/// checked in constant time (a few compared one by one, more through a hash set).
#[derive(Default)]
struct UniqueNames<'a> {
    few: ArrayVec<&'a [u8], 8>,
    many: HashSet<&'a [u8]>,
}

impl<'a> UniqueNames<'a> {
    /// Adds `name`; whether the tag did not have it yet.
    fn insert(&mut self, name: &'a [u8]) -> bool {
        if self.many.is_empty() {
            if self.few.contains(&name) {
                return false;
            }
            if self.few.try_push(name).is_ok() {
                return true;
            }
            self.many.extend(self.few.drain(..));
        }
        self.many.insert(name)
    }
}

/// Why an `xml-stylesheet` instruction's pseudo-attributes are not read (its §2: they
/// follow the grammar of attributes, `href="..."`).
fn pseudo_attribute_error(error: &AttrError) -> &'static str {
    match error {
        AttrError::ExpectedEq(_) => "a pseudo-attribute of <?xml-stylesheet?> without `=`",
        AttrError::ExpectedValue(_) | AttrError::UnquotedValue(_) => {
            "a pseudo-attribute of <?xml-stylesheet?> without a quoted value"
        }
        AttrError::ExpectedQuote(..) => "a pseudo-attribute of <?xml-stylesheet?> not closed",
        _ => "the pseudo-attributes of <?xml-stylesheet?> are not well-formed",
    }
}

/// Whether an element of inline XHTML is a `<style>`, whose text is CSS: XHTML's, SVG's,
/// or one in no namespace or another (whose attributes are read as XHTML's too); not
/// MathML's.
fn is_style(ns: Ns, local: &[u8]) -> bool {
    local == b"style" && ns != Ns::MathMl
}

/// An `xml:base` value without the whitespace around it: XML's (1.0 §2.3 \[3\] S: space,
/// tab, carriage return, line feed), as an HTML `<base href>` is stripped of ASCII
/// whitespace (which adds only form feed, no XML character), not Unicode's (`U+00A0`,
/// `U+3000` are part of the value: by the URL Standard they are percent-encoded, as its
/// parser trims only C0 controls and space, which it does itself).
fn xml_trimmed(value: &str) -> &str {
    value.trim_matches(|c: char| c.is_ascii_whitespace())
}

/// A tokenizer of `input` (a feed, or the rest of a window), and how many bytes of a
/// UTF-8 BOM that starts it quick-xml drops without counting them in its positions: one
/// in the middle of a feed (where a chunk's window may start) must not shift the offsets
/// of what follows it. (Its bytes stay in the output.)
fn reader_of(input: &[u8]) -> (Reader<&[u8]>, usize) {
    let mut reader = Reader::from_reader(input);
    let skipped = if input.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let config = reader.config_mut();
    config.allow_dangling_amp = true;
    config.allow_unmatched_ends = true;
    config.check_end_names = false;
    config.expand_empty_elements = false;
    config.trim_text(false);
    (reader, skipped)
}

/// The offset of the window's start.
fn window_start(pending_start: u64, pending: &[u8], window: &[u8]) -> u64 {
    pending_start + (pending.len() - window.len()) as u64
}

/// Whether a tokenizer error means only that the token goes on past the window
/// (`from_end` bytes before its end): a `<!` is told from a bad one by the next few bytes.
fn incomplete(error: &XmlError, from_end: u64) -> bool {
    if matches!(error, XmlError::Syntax(SyntaxError::InvalidBangMarkup)) {
        return from_end < 16;
    }
    matches!(
        error,
        XmlError::Syntax(
            SyntaxError::UnclosedPIOrXmlDecl
                | SyntaxError::UnclosedComment
                | SyntaxError::UnclosedDoctype
                | SyntaxError::UnclosedCData
                | SyntaxError::UnclosedTag
        )
    )
}

/// How far into a feed its XML declaration must end to name the charset (as HTML's
/// prescan reads 1024 bytes for a `<meta charset>`).
const DECLARATION_WINDOW: usize = 1024;

/// What an XML declaration says of a feed's charset (XML 1.0 §4.3.3, `EncodingDecl`).
#[derive(Debug, PartialEq)]
enum Declared {
    /// No declaration, or one that names no charset (or cannot be read).
    None,
    /// A charset the Encoding Standard has a label for.
    Known(&'static Encoding),
    /// A label it does not know, as written (cut to [`LABEL_SHOWN`] bytes).
    Unknown(String),
}

/// How much of an unknown charset label a warning quotes.
const LABEL_SHOWN: usize = 64;

/// The charset an XML declaration at the start of `bytes` names.
fn declared_encoding(bytes: &[u8]) -> Declared {
    let mut reader = Reader::from_reader(bytes);
    let Ok(Event::Decl(decl)) = reader.read_event() else {
        return Declared::None;
    };
    let Some(Ok(label)) = decl.encoding() else {
        return Declared::None;
    };
    let label = label.trim_ascii();
    match Encoding::for_label(label) {
        Some(encoding) => Declared::Known(encoding),
        None => {
            let shown = &label[..label.len().min(LABEL_SHOWN)];
            Declared::Unknown(String::from_utf8_lossy(shown).into_owned())
        }
    }
}

/// Where each comment or processing instruction `inside` a URL element's text stands in
/// its character data `value[text]` (`starts`: where each piece of the content begins in
/// the value, `value_len` its length): offsets in `value[text]` (XML 1.0 §2.5, §2.6:
/// between the character data before and after it).
fn markup_points(
    held: &Held,
    inside: &[&Range<usize>],
    starts: &[usize],
    value_len: usize,
    text: Range<usize>,
) -> Vec<usize> {
    inside
        .iter()
        .map(|m| {
            let before = held.pieces.partition_point(|p| p.raw.end <= m.start);
            let at = starts.get(before).copied().unwrap_or(value_len);
            at.clamp(text.start, text.end) - text.start
        })
        .collect()
}

/// The URL `url` written as character data (XML 1.0 §2.4) into `out`, with each
/// comment or processing instruction `inside` (ranges in the content `raw`) at its place
/// in `places` (offsets in `url`, in order).
fn text_with_markup(
    url: &[u8],
    inside: &[&Range<usize>],
    places: &[usize],
    raw: &[u8],
    out: &mut Vec<u8>,
) {
    let mut from = 0;
    for (markup, &place) in inside.iter().zip(places) {
        escape::text_bytes(&url[from..place], escape::TextEscapes::default(), out);
        out.extend_from_slice(&raw[(*markup).clone()]);
        from = place;
    }
    escape::text_bytes(&url[from..], escape::TextEscapes::default(), out);
}

/// XML 1.0 §2.1: after the prolog, one element, then only comments, processing
/// instructions and whitespace (Misc).
const OUTSIDE_ROOT: &str = "text or markup outside the root element (XML 1.0 §2.1: only comments, processing instructions and whitespace)";

/// Whether a value's warnings say bytes of it are not valid in the feed's charset (the
/// HTML in it, or the value itself): those bytes are not reported again
/// ([`Warning::IllFormed`]).
fn any_undecodable(html: &[crate::html::Warning], feed: &[Warning]) -> bool {
    html.iter()
        .any(|w| matches!(w, crate::html::Warning::Undecodable(..)))
        || feed
            .iter()
            .any(|w| matches!(w, Warning::Undecodable { .. }))
}

/// What is wrong with an XML declaration (XML 1.0 §2.8 \[23\]-\[26\], §4.3.3 \[80\]-\[81\],
/// §2.9 \[32\]): `version` first, with `1.` and digits; then an optional `encoding`, a
/// Latin letter followed by letters, digits, `.`, `_` and `-`; then an optional
/// `standalone`, `yes` or `no`; nothing else. The attributes are read by quick-xml.
fn declaration_error(decl: &quick_xml::events::BytesDecl) -> Option<&'static str> {
    const BAD: &str = "an XML declaration that is not one (XML 1.0 §2.8)";
    // Every character of a declaration is ASCII.
    let Ok(content) = std::str::from_utf8(decl) else {
        return Some(BAD);
    };
    let start = BytesStart::from_content(content, 3);
    let mut attributes = start.attributes();
    let mut next = || match attributes.next() {
        Some(Ok(attribute)) => Ok(Some(attribute)),
        Some(Err(_)) => Err(BAD),
        None => Ok(None),
    };
    let mut attribute = match next() {
        Ok(a) => a,
        Err(reason) => return Some(reason),
    };
    let version_ok = |v: &[u8]| {
        v.strip_prefix(b"1.")
            .is_some_and(|digits| !digits.is_empty() && digits.iter().all(u8::is_ascii_digit))
    };
    match &attribute {
        Some(a) if a.key.as_ref() == b"version" && version_ok(&a.value) => {}
        Some(a) if a.key.as_ref() == b"version" => {
            return Some("an XML declaration's version is not `1.` and digits (XML 1.0 §2.8 [26])");
        }
        _ => return Some("an XML declaration without a version first (XML 1.0 §2.8 [23])"),
    }
    attribute = match next() {
        Ok(a) => a,
        Err(reason) => return Some(reason),
    };
    if let Some(a) = &attribute
        && a.key.as_ref() == b"encoding"
    {
        let name = &a.value;
        let name_ok = name.first().is_some_and(u8::is_ascii_alphabetic)
            && name
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !name_ok {
            return Some("an XML declaration's encoding is not a name (XML 1.0 §4.3.3 [81])");
        }
        attribute = match next() {
            Ok(a) => a,
            Err(reason) => return Some(reason),
        };
    }
    if let Some(a) = &attribute
        && a.key.as_ref() == b"standalone"
    {
        if !matches!(a.value.as_ref(), b"yes" | b"no") {
            return Some(
                "an XML declaration's standalone is not `yes` or `no` (XML 1.0 §2.9 [32])",
            );
        }
        attribute = match next() {
            Ok(a) => a,
            Err(reason) => return Some(reason),
        };
    }
    match attribute {
        None => None,
        Some(_) => Some(
            "an XML declaration with more than version, encoding and standalone, or out of order (XML 1.0 §2.8 [23])",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::Standard;

    fn run(feed: &[u8], base: &Base, options: &Options) -> (Vec<u8>, Vec<Link>, Vec<Warning>) {
        let mut rewriter = Rewriter::new(base, options, None, Collected::default());
        rewriter.write(feed).unwrap();
        let done = rewriter.end().unwrap();
        let warnings = done
            .warnings
            .into_iter()
            .filter_map(|w| match w.problem {
                crate::Problem::Feed(warning) => Some(warning),
                _ => None,
            })
            .collect();
        (done.output, done.links, warnings)
    }

    #[test]
    fn references_are_resolved_as_the_html_rewriter_resolves_them() {
        let feed = b"<feed xmlns='http://www.w3.org/2005/Atom'><icon> c\n</icon><icon>#f</icon><icon>mailto:x@y</icon><logo>a b</logo></feed>";
        let resolved = |base: &Base, options: &Options| -> Vec<String> {
            let (_, links, _) = run(feed, base, options);
            links.into_iter().map(|l| l.resolved).collect()
        };
        let base = Base::retrieval_url("http://h/a/b").unwrap();
        let options = Options::default();
        let expected = ["http://h/a/c", "#f", "mailto:x@y", "http://h/a/a%20b"];
        assert_eq!(resolved(&base, &options), expected);
        let fragments = Options {
            resolve_fragments: true,
            ..Options::default()
        };
        assert_eq!(resolved(&base, &fragments)[1], "http://h/a/b#f");
        assert_eq!(resolved(&Base::none(), &options)[0], "c");
    }

    #[test]
    fn xml_base_resolves_by_the_chosen_standard() {
        // RFC 1808 and RFC 3986 differ on `..` above the root.
        let feed =
            b"<feed xmlns='http://www.w3.org/2005/Atom' xml:base='../../x/'><icon>i</icon></feed>";
        let base = Base::retrieval_url("http://h/a").unwrap();
        let rfc3986 = Options {
            standard: Standard::Rfc3986,
            ..Options::default()
        };
        let (_, links, _) = run(feed, &base, &rfc3986);
        assert_eq!(links[0].resolved, "http://h/x/i");
        assert_eq!(links[0].base_from, BaseSource::XmlBase);
        let (_, links, _) = run(feed, &base, &Options::default());
        assert_eq!(links[0].resolved, "http://h/../../x/i");
    }

    #[test]
    fn empty_xml_base_is_the_parents_base() {
        let feed = b"<feed xmlns='http://www.w3.org/2005/Atom' xml:base='http://x/d/'><entry xml:base=''><icon>i</icon></entry></feed>";
        let base = Base::retrieval_url("http://h/").unwrap();
        let (_, links, warnings) = run(feed, &base, &Options::default());
        assert_eq!(links[0].resolved, "http://x/d/i");
        assert!(warnings.is_empty());
    }

    /// The feed fuzz target's third find: in `<a href=""" href="" ...>` the lenient
    /// attribute reader saw `href` twice; rewriting the second moved the quotes that say
    /// where the tag ends, so a second rewrite read another structure, with no warning.
    #[test]
    fn a_malformed_attribute_list_is_a_warning_and_the_rest_passes_through() {
        let base = Base::retrieval_url("http://h/a/b").unwrap();
        for feed in [
            &b"<feed xmlns='http://www.w3.org/2005/Atom'><icon>i</icon><link href='a' href='b'/><logo>l</logo></feed>"[..],
            b"<feed xmlns='http://www.w3.org/2005/Atom'><icon>i</icon><link \"\"/><logo>l</logo></feed>",
            b"<feed xmlns=\"http://purl.org/atom/ns#\"><tagline type=\"application/xhtml+xml\"><div><a href=\"\"\" href=\"\"</a></div></tagline><generator url=\">\"\"\"</a></div></tagline></feed>",
        ] {
            let (output, links, warnings) = run(feed, &base, &Options::default());
            assert!(
                matches!(warnings.as_slice(), [Warning::Malformed { reason, .. }] if reason.contains("attributes")),
                "{warnings:?}"
            );
            assert!(links.len() <= 1, "{links:?}");
            let (again, _, _) = run(&output, &base, &Options::default());
            assert_eq!(again, output);
        }
    }

    #[test]
    fn url_text_keeps_its_form() {
        let base = Base::retrieval_url("http://h/").unwrap();
        let feed = b"<rss><channel><link> <![CDATA[a]]]]><![CDATA[>b]]> </link><docs>x&amp;y</docs></channel></rss>";
        let (out, links, _) = run(feed, &base, &Options::default());
        assert_eq!(links[0].original, "a]]>b");
        // Across two sections the value is written as text, the sections closed before
        // it and opened after it (left empty: the XML reads the same).
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "<rss><channel><link> <![CDATA[]]>http://h/a]]&gt;b<![CDATA[]]> </link><docs>http://h/x&amp;y</docs></channel></rss>"
        );
        let one = b"<rss><channel><link><![CDATA[a&b]]></link></channel></rss>";
        let (out, _, _) = run(one, &base, &Options::default());
        assert_eq!(
            out,
            b"<rss><channel><link><![CDATA[http://h/a&b]]></link></channel></rss>"
        );
    }

    #[test]
    fn the_rewriter_is_send() {
        fn send<T: Send>(_: &T) {}
        let base = Base::none();
        let rewriter = Rewriter::new(&base, &Options::default(), None, Collected::default());
        send(&rewriter);
    }
}
#[cfg(test)]
mod chunking {
    use super::*;

    /// A BOM inside the feed where a chunk's window starts (found by the feed fuzz
    /// target): the same output and links whatever the chunk size.
    /// The feed fuzz target's fourth find: a declaration whose `?>` lies past the first
    /// 1024 bytes named the charset when the feed came whole, not when it came in chunks.
    #[test]
    fn the_charset_of_a_declaration_ending_late_does_not_depend_on_chunks() {
        let mut feed = b"<?xml version='1.0' encoding='windows-1252' ".to_vec();
        feed.extend(std::iter::repeat_n(b' ', 1100));
        feed.extend_from_slice(
            b"?><feed xmlns='http://www.w3.org/2005/Atom'><icon>caf\xe9.png</icon></feed>",
        );
        let mut short = b"<?xml version='1.0' encoding='windows-1252'?>".to_vec();
        short.extend_from_slice(
            b"<feed xmlns='http://www.w3.org/2005/Atom'><icon>caf\xe9.png</icon></feed>",
        );
        let base = Base::retrieval_url("http://h/a/").unwrap();
        for (feed, resolved) in [(&feed, None), (&short, Some("http://h/a/café.png"))] {
            let whole = crate::feed::rewrite(feed, &base, &Options::default(), None);
            assert_eq!(whole.links.first().map(|l| l.resolved.as_str()), resolved);
            for n in 1..feed.len() {
                let mut r = Rewriter::new(&base, &Options::default(), None, Collected::default());
                for c in feed.chunks(n) {
                    r.write(c).unwrap();
                }
                let done = r.end().unwrap();
                assert_eq!(done.output, whole.output, "chunks of {n}");
                assert_eq!(done.links, whole.links, "chunks of {n}");
                assert_eq!(done.warnings.len(), whole.warnings.len(), "chunks of {n}");
            }
        }
    }

    #[test]
    fn a_bom_inside_the_feed_does_not_shift_offsets_at_any_chunk_size() {
        for feed in [
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title type=\"html\">\u{feff}News &lt;a href=\"about.html\"&gt;</title></feed>",
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><logo>\u{feff}img/logo.png</logo><icon>i.ico</icon>\u{feff}<logo>l.png</logo></feed>",
        ] {
            same_at_every_chunk_size(feed.as_bytes());
        }
    }

    fn same_at_every_chunk_size(feed: &[u8]) {
        let base = Base::retrieval_url("http://h/a/").unwrap();
        let whole = crate::feed::rewrite(feed, &base, &Options::default(), None);
        let written = String::from_utf8(whole.output.clone()).unwrap();
        assert!(written.contains("http://h/a/"), "{written}");
        for n in 1..feed.len() {
            let mut r = Rewriter::new(&base, &Options::default(), None, Collected::default());
            for c in feed.chunks(n) {
                r.write(c).unwrap();
            }
            let done = r.end().unwrap();
            assert_eq!(done.output, whole.output, "chunks of {n}");
            assert_eq!(done.links, whole.links, "chunks of {n}");
        }
    }
}
