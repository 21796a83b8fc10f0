//! `--output-format github`: GitHub Actions workflow commands, one annotation per finding:
//! `::warning file=…,line=…,endLine=…,col=…,endColumn=…,title=…::message`. The column pair is
//! given only when the span lies on one line (GitHub draws a multi-line annotation over whole
//! lines). Properties and data are escaped as the runner expects (`%`, CR, LF; and `:` `,` in
//! properties). The labels follow the message, one per line, with their positions.

use super::output::{FileResult, Renderer, RunSummary};
use crate::lint::Severity;
use std::io::{self, Write};

pub struct Github;

/// Escapes the message part of a workflow command (and shows the log's other control
/// characters as pictures: the runner echoes them to the job's log).
pub fn escape_data(s: &str) -> String {
    let s = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    super::visible(&s).into_owned()
}

/// Escapes a property value of a workflow command.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

impl Renderer for Github {
    fn file(&self, file: &FileResult<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        let Some(src) = file.source else {
            let why = file.error.unwrap_or("could not be read");
            let at = file
                .error_at
                .map(|p| format!(",line={},col={}", p.line, p.column))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "::error file={}{at},title={}::{}",
                escape_property(file.name),
                escape_property("trajlint: unreadable input"),
                escape_data(why)
            );
            return out;
        };
        for f in file.findings {
            let at = file.place(src, f.span);
            let (start, end) = (at.start, at.end);
            let level = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            // (Lines and columns inside compressed bytes mean nothing: the file alone.)
            let mut props = format!("file={}", escape_property(at.name));
            if f.bytes_exact {
                props.push_str(&format!(",line={},endLine={}", start.line, end.line));
            }
            if f.bytes_exact && start.line == end.line {
                props.push_str(&format!(",col={},endColumn={}", start.column, end.column));
            }
            props.push_str(&format!(
                ",title={}",
                escape_property(&format!("{} {}", f.rule.code, f.rule.name))
            ));
            let mut message = f.message.clone();
            for l in &f.labels {
                let l_at = file.place(src, l.span);
                let other = l_at.file_unless_in(&at).map(|n| format!("{n}:"));
                let ls = l_at.start;
                let at = match f.bytes_exact {
                    true => format!("{}{}:{}: ", other.unwrap_or_default(), ls.line, ls.column),
                    false => String::new(),
                };
                message.push_str(&format!("\n  {at}{}", l.message));
            }
            let _ = writeln!(out, "::{level} {props}::{}", escape_data(&message));
        }
        out
    }

    fn footer(&self, out: &mut dyn Write, run: &RunSummary) -> io::Result<()> {
        // (The readers' warnings: a record of a log skipped, at its place.)
        for w in &run.warnings {
            writeln!(
                out,
                "::warning file={},line={},col={},title={}::{}",
                escape_property(&w.name),
                w.line,
                w.column,
                escape_property("trajlint: reader warning"),
                escape_data(&w.message)
            )?;
        }
        match &run.no_log {
            Some(why) => writeln!(
                out,
                "::error title={}::{}",
                escape_property("trajlint: no log found"),
                escape_data(why)
            ),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(span: crate::source::Span) -> crate::lint::Finding {
        let rule = crate::lint::Catalogue::builtin()
            .get("dangling-commitment")
            .unwrap()
            .clone();
        crate::lint::Finding {
            severity: rule.severity,
            rule,
            file: "a, b.jsonl".into(),
            trajectory: 0,
            turn: 0,
            span,
            bytes_exact: true,
            label: String::new(),
            message: "100% open:\nstill".into(),
            labels: Vec::new(),
            help: None,
            fingerprint: String::new(),
        }
    }

    #[test]
    fn a_column_only_on_one_line() {
        let src = crate::source::SourceFile::new("a, b.jsonl", None, b"abc\ndef\n".to_vec());
        let render = |f: &crate::lint::Finding| {
            let out = Github.file(&FileResult {
                name: "a, b.jsonl",
                uri: "a%2C%20b.jsonl",
                source: Some(&src),
                findings: std::slice::from_ref(f),
                error: None,
                error_at: None,
                parts: &[],
            });
            String::from_utf8(out).unwrap()
        };
        let one = render(&finding(crate::source::Span::new(1, 3)));
        assert_eq!(
            one,
            "::warning file=a%2C b.jsonl,line=1,endLine=1,col=2,endColumn=4,title=OB001 dangling-commitment::100%25 open:%0Astill\n"
        );
        let two = render(&finding(crate::source::Span::new(1, 6)));
        assert_eq!(
            two,
            "::warning file=a%2C b.jsonl,line=1,endLine=2,title=OB001 dangling-commitment::100%25 open:%0Astill\n"
        );
    }

    #[test]
    fn escapes_as_the_runner_expects() {
        assert_eq!(escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
