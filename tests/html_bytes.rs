//! Byte-for-byte properties of the HTML rewriter, where text snapshots cannot see.

use absolve::base::{Base, BaseSource};
use absolve::html::{Options, Rewriter, Warning, rewrite, rewrite_and_list};
use absolve::{Collected, Problem};

fn base() -> Base {
    Base::retrieval_url("http://h/d/p.html").unwrap()
}

fn rewritten(input: &[u8]) -> Vec<u8> {
    rewrite(input, &base(), &Options::default()).output
}

#[test]
fn whitespace_quotes_and_line_endings_are_kept() {
    let input = b"<a\r\n\thref = 'x.html'  title=\"t\"\r\n>a</a>\r\n<img src=y.png\r\n>";
    let expected = b"<a\r\n\thref = 'http://h/d/x.html'  title=\"t\"\r\n>a</a>\r\n<img src=http://h/d/y.png\r\n>";
    assert_eq!(rewritten(input), expected);
}

#[test]
fn an_unquoted_value_that_now_needs_quotes_gets_double_quotes() {
    let base = Base::retrieval_url("http://h/a=b/").unwrap();
    let out = rewrite(b"<a href=x>x</a>", &base, &Options::default()).output;
    assert_eq!(out, b"<a href=\"http://h/a=b/x\">x</a>");
}

#[test]
fn a_legacy_charset_is_not_transcoded() {
    let input = b"<meta charset=windows-1252><a href=\"caf\xe9.html\">\xe9</a>";
    let expected = b"<meta charset=windows-1252><a href=\"http://h/d/caf\xe9.html\">\xe9</a>";
    assert_eq!(rewritten(input), expected);
}

#[test]
fn the_callers_charset_wins_over_meta_and_a_bom_wins_over_both() {
    let options = Options {
        charset: Some(encoding_rs::WINDOWS_1252),
        ..Options::default()
    };
    let input = b"<meta charset=utf-8><a href=\"\xe9\">";
    let out = rewrite(input, &base(), &options);
    assert_eq!(
        out.output,
        b"<meta charset=utf-8><a href=\"http://h/d/\xe9\">"
    );
    let with_bom = b"\xEF\xBB\xBF<a href=\"\xc3\xa9\">";
    let out = rewrite(with_bom, &base(), &options);
    assert_eq!(out.output, b"\xEF\xBB\xBF<a href=\"http://h/d/\xc3\xa9\">");
}

#[test]
fn bytes_invalid_in_the_charset_pass_through_with_a_warning() {
    let input = b"<p>\xff\xfe</p><a href=\"\xff.html\">x</a><a href=ok.html>";
    let out = rewrite(input, &base(), &Options::default());
    assert_eq!(
        out.output,
        b"<p>\xff\xfe</p><a href=\"\xff.html\">x</a><a href=http://h/d/ok.html>"
    );
    assert!(
        matches!(
            out.warnings[..],
            [absolve::Warning {
                problem: Problem::Html(Warning::Undecodable(18, "UTF-8")),
                ..
            }]
        ),
        "{:?}",
        out.warnings
    );
}

#[test]
fn shift_jis_bytes_outside_values_are_untouched() {
    let input = b"<meta charset=shift_jis><p>\xed\x40</p><a href=\"\x83\x65.html\">";
    let out = rewritten(input);
    assert_eq!(
        out,
        b"<meta charset=shift_jis><p>\xed\x40</p><a href=\"http://h/d/\x83\x65.html\">"
    );
}

/// CSS in Shift_JIS or Big5, whose characters may have `\\` (0x5C) as their second byte
/// (`ソ` is `83 5C`, `表` `95 5C`, Big5's `許` `B3 5C`), is read as text, not bytes: the
/// `5C` was taken for an escape that swallowed the quote after it, and the URL and every
/// one after it up to the next newline were lost (found by the tinycss2 fuzz).
#[test]
fn css_in_a_charset_whose_characters_hold_a_backslash_byte() {
    let cases: [(&[u8], &[u8]); 3] = [
        (
            b"<meta charset=shift_jis><style>a{b:url(\"\x83\x5C\")} c{d:url(\x95\x5C.png)} e{f:url(x.png)}</style>",
            b"<meta charset=shift_jis><style>a{b:url(\"http://h/d/%E3%82%BD\")} c{d:url(http://h/d/%E8%A1%A8.png)} e{f:url(http://h/d/x.png)}</style>",
        ),
        (
            b"<meta charset=big5><style>a{b:url('\xB3\x5C')} e{f:url(x.png)}</style>",
            b"<meta charset=big5><style>a{b:url('http://h/d/%E8%A8%B1')} e{f:url(http://h/d/x.png)}</style>",
        ),
        // An SVG `<style>` is text: the same, without character references in it.
        (
            b"<meta charset=shift_jis><svg><style>a{b:url(\"\x83\x5C\")} e{f:url(x.png)}</style></svg>",
            b"<meta charset=shift_jis><svg><style>a{b:url(\"http://h/d/%E3%82%BD\")} e{f:url(http://h/d/x.png)}</style></svg>",
        ),
    ];
    for (input, expected) in cases {
        let out = rewrite_and_list(input, &base(), &Options::default());
        assert_eq!(
            String::from_utf8_lossy(&out.output),
            String::from_utf8_lossy(expected)
        );
        let originals: Vec<&str> = out.links.iter().map(|l| l.original.as_str()).collect();
        assert!(originals.contains(&"x.png"), "{originals:?}");
        assert!(originals.iter().all(|o| !o.contains('\\')), "{originals:?}");
        // Rewritten again, nothing changes.
        assert_eq!(rewritten(&out.output), out.output);
    }
    // A stylesheet in Shift_JIS (its @charset).
    let css = b"@charset \"shift_jis\";\na{b:url(\"\x83\x5C\")} e{f:url(x.png)}";
    let out = crate::common::absolve(
        &["rewrite", "--format", "css", "--url", "http://h/d/s.css"],
        css,
    );
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "@charset \"shift_jis\";\na{b:url(\"http://h/d/%E3%82%BD\")} e{f:url(http://h/d/x.png)}"
    );
}

