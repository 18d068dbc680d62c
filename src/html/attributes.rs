//! Which attributes hold URLs, on which elements, and in what syntax: a table, not code.
//!
//! Sources: the HTML Living Standard's attribute index, HTML 4.01's `%URI` attributes,
//! SVG 2 (`href`, `xlink:href`, presentation attributes holding `url()`) and MathML
//! (`href` on any element, `mglyph src`, `math altimg`).
//! `usemap` is a hash-name reference and `download` a file name: neither is listed.
//! `<meta http-equiv=refresh content>` depends on another attribute and is handled apart.

use std::sync::LazyLock;

/// How an attribute value holds its URL or URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// One URL, potentially surrounded by spaces.
    Url,
    /// URLs separated by ASCII whitespace (`ping`, `<object archive>`, `<head profile>`).
    SpaceList,
    /// URLs separated by commas (`<applet archive>`).
    CommaList,
    /// Image candidate strings (`srcset`, `imagesrcset`).
    Srcset,
    /// The content of `<meta http-equiv=refresh>`.
    Refresh,
    /// CSS declarations (`style`).
    Css,
    /// A whole HTML document (`<iframe srcdoc>`).
    Srcdoc,
}

/// A URL-bearing attribute: its syntax, and whether it resolves against the element's
/// `codebase` (HTML 4.01 `<object>` and `<applet>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrlAttribute {
    /// How the value holds its URL or URLs.
    pub syntax: Syntax,
    /// Whether it resolves against the element's `codebase` rather than the base.
    pub against_codebase: bool,
}

/// The namespace of an element, as far as URL attributes are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Namespace {
    /// HTML elements.
    Html,
    /// SVG elements (`<svg>` and what is inside it).
    Svg,
    /// MathML elements (`<math>` and what is inside it).
    MathMl,
}

impl Namespace {
    /// From lol_html's namespace URI.
    pub fn from_uri(uri: &str) -> Self {
        match uri {
            "http://www.w3.org/2000/svg" => Namespace::Svg,
            "http://www.w3.org/1998/Math/MathML" => Namespace::MathMl,
            _ => Namespace::Html,
        }
    }
}

/// Every element.
const ANY: &[&str] = &[];

use Syntax::*;

/// (attribute, elements (empty: any), syntax, against codebase) for HTML elements.
const HTML: &[(&str, &[&str], Syntax, bool)] = &[
    ("href", &["a", "area", "link", "base"], Url, false),
    (
        "src",
        &[
            "audio", "embed", "iframe", "img", "input", "script", "source", "track", "video",
            "frame", "bgsound",
        ],
        Url,
        false,
    ),
    ("srcset", &["img", "source"], Srcset, false),
    ("imagesrcset", &["link"], Srcset, false),
    ("ping", &["a", "area"], SpaceList, false),
    ("cite", &["blockquote", "del", "ins", "q"], Url, false),
    ("action", &["form", "isindex"], Url, false),
    ("formaction", &["button", "input"], Url, false),
    ("poster", &["video"], Url, false),
    ("manifest", &["html"], Url, false),
    ("itemid", ANY, Url, false),
    (
        "background",
        &["body", "table", "thead", "tbody", "tfoot", "tr", "td", "th"],
        Url,
        false,
    ),
    ("longdesc", &["img", "iframe", "frame"], Url, false),
    ("lowsrc", &["img"], Url, false),
    ("dynsrc", &["img"], Url, false),
    ("profile", &["head"], SpaceList, false),
    ("codebase", &["object", "applet"], Url, false),
    ("data", &["object"], Url, true),
    ("classid", &["object"], Url, true),
    ("archive", &["object"], SpaceList, true),
    ("archive", &["applet"], CommaList, true),
    ("style", ANY, Css, false),
    ("srcdoc", &["iframe"], Srcdoc, false),
];

/// SVG 2: `href` and the deprecated `xlink:href` on any SVG element; the presentation
/// attributes whose value may hold a CSS `url()` (SVG 2 §6.6 and the properties of CSS
/// Fill and Stroke, Filter Effects, CSS Masking, SVG markers, CSS UI `cursor`).
const SVG: &[(&str, &[&str], Syntax, bool)] = &[
    ("href", ANY, Url, false),
    ("xlink:href", ANY, Url, false),
    ("style", ANY, Css, false),
    ("fill", ANY, Css, false),
    ("stroke", ANY, Css, false),
    ("filter", ANY, Css, false),
    ("clip-path", ANY, Css, false),
    ("mask", ANY, Css, false),
    ("marker-start", ANY, Css, false),
    ("marker-mid", ANY, Css, false),
    ("marker-end", ANY, Css, false),
    ("cursor", ANY, Css, false),
];

/// MathML Core §2.1.6: `href` on any MathML element; MathML 3 `mglyph src`, `math altimg`.
const MATHML: &[(&str, &[&str], Syntax, bool)] = &[
    ("href", ANY, Url, false),
    ("xlink:href", ANY, Url, false),
    ("src", &["mglyph"], Url, false),
    ("altimg", &["math"], Url, false),
    ("style", ANY, Css, false),
];

