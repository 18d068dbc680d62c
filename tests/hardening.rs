//! Properties on generated input, and pathological documents: the rewrite never panics,
//! is idempotent, changes nothing outside the values it rewrites, and keeps memory to its
//! buffers (large inputs stream through in chunks; the sizes here are kept moderate, the
//! full-size runs with measured peak memory are in benches/scale.sh).

use absolve::base::Base;
use absolve::html::{Options, Rewriter, rewrite};
use absolve::mime;
use absolve::{Collected, Problem, Sink};
use proptest::prelude::*;

/// One piece of a generated document. Every relative URL is `rel/N`, so a rewrite against
/// `http://h/` turns it into `http://h/rel/N` and nothing else may change.
fn piece() -> impl Strategy<Value = String> {
    let url_attr = prop_oneof![
        Just("a href"),
        Just("img src"),
        Just("link href"),
        Just("form action"),
        Just("td background"),
        Just("video poster"),
    ];
    let quote = prop_oneof![Just(""), Just("\""), Just("'")];
    prop_oneof![
        (url_attr, quote, 0..100u32, "[ \t\n]{0,2}").prop_map(|(el_attr, q, n, ws)| {
            let (el, attr) = el_attr.split_once(' ').unwrap();
            format!("<{el}{ws} {attr}={q}rel/{n}{q} class=c>")
        }),
        (0..100u32).prop_map(|n| format!("<img srcset=\"rel/{n} 1x, rel/{n}x 2x\">")),
        (0..100u32).prop_map(|n| format!("<p style=\"background:url('rel/{n}')\">")),
        (0..100u32).prop_map(|n| format!("<style>a{{b:url(rel/{n})}}</style>")),
        Just("<a href=\"#frag\">".to_owned()),
        Just("<a href=\"mailto:x@y\">".to_owned()),
        "[a-z <>/=\"'&;!-]{0,20}",
        Just("<!-- <a href=rel/0> -->".to_owned()),
        Just("<script>var a = '<a href=rel/0>';</script>".to_owned()),
    ]
}

fn document() -> impl Strategy<Value = String> {
    proptest::collection::vec(piece(), 0..30).prop_map(|pieces| pieces.concat())
}

fn base() -> Base {
    Base::retrieval_url("http://h/").unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn rewriting_is_idempotent(doc in document()) {
        let once = rewrite(doc.as_bytes(), &base(), &Options::default()).output;
        let twice = rewrite(&once, &base(), &Options::default()).output;
        prop_assert_eq!(twice, once);
    }

    #[test]
    fn nothing_changes_outside_rewritten_values(doc in document()) {
        prop_assume!(!doc.contains("http://h/"));
        let out = rewrite(doc.as_bytes(), &base(), &Options::default()).output;
        let back = String::from_utf8(out).unwrap().replace("http://h/rel/", "rel/");
        prop_assert_eq!(back, doc);
    }

    /// No panic on any bytes, in any chunking; and with no base (RFC 1808 §3.4) every byte
    /// comes out as it went in.
    #[test]
    fn any_bytes_pass_and_without_a_base_come_out_unchanged(
        bytes in proptest::collection::vec(any::<u8>(), 0..400), chunk in 1..50usize
    ) {
        let mut rewriter = Rewriter::new(&base(), &Options::default(), Collected::default());
        for piece in bytes.chunks(chunk) {
            rewriter.write(piece).unwrap();
        }
        rewriter.end().unwrap();
        let mut rewriter = Rewriter::new(&Base::none(), &Options::default(), Collected::default());
        for piece in bytes.chunks(chunk) {
            rewriter.write(piece).unwrap();
        }
        prop_assert_eq!(rewriter.end().unwrap().output, bytes.clone());
        let mut quiet = Collected::links_only();
        let out = mime::rewrite_message(&bytes, 1, &Base::none(), &Options::default(), &mut quiet);
        prop_assert_eq!(out, bytes);
    }
}

/// Bytes drawn mostly from markup: tags, quotes, entities, namespaces, line ends and
/// bytes that are not UTF-8, so that the XML, MIME and WARC readers meet their edge cases.
fn markup_bytes() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just(b"<".to_vec()),
        Just(b">".to_vec()),
        Just(b"</".to_vec()),
        Just(b"/>".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"'".to_vec()),
        Just(b"=".to_vec()),
        Just(b" ".to_vec()),
        Just(b"&".to_vec()),
        Just(b";".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"<!--".to_vec()),
        Just(b"<![CDATA[".to_vec()),
        Just(b"<!DOCTYPE r [".to_vec()),
        Just(b"<?xml version=\"1.0\"?>".to_vec()),
        Just(b"rss".to_vec()),
        Just(b"feed xmlns=\"http://www.w3.org/2005/Atom\"".to_vec()),
        Just(b"xml:base=\"".to_vec()),
        Just(b"href=".to_vec()),
        Just(b"xmlns:a=".to_vec()),
        Just(b"From a@b Sat Jan  1 00:00:00 2000\n".to_vec()),
        Just(b"Content-Type: text/html\r\n".to_vec()),
        Just(b"WARC/1.0\r\n".to_vec()),
        any::<u8>().prop_map(|b| vec![b]),
        any::<u8>().prop_map(|b| vec![b | 0x80]),
    ];
    proptest::collection::vec(token, 0..60).prop_map(|tokens| tokens.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Whatever the bytes, telling the format never panics, and each format's pipeline
    /// neither panics nor, with no base to resolve against (RFC 1808 §3.4), changes a
    /// byte (a WARC's may be refused: it is no WARC) (a found bug: a cut root tag whose name is not UTF-8
    /// panicked quick-xml's attribute reader, from `format::detect`).
    #[test]
    fn any_markup_is_told_and_read_by_every_format_without_a_panic(bytes in markup_bytes()) {
        use absolve::format::{self, Format};
        use absolve::pipeline::{self, Input};
        let _ = format::detect(&bytes);
        let _ = format::sniff(&bytes);
        let formats = [None, Some(Format::Html), Some(Format::Css), Some(Format::Feed),
            Some(Format::Mime), Some(Format::Mbox), Some(Format::Warc)];
        for format in formats {
            let options = absolve::Options::new().with_format(format);
            let mut sink = Collected::default();
            // An error (a WARC that is none) is a result, not a panic.
            let result = pipeline::run(Input::Bytes(&bytes), &options, &mut sink);
            if format != Some(Format::Warc) {
                prop_assert!(result.is_ok(), "{:?}: {:?}", format, result);
                prop_assert!(sink.output == bytes, "{:?} changed bytes", format);
            }
        }
    }
}

