//! Streaming: a record that is not HTML is read past (by `Links`) and copied (by
//! `rewrite`) without being held: the peak of heap memory stays far below its size. An
//! mboxcl message's rewrite is not held beside the message.
//! The records are made on the fly by a reader, and the heap is measured by a counting
//! allocator. Its counters are the whole process's, and the other modules' tests run
//! beside these: each measurement runs in a child process of this test binary that runs
//! that one test alone (`alone`).

use crate::common::warc;
use absolve::format::Format;
use absolve::pipeline::{self, Input};
use absolve::warc::{Links, rewrite};
use absolve::{Event, Options, Sink};
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{self, Read, Write};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// One test at a time: the counters are global.
static SERIAL: Mutex<()> = Mutex::new(());

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = NOW.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    /// Counted as the system's `realloc` does it for a large block (glibc moves its pages,
    /// `mremap`): the old and the new block are not both resident.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        let now = if new_size > old {
            NOW.fetch_add(new_size - old, Ordering::Relaxed) + new_size - old
        } else {
            NOW.fetch_sub(old - new_size, Ordering::Relaxed) - (old - new_size)
        };
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A WARC of a small HTML response, a `size`-byte image response, and another HTML one,
/// made as it is read.
fn archive(size: usize) -> impl Read {
    let html = |n: usize| {
        let http = warc::http_ok(
            "Content-Type: text/html\r\n",
            format!("<a href=p{n}>").as_bytes(),
        );
        warc::response_without_id("http://h/", &http)
    };
    let image_head = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n";
    let image = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://h/i.png\r\n\
         Content-Type: application/http\r\nContent-Length: {}\r\n\r\n{image_head}",
        image_head.len() + size
    );
    io::Cursor::new([html(1), image.into_bytes()].concat())
        .chain(io::repeat(b'x').take(size as u64))
        .chain(io::Cursor::new([&b"\r\n\r\n"[..], &html(2)].concat()))
}

fn gzipped(size: usize) -> Vec<u8> {
    let mut all = Vec::new();
    archive(size).read_to_end(&mut all).unwrap();
    // One member per record: split at each `WARC/1.0` line.
    let mut out = Vec::new();
    let mut starts: Vec<_> = all
        .windows(10)
        .enumerate()
        .filter(|(i, w)| *w == b"WARC/1.0\r\n" && (*i == 0 || all[i - 1] == b'\n'))
        .map(|(i, _)| i)
        .collect();
    starts.push(all.len());
    for pair in starts.windows(2) {
        let mut gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::fast());
        gz.write_all(&all[pair[0]..pair[1]]).unwrap();
        gz.finish().unwrap();
    }
    out
}

/// Set in the child process that runs one measurement alone.
const ALONE: &str = "ABSOLVE_TEST_HEAP_ALONE";

/// Runs `test` (this module's test function `name`) in a child process of this test
/// binary where it is the only test, so that no other test's allocations are counted;
/// in that child, runs `test` itself.
fn alone(name: &str, test: impl FnOnce()) {
    if std::env::var_os(ALONE).is_some() {
        return test();
    }
    // libtest names a test by its path without the crate's name.
    let path = module_path!().split_once("::").unwrap().1;
    let out = Command::new(std::env::current_exe().unwrap())
        .args([&format!("{path}::{name}"), "--exact", "--test-threads=1"])
        .env(ALONE, "1")
        .output()
        .unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{report}");
    assert!(report.contains("1 passed"), "the test ran: {report}");
}

/// The peak heap growth while `run` runs.
fn peak_during(run: impl FnOnce()) -> usize {
    let base = NOW.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    run();
    PEAK.load(Ordering::Relaxed) - base
}

const MIB: usize = 1 << 20;

