//! Safari web archives (`.webarchive`): a property list (binary, `bplist00`, or XML) whose
//! root dictionary holds the page, `WebMainResource`, the files it used,
//! `WebSubresources`, and the archives of its frames, `WebSubframeArchives`, each a web
//! archive again. A resource is a dictionary: its bytes (`WebResourceData`), the URL they
//! came from (`WebResourceURL`), their media type (`WebResourceMIMEType`) and, for text,
//! their charset (`WebResourceTextEncodingName`), beside keys absolve keeps as they are
//! (`WebResourceFrameName`, `WebResourceResponse`, ...).
//!
//! Each resource whose media type is a document absolve reads (HTML, XHTML, CSS, a feed:
//! the same choice as for a MIME part) is read by the pipeline's one function per kind:
//! its `WebResourceURL` is its retrieval URL (RFC 1808 §3.3; its own `<base href>` wins,
//! §3.1), its `WebResourceTextEncodingName` the charset its transport gave. Its links are
//! located by the resource's place in the archive ([`resource_path`]) as
//! [`Location::file`](crate::links::Location::file) and its URL as
//! [`Location::target_uri`](crate::links::Location::target_uri).
//!
//! The property list is parsed whole by the `plist` crate, its values built here under
//! limits ([`MAX_NESTING`], [`EXPANSION`]): a binary property list may use one object many
//! times, and a crafted one would otherwise build far more values than it has bytes. A
//! rewritten archive is written back in the form it was read in (binary stays binary),
//! every other key and value kept; one whose resources do not change is written back byte
//! for byte.
//!
//! ```
//! use absolve::{document, Options};
//!
//! // A web archive as Python's plistlib writes one (binary).
//! let archive = absolve::webarchive::example();
//! let found = document::links(&archive, &Options::new())?;
//! let link = &found.links[0];
//! assert_eq!(link.location.file.as_deref(), Some("WebMainResource"));
//! assert_eq!(link.location.target_uri.as_deref(), Some("http://example.com/a/page.html"));
//! assert_eq!(link.resolved, "http://example.com/a/style.css");
//! # Ok::<(), absolve::Error>(())
//! ```

use crate::base::Base;
use crate::html;
use crate::links::{Link, LinkRef, Location};
use crate::options::Options;
use crate::pipeline::{self, Body};
use crate::sink::Sink;
use crate::warning::Problem;
use plist::stream::{BinaryReader, Event, OwnedEvent, XmlReader};
use plist::{Dictionary, Value};
use std::io;
use std::sync::Arc;

/// The first bytes of a binary property list.
pub const BINARY_MAGIC: &[u8] = b"bplist00";

/// The key of the page's own resource, in an archive's root dictionary.
pub const MAIN_RESOURCE: &str = "WebMainResource";

/// The key of the array of the resources the page used (images, stylesheets, scripts).
pub const SUBRESOURCES: &str = "WebSubresources";

/// The key of the array of the archives of the page's frames.
pub const SUBFRAME_ARCHIVES: &str = "WebSubframeArchives";

/// How deep values may nest in the property list (a frame's archive inside a frame's
/// archive is 4 levels below its parent's): a deeper one is not read
/// ([`Error::TooDeep`]).
pub const MAX_NESTING: usize = 100;

/// How many times its own size the values of a property list may hold
/// ([`Error::Expands`]): a binary property list names each value by its number, and a
/// value named many times is read each time (a data blob shared by two resources, as
/// Apple's writer shares equal values). Values in all are at most this many times the
/// file's bytes plus 1 MiB, and one value (an array, a number, a key) per byte of the
/// file.
pub const EXPANSION: u64 = 8;

/// Whether the first bytes of an input are a web archive: a binary property list
/// (`bplist00`) or an XML one (`<?xml`, a `<plist` element) that names
/// [`MAIN_RESOURCE`] among them (Safari, Apple's writer and Python's `plistlib` write
/// the root dictionary and its keys first).
///
/// ```
/// use absolve::webarchive::is_webarchive;
///
/// assert!(is_webarchive(b"bplist00\xd2\x01\x02\x03\x04_\x10\x0fWebMainResource"));
/// assert!(!is_webarchive(b"bplist00\xd1\x01\x02TName"));
/// assert!(is_webarchive(b"<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n\t<key>WebMainResource</key>"));
/// assert!(!is_webarchive(b"<html><key>WebMainResource</key>"));
/// ```
pub fn is_webarchive(head: &[u8]) -> bool {
    if head.starts_with(BINARY_MAGIC) {
        return memchr::memmem::find(head, MAIN_RESOURCE.as_bytes()).is_some();
    }
    is_xml_plist(head) && memchr::memmem::find(head, b"<key>WebMainResource</key>").is_some()
}

