//! Where the CLI writes: the sinks that turn the library's reports into bytes, JSON and
//! warnings (files are written by [`super::write`]).

use absolve::base::BaseSource;
use absolve::html::{Sink, Warning};
use absolve::links::Link;
use serde::Serialize;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The name an input is reported by.
pub fn label(path: Option<&Path>) -> String {
    path.map_or_else(|| "-".to_owned(), |p| p.display().to_string())
}

/// How many warnings were printed, for the summary of `-r`.
static WARNINGS: AtomicUsize = AtomicUsize::new(0);

/// Prints a warning about `label` on standard error.
pub fn warn(label: &str, warning: &dyn std::fmt::Display) {
    WARNINGS.fetch_add(1, Ordering::Relaxed);
    eprintln!("absolve: warning: {label}: {warning}");
}

/// How many warnings were printed so far.
pub fn warnings() -> usize {
    WARNINGS.load(Ordering::Relaxed)
}

/// A sink of the CLI: it also knows which input, message and part it is reporting on.
pub trait CliSink: Sink {
    /// The input's name, for warnings.
    fn label(&self) -> &str;
    /// The message (1-based, in an mbox) and MIME part the next reports are about.
    fn locate(&mut self, _message: Option<usize>, _part: Option<&str>) {}
    /// A link found in a WARC record (its `WARC-Record-ID` and `WARC-Target-URI`).
    fn record_link(&mut self, _record: Option<&str>, _target_uri: Option<&str>, link: &Link) {
        self.link(link);
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
        warn(&self.label, &warning);
    }
    fn wants_links(&self) -> bool {
        false
    }
}

/// Prints each link as a JSON line; the document's bytes are dropped.
pub struct LinksSink<'a, W: Write> {
    pub out: W,
    pub label: &'a str,
    pub message: Option<usize>,
    pub part: Option<String>,
    pub error: Option<io::Error>,
    /// The JSON of the location keys the last line had (see [`LineCache`]).
    cache: LineCache,
}

impl<'a, W: Write> LinksSink<'a, W> {
    /// A sink printing the links of the input named `label` to `out`.
    pub fn new(out: W, label: &'a str) -> Self {
        LinksSink {
            out,
            label,
            message: None,
            part: None,
            error: None,
            cache: LineCache::default(),
        }
    }
}

impl<W: Write> CliSink for RewriteSink<W> {
    fn label(&self) -> &str {
        &self.label
    }
}

impl<W: Write> CliSink for LinksSink<'_, W> {
    fn label(&self) -> &str {
        self.label
    }
    fn locate(&mut self, message: Option<usize>, part: Option<&str>) {
        self.message = message;
        self.part = part.map(str::to_owned);
        self.cache.location = None;
    }
    fn record_link(&mut self, record: Option<&str>, target_uri: Option<&str>, link: &Link) {
        if self.error.is_none()
            && let Err(error) = self.write_located(link, record, target_uri)
        {
            self.error = Some(error);
        }
    }
}

/// The JSON of what consecutive lines share, made once: the location keys (the same for
/// every link of a document, part or WARC record) and the last base with where it came
/// from. A WARC file's lines are mostly these; escaping them again for every link was the
/// largest cost of `links` after parsing.
#[derive(Default)]
struct LineCache {
    /// The JSON of the location keys, from after `{` to the comma before `"element"`,
    /// for a `(record, target_uri)` (`locate` clears it).
    location: Option<Cached<(Option<String>, Option<String>)>>,
    /// The JSON from `"base"` to the comma before `"offset"`, for a `(base, base_from)`.
    base: Option<Cached<(Option<Arc<str>>, BaseSource)>>,
}

/// Some keys' JSON, and what it was made from.
struct Cached<K> {
    key: K,
    json: Vec<u8>,
}

/// The location keys of [`Located`](absolve::links::Located), in its order.
#[derive(Serialize)]
struct LocationKeys<'a> {
    file: &'a str,
    message: Option<usize>,
    part: Option<&'a str>,
    record: Option<&'a str>,
    target_uri: Option<&'a str>,
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

