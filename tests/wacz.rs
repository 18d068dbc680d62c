//! WACZ: the WARC members of a WACZ made by py-wacz from the repo's own WARCs
//! (fixtures/wacz/README.md) give, streamed from the ZIP, the records their WARCs give.

use absolve::wacz::{Wacz, is_wacz, is_zip, member_label};
use std::fs::File;
use std::io::{BufReader, Read};

const FIXTURE: &str = "fixtures/wacz/small.wacz";

/// Each link as (record id, target URI, original, resolved).
fn records(reader: impl Read) -> Vec<(String, String, String, String)> {
    absolve::warc::Links::new(reader, Default::default())
        .filter_map(|event| match event.expect("a readable WARC") {
            absolve::Event::Link(link) => Some((
                link.location
                    .record
                    .as_deref()
                    .unwrap_or_default()
                    .to_owned(),
                link.location
                    .target_uri
                    .as_deref()
                    .unwrap_or_default()
                    .to_owned(),
                link.original.to_string(),
                link.resolved.to_string(),
            )),
            absolve::Event::Warning(_) => None,
        })
        .collect()
}

#[test]
fn the_fixture_is_a_wacz_and_its_warcs_come_in_zip_order() {
    let mut head = [0; 4];
    File::open(FIXTURE).unwrap().read_exact(&mut head).unwrap();
    assert!(is_zip(&head));
    assert!(is_wacz(File::open(FIXTURE).unwrap()));
    let wacz = Wacz::new(File::open(FIXTURE).unwrap()).unwrap();
    assert_eq!(
        wacz.warc_names().collect::<Vec<_>>(),
        ["archive/base-element.warc", "archive/chunked-gzip.warc.gz"]
    );
}

#[test]
fn each_member_gives_the_records_of_its_warc() {
    let mut wacz = Wacz::new(BufReader::new(File::open(FIXTURE).unwrap())).unwrap();
    let mut labels = Vec::new();
    wacz.for_each_warc(|name, reader| {
        let from_zip = records(BufReader::with_capacity(1 << 16, reader));
        let file = name.strip_prefix("archive/").unwrap();
        let from_file = records(File::open(format!("fixtures/warc/{file}"))?);
        assert!(!from_file.is_empty(), "{name} has links");
        assert_eq!(from_zip, from_file, "{name}");
        labels.push(member_label("small.wacz", name));
        Ok(())
    })
    .unwrap();
    assert_eq!(
        labels,
        [
            "small.wacz!/archive/base-element.warc",
            "small.wacz!/archive/chunked-gzip.warc.gz"
        ]
    );
}

#[test]
fn a_plain_warc_or_a_truncated_zip_is_not_a_wacz() {
    assert!(!is_wacz(
        File::open("fixtures/warc/base-element.warc").unwrap()
    ));
    let bytes = std::fs::read(FIXTURE).unwrap();
    let cut = std::io::Cursor::new(bytes[..bytes.len() / 2].to_vec());
    assert!(!is_wacz(cut.clone()));
    assert!(Wacz::new(cut).is_err());
}
