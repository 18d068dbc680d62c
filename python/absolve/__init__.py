"""absolve: every link of an HTML page, a MIME message or a WARC file made absolute,
exactly as RFC 1808 (Relative Uniform Resource Locators) defines it.

A thin face over the Rust library (the same one as the ``absolve`` command):

- ``resolve(base, reference)``: one reference against one base (RFC 1808 §4);
- ``rewrite(document, url)``: the document with every link absolute, as ``bytes``;
- ``links(document, url)``: every link found, as ``Link`` objects;
- ``iter_links(document, url)``: the same, one at a time as the document is read (a mail
  folder or a WARC file of any size in bounded memory);
- ``Rewriter(url)``: ``rewrite`` for a document that arrives in chunks;
- ``warc_links(path_or_file)``: every link of every HTML page in a WARC file, streaming;
- ``warc_link_batches(path_or_file)`` and ``links_table(document, url)``: the same links as
  Apache Arrow record batches and tables (``pyarrow``), built in Rust, for pandas, Polars,
  DuckDB and Spark.

The library's work runs with the GIL released, so threads scale. Problems inside a
document are ``AbsolveWarning`` warnings; bad arguments raise ``ValueError`` or
``TypeError``. ``python -m absolve.spark`` runs ``warc_links`` over a list of WARC files
on Apache Spark.

>>> import absolve
>>> absolve.resolve("http://a/b/c/d;p?q#f", "g;x?y#s")
'http://a/b/c/g;x?y#s'
>>> [link.resolved for link in absolve.links(b'<a href="../x">', "http://h/d/p.html")]
['http://h/x']
"""

from ._absolve import (
    __version__,
    AbsolveWarning,
    Link,
    Rewriter,
    iter_links,
    links,
    links_table,
    resolve,
    rewrite,
    warc_link_batches,
    warc_links,
)

__all__ = [
    "AbsolveWarning",
    "Link",
    "Rewriter",
    "iter_links",
    "links",
    "links_table",
    "resolve",
    "rewrite",
    "warc_link_batches",
    "warc_links",
]
