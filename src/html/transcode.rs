//! Documents in a charset that is not ASCII-compatible (Encoding Standard §4: UTF-16LE,
//! UTF-16BE, ISO-2022-JP), which lol_html cannot parse: decoded to UTF-8 with
//! encoding_rs, rewritten there, and written back in their own charset. Every byte outside
//! a changed value is the document's own, copied; a changed value is encoded afresh.
//!
//! The copy needs, for each offset in the UTF-8 text, the offset of the same place in the
//! document: [`OffsetMap`], built as the decoder produces each character. A boundary maps
//! to the end of the character before it, so that the bytes that produce no character
//! (ISO-2022-JP's escape sequences, which switch the decoder's state) go with the
//! character after them: a copy that starts at a character starts with its escape.

use super::{Rewriter, Warning};
use crate::links::{Link, LinkRef};
use crate::sink::Sink;
use encoding_rs::{DecoderResult, Encoding, ISO_2022_JP, UTF_16BE, UTF_16LE};
use std::collections::VecDeque;
use std::io;
use std::ops::Range;

/// Whether a document in `encoding` is read through UTF-8 here: the charsets that are
/// not ASCII-compatible and still name a text (the replacement encoding names none).
pub(crate) fn is_transcoded(encoding: &'static Encoding) -> bool {
    [UTF_16LE, UTF_16BE, ISO_2022_JP].contains(&encoding)
}

/// ISO-2022-JP's decoder states (Encoding Standard §12.2.1), as far as they decide how a
/// byte reads: a copy that resumes inside a run needs the decoder in the run's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Jis {
    Ascii,
    Roman,
    Katakana,
    Jis0208,
}

impl Jis {
    /// The state an escape sequence (`ESC` and the two bytes after it) switches to.
    fn of_escape(escape: &[u8]) -> Option<Jis> {
        match escape {
            [0x1B, b'(', b'B'] => Some(Jis::Ascii),
            [0x1B, b'(', b'J'] => Some(Jis::Roman),
            [0x1B, b'(', b'I'] => Some(Jis::Katakana),
            [0x1B, b'$', b'@' | b'B'] => Some(Jis::Jis0208),
            _ => None,
        }
    }

    /// Whether `byte` is (a byte of) a character in this state, one the decoder reads
    /// without error (Encoding Standard §12.2.1): in the ASCII and Roman states a byte
    /// below 0x80 but `SO`, `SI` and `ESC`, in the Katakana state 0x21-0x5F, in the JIS X
    /// 0208 state 0x21-0x7E (two to a character, some pairs unmapped).
    fn reads(self, byte: u8) -> bool {
        match self {
            Jis::Ascii | Jis::Roman => byte < 0x80 && !matches!(byte, 0x0E | 0x0F | 0x1B),
            Jis::Katakana => (0x21..=0x5F).contains(&byte),
            Jis::Jis0208 => (0x21..=0x7E).contains(&byte),
        }
    }

    /// How many bytes a character takes in this state.
    fn width(self) -> usize {
        if self == Jis::Jis0208 { 2 } else { 1 }
    }

    /// The escape sequence that switches the decoder to this state.
    fn escape(self) -> &'static [u8] {
        match self {
            Jis::Ascii => b"\x1B(B",
            Jis::Roman => b"\x1B(J",
            Jis::Katakana => b"\x1B(I",
            Jis::Jis0208 => b"\x1B$B",
        }
    }
}

/// Consecutive characters whose bytes in the document and in UTF-8 have the same
/// lengths (the first one's may differ: it carries the escape sequence before it).
#[derive(Debug, Clone)]
struct Run {
    /// Where the run starts in the UTF-8 text and in the document.
    text: u64,
    source: u64,
    /// The first character's lengths in the text and in the document.
    first: (u32, u32),
    /// The other characters' lengths, and how many there are.
    unit: (u32, u32),
    more: u64,
    /// The ISO-2022-JP state its characters are read in.
    state: Jis,
}

impl Run {
    fn text_end(&self) -> u64 {
        self.text + u64::from(self.first.0) + self.more * u64::from(self.unit.0)
    }

