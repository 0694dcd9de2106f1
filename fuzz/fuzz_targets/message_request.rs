//! `Request::decode` (and `MessageCodec::decode_request` with tight limits and legacy
//! structures) under every Bolt version, known or not.
//!
//! Input: `[flags] message`.
//!
//! Checks: no panic; an error's offset lies inside the message; a decoded request
//! exists in the version and names the signature it was read from; its accessors and
//! `Display` work; the memory bound holds.
#![no_main]

use bolt::message::{MessageCodec, Request, RequestKind};
use fuzz_common::{packstream_bound, peak_during, Header, VERSIONS};
use libfuzzer_sys::fuzz_target;
use packstream::DecodeLimits;

fn inspect(req: &Request<'_>) {
    let _ = req.to_string();
    match req {
        Request::Hello(h) => {
            let _ = (h.user_agent(), h.bolt_agent(), h.routing(), h.patch_bolt());
            let _ = (
                h.scheme(),
                h.principal(),
                h.credentials(),
                h.auth_parameters(),
            );
            let _ = (
                h.notifications_minimum_severity(),
                h.notifications_disabled_categories(),
                h.disabled_notifications(),
            );
        }
        Request::Init(i) => drop((i.scheme(), i.realm())),
        Request::Logon(l) => drop((l.scheme(), l.credentials(), l.auth_parameters())),
        Request::Run(r) => {
            let _ = (r.bookmarks(), r.tx_timeout(), r.tx_metadata(), r.mode());
            let _ = (r.is_read_mode(), r.db(), r.imp_user());
            let _ = r.notifications_disabled_classifications();
        }
        Request::Begin(b) => drop((b.bookmarks(), b.db(), b.tx_timeout())),
        Request::Pull(p) => drop((p.n(), p.qid())),
        Request::Discard(d) => drop((d.n(), d.qid())),
        Request::Route(r) => drop((r.db(), r.imp_user())),
        Request::Telemetry(t) => drop(t.api_kind()),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let flags = h.u8();
    let bytes = h.rest();
    let bound = packstream_bound(bytes.len());
    for version in VERSIONS {
        let (res, peak) = peak_during(|| {
            Request::decode(bytes, version).map(|r| {
                inspect(&r);
                r.kind()
            })
        });
        assert!(
            peak <= bound,
            "{version}: peak {peak} for {} bytes",
            bytes.len()
        );
        match res {
            Ok(kind) => {
                assert!(kind.exists_in(version), "{kind} decoded in {version}");
                assert_eq!(Some(kind), RequestKind::for_signature(bytes[1], version));
            }
            Err(e) => assert!(
                e.offset() <= bytes.len(),
                "{e} outside {} bytes",
                bytes.len()
            ),
        }
    }
    let codec = MessageCodec::new(VERSIONS[usize::from(flags >> 2) % VERSIONS.len()])
        .with_legacy_structs(flags & 1 != 0)
        .with_limits(DecodeLimits {
            max_depth: u32::from(flags >> 4) + 1,
            max_string_len: 64,
            max_bytes_len: 64,
            max_container_len: 16,
            max_total_elements: 64,
        });
    if let Ok(r) = codec.decode_request(bytes) {
        inspect(&r);
    }
});