/// Whether `head` starts as an XML property list: an XML declaration (after a UTF-8 BOM
/// and whitespace), then a `<plist` element somewhere in it.
fn is_xml_plist(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    head[start..].starts_with(b"<?xml") && memchr::memmem::find(head, b"<plist").is_some()
}

/// The place of a resource in an archive, as [`Location::file`] gives it: the keys and
/// array indexes (from 0) from the root, joined by `/`: `WebMainResource`,
/// `WebSubresources/2`, `WebSubframeArchives/0/WebMainResource`. The command line
/// prints it after the file's name, `page.webarchive!/WebSubresources/2`, as a WACZ's
/// members are named.
///
/// ```
/// use absolve::webarchive::resource_path;
///
/// assert_eq!(resource_path("", "WebMainResource"), "WebMainResource");
/// assert_eq!(resource_path("WebSubframeArchives/0", "WebSubresources/1"), "WebSubframeArchives/0/WebSubresources/1");
/// ```
pub fn resource_path(archive: &str, resource: &str) -> String {
    match archive {
        "" => resource.to_owned(),
        archive => format!("{archive}/{resource}"),
    }
}

/// Why a file is not read as a web archive: nothing in it can be read (status 1 on the
/// command line).
///
/// ```
/// use absolve::{document, format::Format, Options};
///
/// let options = Options::new().with_format(Some(Format::WebArchive));
/// let error = document::links(b"<p>not a web archive", &options).unwrap_err();
/// assert!(matches!(error, absolve::Error::WebArchive(absolve::webarchive::Error::Unparsable(_))));
/// assert!(error.to_string().starts_with("a property list that does not parse"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The property list does not parse (damaged, cut short, or no property list).
    #[error(
        "a property list that does not parse ({0}): not a readable Safari web archive (damaged or cut short?); open it in Safari and save it again, or save the page as HTML or MHTML"
    )]
    Unparsable(String),
    /// A property list whose root is no dictionary holding a [`MAIN_RESOURCE`]
    /// dictionary.
    #[error(
        "a property list but not a Safari web archive (its root has no {MAIN_RESOURCE} dictionary): absolve does not read other property lists"
    )]
    NotWebArchive,
    /// Values nested deeper than [`MAX_NESTING`].
    #[error(
        "a property list nested deeper than {MAX_NESTING} levels: not read (no web archive nests so deep)"
    )]
    TooDeep,
    /// A binary property list whose values, read, would hold far more than its bytes
    /// ([`EXPANSION`]): objects used over and over, as no writer does.
    #[error(
        "a binary property list whose values would hold over {EXPANSION} times its size (objects used over and over: a crafted file?): not read"
    )]
    Expands,
}

/// Something wrong in one resource of a web archive (or with the retrieval URL given):
/// that resource is left as it is, the others are read. The warning's
/// [`Location::file`] names the resource ([`resource_path`]), its
/// [`Location::target_uri`] its URL.
///
/// ```
/// use absolve::webarchive::Warning;
///
/// assert_eq!(Warning::DataNotBytes("a string").to_string(),
///     "its WebResourceData is a string, not bytes: not read, left as it is");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Warning {
    /// A resource (or an entry of [`SUBRESOURCES`]) that is not a dictionary.
    #[error("not a dictionary but {0}: not read, left as it is")]
    NotDictionary(&'static str),
    /// An archive's [`SUBRESOURCES`] or [`SUBFRAME_ARCHIVES`] that is not an array.
    #[error("its {key} is {what}, not an array: not read, left as it is")]
    NotArray {
        /// The key.
        key: &'static str,
        /// What it is.
        what: &'static str,
    },
    /// An HTML or CSS resource whose `WebResourceData` is missing or not bytes.
    #[error("its WebResourceData is {0}, not bytes: not read, left as it is")]
    DataNotBytes(&'static str),
    /// An HTML or CSS resource without a usable `WebResourceURL` (missing, not a string,
    /// or not an absolute URL): its links are resolved against the retrieval URL given,
    /// if one was (`fallback`), else relative ones are left as they are (RFC 1808 §3.4;
    /// this is its "no base URL" warning).
    #[error("{}", match .fallback {
        true => format!("{} WebResourceURL: resolved against the retrieval URL given", .reason),
        false => format!("{} WebResourceURL: relative links in it are left as they are", .reason),
    })]
    NoUrl {
        /// What is wrong with it: `no`, `a non-string`, `an unusable ("x")`.
        reason: String,
        /// Whether the retrieval URL given was used instead.
        fallback: bool,
    },
    /// A `WebResourceTextEncodingName` that is no WHATWG encoding label: the resource is
    /// left as it is, as a MIME part of an unknown charset is.
    #[error("unknown WebResourceTextEncodingName {0:?}: not read, left as it is")]
    UnknownCharset(String),
    /// A retrieval URL was given, and every resource read had its own
    /// `WebResourceURL`.
    #[error(
        "the retrieval URL given is not used: each resource's WebResourceURL is its retrieval URL"
    )]
    UrlUnused,
}

