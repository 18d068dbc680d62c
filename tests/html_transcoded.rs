//! Pages in a charset that is not ASCII-compatible (UTF-16LE, UTF-16BE, ISO-2022-JP):
//! read through UTF-8 as a browser decodes them, each changed value written back in the
//! page's charset, every other byte the page's own (damaged ones too).

use crate::common::{absolve, stderr};
use absolve::base::Base;
use absolve::html::{Options, Rewriter, Warning, rewrite, rewrite_and_list};
use absolve::{Collected, Problem};
use encoding_rs::{Encoding, ISO_2022_JP, UTF_8, UTF_16BE, UTF_16LE};
use proptest::prelude::*;

fn base() -> Base {
    Base::retrieval_url("http://h/d/p.html").unwrap()
}

fn in_charset(encoding: &'static Encoding) -> Options {
    Options {
        charset: Some(encoding),
        ..Options::default()
    }
}

fn utf16(text: &str, encoding: &'static Encoding) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|unit| match encoding == UTF_16LE {
            true => unit.to_le_bytes(),
            false => unit.to_be_bytes(),
        })
        .collect()
}

/// The page rewritten as its text would be in UTF-8, then encoded back: what the
/// bytes must decode to.
fn as_utf8_rewrites(text: &str, base: &Base) -> String {
    let out = rewrite(text.as_bytes(), base, &in_charset(UTF_8)).output;
    String::from_utf8(out).unwrap()
}

/// Rewritten from chunks of `size` bytes.
fn in_chunks(page: &[u8], size: usize, base: &Base, options: &Options) -> Collected {
    let mut rewriter = Rewriter::new(base, options, Collected::default());
    for chunk in page.chunks(size.max(1)) {
        rewriter.write(chunk).unwrap();
    }
    rewriter.end().unwrap()
}

#[test]
fn utf16_with_a_byte_order_mark_is_rewritten_in_utf16() {
    let text = "<p>été</p><a href=x.html>𝄞</a><img src='../i.png'>";
    for encoding in [UTF_16LE, UTF_16BE] {
        let bom = utf16("\u{FEFF}", encoding);
        let page = [bom.clone(), utf16(text, encoding)].concat();
        let done = rewrite_and_list(&page, &base(), &Options::default());
        let expected = "<p>été</p><a href=http://h/d/x.html>𝄞</a><img src='http://h/i.png'>";
        assert_eq!(done.output, [bom, utf16(expected, encoding)].concat());
        assert!(done.warnings.is_empty(), "{:?}", done.warnings);
        // Each link's offset is its value's in the page's own bytes.
        for link in &done.links {
            let at = link.offset as usize;
            let written = utf16(&link.original, encoding);
            assert_eq!(page[at..at + written.len()], written, "{}", link.original);
        }
    }
}

#[test]
fn the_callers_utf16_needs_no_byte_order_mark() {
    let page = utf16("<a href=x>", UTF_16BE);
    let out = rewrite(&page, &base(), &in_charset(UTF_16BE)).output;
    assert_eq!(out, utf16("<a href=http://h/d/x>", UTF_16BE));
}

#[test]
fn a_meta_naming_utf16_is_read_as_utf8() {
    // HTML §13.2.3.2: a page whose <meta> can be read is not UTF-16.
    let page = "<meta charset=utf-16><a href=é.html>";
    let done = rewrite_and_list(page.as_bytes(), &base(), &Options::default());
    assert_eq!(done.links[0].original, "é.html");
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
}

/// `日本` in ISO-2022-JP, between its escapes.
const NIHON: &[u8] = b"\x1b$BF|K\\\x1b(B";

#[test]
fn iso_2022_jp_keeps_its_escapes_and_text() {
    let page = [
        &b"<title>"[..],
        NIHON,
        b"</title><a href=\"",
        NIHON,
        b"/x.html\">",
        NIHON,
        b"</a><img src=y.png>",
    ]
    .concat();
    let done = rewrite_and_list(&page, &base(), &in_charset(ISO_2022_JP));
    let expected = [
        &b"<title>"[..],
        NIHON,
        b"</title><a href=\"http://h/d/",
        NIHON,
        b"/x.html\">",
        NIHON,
        b"</a><img src=http://h/d/y.png>",
    ]
    .concat();
    assert_eq!(done.output, expected);
    assert_eq!(done.links[0].original, "日本/x.html");
    assert_eq!(
        done.links[0].offset, 34,
        "the value's offset in the page's bytes"
    );
}

