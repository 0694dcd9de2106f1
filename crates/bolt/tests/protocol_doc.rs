//! The code cites the project's protocol reference as `docs/protocol.md`, a section sign
//! and a section number. This test reads every source and documentation file of the
//! repository and fails when a citation names a section that `docs/protocol.md` does not
//! have (so renumbering or deleting a section cannot leave a dangling citation), when a
//! section sign is attributed to nothing (the old "reference" form, whose document lived
//! outside the repository), or when the document's own cross-references dangle.
//!
//! RFC citations are recognised and left alone. The section sign is written `\u{a7}` in
//! this file, and never literally, so that the test does not cite anything itself.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

const SECTION: char = '\u{a7}';
const DOC: &str = "docs/protocol.md";

/// The repository root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The section numbers `docs/protocol.md` defines: the number that starts each heading
/// (`## 5. Messages` gives "5", `### 5.11 FAILURE` gives "5.11").
fn sections(doc: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_code = false;
    for line in doc.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim_start();
        let number = section_number(title);
        if !number.is_empty() {
            out.insert(number.to_owned());
        }
    }
    out
}

/// The leading section number of `s` (`"5.11 FAILURE"` → `"5.11"`, `"5. x"` → `"5"`,
/// `"x"` → `""`).
fn section_number(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let number = s[..end].trim_end_matches('.');
    if number.starts_with(|c: char| c.is_ascii_digit()) {
        number
    } else {
        ""
    }
}

/// Who a section sign at the end of `before` belongs to.
#[derive(Debug, PartialEq, Eq)]
enum Attribution {
    /// `docs/protocol.md`, directly or through a list of sections.
    Doc,
    /// An RFC, such as RFC 6455.
    Rfc,
    /// Nothing: a bare or "reference" citation.
    Nothing,
}

/// Walks back from a section sign over the glue of a citation list (earlier items,
/// ranges, commas, "and", line breaks with their comment leaders) to what it cites.
fn attribution(before: &str) -> Attribution {
    let mut rest = before;
    loop {
        rest = rest.trim_end();
        if rest.ends_with(DOC) {
            return Attribution::Doc;
        }
        if let Some(head) = rest.strip_suffix(|c: char| c.is_ascii_digit()) {
            let digits = head.trim_end_matches(|c: char| c.is_ascii_digit());
            if digits.ends_with("RFC ") {
                return Attribution::Rfc;
            }
            // An earlier item of the list: a section number right after a section sign.
            let number = rest.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
            match number.strip_suffix(SECTION) {
                Some(earlier) => {
                    rest = earlier;
                    continue;
                }
                // The end of a range written without a second sign (6.2–6.3).
                None if number.ends_with('–') => {
                    rest = number;
                    continue;
                }
                None => return Attribution::Nothing,
            }
        }
        let glue = [",", ";", "–", "-", "and", "///", "//!", "//", "#", "*"];
        match glue.iter().find_map(|g| rest.strip_suffix(g)) {
            Some(shorter) => rest = shorter,
            None => return Attribution::Nothing,
        }
    }
}

/// The problems with the citations in one file; `path` is only used in the messages.
fn check_file(path: &str, text: &str, known: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    let own_doc = path == DOC;
    for (at, _) in text.match_indices(SECTION) {
        let line = text[..at].matches('\n').count() + 1;
        let after = &text[at + SECTION.len_utf8()..];
        let number = section_number(after);
        // A range's second end, with or without its own sign.
        let range_end = after[number.len()..]
            .strip_prefix('–')
            .map(|r| section_number(r.strip_prefix(SECTION).unwrap_or(r)));
        if own_doc {
            // The document's cross-references are all its own; a sign followed by no
            // number (the notation in its preamble) is not a reference.
            for n in [Some(number), range_end].into_iter().flatten() {
                if !n.is_empty() && !known.contains(n) {
                    problems.push(format!("{path}:{line}: {SECTION}{n} is not a section"));
                }
            }
            continue;
        }
        match attribution(&text[..at]) {
            Attribution::Rfc => {}
            Attribution::Nothing => problems.push(format!(
                "{path}:{line}: {SECTION}{number} cites no document; write \"{DOC} {SECTION}N\""
            )),
            Attribution::Doc => {
                if number.is_empty() {
                    problems.push(format!("{path}:{line}: {SECTION} without a section number"));
                }
                for n in [Some(number), range_end].into_iter().flatten() {
                    if !n.is_empty() && !known.contains(n) {
                        problems.push(format!(
                            "{path}:{line}: {DOC} {SECTION}{n} does not exist (no heading \
                             numbered {n})"
                        ));
                    }
                }
            }
        }
    }
    let old_reference = ["bolt", "-reference.md"].concat();
    if text.contains(&old_reference) {
        problems.push(format!(
            "{path}: mentions {old_reference}, which is not in the repository"
        ));
    }
    problems
}

/// Source and documentation files under `dir`, skipping build output, dependencies,
/// virtual environments and the captured sessions (data, no prose).
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    const SKIP: [&str; 5] = [
        "target",
        "node_modules",
        "__pycache__",
        "captures",
        "corpus",
    ];
    const EXTENSIONS: [&str; 15] = [
        "rs", "md", "py", "pyi", "js", "mjs", "cjs", "ts", "h", "c", "cc", "cpp", "sh", "toml",
        "txt",
    ];
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            let hidden = name.starts_with('.') && name != ".ci" && name != ".github";
            if !hidden && !SKIP.contains(&name.as_str()) {
                files(&path, out);
            }
        } else if kind.is_file()
            && (EXTENSIONS.iter().any(|e| name.ends_with(&format!(".{e}"))) || name == "Makefile")
        {
            out.push(path);
        }
    }
}

