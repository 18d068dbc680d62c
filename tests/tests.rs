//! The integration tests, one binary: one module per behaviour, each saying at its top
//! what it checks. Runners and generators they share are in `common`.
//! Run one module with `cargo test --test tests MODULE::`.

mod common;

mod arc;
mod browser;
mod cli_archives;
mod cli_files;
mod cli_files_root;
mod cli_hard_links;
mod cli_mime;
mod cli_resolve;
mod cli_rewrite;
mod cli_saved;
mod cli_trees;
mod cli_usage;
mod compress;
mod compress_damage;
mod compress_lz4;
mod feed;
mod hardening;
mod html_bytes;
mod html_corpus;
mod html_implied_end_tags;
mod html_reliability;
mod html_rules;
mod html_send;
mod html_transcoded;
mod mime_bytes;
mod mime_emlx;
mod mime_mmdf;
mod mime_structure;
mod resolve_corpus;
mod resolve_properties;
mod resolve_rfc1808;
mod resolve_whatwg;
mod snapshots_html;
mod snapshots_mime;
mod snapshots_resolve;
mod snapshots_webarchive;
mod svg;
mod wacz;
mod warc_cli;
mod warc_corpus;
mod warc_damage;
mod warc_memory;
mod warc_roundtrip;
mod webarchive;