#[test]
fn a_value_read_in_jis_roman_comes_back_in_jis_roman() {
    // ESC ( J: 0x5C is YEN SIGN and 0x7E OVERLINE; the copy after the new value needs
    // the decoder back in that state.
    let page = b"\x1b(J<a href=\"a\\b\">~</a>\x1b(B";
    let out = rewrite(page, &base(), &in_charset(ISO_2022_JP)).output;
    let (text, _, errors) = ISO_2022_JP.decode(&out);
    assert!(!errors, "{out:?}");
    let (page_text, _, _) = ISO_2022_JP.decode(page);
    assert_eq!(text, as_utf8_rewrites(&page_text, &base()));
    assert!(text.ends_with("\">‾</a>"), "{text}");
}

#[test]
fn a_meta_naming_iso_2022_jp_rereads_the_page_from_its_start() {
    let page = [
        &b"<a href=p><meta charset=iso-2022-jp>"[..],
        // Japanese text whose bytes spell `<a/href=x>` in ASCII: no link.
        b"\x1b$B0<a/href=x>!\x1b(B",
        b"<a href=z>",
    ]
    .concat();
    let done = rewrite_and_list(&page, &base(), &Options::default());
    let found: Vec<_> = done.links.iter().map(|l| l.original.as_str()).collect();
    assert_eq!(found, ["p", "z"]);
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    let expected = [
        &b"<a href=http://h/d/p><meta charset=iso-2022-jp>"[..],
        b"\x1b$B0<a/href=x>!\x1b(B",
        b"<a href=http://h/d/z>",
    ]
    .concat();
    assert_eq!(done.output, expected);
}

#[test]
fn a_damaged_value_is_left_as_it_is_with_a_warning() {
    // A lone high surrogate (D800) in the value.
    let mut page = utf16("<a href=\"x", UTF_16LE);
    page.extend_from_slice(b"\x00\xD8");
    page.extend(utf16("y\"><a href=z>", UTF_16LE));
    let done = rewrite_and_list(&page, &base(), &in_charset(UTF_16LE));
    let mut expected = utf16("<a href=\"x", UTF_16LE);
    expected.extend_from_slice(b"\x00\xD8");
    expected.extend(utf16("y\"><a href=http://h/d/z>", UTF_16LE));
    assert_eq!(done.output, expected);
    assert_eq!(
        done.warnings,
        [absolve::Warning::from(Warning::Undecodable(18, "UTF-16LE"))]
    );
    assert!(matches!(done.warnings[0].problem, Problem::Html(_)));
}

#[test]
fn the_command_line_rewrites_and_lists_an_iso_2022_jp_page() {
    let page = [
        &b"<meta charset=iso-2022-jp><a href=\""[..],
        NIHON,
        b"\">x</a>",
    ]
    .concat();
    let out = absolve(&["rewrite", "--url", "http://h/a/b"], &page);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let expected = [
        &b"<meta charset=iso-2022-jp><a href=\"http://h/a/"[..],
        NIHON,
        b"\">x</a>",
    ]
    .concat();
    assert_eq!(out.stdout, expected);
    let out = absolve(&["links", "--url", "http://h/a/b"], &page);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"original\":\"日本\""), "{text}");
    assert!(text.contains("\"offset\":35"), "{text}");
}

/// A piece of an ISO-2022-JP page: its text and its bytes.
fn jis_piece() -> impl Strategy<Value = (String, Vec<u8>)> {
    let reference = prop_oneof![
        Just(("x.html".to_string(), b"x.html".to_vec())),
        Just(("../y?q=1".to_string(), b"../y?q=1".to_vec())),
        Just(("日本/z".to_string(), [NIHON, b"/z"].concat())),
        Just(("ｶﾀ".to_string(), b"\x1b(I6@\x1b(B".to_vec())),
        Just(("a¥b‾".to_string(), b"\x1b(Ja\\b~\x1b(B".to_vec())),
        Just(("http://o/abs".to_string(), b"http://o/abs".to_vec())),
    ];
    prop_oneof![
        "[a-z <>/=\"'\n]{0,12}".prop_map(|t| (t.clone(), t.into_bytes())),
        reference.clone().prop_map(|(t, b)| (
            format!("<a href=\"{t}\">"),
            [&b"<a href=\""[..], &b, b"\">"].concat()
        )),
        reference.prop_map(|(t, b)| (
            format!("<img src={t} alt=x>"),
            [&b"<img src="[..], &b, b" alt=x>"].concat()
        )),
        "[日本語の文書]{1,6}".prop_map(|t| {
            let bytes = ISO_2022_JP.encode(&t).0.into_owned();
            (t, bytes)
        }),
        Just(("ｱｲ".to_string(), b"\x1b(I12\x1b(B".to_vec())),
        // Roman state around a whole tag: its value is replaced mid-run.
        Just((
            "<a href='r¥s'>‾".to_string(),
            b"\x1b(J<a href='r\\s'>~\x1b(B".to_vec()
        )),
        Just((
            "<style>a{b:url(c.png)}</style>".to_string(),
            b"<style>a{b:url(c.png)}</style>".to_vec()
        )),
        // Damage: a byte no state reads, an escape cut short, one escape after another.
        Just(("\u{FFFD}".to_string(), b"\x0E".to_vec())),
        Just(("\u{FFFD}".to_string(), b"\x1b$".to_vec())),
        Just((
            "<a href=\"\u{FFFD}x\">".to_string(),
            b"<a href=\"\x1b(B\x1b(Bx\">".to_vec()
        )),
    ]
}