    /// The document offset of text offset `at` (within the run, at a character boundary).
    fn source_at(&self, at: u64) -> u64 {
        if at <= self.text {
            return self.source;
        }
        let after_first = self.source + u64::from(self.first.1);
        let into = at.saturating_sub(self.text + u64::from(self.first.0));
        after_first + (into / u64::from(self.unit.0.max(1))) * u64::from(self.unit.1)
    }
}

/// How many runs before the bytes written are kept at least.
const KEPT_RUNS: usize = 1024;

/// The text offset to document offset map of the characters decoded and not yet written.
#[derive(Debug, Default)]
struct OffsetMap {
    runs: VecDeque<Run>,
    /// The ends of the text and of the document bytes decoded into it.
    text_end: u64,
    source_end: u64,
}

impl OffsetMap {
    /// One more character: `text` bytes of UTF-8 from the `source` document bytes after
    /// the last character, read in `state`.
    fn push(&mut self, text: u32, source: u32, state: Jis) {
        let (text_end, source_end) = (self.text_end, self.source_end);
        self.text_end += u64::from(text);
        self.source_end += u64::from(source);
        if let Some(run) = self.runs.back_mut()
            && run.state == state
            && (run.more == 0 || run.unit == (text, source))
        {
            run.unit = (text, source);
            run.more += 1;
            return;
        }
        self.runs.push_back(Run {
            text: text_end,
            source: source_end,
            first: (text, source),
            unit: (0, 0),
            more: 0,
            state,
        });
    }

    /// The run holding the character that starts at text offset `at`, if any.
    fn run_at(&self, at: u64) -> Option<&Run> {
        let index = self.runs.partition_point(|run| run.text_end() <= at);
        self.runs.get(index)
    }

    /// The document offset of text offset `at`: the end of the character before it.
    fn source_at(&self, at: u64) -> u64 {
        match self.run_at(at) {
            Some(run) => run.source_at(at),
            None => self.source_end,
        }
    }

    /// The state the character that ends at text offset `at` is read in.
    fn state_before(&self, at: u64) -> Jis {
        match at.checked_sub(1) {
            Some(last) => self.run_at(last).map_or(Jis::Ascii, |run| run.state),
            None => Jis::Ascii,
        }
    }

    /// The state the character that starts at text offset `at` is read in.
    fn state_at(&self, at: u64) -> Option<Jis> {
        self.run_at(at).map(|run| run.state)
    }

    /// Forgets the runs that end before text offset `at`, keeping the one ending there
    /// (whose state the next copy may need) and, while they are few, older ones (a
    /// warning may name an offset before the bytes written).
    fn forget_before(&mut self, at: u64) {
        while self.runs.len() > KEPT_RUNS && self.runs[0].text_end() < at {
            self.runs.pop_front();
        }
    }
}

/// What the rewriter running on the UTF-8 text gave, in order, until it is replayed in
/// the document's charset.
enum Event {
    /// Bytes of the text passed through, at their text range.
    Unchanged(Range<u64>),
    /// New bytes (UTF-8).
    New(Vec<u8>),
    Link(Link),
    Warning(crate::Warning),
}

/// The sink of the rewriter that runs on the UTF-8 text.
pub(crate) struct Events {
    queue: Vec<Event>,
    wants_links: bool,
    wants_output: bool,
}

impl Sink for Events {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(Event::New(new)) = self.queue.last_mut() {
            new.extend_from_slice(bytes);
        } else {
            self.queue.push(Event::New(bytes.to_vec()));
        }
        Ok(())
    }
    fn output_unchanged(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let end = offset + bytes.len() as u64;
        if let Some(Event::Unchanged(range)) = self.queue.last_mut()
            && range.end == offset
        {
            range.end = end;
        } else {
            self.queue.push(Event::Unchanged(offset..end));
        }
        Ok(())
    }
    fn link(&mut self, link: Link) {
        self.queue.push(Event::Link(link));
    }
    fn link_ref(&mut self, link: LinkRef<'_>) {
        self.queue.push(Event::Link(link.to_link()));
    }
    fn warning(&mut self, warning: crate::Warning) {
        self.queue.push(Event::Warning(warning));
    }
    fn wants_links(&self) -> bool {
        self.wants_links
    }
    fn wants_output(&self) -> bool {
        self.wants_output
    }
}

