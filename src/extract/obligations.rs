//! Obligations the agent takes on: deferred self-commitments ("I'll run the tests after the
//! fix"), plan steps (declared lists, todo tools), and tool-deferred retries (found with the null
//! results, since they live in tool output).
//!
//! Narration is not an obligation: "Let me open the file" in a turn whose call opens it is the
//! action itself. When one sentence (or one turn) names several actions and the turn's calls do
//! only some, the rest are owed.

use super::calls::{CallInfo, Calls};
use super::lexicon::Lexicon;
use super::words::{is_stopword, offset_in, sentences, strip_prefix_ci, terms, tokens};
use super::{fact_at, Fact, Subkind};
use crate::json::{self, Doc};
use crate::model::{Role, SegmentKind, ToolCall, Trajectory};
use crate::text::Text;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

pub fn extract(
    traj: &Trajectory,
    bytes: &[u8],
    lex: &Lexicon,
    calls: &Calls,
    facts: &mut Vec<Fact>,
) {
    let last_assistant = traj.turns.iter().rposition(|t| t.role == Role::Assistant);
    for (i, turn) in traj.turns.iter().enumerate() {
        // A plan handed to the agent as its task ("## Plan for solving the task") binds it too;
        // other lists a user writes (steps to reproduce, requirements) are not its plan.
        if turn.role == Role::User {
            let mut lead_in = "";
            for seg in turn
                .segments
                .iter()
                .filter(|s| s.kind == SegmentKind::Prose)
            {
                let sents = sentences(&seg.text.text);
                let prose = Prose {
                    text: &seg.text,
                    sents: &sents,
                    lead_in,
                };
                plan_steps(i, &prose, lex, Plans::Named, None, facts);
                lead_in = prose.next_lead_in();
            }
            continue;
        }
        if turn.role != Role::Assistant {
            continue;
        }
        // The run's closing report describes what is there ("1. Read JSON from stdin"): only a
        // list it heads as a plan ("Next steps:") is one.
        let plans = if Some(i) == last_assistant && turn.calls.is_empty() {
            Plans::Headed
        } else {
            Plans::Any
        };
        let mut call_words = CallWords::of(turn, calls.of_turn(i));
        // Code written out in the turn is work the turn does ("I'll write a script: ```…```").
        call_words.writes |= turn.segments.iter().any(|s| s.text.text.contains("```"));
        // All the calls of the turn's API message, for which of the things an action names
        // they act on (its later calls can follow their siblings' results).
        let mut rest_of_message = continuations(traj, i).peekable();
        let whole_message;
        let message_words = if rest_of_message.peek().is_none() {
            &call_words
        } else {
            let mut words = call_words.clone();
            for j in rest_of_message {
                words.add(&traj.turns[j], calls.of_turn(j));
            }
            whole_message = words;
            &whole_message
        };
        let mut immediate: Vec<Candidate> = Vec::new();
        let mut lead_in = "";
        for seg in turn
            .segments
            .iter()
            .filter(|s| s.kind == SegmentKind::Prose)
        {
            let text = &seg.text;
            let sents = sentences(&text.text);
            let prose = Prose {
                text,
                sents: &sents,
                lead_in,
            };
            plan_steps(i, &prose, lex, plans, Some(&call_words), facts);
            lead_in = prose.next_lead_in();
            for (k, s) in sents.iter().enumerate() {
                let sentence = &text.text[s.start..s.end];
                if is_list_item(sentence).is_some() {
                    continue; // plan items are handled above
                }
                // "I'll add the MIT license. Let's start by creating the file.": a task-level
                // opener, owed until a later turn delivers it (semantics.md).
                let opener = sents
                    .get(k + 1)
                    .is_some_and(|n| lex.first_step.is_match(text.text[n.start..n.end].trim()));
                // "I'll X", "Let me X", or a self-addressed imperative ("Now add X.") in a turn
                // that is doing work (a bare imperative in a final answer is advice to the user).
                // Of the sentence's commitment cues, the first whose own clause is not excluded
                // ("Let me know which flight you want, and I will proceed with the change"
                // commits to the change, not to letting know). A quotation may close between
                // the comma and the "and" ('by responding with "yes," and I will proceed').
                const CLAUSES: [&str; 6] =
                    [", and ", ",\" and ", ",” and ", "; ", ", but ", ", so "];
                let clause_of = |cs: usize, ce: usize| {
                    let start = CLAUSES
                        .iter()
                        .filter_map(|b| sentence[..cs].rfind(b).map(|k| k + b.len()))
                        .max()
                        .unwrap_or(0);
                    let end = CLAUSES
                        .iter()
                        .filter_map(|b| sentence[ce..].find(b).map(|k| ce + k))
                        .min()
                        .unwrap_or(sentence.len());
                    (start, end)
                };
                let mut cues = lex.commitment.find_all(sentence);
                cues.extend(lex.deferred_modal.find_all(sentence));
                cues.sort_unstable();
                let any_commitment = !cues.is_empty();
                // Each commitment cue that its own clause does not exclude opens a commitment
                // of its own, running to the clause of the next one ("I'll set up a todo list;
                // after the fix I'll run the suite, and once it is green I'll verify it"): one
                // may be done at once while another is owed.
                let committed: Vec<(usize, usize)> = cues
                    .into_iter()
                    .filter(|&(cs, ce)| {
                        let (a, b) = clause_of(cs, ce);
                        let clause = &sentence[a..b];
                        let waits = lex.deferred_modal.is_match(clause);
                        // (An ability after the cue is of a clause of its own: "I'll check the
                        // details to see if there's anything else I can assist you with"; so is
                        // one in a subordinate clause before it: "Before I can assist you, I
                        // need to …".)
                        let main = lex
                            .leading_clause
                            .first(&sentence[a..cs])
                            .map_or(a, |(_, end)| a + end);
                        !lex.not_commitment.is_match(clause)
                            && (waits || !lex.ability.is_match(&sentence[main..ce]))
                    })
                    .collect();
                let mut commitments: Vec<Commitment> = Vec::new();
                for (k, &(cs, ce)) in committed.iter().enumerate() {
                    let from = clause_of(cs, ce).0;
                    let from = commitments.last().map_or(from, |p| from.max(p.end));
                    let end = committed
                        .get(k + 1)
                        .map_or(sentence.len(), |&(ns, ne)| clause_of(ns, ne).0.max(ce));
                    commitments.push(Commitment {
                        from,
                        action: ce,
                        end,
                    });
                }
                if commitments.is_empty() && !any_commitment {
                    // A self-addressed imperative names its action in the cue itself.
                    let imperative = lex.imperative_start.captures(sentence).and_then(|m| {
                        let prefixed = m.get(1).is_some();
                        let end = m.get(0).map_or(0, |x| x.end());
                        let code = sentence[end..].starts_with(['(', '.', '_', '`']);
                        let short = sentence.split_whitespace().count() < 3;
                        (!code && !short && (prefixed || !turn.calls.is_empty())).then_some(end)
                    });
                    if imperative.is_some()
                        && !lex.not_commitment.is_match(sentence)
                        && !lex.ability.is_match(sentence)
                    {
                        commitments.push(Commitment {
                            from: 0,
                            action: 0,
                            end: sentence.len(),
                        });
                    }
                }
                // "Let me fix the parser:" introduces what the turn goes on to show.
                let last_segment = std::ptr::eq(seg, turn.segments.last().unwrap_or(seg));
                let colon = sentence.trim_end().ends_with(':');
                let introduces = colon && (s.end < text.text.trim_end().len() || !last_segment);
                for m in commitments {
                    let part = &sentence[m.from..m.end];
                    let clause = &sentence[m.action..m.end];
                    // Chunks from the first deferral cue on are owed whatever the turn does
                    // ("I'll add the option and then write a test": the test is later).
                    // ("a day later" is a date, not a deferral.)
                    // ("Next, I'll check the script" opening the sentence orders this turn's
                    // step after the last one, as "Now," does: its calls may do it.)
                    let deferred = lex.deferred.find_all(part).into_iter().find(|&(d, e)| {
                        let opens = part[..d].trim().is_empty()
                            && strip_prefix_ci(&part[d..e], "next").is_some();
                        !opens && !is_time_span(&part[..d], &part[d..e])
                    });
                    // "then" only orders the steps: a step after it that the turn's calls name
                    // by its words is done ("remove `build` and then recompile" with one
                    // `rm -rf build && make`). Other cues ("later", "once …") defer outright.
                    // (Measured: treating "next" and "finally" so too costs recall.)
                    let only_then =
                        deferred.is_some_and(|(d, e)| part[d..e].eq_ignore_ascii_case("then"));
                    let deferred_at = deferred.map(|(d, _)| m.from + d);
                    let pieces = chunks(clause, lex);
                    let deferred_from = deferred_at.map(|d| {
                        pieces
                            .iter()
                            .position(|p| offset_in(sentence, p) + p.len() > d)
                            .unwrap_or(pieces.len())
                    });
                    let c = Candidate {
                        text,
                        start: s.start + m.from,
                        end: s.start + m.end,
                        chunks: pieces.iter().map(|c| ChunkWords::of(c, lex)).collect(),
                        deferred_from,
                        only_then,
                        introduces: colon,
                    };
                    if c.chunks
                        .iter()
                        .all(|k| k.terms.is_empty() && k.families.is_empty())
                    {
                        continue; // "I'll do that." with nothing to owe by name: references handle it
                    }
                    if pieces.iter().all(|p| vague(p, lex)) {
                        continue; // "I'll do my best to assist you!"
                    }
                    // "Let me write up a summary." followed by the summary: the turn's own
                    // words deliver it.
                    if c.chunks.iter().any(|k| k.delivers)
                        && c.chunks.iter().all(|k| k.delivers || k.terms.is_empty())
                        && text.text[s.end..].trim().len() >= DELIVERED
                    {
                        continue;
                    }
                    // In a turn that calls nothing, checking or computing in words is done in the
                    // words that follow: "I will now verify the calculations step-by-step." over
                    // the verification, "we need to calculate the difference between these two
                    // counts." over "148 - 12 = 136".
                    let rest = &text.text[s.end..];
                    let verifies = || {
                        verifies_in_words(sentence, &pieces, &c.chunks)
                            && rest.trim().len() >= DELIVERED
                    };
                    let computes = || {
                        c.chunks.iter().all(|k| {
                            k.families.iter().any(|f| f == "compute") || k.terms.is_empty()
                        }) && works_out_a_figure(rest)
                    };
                    if turn.calls.is_empty()
                        && deferred_from.is_none()
                        && (verifies() || computes())
                    {
                        continue;
                    }
                    // What a sentence introduces ("Let me fix the parser:") is what the turn
                    // goes on to show: its calls must still do it.
                    let deferred_all = deferred_from == Some(0) && !c.only_then;
                    if deferred_all || opener || turn.calls.is_empty() && !introduces {
                        facts.push(c.fact(i, None));
                    } else if !turn.calls.is_empty() {
                        immediate.push(c);
                    }
                }
            }
        }
        // Narration: the chunks the turn's calls perform. What they do not perform is owed.
        // When a list of actions of one kind is named ("create the CSS, update the layout, and
        // rebuild the panel"), each must be matched by its words: one write does not do them all.
        let mut per_family: HashMap<&str, usize> = HashMap::default();
        for k in immediate.iter().flat_map(|c| &c.chunks) {
            if let Some(f) = k.families.first() {
                *per_family.entry(f.as_str()).or_default() += 1;
            }
        }
        // "Let me read all the key files" with one read, the others in the wordless call
        // records that follow (Claude Code writes each parallel call as one): the turn does one
        // of them, the rest are owed to those records.
        let next_record = (turn.calls.len() == 1)
            .then(|| next_call_record(traj, i))
            .flatten();
        // "Let me read the relevant files:" with one Read, the next file read by a wordless
        // call of the same tool after its result: the set is read (or edited: "update the
        // configuration files") one call at a time, and that tool's next call goes on with it.
        // (A call whose name the log did not keep is no known tool: "assistant: None".)
        let tool = turn
            .calls
            .first()
            .map(|c| &c.name)
            .filter(|n| !n.is_empty());
        let same_tool_follows =
            next_record.is_some_and(|u| u.calls.iter().any(|c| Some(&c.name) == tool));
        let by_the_same_tool = |chunk: &ChunkWords| {
            same_tool_follows
                && (chunk.quantified || chunk.plural)
                && chunk
                    .families
                    .iter()
                    .any(|f| matches!(f.as_str(), "read" | "search" | "edit"))
                && !chunk.goal
                && !chunk.terms.is_empty()
        };
        let one_at_a_time = |chunk: &ChunkWords| {
            next_record.is_some() && chunk.quantified && !chunk.terms.is_empty()
                || by_the_same_tool(chunk)
        };
        for c in &immediate {
            // Whether a chunk other than `k` is what the calls do: then the colon no longer
            // says that the calls are `k` too ("Commit and close task 4:" with the commit).
            let done_elsewhere = |k: usize| {
                (0..c.chunks.len()).any(|j| {
                    j != k
                        && !c.chunks[j].families.is_empty()
                        && call_words.covers(&c.chunks[j], true)
                })
            };
            let owes = |k: usize| -> bool {
                let chunk = &c.chunks[k];
                if one_at_a_time(chunk) {
                    return true;
                }
                if c.deferred_from.is_some_and(|d| k >= d) {
                    // (A bare verb, "and then recompile", names its kind of action only.)
                    let named = c.only_then && call_words.covers(chunk, chunk.bare);
                    return !chunk.terms.is_empty() && !named;
                }
                // "Let me make the function safer:" names no known kind of action; the
                // colon says the calls that follow are it.
                // Nor does a verb with no object ("Let me simplify.") name anything the calls
                // could leave undone.
                if (c.introduces || chunk.bare) && chunk.families.is_empty() && !done_elsewhere(k) {
                    return false;
                }
                let lone = chunk
                    .families
                    .first()
                    .is_none_or(|f| per_family[f.as_str()] <= 2);
                (!call_words.covers(chunk, lone) || message_words.does_only_part(chunk))
                    && !chunk.terms.is_empty()
            };
            let mut owed: Vec<usize> = Vec::new();
            for k in 0..c.chunks.len() {
                // "submit it and see if we are correct": the result of what the turn runs
                // answers the question. A change's result does not ("fix it and see if it
                // works", "create the build directory and see if that resolves the issue" need
                // a run after it).
                let answered = c.chunks[k].observes
                    && k > 0
                    && !owed.contains(&(k - 1))
                    && !call_words.writes
                    && !c.chunks[k - 1]
                        .families
                        .iter()
                        .any(|f| f == "edit" || f == "install");
                if !answered && owes(k) {
                    owed.push(k);
                }
            }
            if !owed.is_empty() {
                let mut f = c.fact(i, Some(&owed));
                // What is owed of an action done on part of its object is the rest.
                let done: Vec<&String> = owed
                    .iter()
                    .flat_map(|&k| &c.chunks[k].conjuncts)
                    .filter(|keys| message_words.acts_on(keys))
                    .flatten()
                    .collect();
                f.terms.retain(|t| !done.contains(&t));
                // The next call of the same tool goes on with the set: it performs the rest.
                if owed.iter().all(|&k| by_the_same_tool(&c.chunks[k])) {
                    f.tool = tool.cloned();
                }
                facts.push(f);
            }
        }
        todo_steps(i, turn, calls.of_turn(i), bytes, lex, facts);
    }
}

