//! One trajectory analysed: facts extracted and resolved, verdicts, compactable ranges, tokens.

use crate::extract::{self, calls::Calls, lexicon::Lexicon, Fact};
use crate::gate::{self, TurnVerdict, Verdict};
use crate::model::{Trajectory, Turn};
use crate::resolve;
use crate::tokens;

#[derive(Debug, Clone)]
pub struct Analysis {
    pub facts: Vec<Fact>,
    pub turns: Vec<TurnVerdict>,
    /// Inclusive turn ranges that can be compacted now.
    pub ranges: Vec<(usize, usize)>,
    /// Tokens per turn (empty when the analysis was asked to skip counting them).
    pub tokens: Vec<usize>,
    /// The probe of each compaction recorded in the log (`traj.compactions`, same order):
    /// which live facts of the replaced turns its summary dropped.
    pub audits: Vec<crate::probe::ProbeReport>,
    /// The live facts the summaries of those compactions carried and no later turn settled, as
    /// (summary turn, fact id): the summary holds them (see [`crate::probe::live_facts`]).
    pub carried: Vec<(usize, usize)>,
    /// Per fact, what settles it when compactions freeze nothing (empty for a log whose
    /// compactions left no summary): how a fact a summary carried is settled after it (see
    /// [`crate::resolve::settled_through_compactions`]).
    pub settled: Vec<Option<crate::extract::Link>>,
    /// What each call does, as the extractors worked it out (the rules ask again).
    pub calls: Calls,
}

/// Tokens of a turn: its text and its calls' names and arguments.
pub fn turn_tokens(turn: &Turn) -> usize {
    let texts = turn.segments.iter().map(|s| s.text.text.as_str());
    let calls = turn
        .calls
        .iter()
        .flat_map(|c| [c.name.as_str(), c.arguments.as_str()]);
    tokens::count_all(texts.chain(calls))
}

/// Extracts, resolves and judges one trajectory at "now" = its end.
pub fn analyze(traj: &Trajectory, bytes: &[u8], lex: &Lexicon) -> Analysis {
    analyze_with(traj, bytes, lex, true)
}

/// As `analyze`; without `count_tokens`, `tokens` stays empty (the probe and the rules do not
/// need them, and exact counts cost as much as reading the log).
pub fn analyze_with(
    traj: &Trajectory,
    bytes: &[u8],
    lex: &Lexicon,
    count_tokens: bool,
) -> Analysis {
    // Token counts need nothing from the analysis: count them alongside it.
    let (tokens, (facts, turns, ranges, audits, carried, settled, calls)) = rayon::join(
        || {
            if count_tokens {
                use rayon::prelude::*;
                traj.turns.par_iter().map(turn_tokens).collect()
            } else {
                Vec::new()
            }
        },
        || {
            let calls = Calls::new(traj, lex);
            let mut facts = extract::extract(traj, bytes, lex, &calls);
            // What a summary carried, a later turn may settle: resolved again without the
            // compactions' freeze (only where a summary can carry anything).
            let settled = if traj.compactions.iter().any(|c| c.summary_turn.is_some()) {
                resolve::settled_through_compactions(traj, bytes, lex, &calls, &facts)
            } else {
                Vec::new()
            };
            resolve::resolve(traj, bytes, lex, &calls, &mut facts, traj.turns.len());
            extract::references::out_of_cleared_results(traj, &mut facts);
            let audits = crate::probe::check_compactions(traj, &facts, &settled, lex);
            let carried = crate::probe::carried_by_summaries(traj, &audits, &settled);
            let turns = gate::verdicts(traj, &facts, &carried);
            let quiescent: Vec<bool> = turns
                .iter()
                .map(|v| v.verdict == Verdict::Quiescent)
                .collect();
            let ranges = gate::compactable_ranges(traj, &quiescent);
            (facts, turns, ranges, audits, carried, settled, calls)
        },
    );
    Analysis {
        facts,
        turns,
        ranges,
        tokens,
        audits,
        carried,
        settled,
        calls,
    }
}