impl Events {
    /// A sink that wants what `outer` wants.
    pub(crate) fn like(outer: &dyn Sink) -> Self {
        Events {
            queue: Vec::new(),
            wants_links: outer.wants_links(),
            wants_output: outer.wants_output(),
        }
    }
}

/// A document in a transcoded charset on its way: decoded as it is read, the decoded
/// text's results written in the document's charset.
pub(crate) struct Transcoding {
    encoding: &'static Encoding,
    decoder: encoding_rs::Decoder,
    map: OffsetMap,
    /// The document's bytes from `held_start` on: those not yet written.
    held: Vec<u8>,
    held_start: u64,
    /// Where in the document the next bytes written start, and the state the bytes
    /// written so far leave an ISO-2022-JP decoder in.
    written: u64,
    written_state: Jis,
    /// New text waiting for the next unchanged bytes (or the end), and the escape back
    /// to ASCII that ended the last new text, held in case the copy starts with one.
    new_text: Vec<u8>,
    held_escape: bool,
    /// The document ranges of bytes that are not valid in the charset.
    malformed: VecDeque<Range<u64>>,
    /// The UTF-8 text decoded by the last call.
    text: Vec<u8>,
    /// The decoder's output buffer, kept from one run to the next.
    out: Vec<u8>,
    /// How many document bytes the decoder was given (its offset after them).
    fed: u64,
    /// Whether the ISO-2022-JP decoder is known to hold no bytes and to be in the state of
    /// the last character: at the start, after a run, and after a byte that gave a
    /// character of the state it leaves (not after an escape sequence, a lead byte or an
    /// error, whose bytes the decoder may read again).
    settled: bool,
}

impl Transcoding {
    /// A document in `encoding` (one [`is_transcoded`] accepts).
    pub(crate) fn new(encoding: &'static Encoding) -> Self {
        Transcoding {
            encoding,
            decoder: encoding.new_decoder_without_bom_handling(),
            map: OffsetMap::default(),
            held: Vec::new(),
            held_start: 0,
            written: 0,
            written_state: Jis::Ascii,
            new_text: Vec::new(),
            held_escape: false,
            malformed: VecDeque::new(),
            text: Vec::new(),
            out: Vec::new(),
            fed: 0,
            settled: true,
        }
    }

    /// Decodes the next bytes of the document (`last`: the end) into UTF-8 text.
    pub(crate) fn decode(&mut self, bytes: &[u8], last: bool) -> &[u8] {
        self.text.clear();
        let mut bytes = bytes;
        if self.fed == 0 {
            bytes = self.skip_bom(bytes);
        }
        self.held.extend_from_slice(bytes);
        if self.encoding != ISO_2022_JP {
            self.decode_utf16(bytes, last);
            return &self.text;
        }
        let mut scratch = [0u8; 16];
        let mut rest = bytes;
        while !rest.is_empty() {
            let (run, width) = self.jis_run(rest);
            if run > 0 {
                self.decode_run(&rest[..run], false, |_| width);
                rest = &rest[run..];
            } else {
                self.fed += 1;
                self.decode_byte(&rest[..1], false, &mut scratch);
                rest = &rest[1..];
            }
        }
        if last {
            self.decode_byte(&[], true, &mut scratch);
        }
        &self.text
    }

    /// UTF-16, a chunk at a time: a character's bytes are two, or four for one past the
    /// Basic Multilingual Plane (a surrogate pair), so the decoder's output alone maps
    /// each back.
    fn decode_utf16(&mut self, src: &[u8], last: bool) {
        self.decode_run(src, last, |c| if u32::from(c) < 0x10000 { 2 } else { 4 });
    }

    /// How many of `bytes`, from the first, ISO-2022-JP reads as characters of one length
    /// (given too) in the decoder's state: none unless the decoder is
    /// [`settled`](Self::settled), or when the first byte is no character of the state
    /// ([`Jis::reads`]). What is not in a run, an escape sequence first, goes byte by
    /// byte, where its bytes are told from the decoder's output.
    fn jis_run(&self, bytes: &[u8]) -> (usize, u64) {
        if !self.settled {
            return (0, 1);
        }
        let state = self.map.runs.back().map_or(Jis::Ascii, |run| run.state);
        let run = bytes
            .iter()
            .position(|&b| !state.reads(b))
            .unwrap_or(bytes.len());
        let width = state.width();
        (run - run % width, width as u64)
    }

