//! One function per rule kind: an analysed trajectory in, findings out. The kinds only read
//! what the analysis established (facts, statuses, links, compaction audits) and the model
//! (turns, calls); they never parse the log again. (`unreadable-record` reads what the reader
//! said of the file instead: the records it could not read.)

mod calls;
mod compacted_reference;
mod compaction_drop;
mod live_fact;
mod opaque_compaction;
mod reissued_call;
mod repeated_call;
mod unreadable_record;

pub use calls::canonical_arguments;
pub use compacted_reference::references_into_compacted;
pub use unreadable_record::run as unreadable_record;

use super::{Cx, Draft, Rule, RuleKind};
use crate::model::Trajectory;
use crate::source::Span;

/// Runs one rule over one trajectory.
pub fn run(rule: &Rule, cx: &Cx, out: &mut Vec<Draft>) {
    match rule.kind {
        RuleKind::LiveFact => live_fact::run(rule, cx, out),
        RuleKind::RepeatedCall => repeated_call::run(rule, cx, out),
        RuleKind::CompactionDrop => compaction_drop::run(rule, cx, out),
        RuleKind::ReferenceAcrossCompaction => compacted_reference::run(rule, cx, out),
        RuleKind::ReissuedCall => reissued_call::run(rule, cx, out),
        RuleKind::OpaqueCompaction => opaque_compaction::run(rule, cx, out),
        // (The file's, not a trajectory's: `check_file` runs it once per file.)
        RuleKind::UnreadableRecord => {}
    }
}

/// The text of a turn to point at (its first text segment), else the whole turn.
fn turn_anchor(traj: &Trajectory, turn: usize) -> Span {
    traj.turns
        .get(turn)
        .map_or(Span::default(), crate::extract::turn_anchor)
}

fn role(traj: &Trajectory, turn: usize) -> &'static str {
    traj.turns.get(turn).map_or("", |t| t.role.as_str())
}

