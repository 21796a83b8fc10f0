//! `--output-format sarif`: SARIF 2.1.0, as GitHub code scanning accepts it: one run, the tool's
//! rules with their help, one result per finding with `partialFingerprints`, URIs relative to the
//! working directory (resolved through `%SRCROOT%`), 1-based lines and columns counted in
//! Unicode code points (`columnKind`), and the raw byte range of each region beside them.
//! Inputs that could not be read, and the readers' warnings about logs they read, are tool
//! execution notifications.

use super::output::{FileResult, Renderer, RunSummary};
use crate::lint::{ActiveRule, Finding, Rule, Severity};
use crate::source::{SourceFile, Span};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The key of trajlint's fingerprint in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "trajlintFingerprint/v1";

pub struct Sarif {
    rules: Vec<ActiveRule>,
    index: HashMap<String, usize>,
    /// `file:///…/` of the working directory.
    srcroot: String,
    version: String,
}

impl Sarif {
    /// `rules`: every rule enabled for the run (results point into this list).
    pub fn new(rules: Vec<ActiveRule>, cwd: &Path, version: &str) -> Sarif {
        let index = rules
            .iter()
            .enumerate()
            .map(|(i, r)| (r.rule.code.clone(), i))
            .collect();
        let mut srcroot = format!("file://{}", encode_os_path(cwd));
        if !srcroot.ends_with('/') {
            srcroot.push('/');
        }
        Sarif {
            rules,
            index,
            srcroot,
            version: version.to_string(),
        }
    }

    /// A rule as SARIF describes it, at its own default level (a run's `--severity` override
    /// shows in each result's level).
    fn descriptor(r: &Rule) -> Value {
        let d = &r.docs;
        let markdown = format!(
            "## What it does\n\n{}\n\n## Why it matters\n\n{}\n\n## Example\n\n```text\n{}\n```\n",
            d.what, d.why, d.example
        );
        let text = format!(
            "What it does: {}\n\nWhy it matters: {}\n\nExample:\n{}",
            d.what, d.why, d.example
        );
        json!({
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": first_sentence(&d.what)},
            "fullDescription": {"text": unwrap(&d.what)},
            "help": {"text": text, "markdown": markdown},
            "defaultConfiguration": {"level": level(r.severity)},
            "properties": {"kind": r.kind.as_str(), "tags": ["trajlint", r.kind.as_str()]},
        })
    }

    fn result(&self, file: &FileResult<'_>, src: &SourceFile, f: &Finding) -> Value {
        let related: Vec<Value> = f
            .labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                json!({
                    "id": i + 1,
                    "physicalLocation": physical(file, src, l.span, f.bytes_exact),
                    "message": {"text": l.message},
                })
            })
            .collect();
        let mut r = json!({
            "ruleId": f.rule.code,
            "level": level(f.severity),
            "message": {"text": f.message},
            "locations": [{"physicalLocation": physical(file, src, f.span, f.bytes_exact)}],
            "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
            "properties": {"ruleName": f.rule.name, "trajectory": f.trajectory, "turn": f.turn},
        });
        if let Some(i) = self.index.get(&f.rule.code) {
            r["ruleIndex"] = json!(i);
        }
        if !related.is_empty() {
            r["relatedLocations"] = Value::Array(related);
        }
        r
    }
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A file's `artifactLocation`, by its URI reference.
fn artifact(uri: &str) -> Value {
    // (Standard input keeps a URI, `-`: GitHub's upload rejects a location without one.)
    if uri == "-" {
        json!({"uri": "-", "uriBaseId": "%SRCROOT%", "description": {"text": "standard input"}})
    } else if uri.starts_with("file://") {
        json!({"uri": uri})
    } else {
        json!({"uri": uri, "uriBaseId": "%SRCROOT%"})
    }
}

/// A span in the file that holds it (an event's own file, for a log joined from one file per
/// event). Inside compressed bytes (`exact` false) lines and offsets mean nothing: the file
/// alone.
fn physical(file: &FileResult<'_>, src: &SourceFile, span: Span, exact: bool) -> Value {
    let at = file.place(src, span);
    if !exact {
        return json!({"artifactLocation": artifact(at.uri)});
    }
    json!({
        "artifactLocation": artifact(at.uri),
        "region": {
            "startLine": at.start.line,
            "startColumn": at.start.column,
            "endLine": at.end.line,
            "endColumn": at.end.column,
            "byteOffset": span.start - at.base,
            "byteLength": at.end_offset - span.start,
        },
    })
}