    /// Decodes `src`, whose characters' lengths in the document `width` gives, as one chunk.
    fn decode_run(&mut self, mut src: &[u8], last: bool, width: impl Fn(char) -> u64) {
        self.settled = true;
        let mut out = std::mem::take(&mut self.out);
        // A UTF-8 character is at most three times its bytes here (a UTF-16 unit or a
        // Katakana byte to three); past 64 KiB, the rest is decoded after `OutputFull`.
        let need = src.len().min(64 << 10) * 3 + 16;
        if out.len() < need {
            out.resize(need, 0);
        }
        loop {
            let (result, read, written) = self
                .decoder
                .decode_to_utf8_without_replacement(src, &mut out, last);
            src = &src[read..];
            let text = std::str::from_utf8(&out[..written]).unwrap_or_default();
            for c in text.chars() {
                self.character(c, self.map.source_end + width(c));
            }
            self.fed += read as u64;
            match result {
                DecoderResult::Malformed(_, after) => {
                    let end = self.fed.saturating_sub(u64::from(after));
                    let end = end.max(self.map.source_end);
                    if end > self.map.source_end {
                        self.malformed.push_back(self.map.source_end..end);
                    }
                    self.character('\u{FFFD}', end);
                    self.settled = false;
                }
                DecoderResult::InputEmpty => break,
                DecoderResult::OutputFull => {}
            }
        }
        self.out = out;
    }

