//! The streaming rewriter can move between threads (a server holds it across
//! an `.await`). A compile-time check: this file does not build if it is not `Send`.

use absolve::html::{Collected, Options, Rewriter};

fn assert_send<T: Send>() {}

#[test]
fn the_rewriter_and_its_options_are_send() {
    assert_send::<Rewriter<Collected>>();
    assert_send::<Options>();
}

#[test]
fn a_rewriter_moved_to_another_thread_mid_document_finishes_there() {
    let base = absolve::base::Base::retrieval_url("http://h/d/").unwrap();
    let mut rewriter = Rewriter::new(&base, &Options::default(), Collected::default());
    rewriter.write(b"<a hr").unwrap();
    let done = std::thread::spawn(move || {
        rewriter.write(b"ef=x>").unwrap();
        rewriter.end().unwrap()
    })
    .join()
    .unwrap();
    assert_eq!(done.output, b"<a href=http://h/d/x>");
}
