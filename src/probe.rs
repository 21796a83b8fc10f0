//! The contradiction probe: does a summary carry every live fact of the span it replaces?
//!
//! One implementation, used by `trajlint probe` (a candidate summary for turns `A..=B`), by
//! `annotate` (`compactions[].dropped`, for compactions already in the log: see
//! [`check_compactions`], whose results [`crate::analysis::Analysis::audits`] keeps) and by the
//! CI rule `live-span-compacted`. A compaction answers for the live facts of the turns it
//! replaced that no earlier compaction had, and for what the summaries among them carried (a
//! summary holds what it carried; see [`carried_by_summaries`]).
//!
//! # What must be carried (semantics.md, "The probe")
//!
//! The live facts of a span ([`live_facts`]) are the facts in it whose status is live (an open
//! obligation, an unincorporated null result, an unbound reference) and the references made
//! after the span whose antecedent (or a candidate antecedent) lies in it: the referents later
//! turns still use. For each, [`carried`] decides whether the summary keeps it, in **one place**
//! of the summary:
//!
//! - **obligation** (its action and object): two of the fact's content terms, or one of them with
//!   a word naming the action that the content words do not already name ("run" in "run the
//!   tests"); when the fact names an action family (`@test`, `@edit`, ...), the place must hold a
//!   word of that family or a third term. An obligation whose only term is a generic word
//!   ("careful", "sections") names too little for any summary to carry: it is dropped. A line
//!   that says it is done (with nothing still to do in it) contradicts it, and terms count only
//!   outside what a let-go word governs ("Skipping the docs update", "Update the docs: not
//!   needed"; see `probe/let_go.rs`), unless the obligation's own words let something go ("I'll drop
//!   the old index");
//! - **null result** (what was looked for, and that it was absent or failed): two of the terms of
//!   the call's query and of the failure text (paths, ids, names; never the tool's own name), in
//!   one clause with a word of absence or failure ([`ABSENCE`], and the lexicon's
//!   `null_result.not_found` patterns), or in a line that reports a search with a line listed
//!   under it that says only how the search ended ("Grepped config/ for TIMEZONE:" over "- No
//!   matches.");
//! - **reference** (the referent later turns still use): an identifier verbatim; for ordinals,
//!   descriptions and pronouns, three distinctive terms of the antecedent turn (for an unbound
//!   reference, which has no antecedent, the referring expression's own terms).
//!
//! An identifier an obligation's text names (a word mixing letters and digits: `spotter-fum.3`,
//! `HAT072`) must appear verbatim in that place: a summary that speaks of `spotter-fum.1` does
//! not carry an obligation about `spotter-fum.3`. In a null result's text identifiers count as
//! terms but are not required (a failure message's version or line number is incidental).
//!
//! A place is a unit of the summary (a line, or a sentence of a line longer than 200 bytes), with
//! the heading, list item or colon line it is listed under (whose "Completed" marks it done); for
//! null results, a clause of a unit (split at commas and brackets, where a summary lists things,
//! and at sentence ends), so that the word of absence is about the terms next to it. Words match
//! on stems ([`crate::extract::words::stem`]), case-insensitively; derived words also on their root
//! ("implementation" meets "implement"); long words also on their first seven letters
//! ("compatibility" meets "compatible"); the summary's camel-case words also as their parts
//! (`AnnotationMessageRef` holds `annotation`, `message`, `ref`).
//!
//! Terms are weighed by what they say about which fact a place is about. Outside clauses of
//! absence, a term in more than an eighth of a long summary's units (the project's name, a path
//! prefix every file shares) does not count, unless the fact has no other term. A specific term
//! (with `_`, `.` or a digit, or of 12 letters or more) that is rare in the summary counts twice:
//! one such term is enough.
//!
//! The summary is indexed once ([`Summary::new`]: key → clauses), so a probe costs the
//! summary's length plus, per fact, the postings of its terms.

use crate::analysis::Analysis;
use crate::extract::lexicon::Lexicon;
use crate::extract::words::{ends_an_abbreviation, is_stopword, stem, terms, tokens};
use crate::extract::{Fact, FactKind, Link, Status, Subkind};
use crate::model::{Compaction, Role, Trajectory};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::Serialize;

mod let_go;

/// At most this many terms of one fact take part in a match (one bit each in a `u64`).
const MAX_TERMS: usize = 64;

/// Words that say something was absent or failed, as a summary writes them ("does not exist",
/// "No files found", "failed with exit code 128", "missing", "rejected", "interrupted"). The
/// lexicon's `null_result.not_found` patterns count too.
pub const ABSENCE: &str = r"(?i)\b(?:not (?:found|exist\w*|there|present|available|installed|defined|supported|work\w*|possible|allowed|recogni[sz]ed|committed|set|pass\w*)|no such|nothing|none|no|empty|missing|absent|undefined|unknown|doesn't|does not|didn't|did not|don't|do not|isn't|is not|aren't|are not|wasn't|was not|weren't|can't|cannot|couldn't|could not|won't|hasn't|haven't|fail\w*|errors?|errored|exception|traceback|crash\w*|broken|denied|rejected|refused|interrupt\w*|cancel\w*|timed out|timeout|unavailable|invalid|unable|unsupported|blocked|abort\w*|fatal|ambiguous|unresolved|404|403|500|non-?zero|exit (?:code|status) [1-9]\d*|(?:0|zero) (?:results?|match(?:es)?|hits?|files?|items?|entries|occurrences|lines|rows|records))\b";

/// (ASCII classes, as the lexicon's: a Unicode `\b` sends the search off the fast automaton.)
fn absence_regex() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(&crate::extract::lexicon::ascii_classes(ABSENCE)).expect("absence words")
    })
}

/// Long pure-letter stems also match on their first `PREFIX` letters.
const PREFIX: usize = 7;

/// The prefix key of a long pure-letter stem.
fn prefix_key(stem: &str) -> Option<String> {
    (stem.len() > PREFIX && stem.bytes().all(|b| b.is_ascii_lowercase()))
        .then(|| format!("~{}", &stem[..PREFIX]))
}

/// The root of a derived word, as a stem: "implementation" → the stem of "implement",
/// "configuration" → the stem of "configur". None when nothing is taken off.
fn root(word: &str) -> Option<String> {
    const SUFFIXES: [&str; 7] = ["ations", "ation", "ments", "ment", "ities", "ity", "ness"];
    // (Most words come lowercased already: no copy for them.)
    let w: std::borrow::Cow<str> = if word.bytes().all(|b| b.is_ascii_lowercase()) {
        word.into()
    } else {
        word.to_lowercase().into()
    };
    let cut = SUFFIXES
        .iter()
        .find(|s| w.len() >= s.len() + 4 && w.ends_with(*s))
        .map(|s| &w[..w.len() - s.len()])?;
    let r = stem(cut);
    (r != stem(&w)).then_some(r)
}

/// The key of a verbatim word (identifiers).
fn verbatim_key(word: &str) -> String {
    format!("={}", word.to_lowercase())
}

/// Whether a verbatim word is an identifier: it mixes letters and digits, and is not a
/// number joined to a word ("2-arity", "30-second").
fn is_identifier(word: &str) -> bool {
    let number_word = word.split_once('-').is_some_and(|(n, w)| {
        n.bytes().all(|b| b.is_ascii_digit()) && w.bytes().all(|b| b.is_ascii_alphabetic())
    });
    word.len() >= 3
        && !number_word
        && word.bytes().any(|b| b.is_ascii_digit())
        && word.chars().any(|c| c.is_alphabetic())
}

/// The live facts of turns `first..=last` (inclusive, 0-based), as fact ids (= indices into
/// `facts`), ascending:
/// - facts in those turns with a live status (open, unincorporated, unbound);
/// - references made after `last` whose antecedent, or one of whose candidate antecedents, lies
///   in `first..=last`;
/// - the live facts an earlier compaction's summary in `first..=last` carried (`carried`, see
///   [`carried_by_summaries`]): the summary holds them now, and replacing it must carry them again.
///
/// For a compaction recorded in the log the statuses are those at the compaction (resolution is
/// frozen for the turns it replaced), and no reference after the boundary can point into the
/// replaced turns, so the second kind only arises for candidate spans.
pub fn live_facts(
    facts: &[Fact],
    carried: &[(usize, usize)],
    first: usize,
    last: usize,
) -> Vec<usize> {
    let mut live = LiveFacts::new(facts);
    live.carry(carried);
    live.of(facts, first, last)
}

/// The live facts each compaction's summary carried and that are still owed at the end of the
/// log, as (summary turn, fact id), in the order of the compactions: from then on the summary is
/// what holds them (see [`live_facts`]), until a later turn settles them (`settled`, see
/// `owed`).
pub fn carried_by_summaries(
    traj: &Trajectory,
    audits: &[ProbeReport],
    settled: &[Option<Link>],
) -> Vec<(usize, usize)> {
    traj.compactions
        .iter()
        .zip(audits)
        .filter_map(|(c, a)| Some((c.summary_turn?, a)))
        .flat_map(|(s, a)| a.carried().map(move |id| (s, id)))
        .filter(|&carried| owed(settled, carried, traj.turns.len()))
        .collect()
}

/// Whether what summary turn `s` carried, fact `id`, is still owed at turn `now`: no turn after
/// the summary and before `now` settled it. `settled` gives, per fact, the turn that settles it
/// when compactions do not freeze what they replaced
/// ([`crate::resolve::settled_through_compactions`]): after the summary, the agent works from
/// what the summary told it, and does the work or records the absence there.
fn owed(settled: &[Option<Link>], (s, id): (usize, usize), now: usize) -> bool {
    settled_after(settled, s, id).is_none_or(|r| r.turn >= now)
}

/// What settled fact `id` in a turn after summary turn `s`, if one did (see [`owed`]).
fn settled_after(settled: &[Option<Link>], s: usize, id: usize) -> Option<Link> {
    settled.get(id).copied().flatten().filter(|r| r.turn > s)
}

/// Of the live facts a compaction's summary (in turn `summary_turn`) carried, those a later
/// turn settled, with what settled each: the summary no longer holds them.
pub fn settled_later<'a>(
    report: &'a ProbeReport,
    summary_turn: Option<usize>,
    settled: &'a [Option<Link>],
) -> impl Iterator<Item = (usize, Link)> + 'a {
    summary_turn.into_iter().flat_map(move |s| {
        report
            .carried()
            .filter_map(move |id| Some((id, settled_after(settled, s, id)?)))
    })
}

/// The facts by the turns that make them live (`live_facts`), worked out once: each span asked
/// about costs what it holds, not a pass over every fact (a log of many compactions was
/// quadratic).
pub struct LiveFacts {
    /// (turn, id) of each fact with a live status, by turn.
    live: Vec<(usize, usize)>,
    /// (turn pointed at, id) of each reference's antecedent and candidates, by turn.
    pointed_at: Vec<(usize, usize)>,
    /// (summary turn, id) of each live fact a compaction's summary carried, by turn.
    carried: Vec<(usize, usize)>,
}