impl<W: Write> LinksSink<'_, W> {
    fn write_record(&mut self, link: &Link) -> io::Result<()> {
        self.write_located(link, None, None)
    }

    /// One line: the link with where it is, as [`Located`](absolve::links::Located) serializes it (every line has
    /// the same keys), the shared keys from the [`LineCache`].
    fn write_located(
        &mut self,
        link: &Link,
        record: Option<&str>,
        target_uri: Option<&str>,
    ) -> io::Result<()> {
        let cache = &mut self.cache;
        if !matches!(&cache.location, Some(Cached { key: (r, t), .. }) if r.as_deref() == record && t.as_deref() == target_uri)
        {
            let keys = LocationKeys {
                file: self.label,
                message: self.message,
                part: self.part.as_deref(),
                record,
                target_uri,
            };
            let key = (record.map(str::to_owned), target_uri.map(str::to_owned));
            cache.location = Some(Cached {
                key,
                json: keys_json(&keys),
            });
        }
        let base = link.base.as_deref();
        if !matches!(&cache.base, Some(Cached { key: (b, from), .. }) if b.as_deref() == base && *from == link.base_from)
        {
            let keys = BaseKeys {
                base,
                base_from: link.base_from,
            };
            let key = (link.base.clone(), link.base_from);
            cache.base = Some(Cached {
                key,
                json: keys_json(&keys),
            });
        }
        let out = &mut self.out;
        out.write_all(b"{")?;
        out.write_all(&cache.location.as_ref().expect("set above").json)?;
        out.write_all(b"\"element\":")?;
        write_json_str(out, &link.element)?;
        out.write_all(b",\"attribute\":")?;
        match &link.attribute {
            Some(attribute) => write_json_str(out, attribute)?,
            None => out.write_all(b"null")?,
        }
        out.write_all(b",\"original\":")?;
        write_json_str(out, &link.original)?;
        out.write_all(b",\"resolved\":")?;
        write_json_str(out, &link.resolved)?;
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

/// Whether any byte is one JSON escapes: `"`, `\` or a control character below U+0020
/// (what serde_json escapes, and nothing else). Tested 16 bytes at a time, without an
/// early exit inside a block, so that the compiler can test a block at once.
fn needs_escaping(bytes: &[u8]) -> bool {
    let escaped = |b: u8| b < 0x20 || b == b'"' || b == b'\\';
    let mut blocks = bytes.chunks_exact(16);
    let in_blocks = blocks.any(|block| block.iter().fold(false, |any, &b| any | escaped(b)));
    in_blocks || blocks.remainder().iter().any(|&b| escaped(b))
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
    fn link(&mut self, link: &Link) {
        if self.error.is_none()
            && let Err(error) = self.write_record(link)
        {
            self.error = Some(error);
        }
    }
    fn warning(&mut self, warning: Warning) {
        let context = match (&self.message, &self.part) {
            (Some(m), Some(p)) => format!(" message {m} part {p}"),
            _ => String::new(),
        };
        warn(&format!("{}{context}", self.label), &warning);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use absolve::links::{Kept, Located};

    fn link(base: Option<&str>, original: &str) -> Link {
        Link {
            element: "a".into(),
            attribute: Some("href".into()),
            original: original.into(),
            resolved: format!("http://h/{original}"),
            base: base.map(Arc::from),
            base_from: BaseSource::RetrievalUrl,
            offset: 7,
            srcdoc: 1,
            kept: None,
        }
    }

    /// The cached lines are byte for byte what serde makes of [`Located`], as the keys
    /// that are cached change and stay.
    #[test]
    fn lines_are_located_serialized() {
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
        let mut sink = LinksSink::new(&mut out, "dir/\"f\".warc");
        for (message, part, record, target_uri) in places {
            sink.locate(message, part);
            for link in &links {
                sink.record_link(record, target_uri, link);
                let located = Located {
                    file: Some("dir/\"f\".warc"),
                    message,
                    part,
                    record,
                    target_uri,
                    link,
                };
                serde_json::to_writer(&mut expected, &located).unwrap();
                expected.push(b'\n');
            }
        }
        assert!(sink.error.is_none());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            String::from_utf8(expected).unwrap()
        );
    }
}
