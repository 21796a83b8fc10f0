//! Byte-exactness over every reader: for every text segment, decoding the raw bytes at its
//! offsets gives exactly its text (part by part for a message streamed in chunks), any piece of the text maps back to raw bytes that decode to
//! that piece, and every turn's bytes lie inside the file without overlapping another turn's.
//! Run over our fixtures and, where it is present, the shared corpus of real logs.

mod common;

use proptest::prelude::*;
use std::path::Path;
use trajlint::source::Span;
use trajlint::text::{decode, Encoding, Text};

/// Char-boundary positions of a text, sampled (first, last, and a spread in between).
fn sample_boundaries(text: &str, n: usize) -> Vec<usize> {
    let all: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    if all.len() <= n {
        return all;
    }
    (0..n).map(|k| all[k * (all.len() - 1) / (n - 1)]).collect()
}

/// Checks one file; returns the number of segments checked.
fn check_file(path: &Path, problems: &mut Vec<String>) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let out = trajlint::formats::read(&bytes, None);
    let mut checked = 0;
    for (k, traj) in out.trajectories.iter().enumerate() {
        // Turns read out of a deflated ZIP entry all point at that entry: no finer position
        // exists in the file. They are left out of the overlap check (and say so by encoding).
        let compressed = |t: &trajlint::model::Turn| {
            t.segments
                .iter()
                .any(|s| s.text.encoding == Encoding::Compressed)
        };
        let mut spans: Vec<Span> = traj
            .turns
            .iter()
            .filter(|t| !compressed(t))
            .map(|t| t.span)
            .collect();
        for (i, turn) in traj.turns.iter().enumerate() {
            if turn.span.end > bytes.len() || turn.span.start > turn.span.end {
                problems.push(format!(
                    "{}: traj {k} turn {i}: span {:?} outside the file",
                    path.display(),
                    turn.span
                ));
            }
            for seg in &turn.segments {
                let t = &seg.text;
                if t.encoding == Encoding::Compressed {
                    continue; // a deflated ZIP entry: no raw bytes to decode
                }
                checked += 1;
                if t.span.start < turn.span.start || t.span.end > turn.span.end {
                    problems.push(format!(
                        "{}: traj {k} turn {i}: segment {:?} outside its turn {:?}",
                        path.display(),
                        t.span,
                        turn.span
                    ));
                    continue;
                }
                // A text joined from chunks (a streamed message) lies in the file part by part;
                // any other is one part, its whole span.
                let parts: Vec<(usize, usize)> = t.parts().collect();
                let whole = parts.len() == 1;
                for &(ps, pe) in &parts {
                    let r = if whole { t.span } else { t.raw_span(ps, pe) };
                    if r.start < t.span.start || r.end > t.span.end {
                        problems.push(format!("{}: traj {k} turn {i}: part {ps}..{pe} of the segment at {:?} maps outside it, to {r:?}", path.display(), t.span));
                        continue;
                    }
                    if decode(&bytes[r.start..r.end], t.encoding) != t.text[ps..pe] {
                        problems.push(format!(
                            "{}: traj {k} turn {i}: segment at {:?} (part {ps}..{pe}) does not decode to its text",
                            path.display(),
                            t.span
                        ));
                        continue;
                    }
                    let points = sample_boundaries(&t.text[ps..pe], 7);
                    for (a, &s) in points.iter().enumerate() {
                        for &e in &points[a..] {
                            let (s, e) = (ps + s, ps + e);
                            let r = t.raw_span(s, e);
                            if decode(&bytes[r.start..r.end], t.encoding) != t.text[s..e] {
                                problems.push(format!("{}: traj {k} turn {i}: piece {s}..{e} of the segment at {:?} maps to {:?}, which does not decode to it", path.display(), t.span, r));
                            }
                        }
                    }
                }
            }
        }
        spans.sort();
        for w in spans.windows(2) {
            if w[0].end > w[1].start {
                problems.push(format!(
                    "{}: traj {k}: turn spans {:?} and {:?} overlap",
                    path.display(),
                    w[0],
                    w[1]
                ));
            }
        }
    }
    checked
}

fn check_tree(dir: &Path) -> (usize, usize) {
    let files = common::files_under(dir);
    let mut problems = Vec::new();
    let mut segments = 0;
    for f in &files {
        segments += check_file(f, &mut problems);
    }
    assert!(
        problems.is_empty(),
        "{} problems, first ones:\n{}",
        problems.len(),
        problems
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    (files.len(), segments)
}

#[test]
fn every_segment_of_our_fixtures_maps_back_to_its_raw_bytes() {
    let (files, segments) =
        check_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/fixtures"));
    assert!(
        files >= 11 && segments > 100,
        "only {files} files, {segments} segments checked"
    );
}

#[test]
fn every_segment_of_the_shared_corpus_maps_back_to_its_raw_bytes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !dir.exists() {
        println!("skipped: ../shared/corpus not present");
        return;
    }
    let (files, segments) = check_tree(&dir);
    println!("checked {segments} segments in {files} files");
    assert!(segments > 1000);
}

proptest! {
    /// Any string, JSON-encoded as a serializer would write it (escapes, \u sequences, surrogate
    /// pairs for astral characters), decodes back, and every sub-range maps to raw bytes that
    /// decode to that sub-range.
    #[test]
    fn json_strings_map_back_byte_exactly(s in "\\PC{0,40}", ascii_only in any::<bool>(), cuts in prop::collection::vec((0usize..64, 0usize..64), 1..8)) {
        let literal = if ascii_only {
            // Force \uXXXX escapes for every non-ASCII character, as json.dumps does.
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    c if (c as u32) < 0x20 || !c.is_ascii() => {
                        let mut buf = [0u16; 2];
                        for u in c.encode_utf16(&mut buf) {
                            out.push_str(&format!("\\u{:04x}", u));
                        }
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        } else {
            serde_json::to_string(&s).unwrap()
        };
        let bytes = format!("{{\"k\": {literal}}}").into_bytes();
        let start = 7; // after `{"k": "`
        let end = bytes.len() - 2;
        let t = Text::from_json(&bytes, Span::new(start, end), true);
        prop_assert_eq!(&t.text, &s);
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        for (a, b) in cuts {
            let (x, y) = (bounds[a % bounds.len()], bounds[b % bounds.len()]);
            let (x, y) = (x.min(y), x.max(y));
            let r = t.raw_span(x, y);
            prop_assert_eq!(decode(&bytes[r.start..r.end], Encoding::JsonString), &s[x..y]);
        }
    }
}
