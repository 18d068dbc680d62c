//! The HTML rewriting rules (empty values, srcdoc, SVG and MathML, image-set, undecodable
//! values, the lookahead, keeping a reference), byte for byte (the snapshots over fixtures/html/ show them whole).

use absolve::base::{Base, BaseSource};
use absolve::html::{Collected, Options, Rewriter, Warning, links, rewrite, rewrite_and_list};
use absolve::links::Kept;
use std::sync::Arc;

use crate::common::absolve_piped;

fn base() -> Base {
    Base::retrieval_url("http://h/d/p.html").unwrap()
}

fn rewritten(input: &str) -> String {
    String::from_utf8(rewrite(input.as_bytes(), &base(), &Options::default()).output).unwrap()
}

#[test]
fn rule_1_empty_values() {
    assert_eq!(
        rewritten("<base href=/b/><a href=\"\">x</a><area href=' '>"),
        "<base href=http://h/b/><a href=\"http://h/b/\">x</a><area href='http://h/b/'>"
    );
    // A form's empty action is the document's own URL, which <base> does not change.
    assert_eq!(
        rewritten("<base href=/b/><form action=\"\"><button formaction=''><input formaction=\"\">"),
        "<base href=http://h/b/><form action=\"http://h/d/p.html\"><button formaction='http://h/d/p.html'><input formaction=\"http://h/d/p.html\">"
    );
    let none = "<img src=\"\"><link href=''><script src=\"\"></script><iframe src=''><video src=\"\"><svg><image href=''/></svg>";
    assert_eq!(rewritten(none), none);
    // An SVG <a> with an empty href leads to the base too (Chromium follows it there).
    assert_eq!(
        rewritten("<base href=/b/><svg><a href=\" \"/><a xlink:href=''/><a href/></svg>"),
        "<base href=http://h/b/><svg><a href=\"http://h/b/\"/><a xlink:href='http://h/b/'/><a href=\"http://h/b/\"/></svg>"
    );
    // A fragment of the base is not part of the document's URL.
    let base = Base::retrieval_url("http://h/d/p.html#frag").unwrap();
    let out = rewrite(b"<a href=''>", &base, &Options::default()).output;
    assert_eq!(out, b"<a href='http://h/d/p.html'>");
}

#[test]
fn rule_1_a_valueless_attribute_is_an_empty_value() {
    assert_eq!(
        rewritten(
            "<a href>x</a><AREA HREF alt=y><form action><button formaction><img src><link href>"
        ),
        "<a href=\"http://h/d/p.html\">x</a><AREA HREF=\"http://h/d/p.html\" alt=y><form action=\"http://h/d/p.html\"><button formaction=\"http://h/d/p.html\"><img src><link href>"
    );
    let out = rewrite(b"<a href/>", &base(), &Options::default()).output;
    assert_eq!(out, b"<a href=\"http://h/d/p.html\"/>");
}

#[test]
fn rule_1_empty_values_are_listed_where_they_mean_something() {
    let found = links(
        b"<a href=''><img src=''><form action=''>",
        &base(),
        &Options::default(),
    );
    let listed: Vec<_> = found
        .iter()
        .map(|l| (l.element.as_str(), l.resolved.as_str()))
        .collect();
    assert_eq!(
        listed,
        [("a", "http://h/d/p.html"), ("form", "http://h/d/p.html")]
    );
}

#[test]
fn rule_2_srcdoc_is_a_document_written_back_escaped() {
    let input = "<iframe srcdoc=\"<a href=&quot;x?a=1&amp;amp;b=2&quot;>x</a>\"></iframe>";
    let expected =
        "<iframe srcdoc=\"<a href=&quot;http://h/d/x?a=1&amp;amp;b=2&quot;>x</a>\"></iframe>";
    assert_eq!(rewritten(input), expected);
    let single = "<iframe srcdoc='<img src=\"it&#39;s.png\">'>";
    assert_eq!(
        rewritten(single),
        "<iframe srcdoc='<img src=\"http://h/d/it&#39;s.png\">'>"
    );
    let unquoted = "<iframe srcdoc=<img/src=i.png>";
    assert_eq!(
        rewritten(unquoted),
        unquoted,
        "the value ends at the first >: `<img/src=i.png`"
    );
}

