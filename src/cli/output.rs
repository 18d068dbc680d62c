//! Where the CLI writes: the sinks that turn the library's results into bytes, JSON and
//! warnings worded for the command line (files are written by [`super::write`]).

use absolve::base::BaseSource;
use absolve::format::Format;
use absolve::links::LinkRef;
use absolve::{Link, LinkBytes, LinkEncoder, Location, Problem, Sink, Warning};
use serde::Serialize;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The name an input is reported by (in warnings, and `links`' `file`): its path, or `-`
/// for standard input. A byte of the path that is not UTF-8 is written `\xNN`, as
/// [`escaped`] writes a control character, not U+FFFD: two such names stay apart, and the
/// name can be typed back (`$'caf\xE9.html'` in bash).
pub fn label(path: Option<&Path>) -> String {
    path.map_or_else(
        || "-".to_owned(),
        |p| escaped_path(p.as_os_str().as_encoded_bytes()),
    )
}

/// The bytes of a path as text: UTF-8 as it is, every other byte `\xNN`.
fn escaped_path(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        for byte in chunk.invalid() {
            text.push_str(&format!("\\x{byte:02X}"));
        }
    }
    text
}

/// Whether a path is not UTF-8, so that its [`label`] is not its name as it is.
pub fn is_not_utf8(path: &Path) -> bool {
    path.to_str().is_none()
}

/// How many warnings were printed, for the summary of `-r`.
static WARNINGS: AtomicUsize = AtomicUsize::new(0);

/// Prints a warning about `label` on standard error, the name [`escaped`].
pub fn warn(label: &str, warning: &dyn std::fmt::Display) {
    WARNINGS.fetch_add(1, Ordering::Relaxed);
    stderr!("absolve: warning: {}: {warning}", escaped(label));
}

