//! Feeds: snapshots of the rewrite and the links of every fixture in
//! fixtures/feed/, with the retrieval URL `http://feeds.example.com/dir/feed.xml`
//! (RFC 1808 §3.3) as the outermost base; each URL is what XML Base gives. Each fixture
//! is also rewritten in small chunks (the same bytes), rewritten twice (nothing changes
//! the second time) and listed without output (the same links). Then damaged input:
//! deep nesting, huge text, huge tags, a DOCTYPE with entities.

use absolve::base::Base;
use absolve::feed::{self, Rewriter, Warning};
use absolve::html::Options;
use absolve::{Collected, Link, Problem, Sink};
use std::io;
use std::io::Write as _;
use std::time::Duration;

const URL: &str = "http://feeds.example.com/dir/feed.xml";

fn base() -> Base {
    Base::retrieval_url(URL).unwrap()
}

/// The feed problems among `warnings` (the sink's: HTML problems come there too).
fn feed_warnings(warnings: &[absolve::Warning]) -> Vec<Warning> {
    warnings
        .iter()
        .filter_map(|w| match &w.problem {
            Problem::Feed(warning) => Some(warning.clone()),
            _ => None,
        })
        .collect()
}

/// The HTML problems among `warnings`.
fn html_warnings(warnings: &[absolve::Warning]) -> Vec<absolve::html::Warning> {
    warnings
        .iter()
        .filter_map(|w| match &w.problem {
            Problem::Html(warning) => Some(warning.clone()),
            _ => None,
        })
        .collect()
}

/// The feed rewritten by the streaming rewriter `chunk` bytes at a time, with `options`:
/// what the sink collected.
fn in_chunks_with(feed: &[u8], chunk: usize, options: &Options) -> Collected {
    let mut rewriter = Rewriter::new(&base(), options, None, Collected::default());
    for piece in feed.chunks(chunk) {
        rewriter.write(piece).unwrap();
    }
    rewriter.end().unwrap()
}

/// The feed rewritten by the streaming rewriter, `chunk` bytes at a time.
fn in_chunks(feed: &[u8], chunk: usize) -> (Vec<u8>, Vec<Warning>) {
    let done = in_chunks_with(feed, chunk, &Options::default());
    (done.output, feed_warnings(&done.warnings))
}

/// The bytes as text for a snapshot: UTF-8, else windows-1252 (the non-UTF-8 fixtures).
fn text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => encoding_rs::WINDOWS_1252.decode(bytes).0.into_owned(),
    }
}

#[test]
fn rewrite_and_links_of_every_feed_fixture() {
    insta::glob!("../fixtures/feed", "*.*", |path| {
        let feed = std::fs::read(path).unwrap();
        let done = feed::rewrite(&feed, &base(), &Options::default(), None);
        let mut lines = String::new();
        for link in &done.links {
            lines += &serde_json::to_string(link).unwrap();
            lines.push('\n');
        }
        for warning in feed_warnings(&done.warnings) {
            lines += &format!("feed warning: {warning}\n");
        }
        for warning in html_warnings(&done.warnings) {
            lines += &format!("html warning: {warning}\n");
        }
        insta::assert_snapshot!("rewrite", text(&done.output));
        insta::assert_snapshot!("links", lines);

        // Each offset points at the value, or for HTML content at the content's start.
        for link in &done.links {
            let at = link.offset as usize;
            if link.original.is_ascii() && !link.original.contains('&') {
                assert!(
                    feed[at..].starts_with(link.original.trim().as_bytes())
                        || feed[..at].ends_with(b">"),
                    "{}: {link:?}",
                    path.display()
                );
            }
        }
        // Streaming in small chunks gives the same bytes and warnings.
        for chunk in [1, 7, 4096] {
            let (output, warnings) = in_chunks(&feed, chunk);
            assert_eq!(
                text(&output),
                text(&done.output),
                "{} in chunks of {chunk}",
                path.display()
            );
            assert_eq!(
                warnings,
                feed_warnings(&done.warnings),
                "{} in chunks of {chunk}",
                path.display()
            );
        }
        // Rewriting twice changes nothing.
        let again = feed::rewrite(&done.output, &base(), &Options::default(), None);
        assert_eq!(
            text(&again.output),
            text(&done.output),
            "{} twice",
            path.display()
        );
        // Listing alone finds the same links.
        let listed = feed::links(&feed, &base(), &Options::default(), None);
        assert_eq!(listed.links, done.links);
        assert!(listed.output.is_empty());
        // Every fixture starts as a feed, the damaged ones too.
        assert!(feed::is_feed(&feed), "{}", path.display());
    });
}

#[test]
fn bytes_outside_changed_urls_are_kept_exactly() {
    let feed = b"<rss version='2.0'>\r\n<channel ><link >\n\tx.html\n</link ><description>&#60;a  href=x.html&#62;&lt;b&gt;&#x26;&lt;/b></description></channel></rss >";
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    assert_eq!(
        String::from_utf8(done.output).unwrap(),
        "<rss version='2.0'>\r\n<channel ><link >\n\thttp://feeds.example.com/dir/x.html\n</link ><description>&#60;a  href=http://feeds.example.com/dir/x.html&#62;&lt;b&gt;&#x26;&lt;/b></description></channel></rss >"
    );
    // The text link's offset is its first byte; the HTML's, the content's first byte.
    assert_eq!(done.links[0].offset, 40);
    assert_eq!(&feed[40..46], b"x.html");
    let content = feed
        .windows(13)
        .position(|w| w == b"<description>")
        .unwrap()
        + 13;
    assert_eq!(done.links[1].offset, content as u64);
    assert_eq!(done.links[1].element, "a");
}

#[test]
fn the_transport_charset_wins_over_the_declaration_and_a_bom_over_both() {
    let feed = b"<?xml version='1.0' encoding='utf-8'?><rss><channel><link>caf\xe9.html</link></channel></rss>";
    let latin1 = encoding_rs::Encoding::for_label(b"iso-8859-1");
    let done = feed::rewrite(feed, &base(), &Options::default(), latin1);
    assert_eq!(done.links[0].original, "caf\u{e9}.html");
    assert!(
        done.output
            .ends_with(b"<link>http://feeds.example.com/dir/caf\xe9.html</link></channel></rss>")
    );
    // Read as the declared UTF-8, the byte is not valid: left as it is, with a warning.
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    assert_eq!(done.output, feed);
    assert!(matches!(
        feed_warnings(&done.warnings)[0],
        Warning::Undecodable { offset: 58, .. }
    ));
    // A UTF-16 BOM wins over the transport's charset (see `a_utf16_feed_is_rewritten_in_utf16`).
    let utf16 = b"\xFF\xFE<\0r\0s\0s\0>\0";
    let done = feed::rewrite(utf16, &base(), &Options::default(), latin1);
    assert_eq!(done.output, utf16);
    // Read as UTF-16: its `<rss>` (at byte 2, after the BOM) is never closed.
    assert!(matches!(
        feed_warnings(&done.warnings)[..],
        [Warning::Unclosed { offset: 2, .. }]
    ));
}

/// A feed in UTF-16 (by its BOM, or the transport's charset) or ISO-2022-JP is read
/// through UTF-8 and written back in its charset: the bytes outside a changed value are
/// its own (damaged ones too), each offset is in its own bytes.
#[test]
fn a_utf16_feed_is_rewritten_in_utf16() {
    let text = "<?xml version='1.0' encoding='UTF-16'?>\
        <feed xmlns='http://www.w3.org/2005/Atom' xml:base='http://o/d/'>\
        <link href='é.html'/><entry xml:base='e/'><link href='../x'/>\
        <content type='html'>&lt;a href=\"y\"&gt;日本&lt;/a&gt;</content></entry></feed>";
    let encode = |text: &str, little: bool| -> Vec<u8> {
        std::iter::once('\u{FEFF}')
            .chain(text.chars())
            .collect::<String>()
            .encode_utf16()
            .flat_map(|u| {
                if little {
                    u.to_le_bytes()
                } else {
                    u.to_be_bytes()
                }
            })
            .collect()
    };
    let utf8 = feed::rewrite(text.as_bytes(), &base(), &Options::default(), None);
    let expected = String::from_utf8(utf8.output.clone()).unwrap();
    assert!(
        expected.contains("href='http://o/d/e/y'") || expected.contains("http://o/d/e/y"),
        "{expected}"
    );
    for little in [true, false] {
        let page = encode(text, little);
        let done = feed::rewrite(&page, &base(), &Options::default(), None);
        assert_eq!(done.output, encode(&expected, little));
        assert!(done.warnings.is_empty(), "{:?}", done.warnings);
        let resolved: Vec<_> = done.links.iter().map(|l| l.resolved.as_str()).collect();
        let in_utf8: Vec<_> = utf8.links.iter().map(|l| l.resolved.as_str()).collect();
        assert_eq!(resolved, in_utf8);
        // The first link's value, `é.html`, at its offset in the feed's own bytes.
        let at = done.links[0].offset as usize;
        assert_eq!(page[at..at + 12], encode("é.html", little)[2..]);
    }
    // A lone surrogate outside any value comes back as it was.
    let mut damaged = encode("<rss><channel><title>", true);
    damaged.extend_from_slice(b"\x00\xD8");
    damaged.extend(encode("</title><link>a</link></channel></rss>", true).split_off(2));
    let done = feed::rewrite(&damaged, &base(), &Options::default(), None);
    let mut expected = encode("<rss><channel><title>", true);
    expected.extend_from_slice(b"\x00\xD8");
    let link = format!(
        "</title><link>{}</link></channel></rss>",
        done.links[0].resolved
    );
    expected.extend(encode(&link, true).split_off(2));
    assert_eq!(done.output, expected);
}

