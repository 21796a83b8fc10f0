//! References: expressions in a user or assistant turn that can only be understood through an
//! earlier turn (ordinals, anaphoric descriptions, pronouns, opaque identifiers), bound to their
//! antecedent in the same forward pass.
//!
//! One pass over the turns keeps, for the visible part of the trajectory (after the latest
//! compaction), the latest turn with an enumeration, the latest turn mentioning each head noun,
//! the defining turn of each identifier, and the previous turn. A reference is bound to what these
//! hold when it is read; with nothing to bind to it is unbound. A compaction boundary empties them:
//! what lay before it is no longer visible.

use super::calls::{CallInfo, Calls};
use super::lexicon::Lexicon;
use super::obligations::is_list_item;
use super::words::{
    ascii_letter_runs, is_stopword, sentences_of, stem, strip_prefix_ci, tokens, Sentence,
};
use super::{fact_at, Fact, Link, Status, Subkind};
use crate::markdown::{is_fence_line, Fence};
use crate::model::{EventKind, Role, SegmentKind, Trajectory, Turn};
use crate::text::{ceil_boundary, floor_boundary, LineBreaks, Text};
// Words and ids are hashed once per token of every turn: a fast hash.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

// One module per kind; each adds its finder to `Reader` and reads the state kept here.
mod descriptions;
mod ids;
mod ordinals;
mod pronouns;

pub use ids::identifiers;
use ids::{id_window, names_its_record, record_values, see_id};

/// Where an identifier was seen: first, first in a tool result (where its content is given),
/// and most recently.
#[derive(Clone, Copy)]
struct IdSeen {
    first: usize,
    first_result: Option<usize>,
    /// The first result that gives its record (`"reservation_id": "8C8K4E"` among the
    /// fields), rather than only listing it.
    first_record: Option<usize>,
    latest: usize,
}

impl IdSeen {
    /// The turn that says what the id is: the first result giving its record, else the first
    /// result holding it, else its first sighting.
    fn defining(&self) -> usize {
        self.first_record
            .or(self.first_result)
            .unwrap_or(self.first)
    }

    /// Two sightings of one id (under a short and a full form) as one.
    fn merge(&self, other: &IdSeen) -> IdSeen {
        IdSeen {
            first: self.first.min(other.first),
            first_result: earliest(self.first_result, other.first_result),
            first_record: earliest(self.first_record, other.first_record),
            latest: self.latest.max(other.latest),
        }
    }
}

/// Whether a tool result is a record: a JSON object, without an error. (A command's report,
/// "✓ Updated issue spotter-4te.1", says what was done to the id, not what it is.)
fn gives_a_record(turn: &Turn) -> bool {
    succeeded(turn)
        && turn
            .segments
            .first()
            .is_some_and(|s| s.text.text.trim_start().starts_with('{'))
}

/// Whether a tool result reports success (no error flag, no failing exit code).
fn succeeded(turn: &Turn) -> bool {
    turn.result
        .as_ref()
        .is_some_and(|r| !r.is_error && r.exit_code.is_none_or(|c| c == 0))
}

/// The words that open the lines of a print, past any status glyph (`○ spotter-4te.1 · …`,
/// `spotter-gqc.5: …`): what a lookup printed an entry for. (An id is made of letters, digits,
/// `-`, `_` and inner dots.)
fn line_heads(text: &str) -> HashSet<&str> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start_matches(|c: char| !c.is_alphanumeric());
            let end = l
                .find(|c: char| !(c.is_alphanumeric() || "-_.".contains(c)))
                .unwrap_or(l.len());
            let head = l[..end].trim_end_matches('.');
            (!head.is_empty()).then_some(head)
        })
        .collect()
}

