//! A whole document in memory, by format: the library's `absolve::document` (HTML, a
//! stylesheet, one MIME message, an mbox archive, a WARC file), its links turned into the
//! binding's `Link` and its warnings into the text of `AbsolveWarning`s. Nothing here
//! touches Python: it runs with the GIL released.

use crate::args::Checked;
use crate::link::Link;
use absolve::document::{self, Warning};
use absolve::format::Format;

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

/// Processes `bytes` as `format` (`None`: told apart by content); an unreadable WARC is
/// the library's error, worded.
pub fn process(
    bytes: &[u8],
    format: Option<Format>,
    checked: &Checked,
    want: Want,
) -> Result<Outcome, String> {
    let options = checked.library_options();
    let outer = &checked.outer;
    match want {
        Want::Output => {
            let done =
                document::rewrite(bytes, format, outer, &options).map_err(|e| e.to_string())?;
            Ok(Outcome {
                output: done.output,
                links: Vec::new(),
                warnings: texts(&done.warnings),
            })
        }
        Want::Links => {
            let found =
                document::links(bytes, format, outer, &options).map_err(|e| e.to_string())?;
            Ok(Outcome {
                output: Vec::new(),
                links: found.links.into_iter().map(Link::from).collect(),
                warnings: texts(&found.warnings),
            })
        }
    }
}

/// Each warning as its `AbsolveWarning` says it (it names its message and part, or its
/// record).
fn texts(warnings: &[Warning]) -> Vec<String> {
    warnings.iter().map(ToString::to_string).collect()
}
