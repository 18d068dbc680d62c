//! The input options shared by `rewrite` and `links`, checked before anything is read or
//! written, and the list of inputs they name.

use absolve::base::{Base, BaseSource};
use absolve::format;
use absolve::url::Standard;
use clap::{Args, ValueEnum};
use percent_encoding::{AsciiSet, CONTROLS, percent_encode};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// What the input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "lower")]
pub enum Format {
    /// Tell them apart by content: `WARC/` (plain or in a gzip member) is a WARC file; a
    /// ZIP, a WACZ; an XML document whose root is Atom's feed, rss or rdf:RDF, a feed; whose
    /// root is SVG's svg, an SVG image; a From_ line then a header block, an mbox; a header
    /// block with a mail or MIME field, a message; a property list naming WebMainResource
    /// (or named .webarchive), a Safari web archive; anything else, HTML. A stylesheet only
    /// by its `.css` name. Compressed input (gzip, bzip2, xz, zstd, lz4) is looked inside.
    /// An ARC file is read as a WARC; a tar, 7z or RAR archive and a PDF are refused, saying
    /// what they are; an image, audio, video, a font, JSON, and a file named .js, .json,
    /// .txt and the like that is none of these are passed through unchanged, with a
    /// warning.
    Auto,
    /// An HTML document.
    Html,
    /// A MIME message (.eml) or an MHTML page (.mht, .mhtml).
    Mime,
    /// An mbox archive of messages.
    Mbox,
    /// A CSS stylesheet: its url() and @import resolve against the file's own URL.
    Css,
    /// A WARC web archive (.warc, .warc.gz; an ARC file, .arc, .arc.gz, is read as one): the
    /// HTML and CSS payloads of its records.
    Warc,
    /// A WACZ (a ZIP of WARC files, as Webrecorder and Browsertrix save crawls): `links`
    /// lists its WARC files' links; `rewrite` refuses it.
    Wacz,
    /// An Atom or RSS feed (.atom, .rss, .rdf, and .xml files whose root is a feed's): its
    /// URLs and the HTML inside it, each against its xml:base.
    Feed,
    /// A Safari web archive (.webarchive, a binary or XML property list): its HTML and CSS
    /// resources (page, subresources, frames), each resolved against its own
    /// WebResourceURL; --url only for a resource without one. `rewrite` writes the
    /// archive back in its form (binary stays binary), every other key kept.
    Webarchive,
    /// An SVG image (.svg, .svgz, and .xml files whose root is SVG's svg): the href and
    /// xlink:href of its elements, its style attributes and <style> elements, as the same
    /// SVG inline in HTML, each against its xml:base.
    Svg,
}

impl Format {
    /// The library's format this one forces, `None` for `auto`.
    pub fn forced(self) -> Option<format::Format> {
        match self {
            Format::Auto => None,
            Format::Html => Some(format::Format::Html),
            Format::Mime => Some(format::Format::Mime),
            Format::Mbox => Some(format::Format::Mbox),
            Format::Css => Some(format::Format::Css),
            Format::Warc => Some(format::Format::Warc),
            Format::Wacz => Some(format::Format::Wacz),
            Format::Feed => Some(format::Format::Feed),
            Format::Webarchive => Some(format::Format::WebArchive),
            Format::Svg => Some(format::Format::Svg),
        }
    }
}

/// How a tree's file names map to URLs (`--layout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Layout {
    /// Each file name is a path segment.
    Plain,
    /// wget's mirrors: the query of a URL is kept in its file name after `?` (or `@`).
    Wget,
}

