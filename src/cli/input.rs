//! The input options shared by `rewrite` and `links`, checked before anything is read or
//! written, and the list of inputs they name.

use absolve::base::Base;
use absolve::html::{self, charset};
use absolve::url::Standard;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

/// What the input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Tell HTML, a MIME message and an mbox apart by content.
    Auto,
    /// An HTML document.
    Html,
    /// A MIME message (.eml) or an MHTML page (.mht, .mhtml).
    Mime,
    /// An mbox archive of messages.
    Mbox,
    /// A WARC web archive (.warc, .warc.gz): the HTML and CSS payloads of its records.
    Warc,
}

#[derive(Debug, Args)]
pub struct InputArgs {
    /// The URL the document was retrieved from (RFC 1808 §3.3): the base when the
    /// document gives none. It must be absolute.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// The document's charset (a WHATWG label); a BOM wins over it, it wins over <meta>.
    #[arg(long, value_name = "LABEL")]
    pub charset: Option<String>,
    /// Resolve fragment-only references (#x) too, as RFC 1808 §5 does.
    #[arg(long)]
    pub resolve_fragments: bool,
    /// The standard to resolve by: 1808 (the default) or 3986.
    #[arg(long = "rfc", value_name = "1808|3986", default_value = "1808")]
    pub standard: Standard,
    /// The input format.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: Format,
    /// WARC: also take the HTTP Content-Base and Content-Location header fields as bases
    /// (RFC 1808 §3.2, RFC 2068), between <base href> and WARC-Target-URI.
    #[arg(long)]
    pub http_base_headers: bool,
    /// Process every file under the directories given.
    #[arg(short, long)]
    pub recursive: bool,
    /// Files to read; none, or `-`, reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// The options once checked: a usable base, a known charset.
pub struct Checked {
    pub outer: Base,
    pub options: html::Options,
    pub format: Format,
    pub http_base_headers: bool,
}

impl InputArgs {
    /// Checks `--url` and `--charset`, so that a bad one fails before any file is touched.
    pub fn check(&self) -> Result<Checked, String> {
        let outer = match &self.url {
            Some(url) => Base::retrieval_url(url).map_err(|e| format!("--url: {e}"))?,
            None => Base::none(),
        };
        let charset = match &self.charset {
            Some(label) => Some(
                charset::from_label(label)
                    .ok_or_else(|| format!("--charset: unknown charset label {label:?}"))?,
            ),
            None => None,
        };
        let options = html::Options {
            standard: self.standard,
            resolve_fragments: self.resolve_fragments,
            charset,
            ..html::Options::default()
        };
        Ok(Checked {
            outer,
            options,
            format: self.format,
            http_base_headers: self.http_base_headers,
        })
    }

    /// The inputs: standard input (`None`), or files, directories expanded with `-r`.
    pub fn inputs(&self) -> Result<Vec<Option<PathBuf>>, String> {
        if self.files.is_empty() {
            return Ok(vec![None]);
        }
        let mut inputs = Vec::new();
        for path in &self.files {
            if path == Path::new("-") {
                inputs.push(None);
            } else if path.is_dir() {
                if !self.recursive {
                    return Err(format!("{}: is a directory (use -r)", path.display()));
                }
                inputs.extend(files_under(path, self.format)?.into_iter().map(Some));
            } else {
                inputs.push(Some(path.clone()));
            }
        }
        Ok(inputs)
    }
}

/// The files under `dir` that the format covers, in a stable order.
fn files_under(dir: &Path, format: Format) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        if entry.file_type().is_file() && covers(format, entry.path()) {
            files.push(entry.into_path());
        }
    }
    Ok(files)
}

/// Whether a file found under a directory is one the format processes, by its extension.
fn covers(format: Format, path: &Path) -> bool {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let html = ["html", "htm", "xhtml", "shtml"].contains(&extension.as_str());
    let mime = ["eml", "mht", "mhtml", "msg"].contains(&extension.as_str());
    let mbox = ["mbox", "mbx"].contains(&extension.as_str());
    let name = path.to_string_lossy().to_ascii_lowercase();
    let warc = name.ends_with(".warc") || name.ends_with(".warc.gz");
    match format {
        Format::Auto => html || mime || mbox || warc,
        Format::Warc => warc,
        Format::Html => html,
        Format::Mime => mime,
        Format::Mbox => mbox,
    }
}
