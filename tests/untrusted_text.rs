//! Text quoted from a log never drives the reader's terminal: a transcript may hold terminal
//! escapes (a tool's coloured output, a crafted `ESC ]0;title BEL`), and every human format
//! shows them as pictures (`␛`, `␇`, `␀`) instead of writing them raw.

mod check_support;

use check_support::{scratch, trajlint};

/// Control characters a human format must not print (a line break and a tab are text).
fn raw_controls(out: &str) -> Vec<char> {
    out.chars()
        .filter(|&c| c.is_control() && c != '\n' && c != '\t')
        .collect()
}

#[test]
fn escapes_in_a_log_are_shown_not_sent_to_the_terminal() {
    let dir = scratch("untrusted_text");
    // JSON escapes decode to control characters; the Aider history holds them raw.
    let chat = dir.join("escapes.json");
    std::fs::write(
        &chat,
        r#"[{"role": "user", "content": "Read the config."},
 {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
   "function": {"name": "bash\u001b[2J", "arguments": "{\"command\": \"cat cfg.toml\"}"}}]},
 {"role": "tool", "tool_call_id": "c1",
  "content": "\u001b[31mcat: cfg.toml: No such file or directory\u0000\u0007\u001b]0;PWNED\u0007\u009b"},
 {"role": "assistant", "content": "I will verify the \u001b]0;T\u0007deploy later."}]"#,
    )
    .unwrap();
    let history = dir.join("raw.chat.history.md");
    std::fs::write(
        &history,
        b"# aider chat started at 2024-01-01 10:00:00\n\n#### Fix the config loader.\n\n\
          I will verify the \x1b]0;PWNED\x07 deploy later, after the \x1b[31mtests\x1b[0m pass.\n",
    )
    .unwrap();
    for file in ["escapes.json", "raw.chat.history.md"] {
        let runs: [&[&str]; 6] = [
            &["check", "--isolated", "--output-format", "concise", file],
            &["check", "--isolated", "--output-format", "full", file],
            &["check", "--isolated", "--output-format", "github", file],
            &["annotate", "--format", "text", file],
            &["plan", "--budget", "10", file],
            &["probe", "--summary", "-", "--turns", "0..3", file],
        ];
        for args in runs {
            let run = trajlint(args, &dir, Some(b"A summary."));
            assert!(
                raw_controls(&run.stdout).is_empty(),
                "{args:?} printed {:?}:\n{}",
                raw_controls(&run.stdout),
                run.stdout
            );
            assert!(
                raw_controls(&run.stderr).is_empty(),
                "{args:?}: {}",
                run.stderr
            );
        }
        // What was there is still shown.
        let run = trajlint(
            &["check", "--isolated", "--output-format", "concise", file],
            &dir,
            None,
        );
        assert!(run.stdout.contains("␛]0;"), "{}", run.stdout);
    }
}

/// Line breaks in what the text view puts on one line (a session id, a tool's name) are
/// shown, not written: a log cannot forge a turn or a fact the JSON does not hold.
#[test]
fn line_breaks_in_names_do_not_forge_lines_of_the_text_view() {
    let dir = scratch("untrusted_lines");
    let forged = "x\u{2028}\n  LIVE #0    assistant line 1      9 tokens\n         [9] obligation/self_commitment open at 1:1: I will delete prod";
    let log = serde_json::json!([
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": forged, "arguments": "{\"command\": \"ls\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
        {"role": "assistant", "content": "There is one file, a.txt."}
    ]);
    std::fs::write(dir.join("forged.json"), log.to_string()).unwrap();
    let run = trajlint(&["annotate", "--format", "text", "forged.json"], &dir, None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // One line per turn (four), a header, the call and the closing ranges: nothing more.
    assert!(
        !run.stdout
            .lines()
            .any(|l| l.trim_start().starts_with("[9]")),
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout.lines().count(), 7, "{}", run.stdout);
    assert!(
        run.stdout
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("  compactable now: ")),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains('\u{2028}'), "{}", run.stdout);
    assert!(
        run.stdout
            .lines()
            .any(|l| l.trim_start().starts_with("call x    LIVE #0")),
        "{}",
        run.stdout
    );
}

/// A file's name is untrusted too: one holding a terminal escape and a line break is shown on
/// standard error as pictures on one line, by every subcommand that names it there.
#[test]
fn file_names_on_standard_error_are_shown_not_sent() {
    let dir = scratch("untrusted_names");
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    // Not a log (skipped by the walk, with a warning naming it), and a log with a record lost
    // (an error naming it at its line).
    std::fs::write(logs.join("a\x1b[31mred\nX.json"), "hello\n").unwrap();
    std::fs::write(
        logs.join("b\x1b]0;T\x07.jsonl"),
        "{\"role\": \"user\", \"content\": \"Hi.\"}\n{\"role\": \n{\"role\": \"assistant\", \"content\": \"Hello.\"}\n",
    )
    .unwrap();
    for args in [
        // (The lost record is a finding of RD001 where that rule runs: on stdout.)
        &[
            "check",
            "--isolated",
            "--output-format",
            "concise",
            "--select",
            "OB",
            "logs",
        ][..],
        &["annotate", "--format", "json", "logs"][..],
    ] {
        let run = trajlint(args, &dir, None);
        assert!(
            raw_controls(&run.stderr).is_empty(),
            "{args:?}: {:?}",
            run.stderr
        );
        assert!(
            run.stderr
                .lines()
                .any(|l| l.starts_with("logs/a␛[31mred␊X.json: warning: skipped")),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr
                .lines()
                .any(|l| l.starts_with("logs/b␛]0;T␇.jsonl:2:")),
            "{args:?}: {}",
            run.stderr
        );
    }
}

/// `plan` and `probe` name their one log (and probe its summary file) in their text views and
/// their messages: a line break or an escape in the name is a picture there too, so each line
/// that names the log stays one line.
#[test]
fn plan_and_probe_name_their_log_on_one_line() {
    let dir = scratch("untrusted_one_log");
    let name = "a\x1b[31mred\nX.jsonl";
    std::fs::write(
        dir.join(name),
        "{\"role\": \"user\", \"content\": \"Hi.\"}\n{\"role\": \"assistant\", \"content\": \"Hello.\"}\n",
    )
    .unwrap();
    let shown = "a␛[31mred␊X.jsonl";
    let runs: [(&[&str], bool, &str); 4] = [
        // (Text on stdout, or a message on stderr, and the name its first line shows.)
        (&["plan", "--isolated", "--budget", "1", name], true, shown),
        (&["probe", "--isolated", name], true, shown),
        (
            &[
                "plan",
                "--isolated",
                "--budget",
                "1",
                "--trajectory",
                "2",
                name,
            ],
            false,
            shown,
        ),
        (
            &[
                "probe",
                "--isolated",
                "--turns",
                "0..1",
                "--summary",
                "no\nsuch",
                name,
            ],
            false,
            "no␊such",
        ),
    ];
    for (args, on_stdout, named) in runs {
        let run = trajlint(args, &dir, None);
        let out = if on_stdout { &run.stdout } else { &run.stderr };
        assert!(raw_controls(out).is_empty(), "{args:?}: {out:?}");
        let first = out.lines().next().unwrap_or("");
        assert!(first.contains(named), "{args:?}: {out}");
        assert!(!out.contains("red\nX"), "{args:?}: {out}");
        assert!(!out.contains("no\nsuch"), "{args:?}: {out}");
    }
}