impl LiveFacts {
    pub fn new(facts: &[Fact]) -> LiveFacts {
        let mut live: Vec<(usize, usize)> = facts
            .iter()
            .enumerate()
            .filter(|(_, f)| f.status.is_live())
            .map(|(id, f)| (f.turn, id))
            .collect();
        let mut pointed_at: Vec<(usize, usize)> = facts
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind() == FactKind::Reference)
            .flat_map(|(id, f)| referent_turns(f).map(move |t| (t, id)))
            .collect();
        live.sort_unstable();
        pointed_at.sort_unstable();
        LiveFacts {
            live,
            pointed_at,
            carried: Vec::new(),
        }
    }

    /// Records facts a summary carried, as (summary turn, id): the summary turn holds them.
    pub fn carry(&mut self, carried: &[(usize, usize)]) {
        // (Compactions come in log order, so their summaries mostly do too: sorting is needed
        // only where the new entries do not follow the old, and is asked of the new alone.)
        let follows = match (self.carried.last(), carried.first()) {
            (Some(old), Some(new)) => old <= new,
            _ => true,
        };
        self.carried.extend_from_slice(carried);
        if !(follows && carried.is_sorted()) {
            self.carried.sort_unstable();
        }
    }

    /// The facts with a live status that turns `first..=last` hold, and with `refs_after` the
    /// references made after that turn whose antecedent or a candidate lies in them (unsorted,
    /// maybe repeated; not what summaries carried).
    fn in_turns<'a>(
        &'a self,
        facts: &'a [Fact],
        (first, last): (usize, usize),
        refs_after: Option<usize>,
    ) -> impl Iterator<Item = usize> + 'a {
        let refs = refs_after.map(|after| {
            within(&self.pointed_at, first, last)
                .map(|&(_, id)| id)
                .filter(move |&id| facts[id].turn > after)
        });
        within(&self.live, first, last)
            .map(|&(_, id)| id)
            .chain(refs.into_iter().flatten())
    }

    /// What the summaries in turns `first..=last` carried, as (summary turn, id).
    fn carried_in(&self, first: usize, last: usize) -> impl Iterator<Item = &(usize, usize)> {
        within(&self.carried, first, last)
    }

    /// `live_facts` of `first..=last`.
    pub fn of(&self, facts: &[Fact], first: usize, last: usize) -> Vec<usize> {
        let mut ids: Vec<usize> = self
            .in_turns(facts, (first, last), Some(last))
            .chain(self.carried_in(first, last).map(|&(_, id)| id))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// The entries of `v` (sorted by turn) for turns `first..=last`.
fn within(
    v: &[(usize, usize)],
    first: usize,
    last: usize,
) -> impl Iterator<Item = &(usize, usize)> {
    let from = v.partition_point(|&(t, _)| t < first);
    let to = v.partition_point(|&(t, _)| t <= last);
    v[from.min(to)..to].iter()
}

/// The turns a reference may point at: its antecedent and its candidates.
fn referent_turns(f: &Fact) -> impl Iterator<Item = usize> + '_ {
    f.antecedent
        .map(|a| a.turn)
        .into_iter()
        .chain(f.candidates.iter().copied())
}

/// A summary text, indexed once for every fact checked against it.
#[derive(Debug, Clone)]
pub struct Summary {
    text: String,
    /// Units (lines, or sentences of long lines): byte ranges into `text`.
    units: Vec<(usize, usize)>,
    /// Clauses of the units: byte range and unit.
    clauses: Vec<(usize, usize, u32)>,
    /// Key → the clauses it occurs in, ascending, no repeats. Keys: a stem; `~prefix` of a long
    /// stem; `@family` of an action word; `=word` of a verbatim word.
    postings: HashMap<String, Vec<u32>>,
    /// Key → the clauses (ascending) where it occurs only in words a let-go word governs
    /// ("Skipping the docs update"): there it carries no open obligation.
    let_go: HashMap<String, Vec<u32>>,
    /// Per clause: it holds a word of absence or failure.
    absence: Vec<bool>,
    /// Per unit: it says what it names is done, and nothing in it is still to do, negated or
    /// wished for ("Updated the docs.", "[DONE] Rerun the tests"), itself or by the heading or
    /// item it is listed under ("## Completed"): it carries no open obligation.
    settled: Vec<bool>,
    /// Per unit: the heading, list item or line ending in a colon it is listed under
    /// ("- Tests" over "  - run them after the fix"): a place is the unit with what it is
    /// listed under.
    parent: Vec<Option<u32>>,
    /// Per unit: the clauses listed under it that say only how the search it reports ended
    /// ("- Grepped config/ for TIMEZONE" over "  - nothing found"): each says it of what the
    /// unit names.
    absent_under: Vec<Vec<u32>>,
    /// What the lexicon gives every summary alike.
    tables: std::sync::Arc<Tables>,
}

/// The lexicon's words as a summary's index reads them, worked out once per lexicon (a log of
/// many short summaries would otherwise stem them all again for each).
#[derive(Debug)]
pub(crate) struct Tables {
    /// The stems of the words that report a search ("grepped", "searched", "found").
    search: HashSet<String>,
    /// The lexicon's action families by the stem of each of their words.
    family_stems: HashMap<String, Vec<String>>,
    /// A family's key (`@test`) by the stem of its name (`test`): a term that names a family is
    /// said by any word of it ("pytest" says "tests").
    named_families: HashMap<String, String>,
}

impl Tables {
    pub(crate) fn new(
        synonyms: &HashMap<String, Vec<String>>,
        retrieve_words: &[String],
    ) -> Tables {
        let search = SEARCH_WORDS
            .iter()
            .map(|w| stem(w))
            .chain(retrieve_words.iter().map(|w| stem(w)))
            .collect();
        // Action families by stem too: "implementation" is an `@edit` word like "implement".
        let mut family_stems: HashMap<String, Vec<String>> = HashMap::default();
        for (w, fams) in synonyms {
            family_stems
                .entry(stem(w))
                .or_default()
                .extend(fams.iter().cloned());
        }
        let named_families = family_stems
            .values()
            .flatten()
            .map(|f| (stem(f), format!("@{f}")))
            .collect();
        Tables {
            search,
            family_stems,
            named_families,
        }
    }
}

