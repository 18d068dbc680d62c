//! [`Options`]: how an input is read, checked once, the same for every face (the CLI's
//! flags, the Python functions' arguments, a Rust caller's builder calls).

use crate::base::{Base, BaseSource};
use crate::format::Format;
use crate::html::{self, charset};
use crate::retrieval::{self, BadBaseUrl};
use crate::url::Standard;

/// How an input is read: its retrieval URL, how references resolve, its charset, its
/// format. Start from [`Options::new`] and set what differs; each `with_` method that
/// takes text checks it, as the CLI checks its flags, and says what is wrong in an
/// [`OptionError`].
///
/// ```
/// use absolve::{Options, Standard};
///
/// let options = Options::new()
///     .with_url("https://example.com/a/")?
///     .with_charset("latin1")?
///     .with_standard(Standard::Rfc3986);
/// assert_eq!(options.url(), Some("https://example.com/a/"));
/// assert_eq!(options.charset(), Some(encoding_rs::WINDOWS_1252));
///
/// let error = Options::new().with_url("http://").unwrap_err();
/// assert_eq!(error.option(), "url");
/// assert_eq!(error.to_string(), r#"url: "http://" has no host: http URLs need one"#);
/// # Ok::<(), absolve::OptionError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Options {
    /// §3.3: the URL the input was retrieved from, or none (§3.4).
    pub(crate) url: Base,
    /// How each HTML and CSS text is rewritten (standard, fragments, charset, ...).
    pub(crate) html: html::Options,
    /// The format, or `None` to tell it by content.
    pub(crate) format: Option<Format>,
    /// WARC: the HTTP `Content-Base`/`Content-Location` fields as §3.2 bases.
    pub(crate) http_base_headers: bool,
    /// A reference naming a file beside the document on disk is kept as it is.
    pub(crate) keep_local: bool,
    /// The most bytes of a message or stylesheet read from a stream held in memory.
    pub(crate) max_held: u64,
    /// The input is a stream read on after damaged compressed data (bzip2, xz, zstd,
    /// LZ4 blocks or frames: `pipeline::each_stream`, `warc::Links`): it may start inside
    /// a record, and one that holds none is no error.
    pub(crate) read_on: bool,
    /// Set by what decompresses the input (`pipeline::each_stream`'s streams,
    /// `warc::Links`) when damage stopped the decompression and so ended the input: a
    /// WARC record cut there is cut by the damage, not by the file's end.
    pub(crate) input_ends_at_damage: Option<crate::compress::DamageEnd>,
    /// Shared by the streams of a compressed file (`pipeline::each_stream`,
    /// `warc::Links`): a WARC stream read on after damage numbers its records after
    /// those of the streams before it.
    pub(crate) record_count: Option<crate::warc::RecordCount>,
}

/// The default [`Options::with_max_held`]: 256 MiB, the limit a WARC record's decoded
/// body has too.
pub const DEFAULT_MAX_HELD: u64 = 256 << 20;

impl Default for Options {
    fn default() -> Self {
        Options {
            url: Base::default(),
            html: html::Options::default(),
            format: None,
            http_base_headers: false,
            keep_local: false,
            max_held: DEFAULT_MAX_HELD,
            read_on: false,
            input_ends_at_damage: None,
            record_count: None,
        }
    }
}

/// A value [`Options`] refuses, with the option it was given for.
///
/// ```
/// let error = absolve::Options::new().with_charset("x-klingon").unwrap_err();
/// assert_eq!((error.option(), error.reason()), ("charset", r#"unknown charset label "x-klingon""#.to_owned()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionError {
    /// The retrieval URL cannot be a base.
    #[error("url: {0}")]
    Url(#[from] BadBaseUrl),
    /// Not a WHATWG encoding label.
    #[error("charset: unknown charset label {0:?}")]
    Charset(String),
}

impl OptionError {
    /// The option's name (`url`, `charset`): the CLI says `--url`, Python `url=`.
    pub fn option(&self) -> &'static str {
        match self {
            OptionError::Url(_) => "url",
            OptionError::Charset(_) => "charset",
        }
    }

    /// What is wrong with the value, without the option's name.
    pub fn reason(&self) -> String {
        match self {
            OptionError::Url(error) => error.to_string(),
            OptionError::Charset(label) => format!("unknown charset label {label:?}"),
        }
    }
}

