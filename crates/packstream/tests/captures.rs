//! Every PackStream value inside every message of the captured real-server sessions in
//! `tests/captures` decodes; every client message (written by the official Python driver)
//! re-encodes byte for byte.

use packstream::{DecodeOptions, ValueRef};
use test_support::{capture_files, hex};

#[test]
fn every_captured_message_decodes_and_client_messages_reencode() {
    let files = capture_files();
    assert!(
        files.len() >= 100,
        "expected the capture sets, found {} files",
        files.len()
    );
    let (mut messages, mut reencoded) = (0, 0);
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        // PackStream v2 (UUID) is on once Bolt 6.1 is negotiated.
        let v61 = text.lines().any(|l| l.trim() == "# bolt negotiated: 6.1");
        let opts = DecodeOptions::default().with_uuid(v61);
        for line in text.lines().filter(|l| l.starts_with("MSG ")) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let (dir, name, digits) = (cols[1], cols[3], cols[6]);
            let bytes = hex(digits);
            let value = ValueRef::decode_exact_with(&bytes, &opts)
                .unwrap_or_else(|e| panic!("{}: {dir} {name}: {e}", file.display()));
            assert!(
                value.as_struct().is_some(),
                "{}: {name} is a structure",
                file.display()
            );
            messages += 1;
            if dir == "C>S" {
                assert_eq!(
                    value.to_bytes().expect("encodes"),
                    bytes,
                    "{}: {name} re-encodes",
                    file.display()
                );
                reencoded += 1;
            }
        }
    }
    assert!(messages > 1000, "only {messages} messages");
    assert!(reencoded > 300, "only {reencoded} client messages");
}