fn earliest(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Where an id's record is: the result turn, its segment, and the id's offsets in that text.
type RecordAt = (usize, usize, usize, usize);

#[derive(Default)]
struct Visible {
    previous: Option<usize>,
    last_list: Option<usize>,
    noun_last: HashMap<String, usize>,
    /// The first turn (of the visible window) that says each noun: what "the original X" is.
    noun_first: HashMap<String, usize>,
    /// identifier → (first turn it appears in, first tool-result turn it appears in)
    ids: HashMap<String, IdSeen>,
    /// The latest user or assistant turn, and the latest tool result.
    last_dialogue: Option<usize>,
    last_result: Option<usize>,
    last_user: Option<usize>,
    last_assistant: Option<usize>,
    seen_dialogue: bool,
    /// A compaction replaced what came before this window: a referent not found in the window
    /// may have been there, so it is unbound rather than guessed.
    after_compaction: bool,
    /// The turn that opened this window (a compaction or reset; 0 at the start): the turns from
    /// it on are in view.
    window_from: usize,
    /// Identifiers seen only before the latest compaction.
    ids_compacted: HashMap<String, usize>,
    /// The last few turns with content, newest last.
    recent: std::collections::VecDeque<usize>,
    /// The last few turns making a call of each action family (`edit`, `search`, …): "the
    /// second edit", "the inserted line", "the file you grepped" point at one of them.
    by_family: HashMap<String, std::collections::VecDeque<usize>>,
    /// The calls whose result is still to come (by turn and call index).
    awaiting: HashSet<(usize, usize)>,
    /// Short forms prose uses for a longer id: `gqc.4` for `spotter-gqc.4`, `6276644` for
    /// `gift_card_6276644`.
    id_alias: HashMap<String, String>,
    /// The number a tracked item goes by in prose ("task 6"), to the latest id shown ending in
    /// it (`spotter-4te.6`).
    numbered: HashMap<String, String>,
    /// Where the record that defines each id is: the tool result (turn, segment) and the
    /// offset of the id in it. A turn that says the record's values restates what the id is.
    id_record: HashMap<String, RecordAt>,
    /// The words of each such record, worked out once: a turn naming the id again asks again.
    record_words: std::cell::RefCell<HashMap<RecordAt, Vec<String>>>,
}

impl Visible {
    /// A fresh window after a compaction or reset, remembering which ids it replaced.
    fn after(self, compaction: bool, at: usize) -> Visible {
        let mut ids_compacted = self.ids_compacted;
        for (id, seen) in self.ids {
            ids_compacted.insert(id, seen.first_result.unwrap_or(seen.first));
        }
        Visible {
            seen_dialogue: self.seen_dialogue,
            after_compaction: compaction,
            window_from: at,
            ids_compacted: if compaction {
                ids_compacted
            } else {
                HashMap::default()
            },
            ..Visible::default()
        }
    }

    /// Whether `text` says at least four words of the record that defines `id` ("reservation
    /// FQ8APE from New York (EWR) to Chicago (ORD), in basic economy"). (Measured: two or three,
    /// a flight's route or a class, are how a user picks an id, not what it is.)
    fn restates_record(&self, traj: &Trajectory, id: &str, text: &str) -> bool {
        let full = self.id_alias.get(id).map_or(id, String::as_str);
        let Some(&(turn, seg, s, e)) = self.id_record.get(full).or_else(|| self.id_record.get(id))
        else {
            return false;
        };
        let Some(result) = traj.turns[turn].segments.get(seg) else {
            return false;
        };
        let mut cache = self.record_words.borrow_mut();
        let values = cache
            .entry((turn, seg, s, e))
            .or_insert_with(|| record_values(&result.text.text, s, e));
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() >= 3)
            .map(str::to_lowercase)
            .collect();
        values
            .iter()
            .filter(|v| words.iter().any(|w| **w == ***v))
            .nth(3)
            .is_some()
    }

    /// Whether turn `k` lies in this window (past its compaction or reset).
    fn in_view(&self, k: usize) -> bool {
        k >= self.window_from
    }

    /// The antecedent to bind to when the fitting one is `fitting`: else the previous turn, unless
    /// a compaction may have taken the referent.
    fn or_previous(&self, fitting: Option<usize>) -> Option<usize> {
        fitting.or(if self.after_compaction {
            None
        } else {
            self.previous
        })
    }

    /// Turns a reference may point at besides its antecedent: the latest user and assistant
    /// turns and the last few turns before it. Which one the writer meant cannot always be
    /// shown, so each stays live.
    fn nearby(&self) -> Vec<Option<usize>> {
        let mut out = vec![
            self.previous,
            self.last_dialogue,
            self.last_user,
            self.last_assistant,
        ];
        out.extend(self.recent.iter().map(|&t| Some(t)));
        out
    }

    /// `nearby` plus the last tool result: where a pronoun's referent may lie ("It failed again").
    fn nearby_for_a_pronoun(&self) -> Vec<Option<usize>> {
        let mut out = self.nearby();
        out.push(self.last_result);
        out
    }

    /// `nearby` plus the latest turns whose calls did what `words` name ("edit", "inserted",
    /// "grepped").
    fn nearby_and_acting(&self, words: &str, lex: &Lexicon) -> Vec<Option<usize>> {
        let mut out = self.nearby();
        for family in super::obligations::families_of(words, lex) {
            if let Some(turns) = self.by_family.get(&family) {
                out.extend(turns.iter().map(|&t| Some(t)));
            }
        }
        out
    }
}

/// How many of the turns a compaction kept word for word the binder reads again after it.
const KEPT_IN_VIEW: usize = 128;

/// How many of the turns before everything compactions replaced the binder reads again after
/// each: the head of a log is its system prompt and task, a turn or two.
const HEAD_IN_VIEW: usize = 4;

/// How many identifiers of each of those turns' segments are read again: a bound that keeps a
/// log of thousands of compactions under a task of thousands of ids linear.
const HEAD_IDS: usize = 256;

/// Whether the binder stops at a compaction (what the agent sees) or reads on through it (where
/// a reference would bind had nothing been replaced: the `reference-across-compaction` rule).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Compactions {
    Stop,
    SeeThrough,
}

