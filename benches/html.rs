//! HTML rewriting throughput on the real pages of `../shared/corpus/html/`, against a
//! floor measured in the same run: lol_html streaming the same input in the same chunks,
//! with a handler on the same selector (`*`) that reads every attribute's name and value
//! and changes nothing. The goal is at least 0.7x the floor.
//!
//! Run: `cargo bench --bench html` (report in target/criterion/report/index.html).

use absolve::base::Base;
use absolve::html::{Options, Rewriter, Sink};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::io;

const PAGES: [(&str, &str); 3] = [
    ("cloudflare.com.html", "https://www.cloudflare.com/"),
    ("ecma402-spec.html", "https://tc39.es/ecma402/"),
    (
        "html-parsing-spec.html",
        "https://html.spec.whatwg.org/multipage/parsing.html",
    ),
];
const CHUNK: usize = 64 * 1024;

/// Counts output bytes, as a sink writing to a file would see them.
struct Count(usize);

impl Sink for Count {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0 += bytes.len();
        Ok(())
    }
    fn wants_links(&self) -> bool {
        false
    }
}

/// The floor: lol_html with a handler that reads every attribute and changes nothing.
fn lol_html_floor(page: &[u8]) -> usize {
    let mut written = 0;
    let settings = lol_html::Settings::new()
        .with_strict(false)
        .append_element_content_handler(lol_html::element!("*", |el| {
            for attr in el.attributes() {
                black_box((attr.name(), attr.value()));
            }
            Ok(())
        }));
    let mut rewriter = lol_html::HtmlRewriter::new(settings, |c: &[u8]| written += c.len());
    for chunk in page.chunks(CHUNK) {
        rewriter.write(chunk).unwrap();
    }
    rewriter.end().unwrap();
    written
}

/// The streaming rewriter. As from a pipe (`held`), a page with no `<base>` is held back
/// until the end, since the base could still come; as from a file (the CLI looks at the
/// bytes first), the base is known and nothing is held.
fn absolve_rewrite(page: &[u8], base: &Base, held: bool) -> usize {
    let options = Options::default();
    let mut rewriter = if held {
        Rewriter::new(base, &options, Count(0))
    } else {
        Rewriter::with_document_base(base, base, &options, Count(0))
    };
    for chunk in page.chunks(CHUNK) {
        rewriter.write(chunk).unwrap();
    }
    rewriter.end().unwrap().0
}

fn html_benches(c: &mut Criterion) {
    let dir = std::path::Path::new("../shared/corpus/html");
    for (name, url) in PAGES {
        let Ok(page) = std::fs::read(dir.join(name)) else {
            eprintln!("{}: not found, skipped", dir.join(name).display());
            continue;
        };
        let base = Base::retrieval_url(url).unwrap();
        let mut group = c.benchmark_group(format!("html/{name}"));
        group.throughput(Throughput::Bytes(page.len() as u64));
        group.bench_function(BenchmarkId::from_parameter("lol_html-floor"), |b| {
            b.iter(|| lol_html_floor(black_box(&page)))
        });
        group.bench_function(BenchmarkId::from_parameter("absolve-pipe"), |b| {
            b.iter(|| absolve_rewrite(black_box(&page), &base, true))
        });
        group.bench_function(BenchmarkId::from_parameter("absolve-file"), |b| {
            b.iter(|| absolve_rewrite(black_box(&page), &base, false))
        });
        group.bench_function(BenchmarkId::from_parameter("absolve-one-call"), |b| {
            b.iter(|| {
                absolve::html::rewrite(black_box(&page), &base, &Options::default())
                    .output
                    .len()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, html_benches);
criterion_main!(benches);
