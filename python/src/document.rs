//! A whole document, by format, through the library's pipeline (an HTML page, a
//! stylesheet, one MIME message, an mbox archive, a WARC file; bytes or a file): its links
//! turned into the binding's `Link` and its warnings into the text of `AbsolveWarning`s.
//! Nothing here touches Python: it runs with the GIL released.

use crate::args::Document;
use crate::link::Link;
use absolve::pipeline::{self, Input};
use absolve::{Collected, Options, Problem, Warning};

/// What a document gave: its rewritten bytes (when asked), its links, its warnings.
#[derive(Debug, Default)]
pub struct Outcome {
    pub output: Vec<u8>,
    pub links: Vec<Link>,
    pub warnings: Vec<String>,
}

/// What the caller wants out of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// The rewritten bytes.
    Output,
    /// The links.
    Links,
}

/// Processes a document as `options` say; an unreadable input (a WARC that is not one, a
/// file that cannot be read) is the library's error, worded.
pub fn process(document: &Document<'_>, options: &Options, want: Want) -> Result<Outcome, String> {
    let mut sink = match want {
        Want::Output => Collected::output_only(),
        Want::Links => Collected::links_only(),
    };
    let input = match document {
        Document::Bytes(bytes) => Input::Bytes(bytes),
        Document::Path(path) => Input::File(path),
        // `&File` reads: the document is borrowed, as its bytes are.
        Document::Stream(_, file) => Input::Reader(Box::new(std::io::BufReader::new(file))),
    };
    pipeline::run(input, options, &mut sink).map_err(|e| match document {
        Document::Path(path) | Document::Stream(path, _) => format!("{}: {e}", path.display()),
        Document::Bytes(_) => e.to_string(),
    })?;
    Ok(Outcome {
        output: sink.output,
        links: sink.links.into_iter().map(Link::from).collect(),
        warnings: sink.warnings.iter().map(worded).collect(),
    })
}

/// A warning as an `AbsolveWarning` says it: the library's text, with the Python
/// argument to pass where the library speaks of options.
pub fn worded(warning: &Warning) -> String {
    match &warning.problem {
        Problem::NoBaseUrl => "no base URL: links left relative (pass url=)".to_owned(),
        Problem::UrlUnused => "url= is not used for a WARC file: each record's \
             WARC-Target-URI is its retrieval URL"
            .to_owned(),
        Problem::WebArchive(absolve::webarchive::Warning::UrlUnused) => "url= is not used: \
             each resource of the web archive has its WebResourceURL as its retrieval URL"
            .to_owned(),
        Problem::TooLarge(too_large) => match warning.location.message {
            Some(message) => format!("message {message}: {}", too_large.worded("max_held=")),
            None => too_large.worded("max_held="),
        },
        // A resource of a web archive, a member of a WACZ: named first, as the command
        // line names it after the file.
        _ => match &warning.location.file {
            Some(file) => format!("{file}: {warning}"),
            None => warning.to_string(),
        },
    }
}