impl Summary {
    /// Indexes `text` (linear in its length).
    pub fn new(text: &str, lex: &Lexicon) -> Summary {
        let units = split_units(text);
        let tables = lex.probe_tables.clone();
        let ends_the_search = |sentence: &str| says_only_absence(sentence, &tables.search);
        let mut clauses: Vec<(usize, usize, u32)> = Vec::new();
        for (u, &(s, e)) in units.iter().enumerate() {
            for (cs, ce) in split_clauses(&text[s..e], &ends_the_search) {
                clauses.push((s + cs, s + ce, u as u32));
            }
        }
        let family_stems = &tables.family_stems;
        let mut postings: HashMap<String, Vec<u32>> = HashMap::default();
        let mut let_go: HashMap<String, Vec<u32>> = HashMap::default();
        let mut absence = Vec::with_capacity(clauses.len());
        // What let-go words govern, per unit, in `text`'s offsets (sorted, disjoint), and the
        // first of them a clause of the unit can still overlap (clauses come in order).
        let mut first_open = vec![0usize; units.len()];
        let governed: Vec<Vec<(usize, usize)>> = units
            .iter()
            .map(|&(s, e)| {
                let_go::spans(&text[s..e], lex)
                    .into_iter()
                    .map(|(a, b)| (s + a, s + b))
                    .collect()
            })
            .collect();
        for (k, &(s, e, u)) in clauses.iter().enumerate() {
            let c = k as u32;
            let clause = &text[s..e];
            // (A key is copied only the first time it is seen: most words repeat.)
            let mut add = |key: &str| match postings.get_mut(key) {
                Some(p) => {
                    if p.last() != Some(&c) {
                        p.push(c);
                    }
                }
                None => {
                    postings.insert(key.to_owned(), vec![c]);
                }
            };
            // What let-go words govern is indexed apart, to learn the keys the clause holds
            // only there.
            let spans = &governed[u as usize];
            let open = &mut first_open[u as usize];
            while spans.get(*open).is_some_and(|&(_, b)| b <= s) {
                *open += 1;
            }
            let here: Vec<(usize, usize)> = spans[*open..]
                .iter()
                .take_while(|&&(a, _)| a < e)
                .map(|&(a, b)| (a.max(s) - s, b.min(e) - s))
                .collect();
            if here.is_empty() {
                clause_keys(clause, lex, family_stems, &mut add);
            } else {
                // (Each part blanks the other's characters: words keep their places. The
                // ranges are sorted and disjoint: one walk along them.)
                let part = |inside: bool| -> String {
                    let mut k = 0;
                    clause
                        .char_indices()
                        .map(|(i, ch)| {
                            while here.get(k).is_some_and(|&(_, b)| b <= i) {
                                k += 1;
                            }
                            let governed = here.get(k).is_some_and(|&(a, _)| a <= i);
                            if governed == inside {
                                ch
                            } else {
                                ' '
                            }
                        })
                        .collect()
                };
                let mut only_there: HashSet<String> = HashSet::default();
                clause_keys(&part(true), lex, family_stems, &mut |key| {
                    only_there.insert(key.to_owned());
                    add(key);
                });
                clause_keys(&part(false), lex, family_stems, &mut |key| {
                    only_there.remove(key);
                    add(key);
                });
                for key in only_there {
                    let_go.entry(key).or_default().push(c);
                }
            }
            // ("Listed it without any errors", "it is not empty": success in negative words.)
            let pseudo = lex.pseudo.find_all(clause);
            let outside =
                |(s, e): (usize, usize)| !pseudo.iter().any(|&(ps, pe)| ps <= s && e <= pe);
            // ("Did not search config/ for TIMEZONE" says the search was not made, not that
            // it found nothing.)
            absence.push(
                absence_regex().find_iter(clause).any(|m| {
                    outside((m.start(), m.end()))
                        && !(is_auxiliary_negation(m.as_str())
                            && negates_a_search(&clause[m.end()..]))
                }) || lex.not_found.find_from(clause, 0).any(outside),
            );
        }
        let parent = list_parents(text, &units);
        // A line listed under one that reports a search ("Grepped config/ for TIMEZONE:") and
        // saying only how it ended ("- No matches."). The whole line, past its marker, says it:
        // a bare "errors" among the names a line lists is no such report; nor is "None" under
        // "Open questions about TIMEZONE:", which names no search.
        let names_a_search = |u: u32| {
            let (s, e) = units[u as usize];
            tokens(&text[s..e]).any(|(_, w)| SEARCH_VERBS.contains(&stem(w).as_str()))
        };
        let mut absent_under: Vec<Vec<u32>> = vec![Vec::new(); units.len()];
        let mut says_the_end = vec![None; units.len()];
        for (c, &(_, _, u)) in clauses.iter().enumerate() {
            let Some(p) = parent[u as usize].filter(|_| absence[c]) else {
                continue;
            };
            let (s, e) = units[u as usize];
            let line = without_list_marker(&text[s..e]).to_lowercase();
            if *says_the_end[u as usize]
                .get_or_insert_with(|| ends_the_search(&line) && names_a_search(p))
            {
                absent_under[p as usize].push(c as u32);
            }
        }
        let mut settled: Vec<bool> = Vec::with_capacity(units.len());
        for (u, &(s, e)) in units.iter().enumerate() {
            let unit = &text[s..e];
            let done = lex.done.is_match(unit)
                || lex.reported.is_match(unit)
                || lex.done_passive.is_match(unit);
            // (Parents come first: a heading's word reaches every item under it.)
            let under_done = parent[u].is_some_and(|p| settled[p as usize]);
            settled.push(
                (done || under_done) && !lex.pending.is_match(unit) && !lex.not_done.is_match(unit),
            );
        }
        Summary {
            text: text.to_string(),
            units,
            clauses,
            postings,
            let_go,
            absence,
            settled,
            parent,
            absent_under,
            tables,
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_empty(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// Whether the summary holds a term anywhere: a stem, `@family`, or `=word` verbatim.
    pub fn has_term(&self, term: &str) -> bool {
        self.postings.contains_key(term)
    }

    /// The clauses a key occurs in: by the key itself, else by its root (a derived word), else
    /// (a long stem) by its prefix.
    fn clauses_of(&self, key: &str) -> Option<&Vec<u32>> {
        self.indexed_as(key).map(|(_, p)| p)
    }

    /// The key as indexed (itself, its root or its prefix) and the clauses it occurs in.
    fn indexed_as(&self, key: &str) -> Option<(std::borrow::Cow<'_, str>, &Vec<u32>)> {
        use std::borrow::Cow;
        if let Some((k, p)) = self.postings.get_key_value(key) {
            return Some((Cow::Borrowed(k.as_str()), p));
        }
        [root(key), prefix_key(key)]
            .into_iter()
            .flatten()
            .find_map(|k| self.postings.get(&k).map(|p| (Cow::Owned(k), p)))
    }

    /// How many units a key occurs in.
    fn unit_count(&self, key: &str) -> usize {
        let Some(p) = self.clauses_of(key) else {
            return 0;
        };
        let mut n = 0;
        let mut last = u32::MAX;
        for &c in p {
            let u = self.clauses[c as usize].2;
            if u != last {
                n += 1;
                last = u;
            }
        }
        n
    }

    /// A term in more than an eighth of the units of a summary of at least 8 units.
    fn ubiquitous(&self, key: &str) -> bool {
        let n = self.units.len();
        n >= 8 && self.unit_count(key) * 8 > n
    }

    /// A specific term (`_`, `.`, a digit, or 12+ letters; every verbatim identifier) that
    /// occurs in at most 3 units or a sixteenth of them.
    fn strong(&self, key: &str) -> bool {
        let specific = key.starts_with('=')
            || key.len() >= 12
            || key
                .bytes()
                .any(|b| b == b'_' || b == b'.' || b.is_ascii_digit());
        let df = self.unit_count(key);
        specific && (df <= 3 || df * 16 <= self.units.len())
    }

    /// Masks of which `keys` each place holds: places are units, or (`absence`) clauses with a
    /// word of absence or failure. With `heed_let_go`, a key counts only where it occurs outside
    /// what a let-go word governs.
    fn places(&self, keys: &[String], absence: bool, heed_let_go: bool) -> HashMap<u32, u64> {
        let mut per: HashMap<u32, u64> = HashMap::default();
        // (For a null result: the units that name it, for the clauses listed under them.)
        let mut naming: HashMap<u32, u64> = HashMap::default();
        for (k, key) in keys.iter().take(MAX_TERMS).enumerate() {
            // A term naming an action family is said by any word of it too: "Must run pytest"
            // names the tests. (Not a family key itself, nor a verbatim one.)
            let family = self.tables.named_families.get(key.as_str());
            for key in std::iter::once(key).chain(family) {
                let Some((as_key, p)) = self.indexed_as(key) else {
                    continue;
                };
                // (Both ascending: one walk along the two.)
                let mut gone = heed_let_go
                    .then(|| self.let_go.get(as_key.as_ref()))
                    .flatten()
                    .map_or(&[][..], |g| g.as_slice())
                    .iter()
                    .peekable();
                for &c in p {
                    while gone.next_if(|&&g| g < c).is_some() {}
                    if gone.next_if_eq(&&c).is_some() {
                        continue;
                    }
                    let place = if absence {
                        let unit = self.clauses[c as usize].2;
                        if !self.absent_under[unit as usize].is_empty() {
                            *naming.entry(unit).or_default() |= 1u64 << k;
                        }
                        if !self.absence[c as usize] {
                            continue;
                        }
                        c
                    } else {
                        self.clauses[c as usize].2
                    };
                    *per.entry(place).or_default() |= 1u64 << k;
                }
            }
        }
        for (u, m) in naming {
            for &c in &self.absent_under[u as usize] {
                *per.entry(c).or_default() |= m;
            }
        }
        if !absence {
            // A unit holds what it is listed under: "- Tests" / "  - run them after the fix".
            // (Parents first: a grandparent's keys reach through a parent that holds any.)
            let mut listed: Vec<u32> = per
                .keys()
                .copied()
                .filter(|&u| self.parent[u as usize].is_some())
                .collect();
            listed.sort_unstable();
            for u in listed {
                if let Some(&m) = self.parent[u as usize].and_then(|p| per.get(&p)) {
                    *per.entry(u).or_default() |= m;
                }
            }
        }
        per
    }

    /// Where a place lies in the summary text.
    fn place(&self, p: u32, clause: bool) -> SummaryPlace {
        let (s, e) = if clause {
            let (s, e, _) = self.clauses[p as usize];
            (s, e)
        } else {
            self.units[p as usize]
        };
        SummaryPlace {
            bytes: (s, e),
            line: 1 + memchr::memchr_iter(b'\n', &self.text.as_bytes()[..s]).count(),
        }
    }
}

/// Every key a clause gives the index: of each word, its stem (and a long stem's prefix, a
/// derived word's root, the action families of each), the words of `snake_case` and `camelCase`
/// names; and each word verbatim (`=word`, and the parts of a hyphenated one).
fn clause_keys(
    clause: &str,
    lex: &Lexicon,
    family_stems: &HashMap<String, Vec<String>>,
    add: &mut impl FnMut(&str),
) {
    // (One buffer for the `@family` keys: a summary holds thousands of words.)
    let mut key = String::new();
    let mut families = |fams: &[String], add: &mut dyn FnMut(&str)| {
        for f in fams {
            key.clear();
            key.push('@');
            key.push_str(f);
            add(&key);
        }
    };
    for (_, w) in tokens(clause) {
        let lw = w.to_lowercase();
        if let Some(fams) = lex.synonyms.get(&lw) {
            families(fams, add);
        }
        let mut index = |word: &str| {
            if word.len() >= 3 && !is_stopword(word) {
                let st = stem(word);
                if let Some(p) = prefix_key(&st) {
                    add(&p);
                }
                if let Some(r) = root(word) {
                    if let Some(fams) = family_stems.get(&r) {
                        families(fams, add);
                    }
                    add(&r);
                }
                if let Some(fams) = family_stems.get(&st) {
                    families(fams, add);
                }
                // The stemmer takes off one suffix: "warnings" → "warning"; a fact's
                // "warning" is "warn".
                let again = stem(&st);
                if again != st {
                    add(&again);
                }
                add(&st);
            }
        };
        index(&lw);
        if lw.contains('_') {
            for part in lw.split('_') {
                index(part);
            }
        }
        for part in camel_parts(w) {
            index(&part);
        }
    }
    for w in verbatim_words(clause) {
        add(&verbatim_key(w));
        // ("Flights HAT214-HAT219" names both.)
        if w.contains('-') {
            for part in w.split('-').filter(|p| !p.is_empty()) {
                add(&verbatim_key(part));
            }
        }
    }
}

/// Units of a summary: lines, and the sentences of lines longer than 200 bytes.
fn split_units(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut line_start = 0;
    let b = text.as_bytes();
    let push_line = |s: usize, e: usize, out: &mut Vec<(usize, usize)>| {
        let line = &text[s..e];
        if line.trim().is_empty() {
            return;
        }
        if e - s <= 200 {
            out.push((s, e));
            return;
        }
        let lb = line.as_bytes();
        let mut us = 0;
        for i in 0..lb.len() {
            if matches!(lb[i], b'.' | b'!' | b'?' | b';')
                && lb.get(i + 1).is_some_and(|c| *c == b' ')
                && i + 1 - us >= 40
            {
                out.push((s + us, s + i + 1));
                us = i + 1;
            }
        }
        if us < lb.len() && !line[us..].trim().is_empty() {
            out.push((s + us, e));
        }
    };
    for i in memchr::memchr_iter(b'\n', b) {
        push_line(line_start, i, &mut out);
        line_start = i + 1;
    }
    if line_start < b.len() {
        push_line(line_start, b.len(), &mut out);
    }
    out
}

/// Per unit, what it is listed under: for a list item (`-`, `*`, `+`, `1.`), the nearest item
/// before it indented less, else the line ending in a colon or the heading (`#`) it follows. A
/// line of prose between ends a list. Linear: a stack of the items open.
fn list_parents(text: &str, units: &[(usize, usize)]) -> Vec<Option<u32>> {
    let mut out = Vec::with_capacity(units.len());
    // Open items and colon lines, (indent, unit); a colon line counts as indented one less.
    let mut open: Vec<(isize, u32)> = Vec::new();
    let mut heading: Option<u32> = None;
    for (u, &(s, e)) in units.iter().enumerate() {
        let u = u as u32;
        // (A sentence of a long line that does not open it is no item.)
        if s > 0 && text.as_bytes()[s - 1] != b'\n' {
            out.push(None);
            continue;
        }
        let line = &text[s..e];
        let body = line.trim_start();
        let indent = line[..line.len() - body.len()]
            .chars()
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum::<isize>();
        let item = list_marker(body).is_some();
        if body.starts_with('#') {
            out.push(None);
            open.clear();
            heading = Some(u);
        } else if item {
            while open.last().is_some_and(|&(i, _)| i >= indent) {
                open.pop();
            }
            out.push(open.last().map(|&(_, p)| p).or(heading));
            open.push((indent, u));
        } else if body.trim_end().ends_with(':') {
            out.push(heading);
            open.clear();
            open.push((indent - 1, u));
        } else {
            out.push(None);
            open.clear();
        }
    }
    out
}

/// Clauses of a unit, as byte ranges into it: split where a summary lists things (`,`, brackets),
/// so that "(open annotations, empty state, invalid project)" gives "empty state" its own
/// clause, and where a sentence ends ("Found a match in config/app.toml. Deployment failed."),
/// so that a word of absence is about its own sentence. A piece that continues the one before
/// it stays joined to it: after a comma, a subordinate or pronoun ("config.yaml, which does not
/// exist"); after a sentence end, one that says only how the search before it ended
/// (`ends_the_search`: "No matches.", "The grep returned no matches."). Never empty: a unit
/// without a split is one clause.
fn split_clauses(unit: &str, ends_the_search: &dyn Fn(&str) -> bool) -> Vec<(usize, usize)> {
    const CONTINUES: [&str; 12] = [
        "which", "that", "it", "this", "but", "so", "because", "since", "as", "and it", "and so",
        "yet",
    ];
    let b = unit.as_bytes();
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    // What ended the piece before: a comma, a bracket, a sentence end (`.`), or nothing.
    let mut after = 0u8;
    let push = |s: usize, e: usize, after: u8, out: &mut Vec<(usize, usize)>| {
        let piece = unit[s..e].trim_start().to_lowercase();
        if piece.trim().is_empty() {
            return;
        }
        let joins = match after {
            b',' => CONTINUES.iter().any(|w| {
                piece.starts_with(w)
                    && piece[w.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| !c.is_alphanumeric())
            }),
            b'.' => ends_the_search(&piece),
            _ => false,
        };
        match out.last_mut() {
            Some(last) if joins => last.1 = e,
            _ => out.push((s, e)),
        }
    };
    for (i, &c) in b.iter().enumerate() {
        if matches!(c, b',' | b'(' | b')' | b'[' | b']') {
            push(start, i, after, &mut out);
            (start, after) = (i + 1, c);
        } else if ends_a_sentence(b, i)
            && !(c == b'.' && ends_an_abbreviation(&unit[start..i], &unit[i + 1..]))
        {
            push(start, i + 1, after, &mut out);
            (start, after) = (i + 1, b'.');
        }
    }
    push(start, b.len(), after, &mut out);
    if out.is_empty() {
        out.push((0, b.len()));
    }
    out
}

/// A sentence ends at `b[i]`: `!`, `?` or `;` before a space, or `.` before a space and a
/// capital (not "e.g. the", not `app.toml`; the caller also skips "e.g. The").
fn ends_a_sentence(b: &[u8], i: usize) -> bool {
    let spaced = b.get(i + 1) == Some(&b' ');
    match b[i] {
        b'!' | b'?' | b';' => spaced,
        b'.' => spaced && b.get(i + 2).is_some_and(u8::is_ascii_uppercase),
        _ => false,
    }
}

/// Verbs (stems) of a search: a line reporting one passes what it names to the lines listed
/// under it that say only how it ended.
const SEARCH_VERBS: [&str; 18] = [
    "search", "grep", "rg", "look", "lookup", "find", "check", "scan", "query", "locat", "inspect",
    "list", "ls", "glob", "read", "fetch", "brows", "explor",
];

/// The length of the list marker opening `body` (`-`, `*`, `+`, `2.`, `2)`, each before a
/// space), if it opens with one.
fn list_marker(body: &str) -> Option<usize> {
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    let len = if body.starts_with(['-', '*', '+']) {
        1
    } else if digits > 0 && body[digits..].starts_with([')', '.']) {
        digits + 1
    } else {
        return None;
    };
    body[len..].starts_with(' ').then_some(len)
}

/// A line without its list marker ("- ", "* ", "+ ", "2. ", "2) ").
fn without_list_marker(line: &str) -> &str {
    let body = line.trim_start();
    &body[list_marker(body).unwrap_or(0)..]
}

/// Words a sentence may hold, besides words of absence and function words, and still say only
/// how the search before it ended ("The grep returned no matches.", "Nothing found.",
/// "There is no such setting.", "It doesn't exist."); the lexicon's `retrieve_words` count too.
const SEARCH_WORDS: [&str; 27] = [
    "output",
    "found",
    "result",
    "match",
    "hit",
    "entry",
    "return",
    "came",
    "back",
    "anywhere",
    "setting",
    "value",
    "occurrence",
    "reference",
    "file",
    "line",
    "such",
    "there",
    "it",
    "all",
    "turned",
    "exist",
    "defined",
    "set",
    "present",
    "available",
    "installed",
];

/// "did not", "haven't": a negation of the verb after it ("No search results" negates none).
fn is_auxiliary_negation(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    w.ends_with("n't") || w.ends_with(" not") || w == "cannot"
}

/// Whether the words after a negation ("did not", "haven't") are a search it negates: "did not
/// search", "haven't yet checked", "didn't run grep". (Not "did not find": that is the absence.)
fn negates_a_search(after: &str) -> bool {
    const SEARCHES: [&str; 27] = [
        "search",
        "searched",
        "searching",
        "look",
        "looked",
        "looking",
        "check",
        "checked",
        "checking",
        "grep",
        "grepped",
        "grepping",
        "query",
        "queried",
        "querying",
        "scan",
        "scanned",
        "scanning",
        "inspect",
        "inspected",
        "examine",
        "examined",
        "run",
        "ran",
        "running",
        "try",
        "tried",
    ];
    let mut words = after
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase);
    let mut next = words.next().unwrap_or_default();
    if matches!(
        next.as_str(),
        "yet" | "even" | "actually" | "really" | "get" | "be" | "been"
    ) {
        next = words.next().unwrap_or_default();
    }
    SEARCHES.contains(&next.as_str())
}

/// A sentence that holds a word of absence and, in at most eight words, nothing but words of
/// absence, function words and `search` words (stems): it says how the sentence before it
/// ended. ("Deployment failed." names something else, as does "Nothing else to report.")
fn says_only_absence(sentence: &str, search: &HashSet<String>) -> bool {
    let lower = sentence.to_lowercase();
    let mut rest = lower.clone();
    let mut any = false;
    for m in absence_regex().find_iter(&lower) {
        any = true;
        rest.replace_range(m.range(), &" ".repeat(m.len()));
    }
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    any && words(&lower).len() <= 8
        && words(&rest).iter().all(|w| {
            !matches!(w.as_str(), "else" | "other" | "another" | "otherwise")
                && (is_stopword(w) || search.contains(&stem(w)))
        })
}

/// Words as written, with `-`, `.`, `_` and `#` kept inside them (UUIDs, `HAT-072`, `v1.5.0`,
/// `spotter-fum.3`).
fn verbatim_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '#')))
        .map(|w| w.trim_matches(|c: char| matches!(c, '-' | '.')))
        .filter(|w| !w.is_empty())
}

