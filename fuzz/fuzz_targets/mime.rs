//! Walks and rewrites arbitrary bytes as a MIME message and as an mbox: never panics,
//! and a message whose rewrite warned about nothing is stable under a second rewrite.
#![no_main]

use absolve::base::Base;
use absolve::mime;
use absolve::{Sink, Warning};
use libfuzzer_sys::fuzz_target;

/// Whether a warning was seen; the rest is dropped.
struct Quiet(bool);
impl Sink for Quiet {
    fn output(&mut self, _: &[u8]) -> std::io::Result<()> {
        Ok(())
    }
    fn warning(&mut self, _: Warning) {
        self.0 = true;
    }
}

fuzz_target!(|message: &[u8]| {
    let base = Base::retrieval_url("http://h/a/b").unwrap();
    let mut report = Quiet(false);
    let once = mime::rewrite_message(message, 1, &base, &Default::default(), &mut report);
    if !report.0 {
        let twice = mime::rewrite_message(&once, 1, &base, &Default::default(), &mut Quiet(false));
        assert_eq!(twice, once);
    }
    for entry in mime::mbox::Messages::new(message) {
        let entry = entry.unwrap();
        let number = entry.number.unwrap_or(1);
        let _ = mime::rewrite_message(
            &entry.message,
            number,
            &base,
            &Default::default(),
            &mut Quiet(false),
        );
    }
});