/// A small binary web archive, for examples: a page at `http://example.com/a/page.html`
/// linking `style.css`, and that stylesheet (`url(img/bg.png)`) as a subresource; as
/// Python's `plistlib` writes it.
///
/// ```
/// let archive = absolve::webarchive::example();
/// assert!(absolve::webarchive::is_webarchive(&archive));
/// ```
pub fn example() -> Vec<u8> {
    let resource = |data: &[u8], url: &str, mime: &str| {
        let mut resource = Dictionary::new();
        resource.insert("WebResourceData".into(), Value::Data(data.to_vec()));
        resource.insert("WebResourceMIMEType".into(), Value::String(mime.into()));
        resource.insert("WebResourceTextEncodingName".into(), "UTF-8".into());
        resource.insert("WebResourceURL".into(), Value::String(url.into()));
        Value::Dictionary(resource)
    };
    let mut root = Dictionary::new();
    let page = b"<link rel=stylesheet href=style.css>";
    let main = resource(page, "http://example.com/a/page.html", "text/html");
    root.insert(MAIN_RESOURCE.into(), main);
    let css = b"body { background: url(img/bg.png) }";
    let css = resource(css, "http://example.com/a/style.css", "text/css");
    root.insert(SUBRESOURCES.into(), Value::Array(vec![css]));
    let mut bytes = Vec::new();
    Value::Dictionary(root)
        .to_writer_binary(&mut bytes)
        .expect("writing to memory");
    bytes
}

/// Which form a property list was read in, and is written back in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Binary,
    Xml,
}

/// Reads a whole web archive: the links of its HTML and CSS resources to `sink`, and,
/// when it wants output, the archive written back with them rewritten. Whether a link
/// resolved to something other than what it said. An `io::Error` is the sink's.
pub(crate) fn process(
    bytes: &[u8],
    options: &Options,
    sink: &mut dyn Sink,
) -> Result<io::Result<bool>, Error> {
    let (mut root, form) = parse(bytes)?;
    let archive = root.as_dictionary_mut().ok_or(Error::NotWebArchive)?;
    if !matches!(archive.get(MAIN_RESOURCE), Some(Value::Dictionary(_))) {
        return Err(Error::NotWebArchive);
    }
    let rewrite = sink.wants_output();
    let mut walk = Walk {
        options,
        sink,
        rewrite,
        changed: false,
        url_used: false,
    };
    walk.archive(archive, "");
    let Walk {
        sink,
        changed,
        url_used,
        ..
    } = walk;
    if options.url.url().is_some() && !url_used {
        sink.warning(crate::Warning::new(Problem::WebArchive(Warning::UrlUnused)));
    }
    if !rewrite {
        return Ok(Ok(changed));
    }
    Ok(write(&root, form, bytes, changed, sink).map(|()| changed))
}

/// The archive written to `sink`: as it was read when nothing changed, else in its form.
fn write(
    root: &Value,
    form: Form,
    original: &[u8],
    changed: bool,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    if !changed {
        return sink.output(original);
    }
    // Straight to the sink: the writer holds the values' bytes already (binary), and a
    // copy of the whole archive would be one more.
    let mut out = io::BufWriter::with_capacity(1 << 16, SinkOutput(sink));
    let written = match form {
        Form::Binary => root.to_writer_binary(&mut out),
        Form::Xml => root.to_writer_xml(&mut out),
    };
    written.map_err(|e| match e.into_io() {
        Ok(error) => error,
        Err(e) => io::Error::other(format!("writing the property list: {e}")),
    })?;
    io::Write::flush(&mut out)
}

