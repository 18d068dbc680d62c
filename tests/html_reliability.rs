//! Inputs that once made the HTML rewriter panic, corrupt text or stop early (SVG `<style>`,
//! non-ASCII-compatible `<meta charset>`, foreign content): rewritten whole.

use crate::common::{absolve, stderr};
use absolve::base::Base;
use absolve::html::{Options, Warning, links, rewrite, rewrite_and_list};

fn base() -> Base {
    Base::retrieval_url("http://h/a/b").unwrap()
}

/// Item 1: an SVG `<style>` holds elements (foreign content is not raw text); these
/// made overlapping edits and a slice panic. Each is rewritten, the elements in it too.
const SVG_STYLE_CASES: &[(&str, &str)] = &[
    (
        "<svg><style><a href=x>",
        "<svg><style><a href=http://h/a/x>",
    ),
    (
        "<svg><style/><a href=\"x\">t</a></svg>",
        "<svg><style/><a href=\"http://h/a/x\">t</a></svg>",
    ),
    (
        "<svg><style><image href=\"i.png\"/>",
        "<svg><style><image href=\"http://h/a/i.png\"/>",
    ),
    ("<svg><style><s style=\"\">", "<svg><style><s style=\"\">"),
    (
        "<template><svg><style><a href=x>",
        "<template><svg><style><a href=http://h/a/x>",
    ),
    (
        "<noscript><svg><style><a href=x></noscript><a href=y>",
        "<noscript><svg><style><a href=http://h/a/x></noscript><a href=http://h/a/y>",
    ),
    (
        "<template><svg><style/><a href=\"x\">t</a></svg></template>",
        "<template><svg><style/><a href=\"http://h/a/x\">t</a></svg></template>",
    ),
    // An unclosed child's end handler runs at the `<style>`'s end tag.
    (
        "<svg><style><a href=\"x\"></style>url(y)</svg>",
        "<svg><style><a href=\"http://h/a/x\"></style>url(y)</svg>",
    ),
    (
        "<template><svg><style><a href=\"x\"></style></svg></template>",
        "<template><svg><style><a href=\"http://h/a/x\"></style></svg></template>",
    ),
];

#[test]
fn svg_style_with_elements_inside_is_rewritten_without_panic() {
    for (input, expected) in SVG_STYLE_CASES {
        let out = rewrite_and_list(input.as_bytes(), &base(), &Options::default());
        assert_eq!(String::from_utf8_lossy(&out.output), *expected, "{input}");
    }
}

#[test]
fn svg_style_cases_through_the_command_line() {
    for (input, expected) in SVG_STYLE_CASES {
        let out = absolve(&["rewrite", "--url", "http://h/a/b"], input.as_bytes());
        assert!(out.status.success(), "{input}: {}", stderr(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout), *expected);
        let listed = absolve(&["links", "--url", "http://h/a/b"], input.as_bytes());
        assert!(listed.status.success(), "{input}: {}", stderr(&listed));
    }
}

#[test]
fn svg_style_text_is_css_around_its_child_elements() {
    let input = "<svg><style>a{b:url(i.png)}<g>x</g>c{e:url(#x) f:url('q.png')}</style>\
                 <rect style='fill:url(p.svg#g)'/></svg><p>url(t.png)";
    let expected = "<svg><style>a{b:url(http://h/a/i.png)}<g>x</g>c{e:url(#x) \
                    f:url('http://h/a/q.png')}</style><rect style='fill:url(http://h/a/p.svg#g)'/>\
                    </svg><p>url(t.png)";
    let out = rewrite(input.as_bytes(), &base(), &Options::default());
    assert_eq!(String::from_utf8(out.output).unwrap(), expected);
}

/// Rewrites `input` against `http://h/a/b`: the output and the original of each link.
fn rewritten_and_listed(input: &str) -> (String, Vec<String>) {
    let out = rewrite_and_list(input.as_bytes(), &base(), &Options::default());
    let listed = out.links.iter().map(|l| l.original.clone()).collect();
    (String::from_utf8(out.output).unwrap(), listed)
}

#[test]
fn svg_style_character_references_are_decoded_before_the_css_is_read() {
    // Foreign content is not raw text: the CSS is `url("j.png")` (Chromium's sheet says
    // so), written back with its quotes as characters.
    let (out, listed) =
        rewritten_and_listed("<svg><style>c{d:url(&quot;j.png&quot;)}</style></svg>");
    assert_eq!(
        out,
        "<svg><style>c{d:url(\"http://h/a/j.png\")}</style></svg>"
    );
    assert_eq!(listed, ["j.png"]);
    // `&quot;` delimits a string that only looks like a URL; `&amp;` is `&` in the URL,
    // written back as `&amp;`, and so is `<` as `&lt;`.
    let (out, listed) = rewritten_and_listed(
        "<svg><style>p{content:&quot;url(s.png)&quot;} q{b:url(a&amp;b.png) c:url(x&lt;y)}</style></svg>",
    );
    assert_eq!(
        out,
        "<svg><style>p{content:&quot;url(s.png)&quot;} \
         q{b:url(http://h/a/a&amp;b.png) c:url(http://h/a/x&lt;y)}</style></svg>"
    );
    assert_eq!(listed, ["a&b.png", "x<y"]);
}

