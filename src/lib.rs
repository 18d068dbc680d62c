//! # absolve
//!
//! Makes every link in HTML documents and MIME messages absolute, exactly as RFC 1808
//! (Relative Uniform Resource Locators) defines it.
//!
//! The crate follows the RFC's structure:
//! - [`url`]: §2.4 parsing and §4 resolution (and RFC 3986 §5.2 as an option).
//!
//! ```
//! assert_eq!(absolve::resolve("http://a/b/c/d;p?q#f", "g;x?y#s"), "http://a/b/c/g;x?y#s");
//! ```

pub mod url;

pub use url::{Standard, resolve};