#[test]
fn rule_2_srcdoc_base_and_nesting() {
    let input = "<iframe srcdoc=\"<a href=a>\"></iframe><base href=/b/>\
                 <iframe srcdoc=\"<base href=s/><a href=c><iframe srcdoc='<a href=d>'></iframe>\"></iframe>";
    let out = rewrite_and_list(input.as_bytes(), &base(), &Options::default());
    let found: Vec<_> = out
        .links
        .iter()
        .map(|l| (l.original.as_str(), l.resolved.as_str(), l.srcdoc))
        .collect();
    assert_eq!(
        found,
        [
            // Before the parent's <base>: the parent's own URL (as Chromium does).
            ("a", "http://h/d/a", 1),
            ("/b/", "http://h/b/", 0),
            ("s/", "http://h/b/s/", 1),
            ("c", "http://h/b/s/c", 1),
            // A nested srcdoc document falls back on its parent's base.
            ("d", "http://h/b/s/d", 2),
        ]
    );
    let json = serde_json::to_string(&out.links[4]).unwrap();
    assert!(json.contains("\"srcdoc\":2,\"kept\":null"), "{json}");
}

#[test]
fn rule_3_svg_presentation_attributes() {
    assert_eq!(
        rewritten(
            "<svg><path fill='url(p.svg#g) none' stroke='url(#s)' marker-end=\"url(m.svg#e)\" cursor='url(c.cur),auto'/></svg><p fill='url(x)'>"
        ),
        "<svg><path fill='url(http://h/d/p.svg#g) none' stroke='url(#s)' marker-end=\"url(http://h/d/m.svg#e)\" cursor='url(http://h/d/c.cur),auto'/></svg><p fill='url(x)'>"
    );
}

#[test]
fn rule_4_mathml_href_on_any_element() {
    assert_eq!(
        rewritten(
            "<math><mi href=a>x</mi><mtext href=b>t</mtext><mspace href=c /></math><mi href=d>"
        ),
        "<math><mi href=http://h/d/a>x</mi><mtext href=http://h/d/b>t</mtext><mspace href=http://h/d/c /></math><mi href=d>"
    );
}

#[test]
fn rule_5_a_changed_value_is_the_url_alone() {
    assert_eq!(rewritten("<a href=\"  g  \">"), "<a href=\"http://h/d/g\">");
    assert_eq!(
        rewritten("<a href=\"\ta\nb\r.html\n\">"),
        "<a href=\"http://h/d/ab.html\">"
    );
    assert_eq!(
        rewritten("<p style=\"a:url(' i.png ')\">"),
        "<p style=\"a:url('http://h/d/i.png')\">"
    );
    let untouched = "<a href=\" http://x/ \"><a href=' #f '><a href=\" java\nscript:void(0)\">";
    assert_eq!(rewritten(untouched), untouched);
}

/// A reference with a scheme: by RFC 1808 returned as it is (§4 step 2b); by RFC 3986 its
/// dot segments removed (§5.2.2, as `resolve --spec rfc3986` did already; it was left
/// as it was, `http://a/../g`, which no server answers); by the URL Standard parsed.
#[test]
fn rule_5_a_reference_with_a_scheme_by_each_standard() {
    let input = "<a href=\"http://a/b/../../g\">x</a><img src=\"HTTP://X/./y\" style=\"b:url(http://c/d/./e)\"><a href=\"mailto:m@n\">m</a>";
    for (standard, expected) in [
        (absolve::Standard::Rfc1808, input.to_owned()),
        (
            absolve::Standard::Rfc3986,
            input
                .replace("http://a/b/../../g", "http://a/g")
                .replace("HTTP://X/./y", "HTTP://X/y")
                .replace("http://c/d/./e", "http://c/d/e"),
        ),
        (
            absolve::Standard::Whatwg,
            input
                .replace("http://a/b/../../g", "http://a/g")
                .replace("HTTP://X/./y", "http://x/y")
                .replace("http://c/d/./e", "http://c/d/e"),
        ),
    ] {
        let options = Options {
            standard,
            ..Options::default()
        };
        let out = rewrite_and_list(input.as_bytes(), &base(), &options);
        assert_eq!(
            String::from_utf8(out.output).unwrap(),
            expected,
            "{standard:?}"
        );
        let listed = absolve::html::list(input.as_bytes(), &base(), &options);
        let resolved: Vec<_> = listed.links.iter().map(|l| l.resolved.clone()).collect();
        assert!(
            resolved.iter().all(|r| expected.contains(r.as_str())),
            "{resolved:?}"
        );
    }
}

