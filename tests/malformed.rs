//! Bad input gets a clear answer and loses nothing: each deliberately broken file in
//! `corpus/fixtures/malformed/` (see its README) gives its diagnostic at the right place and still
//! yields what can be read; hostile inputs (deep nesting, huge lines) neither panic nor blow up.

use std::path::{Path, PathBuf};
use trajlint::formats::{read, ReadOutput, Severity};
use trajlint::source::SourceFile;

fn read_fixture(name: &str) -> (SourceFile, ReadOutput) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/fixtures/malformed")
        .join(name);
    let src = SourceFile::read(&path).unwrap();
    let out = read(&src.bytes, None);
    (src, out)
}

fn issues(src: &SourceFile, out: &ReadOutput, severity: Severity) -> Vec<(usize, String)> {
    out.issues
        .iter()
        .filter(|i| i.severity == severity)
        .map(|i| (src.line_col(i.span.start).0, i.message.clone()))
        .collect()
}

#[test]
fn a_cut_off_last_line_is_reported_and_the_rest_read() {
    let (src, out) = read_fixture("claude-code-cut-line.jsonl");
    // 5 lines: user, assistant (2 lines, one message.id), tool result, then the cut line.
    assert_eq!(out.trajectories.len(), 1);
    assert_eq!(out.trajectories[0].turns.len(), 3);
    let errors = issues(&src, &out, Severity::Error);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, 5);
    assert!(errors[0].1.contains("cut off"), "{}", errors[0].1);
    assert!(!out.unreadable());
}

