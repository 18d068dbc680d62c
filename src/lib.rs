//! # absolve
//!
//! Makes every link in HTML documents, stylesheets, MIME messages and web archives
//! absolute, exactly as RFC 1808 (Relative Uniform Resource Locators) defines it.
//!
//! One call reads any input: [`pipeline::run`] (streaming, into a [`Sink`]), or
//! [`document::rewrite`] and [`document::links`] (in memory), with one [`Options`].
//!
//! ```
//! use absolve::{document, Options};
//!
//! let options = Options::new().with_url("http://example.com/a/page.html")?;
//! let done = document::rewrite(br#"<a href="../b/">b</a>"#, &options)?;
//! assert_eq!(done.output, br#"<a href="http://example.com/b/">b</a>"#);
//!
//! let found = document::links(br#"<img src="i.png">"#, &options)?;
//! assert_eq!(found.links[0].resolved, "http://example.com/a/i.png");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Guarantees
//! - No `unsafe` code in this crate (`#![deny(unsafe_code)]`).
//! - Every byte outside a changed URL is written as it was; an input rewritten twice
//!   does not change the second time.
//! - Damaged input is never an error that loses data: it is passed through unchanged
//!   with a [`Warning`] that says where; only an input that cannot be read at all is an
//!   [`Error`].
//! - Nothing panics on any input (fuzzed: `fuzz/`).
//!
//! ## The map
//! The crate follows the RFC's structure, data flowing one way:
//! - [`url`]: §2.4 parsing and §4 resolution (RFC 3986 §5.2 as an option), and how the
//!   RFC is read where it is silent;
//! - [`base`]: the layers of §3, innermost first, each with where it came from;
//! - [`pipeline`]: the one driver: format, container, one function per kind of
//!   document, results into a [`Sink`];
//! - documents: [`html`] (the streaming HTML rewriter, §3.1 `<base href>`) and [`css`]
//!   (`url()` and `@import`);
//! - containers, each adding its base layer (§3.2) around the documents it holds:
//!   [`mime`] (messages, MHTML, mbox) and [`warc`] (web archives: a record's HTTP
//!   message and `WARC-Target-URI`);
//! - the vocabulary: [`Options`] (checked once), [`Link`] with its [`Location`], one
//!   [`Warning`] type, the [`Sink`] they leave by;
//! - [`document`]: the pipeline over an input held in memory;
//! - [`retrieval`]: the retrieval URL (§3.3) a saved page's markers give;
//! - [`format`](mod@format): telling the inputs apart;
//! - [`threads`]: how many threads the parallel work gets.
//!
//! ```
//! assert_eq!(absolve::resolve("http://a/b/c/d;p?q#f", "g;x?y#s"), "http://a/b/c/g;x?y#s");
//! ```

#![deny(missing_docs)]
#![deny(unsafe_code)]

/// A table of a byte predicate for every byte, built at compile time, for scanners that
/// ask it of each byte of their input (`byte_table!(|b| b.is_ascii_digit())`).
macro_rules! byte_table {
    (|$byte:ident| $predicate:expr) => {{
        let mut table = [false; 256];
        let mut index = 0;
        while index < 256 {
            let $byte = index as u8;
            table[index] = $predicate;
            index += 1;
        }
        table
    }};
}

pub mod base;
pub mod compress;
pub mod css;
pub mod document;
pub mod feed;
pub mod format;
pub mod html;
pub mod links;
pub mod mailfolder;
pub mod mime;
mod options;
pub mod pipeline;
pub mod retrieval;
mod sink;
mod spool;
pub mod threads;
pub mod url;
pub mod wacz;
pub mod warc;
mod warning;
pub mod webarchive;

pub use links::{Link, Location};
pub use options::{DEFAULT_MAX_HELD, OptionError, Options};
pub use pipeline::Error;
pub use sink::{Collected, Event, LinkBytes, LinkEncoder, Sink};
pub use url::{Standard, resolve};
pub use warning::{Problem, Warning};

/// The README's Rust examples, compiled and run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The user guide's Rust examples, compiled and run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../GUIDE.md")]
pub struct GuideDoctests;
