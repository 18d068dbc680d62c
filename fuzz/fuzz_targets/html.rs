//! Rewrites arbitrary bytes as HTML, whole and in chunks: never panics, chunking never
//! changes the output, and a second rewrite changes nothing.
#![no_main]

use absolve::base::Base;
use absolve::html::{Collected, Options, Rewriter, rewrite};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (u8, &[u8])| {
    let (chunk, document) = input;
    let base = Base::retrieval_url("http://h/a/b").unwrap();
    let options = Options::default();
    let whole = rewrite(document, &base, &options);
    let mut rewriter = Rewriter::new(&base, &options, Collected::default());
    for piece in document.chunks(usize::from(chunk).max(1)) {
        rewriter.write(piece).unwrap();
    }
    let chunked = rewriter.end().unwrap();
    assert_eq!(whole.output, chunked.output);
    if whole.warnings.is_empty() {
        let again = rewrite(&whole.output, &base, &options);
        assert_eq!(again.output, whole.output);
    }
});