#[test]
fn an_iso_2022_jp_feed_is_rewritten_in_iso_2022_jp() {
    let feed = b"<?xml version='1.0' encoding='ISO-2022-JP'?><rss><channel>\
        <title>\x1b$BF|K\\\x1b(B</title><link>\x1b$BF|K\\\x1b(B/a.html</link></channel></rss>";
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let (text, _, errors) = encoding_rs::ISO_2022_JP.decode(&done.output);
    assert!(!errors);
    assert!(text.contains("<title>日本</title>"), "{text}");
    assert_eq!(done.links[0].original, "日本/a.html");
    assert!(
        text.contains(&format!("<link>{}</link>", done.links[0].resolved)),
        "{text}"
    );
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
}

/// A declared charset no Encoding Standard label names is said, and the feed read as
/// UTF-8 (XML 1.0 §4.3.3 makes it fatal; a label given by the transport wins, silently).
#[test]
fn an_unknown_declared_charset_is_said_and_read_as_utf8() {
    let feed = b"<?xml version='1.0' encoding='x-bogus-9'?><rss><channel><link>caf\xc3\xa9.html</link></channel></rss>";
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    assert_eq!(done.links[0].original, "caf\u{e9}.html");
    assert_eq!(
        feed_warnings(&done.warnings),
        [Warning::UnknownCharset {
            offset: 0,
            label: "x-bogus-9".into()
        }]
    );
    assert!(
        done.warnings[0]
            .to_string()
            .contains(r#"names the charset "x-bogus-9""#)
    );
    // Known labels, and a transport charset, give no such warning.
    let latin1 = encoding_rs::Encoding::for_label(b"iso-8859-1");
    let done = feed::rewrite(feed, &base(), &Options::default(), latin1);
    assert!(feed_warnings(&done.warnings).is_empty());
    let known =
        b"<?xml version='1.0' encoding='Latin1'?><rss><channel><link>a.html</link></channel></rss>";
    let done = feed::rewrite(known, &base(), &Options::default(), None);
    assert!(feed_warnings(&done.warnings).is_empty());
    // A label of any length is quoted 64 bytes at most.
    let long = format!("<?xml version='1.0' encoding='{}'?><rss/>", "x".repeat(500));
    let done = feed::rewrite(long.as_bytes(), &base(), &Options::default(), None);
    assert!(
        matches!(&feed_warnings(&done.warnings)[..], [Warning::UnknownCharset { label, .. }] if label.len() == 64)
    );
}

#[test]
fn relative_xml_base_without_an_outer_base_is_no_base() {
    let feed = b"<feed xmlns='http://www.w3.org/2005/Atom' xml:base='rel/'><link href='a'/></feed>";
    let done = feed::rewrite(feed, &Base::none(), &Options::default(), None);
    assert_eq!(done.output, feed);
    assert!(
        matches!(&feed_warnings(&done.warnings)[0], Warning::UnusableBase { value, .. } if value == "rel/")
    );
    assert_eq!(done.links[0].resolved, "a");
}

/// A sink that counts the output and the links, and keeps only the warnings.
#[derive(Default)]
struct Counter {
    bytes: u64,
    links: usize,
    warnings: Vec<absolve::Warning>,
}

impl Sink for Counter {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.bytes += bytes.len() as u64;
        Ok(())
    }
    fn link(&mut self, _link: Link) {
        self.links += 1;
    }
    fn warning(&mut self, warning: absolve::Warning) {
        self.warnings.push(warning);
    }
}

#[test]
fn a_million_deep_nesting_passes_through_with_a_warning() {
    let depth = 1_000_000;
    let mut feed = b"<rss><channel><link>a.html</link>".to_vec();
    feed.extend(b"<x>".repeat(depth));
    feed.extend(b"<link>never.html</link>");
    feed.extend(b"</x>".repeat(depth));
    feed.extend(b"</channel></rss>");
    let done = feed::rewrite(&feed, &base(), &Options::default(), None);
    assert_eq!(
        done.output.len(),
        feed.len() + "http://feeds.example.com/dir/".len()
    );
    assert_eq!(done.links.len(), 1);
    let too_deep = feed_warnings(&done.warnings).iter().find_map(|w| match w {
        Warning::TooDeep { offset, limit } => Some((*offset, *limit)),
        _ => None,
    });
    let first_too_deep = 33 + 3 * (feed::MAX_DEPTH - 2) as u64;
    assert_eq!(too_deep, Some((first_too_deep, feed::MAX_DEPTH)));
}

#[test]
fn a_100_mb_text_node_streams_through_in_bounded_memory() {
    let mut rewriter = Rewriter::new(&base(), &Options::default(), None, Counter::default());
    rewriter
        .write(b"<rss><channel><description>&lt;a href=x&gt;")
        .unwrap();
    let chunk = vec![b'y'; 1 << 20];
    for _ in 0..100 {
        rewriter.write(&chunk).unwrap();
    }
    rewriter.write(b"</description><title>").unwrap();
    for _ in 0..100 {
        rewriter.write(&chunk).unwrap();
    }
    rewriter
        .write(b"</title><link>after.html</link></channel></rss>")
        .unwrap();
    let counter = rewriter.end().unwrap();
    // The description passed through unchanged; the link after it was rewritten.
    let total = 44 + 200 * (1 << 20) + 21 + 46 + "http://feeds.example.com/dir/".len() as u64;
    assert_eq!(counter.bytes, total);
    assert_eq!(counter.links, 1);
    assert_eq!(
        feed_warnings(&counter.warnings),
        [Warning::ContentTooLarge {
            offset: 27,
            limit: feed::MAX_HELD
        }]
    );
}

#[test]
fn a_huge_tag_passes_the_rest_through() {
    let options = Options {
        max_buffer: 1000,
        ..Options::default()
    };
    let mut feed = b"<rss><channel><link>a</link><item x='".to_vec();
    feed.extend(vec![b'z'; 5000]);
    feed.extend(b"'><link>b</link></item></channel></rss>");
    let done = in_chunks_with(&feed, 100, &options);
    assert_eq!(done.links.len(), 1);
    assert_eq!(
        done.output.len(),
        feed.len() + "http://feeds.example.com/dir/".len()
    );
    assert_eq!(
        feed_warnings(&done.warnings),
        [Warning::TokenTooLarge {
            offset: 28,
            limit: 1000
        }]
    );
}

#[test]
fn billion_laughs_is_never_expanded() {
    let feed = std::fs::read("fixtures/feed/damaged-entities.rss").unwrap();
    let done = feed::rewrite(&feed, &base(), &Options::default(), None);
    assert!(done.output.len() < feed.len() + 200);
    assert!(
        feed_warnings(&done.warnings)
            .iter()
            .any(|w| matches!(w, Warning::EntityDeclarations { offset: 22 }))
    );
    assert!(done.links.iter().all(|l| !l.original.contains("lol")));
}

#[test]
fn long_names_of_open_elements_are_bounded() {
    let name = "n".repeat(2048);
    let mut feed = b"<rss><channel>".to_vec();
    for _ in 0..600 {
        feed.extend(format!("<{name} xmlns:p='urn:x'>").bytes());
    }
    feed.extend(b"<link>a</link>");
    let done = feed::rewrite(&feed, &base(), &Options::default(), None);
    assert_eq!(done.output, feed);
    // Each open element keeps its name and its declaration (`xmlns:p`, `urn:x`); `rss`
    // and `channel` keep 10 bytes. The first element past the limit is refused.
    let fitting = (feed::MAX_SCOPE_BYTES - 10) / (name.len() + 12);
    let offset = 14 + fitting as u64 * (name.len() as u64 + 18);
    assert_eq!(
        feed_warnings(&done.warnings)[0],
        Warning::ScopeTooLarge {
            offset,
            limit: feed::MAX_SCOPE_BYTES
        }
    );
}

#[test]
fn bad_bang_markup_stops_the_rewrite_where_it_is() {
    let feed = b"<rss><channel><link>a</link><!x><link>b</link></channel></rss>";
    for chunk in [1, 5, feed.len()] {
        let done = in_chunks_with(feed, chunk, &Options::default());
        let warnings = feed_warnings(&done.warnings);
        assert_eq!(done.links.len(), 1);
        assert!(
            matches!(warnings[..], [Warning::Malformed { offset: 28, .. }]),
            "{warnings:?}"
        );
    }
}

