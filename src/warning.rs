//! [`Warning`]: something wrong in an input that did not stop the work, with where it
//! is. The one type every path reports, through [`Sink::warning`](crate::Sink::warning).

use crate::links::Location;
use crate::{html, mime, warc};
use std::fmt;

/// Something wrong in an input that did not stop the rewrite or the listing: what
/// ([`problem`](Self::problem)) and where ([`location`](Self::location): the message of
/// an mbox, the record of a WARC file; the byte offset is in the problem).
///
/// Its text is the problem's, after `message N: ` for a problem inside a message (a MIME
/// problem names its part itself, a WARC one its record): what the CLI prints after the
/// file name, and the text of a Python `AbsolveWarning`.
///
/// ```
/// use absolve::{document, Options, Problem};
///
/// let message = b"Content-Type: text/html; charset=x-klingon\r\n\r\n<a href=b>";
/// let done = document::rewrite(message, &Options::new())?;
/// assert_eq!(done.output, message);
/// let warning = &done.warnings[0];
/// assert_eq!(warning.location.message, Some(1));
/// assert!(matches!(warning.problem, Problem::Mime(_)));
/// assert!(warning.to_string().starts_with("message 1: part 1: "));
/// # Ok::<(), absolve::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where: message (and part), record; empty for a bare document.
    pub location: Location,
    /// What.
    pub problem: Problem,
}

/// What a [`Warning`] is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// About an HTML document or a stylesheet (a value, the parser, the charset).
    #[error(transparent)]
    Html(html::Warning),
    /// About a message or one of its parts (it names the part).
    #[error(transparent)]
    Mime(mime::Warning),
    /// About a WARC record (it names the record) or the framing between records.
    #[error(transparent)]
    Warc(warc::Warning),
    /// About a feed (it gives the byte offset).
    #[error(transparent)]
    Feed(crate::feed::Warning),
    /// About a resource of a Safari web archive (the warning's
    /// [`file`](crate::links::Location::file) names it) or the URL given for one.
    #[error(transparent)]
    WebArchive(crate::webarchive::Warning),
    /// Relative references were left as they are for want of any base (RFC 1808 §3.4):
    /// no retrieval URL was given and the document names none.
    #[error("no base URL: links left relative")]
    NoBaseUrl,
    /// Relative references were left as they are in a file of a saved page's folder
    /// (`NAME_files/`), which has no URL of its own.
    #[error("no base URL: a file of the saved page {}, which has no URL of its own: links left relative", page.display())]
    SavedPageFile {
        /// The saved page.
        page: std::path::PathBuf,
    },
    /// References that name files beside the document on disk were resolved against
    /// the URL a saved page's marker gave ([`Options::with_keep_local`](crate::Options::with_keep_local)
    /// would have kept them).
    #[error(
        "{count} reference(s) name files beside it, resolved against the URL from {marker} all the same"
    )]
    LocalFilesResolved {
        /// How many references.
        count: usize,
        /// The marker that gave the URL.
        marker: crate::base::BaseSource,
    },
    /// Compressed input damaged partway: what came before is processed, the rest copied
    /// as it is.
    #[error("{0}")]
    Compression(crate::compress::Damage),
    /// A WARC member of a WACZ read only in part (the warning's
    /// [`file`](crate::links::Location::file) names it).
    #[error(transparent)]
    WaczMember(crate::wacz::MemberDamage),
    /// A member of a WACZ's ZIP that its directory does not list: not read.
    #[error(transparent)]
    WaczUnlisted(crate::wacz::UnlistedMember),
    /// A WACZ whose ZIP central directory cannot be read (the file cut short?): its WARC
    /// members are read from their local headers ([`Wacz::from_local_headers`](crate::wacz::Wacz::from_local_headers)).
    #[error(
        "its ZIP directory is unreadable ({0}: the file cut short?): its WARC members are read from their local headers, the last up to where the file ends"
    )]
    WaczWithoutDirectory(String),
    /// A message or stylesheet larger than [`Options::with_max_held`](crate::Options::with_max_held)
    /// lets be held in memory: passed through unchanged, its links not listed.
    #[error("{0}")]
    TooLarge(crate::pipeline::TooLarge),
    /// A retrieval URL was given for a WARC file, whose records each carry theirs.
    #[error(
        "the retrieval URL given is not used for a WARC file: each record's WARC-Target-URI is its retrieval URL"
    )]
    UrlUnused,
    /// The format given does not match what the input starts with: read as given all
    /// the same (an mbox without a From_ line passes through up to the first one; a
    /// "message" that is HTML has no header, so nothing changes).
    #[error("read as {given} as asked, though it looks like {found}")]
    FormatMismatch {
        /// The format given.
        given: crate::format::Format,
        /// The format its first bytes look like.
        found: crate::format::Format,
    },
    /// No format was given and the input's first [`SNIFF_LIMIT`](crate::feed::SNIFF_LIMIT)
    /// bytes are all an XML prolog (comments, processing instructions, a DOCTYPE): whether
    /// its root element is a feed's is not told, and it is read as HTML.
    #[error(
        "its first {} KiB are an XML prolog: its root element was not looked for past them, read as HTML",
        crate::feed::SNIFF_LIMIT >> 10
    )]
    LongProlog,
    /// The file's name says it is compressed (`.gz`, `.bz2`, `.xz`, `.zst`, `.lz4`), but its bytes
    /// are not, and hold no member of that compression: read as they are (a file saved
    /// decompressed under its compressed name, as a browser or `wget` may save one).
    #[error(
        "its name says {0}, but it is not {0} data and holds none: read as it is (saved decompressed?)"
    )]
    NotCompressed(crate::compress::Compression),
    /// The input is an image, audio or video, a font or a program
    /// ([`format::binary_kind`](crate::format::binary_kind)), JSON
    /// ([`format::is_json`](crate::format::is_json)), or named as a script, data or text
    /// ([`format::is_not_a_document`](crate::format::is_not_a_document)) with nothing in
    /// it a document's: not a document, it is passed through as it is, never read as HTML.
    #[error(
        "{0}, not a document: passed through unchanged (to read it as HTML all the same, give the format html)"
    )]
    NotADocument(std::borrow::Cow<'static, str>),
}

impl Warning {
    /// A warning at no particular place (a bare document).
    ///
    /// ```
    /// use absolve::{Problem, Warning};
    ///
    /// let warning = Warning::new(Problem::NoBaseUrl);
    /// assert!(warning.location.is_empty());
    /// assert_eq!(warning.to_string(), "no base URL: links left relative");
    /// ```
    pub fn new(problem: Problem) -> Self {
        Warning {
            location: Location::default(),
            problem,
        }
    }

    /// The same warning for a fragment of a document that starts at `shift` in the
    /// outer one (an HTML document's `<noscript>` text, a srcdoc document).
    pub(crate) fn shifted(self, shift: u64) -> Self {
        match self.problem {
            Problem::Html(warning) => Warning {
                problem: Problem::Html(warning.shifted(shift)),
                ..self
            },
            _ => self,
        }
    }
}

impl From<html::Warning> for Warning {
    fn from(warning: html::Warning) -> Self {
        Warning::new(Problem::Html(warning))
    }
}

impl From<warc::Warning> for Warning {
    fn from(warning: warc::Warning) -> Self {
        Warning::new(Problem::Warc(warning))
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (Problem::Mime(_), Some(message)) = (&self.problem, self.location.message) {
            write!(f, "message {message}: ")?;
        }
        self.problem.fmt(f)
    }
}

impl std::error::Error for Warning {}