#[derive(Debug, Args)]
pub struct InputArgs {
    /// The URL the input was retrieved from (RFC 1808 §3.3), the base where the document
    /// gives none; absolute, with a host for http(s)/ftp/ws(s). With -r, the URL of each
    /// DIRECTORY given: a file's URL is it with the file's path below the directory.
    /// Without --url, a saved page's own record of its URL is used ("saved from" comment,
    /// SingleFile comment, user.xdg.origin.url attribute); without any, relative links
    /// stay relative (unless the document has an absolute <base href>), with a warning.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// The document's charset (a WHATWG label); a BOM wins over it, it wins over <meta>.
    #[arg(long, value_name = "LABEL")]
    pub charset: Option<String>,
    /// Resolve fragment-only references (#x) too, as RFC 1808 §5 does.
    #[arg(long)]
    pub resolve_fragments: bool,
    /// The standard to resolve by: rfc1808 (the default: the RFC, literally), rfc3986, or
    /// whatwg (the WHATWG URL Standard, as browsers and crawlers read URLs: every URL
    /// written is what a browser's element.href gives; a reference it rejects is left as
    /// it is, with a warning).
    #[arg(
        long = "spec",
        value_name = "rfc1808|rfc3986|whatwg",
        value_parser = super::resolve::parse_spec,
        conflicts_with = "rfc"
    )]
    pub spec: Option<Standard>,
    /// The older spelling of --spec: 1808 or 3986.
    #[arg(long = "rfc", value_name = "1808|3986", value_parser = super::resolve::parse_rfc)]
    pub rfc: Option<Standard>,
    /// The input format (any case): auto, html, mime, mbox, css, warc, wacz, feed,
    /// webarchive or svg.
    #[arg(long, value_enum, default_value = "auto", ignore_case = true)]
    pub format: Format,
    /// WARC: also take the HTTP Content-Base and Content-Location header fields as bases
    /// (RFC 1808 §3.2, RFC 2068), between <base href> and WARC-Target-URI.
    #[arg(long)]
    pub http_base_headers: bool,
    /// Leave a relative reference as it is when it names a file that exists beside the
    /// document on disk (a saved page's ./page_files/...); `links` lists it with "kept": "local".
    #[arg(long)]
    pub keep_local: bool,
    /// How a tree's file names map to URLs under -r --url: plain (each name is a path
    /// segment, `?` included, percent-encoded) or wget (a mirror made by wget: a name's
    /// first `?`, else its first `@` as `--restrict-file-names=windows` writes it, starts
    /// the URL's query, so `page.php?id=3` is `page.php?id=3`).
    #[arg(long, value_enum, default_value = "plain", value_name = "LAYOUT")]
    pub layout: Layout,
    /// Process the documents under each DIRECTORY: files named .html .htm .xhtml .xht
    /// .shtml .css .eml .emlx .mht .mhtml .mbox .mmdf .warc .arc .atom .rss .rdf .svg .svgz
    /// .webarchive (and .wacz, for `links`), each also compressed (.gz .bz2 .xz .zst .lz4);
    /// .xml files whose root is a feed's or SVG's; .txt files that start as an mbox; a
    /// Maildir's messages; and files of other or no extension whose first bytes are HTML, a
    /// feed, an SVG image, a message, an mbox or a Safari web archive (not .js .json and
    /// other text and data types). With a --format other than auto, only the documents of
    /// that format. Every other file is skipped (symbolic links too; a tar archive with a
    /// warning); a summary line ends the run.
    #[arg(short, long)]
    pub recursive: bool,
    /// How many threads do the work (ripgrep's -j): files are processed N at a time (the
    /// output of `links` stays in input order), and a WARC file's pages are parsed in
    /// parallel. Default: one per core (or RAYON_NUM_THREADS); at most four per core.
    #[arg(short = 'j', long = "threads", value_name = "N")]
    pub threads: Option<std::num::NonZeroUsize>,
    /// The most bytes of one message (an .eml, an MHTML page, a message of an mbox), one
    /// stylesheet or one Safari web archive held in memory to read it: one larger is passed through unchanged
    /// (its links not listed), with a warning. SIZE is bytes, or a number with K, M, G or
    /// T (powers of 1024: 512M, 2G). Default: 256M.
    #[arg(long, value_name = "SIZE", value_parser = parse_held_size)]
    pub max_held: Option<u64>,
    /// Files (with -r, directories) to read; none, or `-`, reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// `--max-held`'s SIZE: bytes, or with a binary multiple's letter (`512M`, `2G`, `1.5GiB`),
