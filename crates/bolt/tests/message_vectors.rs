//! tests/vectors/bolt-messages.json (shared with the Python suite): every request kind as
//! the official Python driver's packer writes it. Each must decode as that kind in its
//! version and encode back to the same bytes.

use bolt::message::Request;
use bolt::BoltVersion;

#[test]
fn every_request_vector_decodes_and_encodes_back_to_the_same_bytes() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/bolt-messages.json"
    );
    let text = std::fs::read_to_string(path).expect("tests/vectors/bolt-messages.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let cases = doc["requests"].as_array().expect("requests");
    assert!(cases.len() >= 13);
    let mut kinds = std::collections::BTreeSet::new();
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let v = case["version"].as_array().expect("version");
        let version = BoltVersion::new(
            u8::try_from(v[0].as_u64().expect("major")).expect("major"),
            u8::try_from(v[1].as_u64().expect("minor")).expect("minor"),
        );
        let hex = case["hex"].as_str().expect("hex");
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
            .collect();
        let request = Request::decode(&bytes, version).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            request.name(),
            case["request"].as_str().expect("request"),
            "{name}"
        );
        assert_eq!(request.to_vec(version).expect("encode"), bytes, "{name}");
        kinds.insert(request.name());
    }
    assert_eq!(kinds.len(), 13, "{kinds:?}");
}