/// A record lost between two turns (a line that does not parse) is known to the trajectory
/// and no compactable range spans it: what it held is unknown. One cut off at the end splits
/// nothing.
#[test]
fn no_range_spans_a_record_that_could_not_be_read() {
    let lines = [
        r#"{"role": "user", "content": "Where is the config?"}"#,
        r#"{"role": "assistant", "content": "In etc/app.toml."}"#,
        r#"{"role": "assistant", "content": "I will rerun the"#,
        r#"{"role": "user", "content": "Thanks."}"#,
        r#"{"role": "assistant", "content": "You are welcome."}"#,
    ];
    let src = lines.join("\n") + "\n";
    let lex = trajlint::extract::lexicon::Lexicon::builtin();
    let report = trajlint::process(
        SourceFile::new("t", None, src.clone().into_bytes()),
        None,
        &lex,
    );
    let t = &report.read.trajectories[0];
    assert_eq!(t.turns.len(), 4);
    assert_eq!(t.lost.len(), 1, "{:?}", report.read.issues);
    let third = src.find(lines[2]).unwrap();
    assert!((third..third + lines[2].len() + 1).contains(&t.lost[0].start));
    assert_eq!(report.analyses[0].ranges, [(0, 1), (2, 3)]);
    // The same line cut off at the end: read as before it, nothing lost between turns.
    let cut = lines[..3].join("\n");
    let report = trajlint::process(SourceFile::new("t", None, cut.into_bytes()), None, &lex);
    assert!(report.read.trajectories[0].lost.is_empty());
    assert_eq!(report.analyses[0].ranges, [(0, 1)]);
    // A record skipped with a warning (a message that lost its role) is lost as well.
    let chat = r#"[{"role": "user", "content": "Where is the config?"},
 {"role": "assistant", "content": "In etc/app.toml."},
 {"content": "Never push to main."},
 {"role": "user", "content": "Thanks."}]"#;
    let report = trajlint::process(SourceFile::new("t", None, chat.into()), None, &lex);
    assert_eq!(report.read.trajectories[0].lost.len(), 1);
    assert_eq!(report.analyses[0].ranges, [(0, 1), (2, 2)]);
    // A message written over several lines, one of them broken: its turn holds the lost line,
    // and stays out of every range.
    let line = |uuid: &str, parent: &str, message: &str| {
        format!(
            r#"{{"parentUuid": {parent}, "isSidechain": false, "type": "{}", "sessionId": "s1", "uuid": "{uuid}", "message": {message}}}"#,
            if message.contains(r#""role": "user""#) {
                "user"
            } else {
                "assistant"
            }
        )
    };
    let log = [
        line("u1", "null", r#"{"role": "user", "content": "Rename the loader."}"#),
        line("a1", r#""u1""#, r#"{"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Looking."}]}"#),
        r#"{"parentUuid": "a1", "type": "assistant", "message": {"id": "m1", "role": "assis"#.to_string(),
        line("a2", r#""a1""#, r#"{"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Found it."}]}"#),
        line("u2", r#""a2""#, r#"{"role": "user", "content": "Great."}"#),
        line("a3", r#""u2""#, r#"{"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}"#),
    ]
    .join("\n");
    let report = trajlint::process(SourceFile::new("t", None, log.into_bytes()), None, &lex);
    let t = &report.read.trajectories[0];
    assert_eq!(t.turns.len(), 4, "{:?}", report.read.issues);
    assert_eq!(t.lost.len(), 1);
    assert!(t.turns[1].span.start < t.lost[0].start && t.lost[0].start < t.turns[1].span.end);
    assert_eq!(report.analyses[0].ranges, [(0, 0), (2, 3)]);
}

#[test]
fn lines_that_are_not_objects_are_skipped_with_a_warning() {
    let (src, out) = read_fixture("mixed-lines.jsonl");
    assert_eq!(out.trajectories[0].turns.len(), 4);
    let warnings = issues(&src, &out, Severity::Warning);
    let lines: Vec<usize> = warnings.iter().map(|w| w.0).collect();
    // Line 2 is a bare string, line 4 an array (checked in the file).
    assert_eq!(lines, vec![2, 4], "{warnings:?}");
    assert!(issues(&src, &out, Severity::Error).is_empty());
}

#[test]
fn invalid_utf8_is_reported_once_and_the_text_around_it_kept() {
    let (src, out) = read_fixture("invalid-utf8.jsonl");
    let turns = &out.trajectories[0].turns;
    assert_eq!(turns.len(), 4);
    let warnings = issues(&src, &out, Severity::Warning);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        warnings[0].0, 3,
        "the bad bytes are on the tool result line"
    );
    assert!(warnings[0].1.contains("UTF-8"));
    let tool_text: String = turns[2]
        .segments
        .iter()
        .map(|s| s.text.text.as_str())
        .collect();
    assert!(
        tool_text.contains("row 41: cannot decode name '"),
        "{tool_text}"
    );
    assert!(tool_text.contains('\u{FFFD}'));
}

#[test]
fn empty_and_foreign_files_are_errors_with_a_hint() {
    let (_, out) = read_fixture("empty.jsonl");
    assert!(out.unreadable());
    assert!(out.issues[0].message.contains("empty"));
    let (_, out) = read_fixture("not-a-trajectory.md");
    assert!(out.unreadable());
    assert!(out.issues[0].message.contains("not a trajectory"));
    assert!(out.issues[0]
        .help
        .as_deref()
        .unwrap_or("")
        .contains("--input-format"));
}

#[test]
fn a_truncated_document_is_an_error_at_its_end() {
    let (src, out) = read_fixture("truncated-document.json");
    assert!(out.unreadable());
    let errors = issues(&src, &out, Severity::Error);
    assert_eq!(errors.len(), 1);
    assert!(errors[0].1.contains("not valid JSON"), "{}", errors[0].1);
    assert_eq!(errors[0].0, src.line_count(), "reported on the last line");
    // The error is at the end of input: its span ends there, not a byte past the file.
    let span = out.issues[0].span;
    assert_eq!(span.end, src.bytes.len(), "{span:?}");
}

#[test]
fn deep_nesting_and_huge_lines_do_not_panic() {
    // 10,000 levels of nesting: an error, not a stack overflow.
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let out = read(deep.as_bytes(), None);
    assert!(out.trajectories.is_empty());
    assert!(!out.issues.is_empty());
    // The same inside one line of an otherwise good JSONL file: that line is reported, the
    // others read.
    let good = r#"{"type":"user","message":{"role":"user","content":"hi"},"uuid":"a","parentUuid":null,"sessionId":"s"}"#;
    let bad = format!(
        "{{\"type\":\"user\",\"x\":{}{}}}",
        "[".repeat(5_000),
        "]".repeat(5_000)
    );
    let file = format!("{good}\n{bad}\n");
    let out = read(file.as_bytes(), None);
    assert_eq!(out.trajectories.len(), 1);
    assert!(out
        .issues
        .iter()
        .any(|i| i.message.contains("nested deeper")));
    // A 20 MB line of text in a tool result reads in one piece.
    let big = "x".repeat(20 << 20);
    let line = format!(
        r#"{{"type":"user","message":{{"role":"user","content":"{big}"}},"uuid":"b","parentUuid":null,"sessionId":"s"}}"#
    );
    let out = read(line.as_bytes(), None);
    assert_eq!(
        out.trajectories[0].turns[0].segments[0].text.text.len(),
        20 << 20
    );
}

/// Every file of ours under `dir` (not the broken ones, not archives).
fn fixture_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "malformed") {
                fixture_files(&p, out);
            }
        } else if p.extension().is_none_or(|x| x != "zip") {
            out.push(p);
        }
    }
}