/// A `<base href>` is read as every reference is, by every standard: a tab or newline
/// inside is no part of it (`h\nttp://e/o/` is `http://e/o/`, the URL its `href` is
/// rewritten to), and an empty `href` written as the base is written as any resolved
/// URL is (a space as `%20`). Found by a rewrite-twice fuzzer: by RFC 1808 and 3986 the
/// base was taken with its newlines (`http://h/d/h\nttp://e/o/q`), and `<a href="">`
/// written as the base with its newlines or spaces, which the next rewrite read as other
/// URLs: the output changed again.
#[test]
fn rule_5_a_base_href_is_read_as_a_reference_and_written_as_one() {
    let cases = [
        (
            "<base href=\"h\n\nttp://e/o/\"><a href=\"\">e</a><a href=\"q\">q</a>",
            "<a href=\"http://e/o/\">e</a><a href=\"http://e/o/q\">q</a>",
        ),
        (
            "<base href=\"http://e/a b/\"><a href=\"\">e</a><a href=\"q\">q</a>",
            "<a href=\"http://e/a%20b/\">e</a><a href=\"http://e/a%20b/q\">q</a>",
        ),
    ];
    for standard in [
        absolve::Standard::Rfc1808,
        absolve::Standard::Rfc3986,
        absolve::Standard::Whatwg,
    ] {
        let options = Options {
            standard,
            ..Options::default()
        };
        for (input, links) in cases {
            let once = rewrite(input.as_bytes(), &base(), &options).output;
            let text = String::from_utf8(once.clone()).unwrap();
            assert!(text.ends_with(links), "{standard:?}: {text}");
            let twice = rewrite(&once, &base(), &options).output;
            assert_eq!(String::from_utf8(twice).unwrap(), text, "{standard:?}");
        }
    }
}

/// By RFC 3986 a scheme starts with a letter (§3.1) and a base is absolute (§5.1):
/// `3http://example.com/a/`, a scheme by RFC 1808's reading, is no retrieval URL there
/// (a WARC record's `WARC-Target-URI` written so is passed over, with its warning), and a
/// `<base href="3http://e/o/">` is a relative path, resolved against the outer base.
/// Found by a rewrite-twice fuzzer: taken as a base, every link resolved against it came
/// out relative (`3http://example.com/a/q`), and each rewrite resolved it again.
#[test]
fn rule_5_a_base_without_a_letter_first_scheme_is_no_base_by_rfc3986() {
    for (standard, accepted) in [
        (absolve::Standard::Rfc1808, true),
        (absolve::Standard::Rfc3986, false),
    ] {
        let target = Base::retrieval_url_with(standard, "3http://example.com/a/");
        assert_eq!(target.is_ok(), accepted, "{standard:?}");
    }
    let options = Options {
        standard: absolve::Standard::Rfc3986,
        ..Options::default()
    };
    let input = "<base href=\"3http://e/o/\"><a href=\"q\">q</a>";
    let once = rewrite(input.as_bytes(), &base(), &options).output;
    let text = String::from_utf8(once.clone()).unwrap();
    assert_eq!(
        text,
        "<base href=\"http://h/d/3http://e/o/\"><a href=\"http://h/d/3http://e/o/q\">q</a>"
    );
    let twice = rewrite(&once, &base(), &options).output;
    assert_eq!(String::from_utf8(twice).unwrap(), text);
}

#[test]
fn rule_6_image_set_strings_are_urls() {
    assert_eq!(
        rewritten(
            "<p style='b:image-set(\"a.png\" 1x, url(b.png) 2x)'><style>p{b:-webkit-image-set('c.png' 1x)}</style>"
        ),
        "<p style='b:image-set(\"http://h/d/a.png\" 1x, url(http://h/d/b.png) 2x)'><style>p{b:-webkit-image-set('http://h/d/c.png' 1x)}</style>"
    );
}

