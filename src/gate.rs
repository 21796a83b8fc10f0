//! The verdict: which turns are live at "now", which are quiescent, and the maximal ranges a
//! compactor may replace, never splitting a tool call from its result.

use crate::extract::{Fact, FactKind};
use crate::model::Trajectory;
use crate::source::Span;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Live,
    Quiescent,
}

/// Per turn: its verdict and the ids of the facts that make it live.
#[derive(Debug, Clone)]
pub struct TurnVerdict {
    pub verdict: Verdict,
    pub reasons: Vec<usize>,
}

/// Verdicts per turn from resolved facts. A turn is live when it holds an open obligation, an
/// unincorporated null result or an unbound reference, or when it is the antecedent of a later
/// reference. A compaction's summary holds the live facts it carried (`carried`: summary turn,
/// fact id; see [`crate::probe::carried_by_summaries`]): compacting it again without them loses
/// them.
pub fn verdicts(traj: &Trajectory, facts: &[Fact], carried: &[(usize, usize)]) -> Vec<TurnVerdict> {
    let mut reasons: Vec<Vec<usize>> = vec![Vec::new(); traj.turns.len()];
    for &(s, id) in carried {
        if s < reasons.len() {
            reasons[s].push(id);
        }
    }
    for f in facts {
        if f.status.is_live() && f.turn < reasons.len() {
            reasons[f.turn].push(f.id);
        }
        if f.kind() == FactKind::Reference {
            let antecedents = f
                .antecedent
                .map(|a| a.turn)
                .into_iter()
                .chain(f.candidates.iter().copied());
            for a in antecedents {
                if a < reasons.len() && a != f.turn {
                    reasons[a].push(f.id);
                }
            }
        }
    }
    reasons
        .into_iter()
        .map(|mut r| {
            r.sort_unstable();
            r.dedup();
            TurnVerdict {
                verdict: if r.is_empty() {
                    Verdict::Quiescent
                } else {
                    Verdict::Live
                },
                reasons: r,
            }
        })
        .collect()
}

/// Why `first..=last` is no range a compactor can replace, if it is not: turns outside the
/// trajectory, a tool call split from its result (the first such pair in turn order), or a
/// record that could not be read between two of its turns or within one.
pub fn range_error(traj: &Trajectory, first: usize, last: usize) -> Option<String> {
    let n = traj.turns.len();
    if first > last || last >= n {
        return Some(format!(
            "turns {first}..{last} are no range of a trajectory that has turns 0..{}",
            n.saturating_sub(1)
        ));
    }
    let inside = |t: usize| (first..=last).contains(&t);
    let split = traj.turns.iter().enumerate().find_map(|(t, turn)| {
        let (c, _) = turn.result.as_ref()?.call?;
        (inside(c) != inside(t)).then(|| {
            format!(
                "turns {first}..{last} split the tool call of turn {c} from its result in turn \
                 {t}: a compacted range holds both or neither"
            )
        })
    });
    split
        .or_else(|| {
            let t = (first + 1..=last).find(|&t| lost_between(traj, t - 1, t))?;
            Some(format!(
                "turns {first}..{last} span a record between turns {} and {t} that could not \
                 be read: what it held is unknown",
                t - 1
            ))
        })
        .or_else(|| {
            let t = (first..=last).find(|&t| lost_within(traj, t))?;
            Some(format!(
                "turns {first}..{last} hold turn {t}, within whose bytes lies a record that could \
                 not be read: what it held is unknown"
            ))
        })
}