fn jis_page() -> impl Strategy<Value = (String, Vec<u8>)> {
    // A space between pieces: an escape right after another is an error in ISO-2022-JP.
    prop::collection::vec(jis_piece(), 0..12).prop_map(|pieces| {
        let mut text = String::new();
        let mut bytes = Vec::new();
        for (t, b) in pieces {
            text.push_str(&t);
            text.push(' ');
            bytes.extend_from_slice(&b);
            bytes.push(b' ');
        }
        (text, bytes)
    })
}

/// A UTF-16 page: pieces of text, some with lone surrogates (damage).
fn utf16_page() -> impl Strategy<Value = (Vec<u8>, bool)> {
    let piece = prop_oneof![
        "[a-zé日𝄞 <>/=\"'\n]{0,10}".prop_map(|t| t.encode_utf16().collect::<Vec<u16>>()),
        "[a-z./é日]{0,6}".prop_map(|r| format!("<a href=\"{r}\">").encode_utf16().collect()),
        "[a-z./]{0,6}".prop_map(|r| format!("<img src={r}>").encode_utf16().collect()),
        Just(vec![0xD800]),
        Just(vec![0xDC00, 0x41]),
    ];
    (prop::collection::vec(piece, 0..12), any::<bool>()).prop_map(|(pieces, little)| {
        let units: Vec<u16> = pieces.concat();
        let damaged = String::from_utf16(&units).is_err();
        let bytes = units
            .iter()
            .flat_map(|u| match little {
                true => u.to_le_bytes(),
                false => u.to_be_bytes(),
            })
            .collect::<Vec<u8>>();
        let mut page = match little {
            true => b"\xFF\xFE".to_vec(),
            false => b"\xFE\xFF".to_vec(),
        };
        page.extend(bytes);
        (page, damaged)
    })
}

proptest! {
    #[test]
    fn an_iso_2022_jp_page_decodes_to_its_text_rewritten(
        (text, page) in jis_page(), size in 1usize..40
    ) {
        let options = in_charset(ISO_2022_JP);
        let done = in_chunks(&page, size, &base(), &options);
        prop_assert_eq!(&done.output, &rewrite(&page, &base(), &options).output);
        if !ISO_2022_JP.decode(&page).2 {
            let (decoded, _, errors) = ISO_2022_JP.decode(&done.output);
            prop_assert!(!errors, "{:?}", String::from_utf8_lossy(&done.output));
            prop_assert_eq!(decoded, as_utf8_rewrites(&text, &base()));
        }
        // Nothing to change: every byte comes back.
        prop_assert_eq!(rewrite(&page, &Base::none(), &options).output, page);
    }

    #[test]
    fn a_utf16_page_keeps_every_byte_it_does_not_change((page, damaged) in utf16_page(), size in 1usize..40) {
        let options = Options::default();
        let whole = rewrite(&page, &base(), &options);
        let done = in_chunks(&page, size, &base(), &options);
        prop_assert_eq!(&done.output, &whole.output);
        prop_assert_eq!(rewrite(&page, &Base::none(), &options).output, page.clone());
        let encoding = Encoding::for_bom(&page).unwrap().0;
        if !damaged {
            let (text, _) = encoding.decode_with_bom_removal(&page);
            let (decoded, _) = encoding.decode_with_bom_removal(&whole.output);
            prop_assert_eq!(decoded, as_utf8_rewrites(&text, &base()));
            prop_assert!(whole.warnings.is_empty());
        }
    }
}

/// An ISO-2022-JP page that ends inside an escape sequence (`ESC $`, a file cut short):
/// its bytes come back as they are. The decoder, finished at the end, was called once
/// more to output the byte after the `ESC` it reads again, and panicked.
#[test]
fn an_iso_2022_jp_page_cut_short_in_an_escape_keeps_its_bytes() {
    for end in [&b"\x1b$"[..], b"\x1b(", b"\x1b", b"\x1b$BF"] {
        let page = [&b"<a href=x>"[..], end].concat();
        let done = rewrite_and_list(&page, &base(), &in_charset(ISO_2022_JP));
        assert_eq!(done.output, [&b"<a href=http://h/d/x>"[..], end].concat());
        assert_eq!(done.links.len(), 1);
    }
}
