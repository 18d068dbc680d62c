//! Rewrites arbitrary bytes as a feed (a feed's start prepended half the time, so that the
//! XML Base, URL-element and HTML-content paths are reached), whole and in chunks: never
//! panics, chunking never changes the output or the links, and a feed rewritten without a
//! warning does not change when rewritten again.
#![no_main]

use absolve::base::Base;
use absolve::feed::{self, Rewriter};
use absolve::html::{Collected, Options};
use libfuzzer_sys::fuzz_target;

const START: &[u8] = b"<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"d/\">";

fuzz_target!(|input: (u8, bool, &[u8])| {
    let (chunk, prefixed, body) = input;
    let mut document = Vec::new();
    if prefixed {
        document.extend_from_slice(START);
    }
    document.extend_from_slice(body);
    let base = Base::retrieval_url("http://h/a/b").unwrap();
    let options = Options::default();
    let whole = feed::rewrite(&document, &base, &options, None);
    let mut rewriter = Rewriter::new(&base, &options, None, Collected::default());
    for piece in document.chunks(usize::from(chunk).max(1)) {
        rewriter.write(piece).unwrap();
    }
    let chunked = rewriter.end().unwrap();
    assert_eq!(whole.output, chunked.output);
    assert_eq!(whole.links, chunked.links);
    if whole.warnings.is_empty() {
        let again = feed::rewrite(&whole.output, &base, &options, None);
        assert_eq!(again.output, whole.output);
    }
});