    /// A byte order mark of the charset at the start: held and counted as the document's
    /// first bytes (a copy from the start copies it), not decoded.
    fn skip_bom<'a>(&mut self, bytes: &'a [u8]) -> &'a [u8] {
        let bom: &[u8] = match self.encoding {
            e if e == UTF_16LE => b"\xFF\xFE",
            e if e == UTF_16BE => b"\xFE\xFF",
            _ => b"",
        };
        if bom.is_empty() || !bytes.starts_with(bom) {
            return bytes;
        }
        self.held.extend_from_slice(bom);
        self.fed = bom.len() as u64;
        self.map.source_end = self.fed;
        &bytes[bom.len()..]
    }

    /// Feeds one byte (none at the end), the last of those [`fed`](Self::fed).
    fn decode_byte(&mut self, mut src: &[u8], last: bool, scratch: &mut [u8; 16]) {
        let byte = src.first().copied();
        let mut last_char = None;
        let mut flush = false;
        loop {
            // After an error, the bytes the decoder reads again (those of an escape
            // sequence cut short) are output first, on a call of their own: the bytes it
            // takes next are not theirs.
            let input = if flush { &src[..0] } else { src };
            flush = false;
            let (result, read, written) = self
                .decoder
                .decode_to_utf8_without_replacement(input, scratch, last);
            src = &src[read..];
            // A byte the decoder has not taken yet is not among the bytes decoded.
            let end = self.fed - src.len() as u64;
            if written > 0 {
                let text = std::str::from_utf8(&scratch[..written]).unwrap_or("\u{FFFD}");
                for c in text.chars() {
                    self.character(c, end);
                    last_char = Some(c);
                }
            }
            match result {
                DecoderResult::Malformed(_, after) => {
                    let malformed_end = end
                        .saturating_sub(u64::from(after))
                        .max(self.map.source_end);
                    if malformed_end > self.map.source_end {
                        self.malformed.push_back(self.map.source_end..malformed_end);
                    }
                    self.character('\u{FFFD}', malformed_end);
                    last_char = Some('\u{FFFD}');
                    flush = true;
                }
                // At the end, the decoder is finished once its input is empty: called
                // again, it panics (after an escape sequence cut short, which left the
                // bytes after `ESC` to be read again, it output them).
                DecoderResult::InputEmpty if last => return,
                DecoderResult::InputEmpty | DecoderResult::OutputFull => {
                    if src.is_empty() && written == 0 {
                        // ISO-2022-JP maps no character to U+FFFD: one is an error.
                        let state = self.map.runs.back().map_or(Jis::Ascii, |run| run.state);
                        self.settled = last_char.is_some_and(|c| c != '\u{FFFD}')
                            && byte.is_some_and(|b| state.reads(b));
                        return;
                    }
                }
            }
        }
    }

    /// A character decoded whose bytes end at document offset `end`.
    fn character(&mut self, c: char, end: u64) {
        let start = self.map.source_end;
        let source = (end.max(start) - start) as u32;
        let state = self.state_of(start, source);
        let mut utf8 = [0u8; 4];
        self.text
            .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        self.map.push(c.len_utf8() as u32, source, state);
    }

    /// The ISO-2022-JP state a character is read in: that of the last escape sequence
    /// among its bytes, else the state before it.
    fn state_of(&self, start: u64, len: u32) -> Jis {
        let before = self.map.runs.back().map_or(Jis::Ascii, |run| run.state);
        if self.encoding != ISO_2022_JP {
            return before;
        }
        self.held_bytes(start..start + u64::from(len))
            .windows(3)
            .rev()
            .find_map(Jis::of_escape)
            .unwrap_or(before)
    }

    /// Writes the events of the text's rewriter to `sink` in the document's charset.
    pub(crate) fn replay(&mut self, events: &mut Events, sink: &mut dyn Sink) -> io::Result<()> {
        for event in events.queue.drain(..) {
            match event {
                Event::New(bytes) => self.new_text.extend_from_slice(&bytes),
                Event::Unchanged(range) => self.copy(range, sink)?,
                Event::Link(mut link) => {
                    link.offset = self.map.source_at(link.offset);
                    sink.link_ref(link.borrowed());
                }
                Event::Warning(warning) => sink.warning(self.warning(warning)),
            }
        }
        Ok(())
    }

    /// Ends the document: the new text left, then the bytes after the last character.
    pub(crate) fn finish(&mut self, sink: &mut dyn Sink) -> io::Result<()> {
        let end = self.held_start + self.held.len() as u64;
        self.write_new(end, self.map.text_end, sink)?;
        self.release_escape(end, sink)?;
        if self.written < end {
            let from = self.written;
            let rest = self.held_bytes(from..end).to_vec();
            sink.output_unchanged(from, &rest)?;
            self.written = end;
        }
        Ok(())
    }

    /// Copies the document bytes of text `range`, after the new text before it.
    fn copy(&mut self, range: Range<u64>, sink: &mut dyn Sink) -> io::Result<()> {
        let from = self.map.source_at(range.start);
        let to = self.map.source_at(range.end);
        self.write_new(from, range.start, sink)?;
        if to > self.written {
            if self.encoding == ISO_2022_JP {
                self.enter_state_at(range.start, sink)?;
            }
            let at = self.written;
            let bytes = self.held_bytes(at..to).to_vec();
            sink.output_unchanged(at, &bytes)?;
            self.written = to;
            self.written_state = self.map.state_before(range.end);
        }
        self.map.forget_before(range.end);
        self.forget_written();
        Ok(())
    }

    /// Before a copy that resumes at text offset `at`: the escape held back after new
    /// text, or the one the copied bytes need, unless they start with their own.
    fn enter_state_at(&mut self, at: u64, sink: &mut dyn Sink) -> io::Result<()> {
        let held_escape = std::mem::take(&mut self.held_escape);
        let Some(state) = self.map.state_at(at) else {
            return Ok(());
        };
        if self.held_bytes(self.written..self.written + 1) == b"\x1B" {
            // The bytes copied switch the state themselves.
            self.written_state = state;
            return Ok(());
        }
        if held_escape && state != Jis::Ascii {
            sink.output(state.escape())?;
        } else if held_escape {
            sink.output(Jis::Ascii.escape())?;
        } else if state != self.written_state {
            sink.output(state.escape())?;
        }
        self.written_state = state;
        Ok(())
    }

    /// The escape back to ASCII held after new text, written unless the document's bytes
    /// from here (to `end`) start with an escape of their own.
    fn release_escape(&mut self, end: u64, sink: &mut dyn Sink) -> io::Result<()> {
        if std::mem::take(&mut self.held_escape)
            && !self.held_bytes(self.written..end).starts_with(b"\x1B")
        {
            sink.output(Jis::Ascii.escape())?;
        }
        Ok(())
    }

    /// The new text gathered, in place of the document bytes up to `to` (text offset
    /// `to_text`): encoded in the document's charset, or, where those bytes are not valid
    /// in it, the bytes themselves (with a warning).
    fn write_new(&mut self, to: u64, to_text: u64, sink: &mut dyn Sink) -> io::Result<()> {
        if self.new_text.is_empty() {
            return Ok(());
        }
        let from = self.written;
        let text = String::from_utf8_lossy(&std::mem::take(&mut self.new_text)).into_owned();
        if self.malformed_within(from..to) {
            sink.warning(Warning::Undecodable(from, self.encoding.name()).into());
            self.release_escape(to, sink)?;
            let bytes = self.held_bytes(from..to).to_vec();
            sink.output_unchanged(from, &bytes)?;
            self.written_state = self.map.state_before(to_text);
        } else {
            let encoded = self.encode(&text);
            sink.output(&encoded)?;
        }
        self.written = self.written.max(to);
        Ok(())
    }

    /// `text` in the document's charset. ISO-2022-JP: from the state the bytes before
    /// left, ending in ASCII (its escape held back: the bytes copied next may start
    /// with their own).
    fn encode(&mut self, text: &str) -> Vec<u8> {
        match self.encoding {
            e if e == UTF_16LE => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
            e if e == UTF_16BE => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
            _ => self.encode_iso_2022_jp(text),
        }
    }

    /// The Encoding Standard's encoder writes a halfwidth katakana as its fullwidth form
    /// (§12.2.2); a value that had one keeps it here, in the katakana state (`ESC ( I`)
    /// the decoder reads.
    fn encode_iso_2022_jp(&mut self, text: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len() + 8);
        let mut state = self.written_state;
        let halfwidth = |c: char| ('\u{FF61}'..='\u{FF9F}').contains(&c);
        let mut rest = text;
        while !rest.is_empty() {
            let katakana = rest.starts_with(halfwidth);
            let len = rest
                .find(|c| halfwidth(c) != katakana)
                .unwrap_or(rest.len());
            let (piece, after) = rest.split_at(len);
            rest = after;
            if katakana {
                if state != Jis::Katakana {
                    // An escape right after another is an error (§12.2.1): the encoder's
                    // return to ASCII gives way.
                    if out.ends_with(Jis::Ascii.escape()) {
                        out.truncate(out.len() - 3);
                    }
                    out.extend_from_slice(Jis::Katakana.escape());
                }
                out.extend(piece.chars().map(|c| (c as u32 - 0xFF61 + 0x21) as u8));
                state = Jis::Katakana;
            } else {
                let encoded = encode_with_encoder(piece);
                if state != Jis::Ascii && !encoded.starts_with(b"\x1B") {
                    out.extend_from_slice(Jis::Ascii.escape());
                }
                out.extend_from_slice(&encoded);
                state = Jis::Ascii;
            }
        }
        if state != Jis::Ascii {
            out.extend_from_slice(Jis::Ascii.escape());
        }
        // The return to ASCII is held: the bytes copied next may switch by themselves.
        if out.ends_with(Jis::Ascii.escape()) && out.len() > 3 {
            out.truncate(out.len() - 3);
            self.held_escape = true;
        }
        self.written_state = Jis::Ascii;
        out
    }

    fn malformed_within(&self, range: Range<u64>) -> bool {
        self.malformed
            .iter()
            .any(|bad| bad.start < range.end && range.start < bad.end)
    }

    fn held_bytes(&self, range: Range<u64>) -> &[u8] {
        let start = (range.start.max(self.held_start) - self.held_start) as usize;
        let end =
            ((range.end.max(self.held_start) - self.held_start) as usize).min(self.held.len());
        &self.held[start.min(end)..end]
    }

    /// Drops the document bytes written, and the malformed ranges before them.
    fn forget_written(&mut self) {
        let written = (self.written - self.held_start) as usize;
        if written > 64 * 1024 && written * 2 > self.held.len() {
            self.held.drain(..written);
            self.held_start = self.written;
        }
        while self
            .malformed
            .front()
            .is_some_and(|bad| bad.end <= self.written)
        {
            self.malformed.pop_front();
        }
    }

    /// A warning of the text's rewriter, its offsets made the document's.
    fn warning(&self, mut warning: crate::Warning) -> crate::Warning {
        let offset = |at| self.map.source_at(at);
        warning.problem = match warning.problem {
            crate::Problem::Html(html) => crate::Problem::Html(html.with_offsets(offset)),
            crate::Problem::Feed(mut feed) => {
                let at = feed.offset_mut();
                *at = offset(*at);
                crate::Problem::Feed(feed)
            }
            other => other,
        };
        warning
    }
}