fn unwrap(text: &str) -> String {
    text.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The first sentence of the first paragraph: up to the first period that ends a sentence
/// outside parentheses and code.
fn first_sentence(text: &str) -> String {
    let flat = unwrap(text);
    let para = flat.split("\n\n").next().unwrap_or("");
    let mut depth = 0i32;
    let mut code = false;
    let b = para.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'`' => code = !code,
            b'(' if !code => depth += 1,
            b')' if !code => depth -= 1,
            b'.' if !code
                && depth <= 0
                && b.get(i + 1).is_none_or(|n| *n == b' ')
                && (i == 0 || b[i - 1] != b'.') =>
            {
                return para[..=i].to_string();
            }
            _ => {}
        }
    }
    para.to_string()
}

/// A path as a URI reference: `/`-separated, each byte outside RFC 3986's unreserved set and
/// `/` percent-encoded.
pub fn encode_path(path: &str) -> String {
    encode_bytes(path.replace('\\', "/").as_bytes())
}

/// `encode_path` of a path as the file system holds it: a name that is not UTF-8 is encoded
/// byte for byte, not as U+FFFD (which names another file).
pub fn encode_os_path(path: &std::path::Path) -> String {
    match path.to_str() {
        Some(s) => encode_path(s),
        None => encode_bytes(&os_bytes(path.as_os_str())),
    }
}

#[cfg(unix)]
fn os_bytes(n: &std::ffi::OsStr) -> Vec<u8> {
    std::os::unix::ffi::OsStrExt::as_bytes(n).to_vec()
}

#[cfg(not(unix))]
fn os_bytes(n: &std::ffi::OsStr) -> Vec<u8> {
    n.to_string_lossy().into_owned().into_bytes()
}

fn encode_bytes(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Renderer for Sarif {
    fn header(&self, out: &mut dyn Write, _run: Option<&RunSummary>) -> io::Result<()> {
        let rules: Vec<Value> = self
            .rules
            .iter()
            .map(|a| Sarif::descriptor(&a.rule))
            .collect();
        let tool = json!({"driver": {
            "name": "trajlint",
            "version": self.version,
            "semanticVersion": self.version,
            "rules": rules,
        }});
        write!(
            out,
            "{{\"$schema\":{},\"version\":\"2.1.0\",\"runs\":[{{\"tool\":{},\"originalUriBaseIds\":{},\"columnKind\":\"unicodeCodePoints\",\"results\":[",
            json!(SCHEMA_URI),
            tool,
            json!({"%SRCROOT%": {"uri": self.srcroot}}),
        )
    }

    fn file(&self, file: &FileResult<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        let Some(src) = file.source else {
            return out;
        };
        for (i, f) in file.findings.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let _ = serde_json::to_writer(&mut out, &self.result(file, src, f));
        }
        out
    }

    fn separator(&self) -> &'static [u8] {
        b","
    }

    fn footer(&self, out: &mut dyn Write, run: &RunSummary) -> io::Result<()> {
        let errors = run.errors.iter().map(|e| {
            let mut place = json!({"artifactLocation": artifact(&e.uri)});
            if let Some(p) = e.at {
                place["region"] = json!({"startLine": p.line, "startColumn": p.column});
            }
            json!({
                "level": "error",
                "message": {"text": e.message()},
                "locations": [{"physicalLocation": place}],
            })
        });
        let no_log = run
            .no_log
            .iter()
            .map(|why| json!({"level": "error", "message": {"text": why}}));
        let notes: Vec<Value> = errors
            .chain(no_log)
            .chain(run.warnings.iter().map(|w| {
                json!({
                    "level": "warning",
                    "message": {"text": w.message},
                    "locations": [{"physicalLocation": {
                        "artifactLocation": artifact(&w.uri),
                        "region": {"startLine": w.line, "startColumn": w.column},
                    }}],
                })
            }))
            .collect();
        let invocation = json!({
            "executionSuccessful": run.errors.is_empty() && run.no_log.is_none(),
            "toolExecutionNotifications": notes,
        });
        writeln!(out, "],\"invocations\":[{invocation}]}}]}}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(encode_path("runs/a b#1.jsonl"), "runs/a%20b%231.jsonl");
        assert_eq!(encode_path("../x/é.json"), "../x/%C3%A9.json");
    }

    #[test]
    fn short_description_is_the_first_sentence() {
        assert_eq!(
            first_sentence("Flags an obligation the agent took on and still owes. More."),
            "Flags an obligation the agent took on and still owes."
        );
        assert_eq!(
            first_sentence(
                "Flags a result (one that says: absent. Or failed) that `a. b` hides. X."
            ),
            "Flags a result (one that says: absent. Or failed) that `a. b` hides."
        );
    }
}