#[test]
fn rule_7_an_undecodable_value_is_listed_not_rewritten() {
    let input = b"<a href=\"\xff.html\">x</a><a href=ok.html>";
    let out = rewrite_and_list(input, &base(), &Options::default());
    assert_eq!(
        out.output,
        b"<a href=\"\xff.html\">x</a><a href=http://h/d/ok.html>"
    );
    assert_eq!(out.links.len(), 2);
    assert_eq!(out.links[0].original, "\u{fffd}.html");
    assert_eq!(
        out.warnings,
        [absolve::Warning::from(Warning::Undecodable(9, "UTF-8"))]
    );
}

#[test]
fn rule_7_an_undecodable_url_in_a_style_element_is_listed_not_rewritten() {
    let input = b"<style>a{b:url(\xff.png)}c{d:url(ok.png)}</style>";
    let out = rewrite_and_list(input, &base(), &Options::default());
    assert_eq!(
        out.output,
        b"<style>a{b:url(\xff.png)}c{d:url(http://h/d/ok.png)}</style>".as_slice()
    );
    let listed: Vec<_> = out
        .links
        .iter()
        .map(|l| (l.original.as_str(), l.offset))
        .collect();
    assert_eq!(listed, [("\u{fffd}.png", 15), ("ok.png", 30)]);
    assert_eq!(
        out.warnings,
        [absolve::Warning::from(Warning::Undecodable(15, "UTF-8"))]
    );
}

/// `resolved` is what `rewrite` writes: for a value invalid in the charset, the original,
/// whether the links are listed alone or with the rewrite (they gave the value resolved).
#[test]
fn rule_7_an_undecodable_value_is_listed_as_left() {
    let input =
        b"<a href=\"?q=\xff\">x</a><p style=\"b:url(\xff.png)\"><style>a{b:url(\xff.gif)}</style>";
    let listed = absolve::html::list(input, &base(), &Options::default());
    let with_rewrite = rewrite_and_list(input, &base(), &Options::default());
    assert_eq!(with_rewrite.output, input);
    for links in [&listed.links, &with_rewrite.links] {
        let pairs: Vec<_> = links
            .iter()
            .map(|l| (l.original.as_str(), l.resolved.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("?q=\u{fffd}", "?q=\u{fffd}"),
                ("\u{fffd}.png", "\u{fffd}.png"),
                ("\u{fffd}.gif", "\u{fffd}.gif"),
            ]
        );
    }
}

/// Streams `document` in chunks of `chunk` bytes with a lookahead of `lookahead`.
fn streamed(document: &[u8], lookahead: usize, chunk: usize) -> Collected {
    let options = Options {
        base_lookahead: lookahead,
        ..Options::default()
    };
    let sink = Collected {
        keep_links: true,
        ..Collected::default()
    };
    let mut rewriter = Rewriter::new(&base(), &options, sink);
    for piece in document.chunks(chunk) {
        rewriter.write(piece).unwrap();
    }
    rewriter.end().unwrap()
}

#[test]
fn rule_8_the_lookahead_is_exact() {
    // The <base> ends at byte 36: it applies with 36 bytes of lookahead, not with 35,
    // whatever the chunks.
    let doc = b"<a href=x><p>........<base href=/b/><a href=y>";
    assert_eq!(
        &doc[..36],
        b"<a href=x><p>........<base href=/b/>".as_slice()
    );
    for chunk in [1, 7, 64, 4096] {
        let out = streamed(doc, 36, chunk);
        assert!(out.output.starts_with(b"<a href=http://h/b/x>"), "{chunk}");
        let out = streamed(doc, 35, chunk);
        assert_eq!(
            String::from_utf8(out.output).unwrap(),
            "<a href=http://h/d/x><p>........<base href=http://h/b/><a href=http://h/d/y>",
            "{chunk}"
        );
        assert_eq!(out.links[2].base_from, BaseSource::RetrievalUrl);
        assert!(
            out.warnings.contains(&Warning::LateBase(21).into()),
            "{:?}",
            out.warnings
        );
    }
}

