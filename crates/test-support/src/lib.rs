//! Test support, not published: the helpers the workspace's test suites share instead of
//! copying them.
//!
//! * [`hex`]: bytes from a hex literal, written compactly (`"b17e"`) or as in
//!   `docs/protocol.md` and the captures' comments (`"B1 7E"`).
//! * [`captures_dir`] and [`capture_files`]: the Bolt sessions recorded from real Neo4j
//!   servers in `tests/captures/` (format in its README).
//! * [`peak_during`] and [`packstream_bound`]: the counting allocator of
//!   `crates/alloc-count`, re-exported. Linking this crate installs that allocator (it
//!   forwards every call to the system allocator and counts only inside
//!   [`peak_during`]).
//!
//! ```
//! assert_eq!(test_support::hex("B1 7E"), [0xB1, 0x7E]);
//! assert!(!test_support::capture_files().is_empty());
//! let (v, peak) = test_support::peak_during(|| vec![0u8; 100]);
//! assert!(v.len() == 100 && peak >= 100);
//! ```

use std::fs;
use std::path::{Path, PathBuf};

pub use alloc_count::{packstream_bound, peak_during};

/// The bytes of a hex literal. ASCII whitespace between digits is ignored, so both
/// `"b17e00"` and `"B1 7E 00"` work; the digits must pair up into whole bytes.
///
/// # Panics
/// On a character that is neither a hex digit nor whitespace, or an odd number of digits:
/// a mistake in the test itself.
///
/// ```
/// assert_eq!(test_support::hex("00 01\n ff"), [0x00, 0x01, 0xFF]);
/// ```
#[must_use]
pub fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|b| match (b as char).to_digit(16) {
            Some(d) => d as u8,
            None => panic!("not a hex digit: {:?} in {s:?}", b as char),
        })
        .collect();
    assert!(digits.len() % 2 == 0, "odd number of hex digits in {s:?}");
    digits.chunks(2).map(|p| p[0] << 4 | p[1]).collect()
}

/// `tests/captures/` at the repository root.
#[must_use]
pub fn captures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/captures")
}

/// Every captured session (the `.txt` files anywhere under [`captures_dir`]), sorted by
/// path so that every run sees them in the same order.
///
/// # Panics
/// If the directory cannot be read.
#[must_use]
pub fn capture_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![captures_dir()];
    while let Some(dir) = dirs.pop() {
        let entries =
            fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "txt") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_reads_compact_and_spaced_forms_alike() {
        assert_eq!(hex(""), Vec::<u8>::new());
        assert_eq!(hex("b17eA0"), hex("B1 7E a0"));
        assert_eq!(hex("0a\tFF\r\n10"), [0x0A, 0xFF, 0x10]);
    }

    #[test]
    #[should_panic(expected = "odd number of hex digits")]
    fn hex_refuses_a_half_byte() {
        let _ = hex("B1 7");
    }

    #[test]
    #[should_panic(expected = "not a hex digit")]
    fn hex_refuses_other_characters() {
        let _ = hex("B1-7E");
    }

    #[test]
    fn capture_files_lists_both_server_versions_sorted() {
        let files = capture_files();
        assert!(files.windows(2).all(|w| w[0] < w[1]));
        for set in ["neo4j-5.26", "neo4j-2026.08"] {
            assert!(
                files.iter().any(|f| f.to_string_lossy().contains(set)),
                "no capture of {set}"
            );
        }
        assert!(files
            .iter()
            .all(|f| f.extension().is_some_and(|e| e == "txt")));
    }
}