/// as `sort -S` reads one; at least one byte.
fn parse_held_size(value: &str) -> Result<u64, String> {
    let bytes = parse_size::Config::new()
        .with_binary()
        .parse_size(value)
        .map_err(|e| format!("{e} (a size such as 512M, 2G or 1048576)"))?;
    if bytes == 0 {
        return Err("0 bytes would hold nothing: give a size such as 512M".to_owned());
    }
    Ok(bytes)
}

/// What went wrong before any work: a usage error (status 2) or a failure (status 1).
#[derive(Debug)]
pub enum Problem {
    /// Options that are wrong or do not go together.
    Usage(String),
    /// An input that cannot be read.
    Failure(String),
}

/// The options once checked, by the library's one validating constructor
/// ([`absolve::Options`]): a usable base, a known charset.
#[derive(Clone)]
pub struct Checked {
    /// The library's options: `--url`, `--charset`, `--rfc`, `--resolve-fragments`,
    /// `--http-base-headers`, `--keep-local`.
    pub options: absolve::Options,
    pub format: Format,
    pub layout: Layout,
}

/// One input: standard input or a file, with what the walk of a directory found.
#[derive(Debug, Clone)]
pub struct Input {
    /// `None`: standard input.
    pub path: Option<PathBuf>,
    /// With -r and --url: the file's own retrieval URL.
    pub url: Option<Base>,
    /// Found under a directory: that directory and the path below it.
    pub tree: Option<(PathBuf, PathBuf)>,
    /// The format its name or its first bytes gave, if they settled it.
    pub format: Option<format::Format>,
}

/// Everything the command line names.
#[derive(Debug, Default)]
pub struct Inputs {
    /// The documents to process, in order.
    pub documents: Vec<Input>,
    /// Files under the directories that are not documents: (directory, path below it).
    pub others: Vec<(PathBuf, PathBuf)>,
    /// Those of them that are web archives absolve does not read (a tar archive, a 7z
    /// archive): skipped as the others are, with a warning ([`Inputs::warn_unreadable`]).
    pub unreadable: Vec<(PathBuf, format::Unreadable)>,
    /// Sub-directories found: (directory, path below it), for a copy of the tree.
    pub directories: Vec<(PathBuf, PathBuf)>,
    /// The directories given (with -r).
    pub roots: Vec<PathBuf>,
}

/// How many bytes of a file of unknown type are read to sniff it.
const SNIFF_BYTES: u64 = 4096;

/// Bytes that are percent-encoded in a path segment made from a file name: controls,
/// space, those RFC 1738 §2.2 calls unsafe, `%`, and the ones that would end or split a
/// segment in RFC 1808 §2.4 (`?`, `#`, `;`, `/`); non-ASCII bytes are encoded too.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'|')
    .add(b'\\')
    .add(b'^')
    .add(b'[')
    .add(b']')
    .add(b';')
    .add(b'/');

impl InputArgs {
    /// Checks `--url` and `--charset` (as the library checks them, worded with the flag),
    /// so that a bad one fails before any file is touched.
    pub fn check(&self) -> Result<Checked, Problem> {
        let flagged =
            |e: absolve::OptionError| Problem::Usage(format!("--{}: {}", e.option(), e.reason()));
        let mut options = absolve::Options::new()
            .with_standard(self.spec.or(self.rfc).unwrap_or_default())
            .with_resolve_fragments(self.resolve_fragments)
            .with_http_base_headers(self.http_base_headers)
            .with_keep_local(self.keep_local);
        if let Some(bytes) = self.max_held {
            options = options.with_max_held(bytes);
        }
        if let Some(url) = &self.url {
            options = options.with_url(url).map_err(flagged)?;
        }
        if let Some(label) = &self.charset {
            options = options.with_charset(label).map_err(flagged)?;
        }
        Ok(Checked {
            options,
            format: self.format,
            layout: self.layout,
        })
    }