#[test]
fn links_read_past_a_large_record() {
    alone("links_read_past_a_large_record", || {
        let _serial = SERIAL.lock().unwrap();
        let peak = peak_during(|| {
            let links: Vec<_> = Links::new(archive(32 * MIB), Options::default())
                .map(Result::unwrap)
                .filter(|event| matches!(event, Event::Link(_)))
                .collect();
            assert_eq!(links.len(), 2);
        });
        assert!(peak < 4 * MIB, "peak {peak} bytes");
    });
}

#[test]
fn rewrite_copies_a_large_record_through() {
    alone("rewrite_copies_a_large_record_through", || {
        let _serial = SERIAL.lock().unwrap();
        let mut written = 0u64;
        let peak = peak_during(|| {
            let mut out = CountingWriter(&mut written);
            let summary = rewrite(archive(32 * MIB), &Options::default(), &mut out).unwrap();
            assert_eq!((summary.rewritten, summary.copied), (2, 1));
        });
        assert!(written > 32 * MIB as u64);
        assert!(peak < 4 * MIB, "peak {peak} bytes");
    });
}

#[test]
fn gzip_members_are_forwarded_not_held() {
    alone("gzip_members_are_forwarded_not_held", || {
        let _serial = SERIAL.lock().unwrap();
        let input = gzipped(16 * MIB);
        let mut written = 0u64;
        let peak = peak_during(|| {
            let links = Links::new(&input[..], Options::default())
                .filter(|event| !matches!(event, Ok(Event::Warning(_))))
                .count();
            assert_eq!(links, 2);
            let mut out = CountingWriter(&mut written);
            let summary = rewrite(&input[..], &Options::default(), &mut out).unwrap();
            assert_eq!((summary.rewritten, summary.copied), (2, 1));
        });
        assert!(peak < 4 * MIB, "peak {peak} bytes");
    });
}

#[test]
fn an_mboxcl_message_rewrite_is_not_held_beside_the_message() {
    // Before: the rewrite was held whole to give its new Content-Length, then copied
    // again with it: the peak was the message and two copies of its rewrite (some
    // 100 MiB here); now the rewrite is spooled past 4 MiB.
    alone(
        "an_mboxcl_message_rewrite_is_not_held_beside_the_message",
        || {
            let _serial = SERIAL.lock().unwrap();
            let body: String = (0..600_000)
                .map(|i| format!("<p><a href=\"p{i}.html\">link {i}</a>\n"))
                .collect();
            let mut mbox = format!(
                "From a@b Mon Jan  1 00:00:00 2024\nContent-Type: text/html\nContent-Length: {}\n\n{body}\n",
                body.len()
            );
            mbox += "From c@d Tue Jan  2 00:00:00 2024\nContent-Length: 2\n\nz\n";
            let options = Options::new().with_url("http://h/").unwrap();
            let mut written = 0u64;
            let peak = peak_during(|| {
                let mut out = CountingWriter(&mut written);
                pipeline::run(Input::Reader(Box::new(mbox.as_bytes())), &options, &mut out)
                    .unwrap();
            });
            assert!(body.len() > 20 * MIB && written > (body.len() + 4 * MIB) as u64);
            // The message is held (its buffer up to twice its length), not its rewrite.
            assert!(peak < 2 * body.len() + 8 * MIB, "peak {peak} bytes");
        },
    );
}

/// Counts the bytes written; a warning is a failure.
struct CountingWriter<'a>(&'a mut u64);

impl Sink for CountingWriter<'_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        *self.0 += bytes.len() as u64;
        Ok(())
    }
    fn warning(&mut self, warning: absolve::Warning) {
        panic!("{warning}")
    }
}

/// A response whose HTML payload is `body` (gzip-encoded if `gzip`), at target `http://h/`.
fn response(body: &[u8], gzip: bool) -> Vec<u8> {
    let (body, coding) = match gzip {
        true => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(body).unwrap();
            (gz.finish().unwrap(), "Content-Encoding: gzip\r\n")
        }
        false => (body.to_vec(), ""),
    };
    let http = warc::http_ok(&format!("Content-Type: text/html\r\n{coding}"), &body);
    warc::response_without_id("http://h/", &http)
}