/// A file name as it is shown on a terminal: control characters written `\n`, `\r`,
/// `\t` or `\xNN`, as `ls` (GNU coreutils' `--quoting-style=escape`) and ripgrep do, so
/// that a name cannot forge a line (or move the cursor) on standard error.
pub fn escaped(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let mut utf8 = [0; 4];
                for byte in c.encode_utf8(&mut utf8).bytes() {
                    out.push_str(&format!("\\x{byte:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Prints a library warning about the input `label`, worded for the command line.
pub fn warn_about(label: &str, warning: &Warning) {
    let member;
    let label = match &warning.location.file {
        Some(file) => {
            member = member_label(label, file);
            &member
        }
        None => label,
    };
    match (&warning.problem, warning.location.message) {
        (Problem::Mime(problem), Some(message)) => {
            warn(&format!("{label} message {message}"), problem)
        }
        // A message of an mbox too large to hold: which one.
        (problem @ Problem::TooLarge(_), Some(message)) => {
            warn(&format!("{label} message {message}"), &worded(problem))
        }
        (problem, _) => warn(label, &worded(problem)),
    }
}

/// A problem as the CLI says it: its flags named where the library speaks of options.
fn worded(problem: &Problem) -> String {
    match problem {
        Problem::NoBaseUrl => "no base URL: links left relative (pass --url)".to_owned(),
        Problem::LocalFilesResolved { count, marker } => format!(
            "{count} {} on disk, resolved against the URL from {marker} all the same \
             (pass --keep-local to leave them local)",
            if *count == 1 {
                "reference names a file beside it"
            } else {
                "references name files beside it"
            }
        ),
        Problem::UrlUnused => "--url is not used for a WARC file: each record's \
             WARC-Target-URI is its retrieval URL"
            .to_owned(),
        Problem::FormatMismatch {
            given: Format::Mbox,
            ..
        } => "--format mbox: it does not start with a From_ line and a header: what comes \
             before the first From_ line passes through unchanged"
            .to_owned(),
        Problem::FormatMismatch {
            given: Format::Mime,
            ..
        } => "--format mime: it does not start with a header block (it looks like HTML): \
             nothing is changed (try --format auto)"
            .to_owned(),
        Problem::FormatMismatch {
            given: Format::Feed,
            ..
        } => "--format feed: its root element is not a feed's (Atom feed, RSS rss, RDF \
             rdf:RDF; it looks like HTML): read as XML, none of its links are found (try \
             --format auto)"
            .to_owned(),
        Problem::WebArchive(absolve::webarchive::Warning::UrlUnused) => "--url is not used: \
             each resource of the web archive has its WebResourceURL as its retrieval URL"
            .to_owned(),
        Problem::WebArchive(absolve::webarchive::Warning::NoUrl {
            reason,
            fallback: false,
        }) => format!(
            "{reason} WebResourceURL: relative links in it are left as they are (pass --url)"
        ),
        Problem::LongProlog => format!("{problem} (pass --format feed if it is a feed)"),
        Problem::TooLarge(too_large) => too_large.worded("--max-held"),
        other => other.to_string(),
    }
}

/// A file inside an archive of files (a WACZ member), named as Java's jar URLs name
/// one: `NAME.wacz!/archive/data.warc.gz`.
fn member_label(archive: &str, member: &str) -> String {
    absolve::wacz::member_label(archive, member)
}

/// How many warnings were printed so far.
pub fn warnings() -> usize {
    WARNINGS.load(Ordering::Relaxed)
}

/// A sink of the CLI: it also knows which input it is reporting on.
pub trait CliSink: Sink {
    /// The input's name, for warnings.
    fn label(&self) -> &str;
    /// An error met writing a link, not reported yet.
    fn take_error(&mut self) -> Option<io::Error> {
        None
    }
}

/// Writes the rewritten bytes; warnings go to standard error.
pub struct RewriteSink<W: Write> {
    pub out: W,
    pub label: String,
}

impl<W: Write> Sink for RewriteSink<W> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }
    fn warning(&mut self, warning: Warning) {
        warn_about(&self.label, &warning);
    }
    fn wants_links(&self) -> bool {
        false
    }
}

impl<W: Write> CliSink for RewriteSink<W> {
    fn label(&self) -> &str {
        &self.label
    }
}

/// Prints each link as a JSON line; the document's bytes are dropped.
pub struct LinksSink<'a, W: Write> {
    pub out: W,
    pub label: &'a str,
    pub error: Option<io::Error>,
    /// The JSON of the keys the last line shared with this one (see [`LineCache`]).
    cache: LineCache,
}

impl<'a, W: Write> LinksSink<'a, W> {
    /// A sink printing the links of the input named `label` to `out`.
    pub fn new(out: W, label: &'a str) -> Self {
        LinksSink {
            out,
            label,
            error: None,
            cache: LineCache::default(),
        }
    }
}

impl<W: Write> CliSink for LinksSink<'_, W> {
    fn label(&self) -> &str {
        self.label
    }
    fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }
}

/// The JSON of what consecutive lines share, made once: the location keys (the same for
/// every link of a document, part or WARC record) and the last base with where it came
/// from. A WARC file's lines are mostly these; escaping them again for every link was the
/// largest cost of `links` after parsing.
#[derive(Default)]
struct LineCache {
    /// The JSON of the location keys, from after `{` to the comma before `"element"`.
    location: Option<Cached<Location>>,
    /// The JSON from `"base"` to the comma before `"offset"`, for a `(base, base_from)`.
    base: Option<Cached<(Option<Arc<str>>, BaseSource)>>,
}

/// Some keys' JSON, and what it was made from.
struct Cached<K> {
    key: K,
    json: Vec<u8>,
}

/// The base keys of [`Link`], in its order.
#[derive(Serialize)]
struct BaseKeys<'a> {
    base: Option<&'a str>,
    base_from: BaseSource,
}

/// The JSON of an object's keys without its closing brace, ending in a comma.
fn keys_json(value: &impl Serialize) -> Vec<u8> {
    let mut json = serde_json::to_vec(value).expect("plain keys serialize");
    json.pop();
    json.push(b',');
    json.remove(0);
    json
}