/// A sink's output as an [`io::Write`].
struct SinkOutput<'s>(&'s mut dyn Sink);

impl io::Write for SinkOutput<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.output(buf)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The property list's root value and form, built from the `plist` crate's events under
/// [`MAX_NESTING`] and [`EXPANSION`].
fn parse(bytes: &[u8]) -> Result<(Value, Form), Error> {
    if bytes.starts_with(BINARY_MAGIC) {
        let events = BinaryReader::new(io::Cursor::new(bytes));
        Ok((build(events, bytes.len())?, Form::Binary))
    } else if memchr::memmem::find(&bytes[..bytes.len().min(4096)], b"<plist").is_none() {
        Err(Error::Unparsable(
            "it is neither a binary property list (bplist00) nor an XML one (<plist>)".into(),
        ))
    } else {
        let events = XmlReader::new(bytes);
        Ok((build(events, bytes.len())?, Form::Xml))
    }
}

/// A collection being built.
enum Open {
    Array(Vec<Value>),
    /// A dictionary, and the key read whose value comes next.
    Dictionary(Dictionary, Option<String>),
}

/// The value the events make, built with an explicit stack (no recursion), refused when
/// it nests deeper than [`MAX_NESTING`] or holds more than [`EXPANSION`] allows for an
/// input of `size` bytes.
fn build(
    events: impl Iterator<Item = Result<OwnedEvent, plist::Error>>,
    size: usize,
) -> Result<Value, Error> {
    let size = size as u64;
    let (mut values, mut held) = (0u64, 0u64);
    let most_held = size.saturating_mul(EXPANSION).saturating_add(1 << 20);
    let mut stack: Vec<Open> = Vec::new();
    let mut root = None;
    let malformed = |what: &str| Error::Unparsable(what.to_owned());
    for event in events {
        let event = event.map_err(|e| Error::Unparsable(format!("plist: {e}")))?;
        values += 1;
        if values > size + 1 {
            return Err(Error::Expands);
        }
        let value = match event {
            Event::StartArray(_) | Event::StartDictionary(_) => {
                if stack.len() >= MAX_NESTING {
                    return Err(Error::TooDeep);
                }
                stack.push(match event {
                    Event::StartArray(_) => Open::Array(Vec::new()),
                    _ => Open::Dictionary(Dictionary::new(), None),
                });
                continue;
            }
            Event::EndCollection => match stack.pop() {
                Some(Open::Array(array)) => Value::Array(array),
                Some(Open::Dictionary(dictionary, None)) => Value::Dictionary(dictionary),
                Some(Open::Dictionary(_, Some(_))) => {
                    return Err(malformed("a dictionary key without a value"));
                }
                None => return Err(malformed("the end of a collection never started")),
            },
            Event::Boolean(b) => Value::Boolean(b),
            Event::Data(data) => {
                held += data.len() as u64;
                Value::Data(data.into_owned())
            }
            Event::Date(date) => Value::Date(date),
            Event::Integer(integer) => Value::Integer(integer),
            Event::Real(real) => Value::Real(real),
            Event::String(string) => {
                held += string.len() as u64;
                Value::String(string.into_owned())
            }
            Event::Uid(uid) => Value::Uid(uid),
            _ => return Err(malformed("a kind of value this version does not know")),
        };
        if held > most_held {
            return Err(Error::Expands);
        }
        match stack.last_mut() {
            None if root.is_none() => root = Some(value),
            None => return Err(malformed("a second value after the root")),
            Some(Open::Array(array)) => array.push(value),
            Some(Open::Dictionary(dictionary, key)) => match (key.take(), value) {
                (Some(key), value) => {
                    dictionary.insert(key, value);
                }
                (None, Value::String(name)) => *key = Some(name),
                (None, _) => return Err(malformed("a dictionary key that is not a string")),
            },
        }
    }
    match (root, stack.is_empty()) {
        (Some(root), true) => Ok(root),
        _ => Err(malformed("it ends inside a collection")),
    }
}

/// What a value is, worded for a warning.
fn what(value: Option<&Value>) -> &'static str {
    match value {
        None => "missing",
        Some(Value::Array(_)) => "an array",
        Some(Value::Dictionary(_)) => "a dictionary",
        Some(Value::Boolean(_)) => "a boolean",
        Some(Value::Data(_)) => "bytes",
        Some(Value::Date(_)) => "a date",
        Some(Value::Real(_)) => "a real number",
        Some(Value::Integer(_)) => "an integer",
        Some(Value::String(_)) => "a string",
        Some(Value::Uid(_)) => "a UID",
        Some(_) => "another kind of value",
    }
}