/// The fixtures under `corpus/fixtures` (not the malformed ones).
fn fixtures() -> Vec<PathBuf> {
    let mut files = Vec::new();
    fixture_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/fixtures"),
        &mut files,
    );
    files
}

/// Per trajectory read from `bytes`: its turn count and its facts (text, and span mapped by
/// `offset`).
type Read = Vec<(usize, Vec<(String, usize, usize)>)>;
fn turns_and_facts(path: &Path, bytes: &[u8], offset: &dyn Fn(usize) -> usize) -> Read {
    let all = trajlint::annotate(bytes).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    all.iter()
        .map(|a| {
            let facts = a
                .analysis
                .facts
                .iter()
                .map(|f| (f.text.clone(), offset(f.span.start), offset(f.span.end)))
                .collect();
            (a.trajectory.turns.len(), facts)
        })
        .collect()
}

#[test]
fn a_byte_order_mark_changes_nothing_but_the_offsets() {
    // Editors on Windows open a UTF-8 file with EF BB BF; a JSON parser rejects it, and a JSONL
    // reader lost the first record. Read with the mark, each fixture gives the same turns and
    // facts, every offset 3 bytes on.
    let files = fixtures();
    assert!(files.len() >= 20, "{files:?}");
    for path in files {
        let plain = std::fs::read(&path).unwrap();
        let marked = [&b"\xEF\xBB\xBF"[..], &plain].concat();
        let read = turns_and_facts(&path, &plain, &|o| o);
        assert!(!read.is_empty(), "{path:?}");
        assert_eq!(
            turns_and_facts(&path, &marked, &|o| o - 3),
            read,
            "{path:?}"
        );
    }
    // Short files, where detection has one marker line of each speaker to go by.
    // (The Aider session: its start event, the message and the reply.)
    for (plain, turns) in [
        ("User: hi\n\nAssistant: I'll update the CHANGELOG later.\n", 2),
        ("# aider chat started at 2024-06-01 10:00:00\n\n#### hi\n\nI'll update the CHANGELOG later.\n", 3),
    ] {
        let marked = [&b"\xEF\xBB\xBF"[..], plain.as_bytes()].concat();
        let path = Path::new(plain);
        let read = turns_and_facts(path, plain.as_bytes(), &|o| o);
        assert_eq!(read[0].0, turns, "{plain}");
        assert_eq!(turns_and_facts(path, &marked, &|o| o - 3), read, "{plain}");
        // The same roles too (the Aider header is the session's start event, not a message).
        let roles = |b: &[u8]| -> Vec<_> {
            trajlint::formats::read(b, None).trajectories[0]
                .turns
                .iter()
                .map(|t| t.role)
                .collect()
        };
        assert_eq!(roles(&marked), roles(plain.as_bytes()), "{plain}");
    }
}