/// Links leave as they are found: a record with 400,000 links (4 MB decoded, some 180 MB
/// of `Link`s if they were gathered) is listed in far less than its links' size.
#[test]
fn links_of_a_link_dense_record_are_not_gathered() {
    alone("links_of_a_link_dense_record_are_not_gathered", || {
        let _serial = SERIAL.lock().unwrap();
        let input = response(&b"<a href=x>".repeat(400_000), true);
        let peak = peak_during(|| {
            let mut count = 0;
            for event in Links::new(&input[..], Options::default()) {
                if let Event::Link(_) = event.unwrap() {
                    count += 1;
                }
            }
            assert_eq!(count, 400_000);
        });
        assert!(peak < 4 * MIB + 24 * MIB, "peak {peak} bytes");
    });
}

/// `rewrite` of a large changed record holds its block (the decoded payload) and a few
/// MiB more: the new payload is spooled to a temporary file, not held beside the old one
/// (2x before), and a gzip member per record is re-encoded as it is written. Link-dense,
/// plain, `Content-Encoding: gzip` and gzip-member inputs.
#[test]
fn rewrite_holds_one_copy_of_a_large_payload() {
    alone("rewrite_holds_one_copy_of_a_large_payload", || {
        let _serial = SERIAL.lock().unwrap();
        // The rewriter's own buffers, the spool's memory and the decoder's growth room
        // come to some 25 MiB beside the payload, whatever its size.
        let overhead = 28 * MIB;
        let mut sparse = b"<a href=x>".to_vec();
        sparse.resize(48 * MIB, b'y');
        // Link-dense, smaller: the rewriter is slow in a debug build.
        let dense = b"<a href=x>".repeat(MIB / 2);
        for (name, body) in [("sparse", &sparse), ("link-dense", &dense)] {
            let size = body.len();
            for (coding, gzip) in [("plain", false), ("Content-Encoding: gzip", true)] {
                let record = response(body, gzip);
                for (framing, input) in [("plain", record.clone()), ("gzip member", gz(&record))] {
                    let mut written = 0u64;
                    let peak = peak_during(|| {
                        let mut out = CountingWriter(&mut written);
                        let summary = rewrite(&input[..], &Options::default(), &mut out).unwrap();
                        assert_eq!(summary.rewritten, 1);
                    });
                    assert!(written > 1000);
                    assert!(
                        peak < size + overhead,
                        "{name}, {coding}, {framing}: peak {} MiB for a {} MiB payload",
                        peak / MIB,
                        size / MIB
                    );
                }
            }
        }
    });
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// Counts the bytes written and the warnings.
struct Tally {
    written: u64,
    warnings: Vec<String>,
}

impl Sink for Tally {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.written += bytes.len() as u64;
        Ok(())
    }
    fn warning(&mut self, warning: absolve::Warning) {
        self.warnings.push(warning.to_string());
    }
}

/// A run of junk between gzip members (or after the last) is copied by `rewrite` a few
/// MiB at a time, not held whole until the next member: the peak stays far below its
/// size (it was the junk's size), with one warning, every byte copied.
#[test]
fn rewrite_does_not_hold_a_junk_run() {
    alone("rewrite_does_not_hold_a_junk_run", || {
        let _serial = SERIAL.lock().unwrap();
        let junk = 48 * MIB as u64;
        let record = response(b"<a href=x>", false);
        let member = gz(&record);
        let whole = gz(&[record.clone(), record.clone()].concat());
        for (name, first, last) in [
            ("own members", &member, Some(&member)),
            ("own member, last", &member, None),
            ("whole file", &whole, Some(&member)),
        ] {
            let last = last.map_or(&[][..], |last| &last[..]);
            let input = || {
                io::Cursor::new(first.clone())
                    .chain(io::repeat(b'J').take(junk))
                    .chain(io::Cursor::new(last.to_vec()))
            };
            let mut tally = Tally {
                written: 0,
                warnings: Vec::new(),
            };
            let peak = peak_during(|| {
                rewrite(input(), &Options::default(), &mut tally).unwrap();
            });
            assert_eq!(tally.warnings.len(), 1, "{name}: {:?}", tally.warnings);
            assert!(tally.written > junk, "{name}");
            assert!(peak < 16 * MIB, "{name}: peak {} MiB", peak / MIB);
        }
    });
}