    /// The inputs: standard input, or files, directories walked with `-r`.
    /// `listing`: for `links` (a WACZ is a document), not `rewrite` (a WACZ is copied).
    pub fn inputs(&self, checked: &Checked, listing: bool) -> Result<Inputs, Problem> {
        let mut inputs = Inputs::default();
        if self.files.is_empty() {
            inputs.documents.push(Input::stdin(self.format));
            return Ok(inputs);
        }
        for path in &self.files {
            if path == Path::new("-") {
                inputs.documents.push(Input::stdin(self.format));
            } else if path.is_dir() {
                if !self.recursive {
                    return Err(Problem::Usage(format!(
                        "{}: is a directory (use -r)",
                        path.display()
                    )));
                }
                inputs.roots.push(path.clone());
                walk(path, checked, listing, &mut inputs)?;
            } else {
                inputs.documents.push(Input {
                    path: Some(path.clone()),
                    url: None,
                    tree: None,
                    format: self.format.forced().or_else(|| by_name(path)),
                });
            }
        }
        Ok(inputs)
    }
}

impl Inputs {
    /// Warns about each file of the trees skipped for being a web archive absolve does
    /// not read: it holds links, and they stay as they are.
    pub fn warn_unreadable(&self) {
        for (path, what) in &self.unreadable {
            super::output::warn(
                &super::output::label(Some(path)),
                &format!("{what}: skipped"),
            );
        }
    }
}

impl Input {
    fn stdin(format: Format) -> Self {
        Input {
            path: None,
            url: None,
            tree: None,
            format: format.forced(),
        }
    }
}

/// A `.css` file is a stylesheet by its name; other names leave it to the content.
fn by_name(path: &Path) -> Option<format::Format> {
    // `style.css.gz` is a stylesheet, as under `-r` (a compression's extension is not the
    // document's).
    let extension = format::extension_of(path)?;
    format::from_extension(extension).filter(|&f| f == format::Format::Css)
}

/// Walks `dir` in a stable order, sorting its files into documents and others.
fn walk(dir: &Path, checked: &Checked, listing: bool, inputs: &mut Inputs) -> Result<(), Problem> {
    let directory_url = match checked.options.url() {
        Some(url) if url.ends_with('/') => Some(url.to_owned()),
        Some(url) => Some(format!("{url}/")),
        None => None,
    };
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| walk_failure(dir, &e))?;
        let below = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .to_path_buf();
        if entry.file_type().is_dir() {
            if entry.depth() > 0 {
                inputs.directories.push((dir.to_path_buf(), below));
            }
            continue;
        }
        let format = if entry.file_type().is_file() {
            document_format(
                entry.path(),
                checked.format,
                listing,
                &mut inputs.unreadable,
            )?
        } else {
            None
        };
        let Some(format) = format else {
            inputs.others.push((dir.to_path_buf(), below));
            continue;
        };
        let url = match &directory_url {
            Some(directory) => Some(file_url(directory, &below, checked.layout)?),
            None => None,
        };
        inputs.documents.push(Input {
            path: Some(entry.into_path()),
            url,
            tree: Some((dir.to_path_buf(), below)),
            format: checked.format.forced().or(format),
        });
    }
    Ok(())
}

/// A directory that cannot be walked, worded as `path: what went wrong` for the entry that
/// failed (walkdir's own wording, "IO error for operation on ...", names it twice). The
/// whole run stops before any work: a tree is processed whole or not at all.
fn walk_failure(dir: &Path, error: &walkdir::Error) -> Problem {
    let path = error.path().unwrap_or(dir).display();
    match error.io_error() {
        Some(io) => Problem::Failure(format!("{path}: {io}")),
        None => Problem::Failure(format!("{path}: {error}")),
    }
}

