//! `bolt-inspect` decodes every captured real-server session completely: every message is
//! named and rendered, none is undecodable, and the counts match the capture's own
//! message list.

use std::process::Command;
use test_support::capture_files as captures;

#[test]
fn every_capture_decodes_completely() {
    let files = captures();
    assert!(files.len() >= 100);
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable");
        let count = |dir: &str| {
            text.lines()
                .filter(|l| l.starts_with(&format!("MSG {dir} ")))
                .count()
        };
        let out = Command::new(env!("CARGO_BIN_EXE_bolt-inspect"))
            .args(["--width", "0", "capture"])
            .arg(&file)
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).expect("utf-8");
        for bad in [
            "handshake error",
            "framing error",
            "undecodable",
            "unknown message",
            "not a message",
            "invalid for Bolt",
            "broken(",
        ] {
            assert!(!stdout.contains(bad), "{}: {bad}\n{stdout}", file.display());
        }
        let summary = stdout.lines().last().expect("summary line");
        let want = format!(
            "{} client and {} server messages",
            count("C>S"),
            count("S>C")
        );
        assert!(
            summary.starts_with(&want),
            "{}: {summary} != {want}",
            file.display()
        );
        assert!(
            stdout.contains("handshake: Bolt"),
            "{}: no version",
            file.display()
        );
        assert!(
            !stdout.contains("\"credentials\": \"password\""),
            "credentials are masked"
        );
    }
}

#[test]
fn hex_dumps_decode_as_streams_or_single_messages() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_bolt-inspect"))
            .args(args)
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    };
    // A chunked RECORD [1, "a"] then SUCCESS {}.
    let out = run(&["hex", "0006 B171 9201 8161 0000 0003 B170 A0 0000"]);
    assert!(
        out.contains("RECORD [1, \"a\"]") && out.contains("SUCCESS {}"),
        "{out}"
    );
    // One unchunked message, as a client's.
    let out = run(&["hex", "--client", "--bolt", "4.4", "B1 3F A1 81 6E FF"]);
    assert!(out.contains("PULL {n: -1}"), "{out}");
    // A date inside a record renders as a date.
    let out = run(&["hex", "B1 71 91 B1 44 C9 4E 20"]);
    assert!(out.contains("RECORD [date(\"2024-10-04\")]"), "{out}");
    // A SUCCESS without its metadata field is flagged, not rendered as if it were fine.
    let out = run(&["hex", "B070"]);
    assert!(out.contains("SUCCESS (invalid for Bolt 5.8"), "{out}");
}