pub fn extract(
    traj: &Trajectory,
    lex: &Lexicon,
    calls: &Calls,
    compactions: Compactions,
    facts: &mut Vec<Fact>,
) {
    let nouns = &lex.noun_index;
    // The task's own words (the opening of the first user message): a turn that quotes them
    // restates "the original request" it names.
    let task: &str = traj
        .turns
        .iter()
        .find(|u| u.role == Role::User && u.has_text())
        .and_then(|u| u.segments.first())
        .map(|s| opening(&s.text.text))
        .unwrap_or("");
    let ids_of = |turn: &Turn| -> Vec<Vec<(usize, usize)>> {
        if turn.role == Role::Event {
            Vec::new()
        } else {
            turn.segments
                .iter()
                .map(|s| identifiers(&s.text.text, lex))
                .collect()
        }
    };
    let mut vis = Visible::default();
    let mut next_compaction = 0;
    // The first turn in view: after the latest compaction or reset, or the first turn that
    // compaction kept after what it replaced.
    let mut view_start = 0;
    // The turns before the first any compaction replaced (an OpenHands condensation's first
    // events, the task among them; a system prompt a compaction keeps) stay in view however
    // many compactions follow, the first `HEAD_IN_VIEW` of them read again after each. (Their
    // identifiers are found once.)
    let mut head_end = usize::MAX;
    let mut head_ids: Vec<Vec<Vec<(usize, usize)>>> = Vec::new();
    for (i, turn) in traj.turns.iter().enumerate() {
        let compaction = matches!(turn.event, Some(EventKind::Compaction { .. }));
        let resets = turn.event.as_ref().is_some_and(EventKind::resets_context);
        if resets || compaction && compactions == Compactions::Stop {
            vis = std::mem::take(&mut vis).after(compaction, i);
            // The turns a compaction kept word for word stay in view (`view_after`): they are
            // read again, the latest `KEPT_IN_VIEW` of them (a bound that keeps the reading
            // linear however the kept spans overlap). (Compactions are in turn order: a cursor
            // finds this one.)
            while traj
                .compactions
                .get(next_compaction)
                .is_some_and(|c| c.turn < i)
            {
                next_compaction += 1;
            }
            let this = traj
                .compactions
                .get(next_compaction)
                .filter(|c| compaction && c.turn == i);
            view_start = this.map_or(i + 1, |c| c.view_after(view_start));
            head_end = this
                .map_or(0, |c| c.replaced.0)
                .min(head_end)
                .min(view_start);
            let head = head_end.min(HEAD_IN_VIEW);
            while head_ids.len() < head {
                let mut ids = ids_of(&traj.turns[head_ids.len()]);
                for seg in &mut ids {
                    seg.truncate(HEAD_IDS);
                }
                head_ids.push(ids);
            }
            for (k, ids) in head_ids.iter().enumerate().take(head) {
                remember(k, traj, ids, calls, nouns, &mut vis);
            }
            for k in view_start.max(i.saturating_sub(KEPT_IN_VIEW)).max(head)..i {
                remember(k, traj, &ids_of(&traj.turns[k]), calls, nouns, &mut vis);
            }
            continue;
        }
        let dialogue = matches!(turn.role, Role::User | Role::Assistant) && !turn.is_summary;
        // The identifiers of each segment: what this turn refers back to, and what later turns
        // can refer back to.
        let ids = ids_of(turn);
        if dialogue && vis.seen_dialogue {
            let reader = Reader {
                i,
                turn,
                seg_ids: &ids,
                task,
                traj,
                lex,
                infos: calls.of_turn(i),
                vis: &vis,
            };
            reader.find(facts);
        } else if dialogue {
            before_the_log(i, turn, lex, facts);
        }
        remember(i, traj, &ids, calls, nouns, &mut vis);
        if dialogue {
            vis.seen_dialogue = true;
        }
    }
}

/// A clearing leaves the turns around the results it cleared in view, so the binder read on
/// through it; what it cleared is out of view for the turns after it. A reference bound there
/// is unbound: nothing it can see is its antecedent (an identifier a later turn in view shows
/// again binds there). Such turns are no candidates either. Run on the resolved facts: the
/// resolver adds candidates of its own.
pub fn out_of_cleared_results(traj: &Trajectory, facts: &mut [Fact]) {
    let cleared_at = traj.cleared_at();
    if cleared_at.is_empty() {
        return;
    }
    let gone = |t: usize, by: usize| cleared_at.get(t).copied().flatten().is_some_and(|c| c < by);
    for f in facts
        .iter_mut()
        .filter(|f| f.kind() == crate::extract::FactKind::Reference)
    {
        let r = f.turn;
        f.candidates.retain(|&t| !gone(t, r));
        let Some(a) = f.antecedent.filter(|a| gone(a.turn, r)) else {
            continue;
        };
        f.antecedent = None;
        f.status = Status::Unbound;
        if f.subkind == Subkind::Identifier {
            if let Some(&later) = f.candidates.iter().filter(|&&t| t > a.turn).max() {
                f.candidates.retain(|&t| t != later);
                f.antecedent = Some(link(traj, later));
                f.status = Status::Bound;
            }
        }
    }
}

