//! Every PULL response captured from real Neo4j servers (`tests/captures/` at the
//! repository root) into Arrow, checked value by value against the core's own
//! `ValueRef` decoding of the same records, through both [`ArrowDecoder`] (records) and
//! [`PullDecoder`] (the raw chunked bytes as the server sent them).

use std::fs;

use bolt::message::{MessageCodec, Response};
use bolt::BoltVersion;
use bolt_arrow::{ArrowDecoder, PullDecoder};
use packstream::ValueRef;
use test_support::{capture_files, hex};

mod common;
use common::check_batch;

/// The version of a capture set, from its directory name (tests/captures/README.md).
fn version_of(set: &str) -> BoltVersion {
    match set {
        "bolt-4.4" => BoltVersion::V4_4.with_utc_patch(true),
        "bolt-4.4-no-utc-patch" => BoltVersion::V4_4,
        "bolt-5.0" => BoltVersion::V5_0,
        "bolt-5.8" => BoltVersion::V5_8,
        "bolt-6.1" => BoltVersion::V6_1,
        other => panic!("unknown capture set {other}"),
    }
}

/// A server message: stream offset of its first chunk header, and its bytes.
struct Msg {
    offset: usize,
    bytes: Vec<u8>,
}

/// The server's byte stream and its messages.
fn parse(text: &str) -> (Vec<u8>, Vec<Msg>) {
    let mut raw = Vec::new();
    let mut msgs = Vec::new();
    let mut in_raw = false;
    for line in text.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        match t.as_slice() {
            ["[raw]"] => in_raw = true,
            ["[messages]"] => in_raw = false,
            ["S>C", _, h] if in_raw => raw.extend(hex(h)),
            ["MSG", "S>C", _seq, _name, offset, _chunks, h] => msgs.push(Msg {
                offset: offset.parse().expect("offset"),
                bytes: hex(h),
            }),
            _ => {}
        }
    }
    (raw, msgs)
}

#[test]
fn every_captured_pull_response_decodes_into_arrow_value_by_value() {
    let mut files = 0;
    let mut results = 0;
    let mut values = 0;
    let mut types = std::collections::BTreeSet::new();
    for file in capture_files() {
        let set = file
            .parent()
            .and_then(|p| p.file_name())
            .expect("a set directory");
        let version = version_of(set.to_str().expect("UTF-8 name"));
        let codec = MessageCodec::new(version);
        let at = file.display().to_string();
        let (raw, msgs) = parse(&fs::read_to_string(&file).unwrap());
        files += 1;
        let mut i = 0;
        while i < msgs.len() {
            let fields = match codec.decode_response(&msgs[i].bytes) {
                Ok(Response::Success(s)) => s.fields(),
                _ => None,
            };
            i += 1;
            let Some(fields) = fields else { continue };
            // The PULL reply: records up to the summary.
            let start = i;
            while i < msgs.len()
                && matches!(
                    codec.decode_response(&msgs[i].bytes),
                    Ok(Response::Record(_))
                )
            {
                i += 1;
            }
            let messages: Vec<&[u8]> = msgs[start..i].iter().map(|m| m.bytes.as_slice()).collect();
            let run = codec.decode_records(messages);
            assert!(run.error().is_none(), "{at}");
            let rows: Vec<Vec<ValueRef<'_>>> = run
                .records()
                .iter()
                .map(|r| r.fields().expect("the core decodes it"))
                .collect();
            let mut dec = ArrowDecoder::new(version, fields.iter().copied());
            let batch = dec
                .decode(run.records())
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            values += check_batch(version, &batch, &rows, &at);
            for f in batch.schema().fields() {
                types.insert(f.data_type().to_string());
            }
            results += 1;

            // The same through the raw bytes, cut in two in the middle.
            let summary_ok = matches!(
                msgs.get(i).map(|m| codec.decode_response(&m.bytes)),
                Some(Ok(Response::Success(_)))
            );
            if !summary_ok {
                continue;
            }
            let from = msgs[start].offset;
            let to = msgs.get(i + 1).map_or(raw.len(), |m| m.offset);
            let bytes = &raw[from..to];
            let mut pull = PullDecoder::new(version, fields.iter().copied());
            let mut got = Vec::new();
            for part in [&bytes[..bytes.len() / 2], &bytes[bytes.len() / 2..]] {
                got.extend(pull.feed(part).unwrap_or_else(|e| panic!("{at}: {e}")));
            }
            assert!(pull.is_done() || pull.has_more(), "{at}");
            let mut row = 0;
            for b in &got {
                check_batch(version, b, &rows[row..row + b.num_rows()], &at);
                row += b.num_rows();
            }
            assert_eq!(row, rows.len(), "{at}");
        }
    }
    eprintln!("{files} captures, {results} results, {values} values checked; types: {types:?}");
    assert!(files >= 160, "{files} capture files");
    assert!(values > 10_000, "{values} values");
    for t in ["Date32", "Interval(MonthDayNano)", "FixedSizeBinary(16)"] {
        assert!(types.contains(t), "no {t} column among {types:?}");
    }
}