/// Counts the links and the bytes written, wanting only one of them; a warning is a
/// failure.
struct CountingSink {
    links: usize,
    written: u64,
    wants_links: bool,
}

impl CountingSink {
    fn new(wants_links: bool) -> Self {
        CountingSink {
            links: 0,
            written: 0,
            wants_links,
        }
    }
}

impl Sink for CountingSink {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.written += bytes.len() as u64;
        Ok(())
    }
    fn link(&mut self, _: absolve::Link) {
        self.links += 1;
    }
    fn link_ref(&mut self, _: absolve::links::LinkRef<'_>) {
        self.links += 1;
    }
    fn warning(&mut self, warning: absolve::Warning) {
        panic!("{warning}")
    }
    fn wants_links(&self) -> bool {
        self.wants_links
    }
    fn wants_output(&self) -> bool {
        !self.wants_links
    }
}

/// A `response` record of `http://h/` whose body of `content_type` is `body`, its
/// `Content-Length` (10 GB) running far past the end of any file.
fn overlong_response(content_type: &str, body: &[u8]) -> Vec<u8> {
    let http = warc::http_ok(&format!("Content-Type: {content_type}\r\n"), body);
    let fields = [
        ("WARC-Type", "response"),
        ("WARC-Target-URI", "http://h/"),
        ("Content-Type", "application/http"),
    ];
    warc::claiming(&fields, "10000000000", &http)
}

/// A `resource` record of a `text/css` payload `css`, at target `http://h/s.css`.
fn stylesheet_record(css: &[u8]) -> Vec<u8> {
    let fields = [
        ("WARC-Type", "resource"),
        ("WARC-Target-URI", "http://h/s.css"),
        ("Content-Type", "text/css"),
    ];
    warc::record(&fields, css)
}

/// A stylesheet's links leave as they are found and its bytes as they are rewritten, as
/// an HTML page's do: 400,000 `url()` (4.4 MB; 200 MB of `Link`s gathered for `links`
/// and 130 MB for `rewrite` before) in a WARC `text/css` record, a plain stylesheet, an
/// HTML `<style>`, are listed and rewritten holding the payload and a few MiB.
#[test]
fn a_link_dense_stylesheet_is_not_gathered() {
    alone("a_link_dense_stylesheet_is_not_gathered", || {
        let _serial = SERIAL.lock().unwrap();
        let count = 400_000;
        let css = b"a{b:url(x)}".repeat(count);
        // The payload, and a few MiB: the batch being read, `rewrite`'s spool (4 MiB in
        // memory), the chunks written.
        let bound = css.len() + 12 * MIB;
        let peak_of = |name: &str, run: &mut dyn FnMut()| {
            let peak = peak_during(run);
            assert!(peak < bound, "{name}: peak {} MiB", peak / MIB);
        };
        let record = stylesheet_record(&css);
        peak_of("WARC links", &mut || {
            let links = Links::new(&record[..], Options::default())
                .filter(|event| matches!(event, Ok(Event::Link(_))))
                .count();
            assert_eq!(links, count);
        });
        peak_of("WARC rewrite", &mut || {
            let mut out = CountingSink::new(false);
            let summary = rewrite(&record[..], &Options::default(), &mut out).unwrap();
            assert_eq!(summary.rewritten, 1);
            assert!(out.written > record.len() as u64);
        });
        let mut style = b"<style>".to_vec();
        style.extend_from_slice(&css);
        let documents = [(Format::Css, &css), (Format::Html, &style)];
        let url = Options::new().with_url("http://h/s.css").unwrap();
        for (format, document) in documents {
            let options = url.clone().with_format(Some(format));
            for wants_links in [true, false] {
                let mut sink = CountingSink::new(wants_links);
                peak_of(&format!("{format:?}, links {wants_links}"), &mut || {
                    pipeline::run(Input::Bytes(document), &options, &mut sink).unwrap();
                });
                match wants_links {
                    true => assert_eq!(sink.links, count),
                    false => assert!(sink.written > document.len() as u64),
                }
            }
        }
    });
}