#[test]
fn svg_style_quotes_from_references_stay_escaped_in_the_css() {
    // `url("a\"b")` in CSS: the escaped quote stays escaped; a `"` in a `'...'` string needs none.
    let (out, listed) = rewritten_and_listed(
        "<svg><style>&#x2E;k{d:url(&quot;a\\&quot;b&quot;)} e{f:url('g&quot;h')}</style><g/>&amp;</svg>",
    );
    assert_eq!(
        out,
        "<svg><style>&#x2E;k{d:url(\"http://h/a/a\\\"b\")} e{f:url('http://h/a/g\"h')}</style><g/>&amp;</svg>"
    );
    assert_eq!(listed, ["a\"b", "g\"h"]);
}

#[test]
fn svg_style_references_in_one_run_of_several() {
    let input = "<svg><style>a{b:url(&#x69;.png)}<g>url(&quot;n&quot;)</g>c{d:url(&quot;k&quot;)}</style></svg>";
    let (out, listed) = rewritten_and_listed(input);
    assert_eq!(
        out,
        "<svg><style>a{b:url(http://h/a/i.png)}<g>url(&quot;n&quot;)</g>c{d:url(\"http://h/a/k\")}</style></svg>"
    );
    assert_eq!(listed, ["i.png", "k"]);
}

#[test]
fn an_html_element_breaking_out_of_svg_style_ends_it() {
    let input = "<svg><style>a{b:url(i.png)}<img src=q>url(t)</style>";
    let out = rewrite(input.as_bytes(), &base(), &Options::default());
    assert_eq!(
        String::from_utf8(out.output).unwrap(),
        "<svg><style>a{b:url(http://h/a/i.png)}<img src=http://h/a/q>url(t)</style>"
    );
}

#[test]
fn svg_style_in_a_mime_part_and_an_mbox_loses_no_message() {
    let message = |body: &str| {
        format!(
            "From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\nContent-Location: http://h/a/b\n\n{body}\n"
        )
    };
    let mbox = [message("<svg><style><a href=x>"), message("<a href=y>")].concat();
    let out = absolve(&["rewrite", "--format", "mbox"], mbox.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("<svg><style><a href=http://h/a/x>"), "{text}");
    assert!(text.contains("<a href=http://h/a/y>"), "{text}");
}

/// How the warning names the encoding every `iso-2022-kr`-like label maps to.
const REPLACEMENT: &str = "the replacement encoding (ISO-2022-KR, ISO-2022-CN, HZ-GB-2312, ...)";

/// Item 4: the Japanese text `\x1b$B0<a/href=x>!\x1b(B` spells a tag in ASCII bytes.
const ISO_2022_JP_TEXT: &[u8] =
    b"\x1b\x24\x42\x30\x3c\x61\x2f\x68\x72\x65\x66\x3d\x78\x3e\x21\x1b\x28\x42";

#[test]
fn a_meta_naming_the_replacement_encoding_is_refused() {
    // UTF-16 labels are read as UTF-8 and ISO-2022-JP rereads the page in it
    // (`html_transcoded`); these decode any page to one U+FFFD.
    let labels = ["ISO-2022-KR", "hz-gb-2312", "csiso2022kr"];
    for label in labels {
        for meta in [
            format!("<meta charset={label}>"),
            format!("<meta http-equiv=Content-Type content='text/html; charset={label}'>"),
        ] {
            let mut input = meta.clone().into_bytes();
            input.extend_from_slice(ISO_2022_JP_TEXT);
            input.extend_from_slice(b"<a href=z>");
            let out = rewrite_and_list(
                &[b"<a href=p>", &input[..]].concat(),
                &base(),
                &Options::default(),
            );
            let mut expected = b"<a href=http://h/a/p>".to_vec();
            expected.extend_from_slice(&input);
            assert_eq!(out.output, expected, "{meta}");
            assert_eq!(
                out.warnings,
                [absolve::Warning::from(Warning::UnsupportedCharset(
                    REPLACEMENT
                ))],
                "{meta}"
            );
            assert_eq!(
                out.links.len(),
                1,
                "{meta}: only the link before the <meta>"
            );
        }
    }
}

#[test]
fn an_iso_2022_jp_meta_through_the_command_line_reads_the_text_in_it() {
    let mut input = b"<meta charset=iso-2022-jp>".to_vec();
    input.extend_from_slice(ISO_2022_JP_TEXT);
    input.extend_from_slice(b"<a href=y>");
    for subcommand in ["rewrite", "links"] {
        let out = absolve(&[subcommand, "--url", "http://h/a/b"], &input);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stderr(&out), "");
        let text = String::from_utf8_lossy(&out.stdout);
        if subcommand == "rewrite" {
            // The Japanese text, whose bytes spell `<a/href=x>`, is text.
            let mut expected = input.clone();
            expected.truncate(input.len() - b"y>".len());
            expected.extend_from_slice(b"http://h/a/y>");
            assert_eq!(out.stdout, expected);
        } else {
            assert_eq!(text.lines().count(), 1, "{text}");
            assert!(text.contains("\"original\":\"y\""), "{text}");
        }
    }
}