/// Maximal runs of turns `(first, last)` (inclusive) that can be compacted: every turn in the
/// run is quiescent (and `allowed`), and every call in it has its result in the same run, and
/// every result its call. A run is one stretch of the file, its turns in file order but for a
/// result right before its call (a SWE-agent step keeps its observation before its action):
/// where a turn lies before the one it follows (a SWE-agent run's last step, read from
/// `trajectory[]`, which the file holds before `history[]`), no run crosses, and a call and
/// result on either side stay. Its bytes run from its first byte to its last: see
/// [`range_span`]. (Not in a compressed entry, where every turn has the entry's span.)
pub fn compactable_ranges(traj: &Trajectory, allowed: &[bool]) -> Vec<(usize, usize)> {
    let n = traj.turns.len();
    let mut ok: Vec<bool> = allowed.to_vec();
    ok.resize(n, false);
    // (A turn whose own bytes hold a record that could not be read, as one message written
    // over several lines may, stays: what it held is unknown.)
    for (t, o) in ok.iter_mut().enumerate() {
        *o &= !lost_within(traj, t);
    }
    // Each turn's place in file order (ties in turn order).
    let mut by_file: Vec<usize> = (0..n).collect();
    by_file.sort_by_key(|&t| (traj.turns[t].span.start, t));
    let mut place = vec![0usize; n];
    for (k, &t) in by_file.iter().enumerate() {
        place[t] = k;
    }
    // `cuts[t]`: how many turns up to `t` lie before the turn they follow. (Not a result that
    // lies right before its call, no turn between them: SWE-agent keeps a step's observation
    // before its action. The two are still one stretch.)
    // A record lost between two turns is a cut as well: what it held is unknown, and a range
    // across it would replace it unseen.
    let mut cuts = vec![0usize; n];
    for t in 1..n {
        let back = !traj.compressed && traj.turns[t].span.start < traj.turns[t - 1].span.start;
        let answers_the_call_after_it = traj.turns[t]
            .result
            .as_ref()
            .and_then(|r| r.call)
            .is_some_and(|(c, _)| c == t - 1 && place[t] + 1 == place[t - 1]);
        let cut = back && !answers_the_call_after_it || lost_between(traj, t - 1, t);
        cuts[t] = cuts[t - 1] + usize::from(cut);
    }
    let cut_before = |t: usize| t > 0 && cuts[t] > cuts[t - 1];
    // Each (call turn, result turn) pair as the turns it spans. A pair must fall in one run:
    // a blocked turn inside it blocks both its ends, which may block more pairs in turn. Each
    // turn is blocked once and each pair found once (`Spans`), so this is O((n + pairs) log n)
    // however the blocks cascade (rounds over every pair were quadratic on staggered pairs).
    let mut pairs: Vec<(usize, usize)> = traj
        .turns
        .iter()
        .enumerate()
        .filter_map(|(t, turn)| {
            turn.result
                .as_ref()
                .and_then(|r| r.call)
                .map(|(c, _)| (c.min(t), c.max(t)))
        })
        .filter(|&(_, last)| last < n)
        .collect();
    pairs.sort_unstable();
    let mut spans = Spans::new(&pairs);
    for &(first, last) in &pairs {
        if cuts[last] > cuts[first] {
            ok[first] = false;
            ok[last] = false;
        }
    }
    let mut blocked: Vec<usize> = (0..n).filter(|&t| !ok[t]).collect();
    while let Some(x) = blocked.pop() {
        let starting_by = pairs.partition_point(|&(first, _)| first <= x);
        while let Some(k) = spans.take_reaching(starting_by, x) {
            let (first, last) = pairs[k];
            for end in [first, last] {
                if ok[end] {
                    ok[end] = false;
                    blocked.push(end);
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut start = None;
    for (i, &o) in ok.iter().enumerate() {
        if let Some(s) = start.filter(|_| !o || cut_before(i)) {
            out.push((s, i - 1));
            start = None;
        }
        if o && start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, n - 1));
    }
    out
}

/// Whether a record that could not be read lies between turns `a` and `b` in the file.
fn lost_between(traj: &Trajectory, a: usize, b: usize) -> bool {
    if traj.lost.is_empty() || traj.compressed {
        return false;
    }
    let (a, b) = (&traj.turns[a].span, &traj.turns[b].span);
    let (before, after) = if a.start <= b.start { (a, b) } else { (b, a) };
    let k = traj.lost.partition_point(|l| l.start < before.end);
    traj.lost.get(k).is_some_and(|l| l.start < after.start)
}

/// Whether a record that could not be read lies within turn `t`'s own bytes.
fn lost_within(traj: &Trajectory, t: usize) -> bool {
    if traj.lost.is_empty() || traj.compressed {
        return false;
    }
    let span = &traj.turns[t].span;
    let k = traj.lost.partition_point(|l| l.start < span.start);
    traj.lost.get(k).is_some_and(|l| l.start < span.end)
}

/// The bytes of turns `first..=last` of a range: from the first byte of any of them to the last.
pub fn range_span(traj: &Trajectory, first: usize, last: usize) -> Span {
    let turns = &traj.turns[first..=last];
    let start = turns.iter().map(|t| t.span.start).min().unwrap_or(0);
    let end = turns.iter().map(|t| t.span.end).max().unwrap_or(start);
    Span::new(start, end)
}

/// The pairs not yet blocked, sorted by first turn, as a max-tree over their last turns: which
/// pair spans a turn is a walk down the tree, not a scan.
struct Spans {
    /// Leaves from `size`: each pair's last turn + 1 (0 once taken); inner nodes the max below.
    reach: Vec<usize>,
    size: usize,
}

impl Spans {
    fn new(pairs: &[(usize, usize)]) -> Spans {
        let size = pairs.len().next_power_of_two();
        let mut reach = vec![0; 2 * size];
        for (k, &(_, last)) in pairs.iter().enumerate() {
            reach[size + k] = last + 1;
        }
        for node in (1..size).rev() {
            reach[node] = reach[2 * node].max(reach[2 * node + 1]);
        }
        Spans { reach, size }
    }

    /// Takes out one pair among the first `before` whose last turn is at or after `x`, if any.
    fn take_reaching(&mut self, before: usize, x: usize) -> Option<usize> {
        let k = self.find(1, 0, self.size, before, x)?;
        let mut node = self.size + k;
        self.reach[node] = 0;
        while node > 1 {
            node /= 2;
            self.reach[node] = self.reach[2 * node].max(self.reach[2 * node + 1]);
        }
        Some(k)
    }

    /// The leftmost pair below `node` (which covers pairs `from..to`) among the first `before`
    /// whose last turn is at or after `x`.
    fn find(&self, node: usize, from: usize, to: usize, before: usize, x: usize) -> Option<usize> {
        if from >= before || self.reach[node] <= x {
            return None;
        }
        if to - from == 1 {
            return Some(from);
        }
        let mid = (from + to) / 2;
        self.find(2 * node, from, mid, before, x)
            .or_else(|| self.find(2 * node + 1, mid, to, before, x))
    }
}

#[cfg(test)]
mod tests {
    use super::compactable_ranges;
    use crate::model::{Format, Role, ToolResult, Trajectory, Turn};
    use crate::source::Span;
    use proptest::prelude::*;

    /// `n` turns; each `(call, result)` makes turn `result` the result of a call in `call`.
    fn log(n: usize, pairs: &[(usize, usize)]) -> Trajectory {
        let mut traj = Trajectory::new(Format::Text, Span::new(0, 0));
        traj.turns = (0..n)
            .map(|_| Turn::new(Role::Assistant, Span::new(0, 0)))
            .collect();
        for &(call, result) in pairs {
            traj.turns[result].role = Role::Tool;
            traj.turns[result].result = Some(ToolResult {
                call: Some((call, 0)),
                ..ToolResult::default()
            });
        }
        traj
    }

    /// The definition, worked out the slow way: block both ends of every pair that a blocked
    /// turn splits or ends, until nothing changes; then the runs of what is left.
    fn by_definition(n: usize, pairs: &[(usize, usize)], allowed: &[bool]) -> Vec<(usize, usize)> {
        let mut ok = allowed.to_vec();
        loop {
            let mut changed = false;
            for &(c, r) in pairs {
                let (a, b) = (c.min(r), c.max(r));
                if (a..=b).any(|t| !ok[t]) && (ok[c] || ok[r]) {
                    ok[c] = false;
                    ok[r] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut out = Vec::new();
        let mut t = 0;
        while t < n {
            if ok[t] {
                let s = t;
                while t < n && ok[t] {
                    t += 1;
                }
                out.push((s, t - 1));
            } else {
                t += 1;
            }
        }
        out
    }

    #[test]
    fn a_call_and_its_result_stay_together() {
        // Calls in 1 and 4, results in 2 and 6; turn 5 is live.
        let traj = log(8, &[(1, 2), (4, 6)]);
        let mut allowed = vec![true; 8];
        allowed[5] = false;
        assert_eq!(compactable_ranges(&traj, &allowed), [(0, 3), (7, 7)]);
        assert_eq!(compactable_ranges(&traj, &[true; 8]), [(0, 7)]);
    }

    #[test]
    fn blocks_cascade_along_staggered_pairs() {
        // Each call's result comes after the next call: one live turn at the start blocks every
        // pair in turn, one at a time (quadratic when worked out in rounds over every pair).
        let n = 200_001;
        let pairs: Vec<(usize, usize)> = (0..(n - 3) / 2).map(|k| (2 * k + 1, 2 * k + 4)).collect();
        let traj = log(n, &pairs);
        let mut allowed = vec![true; n];
        allowed[2] = false;
        let ranges = compactable_ranges(&traj, &allowed);
        // Left: the turns no pair ends at, 0 and the one after the last call; the even ones from
        // 2 are results, the odd ones up to n - 4 calls, all blocked.
        assert_eq!(ranges, [(0, 0), (n - 2, n - 2)]);
    }

    #[test]
    fn a_range_is_one_stretch_of_the_file_in_order() {
        // Turns 0..=5 in file order, then 6 (the result of the call in 5) and 7 lie before
        // turn 0, as a SWE-agent run's last step read from `trajectory[]` does.
        let mut traj = log(8, &[(1, 2), (5, 6)]);
        for (t, turn) in traj.turns.iter_mut().enumerate() {
            let start = if t < 6 { 1000 + 100 * t } else { 100 * (t - 6) };
            turn.span = Span::new(start, start + 50);
        }
        assert_eq!(compactable_ranges(&traj, &[true; 8]), [(0, 4), (7, 7)]);
        // Every range's turns in file order, so its bytes run from its first turn's start to
        // its last turn's end.
        for (s, e) in compactable_ranges(&traj, &[true; 8]) {
            assert!((s..e).all(|t| traj.turns[t].span.start <= traj.turns[t + 1].span.start));
        }
        // A result right before its call in the file, no turn between them (a SWE-agent step
        // keeps its observation before its action), is one stretch with it: the last step is
        // a range of its own, its bytes from the result's start to the call's end.
        let mut traj = log(8, &[(1, 2), (6, 7)]);
        for (t, turn) in traj.turns.iter_mut().enumerate() {
            let start = match t {
                6 => 200,
                7 => 100,
                _ => 1000 + 100 * t,
            };
            turn.span = Span::new(start, start + 50);
        }
        assert_eq!(compactable_ranges(&traj, &[true; 8]), [(0, 5), (6, 7)]);
        assert_eq!(super::range_span(&traj, 6, 7), Span::new(100, 250));
        // Not when another turn lies between them: the pair is split from either side.
        traj.turns[7].span = Span::new(0, 50);
        traj.turns[6].span = Span::new(1050, 1060);
        assert_eq!(compactable_ranges(&traj, &[true; 8]), [(0, 5)]);
        // In a compressed entry every turn has the entry's span: nothing is out of order.
        traj.compressed = true;
        for turn in &mut traj.turns {
            turn.span = Span::new(0, 500);
        }
        assert_eq!(compactable_ranges(&traj, &[true; 8]), [(0, 7)]);
    }

    /// A record that could not be read between two turns splits the ranges there, and a call
    /// and result on either side of it stay; a range asked for across it is refused.
    #[test]
    fn no_range_spans_a_lost_record() {
        // Turns 100 bytes apart; calls in 1 and 5, results in 2 and 7.
        let mut traj = log(9, &[(1, 2), (5, 7)]);
        for (t, turn) in traj.turns.iter_mut().enumerate() {
            turn.span = Span::new(100 * t, 100 * t + 50);
        }
        assert_eq!(compactable_ranges(&traj, &[true; 9]), [(0, 8)]);
        // Lost between turns 3 and 4 (at 360), and between 6 and 7 (inside the pair 5..7).
        traj.lost = vec![Span::new(360, 361), Span::new(660, 661)];
        // (Turn 6, between the call and its result, no pair's end, is a range of its own.)
        assert_eq!(
            compactable_ranges(&traj, &[true; 9]),
            [(0, 3), (4, 4), (6, 6), (8, 8)]
        );
        assert_eq!(super::range_error(&traj, 0, 3), None);
        let why = super::range_error(&traj, 3, 4).unwrap();
        assert!(
            why.contains("between turns 3 and 4 that could not be read"),
            "{why}"
        );
        // Lost after the last turn: nothing to split. Within a turn's own bytes (a message
        // written over several lines, one of them broken): that turn stays, and a pair it ends
        // with it.
        traj.lost = vec![Span::new(900, 901)];
        assert_eq!(compactable_ranges(&traj, &[true; 9]), [(0, 8)]);
        traj.lost = vec![Span::new(420, 421), Span::new(520, 521)];
        assert_eq!(
            compactable_ranges(&traj, &[true; 9]),
            [(0, 3), (6, 6), (8, 8)]
        );
        let why = super::range_error(&traj, 0, 4).unwrap();
        assert!(why.contains("hold turn 4, within whose bytes"), "{why}");
    }

    proptest! {
        #[test]
        fn ranges_are_the_definition_s(
            n in 1usize..40,
            raw in prop::collection::vec((0usize..40, 0usize..40), 0..30),
            live in prop::collection::vec(0usize..40, 0..6),
        ) {
            let mut seen_result = vec![false; n];
            let pairs: Vec<(usize, usize)> = raw
                .into_iter()
                .map(|(c, r)| (c % n, r % n))
                .filter(|&(_, r)| !std::mem::replace(&mut seen_result[r], true))
                .collect();
            let mut allowed = vec![true; n];
            for t in live {
                allowed[t % n] = false;
            }
            let traj = log(n, &pairs);
            prop_assert_eq!(compactable_ranges(&traj, &allowed), by_definition(n, &pairs, &allowed));
        }
    }
}