#[test]
fn the_replacement_encoding_passes_through_with_a_warning() {
    // UTF-16 and ISO-2022-JP are read (`html_transcoded`); labels such as ISO-2022-KR
    // name the replacement encoding, which decodes any page to one U+FFFD.
    let input = b"<a href=x>";
    let options = Options {
        charset: encoding_rs::Encoding::for_label(b"iso-2022-kr"),
        ..Options::default()
    };
    let out = rewrite(input, &base(), &options);
    assert_eq!(out.output, input);
    assert_eq!(
        out.warnings,
        [Warning::UnsupportedCharset("replacement")].map(absolve::Warning::from)
    );
}

#[test]
fn any_chunking_gives_the_same_bytes() {
    let input = std::fs::read("fixtures/html/css-in-style-attributes-and-elements.html").unwrap();
    let whole = rewritten(&input);
    for size in [1, 2, 3, 7, 64] {
        let mut rewriter = Rewriter::new(&base(), &Options::default(), Collected::default());
        for chunk in input.chunks(size) {
            rewriter.write(chunk).unwrap();
        }
        assert_eq!(rewriter.end().unwrap().output, whole, "chunks of {size}");
    }
}

#[test]
fn rewriting_twice_changes_nothing() {
    for entry in std::fs::read_dir("fixtures/html").unwrap() {
        let path = entry.unwrap().path();
        let once = rewritten(&std::fs::read(&path).unwrap());
        assert_eq!(rewritten(&once), once, "{}", path.display());
    }
}

#[test]
fn without_any_base_nothing_changes() {
    let input = std::fs::read("fixtures/html/attributes-html-living-standard.html").unwrap();
    let out = rewrite_and_list(&input, &Base::none(), &Options::default());
    assert_eq!(out.output, input);
    assert!(out.links.len() > 20);
    assert!(
        out.links
            .iter()
            .all(|l| l.base_from == BaseSource::None && l.resolved == l.original)
    );
}

#[test]
fn a_base_past_the_lookahead_is_not_used_and_both_are_warned_about() {
    let options = Options {
        base_lookahead: 16,
        ..Options::default()
    };
    let mut rewriter = Rewriter::new(&base(), &options, Collected::default());
    rewriter.write(b"<a href=a.html>a</a>").unwrap();
    rewriter
        .write(b"<base href=/other/><a href=b.html>")
        .unwrap();
    let out = rewriter.end().unwrap();
    assert_eq!(
        out.output,
        b"<a href=http://h/d/a.html>a</a><base href=http://h/other/><a href=http://h/d/b.html>"
    );
    assert_eq!(
        out.warnings,
        [Warning::BaseLookaheadExceeded(16), Warning::LateBase(20)].map(absolve::Warning::from)
    );
}

#[test]
fn a_tag_larger_than_the_buffer_passes_through_and_the_rest_is_kept() {
    let options = Options {
        max_buffer: 4096,
        ..Options::default()
    };
    let mut input = b"<a href=a.html>".to_vec();
    input.extend(b"<img alt=\"");
    input.extend(std::iter::repeat_n(b'x', 100_000));
    input.extend(b"\"><a href=b.html>");
    let mut rewriter = Rewriter::new(&base(), &options, Collected::default());
    for chunk in input.chunks(1024) {
        rewriter.write(chunk).unwrap();
    }
    let out = rewriter.end().unwrap();
    assert!(out.output.starts_with(b"<a href=http://h/d/a.html>"));
    assert_eq!(out.output.len(), input.len() + "http://h/d/".len());
    assert!(out.output.ends_with(b"<a href=b.html>"));
    assert!(
        matches!(
            out.warnings[..],
            [absolve::Warning {
                problem: Problem::Html(Warning::ParserStopped { .. }),
                ..
            }]
        ),
        "{:?}",
        out.warnings
    );
}

#[test]
fn attributes_of_one_element_are_written_in_order_whichever_handler_saw_them_first() {
    let input = b"<meta itemid=\"i\" http-equiv=refresh content=\"0; url=r\" style=\"b:url(s)\">";
    let expected = b"<meta itemid=\"http://h/d/i\" http-equiv=refresh content=\"0; url=http://h/d/r\" style=\"b:url(http://h/d/s)\">";
    assert_eq!(rewritten(input), expected);
}

#[test]
fn values_that_cannot_change_are_the_same_whether_or_not_links_are_listed() {
    let input = b"<a href=' #x'>a</a><a href=\"HTTP:x\">b</a><a href='&#35;y'>c</a><a href=r>d</a><svg><a href=#s /></svg>";
    let plain = rewrite(input, &base(), &Options::default());
    let listed = rewrite_and_list(input, &base(), &Options::default());
    assert_eq!(plain.output, listed.output);
    assert_eq!(listed.links.len(), 5);
    let fragments = Options {
        resolve_fragments: true,
        ..Options::default()
    };
    let out = rewrite(input, &base(), &fragments).output;
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "<a href='http://h/d/p.html#x'>a</a><a href=\"HTTP:x\">b</a><a href='http://h/d/p.html#y'>c</a><a href=http://h/d/r>d</a><svg><a href=#s /></svg>"
    );
}