#[test]
fn an_ascii_compatible_meta_charset_still_applies() {
    let links = links(
        b"<meta charset=latin1><a href=\"\xe9\">",
        &base(),
        &Options::default(),
    );
    assert_eq!(links[0].original, "\u{e9}");
}

/// Pieces that open and close foreign content, raw text, templates and SVG styles in
/// every order: thousands of documents built from them never panic, come out the same
/// in any chunks, and rewrite to a fixed point.
#[test]
fn random_mixes_of_foreign_content_and_style_never_panic() {
    const PIECES: &[&str] = &[
        "<svg>",
        "</svg>",
        "<style>",
        "</style>",
        "<style/>",
        "<a href=x>",
        "</a>",
        "<g/>",
        "<g>",
        "</g>",
        "<template>",
        "</template>",
        "<noscript>",
        "</noscript>",
        "url(y)",
        "a{b:url(z)}",
        "<math>",
        "<mi href=m>",
        "</math>",
        "<p>",
        "<img src=i>",
        "<foreignObject>",
        "</foreignObject>",
        "<iframe srcdoc='<a href=s>'>",
        "&amp;",
        "<image href=\"q\"/>",
        "<base href=/b/>",
        "<![CDATA[url(c)]]>",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    for _ in 0..3000 {
        let doc: String = (0..12).map(|_| PIECES[next() % PIECES.len()]).collect();
        let whole = rewrite(doc.as_bytes(), &base(), &Options::default()).output;
        let mut rewriter = absolve::html::Rewriter::new(
            &base(),
            &Options::default(),
            absolve::html::Collected::default(),
        );
        for piece in doc.as_bytes().chunks(5) {
            rewriter.write(piece).unwrap();
        }
        assert_eq!(rewriter.end().unwrap().output, whole, "{doc}");
        let again = rewrite(&whole, &base(), &Options::default()).output;
        assert_eq!(again, whole, "{doc}");
        let _ = links(doc.as_bytes(), &base(), &Options::default());
    }
}

/// Found by the html fuzz target: a `codebase` with a space inside made the resolved
/// `archive` URLs contain a space, so a second rewrite split them into other URLs.
#[test]
fn whitespace_from_the_base_is_encoded_so_lists_stay_lists() {
    let page = br#"<object codebase="http://h/p q/" archive="a.jar b.jar"></object><base href="http://h/d e/"><img srcset="i.png 1x, j.png 2x">"#;
    let once = rewrite(page, &base(), &Options::default());
    let text = String::from_utf8(once.output.clone()).unwrap();
    assert!(
        text.contains(r#"archive="http://h/p%20q/a.jar http://h/p%20q/b.jar""#),
        "{text}"
    );
    assert!(
        text.contains(r#"srcset="http://h/d%20e/i.png 1x, http://h/d%20e/j.png 2x""#),
        "{text}"
    );
    let twice = rewrite(&once.output, &base(), &Options::default());
    assert_eq!(twice.output, once.output);
}

/// A `<noscript>` or `<style>` before a `<meta>` that changes the charset is read in the
/// charset in force where it was found, as an attribute there is, whatever the chunking
/// (the html fuzz target's third find: the region was read in the charset in force when
/// it was written out, so an undecodable byte in a `<noscript>` `<img src>` was rewritten
/// when the page came whole, the `<meta>` read first, and left as it was when the last
/// byte came in a chunk of its own).
#[test]
fn a_charset_meta_after_a_noscript_gives_the_same_output_whatever_the_chunks() {
    use absolve::base::Base;
    use absolve::html::{Collected, Options, Rewriter, rewrite};
    let page: &[u8] = b"<noscript><img src=\x85></noscript><style>a{background:url(\x85.png)}</style><img src=\x85><base href=\"\"><meta http-equiv=\"content-type\"content=\"charset=ascii\"><img src=\x85>";
    let base = Base::retrieval_url("http://h/a/b").unwrap();
    let whole = rewrite(page, &base, &Options::default());
    // Before the `<meta>`, UTF-8: the byte 0x85 does not decode and the three values are
    // left as they are; after it, windows-1252 (`ascii`'s encoding): it is `\u{2026}`,
    // resolved and written back in that charset.
    let expected: &[u8] = b"<noscript><img src=\x85></noscript><style>a{background:url(\x85.png)}</style><img src=\x85><base href=\"\"><meta http-equiv=\"content-type\"content=\"charset=ascii\"><img src=http://h/a/\x85>";
    assert_eq!(
        String::from_utf8_lossy(&whole.output),
        String::from_utf8_lossy(expected)
    );
    for size in [1, 7, 100, page.len() - 1] {
        let mut rewriter = Rewriter::new(&base, &Options::default(), Collected::default());
        for chunk in page.chunks(size) {
            rewriter.write(chunk).unwrap();
        }
        assert_eq!(
            whole.output,
            rewriter.end().unwrap().output,
            "chunks of {size}"
        );
    }
}