struct Candidate<'a> {
    text: &'a Text,
    start: usize,
    end: usize,
    chunks: Vec<ChunkWords>,
    /// The first chunk at or after a deferral cue ("then", "later", "once …").
    deferred_from: Option<usize>,
    /// The deferral cue is a plain "then".
    only_then: bool,
    /// The sentence ends in a colon: what follows (the turn's calls) is what it names.
    introduces: bool,
}

/// One commitment of a sentence, as offsets into it: its clause starts at `from`, the action
/// it names at `action` (after the cue), and it runs to `end`.
struct Commitment {
    from: usize,
    action: usize,
    end: usize,
}

impl Candidate<'_> {
    fn fact(&self, turn: usize, only: Option<&[usize]>) -> Fact {
        let mut f = fact_at(
            Subkind::SelfCommitment,
            turn,
            self.text,
            self.start,
            self.end,
        );
        let mut t: Vec<String> = Vec::new();
        for (k, c) in self.chunks.iter().enumerate() {
            if only.is_none_or(|o| o.contains(&k)) {
                t.extend(c.terms.iter().cloned());
                t.extend(c.all_families.iter().map(|f| format!("@{f}")));
                f.code.extend(c.code.iter().cloned());
                if f.action.is_none() {
                    // What a goal must achieve ("ensure the payments add up") is achieved by
                    // the change made so, unless achieving it means running something.
                    f.action =
                        if c.goal && !c.all_families.iter().any(|f| RUNS.contains(&f.as_str())) {
                            Some("edit".to_string())
                        } else {
                            c.families.first().cloned()
                        };
                }
            }
        }
        t.dedup();
        f.terms = t;
        // A commitment that only delivers text ("create a comprehensive summary") is a report
        // to write, whatever its verb: a later turn that writes one performs it.
        let owed = |k: &usize| only.is_none_or(|o| o.contains(k));
        let mut named = self
            .chunks
            .iter()
            .enumerate()
            .filter(|(k, c)| owed(k) && !c.terms.is_empty())
            .peekable();
        if named.peek().is_some() && named.all(|(_, c)| c.delivers) {
            f.action = Some("report".to_string());
        }
        f
    }
}

