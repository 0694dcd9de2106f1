//! Test support, not published: the helpers the workspace's test suites share instead of
//! copying them.
//!
//! * [`hex`]: bytes from a hex literal, written compactly (`"b17e"`) or as in
//!   `docs/protocol.md` and the captures' comments (`"B1 7E"`).
//! * [`captures_dir`] and [`capture_files`]: the Bolt sessions recorded from real Neo4j
//!   servers in `tests/captures/` (format in its README).
//! * [`neo4j_bolt_versions`]: the Bolt versions a Neo4j server release installs (the
//!   servers the integration tests start and the captures were recorded from).
//! * [`on_stack`]: runs a closure on a thread with a small stack, for the tests that a
//!   deep input is handled without recursing once per level.
//! * [`peak_during`], [`allocations_during`] and [`packstream_bound`]: the counting
//!   allocator of `crates/alloc-count`, re-exported. Linking this crate installs that
//!   allocator (it forwards every call to the system allocator and counts only inside
//!   [`peak_during`] and [`allocations_during`]).
//!
//! ```
//! assert_eq!(test_support::hex("B1 7E"), [0xB1, 0x7E]);
//! assert!(!test_support::capture_files().is_empty());
//! assert_eq!(test_support::neo4j_bolt_versions("2026").last(), Some(&(6, 1)));
//! assert_eq!(test_support::on_stack(256 * 1024, || 6 * 7), 42);
//! let (v, peak) = test_support::peak_during(|| vec![0u8; 100]);
//! assert!(v.len() == 100 && peak >= 100);
//! ```

use std::fs;
use std::path::{Path, PathBuf};

pub use alloc_count::{
    allocations_during, packstream_bound, peak_during, sizes_during, LOG_CAP as SIZES_LOGGED,
};

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

/// Runs `f` on a new thread whose stack is `stack_size` bytes and returns what it returns:
/// for the tests that a deeply nested input does not recurse once per level (a stack
/// overflow aborts the whole test process, so such a test fails loudly).
///
/// # Panics
/// With `f`'s own panic, passed on, or if the thread cannot be spawned.
///
/// ```
/// let bytes = vec![0x91_u8; 1000]; // borrowed by the closure: the thread is scoped
/// let lists = test_support::on_stack(256 * 1024, || bytes.iter().filter(|&&b| b == 0x91).count());
/// assert_eq!(lists, 1000);
/// ```
pub fn on_stack<R: Send>(stack_size: usize, f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .stack_size(stack_size)
            .spawn_scoped(scope, f)
            .expect("spawn a thread");
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The Bolt versions a Neo4j server installs, oldest first, as `(major, minor)`:
/// Neo4j 5.26 has 4.0–4.4, 5.0–5.4 and 5.6–5.8 (never 5.5); 2026.x adds 6.0 and 6.1.
/// `flavour` is `"5.26"` or `"2026"` as `scripts/with-neo4j.sh` names them (its
/// `NEO4J_FLAVOUR`), or a longer version of either (`"2026.08"`).
///
/// # Panics
/// For any other flavour: a mistake in the test.
///
/// ```
/// let v = test_support::neo4j_bolt_versions("5.26");
/// assert_eq!((v.len(), v[0], v[v.len() - 1]), (13, (4, 0), (5, 8)));
/// assert!(!v.contains(&(5, 5)));
/// ```
#[must_use]
pub fn neo4j_bolt_versions(flavour: &str) -> Vec<(u8, u8)> {
    let mut versions: Vec<(u8, u8)> = (0..=4).map(|minor| (4, minor)).collect();
    versions.extend((0..=8).filter(|&minor| minor != 5).map(|minor| (5, minor)));
    if flavour.starts_with("2026") {
        versions.extend([(6, 0), (6, 1)]);
    } else {
        assert!(
            flavour.starts_with("5.26"),
            "unknown Neo4j flavour {flavour:?}"
        );
    }
    versions
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
    fn on_stack_returns_the_result_and_passes_a_panic_on() {
        let local = [1, 2, 3]; // borrowed by the thread
        assert_eq!(on_stack(64 * 1024, || local.iter().sum::<i32>()), 6);
        let caught =
            std::panic::catch_unwind(|| on_stack(64 * 1024, || panic!("inner: {}", local.len())));
        let payload = caught.expect_err("the panic is passed on");
        // A message with arguments is a String; one the compiler formatted already, a &str.
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied());
        assert_eq!(message, Some("inner: 3"));
    }

    #[test]
    fn neo4j_bolt_versions_of_both_flavours() {
        let five = neo4j_bolt_versions("5.26");
        assert_eq!(
            five,
            [
                (4, 0),
                (4, 1),
                (4, 2),
                (4, 3),
                (4, 4),
                (5, 0),
                (5, 1),
                (5, 2),
                (5, 3),
                (5, 4),
                (5, 6),
                (5, 7),
                (5, 8)
            ]
        );
        let newer = neo4j_bolt_versions("2026.08");
        assert_eq!(newer[..13], five[..]);
        assert_eq!(newer[13..], [(6, 0), (6, 1)]);
    }

    #[test]
    #[should_panic(expected = "unknown Neo4j flavour")]
    fn neo4j_bolt_versions_refuses_other_flavours() {
        let _ = neo4j_bolt_versions("4.4");
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