fn doc_sections() -> BTreeSet<String> {
    let doc = fs::read_to_string(root().join(DOC)).expect("docs/protocol.md exists");
    sections(&doc)
}

#[test]
fn every_protocol_citation_names_an_existing_section() {
    let root = root();
    let known = doc_sections();
    let mut paths = Vec::new();
    files(&root, &mut paths);
    paths.sort();
    let mut problems = Vec::new();
    let mut citations = 0;
    for path in &paths {
        let Ok(text) = fs::read_to_string(path) else {
            continue; // not UTF-8: not a source file
        };
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        if rel != DOC {
            citations += text.matches(&format!("{DOC} {SECTION}")).count();
        }
        problems.extend(check_file(&rel, &text, &known));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The walk must actually have found the code's citations (127 when this was written).
    assert!(
        citations >= 100,
        "only {citations} citations found: is the walk broken?"
    );
}

#[test]
fn the_readme_links_the_protocol_reference() {
    let readme = fs::read_to_string(root().join("README.md")).expect("README.md");
    assert!(
        readme.contains("(docs/protocol.md)"),
        "README.md does not link {DOC}"
    );
}

#[test]
fn the_document_numbers_its_sections_consistently() {
    let known = doc_sections();
    for top in 1..=12 {
        assert!(known.contains(&top.to_string()), "no section {top}");
    }
    // Every subsection has its parent.
    for n in &known {
        if let Some((parent, _)) = n.rsplit_once('.') {
            assert!(
                known.contains(parent),
                "{SECTION}{n} has no {SECTION}{parent}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// The checker itself: it must catch what it is for.
// ---------------------------------------------------------------------------------------

fn known(numbers: &[&str]) -> BTreeSet<String> {
    numbers.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn a_citation_of_a_missing_section_is_reported() {
    let k = known(&["3", "3.3", "3.4"]);
    let text = "/// The magic (docs/protocol.md \u{a7}3.2).\n";
    let problems = check_file("a.rs", text, &k);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("\u{a7}3.2 does not exist"),
        "{problems:?}"
    );
    assert!(check_file("a.rs", "/// (docs/protocol.md \u{a7}3.4)\n", &k).is_empty());
}

#[test]
fn every_item_of_a_list_and_both_ends_of_a_range_are_checked() {
    let k = known(&["5", "5.3", "5.4", "6", "6.2"]);
    let text =
        "/// (docs/protocol.md \u{a7}5.3, \u{a7}5.9)\n/// (docs/protocol.md \u{a7}6.2–6.3)\n\
                /// (docs/protocol.md \u{a7}5.3–\u{a7}5.4)\n";
    let problems = check_file("a.rs", text, &k);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("a.rs:1: docs/protocol.md \u{a7}5.9"));
    assert!(problems[1].contains("a.rs:2: docs/protocol.md \u{a7}6.3"));
}

#[test]
fn a_list_continued_on_the_next_comment_line_stays_attributed() {
    let k = known(&["5.4", "5.6", "5.12"]);
    let text =
        "    /// in LOGON SUCCESS (docs/protocol.md \u{a7}5.4,\n    /// \u{a7}5.6, \u{a7}5.12).\n";
    assert_eq!(check_file("a.rs", text, &k), Vec::<String>::new());
    let split = "//! the marker (docs/protocol.md\n//! \u{a7}5.6).\n";
    assert_eq!(check_file("a.rs", split, &k), Vec::<String>::new());
}

#[test]
fn an_unattributed_or_old_style_citation_is_reported() {
    let k = known(&["4"]);
    for text in [
        "/// framing (reference \u{a7}4)\n",
        "/// framing (\u{a7}4)\n",
        "// Reference \u{a7}4 examples\n",
        "/// 16 384 \u{a7}4\n",
    ] {
        let problems = check_file("a.rs", text, &k);
        assert_eq!(problems.len(), 1, "{text:?}: {problems:?}");
        assert!(problems[0].contains("cites no document"), "{problems:?}");
    }
    let old = ["see ../shared/docs/bolt", "-reference.md\n"].concat();
    assert_eq!(check_file("a.md", &old, &k).len(), 1);
}

#[test]
fn rfc_citations_are_left_alone() {
    let k = known(&[]);
    let text = "/// RFC 6455 \u{a7}5.2: the header (RFC 3174 \u{a7}7.3, RFC 4648 \u{a7}10).\n";
    assert_eq!(check_file("a.rs", text, &k), Vec::<String>::new());
}

#[test]
fn the_documents_own_cross_references_are_checked() {
    let doc = "# T\n\nCited as `docs/protocol.md \u{a7}N.M`.\n\n## 1. A\n\nSee \u{a7}1.1 and \u{a7}2.\n\n\
               ### 1.1 B\n\n```\n## 9. not a heading\n```\n";
    let k = sections(doc);
    assert_eq!(k, known(&["1", "1.1"]));
    let problems = check_file(DOC, doc, &k);
    assert_eq!(problems, vec![format!("{DOC}:7: \u{a7}2 is not a section")]);
}