/// One line: the link as [`Link`] serializes it with `file` set to the input's `label`
/// (every line has the same keys), the shared keys from the [`LineCache`].
fn write_line(
    cache: &mut LineCache,
    label: &str,
    link: LinkRef<'_>,
    out: &mut impl Write,
) -> io::Result<()> {
    if !matches!(&cache.location, Some(Cached { key, .. }) if key == link.location) {
        let file = match &link.location.file {
            Some(member) => member_label(label, member),
            None => label.to_owned(),
        };
        let keys = Location {
            file: Some(Arc::from(file)),
            ..link.location.clone()
        };
        cache.location = Some(Cached {
            key: link.location.clone(),
            json: keys_json(&keys),
        });
    }
    let base = link.base.map(|b| &**b);
    if !matches!(&cache.base, Some(Cached { key: (b, from), .. }) if b.as_deref() == base && *from == link.base_from)
    {
        let keys = BaseKeys {
            base,
            base_from: link.base_from,
        };
        let key = (link.base.cloned(), link.base_from);
        cache.base = Some(Cached {
            key,
            json: keys_json(&keys),
        });
    }
    out.write_all(b"{")?;
    out.write_all(&cache.location.as_ref().expect("set above").json)?;
    out.write_all(b"\"element\":")?;
    write_json_str(out, link.element)?;
    out.write_all(b",\"attribute\":")?;
    match link.attribute {
        Some(attribute) => write_json_str(out, attribute)?,
        None => out.write_all(b"null")?,
    }
    out.write_all(b",\"original\":")?;
    write_json_str(out, link.original)?;
    out.write_all(b",\"resolved\":")?;
    write_json_str(out, link.resolved)?;
    out.write_all(b",")?;
    out.write_all(&cache.base.as_ref().expect("set above").json)?;
    // Numbers written by serde_json, as the rest: no `format_args!` per line.
    out.write_all(b"\"offset\":")?;
    serde_json::to_writer(&mut *out, &link.offset)?;
    out.write_all(b",\"srcdoc\":")?;
    serde_json::to_writer(&mut *out, &link.srcdoc)?;
    out.write_all(b",\"kept\":")?;
    serde_json::to_writer(&mut *out, &link.kept)?;
    out.write_all(b"}\n")
}

/// The JSON lines of [`LinksSink`], written on the threads that find the links (see
/// [`Sink::link_encoder`]), each piece with its own [`LineCache`].
struct JsonLines {
    label: String,
}

impl LinkEncoder for JsonLines {
    fn encode(&self, link: LinkRef<'_>, out: &mut LinkBytes) {
        let state = out
            .state
            .get_or_insert_with(|| Box::new(LineCache::default()));
        let cache = state
            .downcast_mut::<LineCache>()
            .expect("only this encoder keeps state here");
        write_line(cache, &self.label, link, &mut out.bytes).expect("writing to memory");
    }
}

/// A JSON string (RFC 8259 §7): as it is between quotes when none of its bytes must be
/// escaped (most URLs), else as serde_json escapes it.
fn write_json_str(out: &mut impl Write, text: &str) -> io::Result<()> {
    if !needs_escaping(text.as_bytes()) {
        out.write_all(b"\"")?;
        out.write_all(text.as_bytes())?;
        return out.write_all(b"\"");
    }
    Ok(serde_json::to_writer(out, text)?)
}

/// Whether any byte is one JSON escapes: `"`, `\\` or a control character below U+0020
/// (what serde_json escapes, and nothing else). Tested 16 bytes at a time, without an
/// early exit inside a block, so that the compiler can test a block at once; the last
/// bytes too, in a block padded with spaces (which are not escaped).
fn needs_escaping(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(16);
    if blocks.any(|block| block_needs_escaping(block.try_into().expect("16 bytes"))) {
        return true;
    }
    let rest = blocks.remainder();
    let mut last = [b' '; 16];
    last[..rest.len()].copy_from_slice(rest);
    block_needs_escaping(&last)
}

/// [`needs_escaping`] for one block.
fn block_needs_escaping(block: &[u8; 16]) -> bool {
    let escaped = |b: u8| u8::from(b < 0x20 || b == b'"' || b == b'\\');
    block.iter().fold(0, |any, &b| any | escaped(b)) != 0
}

