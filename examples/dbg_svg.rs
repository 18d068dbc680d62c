use absolve::base::Base;
use absolve::html::{Collected, Options, Rewriter, rewrite};
fn main() {
    let doc = std::env::args().nth(1).unwrap();
    let document = doc.as_bytes();
    let base = Base::retrieval_url("http://h/a/b").unwrap();
    let options = Options::default();
    let whole = rewrite(document, &base, &options);
    println!(
        "whole:   {:?} {:?}",
        String::from_utf8_lossy(&whole.output),
        whole.warnings
    );
    let mut rewriter = Rewriter::new(&base, &options, Collected::default());
    rewriter.write(document).unwrap();
    let chunked = rewriter.end().unwrap();
    println!(
        "stream:  {:?} {:?}",
        String::from_utf8_lossy(&chunked.output),
        chunked.warnings
    );
    let mut rewriter = Rewriter::with_document_base(&base, &base, &options, Collected::default());
    rewriter.write(document).unwrap();
    let known = rewriter.end().unwrap();
    println!("known:   {:?}", String::from_utf8_lossy(&known.output));
}