#[test]
fn byte_order_marks_opening_later_lines_change_nothing_but_the_offsets() {
    // `cat a.jsonl b.jsonl` of files an editor marked puts a mark at the start of a line inside
    // the log. Each record line of each JSONL fixture opened with one gives the same turns and
    // facts, every offset moved by 3 bytes per mark before it (a line's start: before it).
    let mut files = fixtures();
    files.retain(|p| p.extension().is_some_and(|x| x == "jsonl"));
    assert!(files.len() >= 10, "{files:?}");
    for path in files {
        let plain = std::fs::read(&path).unwrap();
        // Where each mark goes: the start of every line after the first that opens a record.
        let at: Vec<usize> = plain
            .iter()
            .enumerate()
            .filter(|&(i, &b)| b == b'\n' && plain.get(i + 1) == Some(&b'{'))
            .map(|(i, _)| i + 1)
            .collect();
        assert!(!at.is_empty(), "{path:?}");
        let mut marked = Vec::with_capacity(plain.len() + 3 * at.len());
        let mut from = 0;
        for &a in &at {
            marked.extend_from_slice(&plain[from..a]);
            marked.extend_from_slice(b"\xEF\xBB\xBF");
            from = a;
        }
        marked.extend_from_slice(&plain[from..]);
        // (A line's own start stays where its mark now is: a record's span opens the line.)
        let moved = |offset: usize| offset + 3 * at.partition_point(|&a| a < offset);
        let expected = turns_and_facts(&path, &plain, &moved);
        assert!(!expected.is_empty(), "{path:?}");
        assert_eq!(
            turns_and_facts(&path, &marked, &|o| o),
            expected,
            "{path:?}"
        );
    }
}

/// A record of a kind that must hold a message (Claude Code's `user` / `assistant`, Codex's
/// `response_item`) but holds none is a record lost: an error at its line (RD001 in `check`), not
/// a record passed over in silence; the records around it are read. Among chat messages, an
/// object with no role is a warning.
#[test]
fn a_record_of_the_wrong_shape_is_an_error_where_it_lies() {
    let at = |bytes: &[u8], out: &ReadOutput, severity| -> Vec<(usize, String)> {
        let src = SourceFile::new("t", None, bytes.to_vec());
        issues(&src, out, severity)
    };
    let claude = concat!(
        r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","isSidechain":false,"message":{"role":"user","content":"Fix the parser."}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","isSidechain":false,"message":"oops"}"#,
        "\n",
        r#"{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","isSidechain":false,"message":{"role":"user","content":"Thanks."}}"#,
        "\n",
    );
    let out = read(claude.as_bytes(), None);
    let errors = at(claude.as_bytes(), &out, Severity::Error);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, 2);
    assert!(
        errors[0].1.contains("`message` is a JSON string"),
        "{errors:?}"
    );
    assert_eq!(out.trajectories[0].turns.len(), 2);

    let codex = concat!(
        r#"{"type":"session_meta","payload":{"id":"s-1"}}"#,
        "\n",
        r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Look."}]}}"#,
        "\n",
        r#"{"type":"response_item","payload":"oops"}"#,
        "\n",
        r#"{"type":"response_item"}"#,
        "\n",
        r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}"#,
        "\n",
    );
    let out = read(codex.as_bytes(), None);
    let errors = at(codex.as_bytes(), &out, Severity::Error);
    let lines: Vec<usize> = errors.iter().map(|e| e.0).collect();
    assert_eq!(lines, [3, 4], "{errors:?}");
    assert!(errors[1].1.contains("`payload` is missing"), "{errors:?}");
    assert_eq!(out.trajectories[0].turns.len(), 2);

    let chat = concat!(
        r#"{"role":"user","content":"Where is it?"}"#,
        "\n",
        r#"{"content":"no role"}"#,
        "\n",
        r#"{"role":"assistant","content":"Here."}"#,
        "\n",
    );
    let out = read(chat.as_bytes(), None);
    let warnings = at(chat.as_bytes(), &out, Severity::Warning);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].0, 2);
    assert_eq!(out.trajectories[0].turns.len(), 2);
}

/// A message record off the active branch that does not say it is a sub-agent's (no
/// `isSidechain`) is counted with the branch's abandoned records, not as a sub-agent's.
#[test]
fn a_record_that_names_no_side_is_no_sub_agents() {
    let claude = concat!(
        r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","isSidechain":false,"message":{"role":"user","content":"Fix the parser."}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"x","parentUuid":"u1","message":{"role":"assistant","content":"An abandoned reply."}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","isSidechain":false,"message":{"role":"assistant","content":"Fixed."}}"#,
        "\n",
    );
    let out = read(claude.as_bytes(), None);
    let notes: Vec<&str> = out.issues.iter().map(|i| i.message.as_str()).collect();
    assert!(
        notes.iter().any(|n| n.contains("not on the active branch")),
        "{notes:?}"
    );
    assert!(!notes.iter().any(|n| n.contains("sidechain")), "{notes:?}");
}