#[test]
fn rule_8_through_the_command_line_from_a_pipe() {
    let late = 1_100_031;
    let mut doc = b"<a href=x><p>".to_vec();
    doc.resize(late, b'.');
    doc.extend_from_slice(b"<base href=/b/><a href=y>");
    let out = absolve_piped(&["rewrite", "--url", "http://h/d/p.html"], &doc);
    assert!(out.status.success());
    assert!(out.stdout.starts_with(b"<a href=http://h/d/x>"));
    assert!(out.stdout.ends_with(b"<a href=http://h/d/y>"));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("at byte 1100031 came after the lookahead")
    );
    // Within the 1 MiB it applies.
    let mut doc = b"<a href=x><p>".to_vec();
    doc.resize((1 << 20) - 15, b'.');
    doc.extend_from_slice(b"<base href=/b/><a href=y>");
    let out = absolve_piped(&["rewrite", "--url", "http://h/d/p.html"], &doc);
    assert!(out.stdout.starts_with(b"<a href=http://h/b/x>"));
}

#[test]
fn keep_reference_leaves_a_value_exactly_as_written() {
    let options = Options {
        keep_reference: Some(Arc::new(|r: &str| r.starts_with("local/") || r == "#top")),
        resolve_fragments: true,
        ..Options::default()
    };
    let input = b"<a href=' local/x '><img srcset='local/a.png 1x, b.png 2x'><p style='b:url(local/c)'><a href=#top><a href=d>";
    let out = rewrite_and_list(input, &base(), &options);
    assert_eq!(
        String::from_utf8(out.output).unwrap(),
        "<a href=' local/x '><img srcset='local/a.png 1x, http://h/d/b.png 2x'><p style='b:url(local/c)'><a href=#top><a href=http://h/d/d>"
    );
    let kept: Vec<_> = out
        .links
        .iter()
        .map(|l| (l.original.as_str(), l.kept))
        .collect();
    assert_eq!(
        kept,
        [
            ("local/x", Some(Kept::Local)),
            ("local/a.png", Some(Kept::Local)),
            ("b.png", None),
            ("local/c", Some(Kept::Local)),
            ("#top", Some(Kept::Local)),
            ("d", None),
        ]
    );
    let json = serde_json::to_string(&out.links[0]).unwrap();
    assert!(json.ends_with("\"kept\":\"local\"}"), "{json}");
}

#[test]
fn the_new_fixtures_come_out_the_same_whatever_the_chunks() {
    for name in [
        "empty-values.html",
        "srcdoc-documents.html",
        "svg-presentation-and-image-set.html",
    ] {
        let page = std::fs::read(format!("fixtures/html/{name}")).unwrap();
        let whole = rewrite_and_list(&page, &base(), &Options::default());
        for chunk in [1, 3, 17, 4096] {
            let out = streamed(&page, usize::MAX, chunk);
            assert_eq!(out.output, whole.output, "{name} in chunks of {chunk}");
            assert_eq!(out.links, whole.links, "{name} in chunks of {chunk}");
        }
    }
}

#[test]
fn deeply_nested_srcdoc_documents_stop_at_16_levels_without_overflow() {
    let escape = |html: &str| html.replace('&', "&amp;").replace('"', "&quot;");
    let mut doc = String::from("<a href=x>");
    for _ in 0..200 {
        doc = format!("<a href=x><iframe srcdoc=\"{}\"></iframe>", escape(&doc));
    }
    let out = rewrite_and_list(doc.as_bytes(), &base(), &Options::default());
    let depths: Vec<u32> = out.links.iter().map(|l| l.srcdoc).collect();
    assert_eq!(depths, (0..=16).collect::<Vec<_>>());
    assert!(out.links.iter().all(|l| l.resolved == "http://h/d/x"));
    let again = rewrite(&out.output, &base(), &Options::default()).output;
    assert_eq!(again, out.output);
}

/// In an SVG `<style>` (foreign content) `<!--` opens a comment: a Comment node, no part
/// of the style's CSS (its child text content), so a URL in it is left as it is. Found by
/// the html fuzz target: read as CSS, the URL in a comment was rewritten, its `<`
/// escaped, and the comment (which ran to the end of the page) ended early on a second
/// rewrite, rewriting the links after it.
#[test]
fn a_comment_in_an_svg_style_is_not_css() {
    let page = "<svg><style>.a{fill:url(a.png)}<!-- .b{fill:url(b.png)} -->.c{fill:url(c.png)}</style></svg>";
    assert_eq!(
        rewritten(page),
        "<svg><style>.a{fill:url(http://h/d/a.png)}<!-- .b{fill:url(b.png)} -->.c{fill:url(http://h/d/c.png)}</style></svg>"
    );
    let found: Vec<_> = links(page.as_bytes(), &base(), &Options::default())
        .into_iter()
        .map(|l| l.original)
        .collect();
    assert_eq!(found, ["a.png", "c.png"]);
    // A comment that runs to the end: the link after it is in it; twice is as once.
    let open =
        "<svg><style>x{mask:url(\"e<!--<s.png\")} y{fill:url(y.png)}</style></svg><a href=z>";
    let once = rewritten(open);
    assert_eq!(once, open);
    assert_eq!(rewritten(&once), once);
}

