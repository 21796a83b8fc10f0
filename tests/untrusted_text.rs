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
