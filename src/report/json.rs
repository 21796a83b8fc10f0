//! `--output-format json` (one array of findings) and `json-lines` (one finding per line).
//! Every position is given twice: raw byte offsets into the file (`bytes`, `[start, end)`), and
//! 1-based line and column (in characters) computed from the file's line index.

use super::output::{FileResult, Place, Position, Renderer, RunSummary};
use crate::lint::Finding;
use crate::source::{SourceFile, Span};
use serde::Serialize;
use std::io::{self, Write};

#[derive(Serialize)]
struct Located<'a> {
    /// Another file than the finding's (a label in another event's file of a conversation
    /// kept one event per file).
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    bytes: Span,
    location: Position,
    end_location: Position,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

#[derive(Serialize)]
struct FindingOut<'a> {
    code: &'a str,
    name: &'a str,
    severity: crate::lint::Severity,
    message: &'a str,
    file: &'a str,
    trajectory: usize,
    turn: usize,
    #[serde(flatten)]
    at: Located<'a>,
    /// False where the trajectory lies compressed in the file (a deflated `.eval` entry):
    /// `bytes` is then the whole entry, and its lines and columns mean nothing.
    bytes_exact: bool,
    label: &'a str,
    labels: Vec<Located<'a>>,
    help: Option<&'a str>,
    fingerprint: &'a str,
}

/// A span where it is: byte offsets and positions in the file that holds it (see
/// `FileResult::place`).
fn located<'a>(at: &Place<'a>, span: Span, message: Option<&'a str>) -> Located<'a> {
    Located {
        file: None,
        bytes: Span {
            start: span.start - at.base,
            end: at.end_offset - at.base,
        },
        location: at.start,
        end_location: at.end,
        message,
    }
}

fn finding_out<'a>(file: &FileResult<'a>, src: &SourceFile, f: &'a Finding) -> FindingOut<'a> {
    let place = file.place(src, f.span);
    FindingOut {
        code: &f.rule.code,
        name: &f.rule.name,
        severity: f.severity,
        message: &f.message,
        file: place.name,
        trajectory: f.trajectory,
        turn: f.turn,
        at: located(&place, f.span, None),
        bytes_exact: f.bytes_exact,
        label: &f.label,
        labels: f
            .labels
            .iter()
            .map(|l| {
                let l_at = file.place(src, l.span);
                Located {
                    file: l_at.file_unless_in(&place),
                    ..located(&l_at, l.span, Some(&l.message))
                }
            })
            .collect(),
        help: f.help.as_deref(),
        fingerprint: &f.fingerprint,
    }
}

/// One JSON array of every finding, in input order.
pub struct Json;

impl Renderer for Json {
    fn header(&self, out: &mut dyn Write, _run: Option<&RunSummary>) -> io::Result<()> {
        out.write_all(b"[")
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
            out.extend_from_slice(b"\n  ");
            let _ = serde_json::to_writer(&mut out, &finding_out(file, src, f));
        }
        out
    }

    fn separator(&self) -> &'static [u8] {
        b","
    }

    fn footer(&self, out: &mut dyn Write, run: &RunSummary) -> io::Result<()> {
        if run.findings() > 0 {
            out.write_all(b"\n")?;
        }
        out.write_all(b"]\n")
    }
}

/// One finding per line.
pub struct JsonLines;

impl Renderer for JsonLines {
    fn file(&self, file: &FileResult<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        let Some(src) = file.source else {
            return out;
        };
        for f in file.findings {
            let _ = serde_json::to_writer(&mut out, &finding_out(file, src, f));
            out.push(b'\n');
        }
        out
    }
}