/// In an SVG `<style>` `</` begins an end tag (or a bogus comment), not text: found by the
/// html fuzz target, `url(</d)<g"/>url(;)` had its first URL rewritten across the end tag
/// `</d)<g"/>` (its `<` escaped), which made the tag text and `<g"/>` an element, so that a
/// second rewrite read another structure and rewrote `url(;)` too. The text is left as it
/// is, with a warning; a well-formed SVG style is still rewritten.
#[test]
fn markup_in_an_svg_style_leaves_its_text_as_it_is() {
    let page = "<svg><style>url(</d)<g\"/>url(;)";
    let done = rewrite(page.as_bytes(), &base(), &Options::default());
    assert_eq!(String::from_utf8(done.output.clone()).unwrap(), page);
    assert!(
        matches!(
            done.warnings[..],
            [absolve::Warning {
                problem: absolve::Problem::Html(Warning::MarkupInSvgStyle(12)),
                ..
            }]
        ),
        "{:?}",
        done.warnings
    );
    assert_eq!(
        rewrite(&done.output, &base(), &Options::default()).output,
        done.output
    );
    let closed = "<svg><style>.a{fill:url(a.png)}</x>.b{fill:url(b.png)}</style></svg><a href=z>";
    assert_eq!(
        rewritten(closed),
        "<svg><style>.a{fill:url(a.png)}</x>.b{fill:url(b.png)}</style></svg><a href=http://h/d/z>"
    );
    assert_eq!(
        rewritten("<svg><style>.a{fill:url(a.png)}</style></svg>"),
        "<svg><style>.a{fill:url(http://h/d/a.png)}</style></svg>"
    );
}

/// `<applet archive>` is a comma-separated list: a reference whose resolved URL holds a
/// comma (from the codebase) would be two URLs on the next reading. Found by the html
/// fuzz target (`codebase=,/ archive=h`: a second rewrite split `http://h/a/,/h`). Such a
/// reference is left as it is, with a warning; the others are rewritten.
#[test]
fn a_list_url_that_resolves_with_a_comma_is_left_as_it_is() {
    let page = "<applet codebase=,/ archive=\"h, http://x/y.jar\">";
    let done = rewrite(page.as_bytes(), &base(), &Options::default());
    let once = String::from_utf8(done.output.clone()).unwrap();
    assert_eq!(
        once,
        "<applet codebase=http://h/d/,/ archive=\"h, http://x/y.jar\">"
    );
    assert!(
        done.warnings.iter().any(|w| matches!(
            &w.problem,
            absolve::Problem::Html(Warning::CommaInListUrl { reference, .. }) if reference == "h"
        )),
        "{:?}",
        done.warnings
    );
    assert_eq!(rewritten(&once), once);
    assert_eq!(
        rewritten("<applet codebase=c/ archive=\"a.jar,b.jar\">"),
        "<applet codebase=http://h/d/c/ archive=\"http://h/d/c/a.jar,http://h/d/c/b.jar\">"
    );
}

/// The feed fuzz target's fifth find (in escaped HTML content, the same in HTML): the
/// srcset URL `s,\u{2}` is `s,` to the URL parser, and its resolved form written alone,
/// `http://h/d/s,`, lost its comma to the srcset parser on the next read (a second
/// rewrite changed it again). The control is written after it again.
#[test]
fn a_srcset_url_ending_in_a_comma_then_a_control_keeps_its_comma() {
    let once = rewritten("<img srcset=\"s,\u{2} x\">");
    assert_eq!(once, "<img srcset=\"http://h/d/s,\u{2} x\">");
    let found = links(
        "<img srcset=\"s,\u{2} x\">".as_bytes(),
        &base(),
        &Options::default(),
    );
    let resolved: Vec<_> = found.iter().map(|l| l.resolved.as_str()).collect();
    assert_eq!(resolved, ["http://h/d/s,"]);
    assert_eq!(rewritten(&once), once);
}