/// Whether a file found under a directory is a document, and of what format if its name
/// or content settled it (`Some(None)`: a document whose content will tell).
/// A file whose content is a web archive absolve does not read is not one; it is added to
/// `unreadable`.
fn document_format(
    path: &Path,
    wanted: Format,
    listing: bool,
    unreadable: &mut Vec<(PathBuf, format::Unreadable)>,
) -> Result<Option<Option<format::Format>>, Problem> {
    let found = if absolve::mailfolder::is_maildir_message(path) {
        // A Maildir's message files (`cur/`, `new/`): names of their own, messages all.
        Some(Some(format::Format::Mime))
    } else {
        by_name_or_content(path, listing, unreadable)?
    };
    Ok(found.filter(|format| match (format, wanted.forced()) {
        (Some(found), Some(wanted)) => *found == wanted,
        (None, Some(_)) => matches_wanted_name(path, wanted),
        _ => true,
    }))
}

/// A file's format by its extension (a compression's `.gz`, `.bz2`, `.xz`, `.zst`, `.lz4`
/// taken off first), else by its first bytes (decompressed). `.txt` files are taken when they
/// start like an mbox (Mailman's pipermail archives), `.xml` files when they are feeds or
/// SVG images, `.svg` files when they are SVG images. A
/// WACZ is only listed: `rewrite -r` copies it as it is. A file sniffed that absolve does
/// not read (a tar archive: [`format::unreadable`]) is not a document: it is added to
/// `unreadable`.
fn by_name_or_content(
    path: &Path,
    listing: bool,
    unreadable: &mut Vec<(PathBuf, format::Unreadable)>,
) -> Result<Option<Option<format::Format>>, Problem> {
    let extension = format::extension_of(path);
    let is = |name: &str| extension.is_some_and(|e| e.eq_ignore_ascii_case(name));
    if is("txt") {
        let mbox = absolve::mailfolder::looks_like_mbox_text(&read_head(path)?);
        return Ok(mbox.then_some(Some(format::Format::Mbox)));
    }
    if is("xml") || is("svg") {
        // Taken only when the root element tells: other XML, and an `<svg>` in no
        // namespace (no image in a browser), is no document here.
        let head = read_head(path)?;
        return Ok(if absolve::feed::is_feed(&head) {
            Some(Some(format::Format::Feed))
        } else {
            absolve::feed::is_svg(&head).then_some(Some(format::Format::Svg))
        });
    }
    if extension.is_some_and(format::is_not_a_document) {
        return Ok(None);
    }
    Ok(match extension.and_then(format::from_extension) {
        Some(format::Format::Css) => Some(Some(format::Format::Css)),
        Some(format::Format::Wacz) if !listing => None,
        Some(_) => Some(None),
        None => {
            let head = read_head(path)?;
            if let Some(what) = format::unreadable(&head) {
                if what.warned_in_a_tree(extension) {
                    unreadable.push((path.to_path_buf(), what));
                }
                return Ok(None);
            }
            format::sniff(&head).map(Some)
        }
    })
}

/// With a `--format`, a document whose content will tell is taken only when its name
/// names that format.
fn matches_wanted_name(path: &Path, wanted: Format) -> bool {
    let named = format::extension_of(path).and_then(format::from_extension);
    named.is_some_and(|named| wanted.forced().is_none_or(|w| w == named))
}

/// The first bytes of a file, decompressed when it is compressed (gzip, bzip2, xz,
/// zstd), for telling what it is: [`SNIFF_BYTES`], or up to
/// [`absolve::feed::SNIFF_LIMIT`] when those end inside an XML prolog (a feed's root
/// may come after kilobytes of comments, processing instructions and a DOCTYPE).
fn read_head(path: &Path) -> Result<Vec<u8>, Problem> {
    let head = read_first(path, SNIFF_BYTES)?;
    if head.len() as u64 == SNIFF_BYTES && absolve::feed::ends_in_prolog(&head) {
        return read_first(path, absolve::feed::SNIFF_LIMIT as u64);
    }
    Ok(head)
}