/// One stray record of another format at the top of a log (a line pasted in) does not decide
/// the format: the records most of the first ones name do, and the log is read. A stream's
/// opening header does decide: the records after Claude Code's `system`/`init` fit Cursor's
/// events too.
#[test]
fn a_stray_first_record_does_not_decide_the_format() {
    let stream = concat!(
        r#"{"type":"system","subtype":"init","session_id":"s1","tools":["Bash"],"model":"claude-sonnet-4","cwd":"/w","permissionMode":"default"}"#,
        "\n",
        r#"{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","content":[{"type":"text","text":"I'll run the tests."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"pytest"}}]},"session_id":"s1"}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"1 failed"}]},"session_id":"s1"}"#,
        "\n",
    );
    let out = read(stream.as_bytes(), None);
    assert_eq!(out.format, Some(trajlint::model::Format::ClaudeCode));
    assert_eq!(out.trajectories[0].turns[0].calls.len(), 1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/fixtures");
    let stray =
        r#"{"type":"user","uuid":"u0","sessionId":"s","message":{"role":"user","content":"hi"}}"#;
    for (rel, format) in [
        (
            "codex/flaky-test-compacted.jsonl",
            trajlint::model::Format::Codex,
        ),
        (
            "claude-code/compact-summary.jsonl",
            trajlint::model::Format::ClaudeCode,
        ),
    ] {
        let plain = std::fs::read(root.join(rel)).unwrap();
        let alone = read(&plain, None);
        assert_eq!(alone.format, Some(format), "{rel}");
        // (A Codex record on top of the Claude Code log.)
        let stray = if format == trajlint::model::Format::Codex {
            stray
        } else {
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s-1"}}"#
        };
        let mixed = [stray.as_bytes(), b"\n", &plain].concat();
        let out = read(&mixed, None);
        assert_eq!(out.format, Some(format), "{rel}");
        let turns = |o: &ReadOutput| o.trajectories.iter().map(|t| t.turns.len()).sum::<usize>();
        assert!(
            turns(&out) >= turns(&alone),
            "{rel}: {} of {}",
            turns(&out),
            turns(&alone)
        );
    }
}

/// Invalid UTF-8 in a plain-text or Aider log is one warning, at the first bad byte, saying what
/// was done with it (left out; the text around it read).
#[test]
fn invalid_utf8_in_plain_text_is_one_warning_at_its_byte() {
    for (log, line) in [
        (&b"User: The night\xff\xfely backup\n\nAssistant: ok\n"[..], 1),
        (
            &b"# aider chat started at 2024-06-01 10:00:00\n\n#### fix the night\xffly backup\n\nOK.\n"[..],
            3,
        ),
    ] {
        let out = read(log, None);
        let src = SourceFile::new("t", None, log.to_vec());
        let warnings = issues(&src, &out, Severity::Warning);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let at = out.issues.iter().find(|i| i.severity == Severity::Warning).unwrap();
        assert_eq!(log[at.span.start], 0xff);
        assert_eq!(warnings[0].0, line);
        assert!(warnings[0].1.contains("left out of the text"), "{warnings:?}");
        let text: String = out.trajectories[0]
            .turns
            .iter()
            .flat_map(|t| &t.segments)
            .map(|s| s.text.text.as_str())
            .collect();
        assert!(text.contains("The night") || text.contains("fix the night"), "{text}");
    }
}

/// Records pretty-printed one after another, each opening on a line that starts it and goes
/// on (`{ "type": "user",` as some JSON writers indent), read as their compact lines do.
#[test]
fn pretty_printed_records_opening_on_a_full_line_read_as_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/fixtures");
    for rel in [
        "claude-code/compact-summary.jsonl",
        "codex/flaky-test-compacted.jsonl",
    ] {
        let plain = std::fs::read_to_string(root.join(rel)).unwrap();
        let pretty: String = plain
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                let p = serde_json::to_string_pretty(&v).unwrap();
                format!("{}\n", p.replacen("{\n  ", "{ ", 1))
            })
            .collect();
        assert!(pretty.starts_with("{ \""), "{rel}");
        let a = turns_and_facts(Path::new(rel), plain.as_bytes(), &|_| 0);
        let b = turns_and_facts(Path::new(rel), pretty.as_bytes(), &|_| 0);
        assert_eq!(a, b, "{rel}");
    }
}
