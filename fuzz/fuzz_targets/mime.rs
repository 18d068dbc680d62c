//! Walks and rewrites arbitrary bytes as a MIME message and as an mbox: never panics,
//! and a message whose rewrite warned about nothing is stable under a second rewrite.
#![no_main]

use absolve::base::Base;
use absolve::mime::{self, Report};
use libfuzzer_sys::fuzz_target;

struct Quiet(bool);
impl Report for Quiet {
    fn warning(&mut self, _: mime::Warning) {
        self.0 = true;
    }
}

fuzz_target!(|message: &[u8]| {
    let base = Base::retrieval_url("http://h/a/b").unwrap();
    let mut report = Quiet(false);
    let once = mime::rewrite_message(message, &base, &Default::default(), &mut report);
    if !report.0 {
        let twice = mime::rewrite_message(&once, &base, &Default::default(), &mut Quiet(false));
        assert_eq!(twice, once);
    }
    for entry in mime::mbox::Messages::new(message) {
        let entry = entry.unwrap();
        let _ = mime::rewrite_message(&entry.message, &base, &Default::default(), &mut Quiet(false));
    }
});
