//! Reads and rewrites arbitrary bytes as a WARC (framing, gzip members, HTTP heads,
//! chunked bodies, content codings): never panics; damage is never an error once a
//! record was read; a plain file that `rewrite` leaves unchanged without a warning comes
//! out byte for byte; what `rewrite` writes reads back.
//!
//! The first byte says how the rest is given: 0 as it is, 1 gzipped as one stream, 2 a
//! gzip member per record (cut before each `WARC/1.`).
#![no_main]

use absolve::warc::{Links, rewrite};
use absolve::{Collected, Event, Options};
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fn gzip(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts {
        let mut encoder = flate2::write::GzEncoder::new(&mut out, flate2::Compression::fast());
        encoder.write_all(part).unwrap();
        encoder.finish().unwrap();
    }
    out
}

/// `data` cut before each `WARC/1.` that starts a line.
fn records(data: &[u8]) -> Vec<&[u8]> {
    let mut starts: Vec<usize> = (1..data.len())
        .filter(|&i| data[i - 1] == b'\n' && data[i..].starts_with(b"WARC/1."))
        .collect();
    starts.insert(0, 0);
    starts.push(data.len());
    starts.windows(2).map(|w| &data[w[0]..w[1]]).collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let input = match mode % 3 {
        0 => rest.to_vec(),
        1 => gzip(&[rest]),
        _ => gzip(&records(rest)),
    };
    let mut listed = 0;
    let mut failed = false;
    for event in Links::new(&input[..], Options::new()) {
        match event {
            Ok(Event::Link(_)) => listed += 1,
            Ok(Event::Warning(_)) => {}
            Err(_) => failed = true,
        }
    }
    let mut out = Collected::output_only();
    match rewrite(&input[..], &Options::new(), &mut out) {
        Ok(summary) => {
            if mode % 3 == 0
                && summary.rewritten == 0
                && out.warnings.is_empty()
                && !input.starts_with(&[0x1f, 0x8b])
            {
                assert!(out.output == input, "an unchanged plain file is copied");
            }
            // What was written reads back (no error: it starts with a record).
            if summary.records > 0 && !failed && listed > 0 {
                for event in Links::new(&out.output[..], Options::new()) {
                    assert!(event.is_ok(), "{event:?}");
                }
            }
        }
        Err(_) => assert!(failed || listed == 0, "rewrite failed where links did not"),
    }
});
