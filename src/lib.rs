//! # absolve
//!
//! Makes every link in HTML documents, MIME messages and web archives absolute, exactly
//! as RFC 1808 (Relative Uniform Resource Locators) defines it.
//!
//! The crate follows the RFC's structure:
//! - [`url`]: §2.4 parsing and §4 resolution (and RFC 3986 §5.2 as an option);
//! - [`base`]: the layers of §3, innermost first, each with where it came from;
//! - [`html`]: the streaming HTML rewriter (§3.1 `<base href>`), with [`css`] for
//!   `url()` and `@import`: a document, whatever holds it;
//! - containers, each adding its base layer (§3.2) around the documents it holds:
//!   [`mime`] (messages, MHTML, mbox) and [`warc`] (web archives: a record's HTTP
//!   message and `WARC-Target-URI`);
//! - [`document`]: a whole document held in memory, by format (told apart by content or
//!   named), rewritten or listed in one call, each link located by message and part or
//!   by record;
//! - [`links`]: the record reported for every URL found;
//! - [`retrieval`]: the retrieval URL (§3.3) a saved page's markers give;
//! - [`format`]: telling the inputs apart.
//!
//! ```
//! assert_eq!(absolve::resolve("http://a/b/c/d;p?q#f", "g;x?y#s"), "http://a/b/c/g;x?y#s");
//! ```

#![deny(missing_docs)]

pub mod base;
pub mod css;
pub mod document;
pub mod feed;
pub mod format;
pub mod html;
pub mod links;
pub mod mime;
pub mod retrieval;
pub mod url;
pub mod warc;

pub use url::{Standard, resolve};

/// The README's Rust examples, compiled and run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