/// The walk over an archive's resources, in order: the main resource, the subresources,
/// then each frame's archive the same way.
struct Walk<'o, 's> {
    options: &'o Options,
    sink: &'s mut dyn Sink,
    rewrite: bool,
    /// Whether a link resolved to something other than what it said.
    changed: bool,
    /// Whether a resource without a URL of its own used the retrieval URL given.
    url_used: bool,
}

impl Walk<'_, '_> {
    /// The resources of the archive at `path` ("" for the root), then its frames'.
    fn archive(&mut self, archive: &mut Dictionary, path: &str) {
        if let Some(main) = archive.get_mut(MAIN_RESOURCE) {
            self.resource(main, &resource_path(path, MAIN_RESOURCE));
        }
        for key in [SUBRESOURCES, SUBFRAME_ARCHIVES] {
            let Some(value) = archive.get_mut(key) else {
                continue;
            };
            let Value::Array(entries) = value else {
                let what = what(Some(value));
                self.warn(path_or_root(path), None, Warning::NotArray { key, what });
                continue;
            };
            for (index, entry) in entries.iter_mut().enumerate() {
                let place = resource_path(path, &format!("{key}/{index}"));
                if key == SUBRESOURCES {
                    self.resource(entry, &place);
                    continue;
                }
                match entry {
                    Value::Dictionary(frame) => self.archive(frame, &place),
                    other => {
                        let warning = Warning::NotDictionary(what(Some(other)));
                        self.warn(&place, None, warning);
                    }
                }
            }
        }
    }

    /// One resource at `place`: read (and rewritten in place) if it is a document.
    fn resource(&mut self, resource: &mut Value, place: &str) {
        let Value::Dictionary(resource) = resource else {
            let warning = Warning::NotDictionary(what(Some(resource)));
            return self.warn(place, None, warning);
        };
        let url = resource.get("WebResourceURL").map(|url| url.as_string());
        let target_uri: Option<Arc<str>> = url.flatten().map(Arc::from);
        let media_type = resource
            .get("WebResourceMIMEType")
            .and_then(Value::as_string)
            .map(crate::mime::media_type);
        let data = resource.get("WebResourceData");
        let bytes = data.and_then(Value::as_data).unwrap_or_default();
        let kind = match media_type.as_deref() {
            Some(media_type) => crate::mime::kind_of_type(media_type, bytes),
            // Safari always writes a type: one without is read if it sniffs as HTML.
            None => (crate::format::sniff(bytes) == Some(crate::format::Format::Html))
                .then_some(pipeline::Kind::Html),
        };
        let Some(kind) = kind else {
            return;
        };
        if data.and_then(Value::as_data).is_none() {
            let warning = Warning::DataNotBytes(what(data));
            return self.warn(place, target_uri, warning);
        }
        let charset = match resource
            .get("WebResourceTextEncodingName")
            .and_then(Value::as_string)
        {
            Some(label) => match html::charset::from_label(label) {
                Some(encoding) => Some(encoding),
                None => {
                    let warning = Warning::UnknownCharset(label.to_owned());
                    return self.warn(place, target_uri, warning);
                }
            },
            None => self.options.html.charset,
        };
        let base = self.base(url, place, &target_uri);
        let html_options = html::Options {
            charset,
            ..self.options.html.clone()
        };
        let mut sink = ResourceSink {
            location: Location {
                file: Some(Arc::from(place)),
                target_uri: target_uri.clone(),
                ..Location::default()
            },
            // Room for the links made longer, rather than doubling as it grows.
            output: self
                .rewrite
                .then(|| Vec::with_capacity(bytes.len() + bytes.len() / 4)),
            inner: &mut *self.sink,
            changed: false,
        };
        let body = Body::Memory(bytes);
        // Writing into memory does not fail: an error is the sink's own, none here.
        let _ = pipeline::document(kind, body, &base, &html_options, &mut sink);
        let ResourceSink {
            output, changed, ..
        } = sink;
        self.changed |= changed;
        if let Some(output) = output.filter(|output| output != bytes) {
            resource.insert("WebResourceData".into(), Value::Data(output));
            self.changed = true;
        }
    }