/// The log's first dialogue turn can still point back past its start: "summarize the
/// conversation so far, paying attention to your previous actions" (a compaction agent's log
/// holds none of them). A strong backward cue before a noun for what is said or done in a
/// conversation is such a reference, unbound: nothing the analyzer sees is its antecedent.
fn before_the_log(i: usize, turn: &Turn, lex: &Lexicon, facts: &mut Vec<Fact>) {
    for seg in turn
        .segments
        .iter()
        .filter(|s| s.kind == SegmentKind::Prose)
    {
        let t = seg.text.text.as_str();
        for c in lex.description.captures_iter(t) {
            let m = c.get(0).map_or(0..0, |m| m.range());
            // The cue with its determiner, and the head noun: a strong cue before an unlisted
            // noun (groups 6, 7) or before a listed one (groups 2, 4).
            let (cue, head) = match (c.get(6), c.get(7), c.get(2), c.get(4)) {
                // ("the other X" needs an earlier turn that said X: none is seen here.)
                (Some(cue), Some(noun), ..) if !lex.needs_a_said_noun(cue.as_str()) => {
                    (cue.as_str(), noun.as_str().rsplit(' ').next().unwrap_or(""))
                }
                (.., Some(cue), Some(noun))
                    if lex.strong_cues.contains(&cue.as_str().to_lowercase()) =>
                {
                    (&t[m.start..cue.end()], noun.as_str())
                }
                _ => continue,
            };
            let cue = cue.to_lowercase();
            // ("my previous booking" is the user's own world, not this conversation's.)
            let theirs =
                cue.starts_with("the ") || cue.starts_with("your ") || cue.starts_with("our ");
            if theirs && lex.said_or_done_nouns.contains(&head.to_lowercase()) {
                let mut f = fact_at(Subkind::Anaphoric, i, &seg.text, m.start, m.end);
                f.status = Status::Unbound;
                facts.push(f);
            }
        }
    }
}

pub(crate) fn link(traj: &Trajectory, turn: usize) -> Link {
    let t = &traj.turns[turn];
    Link {
        turn,
        bytes: t.segments.first().map_or(t.span, |s| s.text.span),
    }
}

/// Binds a reference to its best antecedent, keeping the other plausible ones as candidates:
/// which of them the writer meant cannot always be shown, and each must stay (conservative).
fn bind(f: &mut Fact, traj: &Trajectory, antecedent: Option<usize>, others: &[Option<usize>]) {
    if let Some(a) = antecedent {
        f.antecedent = Some(link(traj, a));
        f.status = Status::Bound;
    }
    for &o in others.iter().flatten() {
        if Some(o) != antecedent && !f.candidates.contains(&o) {
            f.candidates.push(o);
        }
    }
}

/// The references of one turn as they are found. Each claims its words, so that no later
/// pattern reads them again.
struct Found<'a> {
    turn: usize,
    traj: &'a Trajectory,
    claimed: Claimed,
    facts: &'a mut Vec<Fact>,
}

/// The bytes references have claimed, as disjoint ranges by start: a question about a byte or a
/// range is a lookup, not a scan of every reference found so far (quadratic in a message of
/// thousands of them).
#[derive(Default)]
struct Claimed(std::collections::BTreeMap<usize, usize>);

impl Claimed {
    /// Claims `[s, e)`, merged with the ranges it overlaps.
    fn add(&mut self, mut s: usize, mut e: usize) {
        if s >= e {
            return;
        }
        if let Some((&ps, &pe)) = self.0.range(..=s).next_back() {
            if pe > s {
                self.0.remove(&ps);
                (s, e) = (ps, e.max(pe));
            }
        }
        while let Some((&ns, &ne)) = self.0.range(s..).next() {
            if ns >= e {
                break;
            }
            self.0.remove(&ns);
            e = e.max(ne);
        }
        self.0.insert(s, e);
    }

    /// Whether a claimed range holds the byte at `at`.
    fn holds(&self, at: usize) -> bool {
        self.0
            .range(..=at)
            .next_back()
            .is_some_and(|(_, &e)| at < e)
    }

    /// Whether a claimed range overlaps `[s, e)`.
    fn overlaps(&self, s: usize, e: usize) -> bool {
        self.0
            .range(..e)
            .next_back()
            .is_some_and(|(_, &end)| s < end)
    }
}

impl Found<'_> {
    /// Whether a reference already found holds the byte at `at`.
    fn claims(&self, at: usize) -> bool {
        self.claimed.holds(at)
    }

    /// Records the reference at `text[s..e]`, bound as `bind` says.
    fn push(
        &mut self,
        subkind: Subkind,
        text: &Text,
        s: usize,
        e: usize,
        antecedent: Option<usize>,
        others: &[Option<usize>],
    ) {
        let mut f = fact_at(subkind, self.turn, text, s, e);
        bind(&mut f, self.traj, antecedent, others);
        self.claimed.add(s, e);
        self.facts.push(f);
    }
}

/// The first 60 bytes or so of a text (on a char boundary), or nothing for a text under 40:
/// enough to tell a quotation of it.
fn opening(t: &str) -> &str {
    let t = t.trim();
    if t.len() < 40 {
        return "";
    }
    &t[..floor_boundary(t, 60)]
}

/// The turn being read for references: its index, the identifiers of each of its segments and
/// the task's own words (see `opening`), with the log, the lexicon, the turn's calls and what
/// earlier turns made visible.
struct Reader<'a> {
    i: usize,
    turn: &'a Turn,
    seg_ids: &'a [Vec<(usize, usize)>],
    task: &'a str,
    traj: &'a Trajectory,
    lex: &'a Lexicon,
    infos: &'a [CallInfo],
    vis: &'a Visible,
}

