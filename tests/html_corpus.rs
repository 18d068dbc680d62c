//! The real pages of ../shared/corpus/html/: after a rewrite with their retrieval URL, no
//! URL is left relative (fragment-only references aside), and a second rewrite is a no-op.

use absolve::base::Base;
use absolve::html::{Options, rewrite_and_list};
use absolve::url::has_scheme;

const PAGES: [(&str, &str); 3] = [
    ("cloudflare.com.html", "https://www.cloudflare.com/"),
    ("ecma402-spec.html", "https://tc39.es/ecma402/"),
    (
        "html-parsing-spec.html",
        "https://html.spec.whatwg.org/multipage/parsing.html",
    ),
];

#[test]
#[cfg_attr(
    not(has_shared),
    ignore = "../shared/corpus/html not found (the shared corpora are optional)"
)]
fn real_pages_end_up_absolute_and_stable() {
    let dir = std::path::Path::new("../shared/corpus/html");
    if !dir.exists() {
        panic!("../shared is present but this input of it is missing");
    }
    for (name, url) in PAGES {
        let page = std::fs::read(dir.join(name)).unwrap();
        let base = Base::retrieval_url(url).unwrap();
        let once = rewrite_and_list(&page, &base, &Options::default());
        assert!(once.warnings.is_empty(), "{name}: {:?}", once.warnings);
        assert!(
            once.links.len() > 100,
            "{name}: only {} links",
            once.links.len()
        );
        let again = rewrite_and_list(&once.output, &base, &Options::default());
        let relative: Vec<_> = again
            .links
            .iter()
            .filter(|l| !has_scheme(&l.resolved) && !l.resolved.starts_with('#'))
            .collect();
        assert!(relative.is_empty(), "{name}: {relative:?}");
        assert!(
            again.output == once.output,
            "{name}: the second rewrite changed bytes"
        );
        let changed = once
            .links
            .iter()
            .filter(|l| l.original != l.resolved)
            .count();
        assert!(changed > 0, "{name}: nothing was resolved");
    }
}