/// The first `limit` bytes of a file, decompressed when it is compressed.
fn read_first(path: &Path, limit: u64) -> Result<Vec<u8>, Problem> {
    let failure = |e: std::io::Error| Problem::Failure(format!("{}: {e}", path.display()));
    let mut raw = Vec::with_capacity(limit as usize);
    File::open(path)
        .and_then(|f| f.take(limit).read_to_end(&mut raw))
        .map_err(failure)?;
    let Some(compression) = absolve::compress::Compression::detect(&raw) else {
        return Ok(raw);
    };
    let file = File::open(path).map_err(failure)?;
    let decoder = absolve::compress::Decoder::new(compression, std::io::BufReader::new(file));
    let mut head = Vec::with_capacity(limit as usize);
    // Damage in the first bytes: what was decoded tells, or nothing does.
    let _ = decoder.take(limit).read_to_end(&mut head);
    Ok(head)
}

/// A file's retrieval URL under -r: the directory's URL resolved with the file's path
/// below it, each segment percent-encoded (`a/b c.html` becomes `./a/b%20c.html`; the
/// `./` keeps a segment such as `c:d` from reading as a scheme). With [`Layout::Wget`],
/// the file name's first `?` (else its first `@`) starts the query, as wget saved it.
fn file_url(directory: &str, below: &Path, layout: Layout) -> Result<Base, Problem> {
    let mut reference = String::from(".");
    let segments: Vec<_> = below.iter().collect();
    for (i, segment) in segments.iter().enumerate() {
        reference.push('/');
        let bytes = segment.as_encoded_bytes();
        let last = i + 1 == segments.len();
        let query_at = (last && layout == Layout::Wget)
            .then(|| memchr::memchr(b'?', bytes).or_else(|| memchr::memchr(b'@', bytes)))
            .flatten();
        match query_at {
            Some(at) => {
                reference.extend(percent_encode(&bytes[..at], SEGMENT));
                reference.push('?');
                reference.extend(percent_encode(&bytes[at + 1..], QUERY));
            }
            None => reference.extend(percent_encode(bytes, SEGMENT)),
        }
    }
    let url = absolve::resolve(directory, &reference);
    Base::absolute(&url, BaseSource::RetrievalUrl)
        .map_err(|e| Problem::Failure(format!("{}: {e}", below.display())))
}

/// Bytes percent-encoded in a query made from a file name: controls, space, `"`, `#`,
/// `<`, `>`, `%` (non-ASCII bytes are encoded too).
const QUERY: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>');

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_encode_each_segment() {
        let plain = Layout::Plain;
        let base = file_url("https://example.com/docs/", Path::new("a/b c.html"), plain).unwrap();
        assert_eq!(base.url(), Some("https://example.com/docs/a/b%20c.html"));
        let wget = file_url("http://h/", Path::new("page.php?id=3"), plain).unwrap();
        assert_eq!(wget.url(), Some("http://h/page.php%3Fid=3"));
        let colon = file_url("http://h/d/", Path::new("c:d;x#y.html"), plain).unwrap();
        assert_eq!(colon.url(), Some("http://h/d/c:d%3Bx%23y.html"));
        let utf8 = file_url("http://h/", Path::new("é.html"), plain).unwrap();
        assert_eq!(utf8.url(), Some("http://h/%C3%A9.html"));
    }

    #[test]
    fn a_wget_mirror_keeps_the_query_in_the_file_name() {
        let wget = Layout::Wget;
        let page = file_url("https://www.example.com/", Path::new("page.php?id=3"), wget);
        assert_eq!(
            page.unwrap().url(),
            Some("https://www.example.com/page.php?id=3")
        );
        let windows = file_url("http://h/", Path::new("d?x/page.php@id=3&b=a b"), wget);
        assert_eq!(
            windows.unwrap().url(),
            Some("http://h/d%3Fx/page.php?id=3&b=a%20b")
        );
        let plain_name = file_url("http://h/", Path::new("index.html"), wget);
        assert_eq!(plain_name.unwrap().url(), Some("http://h/index.html"));
    }
}