/// Runs `work` on a thread of its own and fails once that thread has used `limit` of CPU
/// time (its own clock: how busy the machine is does not count). The tests below give a
/// size at which a rewrite whose time grows with the square of its input works for
/// minutes, and the linear one about a second in a debug build.
fn finishes_within_cpu<T: Send + 'static>(
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    use std::os::unix::thread::JoinHandleExt;
    let worker = std::thread::spawn(work);
    let mut clock: libc::clockid_t = 0;
    // SAFETY: the thread is not joined yet, so its pthread_t is valid.
    let found = unsafe { libc::pthread_getcpuclockid(worker.as_pthread_t(), &mut clock) };
    assert_eq!(found, 0, "no CPU clock for the thread");
    while !worker.is_finished() {
        let mut used = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `clock` is the running thread's clock, `used` a valid timespec.
        if unsafe { libc::clock_gettime(clock, &mut used) } == 0 {
            let used = Duration::new(used.tv_sec as u64, used.tv_nsec as u32);
            assert!(used < limit, "still working after {used:?} of CPU time");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    worker.join().expect("the work panicked")
}

/// The whole feed given to the streaming rewriter in one write (the window is read once).
fn in_one_write(feed: &[u8]) -> Collected {
    let mut rewriter = Rewriter::new(&base(), &Options::default(), None, Collected::default());
    rewriter.write(feed).unwrap();
    rewriter.end().unwrap()
}

/// XML 1.0 §3.1 (WFC: Unique Att Spec) is checked in time linear in the attributes:
/// quick-xml's check compared each name with every earlier one (100,000 attributes on
/// one tag, 1 MB: 46 s in a release build).
#[test]
fn the_attributes_of_one_tag_are_checked_in_linear_time() {
    let mut feed = b"<rss><channel><x".to_vec();
    for i in 0..100_000 {
        write!(feed, " a{i}=''").unwrap();
    }
    let mut twice = feed.clone();
    feed.extend(b"/><link>l</link></channel></rss>");
    let done = finishes_within_cpu(Duration::from_secs(10), move || in_one_write(&feed));
    assert_eq!(done.links.len(), 1);
    assert_eq!(feed_warnings(&done.warnings), []);
    // A name given twice is still found, however many come between.
    twice.extend(b" a7=''/><link>l</link></channel></rss>");
    let done = finishes_within_cpu(Duration::from_secs(10), move || in_one_write(&twice));
    assert_eq!(done.links.len(), 0);
    assert!(
        matches!(&feed_warnings(&done.warnings)[..], [Warning::Malformed { offset: 14, reason }] if reason.contains("duplicated attribute, previous declaration at position 44")),
        "{:?}",
        feed_warnings(&done.warnings)
    );
}

/// An element's namespace is found in time independent of the bindings in scope:
/// quick-xml's resolver scanned every binding for each element (20,000 bindings on the
/// root and 2 million elements: 34 s in a release build).
#[test]
fn element_names_are_resolved_whatever_the_bindings_in_scope() {
    let mut feed = b"<rss version='2.0'".to_vec();
    for i in 0..50_000 {
        write!(feed, " xmlns:p{i}='u'").unwrap();
    }
    feed.extend(b"><channel>");
    feed.extend(b"<p0:i/>".repeat(300_000));
    feed.extend(b"<link>l</link></channel></rss>");
    let done = finishes_within_cpu(Duration::from_secs(10), move || in_one_write(&feed));
    assert_eq!(done.links.len(), 1);
    assert_eq!(feed_warnings(&done.warnings), []);
}

/// Each attribute value of a start tag of `xml`, as XML reads it; panics where the XML is
/// not well-formed, a value holding `<` included (XML 1.0 §3.1, WFC: No < in Attribute
/// Values, which quick-xml does not check by itself).
fn attribute_values(xml: &[u8]) -> Vec<(String, String)> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut values = Vec::new();
    loop {
        match reader.read_event().expect("well-formed") {
            Event::Start(tag) | Event::Empty(tag) => {
                for attribute in tag.attributes() {
                    let attribute = attribute.expect("well-formed attributes");
                    assert!(!attribute.value.contains(&b'<'), "{attribute:?}");
                    let key = String::from_utf8(attribute.key.as_ref().to_vec()).unwrap();
                    let value = attribute.unescape_value().expect("XML's references");
                    values.push((key, value.into_owned()));
                }
            }
            Event::Eof => return values,
            _ => {}
        }
    }
}

