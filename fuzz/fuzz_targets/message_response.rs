//! `Response::decode` under every version, and the batch path: a chunked stream fed to
//! `MessageCodec::feed_records`, its records' fields decoded, and every message walked
//! with `decode_responses`.
//!
//! Input: `[version] [flags] bytes`: the bytes are decoded as one message, and again as
//! a chunked stream.
//!
//! Checks: no panic; error offsets inside the input; a lazily decoded RECORD's fields,
//! iterator and pull decoder agree; `consumed` and batch indices stay in range; the
//! memory bound holds for single messages.
#![no_main]

use bolt::chunk::Dechunker;
use bolt::message::{MessageCodec, Record, Response, Summary};
use fuzz_common::{packstream_bound, peak_during, version, Header, VERSIONS};
use libfuzzer_sys::fuzz_target;

fn inspect(resp: &Response<'_>) {
    let _ = resp.to_string();
    match resp {
        Response::Success(s) => {
            let _ = (
                s.fields(),
                s.t_first(),
                s.qid(),
                s.db(),
                s.has_more(),
                s.bookmark(),
            );
            let _ = (s.query_type(), s.stats(), s.notifications(), s.statuses());
            let _ = (s.server(), s.hints(), s.patch_bolt(), s.routing_table());
            let _ = (
                s.recv_timeout_seconds(),
                s.telemetry_enabled(),
                s.ssr_enabled(),
            );
        }
        Response::Failure(f) => {
            let _ = (f.code(), f.message(), f.gql_status(), f.classification());
            let _ = f.error().chain().count();
        }
        Response::Record(r) => check_record(r),
        Response::Ignored => {}
    }
}

fn check_record(r: &Record<'_>) {
    let fields = r.fields();
    let iterated: Vec<_> = r.iter().collect();
    match &fields {
        Ok(f) => {
            assert_eq!(f.len(), r.len());
            assert_eq!(iterated.len(), f.len());
            assert!(iterated.iter().zip(f).all(|(a, b)| a.as_ref() == Ok(b)));
            if let Some(mut dec) = r.decoder() {
                for _ in 0..r.len() {
                    dec.read_value_ref()
                        .expect("the pull decoder reads what fields() read");
                }
                dec.finish().expect("no trailing bytes");
            }
        }
        Err(_) => assert!(iterated.last().is_some_and(Result::is_err)),
    }
    let _ = r.to_owned_values();
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let v = version(h.u8());
    let flags = h.u8();
    let bytes = h.rest();

    // One message, every version.
    let bound = packstream_bound(bytes.len());
    for version in VERSIONS {
        let (res, peak) = peak_during(|| {
            Response::decode(bytes, version).map(|r| {
                inspect(&r);
                r.kind()
            })
        });
        assert!(
            peak <= bound,
            "{version}: peak {peak} for {} bytes",
            bytes.len()
        );
        if let Err(e) = res {
            assert!(
                e.offset() <= bytes.len(),
                "{e} outside {} bytes",
                bytes.len()
            );
        }
    }

    // A chunked stream: the batch API.
    let codec = MessageCodec::new(v).with_legacy_structs(flags & 1 != 0);
    let mut dechunker = Dechunker::new();
    let (records, batch) = codec.feed_records(&mut dechunker, bytes);
    assert!(records.consumed() <= batch.len());
    for r in records.records() {
        check_record(r);
    }
    let _ = records.decode_fields();
    if let Some(Summary::Success(s)) = records.summary() {
        let _ = s.has_more();
    }
    let mut start = records.consumed();
    let mut rounds = 0;
    while start < batch.len() && rounds < 8 {
        let more = codec.decode_batch_records(&batch, start);
        if more.consumed() == 0 {
            break;
        }
        start += more.consumed();
        rounds += 1;
    }
    for r in codec.decode_responses(batch.iter()).flatten() {
        inspect(&r);
    }
});
