//! # absolve
//!
//! Makes every link in HTML documents and MIME messages absolute, exactly as RFC 1808
//! (Relative Uniform Resource Locators) defines it.
//!
//! The crate follows the RFC's structure:
//! - [`url`]: §2.4 parsing and §4 resolution (and RFC 3986 §5.2 as an option);
//! - [`base`]: the layers of §3, innermost first, each with where it came from;
//! - [`html`]: the streaming HTML rewriter (§3.1 `<base href>`), with [`css`] for
//!   `url()` and `@import`;
//! - [`links`]: the record reported for every URL found.
//!
//! ```
//! assert_eq!(absolve::resolve("http://a/b/c/d;p?q#f", "g;x?y#s"), "http://a/b/c/g;x?y#s");
//! ```

pub mod base;
pub mod css;
pub mod format;
pub mod html;
pub mod links;
pub mod mime;
pub mod url;
pub mod warc;

pub use url::{Standard, resolve};