/// Streams `document` through the rewriter in 64 KiB chunks.
fn stream(document: impl Iterator<Item = Vec<u8>>, options: Options) -> Collected {
    let mut rewriter = Rewriter::new(&base(), &options, Collected::default());
    for chunk in document {
        rewriter.write(&chunk).unwrap();
    }
    rewriter.end().unwrap()
}

#[test]
fn a_huge_attribute_value_passes_through_without_growing_the_buffers() {
    let options = Options {
        max_buffer: 1 << 20,
        ..Options::default()
    };
    let chunks = std::iter::once(b"<a href=x><img alt=\"".to_vec())
        .chain(std::iter::repeat_n(vec![b'v'; 64 * 1024], 8 * 16))
        .chain(std::iter::once(b"\"><a href=y>".to_vec()));
    let out = stream(chunks, options);
    assert_eq!(
        out.output.len(),
        20 + 8 * 1024 * 1024 + 12 + "http://h/".len()
    );
    assert!(out.output.starts_with(b"<a href=http://h/x>"));
}

/// A million nested elements in HTML content: the parser is restarted before its
/// element stack grows large (implied end tags are not popped by lol_html), so the link
/// after them is rewritten too: the only warning is the lookahead's.
#[test]
fn a_million_nested_elements() {
    let depth = 1_000_000;
    let head = b"<a href=first>".to_vec();
    let chunks = std::iter::once(head)
        .chain(std::iter::repeat_n(b"<div>".repeat(10_000), depth / 10_000))
        .chain(std::iter::once(b"<a href=deep>".to_vec()));
    let out = stream(chunks, Options::default());
    assert!(out.output.starts_with(b"<a href=http://h/first>"));
    assert_eq!(
        out.output.len(),
        14 + 5 * depth + 13 + 2 * "http://h/".len()
    );
    assert!(out.output.ends_with(b"<div><a href=http://h/deep>"));
    assert!(
        matches!(
            &out.warnings[..],
            [absolve::Warning {
                problem: Problem::Html(absolve::html::Warning::BaseLookaheadExceeded(_)),
                ..
            }]
        ),
        "{:?}",
        out.warnings
    );
}

/// A million nested elements inside `<svg>`, where the parser cannot be restarted: its
/// element stack reaches the buffer limit, the parser stops with a warning, and every
/// byte still comes out (nothing truncated).
#[test]
fn a_million_nested_svg_elements() {
    let depth = 1_000_000;
    let head = b"<a href=first><svg>".to_vec();
    let chunks = std::iter::once(head)
        .chain(std::iter::repeat_n(b"<g>".repeat(10_000), depth / 10_000))
        .chain(std::iter::once(b"<a href=deep>".to_vec()));
    let out = stream(chunks, Options::default());
    assert!(out.output.starts_with(b"<a href=http://h/first>"));
    assert_eq!(out.output.len(), 19 + 3 * depth + 13 + "http://h/".len());
    assert!(out.output.ends_with(b"<g><a href=deep>"));
    assert!(
        matches!(
            &out.warnings[..],
            [absolve::Warning {
                problem: Problem::Html(absolve::html::Warning::ParserStopped { .. }),
                ..
            }]
        ),
        "{:?}",
        out.warnings
    );
}

#[test]
fn a_comment_that_never_ends() {
    let chunks = std::iter::once(b"<a href=x><!--".to_vec())
        .chain(std::iter::repeat_n(vec![b'c'; 64 * 1024], 160));
    let out = stream(chunks, Options::default());
    assert_eq!(out.output.len(), 14 + 160 * 64 * 1024 + "http://h/".len());
}

#[test]
fn a_multipart_with_100_000_parts_and_one_that_never_closes() {
    let mut message =
        b"Content-Type: multipart/mixed; boundary=b\r\nContent-Base: http://m/\r\n\r\n".to_vec();
    for i in 0..100_000 {
        message
            .extend(format!("--b\r\nContent-Type: text/html\r\n\r\n<a href={i}>\r\n").as_bytes());
    }
    struct Count(usize, usize);
    impl Sink for Count {
        fn output(&mut self, _: &[u8]) -> std::io::Result<()> {
            Ok(())
        }
        fn link(&mut self, _: absolve::Link) {
            self.0 += 1;
        }
        fn warning(&mut self, warning: absolve::Warning) {
            // Every warning about a message is a MIME one (its HTML ones name their part).
            assert!(matches!(warning.problem, Problem::Mime(_)), "{warning:?}");
            self.1 += 1;
        }
    }
    let mut count = Count(0, 0);
    let out = mime::rewrite_message(&message, 1, &Base::none(), &Options::default(), &mut count);
    assert_eq!(count.0, 100_000, "every part's link is found");
    assert_eq!(count.1, 1, "the last part, never closed, is left as it is");
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("<a href=http://m/99998>")
    );
}