impl Options {
    /// These options for the streams `decoder` gives of a compressed file, one after
    /// another as it reads on after damage (`pipeline::each_stream`, `warc::Links`): a
    /// WARC record cut where damage ends a stream is cut by the damage, not the file's
    /// end, and the records of a stream read on are numbered after those before it.
    pub(crate) fn for_the_streams_of<R: std::io::BufRead>(
        &self,
        decoder: &mut crate::compress::Decoder<R>,
    ) -> Options {
        Options {
            input_ends_at_damage: Some(decoder.damage_end()),
            record_count: Some(crate::warc::RecordCount::default()),
            ..self.clone()
        }
    }

    /// Every option at its default.
    ///
    /// ```
    /// let options = absolve::Options::new();
    /// assert_eq!((options.url(), options.format(), options.charset()), (None, None, None));
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The URL the input was retrieved from (RFC 1808 §3.3): the base where the input
    /// names none. Checked as the CLI's `--url`: absolute, not opaque (`mailto:`,
    /// `data:`), no whitespace, a host for http(s), ftp and ws(s); with
    /// [`Standard::Whatwg`] chosen before it ([`Options::with_standard`]), a URL the URL
    /// Standard parses (`http://a:99999/` is refused: it would resolve nothing).
    ///
    /// ### Default
    /// None: a saved page's own record of its URL is looked for (see
    /// [`retrieval`](crate::retrieval)); without one, relative references stay as they
    /// are (§3.4), with [`Problem::NoBaseUrl`](crate::Problem::NoBaseUrl).
    ///
    /// ```
    /// let options = absolve::Options::new().with_url("http://h/a b");
    /// assert!(options.unwrap_err().to_string().contains("whitespace"));
    /// let whatwg = absolve::Options::new().with_standard(absolve::Standard::Whatwg);
    /// assert!(whatwg.with_url("http://a:99999/").is_err());
    /// ```
    pub fn with_url(mut self, url: &str) -> Result<Self, OptionError> {
        self.url = retrieval::check_base_url_by(self.html.standard, url, BaseSource::RetrievalUrl)?;
        Ok(self)
    }

    /// The retrieval URL as a [`Base`] already made (a CLI's per-file URL under a
    /// directory's), or [`Base::none`].
    ///
    /// ```
    /// use absolve::base::Base;
    ///
    /// let options = absolve::Options::new().with_base(Base::retrieval_url("http://h/")?);
    /// assert_eq!(options.url(), Some("http://h/"));
    /// # Ok::<(), absolve::base::NotAbsolute>(())
    /// ```
    pub fn with_base(mut self, base: Base) -> Self {
        self.url = base;
        self
    }

    /// The input's charset, a WHATWG label (`latin1`, `Shift_JIS`): the transport's. A
    /// BOM wins over it; it wins over `<meta charset>` and `@charset`.
    ///
    /// ### Default
    /// None: a MIME part's or HTTP response's own charset, else what the document says,
    /// else UTF-8.
    ///
    /// ```
    /// let options = absolve::Options::new().with_charset("sjis")?;
    /// assert_eq!(options.charset(), Some(encoding_rs::SHIFT_JIS));
    /// # Ok::<(), absolve::OptionError>(())
    /// ```
    pub fn with_charset(mut self, label: &str) -> Result<Self, OptionError> {
        let encoding =
            charset::from_label(label).ok_or_else(|| OptionError::Charset(label.to_owned()))?;
        self.html.charset = Some(encoding);
        Ok(self)
    }

    /// The standard references are resolved by.
    ///
    /// ### Default
    /// [`Standard::Rfc1808`].
    ///
    /// ```
    /// use absolve::{Options, Standard};
    ///
    /// assert_eq!(Options::new().with_standard(Standard::Rfc3986).standard(), Standard::Rfc3986);
    /// ```
    pub fn with_standard(mut self, standard: Standard) -> Self {
        self.html.standard = standard;
        self
    }