/// One prose segment of the turn being read, with what every kind of reference asks of it.
struct Segment<'a> {
    /// Its place among the turn's prose segments (0: the turn's opening is in it).
    index: usize,
    text: &'a Text,
    sents: &'a [Sentence],
    /// Where the turn's opening ends: its first sentence, or two after a short interjection
    /// (0 past the first segment).
    opening_end: usize,
    /// Where the code block this segment starts inside ends (0 when it starts in prose).
    code_end: usize,
    /// What the turn's other segments show (a reader may give each paragraph of a message a
    /// segment of its own, as Aider's does).
    around: Around,
    /// Where the segment's first "```", its first backtick and its first file name start.
    first_code: Option<usize>,
    first_backtick: Option<usize>,
    first_file: Option<usize>,
    /// Where each list item ends, in order: whether two come before an offset is a binary
    /// search, not a scan per match.
    item_ends: Vec<usize>,
    /// Which words the segment says where (`Said::before`).
    said: descriptions::Said<'a>,
    /// Where its lines break (`line_start`, `line_end`).
    lines: LineBreaks,
}

impl<'a> Segment<'a> {
    fn new(index: usize, seg: &'a crate::model::Segment, around: Around) -> Segment<'a> {
        let text = &seg.text;
        let t = text.text.as_str();
        let sents = sentences_of(seg);
        // (Where the block an earlier segment opened closes.)
        let code_end = if around.fence.is_open() {
            fence_steps(t, around.fence)
                .find(|(_, f)| !f.is_open())
                .map_or(t.len(), |(end, _)| end)
        } else {
            0
        };
        let opening_end = if index == 0 {
            let mut k = 0;
            let mut end = 0;
            for s in sents {
                end = s.end;
                k += 1;
                if k >= 2 || t[s.start..s.end].split_whitespace().count() > 3 {
                    break;
                }
            }
            end
        } else {
            0
        };
        let item_ends = sents
            .iter()
            .filter(|s| is_list_item(&t[s.start..s.end]).is_some())
            .map(|s| s.end)
            .collect();
        Segment {
            index,
            text,
            sents,
            opening_end,
            code_end,
            around,
            first_code: t.find("```"),
            first_backtick: memchr::memchr(b'`', t.as_bytes()),
            first_file: first_file_name(t),
            said: descriptions::Said::new(t),
            lines: LineBreaks::default(),
            item_ends,
        }
    }

    /// Where the line holding `at` ends (its '\n', or the text's end).
    fn line_end(&self, at: usize) -> usize {
        self.lines.end(&self.text.text, at)
    }

    /// Where the line holding `at` starts (after its '\n', or at the text's start).
    fn line_start(&self, at: usize) -> usize {
        self.lines.start(&self.text.text, at)
    }

    /// Whether the turn shows a fenced code block before `at`.
    fn code_before(&self, at: usize) -> bool {
        self.around.code_before || self.first_code.is_some_and(|k| k < at)
    }

    /// Whether the turn names a file or a path before `at`.
    fn file_before(&self, at: usize) -> bool {
        self.around.file_before || self.first_file.is_some_and(|k| k < at)
    }

    /// Whether at least two list items end before `at`.
    fn list_before(&self, at: usize) -> bool {
        self.item_ends.partition_point(|&end| end <= at) >= 2
    }

    /// Whether `at` is in a sentence of prose, not in a fenced code block (which no sentence
    /// holds: code the turn writes restates its values).
    fn in_prose(&self, at: usize) -> bool {
        let k = self.sents.partition_point(|x| x.end <= at);
        at >= self.code_end && self.sents.get(k).is_some_and(|x| x.start <= at)
    }
}

/// What a prose segment's neighbours in its turn show.
#[derive(Clone, Copy, Default)]
struct Around {
    /// The fenced code block, if any, an earlier segment opened and left open.
    fence: Fence,
    /// An earlier segment holds a fenced code block: "This command will run …" points at it.
    code_before: bool,
    /// An earlier segment names a file ("aider/io.py"): "This file contains …" is it.
    file_before: bool,
    /// The next segment opens with a list or a code block (after at most a line naming its
    /// file): "Here's the proposed change:" introduces it.
    next_shows: bool,
}

/// Whether a line starts something a turn shows: a list item or a fenced code block.
fn starts_shown(line: &str) -> bool {
    is_list_item(line).is_some() || is_fence_line(line)
}

/// Whether a text opens with something shown, or with a fenced code block within two lines.
fn opens_with_shown(text: &str) -> bool {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    starts_shown(lines.next().unwrap_or("")) || lines.next().is_some_and(is_fence_line)
}

impl Reader<'_> {
    /// Finds the turn's references, segment by segment.
    fn find(&self, facts: &mut Vec<Fact>) {
        let mut found = Found {
            turn: self.i,
            traj: self.traj,
            claimed: Claimed::default(),
            facts,
        };
        // What the segments so far show (a reader may cut one block of code into several
        // segments, Aider's edit blocks, the later ones starting inside it).
        let mut around = Around::default();
        // Ids whose record this turn has given: a later mention in the turn points at that.
        let mut restated_here: HashSet<&str> = HashSet::default();
        let prose: Vec<(&crate::model::Segment, &Vec<(usize, usize)>)> = self
            .turn
            .segments
            .iter()
            .zip(self.seg_ids)
            .filter(|(s, _)| s.kind == SegmentKind::Prose && !s.text.text.trim().is_empty())
            .collect();
        // An id the turn says the record of anywhere is restated in all of the turn.
        for &(seg, ids) in &prose {
            let t = seg.text.text.as_str();
            for &(s, e) in ids {
                if self
                    .vis
                    .restates_record(self.traj, &t[s..e], id_window(t, s, e))
                {
                    restated_here.insert(&t[s..e]);
                }
            }
        }
        for (index, &(seg, ids)) in prose.iter().enumerate() {
            around.next_shows = prose
                .get(index + 1)
                .is_some_and(|(n, _)| opens_with_shown(&n.text.text));
            let seg = Segment::new(index, seg, around);
            // (What a reference claims is a range of its own segment's text.)
            found.claimed = Claimed::default();
            if let Some((_, after)) = fence_steps(&seg.text.text, around.fence).last() {
                around.fence = after;
                around.code_before = true;
            }
            around.file_before |= seg.first_file.is_some();
            // Each kind claims its words before the next looks: an ordinal's words are no
            // description, a description's demonstrative no pronoun.
            self.ordinals(&seg, &mut found);
            self.descriptions(&seg, &mut found);
            self.pronouns(&seg, &mut found);
            self.identifiers(&seg, ids, &mut restated_here, &mut found);
            self.tracked_items(&seg, &mut found);
        }
    }
}

