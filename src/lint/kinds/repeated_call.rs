//! `repeated-call`: a call re-issued with equivalent arguments after the identical call before
//! it returned a null result of the rule's subkinds, with no call in between that could change
//! the answer and no compaction in between (`reissued-call` covers those).

use super::calls::{call, repeats, show};
use super::role;
use crate::extract::{Fact, FactKind};
use crate::lint::{short, Cx, Draft, Label, Rule};
use crate::model::EventKind;
use std::collections::HashMap;

pub fn run(rule: &Rule, cx: &Cx, out: &mut Vec<Draft>) {
    let traj = cx.traj;
    // The null result each result turn holds (the first, when several).
    let mut null_at: HashMap<usize, &Fact> = HashMap::new();
    for f in &cx.analysis.facts {
        if f.kind() == FactKind::NullResult && rule.wants(f.subkind) {
            null_at.entry(f.turn).or_insert(f);
        }
    }
    if null_at.is_empty() {
        return;
    }
    // segment[t]: compaction events at or before turn t.
    let mut segment = Vec::with_capacity(traj.turns.len());
    let mut n = 0usize;
    for t in &traj.turns {
        if matches!(t.event, Some(EventKind::Compaction { .. })) {
            n += 1;
        }
        segment.push(n);
    }
    let cleared_at = traj.cleared_at();
    for r in repeats(cx, rule) {
        let first = call(cx, r.prev);
        let Some(rt) = first.result_turn else {
            continue;
        };
        let Some(null) = null_at.get(&rt) else {
            continue;
        };
        // (A result a clearing took out of view is fetched again by design.)
        let cleared = cleared_at
            .get(rt)
            .copied()
            .flatten()
            .is_some_and(|c| c < r.cur.turn);
        if r.changed || cleared || rt >= r.cur.turn || segment[r.prev.turn] != segment[r.cur.turn] {
            continue;
        }
        let again = call(cx, r.cur);
        let message = rule.message.render(|v| match v {
            "tool" => Some(again.name.clone()),
            "call" => Some(show(again)),
            "turn" => Some(r.cur.turn.to_string()),
            "first_turn" => Some(r.prev.turn.to_string()),
            "result" => Some(short(&null.text, 80)),
            _ => None,
        });
        out.push(Draft {
            turn: r.cur.turn,
            span: again.span,
            label: "the same call again".into(),
            message,
            labels: vec![
                Label {
                    span: first.span,
                    message: format!("first issued here (turn {})", r.prev.turn),
                },
                Label {
                    span: null.span,
                    message: format!("it returned nothing: {}", short(&null.text, 80)),
                },
            ],
            identity: format!(
                "{}\u{0}{}\u{0}{}",
                role(traj, r.cur.turn),
                again.name,
                super::canonical_arguments(&again.arguments, &rule.ignore_arguments)
            ),
        });
    }
}