    /// Resolve fragment-only references (`#x`) too, as RFC 1808 §5 does.
    ///
    /// ### Default
    /// `false`: a fragment-only reference is a same-document reference, left as it is.
    ///
    /// ```
    /// use absolve::{document, Options};
    ///
    /// let options = Options::new().with_url("http://h/p")?.with_resolve_fragments(true);
    /// assert_eq!(document::rewrite(b"<a href=#x>", &options)?.output, b"<a href=http://h/p#x>");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_resolve_fragments(mut self, resolve: bool) -> Self {
        self.html.resolve_fragments = resolve;
        self
    }

    /// The input's format, or `None` to tell it by content
    /// ([`format::detect`](crate::format::detect)).
    ///
    /// ### Default
    /// `None`.
    ///
    /// ```
    /// use absolve::{document, format::Format, Options};
    ///
    /// let css = Options::new().with_url("http://h/c/s.css")?.with_format(Some(Format::Css));
    /// assert_eq!(document::rewrite(b"a{b:url(i.png)}", &css)?.output, b"a{b:url(http://h/c/i.png)}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_format(mut self, format: Option<Format>) -> Self {
        self.format = format;
        self
    }

    /// WARC: take the HTTP `Content-Base` and `Content-Location` header fields as bases
    /// (RFC 1808 §3.2, RFC 2068 §14.11), between `<base href>` and `WARC-Target-URI`.
    ///
    /// ### Default
    /// `false`, as browsers do (RFC 7231 dropped the rule).
    ///
    /// ```
    /// assert!(absolve::Options::new().with_http_base_headers(true).http_base_headers());
    /// ```
    pub fn with_http_base_headers(mut self, yes: bool) -> Self {
        self.http_base_headers = yes;
        self
    }

    /// Leave a relative reference as it is when it names a file that exists beside the
    /// document on disk (a saved page's `./page_files/...`); its link says
    /// [`Kept::Local`](crate::links::Kept::Local). Only for inputs read from a file.
    ///
    /// ### Default
    /// `false`.
    ///
    /// ```
    /// assert!(absolve::Options::new().with_keep_local(true).keep_local());
    /// ```
    pub fn with_keep_local(mut self, keep: bool) -> Self {
        self.keep_local = keep;
        self
    }

    /// The most bytes of one MIME message (an `.eml`, an MHTML page, a message of an
    /// mbox), one stylesheet or one Safari web archive (a property list, parsed whole)
    /// held in memory while it is read from a file or a stream (compressed or not): these
    /// are read whole, their parts found in them. One larger is passed through unchanged
    /// by a rewrite and its links are not listed, with a
    /// [`Problem::TooLarge`](crate::Problem::TooLarge) warning, so that memory stays
    /// bounded whatever the input (a small `.eml.bz2` can decompress to gigabytes). An
    /// input given as bytes ([`Input::Bytes`](crate::pipeline::Input::Bytes)) is held
    /// already: no limit applies to it. Each message of an mbox is held in turn, and
    /// one larger than the limit is passed through the same way.
    ///
    /// ### Default
    /// [`DEFAULT_MAX_HELD`]: 256 MiB.
    ///
    /// ```
    /// use absolve::pipeline::{self, Input};
    /// use absolve::{Collected, Options, Problem};
    ///
    /// let message: &[u8] = b"Content-Location: http://h/p.html\r\nContent-Type: text/html\r\n\r\n<a href=x>";
    /// let options = Options::new().with_max_held(16);
    /// assert_eq!(options.max_held(), 16);
    /// let mut sink = Collected::default();
    /// pipeline::run(Input::Reader(Box::new(message)), &options, &mut sink)?;
    /// assert_eq!(sink.output, message);
    /// assert!(matches!(sink.warnings[0].problem, Problem::TooLarge(_)));
    /// # Ok::<(), absolve::Error>(())
    /// ```
    pub fn with_max_held(mut self, bytes: u64) -> Self {
        self.max_held = bytes;
        self
    }

    /// The HTML and CSS options of every document inside the input (for callers that
    /// need one the builder does not offer, such as
    /// [`html::Options::keep_reference`]).
    ///
    /// ```
    /// use absolve::{html, Options};
    ///
    /// let options = Options::new().with_html(html::Options { max_buffer: 1 << 20, ..html::Options::default() });
    /// assert_eq!(options.html().max_buffer, 1 << 20);
    /// ```
    pub fn with_html(mut self, html: html::Options) -> Self {
        self.html = html;
        self
    }

    /// The retrieval URL, if one was given.
    pub fn url(&self) -> Option<&str> {
        self.url.url()
    }

    /// The retrieval URL as a base ([`Base::none`] when none was given).
    pub fn base(&self) -> &Base {
        &self.url
    }

    /// The charset given, if any.
    pub fn charset(&self) -> Option<&'static encoding_rs::Encoding> {
        self.html.charset
    }

    /// The standard references are resolved by.
    pub fn standard(&self) -> Standard {
        self.html.standard
    }

    /// Whether fragment-only references are resolved.
    pub fn resolve_fragments(&self) -> bool {
        self.html.resolve_fragments
    }

    /// The format given, if any.
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// Whether the HTTP base header fields count in WARC records.
    pub fn http_base_headers(&self) -> bool {
        self.http_base_headers
    }

    /// Whether local references are kept.
    pub fn keep_local(&self) -> bool {
        self.keep_local
    }

    /// The most bytes of a message or stylesheet held in memory.
    pub fn max_held(&self) -> u64 {
        self.max_held
    }

    /// The HTML and CSS options.
    pub fn html(&self) -> &html::Options {
        &self.html
    }
}