/// Inline XHTML is XML: a rewritten value is escaped as an XML attribute value, the bytes
/// around the change kept (the HTML rewriter's escaping wrote `<` into it).
#[test]
fn xhtml_values_are_written_as_xml_attribute_values() {
    let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><a href="a&lt;b.html">x</a><iframe srcdoc="&lt;img src=&quot;sd.png&quot;&gt;"></iframe><img src='it&apos;s.png'/></div></content></entry></feed>"#;
    attribute_values(feed);
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let values = attribute_values(&done.output);
    let dir = "http://feeds.example.com/dir/";
    assert!(values.contains(&("href".into(), format!("{dir}a<b.html"))));
    assert!(values.contains(&("srcdoc".into(), format!("<img src=\"{dir}sd.png\">"))));
    assert!(values.contains(&("src".into(), format!("{dir}it's.png"))));
    let out = String::from_utf8(done.output).unwrap();
    assert!(
        out.contains(&format!(r#"<a href="{dir}a&lt;b.html">"#)),
        "{out}"
    );
    assert!(out.contains(&format!(
        r#"srcdoc="&lt;img src=&quot;{dir}sd.png&quot;&gt;""#
    )));
    assert!(out.contains(&format!("<img src='{dir}it&apos;s.png'/>")));
}

/// A value of inline XHTML that refers to an entity the DOCTYPE declares is left as
/// written, its URL not listed, with a warning, as a feed URL that does: it was read as
/// the text `&site;` and written `&amp;site;`.
#[test]
fn xhtml_values_with_declared_entities_are_left_as_written() {
    let feed = br#"<!DOCTYPE feed [ <!ENTITY site "http://cdn.example/"> ]><feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><img src="&site;pic.png"/><a href="x.html">x</a></div></content></entry></feed>"#;
    let at = feed.windows(6).position(|w| w == b"&site;").unwrap() as u64;
    for done in [
        feed::rewrite(feed, &base(), &Options::default(), None),
        feed::links(feed, &base(), &Options::default(), None),
    ] {
        let links: Vec<_> = done.links.iter().map(|l| l.original.as_str()).collect();
        assert_eq!(links, ["x.html"]);
        assert!(
            feed_warnings(&done.warnings).contains(&Warning::Entity {
                offset: at,
                reason: "site".into()
            }),
            "{:?}",
            done.warnings
        );
    }
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let out = String::from_utf8(done.output).unwrap();
    assert!(
        out.contains(r#"<img src="&site;pic.png"/><a href="http://feeds.example.com/dir/x.html">"#)
    );
}

/// The HTML rewriter's warnings about inline XHTML give their offset in the feed (they
/// gave it in the tag).
#[test]
fn xhtml_warnings_give_the_offset_in_the_feed() {
    let feed = b"<feed xmlns='http://www.w3.org/2005/Atom'><entry><content type='xhtml'><div xmlns='http://www.w3.org/1999/xhtml'><a href='\xff.html'>x</a></div></content></entry></feed>";
    let at = feed.iter().position(|&b| b == 0xff).unwrap() as u64;
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    assert_eq!(
        html_warnings(&done.warnings),
        [absolve::html::Warning::Undecodable(at, "UTF-8")]
    );
}

/// An element inside one whose text is a URL or HTML makes the content pass through
/// unchanged: with a warning naming where (there was none, and status 0).
#[test]
fn markup_inside_html_content_is_a_warning() {
    for (feed, element, child) in [
        (
            &br#"<rss version="2.0"><channel><item><description>Intro <a href="raw.html">raw</a> &lt;a href="esc.html"&gt;</description></item></channel></rss>"#[..],
            "description",
            "a",
        ),
        (
            br#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="html">&lt;a href="x.html"&gt;<br/>&lt;a href="y.html"&gt;</content></entry></feed>"#,
            "content",
            "br",
        ),
        (br#"<rss><channel><link>a<b/>c</link></channel></rss>"#, "link", "b"),
    ] {
        let done = feed::rewrite(feed, &base(), &Options::default(), None);
        assert_eq!(done.output, feed);
        let content = feed
            .windows(element.len() + 1)
            .position(|w| w.ends_with(element.as_bytes()) && w[0] == b'<')
            .unwrap();
        let offset = feed[content..].iter().position(|&b| b == b'>').unwrap() + content + 1;
        assert_eq!(
            feed_warnings(&done.warnings),
            [Warning::MarkupInContent {
                offset: offset as u64,
                element: element.into(),
                child: child.into()
            }]
        );
    }
}

/// A feed's URL with a scheme is taken as HTML takes one: as it is by RFC 1808, its dot
/// segments removed by RFC 3986, parsed by the URL Standard (a feed `<link>` kept
/// `http://a/b/../g` and `HTTP://X:80/y` by every standard, while the same URL in its
/// HTML content was resolved).
#[test]
fn a_url_with_a_scheme_by_each_standard() {
    let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom"><link href="http://a/b/../g"/><icon>HTTP://X:80/y</icon><entry><content type="html">&lt;a href="http://a/b/../c"&gt;</content></entry></feed>"#;
    for (standard, expected) in [
        (
            absolve::Standard::Rfc1808,
            ["http://a/b/../g", "HTTP://X:80/y", "http://a/b/../c"],
        ),
        (
            absolve::Standard::Rfc3986,
            ["http://a/g", "HTTP://X:80/y", "http://a/c"],
        ),
        (
            absolve::Standard::Whatwg,
            ["http://a/g", "http://x/y", "http://a/c"],
        ),
    ] {
        let options = Options {
            standard,
            ..Options::default()
        };
        let done = in_chunks_with(feed, feed.len(), &options);
        let resolved: Vec<_> = done.links.iter().map(|l| l.resolved.as_str()).collect();
        assert_eq!(resolved, expected, "{standard:?}");
    }
}

/// Inline XHTML is read as HTML reads the same elements: a `<style>`'s CSS (escaped or in
/// CDATA, written back in that form), `style` attributes, SVG `href` and `xlink:href`
/// and MathML `href` (by the HTML rewriter's SVG and MathML tables). The `<style>` and the
/// SVG and MathML links were neither listed nor rewritten.
#[test]
fn xhtml_style_svg_and_mathml_links_are_read_as_in_html() {
    let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><style>p{background:url(bg.png)} a&gt;b{c:url("q?a&amp;b")}</style><style><![CDATA[a>b{c:url("cd?a&b")}]]></style><p style="background:url(s.png)">x</p><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><style>@import 'i.css';</style><image href="i.png"/><use xlink:href="u.svg#x"/></svg><math xmlns="http://www.w3.org/1998/Math/MathML"><mi href="m.html">x</mi></math></div></content></entry></feed>"#;
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let found: Vec<_> = done
        .links
        .iter()
        .map(|l| {
            (
                l.element.as_str(),
                l.attribute.as_deref(),
                l.original.as_str(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("style", None, "bg.png"),
            ("style", None, "q?a&b"),
            ("style", None, "cd?a&b"),
            ("p", Some("style"), "s.png"),
            ("style", None, "i.css"),
            ("image", Some("href"), "i.png"),
            ("use", Some("xlink:href"), "u.svg#x"),
            ("mi", Some("href"), "m.html"),
        ]
    );
    // Each offset is the value's in the feed (a CSS string's, its quote included; a
    // `style` attribute's is the attribute value's, as in HTML).
    for link in done
        .links
        .iter()
        .filter(|l| l.attribute.as_deref() != Some("style"))
    {
        let at = link.offset as usize;
        let value = feed[at..].strip_prefix(b"\"").unwrap_or(&feed[at..]);
        let value = value.strip_prefix(b"'").unwrap_or(value);
        assert!(
            value.starts_with(&link.original.as_bytes()[..2]),
            "{link:?}"
        );
    }
    let dir = "http://feeds.example.com/dir/";
    let expected = String::from_utf8(feed.to_vec())
        .unwrap()
        .replace("url(bg.png)", &format!("url({dir}bg.png)"))
        .replace(r#"url("q?a&amp;b")"#, &format!(r#"url("{dir}q?a&amp;b")"#))
        .replace(r#"url("cd?a&b")"#, &format!(r#"url("{dir}cd?a&b")"#))
        .replace("url(s.png)", &format!("url({dir}s.png)"))
        .replace("'i.css'", &format!("'{dir}i.css'"))
        .replace(r#""i.png""#, &format!(r#""{dir}i.png""#))
        .replace(r#""u.svg#x""#, &format!(r#""{dir}u.svg#x""#))
        .replace(r#""m.html""#, &format!(r#""{dir}m.html""#));
    assert_eq!(String::from_utf8(done.output.clone()).unwrap(), expected);
    let again = feed::rewrite(&done.output, &base(), &Options::default(), None);
    assert_eq!(again.output, done.output);
    let listed = feed::links(feed, &base(), &Options::default(), None);
    assert_eq!(listed.links, done.links);
}

/// In escaped HTML only the URL values change: the text between two changed URLs keeps
/// its references and its plain `>` and quotes as written (it was written anew, escaped
/// by the majority's habit: `&#39;` became `'`, `>` became `&gt;`).
#[test]
fn escaped_html_between_changed_urls_keeps_its_bytes() {
    let feed = br#"<rss version="2.0"><channel><item><description>&lt;a href="a.html"&gt;It&#39;s &quot;here&quot; &amp; > there&lt;/a&gt;&#60;img src='b.png'&gt;</description></item></channel></rss>"#;
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let dir = "http://feeds.example.com/dir/";
    let expected = String::from_utf8(feed.to_vec())
        .unwrap()
        .replace("\"a.html\"", &format!("\"{dir}a.html\""))
        .replace("'b.png'", &format!("'{dir}b.png'"));
    assert_eq!(String::from_utf8(done.output).unwrap(), expected);
}

/// Escaped HTML that refers to entities the DOCTYPE declares: those between URLs are kept
/// as written, and a URL that uses one is left as written and not listed, with a warning
/// naming the entity (`&site;pic.png` became `http://…/dir/&amp;amp;site;pic.png`, and
/// `&copy;` between two changed URLs `&amp;copy;`). So is the CSS of an XHTML `<style>`.
#[test]
fn escaped_html_with_declared_entities_is_never_destroyed() {
    let feed = br#"<!DOCTYPE rss [<!ENTITY site "http://cdn.example/"><!ENTITY copy "(c)">]><rss version="2.0"><channel><item><description>&lt;a href="a.html"&gt;&copy;&lt;/a&gt;&lt;img src="&site;pic.png"&gt;&copy; &lt;a href="b.html"&gt;</description></item></channel></rss>"#;
    let site = feed.windows(6).position(|w| w == b"&site;").unwrap() as u64;
    let dir = "http://feeds.example.com/dir/";
    for done in [
        feed::rewrite(feed, &base(), &Options::default(), None),
        feed::links(feed, &base(), &Options::default(), None),
    ] {
        let links: Vec<_> = done.links.iter().map(|l| l.original.as_str()).collect();
        assert_eq!(links, ["a.html", "b.html"]);
        assert_eq!(
            feed_warnings(&done.warnings),
            [
                Warning::EntityDeclarations { offset: 0 },
                Warning::Entity {
                    offset: site,
                    reason: "site".into()
                }
            ]
        );
    }
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let expected = String::from_utf8(feed.to_vec())
        .unwrap()
        .replace("\"a.html\"", &format!("\"{dir}a.html\""))
        .replace("\"b.html\"", &format!("\"{dir}b.html\""));
    assert_eq!(String::from_utf8(done.output).unwrap(), expected);

    let xhtml = br#"<!DOCTYPE feed [<!ENTITY site "http://cdn.example/">]><feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><style>a{b:url(&site;x.png)}</style></div></content></entry></feed>"#;
    let done = feed::rewrite(xhtml, &base(), &Options::default(), None);
    assert_eq!(done.output, xhtml);
    assert!(done.links.is_empty(), "{:?}", done.links);
    assert_eq!(feed_warnings(&done.warnings).len(), 2);
}

/// A comment or processing instruction inside a URL element's text is no part of the URL
/// (XML 1.0 §2.5, §2.6: the text of `<link>/a<!-- c -->/b</link>` is `/a/b`): the text is
/// resolved and the comment kept in the resolved URL, between the bytes it stood between,
/// as in HTML content. The element was left as written, its URL unresolved, with a
/// warning. One around the URL stays where it is. Only where no place can be told (a
/// multi-byte charset other than UTF-8) is the element left as written, with a warning.
#[test]
fn comments_inside_url_elements_are_kept_in_the_resolved_url() {
    let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom"><icon>i/<!-- c -->i.png</icon><logo><!-- before -->l.png<?pi x?></logo><author><uri>u<?pi x?>.html</uri></author></feed>"#;
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let dir = "http://feeds.example.com/dir/";
    let expected = String::from_utf8(feed.to_vec())
        .unwrap()
        .replace(">i/<!--", &format!(">{dir}i/<!--"))
        .replace("-->l.png", &format!("-->{dir}l.png"))
        .replace(">u<?pi", &format!(">{dir}u<?pi"));
    assert_eq!(String::from_utf8(done.output.clone()).unwrap(), expected);
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    let resolved: Vec<_> = done.links.iter().map(|l| l.resolved.clone()).collect();
    assert_eq!(
        resolved,
        [
            format!("{dir}i/i.png"),
            format!("{dir}l.png"),
            format!("{dir}u.html")
        ]
    );
    let again = feed::rewrite(&done.output, &base(), &Options::default(), None);
    assert_eq!(again.output, done.output);

    let rss = br#"<rss version="2.0"><channel><link>/a<!-- c -->/b</link><item><link><![CDATA[x]]><!-- c -->y.html</link><comments>a b<!-- c -->c d.html</comments></item></channel></rss>"#;
    for chunk in [1, 7, rss.len()] {
        let done = in_chunks_with(rss, chunk, &Options::default());
        let expected = String::from_utf8(rss.to_vec())
            .unwrap()
            .replace(">/a<!--", ">http://feeds.example.com/a<!--")
            .replace("[x]]>", &format!("[]]>{dir}x"))
            .replace("a b<!-- c -->c d", &format!("{dir}a%20b<!-- c -->c%20d"));
        assert_eq!(String::from_utf8(done.output).unwrap(), expected);
        assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    }

    let sjis = br#"<?xml version="1.0" encoding="Shift_JIS"?><rss version="2.0"><channel><link>a b<!-- c -->c d.html</link></channel></rss>"#;
    let done = feed::rewrite(sjis, &base(), &Options::default(), None);
    assert_eq!(done.output, sjis);
    let comment = sjis.windows(4).position(|w| w == b"<!--").unwrap() as u64;
    assert_eq!(
        feed_warnings(&done.warnings),
        [Warning::MarkupInUrl {
            offset: comment,
            element: "link".into()
        }]
    );
    assert_eq!(done.links[0].resolved, "a bc d.html");
}

/// By the URL Standard an `xml:base` the URL parser rejects gives no base: the parent's
/// applies, with a warning naming the value and its offset (it was taken as the base, and
/// every URL under it was left relative, silently).
#[test]
fn an_xml_base_the_url_standard_rejects_falls_back_to_the_parents() {
    let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom"><entry xml:base="http://[bad/d/"><icon>i.png</icon></entry><entry xml:base="http://x:99999/"><icon>j.png</icon></entry></feed>"#;
    let options = Options {
        standard: absolve::Standard::Whatwg,
        ..Options::default()
    };
    let done = feed::rewrite(feed, &base(), &options, None);
    let resolved: Vec<_> = done.links.iter().map(|l| l.resolved.as_str()).collect();
    let dir = "http://feeds.example.com/dir/";
    assert_eq!(resolved, [format!("{dir}i.png"), format!("{dir}j.png")]);
    let at = |s: &str| {
        feed.windows(s.len())
            .position(|w| w == s.as_bytes())
            .unwrap() as u64
    };
    assert_eq!(
        feed_warnings(&done.warnings),
        [
            Warning::UnusableBase {
                offset: at("http://[bad"),
                value: "http://[bad/d/".into()
            },
            Warning::UnusableBase {
                offset: at("http://x:99999"),
                value: "http://x:99999/".into()
            }
        ]
    );
}

/// A feed's URL is resolved by the HTML rewriter's own function, so a URL resolves the
/// same in a feed element and in the HTML inside: whitespace read as the URL parser
/// reads it (around it and tabs or newlines inside, by every standard), and by the URL
/// Standard the query in the feed's charset and a URL it rejects warned about. The feed
/// had its own copy: under `--spec whatwg` a windows-1251 `<link>?q=тест` gave
/// `?q=%D1%82%D0%B5%D1%81%D1%82` (UTF-8) where the same `<a href>` in its description
/// gave `?q=%F2%E5%F1%F2`, and `<link>http://[::1</link>` was left without a word.
#[test]
fn a_feed_url_resolves_as_the_same_url_in_its_html() {
    let pairs = [
        ("\n  http://a/b\t", "http://a/b"),
        (" x\ty ", "http://feeds.example.com/dir/xy"),
        ("?q=\u{442}\u{435}\u{441}\u{442}", ""),
        ("http://[::1", "http://[::1"),
    ];
    let mut feed = String::from(
        "<?xml version=\"1.0\" encoding=\"windows-1251\"?><rss version=\"2.0\"><channel>",
    );
    for (url, _) in pairs {
        feed += &format!(
            "<item><link>{url}</link><description>&lt;a href=\"{url}\"&gt;x&lt;/a&gt;</description></item>"
        );
    }
    feed += "</channel></rss>";
    let (feed, _, _) = encoding_rs::WINDOWS_1251.encode(&feed);
    for standard in [
        absolve::Standard::Rfc1808,
        absolve::Standard::Rfc3986,
        absolve::Standard::Whatwg,
    ] {
        let options = Options {
            standard,
            ..Options::default()
        };
        let done = in_chunks_with(&feed, feed.len(), &options);
        let resolved: Vec<_> = done.links.iter().map(|l| l.resolved.as_str()).collect();
        let (in_feed, in_html): (Vec<_>, Vec<_>) = resolved.chunks(2).map(|p| (p[0], p[1])).unzip();
        assert_eq!(in_feed, in_html, "{standard:?}");
        assert_eq!(in_feed[..2], [pairs[0].1, pairs[1].1], "{standard:?}");
        if standard == absolve::Standard::Whatwg {
            assert_eq!(
                in_feed[2],
                "http://feeds.example.com/dir/feed.xml?q=%F2%E5%F1%F2"
            );
            let rejected = feed_warnings(&done.warnings);
            assert!(
                matches!(&rejected[..], [Warning::Unparsable { reference, .. }] if reference == "http://[::1"),
                "{rejected:?}"
            );
            assert_eq!(html_warnings(&done.warnings).len(), 1);
        }
    }
}

/// `base_from` names the innermost base that applied: an `xml:base` whose value resolves
/// to its parent's base (the same URL, a relative URL naming it, `xml:base=""`) is still
/// the element's base (XML Base §4.2), and its links say `xml-base`. They said
/// `retrieval-url`, as if no `xml:base` were there.
#[test]
fn an_xml_base_equal_to_the_outer_base_is_reported_as_xml_base() {
    let feed = format!(
        r#"<feed xmlns="http://www.w3.org/2005/Atom"><icon>a.png</icon><entry xml:base="{URL}"><icon>b.png</icon></entry><entry xml:base="feed.xml"><icon>c.png</icon></entry><entry xml:base=""><icon>d.png</icon></entry></feed>"#
    );
    let done = feed::rewrite(feed.as_bytes(), &base(), &Options::default(), None);
    let found: Vec<_> = done
        .links
        .iter()
        .map(|l| (l.base.as_deref(), l.base_from))
        .collect();
    use absolve::base::BaseSource::{RetrievalUrl, XmlBase};
    assert_eq!(
        found,
        [
            (Some(URL), RetrievalUrl),
            (Some(URL), XmlBase),
            (Some(URL), XmlBase),
            (Some(URL), XmlBase),
        ]
    );
}

/// A comment or processing instruction inside HTML content is no part of the HTML, and is
/// kept where a changed value falls around it: between the bytes of the new value that
/// match those it stood between (it was deleted with the old bytes: in a URL whose
/// percent-encoding changes, between two CSS rules or two `srcset` candidates whose URLs
/// change, escaped or in an XHTML `<style>`), and once only where bytes are inserted
/// right after it (it was written twice).
#[test]
fn comments_inside_changed_html_values_are_kept_in_place() {
    let dir = "http://feeds.example.com/dir/";
    let atom = |content: &str| {
        format!(r#"<feed xmlns="http://www.w3.org/2005/Atom"><entry>{content}</entry></feed>"#)
    };
    for (content, expected) in [
        (
            r#"<content type="html">&lt;a href="a b<!-- c -->c d.html"&gt;x&lt;/a&gt;</content>"#,
            format!(
                r#"<content type="html">&lt;a href="{dir}a%20b<!-- c -->c%20d.html"&gt;x&lt;/a&gt;</content>"#
            ),
        ),
        (
            r#"<content type="html">&lt;style&gt;a{b:url(x.png)}<!-- c -->p{c:url(y.png)}&lt;/style&gt;</content>"#,
            format!(
                r#"<content type="html">&lt;style&gt;a{{b:url({dir}x.png)}}<!-- c -->p{{c:url({dir}y.png)}}&lt;/style&gt;</content>"#
            ),
        ),
        (
            r#"<content type="html">&lt;img srcset="a.png 1x,<?pi x?> b.png 2x"&gt;</content>"#,
            format!(
                r#"<content type="html">&lt;img srcset="{dir}a.png 1x,<?pi x?> {dir}b.png 2x"&gt;</content>"#
            ),
        ),
        (
            r#"<content type="html">&lt;a href="<!-- c -->a.png"&gt;</content>"#,
            format!(r#"<content type="html">&lt;a href="<!-- c -->{dir}a.png"&gt;</content>"#),
        ),
        (
            r#"<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><style>a{b:url(x.png)}<!-- c -->p{c:url(y.png)}</style></div></content>"#,
            format!(
                r#"<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><style>a{{b:url({dir}x.png)}}<!-- c -->p{{c:url({dir}y.png)}}</style></div></content>"#
            ),
        ),
    ] {
        let feed = atom(content);
        let done = feed::rewrite(feed.as_bytes(), &base(), &Options::default(), None);
        assert_eq!(
            String::from_utf8(done.output.clone()).unwrap(),
            atom(&expected)
        );
        assert!(done.warnings.is_empty(), "{:?}", done.warnings);
        let again = feed::rewrite(&done.output, &base(), &Options::default(), None);
        assert_eq!(again.output, done.output);
    }
}

/// In a multi-byte charset other than UTF-8 (Shift_JIS), where a character's second byte
/// may be ASCII, no place in a new value can be told for a comment: the value is left as
/// written and listed so, with a warning (the comment was deleted).
#[test]
fn a_comment_without_a_place_leaves_its_value_as_written() {
    let feed = br#"<?xml version="1.0" encoding="Shift_JIS"?><rss version="2.0"><channel><item><description>&lt;a href="a b<!-- c -->c d.html"&gt;x&lt;/a&gt;&lt;img src="i.png"&gt;</description></item></channel></rss>"#;
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let expected = String::from_utf8(feed.to_vec())
        .unwrap()
        .replace("\"i.png\"", "\"http://feeds.example.com/dir/i.png\"");
    assert_eq!(String::from_utf8(done.output).unwrap(), expected);
    let resolved: Vec<_> = done.links.iter().map(|l| l.resolved.as_str()).collect();
    assert_eq!(
        resolved,
        ["a bc d.html", "http://feeds.example.com/dir/i.png"]
    );
    let comment = feed.windows(4).position(|w| w == b"<!--").unwrap() as u64;
    assert_eq!(
        feed_warnings(&done.warnings),
        [Warning::MarkupInHtmlValue {
            offset: comment,
            element: "description".into()
        }]
    );
}

/// A reference to an entity that is not expanded (`&nbsp;`, which no DOCTYPE declares) in
/// an XHTML `<style>` is kept as written, and only a URL that holds one is left as
/// written: the `url()`s around it are rewritten and listed (the whole `<style>` was left
/// as written, none of its links listed).
#[test]
fn an_entity_in_an_xhtml_style_leaves_the_urls_around_it_rewritten() {
    let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><style>a{b:url(x.png)} p::before{content:"&nbsp;"} q{c:url(y&nbsp;.png)} r{d:url(z.png)}</style></div></content></entry></feed>"#;
    let dir = "http://feeds.example.com/dir/";
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let expected = String::from_utf8(feed.to_vec())
        .unwrap()
        .replace("url(x.png)", &format!("url({dir}x.png)"))
        .replace("url(z.png)", &format!("url({dir}z.png)"));
    assert_eq!(String::from_utf8(done.output).unwrap(), expected);
    let resolved: Vec<_> = done.links.iter().map(|l| l.resolved.clone()).collect();
    assert_eq!(resolved, [format!("{dir}x.png"), format!("{dir}z.png")]);
    let nbsp = feed.windows(10).position(|w| w == b"y&nbsp;.pn").unwrap() as u64 + 1;
    assert_eq!(
        feed_warnings(&done.warnings),
        [Warning::Entity {
            offset: nbsp,
            reason: "nbsp".into()
        }]
    );
}

/// quick-xml ends a DOCTYPE where its `<` and `>` balance (tafia/quick-xml#258): a `>` in
/// a comment or a quoted entity value of the internal subset ended it early, and the
/// rest of the subset was read as the document (malformed: the feed passed through, none
/// of its links found; as a file it was not even told to be a feed), a `<` in one kept it
/// open to the end. The DOCTYPE now ends where XML 1.0 §2.8 says, at every chunk size;
/// one the feed ends inside is a warning, every byte kept.
#[test]
fn a_doctype_ends_at_its_own_end_whatever_its_subset_holds() {
    let dir = "http://feeds.example.com/dir/";
    for prolog in [
        r#"<?xml version="1.0"?><!DOCTYPE rss [ <!-- a > b --> <!ENTITY x "a>b"> ]>"#,
        r#"<!DOCTYPE rss [ <!ENTITY x "a<b"> <?pi <?> ]>"#,
        r#"<!DOCTYPE rss PUBLIC "-//x//DTD y>//EN" 'http://h/r.dtd' [ <!ATTLIST a b CDATA '>]'> ]>"#,
    ] {
        let feed = format!(
            r#"{prolog}<rss version="2.0"><channel><link>home.html</link></channel></rss>"#
        );
        assert!(feed::is_feed(feed.as_bytes()), "{prolog}");
        let expected = feed.replace(">home.html<", &format!(">{dir}home.html<"));
        for chunk in [1, 7, feed.len()] {
            let done = in_chunks_with(feed.as_bytes(), chunk, &Options::default());
            assert_eq!(
                String::from_utf8(done.output).unwrap(),
                expected,
                "{prolog}"
            );
            assert!(
                feed_warnings(&done.warnings)
                    .iter()
                    .all(|w| matches!(w, Warning::EntityDeclarations { .. })),
                "{:?}",
                done.warnings
            );
        }
    }
    let cut = br#"<!DOCTYPE rss [ <!-- a > b --> <rss version="2.0"><channel><link>a</link>"#;
    let (output, warnings) = in_chunks(cut, 5);
    assert_eq!(output, cut);
    assert!(
        matches!(&warnings[..], [Warning::Malformed { offset: 0, reason }] if reason.contains("DOCTYPE")),
        "{warnings:?}"
    );
}

/// An `xml:base` is stripped of XML's whitespace around it (XML 1.0 §2.3 S: space, tab,
/// carriage return, line feed), as an HTML `<base href>` of ASCII whitespace; a no-break
/// space or an ideographic space is part of the value, by every standard (it was trimmed
/// as Unicode whitespace, so `xml:base="&#xA0;sub/"` was read as `sub/`).
#[test]
fn xml_base_is_trimmed_of_xml_whitespace_only() {
    let feed = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry xml:base=\" &#9;&#10;&#13;http://x/d/ \n\"><icon>i.png</icon></entry><entry xml:base=\"\u{a0}sub/\"><icon>j.png</icon></entry><entry xml:base=\"\u{3000}http://y/\"><icon>k.png</icon></entry></feed>";
    for (standard, expected) in [
        (
            absolve::Standard::Rfc1808,
            [
                "http://x/d/i.png",
                "http://feeds.example.com/dir/\u{a0}sub/j.png",
                "http://feeds.example.com/dir/\u{3000}http://y/k.png",
            ],
        ),
        (
            absolve::Standard::Whatwg,
            [
                "http://x/d/i.png",
                "http://feeds.example.com/dir/%C2%A0sub/j.png",
                "http://feeds.example.com/dir/%E3%80%80http://y/k.png",
            ],
        ),
    ] {
        let options = Options {
            standard,
            ..Options::default()
        };
        let done = feed::rewrite(feed.as_bytes(), &base(), &options, None);
        let resolved: Vec<_> = done.links.iter().map(|l| l.resolved.as_str()).collect();
        assert_eq!(resolved, expected, "{standard:?}");
    }
}

/// Atom 0.3 base64 content of an HTML type (draft-nottingham-atom-format-02 §3.1.2,
/// `mode="base64"`): its HTML is decoded, rewritten and encoded again in the original's
/// layout (here CRLF lines of 40 characters, indented), its links listed at the
/// content's start. It was read as plain text: its links were neither rewritten nor
/// listed. Base64 of `text/plain` holds no URL and is left as it is.
#[test]
fn base64_html_content_is_decoded_rewritten_and_encoded_again() {
    use absolve::mime::transfer::{TransferEncoding, decode};
    let html =
        b"<p>Some words to make it long enough for three lines.</p><a href=\"../post.html\">on</a>";
    let encoded = encode_base64(html);
    let lines: Vec<&str> = encoded
        .as_bytes()
        .chunks(40)
        .map(|line| std::str::from_utf8(line).unwrap())
        .collect();
    let content = format!("\r\n      {}\r\n    ", lines.join("\r\n      "));
    let plain = encode_base64(b"<a href=\"plain.html\">");
    let feed = format!(
        "<feed version=\"0.3\" xmlns=\"http://purl.org/atom/ns#\">\r\n  <info type=\"text/plain\" mode=\"base64\">{plain}</info>\r\n  <entry>\r\n    <content type=\"text/html\" mode=\"base64\">{content}</content>\r\n  </entry>\r\n</feed>\r\n"
    );
    let start = feed.find(&content).unwrap();
    let done = feed::rewrite(feed.as_bytes(), &base(), &Options::default(), None);
    let links: Vec<_> = done
        .links
        .iter()
        .map(|l| (l.element.as_str(), l.resolved.as_str(), l.offset))
        .collect();
    assert_eq!(
        links,
        [("a", "http://feeds.example.com/post.html", start as u64)]
    );
    assert!(feed_warnings(&done.warnings).is_empty());
    let output = String::from_utf8(done.output.clone()).unwrap();
    let (head, rest) = output.split_at(start);
    assert_eq!(head, &feed[..start]);
    let end = rest.find("</content>").unwrap();
    assert_eq!(&rest[end..], &feed[start + content.len()..]);
    let new = &rest[..end];
    assert!(
        new.starts_with("\r\n      ") && new.ends_with("\r\n    "),
        "{new:?}"
    );
    let new_lines: Vec<&str> = new.trim().split("\r\n      ").collect();
    for line in &new_lines {
        assert!(
            line.len() <= 40 && !line.contains(['\r', '\n', ' ']),
            "{line:?}"
        );
    }
    assert!(new_lines.len() > lines.len(), "{new_lines:?}");
    let decoded = decode(new.as_bytes(), TransferEncoding::Base64).unwrap();
    assert_eq!(
        decoded.as_ref(),
        String::from_utf8_lossy(html)
            .replace("../post.html", "http://feeds.example.com/post.html")
            .as_bytes()
    );
    for chunk in [1, 7] {
        assert_eq!(
            in_chunks(feed.as_bytes(), chunk).0,
            done.output,
            "chunks of {chunk}"
        );
    }
    let again = feed::rewrite(&done.output, &base(), &Options::default(), None);
    assert_eq!(again.output, done.output);
}

/// Base64 (RFC 2045 §6.8 alphabet, no line width) of `bytes`.
fn encode_base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// An unprefixed `<body>` (XHTML, as `xhtml:body`) and a `<fullitem>` (escaped HTML, as
/// `content:encoded`): content as feedparser reads them (its `_start_body` and
/// `_start_fullitem`), in an item or in the channel. They were passed over: their links
/// were neither rewritten nor listed (feedparser's wellformed/base/http_item_body_* and
/// http_item_fullitem_* failed the relocation test). A `<body>` in another namespace, or
/// under another parent (an HTML page's), is no content.
#[test]
fn rss_body_and_fullitem_are_content() {
    let feed = br#"<rss version="2.0"><channel><fullitem>&lt;a href="f.html"&gt;</fullitem><item><body><a href="/relative/uri">click</a><img src="i.png"/></body><fullitem>&lt;a href="/full"&gt;x&lt;/a></fullitem><x:body xmlns:x="urn:other"><a href="o.html"/></x:body><other><body><a href="o.html"/></body></other></item></channel></rss>"#;
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let links: Vec<_> = done
        .links
        .iter()
        .map(|l| (l.element.as_str(), l.original.as_str()))
        .collect();
    assert_eq!(
        links,
        [
            ("a", "f.html"),
            ("a", "/relative/uri"),
            ("img", "i.png"),
            ("a", "/full")
        ]
    );
    let expected = String::from_utf8(feed.to_vec())
        .unwrap()
        .replace("\"f.html\"", "\"http://feeds.example.com/dir/f.html\"")
        .replace(
            "\"/relative/uri\"",
            "\"http://feeds.example.com/relative/uri\"",
        )
        .replace("\"i.png\"", "\"http://feeds.example.com/dir/i.png\"")
        .replace("\"/full\"", "\"http://feeds.example.com/full\"");
    assert_eq!(String::from_utf8(done.output).unwrap(), expected);
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
}

/// Only an entity declaration of the DOCTYPE's internal subset is warned of: `<!ENTITY`
/// in a comment, a processing instruction or a quoted literal of the subset declares
/// nothing (XML 1.0 §2.8 \[28b\], §2.5), and the links are rewritten without a word (any
/// `<!ENTITY` in the DOCTYPE's bytes gave the warning "declares entities"). A real
/// declaration after a comment still warns.
#[test]
fn entity_words_in_a_doctype_comment_or_literal_declare_nothing() {
    let dir = "http://feeds.example.com/dir/";
    let feed = |prolog: &str| {
        format!(r#"{prolog}<rss version="2.0"><channel><link>home.html</link></channel></rss>"#)
    };
    for prolog in [
        r#"<!DOCTYPE rss [ <!-- <!ENTITY x "y"> --> ]>"#,
        r#"<!DOCTYPE rss [ <?pi <!ENTITY x "y"> ?> <!ATTLIST rss a CDATA "<!ENTITY z 'y'>"> ]>"#,
    ] {
        let feed = feed(prolog);
        for chunk in [1, 7, feed.len()] {
            let done = in_chunks_with(feed.as_bytes(), chunk, &Options::default());
            let expected = feed.replace(">home.html<", &format!(">{dir}home.html<"));
            assert_eq!(String::from_utf8(done.output).unwrap(), expected);
            assert!(done.warnings.is_empty(), "{prolog}: {:?}", done.warnings);
        }
    }
    let declared = feed(r#"<!DOCTYPE rss [ <!-- <!ENTITY x "y"> --> <!ENTITY z "y"> ]>"#);
    let done = feed::rewrite(declared.as_bytes(), &base(), &Options::default(), None);
    assert_eq!(
        feed_warnings(&done.warnings),
        [Warning::EntityDeclarations { offset: 0 }]
    );
}

/// Escaped HTML whose `<style>` sits beside a reference to an entity the DOCTYPE declares
/// (not expanded): every `url()` of the style and every URL of the rest of the HTML is
/// rewritten and listed, the reference passes through as written, and only a URL that
/// holds one is left as written, with a warning naming the entity. The whole `<style>`
/// was one change, dropped for the reference in it: its URLs were left relative and not
/// listed, only the `<img>` rewritten.
#[test]
fn an_entity_beside_an_escaped_style_leaves_its_urls_rewritten() {
    let dir = "http://feeds.example.com/dir/";
    let rss = br#"<!DOCTYPE rss [<!ENTITY custom "X">]><rss version="2.0"><channel><item><description>&lt;style&gt;a{b:url(a.png)} &custom; p{c:url(b.png)} q{d:url(y&custom;.png)} r{e:url(c.png)}&lt;/style&gt;&lt;p&gt;&custom;&lt;/p&gt;&lt;img src="i.png"&gt;</description></item></channel></rss>"#;
    let done = feed::rewrite(rss, &base(), &Options::default(), None);
    let expected = String::from_utf8(rss.to_vec())
        .unwrap()
        .replace("url(a.png)", &format!("url({dir}a.png)"))
        .replace("url(b.png)", &format!("url({dir}b.png)"))
        .replace("url(c.png)", &format!("url({dir}c.png)"))
        .replace("\"i.png\"", &format!("\"{dir}i.png\""));
    assert_eq!(String::from_utf8(done.output.clone()).unwrap(), expected);
    let resolved: Vec<_> = done.links.iter().map(|l| l.resolved.clone()).collect();
    assert_eq!(
        resolved,
        ["a.png", "b.png", "c.png", "i.png"].map(|f| format!("{dir}{f}"))
    );
    let in_url = rss.windows(9).position(|w| w == b"y&custom;").unwrap() as u64 + 1;
    assert_eq!(
        feed_warnings(&done.warnings),
        [
            Warning::EntityDeclarations { offset: 0 },
            Warning::Entity {
                offset: in_url,
                reason: "custom".into()
            }
        ]
    );
    let again = feed::rewrite(&done.output, &base(), &Options::default(), None);
    assert_eq!(again.output, done.output);

    let atom = br#"<!DOCTYPE feed [<!ENTITY custom "X">]><feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="html">&lt;p&gt;&custom;&lt;/p&gt;&lt;style&gt;a{b:url(a.png)} p{c:url(b.png)}&lt;/style&gt;&lt;a href="h.html"&gt;x&lt;/a&gt;</content></entry></feed>"#;
    for chunk in [1, 7, atom.len()] {
        let done = in_chunks_with(atom, chunk, &Options::default());
        let expected = String::from_utf8(atom.to_vec())
            .unwrap()
            .replace("url(a.png)", &format!("url({dir}a.png)"))
            .replace("url(b.png)", &format!("url({dir}b.png)"))
            .replace("\"h.html\"", &format!("\"{dir}h.html\""));
        assert_eq!(String::from_utf8(done.output).unwrap(), expected);
        assert_eq!(done.links.len(), 3);
    }
}

/// Input that is not well-formed XML inside a value passes through as written, with a
/// warning naming its offset: a `&` that starts no reference (XML 1.0 §4.1, §2.4: a
/// literal `&` is written `&amp;`; quick-xml hands a bare one over as text) and a `<` in
/// an attribute value (§3.1 WFC: No < in Attribute Values). A URL element's text and an
/// attribute value holding one were resolved as if it were a literal and written back
/// escaped (`a&b.html` became `http://…/a&amp;b.html`, `q<r.mp3` `http://…/q&lt;r.mp3`),
/// and a changed HTML value in escaped content the same way, without a word: damaged
/// bytes changed silently. The URLs around them are rewritten as before.
#[test]
fn malformed_values_are_left_as_written_with_a_warning() {
    let feed = br#"<rss version="2.0"><channel><link>a&b.html</link><comments>c&#nk>d</comments><docs>ok.html</docs><item><enclosure url="q<r.mp3"/><source url="s.xml">s</source><description>&lt;a href="h&i.html"&gt;&lt;img src="i.png"&gt;</description></item></channel></rss>"#;
    let at = |needle: &[u8]| {
        feed.windows(needle.len())
            .position(|w| w == needle)
            .unwrap() as u64
    };
    let dir = "http://feeds.example.com/dir/";
    let expected = String::from_utf8(feed.to_vec())
        .unwrap()
        .replace(">ok.html<", &format!(">{dir}ok.html<"))
        .replace("\"s.xml\"", &format!("\"{dir}s.xml\""))
        .replace("\"i.png\"", &format!("\"{dir}i.png\""));
    for chunk in [feed.len(), 7, 1] {
        let (output, warnings) = in_chunks(feed, chunk);
        assert_eq!(
            String::from_utf8(output).unwrap(),
            expected,
            "chunk {chunk}"
        );
        let offsets: Vec<u64> = warnings
            .iter()
            .map(|w| match w {
                Warning::NotWellFormed { offset, .. } => *offset,
                other => panic!("chunk {chunk}: {other}"),
            })
            .collect();
        let amp =
            |needle: &[u8]| at(needle) + needle.iter().position(|&b| b == b'&').unwrap() as u64;
        assert_eq!(
            offsets,
            [amp(b"a&b"), amp(b"c&#nk"), at(b"q<r") + 1, amp(b"h&i")],
            "chunk {chunk}"
        );
    }
    let done = feed::links(feed, &base(), &Options::default(), None);
    let links: Vec<_> = done.links.iter().map(|l| l.original.as_str()).collect();
    assert_eq!(links, ["ok.html", "s.xml", "i.png"]);
}

/// A DOCTYPE inside an element is not well-formed (XML 1.0 §2.8: it belongs in the
/// prolog). Inside a URL element's text (`<uri>x<!DOCTYPE x>/../y.html</uri>`) it was
/// read as a DOCTYPE, no part of the text, and deleted when the resolved URL was written
/// back, without a word. Now it is malformed XML: a warning at its offset, and it and the
/// rest pass through unchanged.
#[test]
fn a_doctype_inside_an_element_is_never_deleted() {
    let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom"><link href="a.html"/><author><uri>x<!DOCTYPE x>/../y.html</uri></author><icon>i.png</icon></feed>"#;
    let at = feed.windows(9).position(|w| w == b"<!DOCTYPE").unwrap() as u64;
    let expected = String::from_utf8(feed.to_vec())
        .unwrap()
        .replace("\"a.html\"", "\"http://feeds.example.com/dir/a.html\"");
    for chunk in [feed.len(), 5, 1] {
        let (output, warnings) = in_chunks(feed, chunk);
        assert_eq!(
            String::from_utf8(output).unwrap(),
            expected,
            "chunk {chunk}"
        );
        assert!(
            matches!(&warnings[..], [Warning::Malformed { offset, .. }] if *offset == at),
            "chunk {chunk}: {warnings:?}"
        );
    }
}

/// Namespaces in XML 1.0 §3: a declaration's namespace name is the attribute's normalized
/// value, its character and entity references read. A feed whose `xmlns` was written
/// with references (`&#x2F;`, `&#116;`, `&#35;`) was compared as written: not told a
/// feed, and none of its links found.
#[test]
fn namespace_declarations_written_with_references_name_their_namespace() {
    let atom = br#"<feed xmlns="http:&#x2F;&#x2F;www.w3.org&#x2F;2005&#x2F;Atom"><icon>i.png</icon><content type="&#104;tml">&lt;img src="c.png"&gt;</content></feed>"#;
    let prefixed = br#"<a:feed xmlns:a="http://www.w3.org/2005/A&#116;om"><a:entry><a:link href="e.html"/></a:entry></a:feed>"#;
    let rdf = br#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns&#35;" xmlns="http://purl.org/rss/1.0&#x2F;"><item><link>r.html</link></item></rdf:RDF>"#;
    let rss = br#"<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:c="http://purl.org/rss/1.0/modules/content&#47;"><channel xml:base="http:&#x2F;/x.example&#x2F;d&amp;e/"><atom:link href="self.xml"/><item><c:encoded>&lt;a href="p.html"&gt;</c:encoded></item></channel></rss>"#;
    let cases: [(&[u8], &[&str]); 4] = [
        (
            atom,
            &[
                "http://feeds.example.com/dir/i.png",
                "http://feeds.example.com/dir/c.png",
            ],
        ),
        (prefixed, &["http://feeds.example.com/dir/e.html"]),
        (rdf, &["http://feeds.example.com/dir/r.html"]),
        (
            rss,
            &[
                "http://x.example/d&e/self.xml",
                "http://x.example/d&e/p.html",
            ],
        ),
    ];
    for (xml, expected) in cases {
        assert!(feed::is_feed(xml), "{}", String::from_utf8_lossy(xml));
        let done = feed::links(xml, &base(), &Options::default(), None);
        let resolved: Vec<&str> = done.links.iter().map(|l| l.resolved.as_str()).collect();
        assert_eq!(resolved, expected);
        assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    }
    // An entity the DOCTYPE declares is read in a namespace declaration (as expat, under
    // feedparser and browsers, reads it); an undeclared one, or an `&#x20;` (a space is
    // part of the name), names no namespace a feed's.
    assert!(feed::is_feed(
        br#"<!DOCTYPE feed [<!ENTITY a "Atom">]><feed xmlns="http://www.w3.org/2005/&a;">"#
    ));
    assert!(!feed::is_feed(
        br#"<!DOCTYPE feed [<!ENTITY b "Atom">]><feed xmlns="http://www.w3.org/2005/&a;">"#
    ));
    assert!(!feed::is_feed(
        br#"<feed xmlns="http://www.w3.org/2005/Atom&#x20;">"#
    ));
}

/// The [`Warning::IllFormed`] among `warnings`: (offset, reason).
fn ill_formed(warnings: &[Warning]) -> Vec<(u64, String)> {
    warnings
        .iter()
        .filter_map(|w| match w {
            Warning::IllFormed { offset, reason } => Some((*offset, reason.clone())),
            _ => None,
        })
        .collect()
}

/// XML that is not well-formed but leaves the rest readable passed through without a
/// word: junk after the root element (XML 1.0 §2.1), `]]>` in character data (§2.4), a
/// broken XML declaration (§2.8), bytes not valid in the charset (§4.3.3) in an element
/// that holds no URL. Each is now a warning naming its offset, once a feed for each kind,
/// the bytes left as written and the rest rewritten as before, at every chunk size.
#[test]
fn ill_formed_xml_that_leaves_the_rest_readable_is_said_once_a_kind() {
    let cases: [(&[u8], &[u8], &str); 11] = [
        // Its first attribute unreadable (the value unquoted).
        (
            b"<?xml version=1.0?><rss version='2.0'><channel><link>a</link></channel></rss>",
            b"<?xml", "an XML declaration that is not one",
        ),
        (
            b"<rss version='2.0'><channel><link>a</link></channel></rss>\n<!-- c -->junk<link>b</link> more",
            b"junk", "outside the root element",
        ),
        (
            b"<rss version='2.0'><channel><link>a</link></channel></rss><rss><channel><link>b</link></channel></rss>",
            b"<rss><", "outside the root element",
        ),
        (
            b"<rss version='2.0'><channel><title>a ]]> b ]]></title><link>a</link><description>x]]>y</description></channel></rss>",
            b"]]> b", "XML 1.0 §2.4",
        ),
        (
            b"<?xml version=\"1\x7F.0\"?><rss version='2.0'><channel><link>a</link></channel></rss>",
            b"<?xml", "version",
        ),
        (
            b"<rss version='2.0'><?xml version='1.0'?><channel><link>a</link><?xml version='1.0' encoding='a b'?></channel></rss>",
            b"<?xml", "not at the document's start",
        ),
        (
            b"<rss version='2.0'><channel><title>caf\xE9</title><guid>\xFF\xFE</guid><link>a</link></channel></rss>",
            b"\xE9", "not valid UTF-8",
        ),
        (
            b"<?xml version='1.0' encoding='Shift_JIS'?><rss><channel><title>\x93\xFA\xA0\x96\x7B</title><link>a</link></channel></rss>",
            b"\xA0", "not valid Shift_JIS",
        ),
        // A control character (XML 1.0 §2.2), in text or in a URL, once; tab, line feed
        // and carriage return are characters.
        (
            b"<rss version='2.0'>\t\r\n<channel><title>a\x01b\x02</title><link>a\x1Fd</link></channel></rss>",
            b"\x01", "U+0001",
        ),
        (
            b"<?xml version='1.0' encoding='windows-1252'?><rss><channel><title>\xE9\x00</title><link>a</link></channel></rss>",
            b"\x00", "U+0000",
        ),
        // A bad byte in a URL is told by its value's warning only; the next bad one (in
        // the title) is reported.
        (
            b"<rss version='2.0'><channel><link>a\xFF</link><title>\xC3</title><link>a</link></channel></rss>",
            b"\xC3", "not valid UTF-8",
        ),
    ];
    for (xml, at, words) in cases {
        let want = xml.windows(at.len()).position(|w| w == at).unwrap() as u64;
        let rewritten = feed::rewrite(xml, &base(), &Options::default(), None);
        for chunk in [xml.len(), 7, 1] {
            let (output, warnings) = in_chunks(xml, chunk);
            assert_eq!(output, rewritten.output, "chunk {chunk}");
            let found = ill_formed(&warnings);
            assert!(
                matches!(&found[..], [(offset, reason)] if *offset == want && reason.contains(words)),
                "chunk {chunk}: {}: {warnings:?}",
                String::from_utf8_lossy(xml)
            );
        }
        // The bad bytes are left as written; every URL is rewritten as it was before.
        assert!(rewritten.output.windows(at.len()).any(|w| w == at));
        let links: Vec<&str> = rewritten
            .links
            .iter()
            .map(|l| l.original.as_str())
            .collect();
        assert!(
            links.iter().all(|l| l.starts_with('a') || *l == "b"),
            "{links:?}"
        );
        assert!(!links.is_empty());
    }
    // Only the first of a kind: the junk after the root is said once, however much.
    let mut many = b"<feed xmlns='http://www.w3.org/2005/Atom'/>".to_vec();
    for _ in 0..1000 {
        many.extend(b"x<a/>]]>");
    }
    let done = feed::links(&many, &base(), &Options::default(), None);
    let warnings = feed_warnings(&done.warnings);
    assert_eq!(ill_formed(&warnings).len(), 2, "{warnings:?}");
    // A multi-byte sequence the end of the feed cuts.
    let (_, warnings) = in_chunks(
        b"<rss><channel><title>caf\xC3</title></channel></rss>\n\xC3",
        1,
    );
    assert_eq!(ill_formed(&warnings)[0].0, 21 + 3);
}

/// Well-formed feeds get no [`Warning::IllFormed`], at every chunk size: a full XML
/// declaration, whitespace, comments and processing instructions after the root, `]]`
/// and `]]&gt;` in text, `]]>` split between CDATA sections, multi-byte characters cut
/// between chunks, windows-1252 and Shift_JIS text, a BOM.
#[test]
fn well_formed_feeds_get_no_ill_formed_warning() {
    let feeds: [&[u8]; 5] = [
        b"<?xml version='1.0' encoding='UTF-8' standalone=\"yes\" ?>\n<rss version='2.0'><channel><title>a]] b] ]]&gt; caf\xC3\xA9 \xE6\x97\xA5\xF0\x9F\x98\x80</title><description><![CDATA[x]]]]><![CDATA[>]]></description><link>a</link></channel></rss>\n<!-- done -->\n<?pi x?>\n\n",
        b"\xEF\xBB\xBF<?xml version=\"1.10\"?><feed xmlns='http://www.w3.org/2005/Atom'><title>]]</title><icon>]</icon></feed>",
        b"<?xml version='1.0' encoding='windows-1252'?><rss><channel><title>caf\xE9 \x81</title></channel></rss>",
        b"<?xml version='1.0' encoding='Shift_JIS'?><rss><channel><title>\x93\xFA\x96\x7B \x95\x5C</title><link>\x95\x5C.html</link></channel></rss>",
        b"<rss version='2.0'><channel><link>a</link></channel></rss>",
    ];
    for xml in feeds {
        for chunk in [xml.len(), 3, 1] {
            let (_, warnings) = in_chunks(xml, chunk);
            assert!(
                warnings.is_empty(),
                "chunk {chunk}: {}: {warnings:?}",
                String::from_utf8_lossy(xml)
            );
        }
    }
}

/// A UTF-16 feed given with no format is told a feed by its root element, read in UTF-16
/// (it was read as HTML, where its `<link>` texts are no links: nothing listed, status 0).
#[test]
fn a_utf16_feed_is_detected_by_the_command_line() {
    let text = "<?xml version='1.0' encoding='UTF-16'?><rss version='2.0'><channel>\
        <link>/home</link><item><link>a.html</link></item></channel></rss>";
    let feed: Vec<u8> = std::iter::once('\u{FEFF}')
        .chain(text.chars())
        .collect::<String>()
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let out = crate::common::absolve(&["links", "--url", "http://h/d/feed.xml"], &feed);
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    assert_eq!(crate::common::stderr(&out), "");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.contains("\"resolved\":\"http://h/d/a.html\""),
        "{text}"
    );
}

/// An `xml-stylesheet` instruction (Associating Style Sheets with XML documents §2) in
/// the prolog names a style sheet by its `href`, resolved against the document's base,
/// never an element's `xml:base`; one after the root element is no instruction and is
/// left alone; pseudo-attributes that are not well-formed are said, left as written (a
/// browser reads no style sheet from them). The instruction was passed through relative:
/// a saved feed lost its XSLT.
#[test]
fn an_xml_stylesheet_instruction_is_resolved_against_the_document() {
    let feed = br#"<?xml-stylesheet type="text/xsl" href="s.xsl?a=1&amp;b=&quot;q&quot;"?><?xml-stylesheet href="x.css" type=text/css?><rss xml:base="http://other/"><channel><link>l</link></channel></rss><?xml-stylesheet href="after.css"?>"#;
    let second = 71;
    assert!(feed[second..].starts_with(b"<?xml-stylesheet href=\"x.css"));
    for chunk in [1, 5, feed.len()] {
        let done = in_chunks_with(feed, chunk, &Options::default());
        let dir = "http://feeds.example.com/dir/";
        let expected = String::from_utf8(feed.to_vec())
            .unwrap()
            .replace("\"s.xsl", &format!("\"{dir}s.xsl"))
            .replace("<link>l", "<link>http://other/l");
        assert_eq!(String::from_utf8(done.output).unwrap(), expected);
        let found: Vec<_> = done
            .links
            .iter()
            .map(|l| {
                (
                    l.element.as_str(),
                    l.attribute.as_deref(),
                    l.resolved.as_str(),
                )
            })
            .collect();
        let xsl = format!("{dir}s.xsl?a=1&b=\"q\"");
        assert_eq!(
            found,
            [
                ("xml-stylesheet", Some("href"), xsl.as_str()),
                ("link", None, "http://other/l")
            ]
        );
        assert_eq!(done.links[0].offset, 39);
        assert_eq!(
            done.links[0].base_from,
            absolve::base::BaseSource::RetrievalUrl
        );
        assert_eq!(
            feed_warnings(&done.warnings),
            [Warning::NotWellFormed {
                offset: second as u64 + 2,
                reason: "a pseudo-attribute of <?xml-stylesheet?> without a quoted value"
            }]
        );
    }
    // XML 1.0 §2.6: an instruction ends at its first `?>`, which a value writes escaped.
    let feed = br#"<?xml-stylesheet href="s?&gt;"?><rss/>"#;
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let expected = br#"<?xml-stylesheet href="http://feeds.example.com/dir/s?&gt;"?><rss/>"#;
    assert_eq!(
        String::from_utf8_lossy(&done.output),
        String::from_utf8_lossy(expected)
    );
    assert_eq!(done.links[0].resolved, "http://feeds.example.com/dir/s?>");
}

/// A `&` that starts no reference in an inline XHTML (or SVG) value is not well-formed
/// XML (§4.1): the value is left as written, its URL not listed, with a warning naming
/// the `&`, as for a feed URL. The HTML rewriter read it as text and the value was
/// rewritten with the bare `&` in it, without a word.
#[test]
fn a_bare_ampersand_in_an_xhtml_value_leaves_it_as_written() {
    let feed = br#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><a href="s?q=a&b">x</a><a href="t?q=a&amp;b">y</a></div></content></entry></feed>"#;
    let done = feed::rewrite(feed, &base(), &Options::default(), None);
    let dir = "http://feeds.example.com/dir/";
    let expected = String::from_utf8(feed.to_vec())
        .unwrap()
        .replace("\"t?q", &format!("\"{dir}t?q"));
    assert_eq!(String::from_utf8(done.output).unwrap(), expected);
    let resolved: Vec<_> = done.links.iter().map(|l| l.resolved.clone()).collect();
    assert_eq!(resolved, [format!("{dir}t?q=a&b")]);
    let ampersand = feed.windows(3).position(|w| w == b"a&b").unwrap() as u64 + 1;
    assert_eq!(
        feed_warnings(&done.warnings),
        [Warning::NotWellFormed {
            offset: ampersand,
            reason: "a `&` that starts no reference (XML 1.0 §4.1)"
        }]
    );
}
