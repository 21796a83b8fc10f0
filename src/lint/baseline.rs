//! Baselines: adopt the gate on an existing corpus and fail only on new findings.
//!
//! `--write-baseline FILE` records the fingerprint of every current finding; `--baseline FILE`
//! then leaves out the findings whose fingerprint is recorded. A fingerprint never depends on
//! byte offsets (see [`super::Finding::fingerprint`]), so a log that grows keeps its baseline.
//! The file is JSON, sorted, one finding per line, so that it diffs well in review.

use super::Finding;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;

pub const SCHEMA: &str = "trajlint.baseline/1";

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub file: String,
    pub code: String,
    pub fingerprint: String,
    /// For the reader of the file only; not compared.
    pub message: String,
}

impl Entry {
    pub fn of(f: &Finding) -> Entry {
        Entry {
            file: f.file.to_string(),
            code: f.rule.code.clone(),
            fingerprint: f.fingerprint.clone(),
            message: super::short(&f.message, 160),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    schema: String,
    findings: Vec<Entry>,
}

/// A loaded baseline: the fingerprints it holds, with the file of each.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    fingerprints: HashMap<String, String>,
}

impl Baseline {
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "{}: cannot read the baseline: {}",
                path.display(),
                crate::io_why(&e)
            )
        })?;
        let f: File = serde_json::from_str(&text).map_err(|e| {
            // (serde_json appends the position, given here in front; its column is 0 at the
            // start of a line or the end of the input.)
            let message = e.to_string();
            let message = if text.trim_start().starts_with(['[', '"']) {
                "not an object"
            } else {
                message
                    .rfind(" at line ")
                    .map_or(message.as_str(), |k| &message[..k])
            };
            let shape = match e.classify() {
                serde_json::error::Category::Data => {
                    " (a baseline is {\"schema\": \"trajlint.baseline/1\", \"findings\": [...]})"
                }
                _ => "",
            };
            format!(
                "{}:{}:{}: not a trajlint baseline{shape}: {message}",
                path.display(),
                e.line(),
                e.column().max(1)
            )
        })?;
        if f.schema != SCHEMA {
            return Err(format!(
                "{}: baseline schema `{}`, expected `{SCHEMA}`",
                path.display(),
                f.schema
            ));
        }
        Ok(Baseline {
            fingerprints: f
                .findings
                .into_iter()
                .map(|e| (e.fingerprint, e.file))
                .collect(),
        })
    }

    pub fn contains(&self, fingerprint: &str) -> bool {
        self.fingerprints.contains_key(fingerprint)
    }

    /// Entries of the `checked` files that no finding `matched` any more.
    pub fn stale(&self, matched: &HashSet<String>, checked: &HashSet<String>) -> usize {
        self.fingerprints
            .iter()
            .filter(|(fp, file)| checked.contains(*file) && !matched.contains(*fp))
            .count()
    }

    /// Whether any entry names one of the `checked` files (by path from the root).
    pub fn names_any(&self, checked: &HashSet<String>) -> bool {
        self.fingerprints
            .values()
            .any(|file| checked.contains(file))
    }

    /// Whether the baseline names files (stdin aside) and none of them is at its path from
    /// `root`: it was written from another directory.
    pub fn names_only_missing(&self, root: &Path) -> bool {
        let mut files = self
            .fingerprints
            .values()
            .filter(|f| f.as_str() != "-")
            .peekable();
        files.peek().is_some() && files.all(|f| !root.join(f).exists())
    }

    pub fn len(&self) -> usize {
        self.fingerprints.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fingerprints.is_empty()
    }
}

/// Writes a baseline holding `entries` (sorted here).
pub fn write(path: &Path, mut entries: Vec<Entry>) -> std::io::Result<()> {
    entries.sort();
    entries.dedup();
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(out, "{{")?;
    writeln!(out, "  \"schema\": \"{SCHEMA}\",")?;
    writeln!(out, "  \"findings\": [")?;
    for (i, e) in entries.iter().enumerate() {
        let comma = if i + 1 < entries.len() { "," } else { "" };
        writeln!(out, "    {}{comma}", serde_json::to_string(e)?)?;
    }
    writeln!(out, "  ]")?;
    writeln!(out, "}}")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_error(text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("trajlint-baseline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("b{}.json", text.len()));
        std::fs::write(&path, text).unwrap();
        let e = Baseline::load(&path).unwrap_err();
        let _ = std::fs::remove_file(&path);
        e.strip_prefix(&path.display().to_string())
            .unwrap_or(&e)
            .to_string()
    }

    /// A broken baseline is named where it breaks (from column 1), in our words.
    #[test]
    fn a_broken_baseline_says_where_and_what_a_baseline_is() {
        assert_eq!(
            load_error("[\n]\n"),
            ":2:1: not a trajlint baseline (a baseline is {\"schema\": \"trajlint.baseline/1\", \"findings\": [...]}): not an object"
        );
        let e = load_error("{\"schema\": \"trajlint.baseline/1\", \"findings\": [{\"file\": 1}]}");
        assert!(
            e.starts_with(":1:57: not a trajlint baseline (a baseline is"),
            "{e}"
        );
        assert!(!e.contains(" at line "), "{e}");
        let e = load_error("{\"schema\": \"trajlint.baseline/1\", \"findings\": [\n");
        assert_eq!(e, ":2:1: not a trajlint baseline: EOF while parsing a list");
    }
}