/// The html fuzz target's find this stop (it predates the stop): in
/// `image-set((url(\x7f)"d"`, the unquoted `url(\x7f)` was taken for a URL (a
/// non-printable code point makes it a bad url, CSS Syntax §4.3.6) and written back
/// quoted; a quoted `url("...")` is a function whose `)` the scanner took for the one
/// closing the `(` before it, so on a second rewrite `"d"` became a string of
/// `image-set(` and was rewritten too. Now a bad url is left as it is, and twice is as once.
#[test]
fn a_bad_url_and_a_quoted_url_in_image_set_are_read_the_same_twice() {
    let page = "<style>image-set((url(\u{7f})\"d\"";
    let once = rewritten(page);
    assert_eq!(once, page);
    let quoted = "<style>a{b:image-set((url(\"c\") \"d\"))}</style>";
    let once = rewritten(quoted);
    assert_eq!(
        once,
        "<style>a{b:image-set((url(\"http://h/d/c\") \"d\"))}</style>"
    );
    assert_eq!(rewritten(&once), once);
}

/// The html fuzz target's second find this stop (it predates the stop): a URL written into
/// raw text could end it. With `<base href=</noscript/>`, `<noscript><img src=t>` became
/// `<img src="http://h/d/</noscript/t">` inside the `<noscript>`, whose text then ended at
/// that `</noscript/` on the next reading (an end tag: HTML §13.2.5.3), so that markup
/// after it was read as elements and rewritten. In the text of a `<noscript>` a `<`
/// written into a value is now `&lt;`, and in an HTML `<style>` the CSS escape `\3c `: the
/// same URL when read, and no end tag.
#[test]
fn a_url_written_into_raw_text_cannot_end_it() {
    let pages = [
        (
            "<base href=</noscript/><noscript><img src=t><a href=</noscript>",
            "<base href=\"http://h/d/</noscript/\"><noscript><img src=\"http://h/d/&lt;/noscript/t\"><a href=</noscript>",
        ),
        (
            "<base href=</style/><style>a{b:url(t)}</style><a href=x>",
            "<base href=\"http://h/d/</style/\"><style>a{b:url(http://h/d/\\3c /style/t)}</style><a href=\"http://h/d/</style/x\">",
        ),
        (
            "<base href=</noscript/><noscript><style>a{b:url('t')}</style><iframe srcdoc='<a href=v>'></iframe></noscript>",
            "<base href=\"http://h/d/</noscript/\"><noscript><style>a{b:url('http://h/d/\\3c /noscript/t')}</style><iframe srcdoc='&lt;a href=\"http://h/d/&lt;/noscript/v\">'></iframe></noscript>",
        ),
    ];
    for (page, expected) in pages {
        let once = rewritten(page);
        assert_eq!(once, expected);
        assert_eq!(rewritten(&once), once, "{page}");
        // The links are the URLs themselves, unescaped.
        let found = links(page.as_bytes(), &base(), &Options::default());
        assert!(
            found.iter().skip(1).all(|l| l.resolved.contains('<')),
            "{found:?}"
        );
    }
}

/// Found by a differential fuzz against html5lib: a valueless `<base href>` is a `<base>`
/// with an `href` (its value the empty string, HTML §13.2.5.33), so it is the first one
/// and sets the base to the fallback one (§4.2.3): a later `<base href>` is not used.
#[test]
fn a_valueless_base_href_is_the_first_base() {
    for page in [
        "<base href><base href=/x/><a href=q>",
        "<BASE HREF target=_top><base href=/x/><a href=q>",
    ] {
        let found = links(page.as_bytes(), &base(), &Options::default());
        let a = found.iter().find(|l| l.element == "a").unwrap();
        assert_eq!(a.resolved, "http://h/d/q", "{page}");
        assert_eq!(a.base_from, BaseSource::BaseElement, "{page}");
        let scanned =
            absolve::html::scan_base(page.as_bytes(), &base(), &Options::default()).unwrap();
        assert_eq!(scanned.url(), Some("http://h/d/p.html"), "{page}");
    }
}