/// The kinds on trajectories built by hand, so that what each reports does not hang on the
/// extractors: facts are placed where the test says.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Analysis;
    use crate::extract::lexicon::Lexicon;
    use crate::extract::{Fact, Subkind};
    use crate::lint::{Catalogue, Draft};
    use crate::model::{EventKind, Format, Role, ToolCall, ToolResult, Trajectory, Turn};

    /// A turn per step: `("call", name, args)`, `("result", "", "")` answering the latest
    /// call, `("compaction", "", "")`, `("summary", "", "")`, `("say", "", "")`.
    fn traj(steps: &[(&str, &str, &str)]) -> Trajectory {
        let mut t = Trajectory::new(Format::ClaudeCode, Span::new(0, 10_000));
        let mut last_call = String::new();
        for (i, (what, name, args)) in steps.iter().enumerate() {
            let span = Span::new(i * 100, i * 100 + 50);
            let turn = match *what {
                "call" => {
                    let mut turn = Turn::new(Role::Assistant, span);
                    last_call = format!("c{i}");
                    turn.calls.push(ToolCall {
                        id: Some(last_call.clone()),
                        name: name.to_string(),
                        arguments: args.to_string(),
                        span,
                        result_turn: None,
                    });
                    turn
                }
                "result" => {
                    let mut turn = Turn::new(Role::Tool, span);
                    turn.result = Some(ToolResult {
                        call_id: Some(last_call.clone()),
                        ..Default::default()
                    });
                    turn
                }
                "compaction" => {
                    let mut turn = Turn::new(Role::Event, span);
                    turn.event = Some(EventKind::Compaction {
                        name: "test.compaction".into(),
                        replaced: None,
                        opaque: false,
                    });
                    turn
                }
                "summary" => {
                    let mut turn = Turn::new(Role::User, span);
                    turn.is_summary = true;
                    turn
                }
                _ => Turn::new(Role::Assistant, span),
            };
            t.turns.push(turn);
        }
        t.finish();
        t
    }

    fn analysis(facts: Vec<Fact>) -> Analysis {
        let mut facts = facts;
        for (i, f) in facts.iter_mut().enumerate() {
            f.id = i;
        }
        Analysis {
            facts,
            turns: Vec::new(),
            ranges: Vec::new(),
            tokens: Vec::new(),
            audits: Vec::new(),
            carried: Vec::new(),
            settled: Vec::new(),
            calls: Default::default(),
        }
    }

    fn fact(subkind: Subkind, turn: usize) -> Fact {
        Fact::new(
            subkind,
            turn,
            Span::new(turn * 100 + 1, turn * 100 + 9),
            format!("fact at turn {turn}"),
        )
    }

    fn run_rule(name: &str, t: &Trajectory, a: &Analysis) -> Vec<Draft> {
        let lex = Lexicon::builtin();
        let rule = Catalogue::builtin().get(name).unwrap();
        let cx = Cx::new(t, a, &[], &lex);
        let mut out = Vec::new();
        run(rule, &cx, &mut out);
        out
    }

    const GREP: &str = r#"{"pattern": "retry_budget", "path": "/repo/src"}"#;

    #[test]
    fn repeated_null_query_needs_an_unchanged_world() {
        // Grep (nothing) · Edit of a file outside the searched directory · the same Grep.
        let t = traj(&[
            ("call", "Grep", GREP),
            ("result", "", ""),
            (
                "call",
                "Edit",
                r#"{"file_path": "/repo/docs/a.md", "old_string": "a", "new_string": "b"}"#,
            ),
            ("result", "", ""),
            (
                "call",
                "Grep",
                r#"{"path": "/repo/src", "pattern": "retry_budget"}"#,
            ),
            ("result", "", ""),
        ]);
        let a = analysis(vec![fact(Subkind::NotFound, 1)]);
        let found = run_rule("repeated-null-query", &t, &a);
        assert_eq!(found.iter().map(|d| d.turn).collect::<Vec<_>>(), [4]);
        // An edit inside the searched directory may change the answer.
        let t = traj(&[
            ("call", "Grep", GREP),
            ("result", "", ""),
            (
                "call",
                "Edit",
                r#"{"file_path": "/repo/src/client.rs", "old_string": "a", "new_string": "b"}"#,
            ),
            ("result", "", ""),
            ("call", "Grep", GREP),
            ("result", "", ""),
        ]);
        assert!(run_rule("repeated-null-query", &t, &a).is_empty());
        // So may a shell command that writes who knows where; an inert tool may not.
        let t = traj(&[
            ("call", "Grep", GREP),
            ("result", "", ""),
            ("call", "Bash", r#"{"command": "git checkout main"}"#),
            ("result", "", ""),
            ("call", "TodoWrite", r#"{"todos": []}"#),
            ("result", "", ""),
            ("call", "Grep", GREP),
            ("result", "", ""),
        ]);
        assert!(run_rule("repeated-null-query", &t, &a).is_empty());
        let t = traj(&[
            ("call", "Grep", GREP),
            ("result", "", ""),
            ("call", "TodoWrite", r#"{"todos": []}"#),
            ("result", "", ""),
            ("call", "Grep", GREP),
            ("result", "", ""),
        ]);
        assert_eq!(run_rule("repeated-null-query", &t, &a).len(), 1);
        // A first call that found something: no finding.
        assert!(run_rule("repeated-null-query", &t, &analysis(vec![])).is_empty());
        // Across a compaction it is `reissued-call-after-compaction`'s.
        let t = traj(&[
            ("call", "Grep", GREP),
            ("result", "", ""),
            ("compaction", "", ""),
            ("summary", "", ""),
            ("call", "Grep", GREP),
            ("result", "", ""),
        ]);
        assert!(run_rule("repeated-null-query", &t, &a).is_empty());
        assert_eq!(run_rule("reissued-call-after-compaction", &t, &a).len(), 1);
        // Calls whose tool the log does not name (tau-bench's few-shot logs) may be of two
        // tools: never the same call.
        let t = traj(&[
            ("call", "", ""),
            ("result", "", ""),
            ("call", "", ""),
            ("result", "", ""),
        ]);
        assert!(run_rule("repeated-null-query", &t, &a).is_empty());
        assert!(run_rule("reissued-call-after-compaction", &t, &a).is_empty());
    }

    #[test]
    fn reissued_call_after_compaction() {
        let read = r#"{"file_path": "/repo/build.rs"}"#;
        let t = traj(&[
            ("call", "Read", read),
            ("result", "", ""),
            ("call", "Bash", r#"{"command": "git add -A"}"#),
            ("result", "", ""),
            ("compaction", "", ""),
            ("summary", "", ""),
            ("call", "Read", read),
            ("result", "", ""),
            ("call", "Read", read),
            ("result", "", ""),
        ]);
        let a = analysis(vec![]);
        // Only the first re-issue, and a shell write somewhere else does not excuse it.
        let found = run_rule("reissued-call-after-compaction", &t, &a);
        assert_eq!(found.iter().map(|d| d.turn).collect::<Vec<_>>(), [6]);
        assert_eq!(found[0].labels.len(), 3);
        // Re-reading a file edited since is no sign of forgetting.
        let t = traj(&[
            ("call", "Read", read),
            ("result", "", ""),
            (
                "call",
                "Edit",
                r#"{"file_path": "/repo/build.rs", "old_string": "a", "new_string": "b"}"#,
            ),
            ("result", "", ""),
            ("compaction", "", ""),
            ("summary", "", ""),
            ("call", "Read", read),
            ("result", "", ""),
        ]);
        assert!(run_rule("reissued-call-after-compaction", &t, &a).is_empty());
        // No compaction: nothing.
        let t = traj(&[
            ("call", "Read", read),
            ("result", "", ""),
            ("call", "Read", read),
            ("result", "", ""),
        ]);
        assert!(run_rule("reissued-call-after-compaction", &t, &a).is_empty());
    }

    #[test]
    fn live_facts_at_the_end_of_the_run() {
        let t = traj(&[
            ("say", "", ""),
            ("compaction", "", ""),
            ("summary", "", ""),
            ("say", "", ""),
            ("say", "", ""),
        ]);
        let mut done = fact(Subkind::SelfCommitment, 3);
        done.status = crate::extract::Status::Discharged;
        let a = analysis(vec![
            // In the replaced turns: the compaction's audit reports it, not this rule.
            fact(Subkind::SelfCommitment, 0),
            done,
            fact(Subkind::PlanStep, 3),
            fact(Subkind::ToolRetry, 3),
        ]);
        let found = run_rule("dangling-commitment", &t, &a);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].turn, 3);
        assert!(
            found[0].message.starts_with("plan step still open"),
            "{}",
            found[0].message
        );
        // The missing counterpart: the last turn.
        assert_eq!(found[0].labels.last().unwrap().span.start, 400);
        // A deferral that answers no call is the model's.
        let retried = run_rule("ignored-retry", &t, &a);
        assert_eq!(retried.len(), 1);
        assert!(
            retried[0]
                .message
                .starts_with("`model` asked to be called again"),
            "{}",
            retried[0].message
        );
        assert_eq!(
            retried[0].labels.last().unwrap().message,
            "the run ends here: no later message to the model"
        );
        // An unbound reference, no compaction involved.
        let a = analysis(vec![fact(Subkind::Ordinal, 4)]);
        let found = run_rule("unbound-reference", &t, &a);
        assert_eq!(found.len(), 1);
        assert!(found[0].labels.is_empty());
    }
}
