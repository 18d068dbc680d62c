"""Type stubs of the Rust extension (import ``absolve``, not this module)."""

import os
import typing
from typing import (
    IO,
    Any,
    Dict,
    Iterable,
    Iterator,
    List,
    Literal,
    Mapping,
    Optional,
    Tuple,
    Union,
)

if typing.TYPE_CHECKING:
    import pyarrow

_Rfc = Union[Literal[1808, 3986], Literal["1808", "3986"]]
_Spec = str  # "rfc1808", "rfc3986" or "whatwg", in any case
_Format = str  # "auto", "html", "mime", "mbox", "css", "feed", "warc", "wacz", "webarchive", "svg", in any case
_Bytes = Union[bytes, bytearray, memoryview]
_Document = Union[_Bytes, "os.PathLike[str]"]
_HeaderValue = Union[str, bytes, Iterable[Union[str, bytes]]]
_Headers = Union[
    Mapping[str, _HeaderValue],
    Mapping[bytes, _HeaderValue],
    Iterable[Tuple[Union[str, bytes], Union[str, bytes]]],
]
_BaseFrom = Literal[
    "base-element",
    "base-header",
    "content-base",
    "content-location",
    "encapsulating",
    "retrieval-url",
    "saved-from",
    "singlefile",
    "httrack",
    "xml-base",
    "origin-xattr",
    "none",
]

__version__: str

class AbsolveWarning(UserWarning):
    """Something wrong in a document that did not stop absolve."""

class Link:
    """One URL found, with the fields of a line of ``absolve links`` (less ``file``)."""

    @property
    def element(self) -> str: ...
    @property
    def attribute(self) -> Optional[str]: ...
    @property
    def original(self) -> str: ...
    @property
    def resolved(self) -> str: ...
    @property
    def base(self) -> Optional[str]: ...
    @property
    def base_from(self) -> _BaseFrom: ...
    @property
    def offset(self) -> int: ...
    @property
    def message(self) -> Optional[int]: ...
    @property
    def part(self) -> Optional[str]: ...
    @property
    def record(self) -> Optional[str]: ...
    @property
    def target_uri(self) -> Optional[str]: ...
    # Fields of the library's newer link records, read through the mapping form.
    @property
    def srcdoc(self) -> int: ...
    @property
    def kept(self) -> Optional[str]: ...
    def dict(self) -> Dict[str, Any]:
        """The link as a dict with the keys of a line of ``absolve links``."""
    def keys(self) -> List[str]: ...
    def __getitem__(self, key: str) -> Any: ...
    def __contains__(self, key: object) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def resolve(base: str, reference: str, rfc: _Rfc = 1808, *, spec: _Spec = "rfc1808") -> str:
    """Resolves ``reference`` against ``base`` (RFC 1808 §4, or RFC 3986 §5.2)."""

def rewrite(
    document: _Document,
    url: Optional[str] = None,
    *,
    format: _Format = "auto",
    charset: Optional[str] = None,
    headers: Optional[_Headers] = None,
    resolve_fragments: bool = False,
    rfc: _Rfc = 1808,
    spec: _Spec = "rfc1808",
    http_base_headers: bool = False,
    keep_local: bool = False,
    max_held: Optional[int] = None,
) -> bytes:
    """The document with every link absolute; every other byte unchanged."""

def links(
    document: _Document,
    url: Optional[str] = None,
    *,
    format: _Format = "auto",
    charset: Optional[str] = None,
    headers: Optional[_Headers] = None,
    resolve_fragments: bool = False,
    rfc: _Rfc = 1808,
    spec: _Spec = "rfc1808",
    http_base_headers: bool = False,
    keep_local: bool = False,
    max_held: Optional[int] = None,
) -> List[Link]:
    """Every URL of the document, in order, resolved."""

def iter_links(
    document: _Document,
    url: Optional[str] = None,
    *,
    format: _Format = "auto",
    charset: Optional[str] = None,
    headers: Optional[_Headers] = None,
    resolve_fragments: bool = False,
    rfc: _Rfc = 1808,
    spec: _Spec = "rfc1808",
    http_base_headers: bool = False,
    keep_local: bool = False,
    max_held: Optional[int] = None,
) -> Iterator[Link]:
    """Every URL of the document, as ``links`` gives them, one at a time as it is read."""

def warc_links(
    source: Union[str, "os.PathLike[str]", IO[bytes]],
    *,
    charset: Optional[str] = None,
    resolve_fragments: bool = False,
    rfc: _Rfc = 1808,
    spec: _Spec = "rfc1808",
    http_base_headers: bool = False,
) -> Iterator[Link]:
    """Every link of every HTML page in a WARC file (``.warc``, or compressed: ``.warc.gz``,
    ``.bz2``, ``.xz``, ``.zst``, ``.lz4``), streaming."""

def warc_link_batches(
    source: Union[str, "os.PathLike[str]", IO[bytes]],
    batch_rows: int = 65536,
    *,
    charset: Optional[str] = None,
    resolve_fragments: bool = False,
    rfc: _Rfc = 1808,
    spec: _Spec = "rfc1808",
    http_base_headers: bool = False,
) -> Iterator["pyarrow.RecordBatch"]:
    """The links of a WARC file as Arrow record batches with the Spark table's columns
    (page_url, record_id, element, attribute, original, resolved, base, base_from), of at
    most ``batch_rows`` rows (1 or more), and ended before its columns would hold more than
    32 MiB of text in all: what a batch holds is bounded whatever the links."""

def links_table(
    document: _Document,
    url: Optional[str] = None,
    *,
    format: _Format = "auto",
    charset: Optional[str] = None,
    headers: Optional[_Headers] = None,
    resolve_fragments: bool = False,
    rfc: _Rfc = 1808,
    spec: _Spec = "rfc1808",
    http_base_headers: bool = False,
    keep_local: bool = False,
    max_held: Optional[int] = None,
) -> "pyarrow.Table":
    """Every link of the document as a pyarrow.Table with the keys of an ``absolve links`` line
    (its columns in chunks of at most 32 MiB of text together)."""

class Rewriter:
    """Rewrites an HTML document as it arrives, chunk by chunk."""

    def __init__(
        self,
        url: Optional[str] = None,
        *,
        charset: Optional[str] = None,
        headers: Optional[_Headers] = None,
        resolve_fragments: bool = False,
        rfc: _Rfc = 1808,
        spec: _Spec = "rfc1808",
        keep_links: bool = False,
    ) -> None: ...
    def write(self, chunk: _Bytes) -> bytes:
        """Feeds the next chunk; returns the rewritten bytes settled so far (those of a call
        that a warning raised from come with the next call)."""
    def end(self) -> bytes:
        """Ends the document; returns the rest of the rewritten bytes (called again after a
        warning raised from it, the rest it had not given)."""
    def take_links(self) -> List[Link]:
        """The links found since the last call (with ``keep_links=True``)."""
