//! Resolver throughput on the 10,000 real (page URL, reference) pairs of
//! `../shared/corpus/urls/` and on the RFC 1808 §5 table, with `url::Url::join` and
//! oxiri's `Iri::resolve_into` measured in the same run as baselines.
//!
//! Every contender parses both the base and the reference for each pair, and writes into
//! a buffer (reused where its API allows it): the work a crawler does per link. One does
//! not: `absolve-whatwg-base-parsed`, the URL Standard with each base parsed beforehand, the
//! way a document's links are resolved (`Base` keeps its parsed URL).
//!
//! Run: `cargo bench --bench resolve` (report in target/criterion/report/index.html).

use absolve::url::{Standard, resolve_into};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const CORPUS: &str = "../shared/corpus/urls/relative_urls_cc_10k.csv";

fn corpus_pairs() -> Vec<(String, String)> {
    let mut reader = match csv::Reader::from_path(CORPUS) {
        Ok(reader) => reader,
        Err(error) => {
            eprintln!("{CORPUS}: {error}; benchmarking the RFC 1808 §5 table only");
            return Vec::new();
        }
    };
    reader
        .records()
        .map(|r| {
            let r = r.expect("a CSV record");
            (r[0].to_owned(), r[1].to_owned())
        })
        .collect()
}

fn section_5_pairs() -> Vec<(String, String)> {
    let references = [
        "g:h",
        "g",
        "./g",
        "g/",
        "/g",
        "//g",
        "?y",
        "g?y",
        "g?y/./x",
        "#s",
        "g#s",
        "g#s/./x",
        "g?y#s",
        ";x",
        "g;x",
        "g;x?y#s",
        ".",
        "./",
        "..",
        "../",
        "../g",
        "../..",
        "../../",
        "../../g",
        "",
        "../../../g",
        "../../../../g",
        "/./g",
        "/../g",
        "g.",
        ".g",
        "g..",
        "..g",
        "./../g",
        "./g/.",
        "g/./h",
        "g/../h",
        "http:g",
        "http:",
    ];
    references
        .iter()
        .map(|r| ("http://a/b/c/d;p?q#f".to_owned(), (*r).to_owned()))
        .collect()
}

fn bench_pairs(c: &mut Criterion, name: &str, pairs: &[(String, String)]) {
    if pairs.is_empty() {
        return;
    }
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(pairs.len() as u64));
    let mut out = String::new();
    for (label, standard) in [
        ("absolve-1808", Standard::Rfc1808),
        ("absolve-3986", Standard::Rfc3986),
        ("absolve-whatwg", Standard::Whatwg),
    ] {
        group.bench_function(BenchmarkId::from_parameter(label), |b| {
            b.iter(|| {
                for (base, reference) in pairs {
                    out.clear();
                    resolve_into(standard, black_box(base), black_box(reference), &mut out);
                    black_box(&out);
                }
            })
        });
    }
    // The form of a document's links: each base parsed once (as `Base` keeps it), each
    // reference parsed against it.
    let bases: Vec<Option<url::Url>> = pairs
        .iter()
        .map(|(base, _)| absolve::url::whatwg::parse_base(base).ok())
        .collect();
    group.bench_function(
        BenchmarkId::from_parameter("absolve-whatwg-base-parsed"),
        |b| {
            b.iter(|| {
                for ((_, reference), base) in pairs.iter().zip(&bases) {
                    out.clear();
                    let base = base.as_ref();
                    let _ = absolve::url::whatwg::resolve_whatwg(
                        base,
                        black_box(reference),
                        None,
                        &mut out,
                    );
                    black_box(&out);
                }
            })
        },
    );
    group.bench_function(BenchmarkId::from_parameter("url-join"), |b| {
        b.iter(|| {
            for (base, reference) in pairs {
                if let Ok(base) = url::Url::parse(black_box(base)) {
                    black_box(base.join(black_box(reference)).ok());
                }
            }
        })
    });
    group.bench_function(BenchmarkId::from_parameter("oxiri-resolve-into"), |b| {
        b.iter(|| {
            for (base, reference) in pairs {
                let (Ok(base), Ok(reference)) = (
                    oxiri::Iri::parse(black_box(base.as_str())),
                    oxiri::IriRef::parse(black_box(reference.as_str())),
                ) else {
                    continue;
                };
                out.clear();
                black_box(base.resolve_into(&reference, &mut out).ok());
            }
        })
    });
    group.finish();
}

fn resolve_benches(c: &mut Criterion) {
    bench_pairs(c, "resolve/cc-10k", &corpus_pairs());
    bench_pairs(c, "resolve/rfc1808-section5", &section_5_pairs());
}

criterion_group!(benches, resolve_benches);
criterion_main!(benches);
