//! WARC records made by the tests (ISO 28500 §4): a version line, named fields, the
//! block's `Content-Length` last, a blank line, the block, two CRLFs. One maker serves
//! every test, so that a record's bytes (and the offsets the tests compute from them) are
//! made one way.

/// A record of the named `fields`, in order, whose block is `block`.
pub fn record(fields: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    claiming(fields, &block.len().to_string(), block)
}

/// [`record`] whose `Content-Length` says `length`, whatever the block's length (a wrong,
/// absurd or huge count).
pub fn claiming(fields: &[(&str, &str)], length: &str, block: &[u8]) -> Vec<u8> {
    let mut record = b"WARC/1.0\r\n".to_vec();
    for (name, value) in fields {
        record.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    record.extend_from_slice(format!("Content-Length: {length}\r\n\r\n").as_bytes());
    record.extend_from_slice(block);
    record.extend_from_slice(b"\r\n\r\n");
    record
}

/// An HTTP/1.1 `200 OK` response (a `response` record's block) whose header fields are
/// `fields` (each line with its CRLF) and whose body is `body`.
pub fn http_ok(fields: &str, body: &[u8]) -> Vec<u8> {
    [format!("HTTP/1.1 200 OK\r\n{fields}\r\n").as_bytes(), body].concat()
}

/// A `response` record of `uri`, identified as `<urn:uuid:{id}>`, whose block is the HTTP
/// message `http`.
pub fn response(id: &str, uri: &str, http: &[u8]) -> Vec<u8> {
    response_claiming(id, uri, &http.len().to_string(), http)
}

/// [`response`] whose `Content-Length` says `length`.
pub fn response_claiming(id: &str, uri: &str, length: &str, http: &[u8]) -> Vec<u8> {
    let id = format!("<urn:uuid:{id}>");
    let fields = [
        ("WARC-Type", "response"),
        ("WARC-Record-ID", id.as_str()),
        ("WARC-Target-URI", uri),
        ("Content-Type", "application/http"),
    ];
    claiming(&fields, length, http)
}

/// A `response` record of `uri` with no `WARC-Record-ID`, whose block is the HTTP message
/// `http`.
pub fn response_without_id(uri: &str, http: &[u8]) -> Vec<u8> {
    let fields = [
        ("WARC-Type", "response"),
        ("WARC-Target-URI", uri),
        ("Content-Type", "application/http"),
    ];
    record(&fields, http)
}

/// `size` letters that compress some, not much (Huffman-coded, no repeats for LZ77 to find:
/// a payload whose damage is found where it is, and whose recompressed records are large
/// too), from xorshift state `seed`.
pub fn noise(size: usize, seed: u64) -> Vec<u8> {
    let mut state = seed;
    (0..size)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            b'a' + (state >> 24) as u8 % 16
        })
        .collect()
}
