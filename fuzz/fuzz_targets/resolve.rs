//! Resolves arbitrary strings against arbitrary bases by both standards: must not panic,
//! and RFC 1808 must return a reference with a scheme unchanged (§4 step 2b).
#![no_main]

use absolve::url::{Standard, has_scheme, resolve_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, &str)| {
    let (base, reference) = input;
    let old = resolve_with(Standard::Rfc1808, base, reference);
    if has_scheme(reference) && !base.is_empty() {
        assert_eq!(old, reference);
    }
    let _ = resolve_with(Standard::Rfc3986, base, reference);
});