/// Counts the bytes written and the warnings.
struct CountingWarnings<'a>(&'a mut u64, Vec<String>);

impl Sink for CountingWarnings<'_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        *self.0 += bytes.len() as u64;
        Ok(())
    }
    fn warning(&mut self, warning: absolve::Warning) {
        self.1.push(warning.to_string());
    }
}

/// An HTML record whose `Content-Length` says 10 GB, followed by 48 MiB of records (the
/// `archive` of a large image between two HTML records): the records after it are read
/// from where it really ends, and the bytes held to find that out (the rest of the file,
/// while it is not known whether its block runs past the end) go to a temporary file, not
/// to memory (3 times their size before).
#[test]
fn an_overlong_block_is_not_held_in_memory() {
    alone("an_overlong_block_is_not_held_in_memory", || {
        let _serial = SERIAL.lock().unwrap();
        let overlong = overlong_response("text/html", b"<a href=p0>");
        let input = || io::Cursor::new(overlong.clone()).chain(archive(48 * MIB));
        let peak = peak_during(|| {
            let mut warnings = Vec::new();
            let mut links = 0;
            for event in Links::new(input(), Options::default()) {
                match event.unwrap() {
                    Event::Link(_) => links += 1,
                    Event::Warning(warning) => warnings.push(warning.to_string()),
                }
            }
            assert_eq!(links, 3);
            assert_eq!(warnings.len(), 1, "{warnings:?}");
            assert!(warnings[0].contains("runs past the end"), "{warnings:?}");
        });
        assert!(peak < 12 * MIB, "links: peak {} MiB", peak / MIB);
        let mut written = 0u64;
        let peak = peak_during(|| {
            let mut out = CountingWarnings(&mut written, Vec::new());
            let summary = rewrite(input(), &Options::default(), &mut out).unwrap();
            assert_eq!((summary.rewritten, summary.copied), (2, 2));
            assert_eq!(out.1.len(), 1, "{:?}", out.1);
        });
        assert!(written > 48 * MIB as u64);
        assert!(peak < 12 * MIB, "rewrite: peak {} MiB", peak / MIB);
    });
}