/// `text` by the Encoding Standard's ISO-2022-JP encoder (§12.2.2): from the ASCII state
/// and back to it; a character it cannot encode as an HTML character reference.
fn encode_with_encoder(text: &str) -> Vec<u8> {
    let mut encoder = ISO_2022_JP.new_encoder();
    let mut out = vec![0; text.len() * 2 + 16];
    let mut written = 0;
    let mut src = text;
    loop {
        let (result, read, n, _) = encoder.encode_from_utf8(src, &mut out[written..], true);
        written += n;
        src = &src[read..];
        match result {
            encoding_rs::CoderResult::InputEmpty => break,
            encoding_rs::CoderResult::OutputFull => out.resize(out.len() * 2, 0),
        }
    }
    out.truncate(written);
    out
}

/// A stylesheet in a transcoded charset, held whole: its `url()` and `@import` values
/// rewritten in its UTF-8 text ([`write_css`](super::emit::write_css)), written back in
/// its charset.
pub(crate) fn write_css_transcoded(
    css: &[u8],
    encoding: &'static Encoding,
    base: &crate::base::Base,
    options: &super::Options,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let mut transcoding = Transcoding::new(encoding);
    let text = transcoding.decode(css, true).to_vec();
    let mut events = Events::like(sink);
    let held = super::emit::CssIn::Raw;
    super::emit::write_css(&text, held, encoding_rs::UTF_8, base, options, &mut events)?;
    transcoding.replay(&mut events, sink)?;
    transcoding.finish(sink)
}

