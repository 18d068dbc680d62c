//! The floor under any link lister built on lol_html, for `benches/warc_links.sh`: what
//! is left of `absolve links` over a `.warc.gz` when absolve's own work (finding every
//! URL attribute, decoding values, resolving, the JSON lines) is taken away.
//!
//!     lol_html_floor parse PAYLOADS TIMES   lol_html over each HTML payload, TIMES over
//!     lol_html_floor inflate FILE.gz        gzip members inflated to nowhere
//!     lol_html_floor html FILE...           lol_html over each file, a payload each
//!
//! `parse` reads PAYLOADS (each body as a 4-byte little-endian length and its bytes, as
//! `benches/warc_links.py payloads` writes them) and runs lol_html over each, chunked as
//! absolve feeds it, with the least handler a lister has: every element's attributes
//! read, the `href` and `src` values taken. lol_html is kept in its lexer as absolve
//! keeps it (a document comment handler), which is its faster mode for a `*` selector.
//! `inflate` is libdeflate, member by member, as absolve reads a `.warc.gz`. Each prints a count
//! (links, or bytes) so that the work cannot be skipped. `html` is `parse` over files as
//! they are (`pgo/build.sh` trains the floor with it on `fixtures/`).
//!
//! Run with `cargo run --release --example lol_html_floor -- parse PAYLOADS 1`.

use lol_html::{HtmlRewriter, Settings, doc_comments, element};
use std::io::{self, BufReader};
use std::process::ExitCode;

/// How absolve hands a payload to lol_html: in pieces of this size.
const CHUNK: usize = 64 * 1024;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["parse", payloads, times] => parse(payloads, times),
        ["inflate", file] => inflate(file),
        ["html", ref files @ ..] => html(files),
        _ => Err(
            "usage: lol_html_floor parse PAYLOADS TIMES | inflate FILE.gz | html FILE...".into(),
        ),
    };
    match result {
        Ok(count) => {
            println!("{count}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("lol_html_floor: {error}");
            ExitCode::FAILURE
        }
    }
}

/// lol_html over every payload of the file, `times` over: the `href`/`src` values seen.
fn parse(path: &str, times: &str) -> Result<u64, Box<dyn std::error::Error>> {
    let data = std::fs::read(path)?;
    let payloads = split_payloads(&data).ok_or("a payload runs past the end of the file")?;
    let mut links = 0;
    for _ in 0..times.parse::<u32>()? {
        for payload in &payloads {
            links += list(payload);
        }
    }
    Ok(links)
}

/// lol_html over each file, whole: the `href`/`src` values seen.
fn html(paths: &[&str]) -> Result<u64, Box<dyn std::error::Error>> {
    let mut links = 0;
    for path in paths {
        links += list(&std::fs::read(path)?);
    }
    Ok(links)
}

/// The bodies of a file of length-prefixed bodies; `None` if one is cut short.
fn split_payloads(mut data: &[u8]) -> Option<Vec<&[u8]>> {
    let mut payloads = Vec::new();
    while let Some((length, rest)) = data.split_first_chunk::<4>() {
        let length = u32::from_le_bytes(*length) as usize;
        payloads.push(rest.get(..length)?);
        data = &rest[length..];
    }
    Some(payloads)
}

/// One payload through lol_html; its `href` and `src` values counted.
fn list(payload: &[u8]) -> u64 {
    let mut links = 0;
    let settings = Settings::new()
        .with_strict(false)
        .append_element_content_handler(element!("*", |el| {
            for attribute in el.attributes() {
                let name = attribute.name();
                if name == "href" || name == "src" {
                    std::hint::black_box(attribute.value());
                    links += 1;
                }
            }
            Ok(())
        }))
        .append_document_content_handler(doc_comments!(|_| Ok(())));
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    for chunk in payload.chunks(CHUNK) {
        if rewriter.write(chunk).is_err() {
            break;
        }
    }
    drop(rewriter.end());
    links
}

/// Inflates every gzip member of a file: the bytes they hold. As absolve does, each
/// member is decompressed whole by libdeflate when it fits in 2 MiB (with the
/// `libdeflate` feature, the default); from the first one that does not, flate2 with
/// zlib-rs streams the rest.
fn inflate(path: &str) -> Result<u64, Box<dyn std::error::Error>> {
    let data = std::fs::read(path)?;
    let (mut rest, mut produced) = (&data[..], 0);
    #[cfg(feature = "libdeflate")]
    {
        let mut decompressor = absolve_libdeflate::Decompressor::new();
        let mut output = vec![0; 2 << 20];
        while let Ok(member) = decompressor.gzip_member(rest, &mut output) {
            std::hint::black_box(&output[..member.produced]);
            produced += member.produced as u64;
            rest = &rest[member.consumed..];
        }
    }
    if !rest.is_empty() {
        let mut members = flate2::bufread::MultiGzDecoder::new(BufReader::new(rest));
        produced += io::copy(&mut members, &mut io::sink())?;
    }
    Ok(produced)
}