/// The same in a gzip file of one member per record, the overlong record HTML or an
/// image: the compressed bytes of the members after it are kept until its block's end
/// tells which records they hold, in a temporary file past 1 MiB, not in memory (they
/// were all held: a peak above the 40 MiB member after it). The records after it are
/// rewritten, or copied member and all.
#[test]
fn an_overlong_record_does_not_hold_the_compressed_rest() {
    alone(
        "an_overlong_record_does_not_hold_the_compressed_rest",
        || {
            let _serial = SERIAL.lock().unwrap();
            let member = |record: &[u8]| {
                // Stored, not compressed: the member is as large as the record.
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
                gz.write_all(record).unwrap();
                gz.finish().unwrap()
            };
            let record = |content_type: &str, body: &[u8]| {
                let http = warc::http_ok(&format!("Content-Type: {content_type}\r\n"), body);
                warc::response_without_id("http://h/", &http)
            };
            let image = member(&record("image/png", &vec![b'x'; 40 * MIB]));
            let last = member(&record("text/html", b"<a href=p1>"));
            for overlong_type in ["text/html", "image/png"] {
                let overlong = overlong_response(overlong_type, b"<a href=p0>");
                let input = [&member(&overlong)[..], &image, &last].concat();
                let mut written = 0u64;
                let peak = peak_during(|| {
                    let mut out = CountingWarnings(&mut written, Vec::new());
                    let summary = rewrite(&input[..], &Options::default(), &mut out).unwrap();
                    assert_eq!(
                        (summary.rewritten, summary.copied),
                        (1, 2),
                        "{overlong_type}"
                    );
                    assert_eq!(out.1.len(), 1, "{overlong_type}: {:?}", out.1);
                    assert!(out.1[0].contains("runs past the end"), "{:?}", out.1);
                });
                assert!(written > input.len() as u64 - 100, "{overlong_type}");
                assert!(peak < 12 * MIB, "{overlong_type}: peak {} MiB", peak / MIB);
            }
        },
    );
}

/// A whole-file gzip member (stored, not compressed: as large as its records) of 24 MiB,
/// its trailer wrong or right (RFC 1952 §2.3.1): what `rewrite` writes for it is held back
/// until its end tells whether it is whole, and its compressed bytes are recorded to be
/// copied as they are if it is not; both past a few MiB in temporary files, not in memory.
/// Wrong, the member is copied as it is, every byte; right, its records are rewritten.
#[test]
fn a_member_held_back_to_its_end_is_not_held_in_memory() {
    alone(
        "a_member_held_back_to_its_end_is_not_held_in_memory",
        || {
            let _serial = SERIAL.lock().unwrap();
            let html = |n: usize| response(format!("<a href=p{n}>").as_bytes(), false);
            let image = |seed: u64| {
                let body = warc::noise(12 * MIB, seed);
                let http = warc::http_ok("Content-Type: image/png\r\n", &body);
                warc::response_without_id("http://h/i.png", &http)
            };
            let records = [
                html(1),
                image(0x2545_f491_4f6c_dd1d),
                html(2),
                image(0x9e37_79b9_7f4a_7c15),
                html(3),
            ]
            .concat();
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
            gz.write_all(&records).unwrap();
            let whole = gz.finish().unwrap();
            let mut damaged = whole.clone();
            let crc = damaged.len() - 8;
            damaged[crc] ^= 1;
            for (name, input) in [("wrong", &damaged), ("right", &whole)] {
                let mut sink = Comparing {
                    expected: input,
                    written: 0,
                    same: true,
                    warnings: Vec::new(),
                };
                let peak = peak_during(|| {
                    let summary = rewrite(&input[..], &Options::default(), &mut sink).unwrap();
                    let rewritten = if name == "wrong" { 0 } else { 3 };
                    assert_eq!(summary.rewritten, rewritten, "{name}: {:?}", sink.warnings);
                });
                if name == "wrong" {
                    let copied = sink.same && sink.written == input.len() as u64;
                    assert!(copied, "{name}: copied as it is");
                } else {
                    assert!(
                        sink.written > 8 * MIB as u64,
                        "{name}: {} bytes",
                        sink.written
                    );
                }
                assert!(peak < 16 * MIB, "{name}: peak {} MiB", peak / MIB);
            }
        },
    );
}

/// Compares the bytes written with `expected` as they come, and collects the warnings.
struct Comparing<'a> {
    expected: &'a [u8],
    written: u64,
    same: bool,
    warnings: Vec<String>,
}

impl Sink for Comparing<'_> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        let at = self.written as usize;
        self.same &= self.expected.get(at..at + bytes.len()) == Some(bytes);
        self.written += bytes.len() as u64;
        Ok(())
    }
    fn warning(&mut self, warning: absolve::Warning) {
        self.warnings.push(warning.to_string());
    }
}