/// Where the first word naming a file or a path starts.
fn first_file_name(text: &str) -> Option<usize> {
    // Only a word holding a '.' or a '/' can name one: look at those words alone, in order (a
    // scan of every word was a tenth of the reference extractor's time on dialogue logs).
    let mut checked = 0;
    for k in memchr::memchr2_iter(b'.', b'/', text.as_bytes()) {
        if k < checked {
            continue;
        }
        let start = text[..k]
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        let end = text[k..]
            .char_indices()
            .find(|(_, c)| c.is_whitespace())
            .map_or(text.len(), |(i, _)| k + i);
        checked = end;
        if names_a_file(&text[start..end]) {
            return Some(start);
        }
    }
    None
}

/// Whether a whitespace-delimited word names a file or a path.
fn names_a_file(word: &str) -> bool {
    let w = word.trim_matches([',', '.', '(', ')', ':', '"', '\'', '`']);
    // ("e.g.", "$245.50", "05/26" are not names, nor a command such as "/ask".)
    (w.contains('.') || w.chars().skip(1).any(|c| c == '/'))
        && w.chars().any(|c| c.is_ascii_alphabetic())
        && !matches!(
            w.to_ascii_lowercase().as_str(),
            "e.g" | "i.e" | "etc" | "vs"
        )
}

/// How many of the latest turns a reference keeps live besides its antecedent.
const RECENT: usize = 4;

/// The lines of a text that open or close a fenced code block, read from state `from`: where
/// each line ends, and the state after it.
fn fence_steps(t: &str, from: Fence) -> impl Iterator<Item = (usize, Fence)> + '_ {
    t.split_inclusive('\n')
        .scan((0, from), |(at, fence), line| {
            *at += line.len();
            let (after, is_fence) = fence.step(line);
            *fence = after;
            Some(is_fence.then_some((*at, after)))
        })
        .flatten()
}

/// The first and last `n` bytes of a text (the whole text when it is short), on char boundaries.
fn head_and_tail(t: &str, n: usize) -> Vec<&str> {
    if t.len() <= 2 * n {
        return vec![t];
    }
    vec![
        &t[..floor_boundary(t, n)],
        &t[ceil_boundary(t, t.len() - n)..],
    ]
}

/// How many turns per action family stay candidates.
const ACTING: usize = 3;

/// Records that turn `i` did what a call does.
fn act(vis: &mut Visible, i: usize, families: &[String]) {
    for family in families {
        let turns = vis.by_family.entry(family.clone()).or_default();
        if turns.back() != Some(&i) {
            if turns.len() == ACTING {
                turns.pop_front();
            }
            turns.push_back(i);
        }
    }
}

/// The nouns a later description can name, by surface form (lowercase, and its plural) → stem,
/// so the scan of a large output needs no stemming. Built once with the lexicon
/// (`Lexicon::noun_index`): every trajectory's reading uses the same.
#[derive(Debug, Clone)]
pub(crate) struct Nouns {
    stems: HashMap<String, String>,
    /// Per first letter, the second letters a noun starts with: most words of an output are
    /// no noun, and two table reads turn them away before a lowercase copy and a hash.
    starts: [u32; 26],
}

impl Nouns {
    pub(crate) fn new(nouns: &[String]) -> Nouns {
        let mut starts = [0u32; 26];
        let stems: HashMap<String, String> = nouns
            .iter()
            .flat_map(|n| [n.to_lowercase(), format!("{}s", n.to_lowercase())])
            .map(|f| {
                let s = stem(&f);
                (f, s)
            })
            .collect();
        // (A noun not of ASCII letters is never looked up: the scan splits words at others.)
        for f in stems.keys() {
            if let [a @ b'a'..=b'z', b @ b'a'..=b'z', ..] = f.as_bytes() {
                starts[(a - b'a') as usize] |= 1 << (b - b'a');
            }
        }
        Nouns { stems, starts }
    }