/// The URL attribute `attribute` of `element` (both lower case) in `namespace`, if any.
///
/// ```
/// use absolve::html::attributes::{lookup, Namespace, Syntax};
///
/// assert_eq!(lookup(Namespace::Html, "img", "srcset").unwrap().syntax, Syntax::Srcset);
/// assert!(lookup(Namespace::Html, "div", "href").is_none());
/// assert!(lookup(Namespace::Html, "img", "usemap").is_none());
/// assert!(lookup(Namespace::Html, "object", "data").unwrap().against_codebase);
/// assert!(lookup(Namespace::Svg, "use", "xlink:href").is_some());
/// ```
pub fn lookup(namespace: Namespace, element: &str, attribute: &str) -> Option<UrlAttribute> {
    rows(attribute)?
        .iter()
        .find(|(ns, elements, ..)| {
            *ns == namespace && (elements.is_empty() || elements.contains(&element))
        })
        .map(|&(_, _, syntax, against_codebase)| UrlAttribute {
            syntax,
            against_codebase,
        })
}

/// Whether any element may carry `attribute` as a URL: a cheap filter before [`lookup`].
pub fn may_hold_url(attribute: &str) -> bool {
    rows(attribute).is_some()
}

/// Whether `attribute` is CSS on every element that carries it as a URL attribute
/// (`style`, SVG's presentation attributes `fill`, `stroke`, ...): a value of it holds a
/// URL only inside a function (`url(`, `image-set(`), so only if it has a `(`.
///
/// ```
/// use absolve::html::attributes::is_css_only;
///
/// assert!(is_css_only("fill") && is_css_only("style"));
/// assert!(!is_css_only("href") && !is_css_only("class"));
/// ```
pub fn is_css_only(attribute: &str) -> bool {
    rows(attribute).is_some_and(|rows| rows.iter().all(|row| row.2 == Syntax::Css))
}

/// The rows for one attribute name: a prefilter on its first byte and length rejects
/// almost every attribute of a page (`class`, `id`, `data-*`) with one lookup; the rest
/// are found among the few names of the same length, by their first byte, then whole.
fn rows(attribute: &str) -> Option<&'static [Row]> {
    if !may_be_url_attribute(attribute.as_bytes()) {
        return None;
    }
    let bytes = attribute.as_bytes();
    BY_LENGTH[bytes.len()]
        .iter()
        .find(|(name, _)| name.as_bytes()[0] == bytes[0] && name.as_bytes() == bytes)
        .map(|(_, rows)| rows.as_slice())
}

/// An attribute name with its rows.
type Named = (&'static str, Vec<Row>);

/// A row of the tables with its namespace.
type Row = (Namespace, &'static [&'static str], Syntax, bool);

/// For each first byte of a listed attribute name, the set of lengths names starting
/// with it have (bit `n` for length `n`), made from the tables when compiling.
static FIRST_BYTE_LENGTHS: [u32; 256] = first_byte_lengths();

const fn first_byte_lengths() -> [u32; 256] {
    let mut lengths = [0u32; 256];
    let tables = [HTML, SVG, MATHML];
    let mut t = 0;
    while t < tables.len() {
        let mut row = 0;
        while row < tables[t].len() {
            let name = tables[t][row].0.as_bytes();
            assert!(
                !name.is_empty() && name.len() < 32,
                "attribute names are short"
            );
            lengths[name[0] as usize] |= 1 << name.len();
            row += 1;
        }
        t += 1;
    }
    lengths
}

/// Whether the attribute name written as `raw` in the source may be a URL attribute:
/// the prefilter of [`may_hold_url`] on the bytes, before any name is made of them. It
/// never rejects a listed name: in an ASCII-compatible charset a name of ASCII characters
/// is written in the same bytes (the case aside), and the tables' names are ASCII.
pub(crate) fn may_be_url_attribute(raw: &[u8]) -> bool {
    match raw.first() {
        Some(&first) => {
            raw.len() < 32
                && FIRST_BYTE_LENGTHS[usize::from(first.to_ascii_lowercase())] & (1 << raw.len())
                    != 0
        }
        None => false,
    }
}

/// The three tables grouped by attribute name, the names by length (index: the length,
/// below 32 as [`first_byte_lengths`] checks), built once: a name is compared with the
/// few names of its length only.
static BY_LENGTH: LazyLock<Vec<Vec<Named>>> = LazyLock::new(|| {
    let mut by_length: Vec<Vec<Named>> = vec![Vec::new(); 32];
    for (namespace, table) in [
        (Namespace::Html, HTML),
        (Namespace::Svg, SVG),
        (Namespace::MathMl, MATHML),
    ] {
        for &(name, elements, syntax, against_codebase) in table {
            let row = (namespace, elements, syntax, against_codebase);
            let names = &mut by_length[name.len()];
            match names.iter_mut().find(|(n, _)| *n == name) {
                Some((_, rows)) => rows.push(row),
                None => names.push((name, vec![row])),
            }
        }
    }
    by_length
});