    /// A resource's base: its `WebResourceURL` (§3.3), else the retrieval URL given,
    /// else none, with a warning when it has no usable URL.
    fn base(
        &mut self,
        url: Option<Option<&str>>,
        place: &str,
        target_uri: &Option<Arc<str>>,
    ) -> Base {
        let standard = self.options.standard();
        let reason = match url {
            Some(Some(url)) => match Base::retrieval_url_with(standard, url) {
                Ok(base) => return base,
                Err(_) => format!("an unusable ({url:?})"),
            },
            Some(None) => "a non-string".to_owned(),
            None => "no".to_owned(),
        };
        let given = self.options.url.clone();
        let fallback = given.url().is_some();
        self.url_used |= fallback;
        let warning = Warning::NoUrl { reason, fallback };
        self.warn(place, target_uri.clone(), warning);
        match given.url() {
            Some(url) => Base::retrieval_url_with(standard, url).unwrap_or(given),
            None => Base::none(),
        }
    }

    /// A warning about the resource (or archive) at `place`.
    fn warn(&mut self, place: &str, target_uri: Option<Arc<str>>, warning: Warning) {
        self.sink.warning(crate::Warning {
            location: Location {
                file: Some(Arc::from(place)),
                target_uri,
                ..Location::default()
            },
            problem: Problem::WebArchive(warning),
        });
    }
}

/// The place of an archive for a warning: the root is named by its key.
fn path_or_root(path: &str) -> &str {
    match path {
        "" => "(root)",
        path => path,
    }
}

/// Where a resource's document's results go: its rewritten bytes kept (when a rewrite
/// is asked for), its links and warnings located by the resource.
struct ResourceSink<'s> {
    location: Location,
    output: Option<Vec<u8>>,
    inner: &'s mut dyn Sink,
    changed: bool,
}

impl Sink for ResourceSink<'_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(output) = &mut self.output {
            output.extend_from_slice(bytes);
        }
        Ok(())
    }
    fn link(&mut self, link: Link) {
        self.link_ref(link.borrowed());
    }
    fn link_ref(&mut self, link: LinkRef<'_>) {
        self.changed |= link.resolved != link.original;
        if self.inner.wants_links() {
            self.inner.link_ref(LinkRef {
                location: &self.location,
                ..link
            });
        }
    }
    fn warning(&mut self, mut warning: crate::Warning) {
        warning.location.file = self.location.file.clone();
        warning.location.target_uri = self.location.target_uri.clone();
        self.inner.warning(warning);
    }
    fn wants_output(&self) -> bool {
        self.output.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(value: Value) -> Vec<u8> {
        let mut bytes = Vec::new();
        value.to_writer_binary(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn nesting_past_the_limit_is_refused() {
        let mut value = Value::Array(Vec::new());
        for _ in 0..MAX_NESTING {
            value = Value::Array(vec![value]);
        }
        assert_eq!(parse(&binary(value)).unwrap_err(), Error::TooDeep);
    }

    /// A binary property list of `levels` arrays, each naming the next twice, then an
    /// integer: 2^levels values from a few bytes each level (bplist00: objects, offset
    /// table, 32-byte trailer).
    fn shared(levels: u8) -> Vec<u8> {
        let mut bytes = BINARY_MAGIC.to_vec();
        let mut offsets = Vec::new();
        for level in 0..levels {
            offsets.push(bytes.len() as u8);
            bytes.extend([0xA2, level + 1, level + 1]);
        }
        offsets.push(bytes.len() as u8);
        bytes.extend([0x10, 0x01]);
        let table = bytes.len() as u64;
        bytes.extend(&offsets);
        bytes.extend([0; 6]);
        bytes.extend([1, 1]);
        bytes.extend((u64::from(levels) + 1).to_be_bytes());
        bytes.extend(0u64.to_be_bytes());
        bytes.extend(table.to_be_bytes());
        bytes
    }

    #[test]
    fn objects_used_over_and_over_are_refused() {
        // Two levels: 7 values from 59 bytes, as any writer may share values.
        assert!(parse(&shared(2)).is_ok());
        // Forty levels: 2^41 values from 191 bytes.
        assert_eq!(parse(&shared(40)).unwrap_err(), Error::Expands);
    }

    #[test]
    fn a_cut_plist_does_not_parse() {
        let bytes = example();
        for cut in [8, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                matches!(parse(&bytes[..cut]), Err(Error::Unparsable(_))),
                "{cut}"
            );
        }
    }
}