/// A [`Rewriter`] over the UTF-8 text of a document in a transcoded charset.
pub(crate) struct Transcoder {
    transcoding: Transcoding,
    pub(super) inner: Rewriter<Events>,
    /// The bytes read before the charset was known, fed with the next call.
    unfed: Vec<u8>,
}

impl Transcoder {
    /// A document in `encoding` whose first bytes, `held`, are fed with the next call.
    pub(super) fn new(encoding: &'static Encoding, inner: Rewriter<Events>, held: Vec<u8>) -> Self {
        Transcoder {
            transcoding: Transcoding::new(encoding),
            inner,
            unfed: held,
        }
    }

    /// Feeds the next bytes of the document, writing what is settled to `sink`.
    pub(super) fn write(&mut self, bytes: &[u8], sink: &mut dyn Sink) -> io::Result<()> {
        if !self.unfed.is_empty() {
            let unfed = std::mem::take(&mut self.unfed);
            self.feed(&unfed, false)?;
        }
        self.feed(bytes, false)?;
        self.transcoding.replay(&mut self.inner.sink, sink)
    }

    fn feed(&mut self, bytes: &[u8], last: bool) -> io::Result<()> {
        let text = self.transcoding.decode(bytes, last);
        if text.is_empty() {
            return Ok(());
        }
        self.inner.write(text)
    }

