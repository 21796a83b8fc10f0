//! `reissued-call`: the first call after a compaction identical to a call whose result lies in
//! the turns the compaction replaced. A call naming a path is not reported when a write to that
//! path came in between (re-reading a file after editing it is no sign of forgetting); shell
//! commands that write somewhere unknown do not count against it, as they do for
//! `repeated-call`: they would hide nearly every re-issue in a real session. A result a clearing
//! took out of view is meant to be fetched again: not reported.

use super::calls::{call, repeats, show};
use super::{role, turn_anchor};
use crate::lint::{Cx, Draft, Label, Rule};

pub fn run(rule: &Rule, cx: &Cx, out: &mut Vec<Draft>) {
    let traj = cx.traj;
    if traj.compactions.is_empty() {
        return;
    }
    let replaced = cx.replaced_by();
    for r in repeats(cx, rule) {
        if r.changed_at_path {
            continue;
        }
        let first = call(cx, r.prev);
        let Some(rt) = first.result_turn else {
            continue;
        };
        let Some(k) = replaced.get(rt).copied().flatten() else {
            continue;
        };
        let c = &traj.compactions[k];
        // (Calling again for a result a clearing took out of view is how the agent gets it
        // back: the clearing is made to be undone so.)
        if c.clears {
            continue;
        }
        // The previous identical call is the latest one: if it lies before the boundary and
        // this one after, this is the first re-issue after the compaction.
        if !(r.prev.turn < c.turn && c.turn < r.cur.turn) {
            continue;
        }
        let again = call(cx, r.cur);
        let message = rule.message.render(|v| match v {
            "tool" => Some(again.name.clone()),
            "call" => Some(show(again)),
            "turn" => Some(r.cur.turn.to_string()),
            "first_turn" => Some(r.prev.turn.to_string()),
            "compaction_turn" => Some(c.turn.to_string()),
            _ => None,
        });
        out.push(Draft {
            turn: r.cur.turn,
            span: again.span,
            label: "issued again after the compaction".into(),
            message,
            labels: vec![
                Label {
                    span: first.span,
                    message: format!("the same call before the compaction (turn {})", r.prev.turn),
                },
                Label {
                    span: turn_anchor(traj, rt),
                    message: format!("its result (turn {rt}), replaced by the compaction"),
                },
                Label {
                    span: traj.turns[c.turn].span,
                    message: format!("the compaction (turn {})", c.turn),
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