/// The action a sentence says its turn is doing ("Now, let's edit line 317 directly." →
/// "edit line 317 directly"): the first one named after its commitment cue, without why
/// ("install TensorFlow before proceeding with …"), or None when it names none or defers it.
pub(crate) fn narrated_action<'s>(sentence: &'s str, lex: &Lexicon) -> Option<&'s str> {
    let (_, cue_end) = lex.commitment.find_all(sentence).into_iter().next()?;
    if lex.deferred.is_match(sentence) {
        return None;
    }
    // (`chunks` already cuts each action at its condition: "before …", "once …".)
    let first = chunks(&sentence[cue_end..], lex).into_iter().next()?;
    Some(object_part(first))
}

/// Splits a commitment clause into the actions it names. A purpose clause ("run it to decrypt
/// the file and recover the flag") stays one action: what follows it says why, not what else.
fn chunks<'c>(clause: &'c str, lex: &Lexicon) -> Vec<&'c str> {
    const SEPS: [&str; 10] = [
        ", and then ",
        " and then ",
        ", then ",
        " then ",
        "; ",
        " as well as ",
        ", and ",
        " and also ",
        " and ",
        ", ",
    ];
    let mut out: Vec<&str> = Vec::new();
    let (mut start, mut at) = (0, 0);
    while at < clause.len() {
        let sep = SEPS.iter().find(|s| clause[at..].starts_with(**s));
        match sep {
            Some(sep) => {
                let piece = &clause[start..at];
                let next_word = clause[at + sep.len()..]
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or("")
                    .to_lowercase();
                // A comma splits actions only before a verb ("close X, commit, and move on"),
                // not inside a description ("tests for X, specifically for Y").
                // (A verb the lexicon names an action with counts: "view the rule and adjust
                // the `old_str`"; its bare form only, as the listed verbs are.)
                let verb = looks_like_verb(&next_word)
                    || !next_word.ends_with("ing")
                        && !next_word.ends_with("ed")
                        && !families_of(&next_word, lex).is_empty();
                let splits = match *sep {
                    ", " => verb,
                    " and " => verb || DETERMINERS.contains(&next_word.as_str()),
                    _ => true,
                };
                // A purpose clause keeps what follows ("to decrypt it and recover the flag"),
                // unless what follows is a change of its own ("to understand it and make the
                // necessary changes").
                let changes = matches!(
                    next_word.as_str(),
                    "make"
                        | "fix"
                        | "update"
                        | "edit"
                        | "change"
                        | "modify"
                        | "add"
                        | "remove"
                        | "implement"
                        | "write"
                        | "apply"
                        | "commit"
                        | "place"
                        | "insert"
                );
                // ("… to extract the section and then identify the albums": "then" orders a
                // step of its own.)
                let ordered = sep.contains("then");
                if splits && (!is_purpose(piece) || changes || ordered) {
                    out.push(piece);
                    start = at + sep.len();
                }
                at += sep.len();
            }
            None => at += clause[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    out.push(&clause[start..]);
    out.into_iter()
        .map(without_condition)
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

/// "a day later", "two weeks later": a point in time named as the object, not a deferral.
fn is_time_span(before: &str, cue: &str) -> bool {
    const UNITS: [&str; 7] = ["minute", "hour", "day", "week", "month", "year", "night"];
    cue.eq_ignore_ascii_case("later")
        && before.split_whitespace().next_back().is_some_and(|w| {
            UNITS
                .iter()
                .any(|u| w.to_lowercase().trim_end_matches('s') == *u)
        })
}

/// "update the docs once the code compiles": the part after "once" says when, not what.
fn without_condition(chunk: &str) -> &str {
    const WHEN: [&str; 8] = [
        " once ",
        " after ",
        " when ",
        " before ",
        " until ",
        " as soon as ",
        " if ",
        " unless ",
    ];
    // ("check if X is available" asks about X: there "if" opens the object, not a condition.)
    const ASKING: [&str; 7] = [
        "check",
        "see",
        "verify",
        "confirm",
        "test",
        "determine",
        "know",
    ];
    let cut = WHEN
        .iter()
        .filter_map(|w| chunk.find(w).map(|k| (k, *w)))
        .filter(|&(k, w)| {
            let before = chunk[..k].rsplit(' ').next().unwrap_or("");
            !(w == " if " && ASKING.contains(&before.to_lowercase().as_str()))
        })
        .map(|(k, _)| k)
        .min();
    cut.map_or(chunk, |k| &chunk[..k])
}

const DETERMINERS: [&str; 8] = ["the", "a", "an", "its", "their", "all", "any", "my"];

/// A bare verb that can start an action. Kept small and general on purpose.
fn looks_like_verb(w: &str) -> bool {
    const VERBS: [&str; 52] = [
        "add",
        "check",
        "close",
        "commit",
        "create",
        "delete",
        "deploy",
        "edit",
        "ensure",
        "fix",
        "find",
        "implement",
        "inspect",
        "install",
        "look",
        "make",
        "merge",
        "move",
        "open",
        "push",
        "read",
        "rebuild",
        "remove",
        "rename",
        "rerun",
        "restart",
        "review",
        "run",
        "search",
        "see",
        "test",
        "try",
        "update",
        "use",
        "verify",
        "view",
        "write",
        "then",
        "also",
        "confirm",
        "list",
        "show",
        "clean",
        "set",
        "build",
        "compile",
        "submit",
        "download",
        "execute",
        "navigate",
        "scroll",
        "jump",
    ];
    VERBS.contains(&w)
}

/// "run it to decrypt the file": an action and why. ("try to", "need to" are not a purpose:
/// "try to create the directory and see if that helps" names two actions; nor is a "to" of
/// where something goes.)
fn is_purpose(piece: &str) -> bool {
    // (A "to" before a name, a determiner or code is where something goes: "add the function
    // to Tmux", "to the template".)
    let infinitive = |after: &str| {
        let word = after
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        word.starts_with(|c: char| c.is_ascii_lowercase()) && !DETERMINERS.contains(&word)
    };
    let purpose_to = piece
        .match_indices(" to ")
        .any(|(k, _)| !catenative_before(piece, k) && infinitive(&piece[k + 4..]));
    purpose_to || piece.contains(" so that ") || piece.starts_with("to ")
}

/// The content terms and action families of one named action.
pub struct ChunkWords {
    pub terms: Vec<String>,
    /// The kinds of the action itself: the families of its verb (the first word that has any).
    pub families: Vec<String>,
    /// The families of all its words ("run the tests": execute and test), to meet later calls.
    pub all_families: Vec<String>,
    /// The terms of each `code` span it names.
    pub code: Vec<Vec<String>>,
    /// Its object is a set ("all the key files", "each module", "these files").
    pub quantified: bool,
    /// Its object is plural ("the relevant files", "the shell scripts").
    pub plural: bool,
    /// It names a text to deliver ("a comprehensive summary", "the recommendations"): a word of
    /// the `report` family that is not a participle ("the bug reported in #12" is not one).
    pub delivers: bool,
    /// It is a verb alone, naming no object ("simplify", "debug this further", "decode it").
    pub bare: bool,
    /// It states what another action must achieve ("make sure to use the proper indentation",
    /// "ensure that the division returns a float").
    pub goal: bool,
    /// The keys of each thing its object names, when it names several ("read the JsonlParser
    /// and SessionsIndex"): a call may do the action on one of them only.
    pub conjuncts: Vec<Vec<String>>,
    /// It asks what a result shows ("see if we are correct", "try to see whether it helps"):
    /// its action, if any, is the one its question names ("see if submitting the hash is
    /// enough"), else the action before it, whose result answers it.
    pub observes: bool,
}

/// The question of an action that asks what a result shows ("[try to] see if/whether X"): X.
fn observed(text: &str) -> Option<&str> {
    let mut rest = text.trim_start();
    for skip in ["try to ", "and "] {
        rest = strip_prefix_ci(rest, skip).unwrap_or(rest);
    }
    ["see if ", "see whether "]
        .iter()
        .find_map(|q| strip_prefix_ci(rest, q))
}

/// Verbs whose "to" starts their own complement, not a purpose ("try to examine the files").
const CATENATIVES: [&str; 14] = [
    "try", "trying", "attempt", "need", "needs", "want", "going", "have", "has", "able",
    "continue", "start", "begin", "proceed",
];

/// Whether the word before `text[k..]` is a catenative verb.
fn catenative_before(text: &str, k: usize) -> bool {
    let before = text[..k].rsplit(' ').next().unwrap_or("");
    CATENATIVES.iter().any(|c| before.eq_ignore_ascii_case(c))
}

/// An action's words up to a purpose or manner clause ("to understand …", "for patterns",
/// "with the correct format"); a "for" or "with" right after the verb belongs to it ("search
/// for the config files", "proceed with the cancellation"), and so does the "to" of a
/// catenative ("try to examine the files").
fn object_part(text: &str) -> &str {
    let lead = text.len() - text.trim_start().len();
    let after_verb = text.trim_start().find(' ').map_or(0, |k| lead + k + 1);
    [" to ", " for ", " so ", " in order ", " with "]
        .iter()
        .filter_map(|&m| {
            text[after_verb..]
                .match_indices(m)
                .map(|(k, _)| after_verb + k)
                .find(|&k| m != " to " || !catenative_before(text, k))
        })
        .min()
        .map_or(text, |k| &text[..k])
}

/// Whether a promise is to verify what is at hand, step by step or for its accuracy ("I will
/// now verify the calculations step-by-step"), and nothing else. ("We need to check the class
/// schedules" or "verify the specific prices" needs a look elsewhere.)
fn verifies_in_words(sentence: &str, pieces: &[&str], chunks: &[ChunkWords]) -> bool {
    const IN_WORDS: [&str; 4] = ["step by step", "step-by-step", "accuracy", "correctness"];
    const VERIFY: [&str; 2] = ["verify", "validate"];
    let lower = sentence.to_ascii_lowercase();
    let verifies =
        |p: &&str| tokens(p).any(|(_, w)| VERIFY.iter().any(|v| w.eq_ignore_ascii_case(v)));
    IN_WORDS.iter().any(|m| lower.contains(m))
        && pieces.iter().any(verifies)
        && pieces
            .iter()
            .zip(chunks)
            .all(|(p, k)| verifies(p) || k.terms.is_empty())
}

/// Whether a text works a figure out: an equation that ends in a number ("= 136", "= $402").
fn works_out_a_figure(text: &str) -> bool {
    text.match_indices('=').any(|(k, _)| {
        text[k + 1..]
            .trim_start_matches([' ', '$', '\\', '~'])
            .starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Whether a piece of a promise names no action: its words are vague ("assist", "proceed",
/// "further") or stop words that name no kind of action, and one is vague.
fn vague(piece: &str, lex: &Lexicon) -> bool {
    let mut any = false;
    tokens(piece).all(|(_, w)| {
        let w = w.to_lowercase();
        if lex.vague_words.contains(&w) {
            any = true;
            true
        } else {
            is_stopword(&w) && families_of(&w, lex).is_empty()
        }
    }) && any
}

impl ChunkWords {
    pub fn of(text: &str, lex: &Lexicon) -> ChunkWords {
        // The verb: the first word that names a kind of action, and where it ends. (Between a
        // determiner and another such word that heads the phrase, it modifies that one: "do a
        // clean recompile" recompiles; "an updated SEARCH/REPLACE block" is still an update.)
        let verb = |t: &str| {
            let words: Vec<(usize, &str)> = tokens(t).collect();
            let is = |k: usize, set: &[&str]| {
                words
                    .get(k)
                    .is_some_and(|(_, w)| set.iter().any(|x| w.eq_ignore_ascii_case(x)))
            };
            let modifies_next = |k: usize| {
                k > 0
                    && words[k].1.bytes().all(|b| b.is_ascii_alphabetic())
                    && is(k - 1, &["a", "an", "the"])
                    && words
                        .get(k + 1)
                        .is_some_and(|(_, w)| !families_of(w, lex).is_empty())
                    && (k + 2 == words.len()
                        || is(
                            k + 2,
                            &["of", "for", "to", "in", "on", "with", "and", "first", "now"],
                        ))
            };
            words.iter().enumerate().find_map(|(k, &(at, w))| {
                let f = families_of(w, lex);
                (!f.is_empty() && !modifies_next(k)).then(|| (at + w.len(), f))
            })
        };
        // (Not in a purpose clause: "mock the RepoMap class to ensure it is not called" mocks.)
        let own_verb = verb(object_part(text));
        // A verb the lexicon does not know still comes first, but only a list of code names
        // after it is sure to be things, not another action: "[try to] print `hello.pl` and
        // `forms.pl`" (not "load the spreadsheet first and print its columns").
        let verb_end = own_verb.as_ref().map(|&(end, _)| end).or_else(|| {
            tokens(text)
                .find(|(_, w)| {
                    !["try", "to", "attempt"]
                        .iter()
                        .any(|x| w.eq_ignore_ascii_case(x))
                })
                .filter(|(_, w)| w.bytes().all(|b| b.is_ascii_lowercase()) && !is_stopword(w))
                .map(|(at, w)| at + w.len())
                .filter(|&end| text[end..].matches('`').count() >= 4)
        });
        let conjuncts = verb_end.map_or_else(Vec::new, |end| conjuncts(text, end, lex));
        // (A question that names no action of its own is looking: "see if we are correct".)
        let question = observed(text);
        let families = question
            .and_then(verb)
            .or(own_verb)
            .map(|(_, f)| f)
            .unwrap_or_default();
        let own_terms = terms(text);
        let first = tokens(text).next().map(|(_, w)| super::words::stem(w));
        ChunkWords {
            bare: own_terms.len() == 1 && first.as_ref() == own_terms.first(),
            terms: own_terms,
            families,
            all_families: families_of(text, lex),
            // Names and commands only (`ledger import`, `units.py`), not code shapes.
            code: text
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|c| c.len() <= 40 && !c.contains(['{', '[', '(', '=', ',']))
                .map(terms)
                .filter(|t| !t.is_empty())
                .collect(),
            // (As its verb, "list" delivers too: "I will list the stops on the line:" over the
            // list. As a noun, "a list of albums" is something to find.)
            delivers: tokens(text)
                .next()
                .is_some_and(|(_, w)| w.eq_ignore_ascii_case("list"))
                || tokens(text).any(|(_, w)| {
                    let lw = w.to_ascii_lowercase();
                    !lw.ends_with("ed")
                        && !lw.ends_with("ing")
                        && lex
                            .synonyms
                            .get(&super::words::stem(&lw))
                            .is_some_and(|f| f.iter().any(|x| x == "report"))
                }),
            goal: {
                let mut words = tokens(text).map(|(_, w)| w.to_ascii_lowercase());
                match words.next().as_deref() {
                    Some("ensure" | "ensuring") => true,
                    Some("make" | "making") => words.next().as_deref() == Some("sure"),
                    _ => false,
                }
            },
            // (Of the object, not of a purpose: "look at the CSS to understand the rows".)
            // ("check if there are any tests", "read what the function does" ask one
            // question.)
            plural: {
                let object = object_part(text);
                let asks = tokens(object)
                    .any(|(_, w)| lex.question_words.contains(&w.to_ascii_lowercase()));
                !asks
                    && tokens(object).last().is_some_and(|(_, w)| {
                        w.len() > 3
                            && w.ends_with('s')
                            && !["ss", "us", "is"].iter().any(|x| w.ends_with(x))
                    })
            },
            conjuncts,
            observes: question.is_some(),
            quantified: tokens(text).any(|(_, w)| {
                ["all", "each", "every", "these", "those", "both"]
                    .iter()
                    .any(|q| w.eq_ignore_ascii_case(q))
            }),
        }
    }
}

/// The keys of each thing an action's object names, when it names several: "check the config
/// files and priv directory", "update `jump_to_tool_use` and `recompute_and_push_sync`". Empty
/// when the object names one thing. The object runs from after the verb (ending at `verb_end`)
/// to a purpose clause.
fn conjuncts(text: &str, verb_end: usize, lex: &Lexicon) -> Vec<Vec<String>> {
    let object = object_part(text);
    let Some(object) = object.get(verb_end.min(object.len())..) else {
        return Vec::new();
    };
    // ("understand what X means and what work is planned" asks questions, not names things.)
    if tokens(object).any(|(_, w)| lex.question_words.contains(&w.to_ascii_lowercase())) {
        return Vec::new();
    }
    // A list: "A and B", "A, B and C". The modifier or clause after the last item is of them
    // all or of none ("the `cmd_web` and `cmd_diff` methods in the `Commands` class", "the
    // main.py file, as suggested").
    let Some(and) = object.rfind(" and ").or_else(|| object.rfind(" & ")) else {
        return Vec::new();
    };
    let last = object[and..].trim_start_matches([' ', '&']);
    let last = last.strip_prefix("and ").unwrap_or(last);
    // ("create a file called `x.py` and paste the code into it": two actions. A name written
    // as code is a thing, whatever words it is made of: `recompute_and_push_sync`.)
    let next = tokens(last).next().map_or("", |(_, w)| w);
    let code = last.starts_with('`');
    if !code && (looks_like_verb(&next.to_lowercase()) || !families_of(next, lex).is_empty()) {
        return Vec::new();
    }
    const ENDS: [&str; 16] = [
        ",",
        ";",
        " in ",
        " of ",
        " from ",
        " on ",
        " at ",
        " inside ",
        " within ",
        " since ",
        " because ",
        " as ",
        " which ",
        " that ",
        " when ",
        " if ",
    ];
    let last = ENDS
        .iter()
        .filter_map(|m| last.find(m))
        .min()
        .map_or(last, |cut| &last[..cut]);
    let mut parts: Vec<&str> = object[..and].split(", ").collect();
    parts.push(last);
    let mut out: Vec<Vec<String>> = Vec::new();
    for part in parts {
        // "keeping the original formatting and only adding …": clauses, not things.
        let words: Vec<&str> = tokens(part).map(|(_, w)| w).collect();
        if words.len() >= 3 && words.iter().take(2).any(|w| w.ends_with("ing")) {
            return Vec::new();
        }
        let keys = name_keys(part);
        if !keys.is_empty() {
            out.push(keys);
        }
    }
    if out.len() < 2 {
        out.clear();
    }
    out
}

/// The keys by which a named thing meets a call's terms (`words::call_terms`): a compound name
/// whole (`SessionsIndex` as `sessions_index` and `sessionsindex`, `jsonl_parser`), other words
/// stemmed.
fn name_keys(text: &str) -> Vec<String> {
    let mut keys = Vec::new();
    for (_, w) in tokens(text) {
        let lw = w.to_lowercase();
        if lw.len() < 3 || is_stopword(&lw) {
            continue;
        }
        let camel = w.chars().skip(1).any(char::is_uppercase) && w.chars().any(char::is_lowercase);
        if camel {
            let snake = super::null_results::split_camel(w).replace(' ', "_");
            keys.push(super::words::stem(&snake));
        }
        keys.push(super::words::stem(&lw));
    }
    keys.dedup();
    keys
}

pub(crate) fn families_of(text: &str, lex: &Lexicon) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // `update_reservation_flights` names an action too: split snake_case words.
    for (_, w) in tokens(text) {
        for part in std::iter::once(w).chain(w.split('_').filter(|p| p.len() < w.len())) {
            if let Some(f) = lex.synonyms.get(&super::words::stem(part)) {
                for x in f {
                    if !out.contains(x) {
                        out.push(x.clone());
                    }
                }
            }
        }
    }
    out
}

/// The action families a call names: its tool's name (`TodoWrite`, `str_replace_editor`) and,
/// for a shell call, its command line (`command`, the call's `shell_command`).
pub(crate) fn call_families(call: &ToolCall, command: Option<&str>, lex: &Lexicon) -> Vec<String> {
    let mut families = families_of(&super::null_results::split_camel(&call.name), lex);
    if let Some(cmd) = command {
        let by_program = programs_of(cmd).filter_map(|p| lex.programs.get(&p.to_lowercase()));
        for f in families_of(cmd, lex)
            .into_iter()
            .chain(by_program.flatten().cloned())
        {
            if !families.contains(&f) {
                families.push(f);
            }
        }
    }
    families
}

/// The programs a command line runs: the first word of each of its commands
/// (`cd build && FOO=1 /usr/bin/make -j4 | tee log` runs cd, make and tee).
fn programs_of(cmd: &str) -> impl Iterator<Item = &str> {
    cmd.split(['&', '|', ';', '\n', '('])
        .filter_map(|c| {
            c.split_whitespace()
                .find(|w| !w.contains('=') && !matches!(*w, "sudo" | "time" | "env" | "exec"))
        })
        .map(|w| w.rsplit('/').next().unwrap_or(w))
}

/// The words of a turn's calls, to tell narration from commitments.
#[derive(Clone)]
struct CallWords {
    terms: HashSet<String>,
    families: HashSet<String>,
    /// The turn looks something up (so "let me check / look at / find" is done).
    retrieves: bool,
    /// The turn changes something (so "let me fix / add / update" is done).
    writes: bool,
}

impl CallWords {
    fn of(turn: &crate::model::Turn, infos: &[CallInfo]) -> CallWords {
        let mut words = CallWords {
            terms: HashSet::default(),
            families: HashSet::default(),
            retrieves: false,
            writes: false,
        };
        words.add(turn, infos);
        words
    }

    /// Adds the words of a turn's calls.
    fn add(&mut self, turn: &crate::model::Turn, infos: &[CallInfo]) {
        let Self {
            terms,
            families,
            retrieves,
            writes,
        } = self;
        // Thinking aloud through a think tool is not doing anything.
        for (_, info) in turn
            .calls
            .iter()
            .zip(infos)
            .filter(|(c, _)| !c.name.eq_ignore_ascii_case("think"))
        {
            terms.extend(info.terms.iter().cloned());
            families.extend(info.families.iter().cloned());
            let cmd = info.command.as_deref();
            if cmd.is_some() {
                families.insert("execute".to_string());
            }
            // Editing is writing files: an editor call, or a shell line that writes one
            // (`npm install` or `git commit` change state but edit no code).
            let writes_files = cmd.is_none_or(|cmd| {
                let first = cmd.split_whitespace().next().unwrap_or("");
                FILE_COMMANDS.contains(&first)
                    || cmd.contains(" > ")
                    || cmd.contains(">>")
                    || cmd.contains("sed -i")
                    || cmd.contains("tee ")
                    || cmd.contains("<<")
                    || cmd.contains("apply")
            });
            match info.kind {
                super::null_results::CallKind::Write => *writes |= writes_files,
                super::null_results::CallKind::Unknown => {}
                _ => *retrieves = true,
            }
        }
    }

    /// Whether the calls name one of these keys (of a thing an action names). A key may be the
    /// start of a longer word of theirs ("the API route": `router.ex`).
    fn acts_on(&self, keys: &[String]) -> bool {
        keys.iter().any(|k| {
            self.terms.contains(k)
                || k.len() >= 4 && self.terms.iter().any(|t| t.starts_with(k.as_str()))
        })
    }

    /// Whether the calls act on some of the things an action names and not on another ("read
    /// the JsonlParser and SessionsIndex" with one Read of `jsonl_parser.ex`): the rest is owed.
    fn does_only_part(&self, chunk: &ChunkWords) -> bool {
        chunk.conjuncts.iter().any(|keys| self.acts_on(keys))
            && chunk.conjuncts.iter().any(|keys| !self.acts_on(keys))
    }

    /// Whether the calls perform this action: the kind of action must match (adding tests is
    /// not done by reading the test file); an action with no known kind is matched by its words.
    fn covers(&self, chunk: &ChunkWords, lone: bool) -> bool {
        // "Let's fix that and make sure to use the proper indentation": the edit is made so.
        if chunk.goal
            && self.writes
            && !chunk
                .all_families
                .iter()
                .any(|f| RUNS.contains(&f.as_str()))
        {
            return true;
        }
        let fam = |f: &str| chunk.families.iter().any(|x| x == f);
        let words = chunk.terms.iter().any(|t| self.terms.contains(t));
        if chunk.families.is_empty() {
            return words;
        }
        // "run the tests": the verb says run, the object says which kind of run. A call that
        // runs something else (a compile) does not run the tests.
        let domain: Vec<&String> = chunk
            .all_families
            .iter()
            .filter(|f| !chunk.families.contains(f) && DOMAINS.contains(&f.as_str()))
            .collect();
        if !domain.is_empty() && !domain.iter().any(|f| self.families.contains(*f)) && !words {
            return false;
        }
        let look = fam("read") || fam("search") || fam("verify");
        // "verify compilation" with `mix compile`: running the build is how it is verified.
        // (Running a build, a linter or the tests; installing is not verifying the install.)
        let verified_by_running = fam("verify")
            && !domain.is_empty()
            && domain.iter().all(|f| {
                matches!(f.as_str(), "build" | "lint" | "test") && self.families.contains(*f)
            });
        // "fetch the dependencies" with `mix deps.get`: getting them is installing them.
        let fetched_by_installing = fam("read")
            && !domain.is_empty()
            && domain
                .iter()
                .all(|f| f.as_str() == "install" && self.families.contains(*f));
        let kind_matches = chunk.families.iter().any(|f| self.families.contains(f))
            || self.writes && fam("edit")
            || self.retrieves && look
            || verified_by_running
            || fetched_by_installing;
        kind_matches && (lone || words)
    }
}

/// The turns after `i` that hold further calls of its API message (see `Turn::continues`).
fn continuations(traj: &Trajectory, i: usize) -> impl Iterator<Item = usize> + '_ {
    traj.turns[i + 1..]
        .iter()
        .take_while(move |u| u.result.is_some() || u.continues == Some(i))
        .enumerate()
        .filter(move |(_, u)| u.continues == Some(i))
        .map(move |(k, _)| i + 1 + k)
}

/// The assistant record after turn `i`'s results when it is a wordless call (Claude Code writes
/// each call of a parallel batch as one; an agent reading a set one file at a time goes on so).
fn next_call_record(traj: &Trajectory, i: usize) -> Option<&crate::model::Turn> {
    traj.turns[i + 1..]
        .iter()
        .find(|u| u.result.is_none())
        .filter(|u| u.role == Role::Assistant && !u.calls.is_empty() && !u.has_text())
}

/// Bytes of prose that make a turn's text a delivered report rather than a remark.
pub(crate) const DELIVERED: usize = 400;

/// Shell commands whose whole effect is to change files ("remove the script": `rm x.py`).
const FILE_COMMANDS: [&str; 8] = ["rm", "mv", "cp", "mkdir", "touch", "rmdir", "ln", "patch"];

/// Families of what is achieved by running something: a goal about them ("make sure the tests
/// pass") is not met by an edit.
const RUNS: [&str; 4] = ["test", "lint", "build", "execute"];

/// Families that name what an action is about, beyond its verb.
const DOMAINS: [&str; 6] = ["test", "lint", "build", "commit", "install", "todo"];

/// `1. Do X`, `- Do X`, `* [ ] Do X`: the item text's offset within the line.
pub fn is_list_item(line: &str) -> Option<usize> {
    // "**1. Render with options**": a bold item is still an item.
    let t = line.trim_start();
    let t = t.strip_prefix("**").unwrap_or(t);
    let lead = line.len() - t.len();
    let rest = if let Some(r) = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("• "))
    {
        r
    } else {
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 2 {
            return None;
        }
        let after = &t[digits..];
        after
            .strip_prefix(". ")
            .or_else(|| after.strip_prefix(") "))?
    };
    let rest2 = rest.strip_prefix("[ ] ").unwrap_or(rest);
    Some(lead + (t.len() - rest2.len()))
}

/// Plan steps: items of a list the agent declares as what it will do: the list follows a plan
/// header, or most items start with an imperative verb. Checked items and past-tense items are
/// reports, not plans.
/// Which lists of a text are plans.
#[derive(Clone, Copy, PartialEq)]
enum Plans {
    /// A list under a plan header, or of imperative steps.
    Any,
    /// Only a list under a plan header ("Next steps:").
    Headed,
    /// Only a list under a header that says "plan" (a user's text).
    Named,
}

/// A prose segment, split into sentences, with its lead-in: the sentence before it in the turn's
/// previous segment (see `next_lead_in`). A reader may give each paragraph a segment of its own
/// (Aider's does), and the sentence that heads a list is then in the one before.
struct Prose<'t, 's> {
    text: &'t Text,
    sents: &'s [super::words::Sentence],
    lead_in: &'t str,
}

impl<'t> Prose<'t, '_> {
    /// The sentences before sentence `k`, nearest first, the lead-in last.
    fn before(&self, k: usize) -> impl Iterator<Item = &'t str> + '_ {
        self.sents[..k]
            .iter()
            .rev()
            .map(|s| &self.text.text[s.start..s.end])
            .chain(Some(self.lead_in).filter(|l| !l.is_empty()))
    }

    /// The lead-in of the segment after this one: its last sentence, or when it ends in a list
    /// (which a loose list's next item continues), the sentence that heads that list.
    fn next_lead_in(&self) -> &'t str {
        let listed = self
            .sents
            .iter()
            .rev()
            .take_while(|s| is_list_item(&self.text.text[s.start..s.end]).is_some())
            .count();
        self.before(self.sents.len() - listed)
            .next()
            .unwrap_or(self.lead_in)
    }
}

fn plan_steps(
    turn: usize,
    prose: &Prose,
    lex: &Lexicon,
    plans: Plans,
    // The calls of the turn (none for a user's turn): a list they perform is not owed.
    done_by: Option<&CallWords>,
    facts: &mut Vec<Fact>,
) {
    let named_plan_only = plans == Plans::Named;
    let (text, sents) = (prose.text, prose.sents);
    let mut k = 0;
    while k < sents.len() {
        if is_list_item(&text.text[sents[k].start..sents[k].end]).is_none() {
            k += 1;
            continue;
        }
        let first = k;
        while k < sents.len() && is_list_item(&text.text[sents[k].start..sents[k].end]).is_some() {
            k += 1;
        }
        let items = &sents[first..k];
        // A sentence that introduces the list with a colon is its header alone ("Sure, I'll
        // gather the data. Here is the sales data:" heads data, not a plan).
        let lead = prose.before(first).next();
        let introduced = lead.is_some_and(|h| h.trim_end_matches(['*', ' ', '\n']).ends_with(':'));
        let window = if introduced { 1 } else { 2 };
        let header = prose.before(first).take(window).any(|h| {
            let lower = h.to_lowercase();
            // ("I'll need the following details:" asks the reader for things, as a sentence
            // that is no commitment does: what follows is no plan of the writer's.)
            lex.plan_header.is_match(h)
                && !lex.not_commitment.is_match(h)
                && !h.contains("I did")
                && !lower.contains("summary")
                && (!named_plan_only || lower.contains("plan"))
        });
        if plans != Plans::Any && !header {
            continue;
        }
        // "To run the game, you would need to:" — steps for the reader, not the agent's plan.
        // "Here are the steps we followed:" — steps taken, whatever mood they are written in.
        if lead.is_some_and(|h| lex.for_the_reader.is_match(h) || introduced && tells_past_work(h))
        {
            continue;
        }
        let imperative = items
            .iter()
            .filter(|s| starts_imperative(&text.text[s.start..s.end], lex))
            .count();
        // (A question asks the reader: "1. Was the reservation made within the last 24 hours?")
        let reports = |item: &str| {
            starts_past(item)
                || !starts_imperative(item, lex) && says_done_passively(item)
                || item.trim_end_matches(['*', ' ']).ends_with('?')
        };
        let past = items
            .iter()
            .filter(|s| reports(&text.text[s.start..s.end]))
            .count();
        // Items that name things, not actions: "Departure: JFK", "Your user ID (which I already
        // have)", "The reservation ID".
        let labeled = items
            .iter()
            .filter(|s| {
                let item = &text.text[s.start..s.end];
                (is_label_value(item) || names_a_thing(item)) && !starts_imperative(item, lex)
            })
            .count();
        // ("4. **Assistant:**" over "- Compute the difference": a header naming who does the
        // items under it is neither a step nor a thing.)
        let assigns: Vec<Option<(Vec<&str>, bool)>> = items
            .iter()
            .map(|s| assignees(&text.text[s.start..s.end]))
            .collect();
        let headers = assigns
            .iter()
            .filter(|a| a.as_ref().is_some_and(|(_, heads)| *heads))
            .count();
        let is_plan = (header || imperative * 2 > items.len() - headers)
            && past * 2 <= items.len()
            && (imperative > 0 || labeled * 2 <= items.len());
        if !is_plan {
            continue;
        }
        // The participant the items under a header item ("1. **WebSurfer**:") go to, with
        // that header's indentation.
        let mut assigned: Option<(usize, Vec<&str>)> = None;
        for (s, assign) in items.iter().zip(assigns) {
            let line = &text.text[s.start..s.end];
            let indent = indentation(&text.text, s.start);
            if assigned.as_ref().is_some_and(|(depth, _)| indent <= *depth) {
                assigned = None;
            }
            let performers = match assign {
                Some((names, true)) => {
                    assigned = Some((indent, names.clone()));
                    names
                }
                Some((names, false)) => names,
                None => assigned
                    .as_ref()
                    .map(|(_, n)| n.clone())
                    .unwrap_or_default(),
            };
            if line.contains("[x]")
                || line.contains("[X]")
                || line.contains('\u{2705}')
                || reports(line)
            {
                continue;
            }
            let off = is_list_item(line).unwrap_or(0);
            let cw = ChunkWords::of(&line[off..], lex);
            // "The key changes: 1. Remove truncation … 2. Build an index …" over the Write that
            // makes them: the list says what the turn's calls do, as narration does.
            if done_by.is_some_and(|calls| !cw.families.is_empty() && calls.covers(&cw, false)) {
                continue;
            }
            let mut f = fact_at(Subkind::PlanStep, turn, text, s.start + off, s.end);
            f.action = cw.families.first().cloned();
            f.terms = cw.terms;
            f.terms
                .extend(cw.all_families.iter().map(|x| format!("@{x}")));
            f.code = cw.code;
            f.performers = performers.into_iter().map(str::to_string).collect();
            facts.push(f);
        }
    }
}

/// The columns of blank before byte `at` on its line.
fn indentation(text: &str, at: usize) -> usize {
    let start = text[..at].rfind('\n').map_or(0, |k| k + 1);
    text[start..].len() - text[start..].trim_start_matches([' ', '\t']).len()
}

/// The participants a list item names as the ones to do it, by a label of capitalized single
/// words ("**WebSurfer**:", "**Assistant's Task:**", "**Assign to WebSurfer**: Look up …",
/// "**Assistant & FileSurfer:**"), and whether the label heads the items under it (it has
/// nothing after its colon).
fn assignees(item: &str) -> Option<(Vec<&str>, bool)> {
    let off = is_list_item(item).unwrap_or(0);
    let body = item[off..].trim_start_matches(['*', '`', ' ']);
    let k = body.find(':').filter(|&k| k > 0 && k < 40)?;
    let label = body[..k].trim_end_matches(['*', ' ']);
    let label = ["Assign to ", "Assigned to "]
        .iter()
        .find_map(|p| label.strip_prefix(p))
        .unwrap_or(label);
    let label = ["'s Task", "'s task", "\u{2019}s Task", "\u{2019}s task"]
        .iter()
        .find_map(|p| label.strip_suffix(p))
        .unwrap_or(label);
    let names: Vec<&str> = label
        .split([',', '&'])
        .flat_map(|part| part.split(" and "))
        .map(str::trim)
        .collect();
    let each_a_name = names.iter().all(|name| {
        name.len() >= 2
            && name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    let heads = body[k + 1..].trim_matches(['*', ' ', '\n']).is_empty();
    each_a_name.then_some((names, heads))
}

/// `Name: value` / `**Name**: value`: a record field, not an action.
fn is_label_value(item: &str) -> bool {
    let off = is_list_item(item).unwrap_or(0);
    let body = item[off..].trim_start_matches(['*', '`', ' ']);
    body.find(':')
        .is_some_and(|k| k > 0 && k < 40 && !body[..k].contains(". "))
}

/// A text lowercased, with what stands in parentheses (an aside) blanked out.
fn outside_parentheses(text: &str) -> String {
    let mut depth = 0usize;
    text.chars()
        .map(|c| {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth > 0 {
                ' '
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// Whether a list item is a noun phrase: it opens with a determiner or a possessive and says
/// nothing of it outside parentheses ("Your user ID (which I already have)", "The reservation
/// ID"). It names a thing, not a step ("The data analyst will extract the figures" is one).
fn names_a_thing(item: &str) -> bool {
    const VERBS: [&str; 14] = [
        "will", "shall", "should", "must", "would", "can", "could", "may", "need", "needs", "is",
        "are", "was", "were",
    ];
    let determined = matches!(
        first_word(item).as_str(),
        "the" | "a" | "an" | "your" | "my" | "our" | "his" | "her" | "their"
    );
    let outside = outside_parentheses(item);
    determined
        && !outside
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| VERBS.contains(&w))
}

/// The words of a list item's text, after its marker, lowercased.
fn item_words(item: &str) -> impl Iterator<Item = String> + '_ {
    let off = is_list_item(item).unwrap_or(0);
    // `test_map_tokens`: an identifier, not the verb "test".
    item[off..]
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

fn first_word(item: &str) -> String {
    item_words(item).next().unwrap_or_default()
}

/// "Run the tests", or a task handed to a participant by its one-word name: "**Coder:** Please
/// write the parser" (not a field asked of the user: "Payment method: Please confirm …").
fn starts_imperative(item: &str, lex: &Lexicon) -> bool {
    let w = first_word(item);
    if lex.imperative_verbs.contains(&w) {
        return true;
    }
    let off = is_list_item(item).unwrap_or(0);
    let body = &item[off..];
    is_label_value(item)
        && body.find(':').is_some_and(|k| {
            let label = body[..k].trim_matches(|c: char| !c.is_alphanumeric());
            let agent = label.starts_with(|c: char| c.is_uppercase())
                && label.chars().all(|c| c.is_alphanumeric() || c == '_');
            if !agent {
                return false;
            }
            let mut value = body[k + 1..]
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase);
            let first = value.next().unwrap_or_default();
            let verb = if first == "please" {
                value.next().unwrap_or_default()
            } else {
                first
            };
            lex.imperative_verbs.contains(&verb)
        })
}

/// "Added the option", "We defined a function": a report of work done.
fn starts_past(item: &str) -> bool {
    let mut words = item_words(item);
    let mut w = words.next().unwrap_or_default();
    if matches!(w.as_str(), "i" | "we") {
        w = words.next().unwrap_or_default();
    }
    w.len() > 4
        && w.ends_with("ed")
        && !matches!(
            w.as_str(),
            "need" | "embed" | "speed" | "proceed" | "feed" | "seed"
        )
}

/// Whether a sentence heading a list tells what the writer did ("Here are the steps we followed
/// and the sources:", "I checked the following files:"): the list reports work, plans none.
fn tells_past_work(header: &str) -> bool {
    let lower = header.to_lowercase();
    let words: Vec<&str> = tokens(&lower).map(|(_, w)| w).collect();
    (0..words.len()).any(|k| matches!(words[k], "i" | "we") && starts_past(verb_after(&words, k)))
}

/// The word after `words[k]`, past one adverb ("we carefully checked", "was correctly used").
fn verb_after<'w>(words: &[&'w str], k: usize) -> &'w str {
    let next = words.get(k + 1).copied().unwrap_or("");
    if next.ends_with("ly") {
        words.get(k + 2).copied().unwrap_or("")
    } else {
        next
    }
}

/// Whether an item says in the passive that something was done ("The minimum perigee distance
/// of 356,500 km was correctly used."): a report, not a step. (Not in parentheses, where it is
/// an aside: "**spotter-fum.4** (OPEN, was blocked by fum.2)"; nor in a clause of its own.)
fn says_done_passively(item: &str) -> bool {
    let outside = outside_parentheses(item);
    let words: Vec<&str> = outside
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    // (In its main clause: "Filter the hikes that have been recommended" is a step, and "it can
    // be canceled as it was booked today" says why.)
    let main = words
        .iter()
        .position(|w| {
            matches!(
                *w,
                "that" | "which" | "who" | "as" | "because" | "if" | "when" | "since" | "once"
            )
        })
        .unwrap_or(words.len());
    let words = &words[..main];
    (0..words.len()).any(|k| {
        let auxiliary = matches!(words[k], "was" | "were")
            || words[k] == "been" && k > 0 && matches!(words[k - 1], "has" | "have" | "had");
        let participle = verb_after(words, k);
        auxiliary
            && participle.len() > 3
            && (participle.ends_with("ed") || participle.ends_with("en"))
    })
}

/// Todo tools (TodoWrite, update_plan): every pending or in-progress item is a plan step, keyed by
/// its content so that a later write marking it completed (or dropping it) discharges it.
fn todo_steps(
    turn: usize,
    t: &crate::model::Turn,
    infos: &[CallInfo],
    bytes: &[u8],
    lex: &Lexicon,
    facts: &mut Vec<Fact>,
) {
    for (call, info) in t.calls.iter().zip(infos) {
        // An issue tracker driven from the shell: `bd update X --status in_progress` opens a
        // step that a later `bd close X` discharges.
        if let Some(cmd) = &info.command {
            if lex.tracker_open.is_match(cmd) {
                if let Some(item) = tracker_item(cmd, lex) {
                    let mut f = Fact::new(
                        Subkind::PlanStep,
                        turn,
                        call.span,
                        cmd.chars().take(200).collect(),
                    );
                    f.todo_key = Some(format!("tracker:{item}"));
                    f.terms = terms(cmd);
                    f.tool = Some(call.name.clone());
                    facts.push(f);
                }
            }
            continue;
        }
        let name = call.name.to_lowercase();
        if !(name.contains("todo") || name == "update_plan") {
            continue;
        }
        for item in todo_items(call, bytes) {
            if item.status == "completed" || item.status == "cancelled" {
                continue;
            }
            let mut f = match &item.text {
                Some(tx) => fact_at(Subkind::PlanStep, turn, tx, 0, tx.text.len()),
                None => Fact::new(Subkind::PlanStep, turn, call.span, item.content.clone()),
            };
            let cw = ChunkWords::of(&item.content, lex);
            f.action = cw.families.first().cloned();
            f.terms = cw.terms;
            f.terms
                .extend(cw.all_families.iter().map(|x| format!("@{x}")));
            f.code = cw.code;
            f.todo_key = Some(todo_key(&item.content));
            f.tool = Some(call.name.clone());
            facts.push(f);
        }
    }
}

/// The item a tracker command acts on: its first identifier (`spotter-fum.2`, `#123`, `ABC-42`).
pub fn tracker_item(cmd: &str, lex: &Lexicon) -> Option<String> {
    super::references::identifiers(cmd, lex)
        .first()
        .map(|&(s, e)| cmd[s..e].to_string())
}

pub fn todo_key(content: &str) -> String {
    content
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

pub struct TodoItem {
    pub content: String,
    pub status: String,
    /// The item's content string in the raw file, when the arguments are JSON in the file.
    pub text: Option<Text>,
}

/// The items of a todo call: read from the raw call in the file when its input is an object
/// there (exact spans), else from the arguments text.
pub fn todo_items(call: &ToolCall, bytes: &[u8]) -> Vec<TodoItem> {
    let d = Doc::new(bytes);
    if let Ok(v) = json::parse(bytes, call.span.start, call.span.end.min(bytes.len())) {
        let input = d
            .get(&v, "input")
            .or_else(|| d.get(&v, "args"))
            .or_else(|| d.get(&v, "arguments"));
        if let Some(input) = input {
            if matches!(input.kind, json::Kind::Object(_)) {
                let list = d.get(input, "todos").or_else(|| d.get(input, "plan"));
                if let Some(list) = list {
                    return d
                        .items(list)
                        .iter()
                        .filter_map(|it| {
                            let cv = d.get(it, "content").or_else(|| d.get(it, "step"))?;
                            Some(TodoItem {
                                content: d.str(cv)?,
                                status: d.get_str(it, "status").unwrap_or_default(),
                                text: d.text(cv),
                            })
                        })
                        .collect();
                }
            }
        }
    }
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&call.arguments) else {
        return Vec::new();
    };
    let list = v.get("todos").or_else(|| v.get("plan"));
    list.and_then(|l| l.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|it| {
                    Some(TodoItem {
                        content: it
                            .get("content")
                            .or_else(|| it.get("step"))?
                            .as_str()?
                            .to_string(),
                        status: it
                            .get("status")
                            .and_then(|s| s.as_str())
                            .unwrap_or("")
                            .to_string(),
                        text: None,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_of_participant_names_assigns_the_item_or_the_items_under_it() {
        assert_eq!(
            assignees("1. **WebSurfer**:"),
            Some((vec!["WebSurfer"], true))
        );
        assert_eq!(
            assignees("2. **Assistant's Task:**"),
            Some((vec!["Assistant"], true))
        );
        assert_eq!(
            assignees("3. **Assistant & FileSurfer:**"),
            Some((vec!["Assistant", "FileSurfer"], true))
        );
        assert_eq!(
            assignees("  - **Assign to WebSurfer**: Look up the year Fubo went public."),
            Some((vec!["WebSurfer"], false))
        );
        // Labels of several words name a topic or a field, not who does the work.
        assert_eq!(assignees("3. **Final Verification and Reporting:**"), None);
        assert_eq!(assignees("- Payment method: Please confirm it."), None);
        assert_eq!(assignees("- Look up the price: then compare."), None);
    }

    #[test]
    fn focusing_on_a_thing_is_looking_at_it() {
        // "we need to focus on the timeline first": owed until a call reads it.
        let lex = Lexicon::builtin();
        let words = ChunkWords::of("focus on the `ast` and `expr` directories", &lex);
        assert!(
            words.families.iter().any(|f| f == "read"),
            "{:?}",
            words.families
        );
    }

    #[test]
    fn the_things_after_a_verb_are_found_past_separators_of_several_bytes() {
        // An em dash is three bytes: the verb's end is a byte offset into this text.
        let lex = Lexicon::builtin();
        let plain = ChunkWords::of("check the config files and the priv directory", &lex);
        let dashed = ChunkWords::of(
            "— — — — check the config files and the priv directory",
            &lex,
        );
        assert_eq!(plain.conjuncts.len(), 2, "{:?}", plain.conjuncts);
        assert_eq!(dashed.conjuncts, plain.conjuncts);
    }

    #[test]
    fn a_name_written_as_code_is_a_thing_whatever_words_make_it() {
        // `recompute_and_push_sync` holds "push", an action word: as code it is still the
        // second thing to update, not a second action.
        let lex = Lexicon::builtin();
        let words = ChunkWords::of(
            "update `jump_to_tool_use` and `recompute_and_push_sync` to use the computer",
            &lex,
        );
        assert_eq!(
            words.conjuncts,
            [
                vec!["jump_to_tool_us".to_string()],
                vec!["recompute_and_push_sync".to_string()]
            ]
        );
    }

    #[test]
    fn chunks_split_actions() {
        let lex = Lexicon::builtin();
        assert_eq!(
            chunks("check the config files and the priv directory", &lex),
            vec!["check the config files", "the priv directory"]
        );
        assert_eq!(
            chunks("fix it, then run the tests", &lex),
            vec!["fix it", "run the tests"]
        );
        // A purpose clause keeps what follows; a "to" of where something goes does not.
        assert_eq!(
            chunks("run it to decrypt the file and recover the flag", &lex),
            vec!["run it to decrypt the file and recover the flag"]
        );
        assert_eq!(
            chunks(
                "scrape the page to extract the section and then identify the albums",
                &lex
            ),
            vec![
                "scrape the page to extract the section",
                "identify the albums"
            ]
        );
        assert_eq!(
            chunks("add the function to Tmux and run the tests", &lex),
            vec!["add the function to Tmux", "run the tests"]
        );
        // Any verb the lexicon names an action with splits, in its bare form.
        assert_eq!(
            chunks(
                "view the rule again and adjust the `old_str` accordingly",
                &lex
            ),
            vec!["view the rule again", "adjust the `old_str` accordingly"]
        );
        assert_eq!(
            chunks("finding the URLs and retrieving the information", &lex),
            vec!["finding the URLs and retrieving the information"]
        );
    }

    #[test]
    fn the_object_ends_at_a_purpose_clause_not_at_the_verb_s_own_for() {
        assert_eq!(
            object_part("look at the CSS to understand the rows"),
            "look at the CSS"
        );
        assert_eq!(
            object_part("search for the config files"),
            "search for the config files"
        );
        assert_eq!(
            object_part("read the router for patterns"),
            "read the router"
        );
        // A catenative's "to" completes it; the purpose clause after still ends the object.
        assert_eq!(
            object_part("try to examine the files to find the flag"),
            "try to examine the files"
        );
        assert_eq!(
            object_part("identify the code that needs to be modified"),
            "identify the code that needs to be modified"
        );
        // So does a manner ("with"), unless the verb takes it ("proceed with").
        assert_eq!(
            object_part("update the configuration files with the correct format"),
            "update the configuration files"
        );
        assert_eq!(
            object_part("proceed with the cancellation"),
            "proceed with the cancellation"
        );
    }

    #[test]
    fn an_action_that_asks_what_a_result_shows_names_its_question() {
        assert_eq!(observed("see if we are correct"), Some("we are correct"));
        assert_eq!(
            observed(" try to see whether submitting it is enough"),
            Some("submitting it is enough")
        );
        assert_eq!(observed("see the logs"), None);
        // A prefix's length falling inside a character is no match, not a panic.
        assert_eq!(observed("check — the test"), None);
        assert_eq!(observed("trè"), None);
    }

    #[test]
    fn the_programs_of_a_command_line_are_the_first_words_of_its_commands() {
        let programs: Vec<&str> =
            programs_of("cd build && FOO=1 /usr/bin/make -j4 | tee log; sudo ninja").collect();
        assert_eq!(programs, ["cd", "make", "tee", "ninja"]);
        let lex = Lexicon::builtin();
        let builds = |cmd: &str| lex_families(cmd, &lex).contains(&"build".to_string());
        assert!(builds("cd /workspace/ponyc && make"));
        // The word as an argument is not the program.
        assert!(!builds("echo make sure"));
    }

    fn lex_families(cmd: &str, lex: &Lexicon) -> Vec<String> {
        let call = ToolCall {
            id: None,
            name: "execute_bash".into(),
            arguments: String::new(),
            span: crate::source::Span { start: 0, end: 0 },
            result_turn: None,
        };
        call_families(&call, Some(cmd), lex)
    }

    #[test]
    fn a_narrated_action_is_the_first_one_after_the_cue_without_why_or_when() {
        let lex = Lexicon::builtin();
        let narrated = |s: &'static str| narrated_action(s, &lex);
        assert_eq!(
            narrated("Now, let's edit line 317 directly."),
            Some("edit line 317 directly.")
        );
        assert_eq!(
            narrated("We need to install TensorFlow before proceeding with the frames."),
            Some("install TensorFlow")
        );
        assert_eq!(
            narrated("Let me run the tests to see whether the fix holds."),
            Some("run the tests")
        );
        assert_eq!(narrated("I'll fix the parser later."), None);
        assert_eq!(narrated("The parser is fixed."), None);
    }

    #[test]
    fn list_items() {
        assert_eq!(is_list_item("1. Read the file"), Some(3));
        assert_eq!(is_list_item("  - [ ] Run tests"), Some(8));
        assert_eq!(is_list_item("2024. A year"), None);
        assert_eq!(is_list_item("Plain"), None);
    }
}