/// The parts of a camel-case word (`AnnotationMessageRef` → annotation, message, ref); none for
/// a word without an inner capital.
fn camel_parts(word: &str) -> Vec<String> {
    // (Most words have no inner capital: known without collecting their characters.)
    if !word.chars().skip(1).any(char::is_uppercase) {
        return Vec::new();
    }
    let chars: Vec<char> = word.chars().collect();
    if !chars.iter().skip(1).any(|c| c.is_uppercase()) || !chars.iter().any(|c| c.is_lowercase()) {
        return Vec::new();
    }
    let mut parts = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let boundary = i > 0
            && c.is_uppercase()
            && (chars[i - 1].is_lowercase() || chars.get(i + 1).is_some_and(|n| n.is_lowercase()));
        if boundary && !cur.is_empty() {
            parts.push(std::mem::take(&mut cur).to_lowercase());
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        parts.push(cur.to_lowercase());
    }
    parts
}

/// The verdict on one fact.
#[derive(Debug, Clone, Serialize)]
pub struct FactCheck {
    /// The fact's id.
    pub fact: usize,
    pub carried: bool,
    /// Why, in one sentence.
    pub why: String,
    /// The terms that had to be carried: stems, `@family` for action families, `=word` for
    /// identifiers verbatim.
    pub wanted: Vec<String>,
    /// Those the summary holds at the best place.
    pub found: Vec<String>,
    /// Where in the summary text (byte range, and 1-based line): the place that carries the
    /// fact, or the best place found when it is dropped.
    pub at: Option<SummaryPlace>,
}

/// A place in the summary text.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SummaryPlace {
    /// Byte range in the summary text.
    pub bytes: (usize, usize),
    /// 1-based line in the summary text.
    pub line: usize,
}

/// The probe of one summary against one span.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeReport {
    /// The span probed, inclusive.
    pub turns: (usize, usize),
    /// The summary turn, for a compaction in the log.
    pub summary_turn: Option<usize>,
    /// The summary could not be read (encrypted, absent): nothing can be shown carried.
    pub opaque: bool,
    /// Every live fact of the span, in id order, with its verdict.
    pub checked: Vec<FactCheck>,
    /// The ids of the facts the summary does not carry.
    pub dropped: Vec<usize>,
}

impl ProbeReport {
    /// Every live fact is carried.
    pub fn passed(&self) -> bool {
        self.dropped.is_empty()
    }

    /// The ids of the facts the summary carries.
    pub fn carried(&self) -> impl Iterator<Item = usize> + '_ {
        self.checked.iter().filter(|k| k.carried).map(|k| k.fact)
    }

    /// The verdict on one fact, if it was checked.
    pub fn check_of(&self, fact: usize) -> Option<&FactCheck> {
        self.checked.iter().find(|c| c.fact == fact)
    }
}

/// Probes `summary` against the live facts of turns `first..=last` of an analysed trajectory.
pub fn probe_span(
    traj: &Trajectory,
    analysis: &Analysis,
    (first, last): (usize, usize),
    summary: &Summary,
    lex: &Lexicon,
) -> ProbeReport {
    let ids = owed_in(analysis, first, last);
    probe_facts(traj, &analysis.facts, ids, (first, last), summary, lex)
}

/// The live facts a summary of turns `first..=last` must carry now ([`live_facts`]), but for a
/// fact a compaction froze open whose summary carried it and that a later turn then settled: the
/// agent did it from the summary, and a new summary owes it no more. (One the summary dropped
/// stays owed however it was settled later: redoing it is the cost of the drop.)
pub fn owed_in(analysis: &Analysis, first: usize, last: usize) -> Vec<usize> {
    // (Settled after the summary that carried it: `settled_after`, as for the summary itself.)
    let carried_then_settled: HashSet<usize> = analysis
        .audits
        .iter()
        .filter_map(|a| Some((a.summary_turn?, a)))
        .flat_map(|(s, a)| a.carried().map(move |id| (s, id)))
        .filter(|&(s, id)| settled_after(&analysis.settled, s, id).is_some())
        .map(|(_, id)| id)
        .collect();
    let carried_then_settled = |id: &usize| carried_then_settled.contains(id);
    live_facts(&analysis.facts, &analysis.carried, first, last)
        .into_iter()
        .filter(|id| !carried_then_settled(id))
        .collect()
}

/// Probes `summary` against the facts `ids`, the live facts of turns `first..=last`.
fn probe_facts(
    traj: &Trajectory,
    facts: &[Fact],
    ids: Vec<usize>,
    (first, last): (usize, usize),
    summary: &Summary,
    lex: &Lexicon,
) -> ProbeReport {
    let checked: Vec<FactCheck> = ids
        .iter()
        .map(|&id| {
            let mut c = carried(&facts[id], traj, (first, last), summary, lex);
            c.fact = id;
            c
        })
        .collect();
    let dropped = checked
        .iter()
        .filter(|c| !c.carried)
        .map(|c| c.fact)
        .collect();
    ProbeReport {
        turns: (first, last),
        summary_turn: None,
        opaque: false,
        checked,
        dropped,
    }
}