impl<W: Write> Sink for LinksSink<'_, W> {
    fn output(&mut self, _bytes: &[u8]) -> io::Result<()> {
        match self.error.take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
    /// Only the links are printed: the rewritten bytes are not built.
    fn wants_output(&self) -> bool {
        false
    }
    fn link(&mut self, link: Link) {
        self.link_ref(link.borrowed());
    }
    fn link_ref(&mut self, link: LinkRef<'_>) {
        if self.error.is_none()
            && let Err(error) = write_line(&mut self.cache, self.label, link, &mut self.out)
        {
            self.error = Some(error);
        }
    }
    fn link_encoder(&self) -> Option<Arc<dyn LinkEncoder>> {
        let label = self.label.to_owned();
        Some(Arc::new(JsonLines { label }))
    }
    fn encoded_links(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        self.out.write_all(bytes)
    }
    fn warning(&mut self, warning: Warning) {
        warn_about(self.label, &warning);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use absolve::links::Kept;

    fn link(base: Option<&str>, original: &str) -> Link {
        let found = absolve::document::links(
            format!("<a href=\"{}\">", original.replace('"', "&quot;")).as_bytes(),
            &absolve::Options::new().with_url("http://h/").unwrap(),
        )
        .unwrap();
        let mut link = found.links.into_iter().next().expect("one link");
        link.resolved = format!("http://h/{original}");
        link.base = base.map(Arc::from);
        link.base_from = BaseSource::RetrievalUrl;
        link.offset = 7;
        link.srcdoc = 1;
        link
    }

    /// Every byte JSON escapes is found wherever it is, in a block or in the last bytes.
    #[test]
    fn escaped_bytes_are_found_at_every_position() {
        for len in 0..40 {
            assert!(!needs_escaping("é/x".repeat(len).as_bytes()));
            for at in 0..len {
                for byte in [b'"', b'\\', 0, 0x1f] {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    assert!(needs_escaping(&text), "{len} {at} {byte}");
                }
            }
        }
    }

    /// The cached lines are byte for byte what serde makes of [`Link`] (with `file`
    /// set), as the keys that are cached change and stay: the hand-tuned writer and the
    /// type's serialization never differ.
    #[test]
    fn lines_are_links_serialized() {
        let mut links = vec![
            link(Some("http://h/"), "a\"b"),
            link(Some("http://h/"), "\u{1}é"),
            link(None, "c"),
            link(Some("http://h/\\"), "d"),
            link(
                Some("http://h/"),
                &format!("{}\"{}", "x".repeat(20), "y".repeat(20)),
            ),
            link(
                Some("http://h/"),
                &format!("{}\u{1f}é{}", "x".repeat(33), "y".repeat(16)),
            ),
            link(Some("http://h/"), &"a/é".repeat(40)),
        ];
        links[2].kept = Some(Kept::Local);
        links[3].attribute = None;
        links[3].base_from = BaseSource::BaseElement;
        let places = [
            (None, None, None, None),
            (Some(1), Some("1.2"), None, None),
            (None, None, Some("<urn:x>"), Some("http://t/\"")),
            (None, None, Some("<urn:x>"), None),
            (None, None, None, Some("http://t/")),
        ];
        let mut out = Vec::new();
        let mut expected = Vec::new();
        let label = "dir/\"f\".warc";
        let mut sink = LinksSink::new(&mut out, label);
        for (message, part, record, target_uri) in places {
            for link in &links {
                let mut link = link.clone();
                link.location = Location {
                    file: None,
                    message,
                    part: part.map(Arc::from),
                    record: record.map(Arc::from),
                    target_uri: target_uri.map(Arc::from),
                };
                let mut with_file = link.clone();
                with_file.location.file = Some(Arc::from(label));
                serde_json::to_writer(&mut expected, &with_file).unwrap();
                expected.push(b'\n');
                sink.link(link);
            }
        }
        assert!(sink.error.is_none());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            String::from_utf8(expected).unwrap()
        );
    }
}