    /// Whether `w`, a run of ASCII letters, may be a noun (false: it is not).
    fn may_hold(&self, w: &str) -> bool {
        match w.as_bytes() {
            [a, b, ..] => {
                let (a, b) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
                a.is_ascii_lowercase()
                    && b.is_ascii_lowercase()
                    && self.starts[(a - b'a') as usize] & 1 << (b - b'a') != 0
            }
            _ => false,
        }
    }
}

/// Whether a line enumerates short items after a colon that names them ("Found 3 candidates:
/// parse_v1, parse_v2, parse_legacy"): a list written inline, what "the second candidate" counts.
fn lists_after_a_colon(line: &str) -> bool {
    // The colon is one of the last few: fields may follow the list on its line (`{"output":
    // "Found 3 candidates: a, b, c", "metadata": {"exit_code": 0}}`). (A few: each try reads the
    // line, and a line may hold thousands.)
    line.rmatch_indices(": ")
        .take(4)
        .any(|(k, _)| lists_after(&line[..k], &line[k + 2..]))
}

/// Whether `rest` enumerates short items that `head`, the text before their colon, names.
fn lists_after(head: &str, rest: &str) -> bool {
    // What comes just before the colon names the items ("3 candidates", "Options", "Candidates
    // found"), and no failure ("TypeError: expected str, bytes or os.PathLike object").
    let head = head.to_ascii_lowercase();
    let named = head
        .rsplit(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .take(3)
        .any(|w| w.len() > 3 && w.ends_with('s') && !w.ends_with("ss"));
    if !named
        || ["error", "exception", "warning", "fail"]
            .iter()
            .any(|w| head.contains(w))
    {
        return false;
    }
    // ("red, green and blue": the last comma may be a conjunction.)
    let items: Vec<&str> = rest
        .trim_end_matches(['.', ' '])
        .split(',')
        .flat_map(|i| i.split(" and ").flat_map(|i| i.split(" or ")))
        .map(|i| {
            i.trim()
                .trim_start_matches("and ")
                .trim_start_matches("or ")
        })
        .collect();
    // (Two are too often the answer to a question, "two rows: audit_log and session_tokens",
    // not options to pick from.)
    items.len() >= 3
        && items
            .iter()
            .all(|i| !i.is_empty() && i.split_whitespace().count() <= 4)
}

fn remember(
    i: usize,
    traj: &Trajectory,
    seg_ids: &[Vec<(usize, usize)>],
    calls: &Calls,
    nouns: &Nouns,
    vis: &mut Visible,
) {
    let turn = &traj.turns[i];
    if turn.role == Role::Event {
        return;
    }
    let is_result = turn.role == Role::Tool;
    let mut items = 0;
    let mut lower = String::new();
    for (k, (seg, ids)) in turn.segments.iter().zip(seg_ids).enumerate() {
        let t = seg.text.text.as_str();
        // What a later "that error" points at is said near the start or the end of a large
        // output (a file print's middle is data): read those parts for head nouns.
        // (Not the system prompt's: "the original payment" is the reservation's, not the
        // policy's.)
        let parts = if turn.role == Role::System {
            Vec::new()
        } else {
            head_and_tail(t, 4096)
        };
        for part in parts {
            // Runs of letters: a field name says its noun too (`payment_history`).
            for w in ascii_letter_runs(part) {
                if (3..=16).contains(&w.len()) && nouns.may_hold(w) {
                    lower.clear();
                    lower.push_str(w);
                    lower.make_ascii_lowercase();
                    if let Some(s) = nouns.stems.get(lower.as_str()) {
                        // (No new key for a noun seen before: most words repeat.)
                        match vis.noun_last.get_mut(s) {
                            Some(last) => *last = i,
                            None => {
                                vis.noun_last.insert(s.clone(), i);
                                vis.noun_first.entry(s.clone()).or_insert(i);
                            }
                        }
                    }
                }
            }
        }
        for &(s, e) in ids {
            let id = &t[s..e];
            see_id(vis, id, i, is_result);
            if !is_result {
                continue;
            }
            let Some(seen) = vis.ids.get_mut(id) else {
                continue;
            };
            // The first result to hold it, or better the first to give its record.
            let record = names_its_record(&t[..s]) && seen.first_record.is_none();
            if record {
                seen.first_record = Some(i);
            }
            if record || seen.first_result == Some(i) && !vis.id_record.contains_key(id) {
                vis.id_record.insert(id.to_string(), (i, k, s, e));
            }
        }
        // (Two items make a list: counting stops there.)
        if is_result
            && (t.trim_start().starts_with('[')
                || t.lines().filter(|l| !l.trim().is_empty()).nth(1).is_some())
        {
            items += 2;
        } else if items < 2 {
            items += t
                .lines()
                .filter(|l| is_list_item(l).is_some())
                .take(2 - items)
                .count();
            if items < 2 && t.lines().any(lists_after_a_colon) {
                items = 2;
            }
        }
    }
    // A result is what its call did: "the file you grepped" is in the grep's output.
    if let Some((a, (t, k))) = turn
        .result
        .as_ref()
        .and_then(|r| r.call)
        .filter(|call| vis.awaiting.remove(call))
        .and_then(|(t, k)| calls.of_turn(t).get(k).map(|a| (a, (t, k))))
    {
        act(vis, i, &a.families);
        // A record fetched by an id (`get_user_details` of `sophia_silva_7557`) says what the
        // id is, whether or not it repeats the id; so does a lookup's print of an entry that
        // opens on the id (`bd show spotter-gqc.5` printing "○ spotter-gqc.5 · Session filters
        // …"), not a report of what was done to it ("✓ Reopened issue spotter-gqc.5").
        let record = gives_a_record(turn);
        let lookup = a.kind == super::null_results::CallKind::Retrieve && succeeded(turn);
        let heads = if lookup && !record && !a.ids.is_empty() {
            turn.segments
                .iter()
                .flat_map(|g| line_heads(&g.text.text))
                .collect()
        } else {
            HashSet::default()
        };
        let args = &traj.turns[t].calls[k].arguments;
        for &(s, e) in &a.ids {
            let id = &args[s..e];
            if record || heads.contains(id) {
                if let Some(seen) = vis.ids.get_mut(id) {
                    seen.first_record.get_or_insert(i);
                }
            }
        }
        // A printed file is "the code" a later turn talks about, whatever words it holds.
        if a.kind == super::null_results::CallKind::ReadFile {
            for noun in ["code", "file", "source"] {
                vis.noun_last.insert(stem(noun), i);
            }
        }
    }
    for (k, (c, info)) in turn.calls.iter().zip(calls.of_turn(i)).enumerate() {
        for &(s, e) in &info.ids {
            see_id(vis, &c.arguments[s..e], i, false);
        }
        act(vis, i, &info.families);
        vis.awaiting.insert((i, k));
    }
    if items >= 2 {
        vis.last_list = Some(i);
    }
    // The system prompt is the standing frame, not something a turn refers back to by "that";
    // what the harness injects later (a hook's report, a finished job's notice) is an event of
    // the run.
    if (turn.role != Role::System || vis.seen_dialogue)
        && (turn.has_text() || turn.result.is_some() || !turn.calls.is_empty())
    {
        vis.previous = Some(i);
        if vis.recent.len() == RECENT {
            vis.recent.pop_front();
        }
        vis.recent.push_back(i);
    }
    match turn.role {
        Role::User if turn.has_text() => {
            vis.last_dialogue = Some(i);
            vis.last_user = Some(i);
        }
        Role::Assistant if turn.has_text() => {
            vis.last_dialogue = Some(i);
            vis.last_assistant = Some(i);
        }
        Role::Tool => vis.last_result = Some(i),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::Claimed;

    #[test]
    fn short_items_after_a_colon_naming_them_are_a_list() {
        use super::lists_after_a_colon as list;
        assert!(list("Found 3 candidates: parse_v1, parse_v2, parse_legacy"));
        assert!(list("Options: red, green and blue."));
        assert!(!list("It returned two rows: audit_log and session_tokens."));
        // A failure's message is no list, nor are clauses.
        assert!(!list(
            "TypeError: expected str, bytes or os.PathLike object, not NoneType"
        ));
        assert!(!list("ValueError: invalid literal for int(): 'a, b, c'"));
        assert!(!list(
            "Note: the parser fails on empty input, the lexer drops the last token when it is a comment, and the tests miss both"
        ));
        assert!(!list("No colon here, a, b, c"));
        // Fields after the list on its line (a tool output kept in its JSON envelope).
        assert!(list(
            r#"{"output": "Found 3 candidates: parse_v1, parse_v2, parse_legacy", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}"#
        ));
        // Only the last few colons are tried.
        let far = format!("Found 3 candidates: a, b, c {}", "k: v ".repeat(5));
        assert!(!list(&far));
    }

    #[test]
    fn a_print_holds_an_entry_for_an_id_when_a_line_opens_on_it() {
        let heads = super::line_heads(
            "○ spotter-4te.1 · Add OTEL dependencies\nOwner: M\n===\nspotter-gqc.5: Session filters\n✓ Reopened issue spotter-gqc.7\nspotter-gqc.50: Other\nspotter-gqc.6.",
        );
        for id in [
            "spotter-4te.1",
            "spotter-gqc.5",
            "spotter-gqc.50",
            "spotter-gqc.6",
        ] {
            assert!(heads.contains(id), "{id}: {heads:?}");
        }
        // A report of what was done to it, or a longer id that starts with it, is no entry.
        for id in ["spotter-gqc.7", "spotter-gqc", "spotter-4te"] {
            assert!(!heads.contains(id), "{id}: {heads:?}");
        }
    }
    use proptest::prelude::*;

    proptest! {
        /// Claimed ranges answer as the list of every range claimed would.
        #[test]
        fn claimed_ranges_answer_as_a_list_would(
            ranges in prop::collection::vec((0usize..60, 0usize..12), 0..25),
            probes in prop::collection::vec((0usize..70, 0usize..12), 1..20),
        ) {
            let mut claimed = Claimed::default();
            let mut list = Vec::new();
            for (s, len) in ranges {
                claimed.add(s, s + len);
                list.push((s, s + len));
            }
            for (at, len) in probes {
                let holds = list.iter().any(|&(s, e)| s <= at && at < e);
                prop_assert_eq!(claimed.holds(at), holds);
                // (An empty range overlaps nothing.)
                let overlaps = list.iter().any(|&(s, e)| s < e && s < at + len && at < e);
                prop_assert_eq!(claimed.overlaps(at, at + len), overlaps);
            }
        }
    }
}