/// The text of a summary turn: its segments joined by blank lines.
pub fn summary_text(traj: &Trajectory, turn: usize) -> String {
    traj.turns.get(turn).map_or_else(String::new, |t| {
        t.segments
            .iter()
            .map(|s| s.text.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    })
}

/// Probes a compaction recorded in the log: the summary turn's text against the live facts of
/// the turns it replaced (statuses as of the compaction). An opaque or missing summary carries
/// nothing: every live fact is dropped. Alone: [`check_compactions`] probes a log's compactions
/// together, each knowing what the earlier ones replaced and what their summaries carried.
pub fn check_compaction(
    traj: &Trajectory,
    facts: &[Fact],
    compaction: &Compaction,
    lex: &Lexicon,
) -> ProbeReport {
    check_compaction_with(
        traj,
        facts,
        &LiveFacts::new(facts),
        compaction,
        &[compaction.replaced],
        &traj.cleared_at(),
        &[],
        lex,
    )
}

/// How many of the facts earlier summaries carried a compaction that replaces them checks again
/// (the latest): enough for any real log, a bound for one that compacts thousands of times with
/// facts that never settle. Those past it are reported dropped, once, with that reason.
const CARRIED_FORWARD: usize = 256;

/// `check_compaction`, with the facts' index worked out once for all of a log's compactions;
/// `in_view` holds the runs of its replaced turns that no earlier compaction replaced, `settled`
/// what settles the facts earlier summaries carried (see [`owed`]).
#[allow(clippy::too_many_arguments)]
fn check_compaction_with(
    traj: &Trajectory,
    facts: &[Fact],
    live: &LiveFacts,
    compaction: &Compaction,
    in_view: &[(usize, usize)],
    cleared_at: &[Option<usize>],
    settled: &[Option<Link>],
    lex: &Lexicon,
) -> ProbeReport {
    let (first, last) = compaction.replaced;
    // A clearing drops what its results held; a reference to one made after it is
    // `reference-into-compacted-span`'s, and one made before it was read while the result was
    // in view. What an earlier clearing took, a later compaction could not see to carry.
    let refs_after = (!compaction.clears).then_some(last);
    let mut ids: Vec<usize> = in_view
        .iter()
        .flat_map(|&run| live.in_turns(facts, run, refs_after))
        .collect();
    // What earlier summaries in view carried and is still owed, the latest `CARRIED_FORWARD` of
    // it: a log of thousands of compactions whose facts never settle would check every one at
    // each.
    let mut forward: Vec<usize> = in_view
        .iter()
        .flat_map(|&(a, b)| live.carried_in(a, b))
        .filter(|&&carried| owed(settled, carried, compaction.turn))
        .map(|&(_, id)| id)
        .collect();
    forward.sort_unstable();
    forward.dedup();
    let (unchecked, checked) = forward.split_at(forward.len().saturating_sub(CARRIED_FORWARD));
    ids.extend(checked);
    ids.sort_unstable();
    ids.dedup();
    ids.retain(|&id| {
        cleared_at
            .get(facts[id].turn)
            .copied()
            .flatten()
            .is_none_or(|c| c >= compaction.turn)
    });
    let text = match compaction.summary_turn {
        Some(t) if !compaction.opaque => summary_text(traj, t),
        _ => String::new(),
    };
    if text.trim().is_empty() {
        ids.extend(unchecked);
        ids.sort_unstable();
        let why = if compaction.clears {
            "dropped: the clearing left a placeholder in place of the result"
        } else if compaction.opaque {
            "dropped: the summary is not readable (opaque), so nothing can be shown carried"
        } else {
            "dropped: the compaction left no readable summary"
        };
        return ProbeReport {
            turns: (first, last),
            summary_turn: compaction.summary_turn,
            // (A clearing is meant to carry nothing: what it dropped is known, not unknowable.)
            opaque: !compaction.clears,
            checked: ids
                .iter()
                .map(|&id| FactCheck {
                    fact: id,
                    carried: false,
                    why: why.to_string(),
                    wanted: Vec::new(),
                    found: Vec::new(),
                    at: None,
                })
                .collect(),
            dropped: ids,
        };
    }
    let summary = Summary::new(&text, lex);
    let mut report = probe_facts(traj, facts, ids, (first, last), &summary, lex);
    report.summary_turn = compaction.summary_turn;
    // Past the bound, said so once: dropped here, they are not carried on to be checked again.
    if !unchecked.is_empty() {
        report.checked.extend(unchecked.iter().map(|&id| FactCheck {
            fact: id,
            carried: false,
            why: format!(
                "dropped: not checked; the summaries this compaction replaced carried more than \
                 {CARRIED_FORWARD} live facts, and only the latest are checked again"
            ),
            wanted: Vec::new(),
            found: Vec::new(),
            at: None,
        }));
        report.checked.sort_by_key(|c| c.fact);
        report.dropped = report
            .checked
            .iter()
            .filter(|c| !c.carried)
            .map(|c| c.fact)
            .collect();
    }
    report
}

/// Probes every compaction of the trajectory, in order; `settled` says what settles the facts
/// a summary carried after it (see `owed`; empty: nothing does).
pub fn check_compactions(
    traj: &Trajectory,
    facts: &[Fact],
    settled: &[Option<Link>],
    lex: &Lexicon,
) -> Vec<ProbeReport> {
    if traj.compactions.is_empty() {
        return Vec::new();
    }
    let mut live = LiveFacts::new(facts);
    let cleared_at = traj.cleared_at();
    // What a summary carried, it holds: a later compaction that replaces it must carry that too.
    // What an earlier compaction replaced was out of view already: a later one whose range
    // covers it again replaced only the rest (and that summary, with what it carried).
    let mut earlier = crate::marks::Marks::new(traj.turns.len());
    traj.compactions
        .iter()
        .map(|c| {
            let in_view = earlier.mark(c.replaced.0, c.replaced.1);
            let report =
                check_compaction_with(traj, facts, &live, c, &in_view, &cleared_at, settled, lex);
            if let Some(s) = c.summary_turn {
                let carried: Vec<(usize, usize)> = report.carried().map(|id| (s, id)).collect();
                live.carry(&carried);
            }
            report
        })
        .collect()
}

/// What one fact needs from one place of the summary.
struct Wanted {
    /// Keys, at most [`MAX_TERMS`]: content terms first, then ids, then families.
    keys: Vec<String>,
    /// Per key: counts twice.
    strong: Vec<bool>,
    /// Per key: a family the fact's own content terms do not already belong to (the action is
    /// named by another word: "run" in "run the tests").
    independent: Vec<bool>,
    /// Index ranges of ids and families in `keys`.
    ids: std::ops::Range<usize>,
    families: std::ops::Range<usize>,
    /// Score a place needs.
    need: usize,
    /// Obligation rules: an independent action counts one towards `need`; a fact naming an
    /// action needs one (or a term more than `need`).
    obligation: bool,
    /// Places are clauses with a word of absence.
    absence: bool,
    /// An obligation's terms count only outside what a let-go word governs (unless its own
    /// words let something go: "I'll drop the old index").
    heed_let_go: bool,
    /// A place can carry the fact at all.
    reachable: bool,
}

/// What a fact asks of a place in the summary.
#[derive(Clone, Copy, PartialEq)]
enum Asks {
    /// An obligation: its object, and its action unless named more fully.
    Obligation,
    /// A null result: what was looked for, in a clause with a word of absence or failure.
    Absence,
    /// A referent: its words, in one place.
    Referent,
}

impl Wanted {
    /// Builds the wanted keys from content terms, identifiers and families; drops terms the
    /// summary uses everywhere unless nothing else is left.
    fn new(
        summary: &Summary,
        asks: Asks,
        content: Vec<String>,
        ids: Vec<String>,
        families: Vec<String>,
        base_need: usize,
    ) -> Wanted {
        let (absence, obligation) = (asks == Asks::Absence, asks == Asks::Obligation);
        let mut content: Vec<String> = dedup(content);
        // In a clause with a word of absence, even a common term is about the absence; in a
        // unit, a term the summary uses everywhere says nothing.
        if !absence {
            let distinctive: Vec<String> = content
                .iter()
                .filter(|t| !summary.ubiquitous(t))
                .cloned()
                .collect();
            if !distinctive.is_empty() {
                content = distinctive;
            }
        }
        // (The families' names, not their `@` keys: no copy per family per fact.)
        let own_families: Vec<&str> = content
            .iter()
            .filter_map(|t| summary.tables.family_stems.get(t))
            .flatten()
            .map(String::as_str)
            .collect();
        let ids = dedup(ids);
        let families = dedup(families);
        let room = MAX_TERMS - ids.len().min(8) - families.len().min(8);
        content.truncate(room);
        let mut keys = content;
        let i0 = keys.len();
        keys.extend(ids.into_iter().take(8));
        let f0 = keys.len();
        keys.extend(families.into_iter().take(8));
        let strong: Vec<bool> = keys
            .iter()
            .enumerate()
            .map(|(k, key)| k < f0 && summary.strong(key))
            .collect();
        let independent: Vec<bool> = keys
            .iter()
            .enumerate()
            .map(|(k, key)| {
                k >= f0
                    && !key
                        .strip_prefix('@')
                        .is_some_and(|f| own_families.contains(&f))
            })
            .collect();
        let max_score: usize = (0..f0).map(|k| if strong[k] { 2 } else { 1 }).sum();
        let any_independent = independent.iter().any(|&b| b);
        let (need, reachable) = if obligation {
            (
                base_need,
                max_score >= 1 && max_score + usize::from(any_independent) >= base_need,
            )
        } else {
            let need = base_need.min(max_score);
            (need, need > 0)
        };
        Wanted {
            need,
            obligation,
            ids: i0..f0,
            families: f0..keys.len(),
            keys,
            strong,
            independent,
            absence,
            reachable,
            heed_let_go: false,
        }
    }

    /// The score of a place, and whether it carries the fact.
    fn judge(&self, mask: u64) -> (usize, bool) {
        let bit = |k: usize| mask & (1u64 << k) != 0;
        let score: usize = (0..self.families.start)
            .filter(|&k| bit(k))
            .map(|k| if self.strong[k] { 2 } else { 1 })
            .sum();
        let ids_ok = self.ids.is_empty() || self.ids.clone().any(bit);
        let ok = if self.obligation {
            let action = self.families.clone().any(bit);
            let independent = self.families.clone().any(|k| bit(k) && self.independent[k]);
            score >= 1
                && score + usize::from(independent) >= self.need
                && (self.families.is_empty() || action || score > self.need)
        } else {
            score >= self.need
        };
        (score, self.reachable && ok && ids_ok)
    }

    /// The best place: one that carries the fact if any (highest score, earliest), else the
    /// highest-scoring one.
    fn best(&self, summary: &Summary) -> Option<(u32, u64, bool)> {
        summary
            .places(&self.keys, self.absence, self.heed_let_go)
            .into_iter()
            // (An open obligation is not carried by a line that says it is done.)
            .filter(|&(p, _)| !(self.obligation && summary.settled[p as usize]))
            .map(|(p, m)| {
                let (score, ok) = self.judge(m);
                (p, m, ok, score)
            })
            .max_by(|a, b| (a.2, a.3).cmp(&(b.2, b.3)).then(b.0.cmp(&a.0)))
            .map(|(p, m, ok, _)| (p, m, ok))
    }

    /// The line that names the fact best (its terms, with no word of absence needed): for a
    /// null result no clause carries.
    fn named_only(&self, summary: &Summary) -> Option<(u32, u64)> {
        summary
            .places(&self.keys, false, false)
            .into_iter()
            .filter(|&(_, m)| self.judge(m).1)
            .max_by_key(|&(p, m)| (m.count_ones(), std::cmp::Reverse(p)))
    }

    /// The first unit that would carry the obligation but says it is done (`Summary::settled`).
    fn said_done(&self, summary: &Summary) -> Option<(u32, u64)> {
        summary
            .places(&self.keys, false, self.heed_let_go)
            .into_iter()
            .filter(|&(p, m)| summary.settled[p as usize] && self.judge(m).1)
            .min_by_key(|&(p, _)| p)
    }

    /// The first unit that would carry the obligation but for what its let-go words govern
    /// ("Skipping the docs update").
    fn let_go(&self, summary: &Summary) -> Option<(u32, u64)> {
        summary
            .places(&self.keys, false, false)
            .into_iter()
            .filter(|&(_, m)| self.judge(m).1)
            .min_by_key(|&(p, _)| p)
    }

    fn found(&self, mask: u64) -> Vec<String> {
        self.keys
            .iter()
            .enumerate()
            .filter(|(k, _)| mask & (1u64 << k) != 0)
            .map(|(_, t)| t.clone())
            .collect()
    }

    fn content(&self) -> &[String] {
        &self.keys[..self.ids.start]
    }
}

/// The obligation's own let-go words govern one of its content terms.
fn lets_itself_go(fact: &Fact, content: &[String], lex: &Lexicon) -> bool {
    let_go::reach(&fact.text, lex).iter().any(|&(s, e)| {
        terms(&fact.text[s..e])
            .iter()
            .any(|t| content.iter().any(|c| c == t))
    })
}

/// `v` without repeats, in first-seen order. (A fact's terms are few: a look along those kept
/// beats hashing a copy of each. Past `DEDUP_BY_HASH`, a set.)
fn dedup(v: Vec<String>) -> Vec<String> {
    const DEDUP_BY_HASH: usize = 32;
    if v.len() > DEDUP_BY_HASH {
        let mut seen = HashSet::default();
        return v.into_iter().filter(|t| seen.insert(t.clone())).collect();
    }
    let mut out: Vec<String> = Vec::with_capacity(v.len());
    for t in v {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// Identifiers (words mixing letters and digits) in a fact's own text, as `=word` keys.
fn text_ids(text: &str) -> Vec<String> {
    verbatim_words(text)
        .filter(|w| is_identifier(w))
        .map(verbatim_key)
        .collect()
}

fn quote(terms: &[String]) -> String {
    if terms.is_empty() {
        return "nothing".into();
    }
    // (Written into one string: a log of many compactions quotes hundreds of thousands.)
    let mut out = String::with_capacity(terms.iter().map(|t| t.len() + 4).sum());
    for (k, t) in terms.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        out.push('`');
        out.push_str(t.trim_start_matches('='));
        out.push('`');
    }
    out
}

/// Whether `summary` carries `fact`, and why. See the module documentation for the rule per kind.
pub fn carried(
    fact: &Fact,
    traj: &Trajectory,
    (first, last): (usize, usize),
    summary: &Summary,
    lex: &Lexicon,
) -> FactCheck {
    let (mut wanted, what) = match fact.kind() {
        FactKind::Obligation => {
            let (content, families) = split_terms(&fact.terms);
            // An obligation naming many things is carried only by a place that names more of
            // them ("flash" and "check" do not carry "check if Phoenix.Component's flash
            // helpers are available").
            let need = if content.len() >= 5 { 3 } else { 2 };
            (
                Wanted::new(
                    summary,
                    Asks::Obligation,
                    content,
                    text_ids(&fact.text),
                    families,
                    need,
                ),
                "obligation",
            )
        }
        FactKind::NullResult => {
            // Identifiers in a failure message are often incidental (a version, a line): they
            // count, but are not required.
            let mut query = null_query(fact, traj);
            query.extend(text_ids(&fact.text));
            (
                Wanted::new(summary, Asks::Absence, query, Vec::new(), Vec::new(), 2),
                "null result",
            )
        }
        FactKind::Reference => {
            if fact.subkind == Subkind::Identifier {
                return identifier(fact, summary);
            }
            // What the replaced turns said of the referent: a candidate that stays in view
            // needs no summary (its words in one carry nothing of the turns replaced).
            let replaced: Vec<usize> = referent_turns(fact)
                .filter(|t| (first..=last).contains(t))
                .collect();
            let source = match fact.status {
                Status::Bound if !replaced.is_empty() => replaced
                    .into_iter()
                    .flat_map(|t| antecedent_terms(traj, t))
                    .collect(),
                Status::Bound => referent_turns(fact)
                    .flat_map(|t| antecedent_terms(traj, t))
                    .collect(),
                _ => terms(&fact.text),
            };
            (
                Wanted::new(summary, Asks::Referent, source, Vec::new(), Vec::new(), 3),
                "referent",
            )
        }
    };
    // (Unless the obligation's own words let its object go: its action is the let-go word, "I'll
    // drop the old index"; not "I'll update the docs, no need to wait for CI".)
    wanted.heed_let_go = wanted.obligation
        && !summary.let_go.is_empty()
        && !lets_itself_go(fact, wanted.content(), lex);
    // (Each verdict below takes the keys it was judged on, once its reason is written.)
    if !wanted.reachable {
        return FactCheck {
            fact: fact.id,
            carried: false,
            why: format!(
                "dropped: the {what} names too little for a summary to carry ({})",
                quote(&wanted.keys)
            ),
            wanted: std::mem::take(&mut wanted.keys),
            found: Vec::new(),
            at: None,
        };
    }
    let best = wanted.best(summary);
    let (carried, found, at) = match best {
        Some((p, m, ok)) => (ok, wanted.found(m), Some(summary.place(p, wanted.absence))),
        None => (false, Vec::new(), None),
    };
    // A place that names it but does not carry it: a line that would carry the open obligation
    // but says it is done (it contradicts it), one that names it only where it lets it go, or
    // one that names a null result but never says it was absent or failed. That line is what
    // the summary holds of it.
    let named_but = (!carried)
        .then(|| {
            let said_done = || wanted.obligation.then(|| wanted.said_done(summary)).flatten();
            let let_go = || wanted.heed_let_go.then(|| wanted.let_go(summary)).flatten();
            let named = || wanted.absence.then(|| wanted.named_only(summary)).flatten();
            said_done()
                .map(|pm| (pm, "in a line that says it is done, but it is still open"))
                .or_else(|| {
                    let_go().map(|pm| {
                        (
                            pm,
                            "only where it lets it go (skipped, not needed, won't do), but it is still open",
                        )
                    })
                })
                .or_else(|| named().map(|pm| (pm, "but never says it was absent or failed")))
        })
        .flatten();
    if let Some(((p, m), how)) = named_but {
        let found = wanted.found(m);
        return FactCheck {
            fact: fact.id,
            carried: false,
            why: format!("dropped: the summary names it ({}) {how}", quote(&found)),
            wanted: std::mem::take(&mut wanted.keys),
            found,
            at: Some(summary.place(p, false)),
        };
    }
    let why = if carried {
        if wanted.absence {
            format!(
                "carried: {} with a word of absence or failure",
                quote(&found)
            )
        } else {
            format!("carried: {} in one place", quote(&found))
        }
    } else {
        dropped_why(&wanted, &found, what)
    };
    FactCheck {
        fact: fact.id,
        carried,
        why,
        wanted: wanted.keys,
        found,
        at,
    }
}

/// Why nothing carries the fact, as precisely as the index can say.
fn dropped_why(wanted: &Wanted, found: &[String], what: &str) -> String {
    if !wanted.ids.is_empty() && found.iter().all(|f| !f.starts_with('=')) {
        let ids: Vec<String> = wanted.keys[wanted.ids.clone()].to_vec();
        if !found.is_empty() {
            return format!(
                "dropped: {} appear together but not the identifier {}",
                quote(found),
                quote(&ids)
            );
        }
    }
    let place = if wanted.absence {
        "no clause of the summary holds"
    } else {
        "no place in the summary holds"
    };
    let with = if wanted.absence {
        " with a word of absence or failure"
    } else if !wanted.families.is_empty() {
        " with its action"
    } else {
        ""
    };
    format!(
        "dropped: {place} enough of the {what}'s terms {}{with} (best: {})",
        quote(wanted.content()),
        quote(found)
    )
}

/// An identifier reference: the identifier verbatim, anywhere in the summary.
fn identifier(fact: &Fact, summary: &Summary) -> FactCheck {
    let id = fact.text.trim();
    let key = verbatim_key(id);
    let at = summary
        .postings
        .get(&key)
        .and_then(|p| p.first())
        .map(|&c| summary.place(c, true));
    let ok = at.is_some();
    FactCheck {
        fact: fact.id,
        carried: ok,
        why: if ok {
            format!("carried: the identifier `{id}` is in the summary")
        } else {
            format!("dropped: the identifier `{id}` is not in the summary")
        },
        wanted: vec![key.clone()],
        found: if ok { vec![key] } else { Vec::new() },
        at,
    }
}

/// Words that say how or when, not what: a summary that shares one of them with a fact says
/// nothing about the fact. Compared as stems.
const FILLER: &str = "since though although because while whether actually really properly
 carefully correctly instead rather quite maybe perhaps probably already either neither another
 through across around without within also sure make makes making happen happens thing things
 something anything everything way ways bit lot more less much many few first last now then
 again still just even only";

fn is_filler(term: &str) -> bool {
    static SET: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    SET.get_or_init(|| FILLER.split_whitespace().map(stem).collect())
        .contains(term)
}

/// Splits a fact's terms into content terms and action families (`@…`). Other marked terms
/// (`!word`: a failure message's word, also present unmarked) and filler words are left out.
fn split_terms(terms: &[String]) -> (Vec<String>, Vec<String>) {
    terms
        .iter()
        .filter(|t| !t.starts_with('!') && !is_filler(t))
        .cloned()
        .partition(|t| !t.starts_with('@'))
}

/// What a null result looked for, and what failed: its terms less the tool's own name and less
/// words of absence (they are the cue, not the object).
fn null_query(fact: &Fact, traj: &Trajectory) -> Vec<String> {
    let tool_terms: HashSet<String> = fact
        .tool
        .iter()
        .chain(traj.call_of(fact.turn).map(|c| &c.name))
        .flat_map(|n| {
            crate::extract::null_results::split_camel(n)
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(stem)
                .collect::<Vec<_>>()
        })
        .collect();
    let re = absence_regex();
    fact.terms
        .iter()
        .filter(|t| {
            !t.starts_with(['@', '!'])
                && !tool_terms.contains(t.as_str())
                && !re.is_match(t)
                && !is_filler(t)
        })
        .cloned()
        .collect()
}

/// Distinctive terms of an antecedent turn: the first content terms of at least 4 characters in
/// the head of its text (and its calls' arguments), at most 48.
fn antecedent_terms(traj: &Trajectory, turn: usize) -> Vec<String> {
    let Some(t) = traj.turns.get(turn) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::default();
    let mut push = |w: String, out: &mut Vec<String>| {
        if out.len() < 48 && w.len() >= 4 && seen.insert(w.clone()) {
            out.push(w);
        }
    };
    for seg in &t.segments {
        // Only the head of a long text: what a reference points at is rarely deep inside.
        let text = &seg.text.text;
        let mut end = text.len().min(4000);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        for w in terms(&text[..end]) {
            push(w, &mut out);
        }
    }
    if t.role != Role::Tool {
        for c in &t.calls {
            for w in terms(&c.arguments) {
                push(w, &mut out);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {

    proptest::proptest! {
        /// The index answers as the definition, read over every fact, does.
        #[test]
        fn live_facts_by_index_are_the_definition_s(
            raw in proptest::collection::vec(
                (0usize..20, 0usize..10, proptest::option::of(0usize..20),
                 proptest::collection::vec(0usize..20, 0..3)),
                0..30,
            ),
            first in 0usize..20,
            len in 0usize..8,
            carried in proptest::collection::vec((0usize..20, 0usize..30), 0..5),
        ) {
            use crate::extract::{Fact, Status, Subkind, Link};
            use crate::source::Span;
            let kinds = [Subkind::SelfCommitment, Subkind::NotFound, Subkind::Anaphoric, Subkind::Pronoun];
            let statuses = [Status::Open, Status::Discharged, Status::Unincorporated,
                Status::Incorporated, Status::Bound, Status::Unbound];
            let mut facts: Vec<Fact> = raw
                .into_iter()
                .map(|(turn, k, antecedent, candidates)| {
                    let mut f = Fact::new(kinds[k % 4], turn, Span::new(0, 0), String::new());
                    f.status = statuses[k % 6];
                    f.antecedent = antecedent.map(|turn| Link { turn, bytes: Span::new(0, 0) });
                    f.candidates = candidates;
                    f
                })
                .collect();
            facts.sort_by_key(|f| f.turn);
            let last = first + len;
            let inside = |t: usize| first <= t && t <= last;
            // (A summary in turn `s` carried fact `id`.)
            let carried: Vec<(usize, usize)> =
                carried.into_iter().filter(|&(_, id)| id < facts.len()).collect();
            let by_definition: Vec<usize> = facts
                .iter()
                .enumerate()
                .filter(|&(id, f)| {
                    inside(f.turn) && f.status.is_live()
                        || f.kind() == crate::extract::FactKind::Reference
                            && f.turn > last
                            && super::referent_turns(f).any(inside)
                        || carried.iter().any(|&(s, c)| c == id && inside(s))
                })
                .map(|(id, _)| id)
                .collect();
            proptest::prop_assert_eq!(super::live_facts(&facts, &carried, first, last), by_definition);
        }
    }
    use super::*;
    use crate::source::Span;

    fn lex() -> Lexicon {
        Lexicon::builtin()
    }

    fn fact(subkind: Subkind, text: &str, terms: &[&str]) -> Fact {
        let mut f = Fact::new(subkind, 0, Span::new(0, 1), text.to_string());
        f.terms = terms.iter().map(|s| s.to_string()).collect();
        f
    }

    fn traj() -> Trajectory {
        Trajectory::new(crate::model::Format::Text, Span::new(0, 0))
    }

    fn probe(f: &Fact, summary: &str) -> FactCheck {
        let l = lex();
        carried(f, &traj(), (0, usize::MAX), &Summary::new(summary, &l), &l)
    }

    #[test]
    fn obligation_needs_object_and_action_in_one_place() {
        let f = fact(
            Subkind::SelfCommitment,
            "After the fix I need to update the changelog entry.",
            &["changelog", "entry", "@edit"],
        );
        assert!(probe(&f, "Pending:\n- update the CHANGELOG entry after the fix\n").carried);
        // The object without the action.
        assert!(!probe(&f, "Pending:\n- the changelog entry\n").carried);
        // The words in different places.
        assert!(
            !probe(
                &f,
                "Fixed the parser.\nThe changelog is long.\nOne entry was added."
            )
            .carried
        );
    }

    #[test]
    fn obligation_with_one_term_needs_its_action_named_apart() {
        let f = fact(
            Subkind::SelfCommitment,
            "I'll run the tests after the fix.",
            &["test", "@test", "@verify", "@reproduce"],
        );
        assert!(probe(&f, "Pending:\n- run the tests\n").carried);
        // A list item holds what it is listed under, and is done under a heading that says so.
        for (summary, carried) in [
            ("- Tests\n  - run them after the fix\n", true),
            ("Pending:\n- run them after the fix\n", false),
            ("## Tests\n- run them after the fix\n", true),
            ("## Completed\n- Run the tests after the fix\n", false),
            ("## Next\n- Run the tests after the fix\n", true),
            (
                "## Done\n- Fixed the parser\n\n## Still to do\n- run the tests\n",
                true,
            ),
            // A line of prose ends the list: what follows is not listed under it.
            (
                "- Tests\nThe parser is fine.\n  - run them after the fix\n",
                false,
            ),
        ] {
            let c = probe(&f, summary);
            assert_eq!(c.carried, carried, "{summary:?}: {}", c.why);
        }
        // A tool of the family the term names says the term: pytest runs tests.
        assert!(probe(&f, "Must run pytest after the fix.\n").carried);
        assert!(!probe(&f, "Must run the linter after the fix.\n").carried);
        // "Tests" names the test family itself: no action apart from the object.
        assert!(!probe(&f, "- Tests: 43 passed\n").carried);
        // A single generic word is not enough for any summary.
        let vague = fact(
            Subkind::SelfCommitment,
            "I need to be careful:",
            &["careful"],
        );
        let c = probe(&vague, "- Be careful with the migration\n");
        assert!(!c.carried && c.why.contains("too little"), "{}", c.why);
    }

    #[test]
    fn a_line_saying_an_open_obligation_is_done_does_not_carry_it() {
        let f = fact(
            Subkind::SelfCommitment,
            "I'll update the docs once the code compiles.",
            &["doc", "@edit"],
        );
        let c = probe(&f, "The docs are already updated; nothing is left to do.\n");
        assert!(!c.carried && c.why.contains("says it is done"), "{}", c.why);
        assert!(!probe(&f, "1. [DONE] Update the docs\n").carried);
        // In the passive too, as a summary writes it.
        let tests = fact(
            Subkind::SelfCommitment,
            "I will run the tests after the fix.",
            &["test", "fix", "@test", "@verify", "@reproduce"],
        );
        for line in [
            "Tests were run after the fix and pass.",
            "The tests have been run after the fix.",
            "The tests were already rerun after the fix.",
        ] {
            let c = probe(&tests, line);
            assert!(
                !c.carried && c.why.contains("says it is done"),
                "{line}: {}",
                c.why
            );
        }
        for line in [
            "The tests were not run after the fix yet.",
            "Run the tests after the fix.",
            "The tests were failing before the fix; run them after it.",
            "Running the tests was deferred until after the fix.",
            "The test run was postponed after the fix.",
        ] {
            let c = probe(&tests, line);
            assert!(c.carried, "{line}: {}", c.why);
        }
        // Done and still to do on one line: the line keeps it.
        assert!(probe(&f, "Updated the code; still to do: update the docs.\n").carried);
        assert!(
            probe(
                &f,
                "- docs (in_progress): code done but the docs need updating\n"
            )
            .carried
        );
        // A line saying so elsewhere does not hide one that carries it.
        assert!(probe(&f, "Updated the parser.\nTODO: update the docs.\n").carried);
        // Negated, wished for or put instead of something else, it is not said done.
        for line in [
            "The docs were not updated yet.",
            "Update the docs (not done yet).",
            "The user wants the docs updated.",
            "Update the docs instead of the README.",
        ] {
            assert!(probe(&f, line).carried, "{line}");
        }
    }

    #[test]
    fn a_summary_naming_an_open_obligation_only_where_it_lets_it_go_does_not_carry_it() {
        let f = fact(
            Subkind::SelfCommitment,
            "I'll update the docs once the code compiles.",
            &["doc", "@edit"],
        );
        for line in [
            "Skipping the docs update.",
            "Fixed the parser, dropped the docs update (out of scope).",
            "- docs: decided not to update them",
            "The docs update was skipped.",
            "We won't update the docs.",
            "Gave up the docs update.",
            "Dropped the docs update, since the README still covers it.",
            "Decided not to update the docs; the remaining work is the parser.",
            "No need to update the docs.",
            "The user told us to skip the docs update.",
            "- Update the docs: skipped",
            "- [ ] Update the docs (not needed)",
            "- Update the docs: skipped per the user's request",
            "- Update the docs: not needed anymore",
            "- Update the docs \u{2014} not needed, the user said so",
            "Update the docs: SKIPPED (user request)",
            "Update the docs -- skipped",
            "No docs update needed.",
            "The docs don't need updating.",
            "The docs update isn't needed.",
            "The docs update is no longer required.",
            "Not updating the docs.",
            "The user declined the docs update.",
            "Skipped the docs update, as the user said we should focus on the parser.",
            "The user told us to skip the docs update and focus on the parser first.",
            "No need to update the docs, since the public API must stay unchanged.",
            "Docs update skipped.",
            "Docs update not needed.",
            "The docs update will be skipped.",
            "The docs update can be skipped.",
            "Skipped: docs update.",
            "- Update the docs (README, CHANGELOG): skipped",
            "Skipped the docs update since it is not yet needed.",
            // Other ways of letting go (from a blind review).
            "Decided against updating the docs.",
            "Cancelled: docs update.",
            "The docs update was cancelled.",
            "Cancelled the docs update.",
            "Never mind the docs update.",
            "~~Update the docs~~",
            "- [ ] ~~update the docs once the code compiles~~",
        ] {
            let c = probe(&f, line);
            assert!(
                !c.carried && c.why.contains("lets it go"),
                "{line}: {}",
                c.why
            );
        }
        // Put off, still owed, negated, or a let-go word about something else: in another
        // clause of the line, after the docs, in a flag.
        for line in [
            "Skipped the docs update for now; update the docs after the release.",
            "Skipping the docs update until the code compiles.",
            "Skipped the docs update in the first pass; will update the docs once the code compiles.",
            "Skipped the lint step, then update the docs.",
            "Update the docs (skip the changelog).",
            "- Update the docs: drop the --fast flag section",
            "Skipped the lint step; open: update the docs.",
            "Skipped the lint step and will update the docs.",
            "Skipped the lint step. Will update the docs.",
            "Open: update the docs so users no longer hit the removed --fast flag.",
            "Open: update the docs to describe the new --skip-cache option.",
            "Must update the docs: the release build won't pass without them.",
            "Update the docs for the dropped Python 3.8 support.",
            "Open: update the docs; the old API is no longer supported.",
            "Remember to update the docs; no need to touch the changelog.",
            "Do the docs update - I must not skip it.",
            "The user asked us not to skip the docs update.",
            "The docs update was skipped by mistake and must be done.",
            "Update the docs explaining why empty lines are skipped.",
            "- Drop the --fast flag and update the docs",
            "- Remove the deprecated option, drop Python 3.8 and update the docs",
            "Skip the flaky integration test on CI and update the docs accordingly.",
            "Drop the --fast flag section when updating the docs.",
            "Drop the legacy examples after updating the docs.",
            "Update the docs to say slow tests are skipped on CI.",
            "Update the docs (screenshots: not needed)",
            "For now, skipping the docs update.",
            "Temporarily skipped the docs update.",
            "Until the code compiles, the docs update is skipped.",
            "Update the docs: skipped tests must be listed.",
            "We won't skip the docs update this time.",
            "The user decided not to skip the docs update.",
            "There is no need to skip the docs update.",
            "I won't forget to update the docs.",
            "Update the docs with no code changes needed.",
            "Update the docs about Windows tests being skipped.",
            "Skipped the flaky test to unblock the docs update.",
            "Next: skip straight to the docs update.",
            // A status closes a list's last item.
            "Remaining: update the docs, benchmarks (skipped).",
            "Next steps: update the docs, bump the version, release notes (not needed).",
            "Parser fixed, update the docs next, benchmarks: skipped",
            // Negated passives.
            "Make sure the docs update is not skipped.",
            "The docs update must not be skipped.",
            "The docs update should never be dropped.",
            // A participle whose subject is not the docs.
            "Next: update the docs listing every test skipped.",
            "Still to do: update the docs for the options we dropped.",
            "Update the docs describing the checks now omitted.",
            // "No … needed" holds what it lets go.
            "No new tests needed for the docs update.",
            "No code changes needed beyond the docs update.",
            // An order not to forget or skip it, or not to do something else.
            "Don't forget to update the docs.",
            "Do not skip the docs update.",
            "Do not merge before the docs are updated.",
            "Do not update the docs yet.",
            "Do not merge without updating the docs.",
            "Ignore file for the docs build needs an update.",
            "Update the docs; do not touch the changelog.",
            "Decided against the rewrite; update the docs next.",
            "Cancelled the flaky CI job; update the docs next.",
            "We did not update the docs yet.",
            "~~Fix the parser~~ done; update the docs next.",
            "~~~\nUpdate the docs.\n~~~",
            "Update the docs ~~~ then release.",
        ] {
            let c = probe(&f, line);
            assert!(c.carried, "{line}: {}", c.why);
        }
        // The obligation's own let-go words about something else leave the rule on.
        for text in [
            "I'll update the docs once the code compiles; we can't skip that.",
            "I'll update the docs once it compiles, no need to wait for CI.",
        ] {
            let g = fact(Subkind::SelfCommitment, text, &["doc", "@edit"]);
            for line in ["Skipping the docs update.", "No need to update the docs."] {
                let c = probe(&g, line);
                assert!(!c.carried, "{text} / {line}: {}", c.why);
            }
        }
        // An obligation whose own action is a let-go word is carried by naming it, put off or not.
        for (text, line) in [
            (
                "I'll drop the old index after the migration.",
                "Still to do: drop the old index.",
            ),
            (
                "I'll drop the old index once the migration has run.",
                "Next step: drop the old index, then verify.",
            ),
        ] {
            let c = probe(
                &fact(Subkind::SelfCommitment, text, &["old", "index"]),
                line,
            );
            assert!(c.carried, "{text} / {line}: {}", c.why);
        }
    }

    #[test]
    fn success_in_negative_words_does_not_carry_a_null_result() {
        let f = fact(
            Subkind::NotFound,
            "ls: cannot access 'completions/': No such file or directory",
            &["complet", "access", "directory"],
        );
        for line in [
            "Listed the completions/ directory without any errors.",
            "The completions/ directory is not empty.",
            "No errors: the completions/ directory was listed.",
        ] {
            assert!(!probe(&f, line).carried, "{line}");
        }
        assert!(probe(&f, "The completions/ directory does not exist.").carried);
    }

    #[test]
    fn identifiers_joined_by_a_hyphen_are_each_named() {
        let mut f = fact(Subkind::Identifier, "HAT219", &[]);
        f.status = Status::Bound;
        assert!(probe(&f, "Flights HAT214-HAT219 (one-way).").carried);
        assert!(!probe(&f, "Flights HAT214-HAT218.").carried);
    }

    #[test]
    fn obligation_with_an_identifier_needs_it_verbatim() {
        let f = fact(
            Subkind::PlanStep,
            "bd update spotter-fum.3 --status in_progress",
            &["updat", "spotter", "fum", "status", "in_progress"],
        );
        let c = probe(
            &f,
            "- Claimed with `bd update spotter-fum.1 --status in_progress`\n",
        );
        assert!(!c.carried, "{}", c.why);
        assert!(c.why.contains("spotter-fum.3"), "{}", c.why);
        assert!(probe(&f, "- spotter-fum.3 (IN PROGRESS): highlight.js\n").carried);
    }

    #[test]
    fn null_result_needs_query_and_absence_in_one_clause() {
        let f = fact(
            Subkind::NotFound,
            "No such file or directory",
            &["config", "yaml", "settings"],
        );
        assert!(
            probe(
                &f,
                "- config/settings.yaml does not exist; defaults are used\n"
            )
            .carried
        );
        let c = probe(&f, "- We read config/settings.yaml\n- No tests failed\n");
        assert!(!c.carried);
        assert!(c.why.contains("never says"), "{}", c.why);
        // What it says names is what the check found, at the line that names it.
        assert!(c.why.contains(&quote(&c.found)), "{} {:?}", c.why, c.found);
        assert!(c.found.len() >= 2, "{:?}", c.found);
        assert_eq!(c.at.map(|p| p.line), Some(1));
        // The absence word is about something else in the same line.
        assert!(
            !probe(
                &f,
                "- config/settings.yaml (empty state, invalid project)\n"
            )
            .carried
        );
    }

    #[test]
    fn a_word_of_absence_is_about_its_own_sentence() {
        let f = fact(
            Subkind::NotFound,
            "No matches found",
            &[&stem("timezone"), "config"],
        );
        for line in [
            "Searched config/ for TIMEZONE: found a match in config/app.toml. Deployment failed.",
            "TIMEZONE exists in config/ and matches. Nothing else to report.",
            "TIMEZONE is set in config/! The deploy failed for another reason.",
            // Found elsewhere is no absence.
            "TIMEZONE is set in config/app.toml and not in the environment.",
            // The search not made is no absence found.
            "Did not search config/ for TIMEZONE.",
            "We haven't yet checked config/ for TIMEZONE.",
            "TIMEZONE in config/: didn't grep it.",
        ] {
            let c = probe(&f, line);
            assert!(!c.carried, "{line}: {}", c.why);
        }
        // A sentence saying only how the search before it ended is about it.
        for line in [
            "Searched config/ for TIMEZONE. No matches.",
            "Grepped config/ for TIMEZONE. Not found.",
            "Looked for TIMEZONE in config/. It does not exist.",
            "TIMEZONE is not set in config/; using the default.",
            "Searched config/ for TIMEZONE. The grep returned no matches.",
            "Searched config/ for TIMEZONE. Grep output was empty.",
            "Looked in config/ for TIMEZONE. There is no such setting.",
            "Checked config/ for TIMEZONE. It is not defined anywhere.",
            "Searched config/ for TIMEZONE. No results for it at all.",
            "Grepped config/ for TIMEZONE. Nothing found.",
            "TIMEZONE search in config/: 0 results",
            "grep TIMEZONE config/ -> 0 matches",
            "Searched config/ for TIMEZONE: zero hits.",
            "Searched config/ for TIMEZONE and did not find it.",
            // A word of absence before a search word is no negated search.
            "No search results for TIMEZONE in config/.",
            "No grep hits for TIMEZONE in config/.",
            "Empty grep output for TIMEZONE in config/.",
        ] {
            let c = probe(&f, line);
            assert!(c.carried, "{line}: {}", c.why);
        }
        // So is a line listed under the one that reports the search, and only such a line.
        for summary in [
            "- Grepped config/ for TIMEZONE\n  - nothing found\n",
            "Searched config/ for TIMEZONE:\n- No matches.\n- Used the default.\n",
            "Looked for TIMEZONE in config/:\n1. No matches.\n",
        ] {
            let c = probe(&f, summary);
            assert!(c.carried, "{summary}: {}", c.why);
        }
        for summary in [
            // A sibling, not a line under it.
            "- TIMEZONE in config/\n- No matches.\n",
            // Under it, but about something else.
            "- TIMEZONE in config/\n  - found in app.toml\n  - deploy failed\n",
            "- Searched config/ for TIMEZONE\n  - reloads messages, errors, events\n",
            // Under a line that reports no search.
            "Open questions about TIMEZONE in config/:\n- None.\n",
            "Remaining TODOs for TIMEZONE in config/:\n- none\n",
            "- Added TIMEZONE to config/\n  - tests: none failing\n",
            "- TIMEZONE in config/ found in app.toml\n  - It failed.\n",
        ] {
            let c = probe(&f, summary);
            assert!(!c.carried, "{summary}: {}", c.why);
        }
    }

    #[test]
    fn rare_specific_terms_count_twice() {
        let f = fact(
            Subkind::NotFound,
            "warning: associated schema Spotter.Transcripts.AnnotationMessageRef does not exist",
            &["ash", "codegen", "annotationmessageref"],
        );
        assert!(
            probe(
                &f,
                "- Compile errors about missing AnnotationMessageRef module\n"
            )
            .carried
        );
    }

    #[test]
    fn identifier_verbatim() {
        let mut f = fact(Subkind::Identifier, "HAT072", &[]);
        f.status = Status::Bound;
        assert!(probe(&f, "Booked flight HAT072.").carried);
        assert!(!probe(&f, "Booked flight HAT073.").carried);
    }

    #[test]
    fn what_each_line_is_listed_under() {
        let text = "# Work\n1. Parser:\n   - fixed\n     * tested\n   - docs\n2. CLI\nProse.\n- loose\nTodo:\n- a\n\t- b\n";
        let units = split_units(text);
        let lines: Vec<&str> = units.iter().map(|&(s, e)| &text[s..e]).collect();
        let parents: Vec<Option<&str>> = list_parents(text, &units)
            .into_iter()
            .map(|p| p.map(|p| lines[p as usize].trim()))
            .collect();
        assert_eq!(
            parents,
            [
                None,
                Some("# Work"),
                Some("1. Parser:"),
                Some("- fixed"),
                Some("1. Parser:"),
                Some("# Work"),
                None,
                Some("# Work"),
                Some("# Work"),
                Some("Todo:"),
                Some("- a"),
            ]
        );
    }

    #[test]
    fn splitting() {
        let search: HashSet<String> = SEARCH_WORDS.iter().map(|w| stem(w)).collect();
        let clauses = |u: &'static str| -> Vec<&'static str> {
            split_clauses(u, &|p| says_only_absence(p, &search))
                .iter()
                .map(|&(s, e)| &u[s..e])
                .collect()
        };
        let long = "a".repeat(50) + ". " + &"b".repeat(200) + ". tail";
        assert_eq!(split_units(&format!("one\n\n{long}\n")).len(), 4);
        assert_eq!(
            clauses("x (a, b) — c - d"),
            vec!["x ", "a", " b", " — c - d"]
        );
        assert_eq!(
            clauses("- config.yaml, which does not exist, and x"),
            vec!["- config.yaml, which does not exist", " and x"]
        );
        assert_eq!(
            clauses("Read app.toml, e.g. the port. Deploy failed! Not found; No. Done? yes"),
            vec![
                "Read app.toml",
                " e.g. the port.",
                " Deploy failed! Not found; No.",
                " Done?",
                " yes"
            ]
        );
        // An abbreviation before a capital ends no sentence.
        assert_eq!(
            clauses(
                "Searched the U.S. Mirror, i.e. The old host, for TIMEZONE: none. Deploy failed."
            ),
            vec![
                "Searched the U.S. Mirror",
                " i.e. The old host",
                " for TIMEZONE: none.",
                " Deploy failed."
            ]
        );
        assert_eq!(
            camel_parts("AnnotationMessageRef"),
            vec!["annotation", "message", "ref"]
        );
        assert_eq!(camel_parts("HTTPServer"), vec!["http", "server"]);
        assert!(camel_parts("plain").is_empty() && camel_parts("ABC").is_empty());
        assert!(is_identifier("spotter-fum.3") && is_identifier("HAT072"));
        assert!(!is_identifier("2-arity") && !is_identifier("30-second") && !is_identifier("128"));
    }
}
