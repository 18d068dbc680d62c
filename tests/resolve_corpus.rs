//! The 10,000 real (page URL, relative reference) pairs of ../shared/corpus/urls/:
//! RFC 3986 mode against oxiri (an independent RFC 3986 resolver), and the RFC 1808 and
//! RFC 3986 answers compared.

use absolve::url::{Standard, resolve_with};

fn pairs() -> Option<Vec<(String, String)>> {
    let path = "../shared/corpus/urls/relative_urls_cc_10k.csv";
    let mut reader = csv::Reader::from_path(path).ok()?;
    Some(
        reader
            .records()
            .map(|r| {
                let r = r.expect("a CSV record");
                (r[0].to_owned(), r[1].to_owned())
            })
            .collect(),
    )
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/urls not found (the shared corpora are optional)"
)]
fn rfc3986_mode_agrees_with_oxiri_on_every_pair_it_accepts() {
    let Some(pairs) = pairs() else {
        panic!("../shared is present but this input of it is missing");
    };
    assert_eq!(pairs.len(), 10_000);
    let mut compared = 0;
    for (base, reference) in &pairs {
        let Ok(base_iri) = oxiri::Iri::parse(base.as_str()) else {
            continue;
        };
        let Ok(reference_iri) = oxiri::IriRef::parse(reference.as_str()) else {
            continue;
        };
        let Ok(expected) = base_iri.resolve(&reference_iri) else {
            continue;
        };
        assert_eq!(
            resolve_with(Standard::Rfc3986, base, reference),
            expected.as_str(),
            "{base} + {reference}"
        );
        compared += 1;
    }
    assert!(compared > 9_000, "only {compared} pairs compared");
}

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/urls not found (the shared corpora are optional)"
)]
fn rfc1808_and_rfc3986_differ_only_where_the_standards_do() {
    let Some(pairs) = pairs() else {
        panic!("../shared is present but this input of it is missing");
    };
    let mut differing = 0;
    for (base, reference) in &pairs {
        let old = resolve_with(Standard::Rfc1808, base, reference);
        let new = resolve_with(Standard::Rfc3986, base, reference);
        if old != new {
            differing += 1;
            // Each difference comes from a rule where the two standards part ways: an empty
            // query, params or fragment, `..` above the root, `;` params, or a `?` or `;`
            // inside the base net_loc.
            let explained = reference.ends_with(['#', '?', ';'])
                || ["?#", ";?", ";#"]
                    .iter()
                    .any(|empty| reference.contains(empty))
                || reference.contains("..")
                || reference.contains(';')
                || base.contains(';')
                || base.contains("/..")
                || base
                    .split('/')
                    .nth(2)
                    .is_some_and(|n| n.contains(['?', ';']))
                || reference.starts_with('?')
                || reference.starts_with('#')
                || reference.contains("/.");
            assert!(
                explained,
                "unexplained difference: {base} + {reference}: {old} vs {new}"
            );
        }
    }
    eprintln!(
        "RFC 1808 and RFC 3986 differ on {differing} of {} pairs",
        pairs.len()
    );
    // ../shared/corpus/urls/SOURCES.md: "different strings for 465 of 10,000".
    assert_eq!(differing, 465);
}