/// Each link's element, attribute (`""` for none) and `value` (its original or resolved
/// URL).
fn where_and_what<'a>(
    found: &'a [absolve::Link],
    value: impl Fn(&'a absolve::Link) -> &'a str,
) -> Vec<(&'a str, &'a str, &'a str)> {
    found
        .iter()
        .map(|l| {
            (
                l.element.as_str(),
                l.attribute.as_deref().unwrap_or(""),
                value(l),
            )
        })
        .collect()
}

/// Found by a differential fuzz against html5lib: of two attributes of the same name on a
/// tag, the second is dropped (HTML §13.2.5.33, duplicate-attribute), whatever its case:
/// it is neither listed nor rewritten.
#[test]
fn a_duplicate_attribute_is_no_url() {
    let page = "<a href=q HREF=r><img src=s Src=t srcset=u><link href=v href=\"\">";
    let found = links(page.as_bytes(), &base(), &Options::default());
    assert_eq!(
        where_and_what(&found, |l| &l.original),
        [
            ("a", "href", "q"),
            ("img", "src", "s"),
            ("img", "srcset", "u"),
            ("link", "href", "v")
        ]
    );
    assert_eq!(
        rewritten(page),
        "<a href=http://h/d/q HREF=r><img src=http://h/d/s Src=t srcset=http://h/d/u><link href=http://h/d/v href=\"\">"
    );
}

/// Found by a differential fuzz against html5lib: a NUL byte in an attribute value is
/// read as U+FFFD (HTML §13.2.5.36-38, unexpected-null-character), as `&#0;` is; it was
/// kept as U+0000, which the URL parser writes `%00` where a browser writes `%EF%BF%BD`.
#[test]
fn a_nul_in_a_value_is_a_replacement_character() {
    let page = b"<img src=\"a\0b\" srcset='c\0 1x'><a href=d\0e><a href=\"f&#0;g\">";
    let found = links(page, &base(), &Options::default());
    let listed: Vec<_> = found.iter().map(|l| l.original.as_str()).collect();
    assert_eq!(
        listed,
        ["a\u{FFFD}b", "c\u{FFFD}", "d\u{FFFD}e", "f\u{FFFD}g"]
    );
}

/// Found by a differential fuzz against html5lib: the tree builder makes an HTML
/// `<image>` an `<img>` (HTML §13.2.6.4.7), whose `src` and `srcset` browsers load; an SVG
/// `<image>` stays SVG's, with `href`.
#[test]
fn an_html_image_tag_is_an_img() {
    let page = "<IMAGE src=a srcset='b 2x'><svg><image href=c src=d /></svg>";
    let found = links(page.as_bytes(), &base(), &Options::default());
    assert_eq!(
        where_and_what(&found, |l| &l.resolved),
        [
            ("img", "src", "http://h/d/a"),
            ("img", "srcset", "http://h/d/b"),
            ("image", "href", "http://h/d/c")
        ]
    );
    assert_eq!(
        rewritten(page),
        "<IMAGE src=http://h/d/a srcset='http://h/d/b 2x'><svg><image href=http://h/d/c src=d /></svg>"
    );
}

/// Found by a differential fuzz against html5lib: an `<img>` (or any element that breaks
/// out of foreign content, HTML §13.2.6.5) inside nested `<svg>` or `<math>` is an HTML
/// element in HTML content, as is what follows it; lol_html left one level of foreign
/// content only, so its `src` was missed and a `<textarea>` after it not read as raw text.
#[test]
fn a_breakout_from_nested_foreign_content_is_html() {
    let page = "<svg><svg><g><img src=a><a href=''></a><textarea><a href=t></textarea>\
                <math><math><font color=red><base href=/x/></font><blockquote cite=c>";
    let found = links(page.as_bytes(), &base(), &Options::default());
    let listed: Vec<_> = found
        .iter()
        .map(|l| (l.element.as_str(), l.original.as_str(), l.resolved.as_str()))
        .collect();
    assert_eq!(
        listed,
        [
            ("img", "a", "http://h/x/a"),
            ("a", "", "http://h/x/"),
            ("base", "/x/", "http://h/x/"),
            ("blockquote", "c", "http://h/x/c")
        ]
    );
    assert_eq!(
        found[0].base_from,
        BaseSource::BaseElement,
        "the <base> is HTML"
    );
}