    /// Ends the document.
    pub(super) fn end(mut self, sink: &mut dyn Sink) -> io::Result<()> {
        let unfed = std::mem::take(&mut self.unfed);
        self.feed(&unfed, true)?;
        let mut events = self.inner.end()?;
        self.transcoding.replay(&mut events, sink)?;
        self.transcoding.finish(sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference: every byte fed alone, its characters told from the decoder's output.
    fn byte_by_byte(bytes: &[u8]) -> Transcoding {
        let mut transcoding = Transcoding::new(ISO_2022_JP);
        transcoding.held.extend_from_slice(bytes);
        let mut scratch = [0u8; 16];
        let mut text = Vec::new();
        for &byte in bytes {
            transcoding.fed += 1;
            transcoding.decode_byte(&[byte], false, &mut scratch);
        }
        transcoding.decode_byte(&[], true, &mut scratch);
        text.append(&mut transcoding.text);
        transcoding.text = text;
        transcoding
    }

    /// [`Transcoding::decode`], `bytes` given `size` at a time.
    fn in_chunks(bytes: &[u8], size: usize) -> Transcoding {
        let mut transcoding = Transcoding::new(ISO_2022_JP);
        let mut text = Vec::new();
        let mut chunks = bytes.chunks(size).peekable();
        if chunks.peek().is_none() {
            text.extend_from_slice(transcoding.decode(&[], true));
        }
        while let Some(chunk) = chunks.next() {
            let last = chunks.peek().is_none();
            text.extend_from_slice(transcoding.decode(chunk, last));
        }
        transcoding.text = text;
        transcoding
    }

    fn jis_bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"\x1B(B".to_vec()),
            Just(b"\x1B(J".to_vec()),
            Just(b"\x1B(I".to_vec()),
            Just(b"\x1B$B".to_vec()),
            Just(b"\x1B$@".to_vec()),
            Just(b"\x1B(Z".to_vec()),
            Just(b"\x1B$".to_vec()),
            Just(b"\x1B".to_vec()),
            Just(b"\x0E\x0F\n\r\\~".to_vec()),
            "[ -~]{0,12}".prop_map(String::into_bytes),
            prop::collection::vec(0x21u8..=0x7E, 0..9),
            prop::collection::vec(any::<u8>(), 0..4),
        ];
        prop::collection::vec(piece, 0..16).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        /// ISO-2022-JP decoded a run at a time gives the text, the offset map and the
        /// damaged ranges that decoding byte by byte gives, however the bytes arrive.
        #[test]
        fn runs_decode_as_bytes_one_by_one(bytes in jis_bytes(), size in 1usize..24) {
            let reference = byte_by_byte(&bytes);
            let runs = in_chunks(&bytes, size);
            prop_assert_eq!(&runs.text, &reference.text);
            prop_assert_eq!(format!("{:?}", runs.map), format!("{:?}", reference.map));
            prop_assert_eq!(&runs.malformed, &reference.malformed);
            prop_assert_eq!(runs.fed, reference.fed);
        }
    }

    /// An escape sequence cut short by another (`ESC $ ESC $ B`): the `$` read again is
    /// its one byte, and the character after the second escape is read in JIS X 0208 with
    /// it. The `$` had the second `ESC` too, which the decoder took on the same call, and
    /// the character after it was taken for ASCII.
    #[test]
    fn bytes_read_again_after_an_error_are_theirs_alone() {
        let mut transcoding = Transcoding::new(ISO_2022_JP);
        let text = transcoding.decode(b"\x1B$\x1B$BF|\x1B(Bx", true).to_vec();
        assert_eq!(String::from_utf8(text).unwrap(), "\u{FFFD}$日x");
        let map = &transcoding.map;
        assert_eq!(map.source_at(3), 1, "the ESC's replacement character");
        assert_eq!(map.source_at(4), 2, "the $ read again");
        assert_eq!(map.state_at(4), Some(Jis::Jis0208), "日");
        assert_eq!(map.source_at(7), 7, "日 is ESC $ B F |");
    }

    /// A page's ASCII stretches are decoded as runs: one decoder call for each, not one a
    /// byte (the reason for the runs; BENCHMARKS.md, "Pages in UTF-16 and ISO-2022-JP").
    #[test]
    fn an_ascii_stretch_is_one_run() {
        let mut transcoding = Transcoding::new(ISO_2022_JP);
        assert_eq!(transcoding.jis_run(b"<a href=x>\x1B$B"), (10, 1));
        transcoding.decode(b"\x1B$BF|", false);
        assert_eq!(transcoding.jis_run(b"K\\!!\n"), (4, 2), "JIS X 0208: pairs");
        transcoding.decode(b"\x1B", false);
        assert_eq!(transcoding.jis_run(b"(B"), (0, 1), "an escape pending");
    }
}
