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
    is_fence_line, is_stopword, sentences, stem, strip_prefix_ci, tokens, Sentence,
};
use super::{fact_at, Fact, Link, Status, Subkind};
use crate::model::{EventKind, Role, SegmentKind, Trajectory, Turn};
use crate::source::Span;
use crate::text::{ceil_boundary, floor_boundary, Text};
// Words and ids are hashed once per token of every turn: a fast hash.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

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

fn earliest(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

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
    id_record: HashMap<String, (usize, usize, usize, usize)>,
}

impl Visible {
    /// A fresh window after a compaction or reset, remembering which ids it replaced.
    fn after(self, compaction: bool) -> Visible {
        let mut ids_compacted = self.ids_compacted;
        for (id, seen) in self.ids {
            ids_compacted.insert(id, seen.first_result.unwrap_or(seen.first));
        }
        Visible {
            seen_dialogue: self.seen_dialogue,
            after_compaction: compaction,
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
        let values = record_values(&result.text.text, s, e);
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
    // Surface form (as written, lowercase, and its plural) → stem, so the scan needs no stemming.
    let nouns: HashMap<String, String> = lex
        .nouns
        .iter()
        .flat_map(|n| [n.to_lowercase(), format!("{}s", n.to_lowercase())])
        .map(|f| {
            let s = stem(&f);
            (f, s)
        })
        .collect();
    // The task's own words (the opening of the first user message): a turn that quotes them
    // restates "the original request" it names.
    let task: &str = traj
        .turns
        .iter()
        .find(|u| u.role == Role::User && u.has_text())
        .and_then(|u| u.segments.first())
        .map(|s| opening(&s.text.text))
        .unwrap_or("");
    let mut vis = Visible::default();
    for (i, turn) in traj.turns.iter().enumerate() {
        let compaction = matches!(turn.event, Some(EventKind::Compaction { .. }));
        let resets = turn.event.as_ref().is_some_and(EventKind::resets_context);
        if resets || compaction && compactions == Compactions::Stop {
            vis = std::mem::take(&mut vis).after(compaction);
            continue;
        }
        let dialogue = matches!(turn.role, Role::User | Role::Assistant) && !turn.is_summary;
        // The identifiers of each segment: what this turn refers back to, and what later turns
        // can refer back to.
        let ids: Vec<Vec<(usize, usize)>> = if turn.role == Role::Event {
            Vec::new()
        } else {
            turn.segments
                .iter()
                .map(|s| identifiers(&s.text.text, lex))
                .collect()
        };
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
        remember(i, turn, &ids, calls, &nouns, &mut vis);
        if dialogue {
            vis.seen_dialogue = true;
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
            let (Some(cue), Some(noun)) = (c.get(6), c.get(7)) else {
                continue;
            };
            let cue = cue.as_str().to_lowercase();
            let head = noun.as_str().rsplit(' ').next().unwrap_or("");
            // ("my previous booking" is the user's own world, not this conversation's.)
            let theirs =
                cue.starts_with("the ") || cue.starts_with("your ") || cue.starts_with("our ");
            if theirs && lex.said_or_done_nouns.contains(&head.to_lowercase()) {
                let m = c.get(0).map_or(0..0, |m| m.range());
                let mut f = fact_at(Subkind::Anaphoric, i, &seg.text, m.start, m.end);
                f.status = Status::Unbound;
                facts.push(f);
            }
        }
    }
}

fn link(traj: &Trajectory, turn: usize) -> Link {
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
    claimed: Vec<Span>,
    facts: &'a mut Vec<Fact>,
}

impl Found<'_> {
    /// Whether a reference already found holds the byte at `at`.
    fn claims(&self, at: usize) -> bool {
        self.claimed.iter().any(|c| c.start <= at && at < c.end)
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
        self.claimed.push(Span::new(s, e));
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
    sents: Vec<Sentence>,
    /// Where the turn's opening ends: its first sentence, or two after a short interjection
    /// (0 past the first segment).
    opening_end: usize,
    /// Where the code block this segment starts inside ends (0 when it starts in prose).
    code_end: usize,
    /// What the turn's other segments show (a reader may give each paragraph of a message a
    /// segment of its own, as Aider's does).
    around: Around,
    /// Where the segment's first "```" and its first file name start.
    first_code: Option<usize>,
    first_file: Option<usize>,
    /// Where each list item ends, in order: whether two come before an offset is a binary
    /// search, not a scan per match.
    item_ends: Vec<usize>,
}

impl<'a> Segment<'a> {
    fn new(index: usize, text: &'a Text, around: Around) -> Segment<'a> {
        let t = text.text.as_str();
        let sents = sentences(t);
        let code_end = if around.in_fence {
            fence_lines(t).next().map_or(t.len(), |(_, end)| end)
        } else {
            0
        };
        let opening_end = if index == 0 {
            let mut k = 0;
            let mut end = 0;
            for s in &sents {
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
            first_file: first_file_name(t),
            item_ends,
        }
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
    /// The segment starts inside a fenced code block an earlier one opened.
    in_fence: bool,
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
            claimed: Vec::new(),
            facts,
        };
        // What the segments so far show (a reader may cut one block of code into several
        // segments, Aider's edit blocks, the later ones starting inside it).
        let mut around = Around::default();
        // Ids whose record this turn has given: a later mention in the turn points at that.
        let mut restated_here: Vec<&str> = Vec::new();
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
                    restated_here.push(&t[s..e]);
                }
            }
        }
        for (index, &(seg, ids)) in prose.iter().enumerate() {
            around.next_shows = prose
                .get(index + 1)
                .is_some_and(|(n, _)| opens_with_shown(&n.text.text));
            let seg = Segment::new(index, &seg.text, around);
            let fences = fence_lines(&seg.text.text).count();
            around.in_fence ^= fences % 2 == 1;
            around.code_before |= fences > 0;
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

    /// Ordinals: "the second option", "the first of them".
    fn ordinals(&self, seg: &Segment, found: &mut Found) {
        let (lex, vis, t) = (self.lex, self.vis, seg.text.text.as_str());
        let mut ords: Vec<(usize, usize)> = lex
            .ordinal
            .find_iter(t)
            .map(|m| (m.start(), m.end()))
            .collect();
        ords.extend(lex.ordinal_phrases.find_all(t));
        ords.sort();
        for (s, e) in ords {
            if seg.list_before(s) || found.claims(s) || !seg.in_prose(s) {
                continue;
            }
            // "the first few rows", "the first 10 lines": a quantity, not a pick from a list.
            let after = t[s..]
                .split_whitespace()
                .nth(2)
                .unwrap_or("")
                .to_lowercase();
            // "the second cheapest flight": a rank by a measure, what to look for, not a place
            // in a list shown before.
            if matches!(after.as_str(), "few" | "couple" | "several" | "many")
                || after.starts_with(|c: char| c.is_ascii_digit())
                || superlative(&after)
            {
                continue;
            }
            let e = t[s..e]
                .trim_end_matches(|c: char| !c.is_alphanumeric())
                .len()
                + s;
            // "Option 1: ..." or a heading "**Option 1**" defines the option here.
            let line_start = t[..s].rfind('\n').map_or(0, |k| k + 1);
            let lead = t[line_start..s]
                .trim_start_matches(|c: char| c.is_whitespace() || "#*-•>0123456789.)".contains(c));
            if t[e..].trim_start_matches(['*', ' ', ')']).starts_with(':')
                || lead.split_whitespace().count() <= 1 && t[line_start..s].contains("**")
            {
                continue;
            }
            if restates_in_parentheses(t, e) {
                continue;
            }
            // "check the schedules for A, B and C to see if any of them …": "them" is a
            // pronoun, and past the turn's opening, or after its sentence names several things,
            // its antecedent can be in the turn itself.
            let of_them = t[s..e]
                .to_ascii_lowercase()
                .trim_end_matches(|c: char| !c.is_alphanumeric())
                .ends_with(" of them");
            let sentence_start = seg.sents.iter().find(|x| x.end > s).map_or(0, |x| x.start);
            if of_them && (s >= seg.opening_end || names_several(&t[sentence_start.min(s)..s])) {
                continue;
            }
            // "my last reservation": the latest one the user has, not the last of a list.
            let phrase = &t[s..e];
            // "Verify the rating of each of these trails" after the turn named the trails: the
            // demonstrative points inside the turn, as "these trails" alone does.
            if points_inside_turn(phrase, t, s, e) {
                continue;
            }
            let ordinal_word = phrase.split_whitespace().nth(1).unwrap_or("");
            if ordinal_word.eq_ignore_ascii_case("last") && dated_not_pointed(phrase, lex) {
                continue;
            }
            // What the ordinal counts may be calls: "the second edit", "the file you grepped".
            let with_clause: String = t[s..]
                .split_whitespace()
                .take(6)
                .collect::<Vec<_>>()
                .join(" ");
            let others = vis.nearby_and_acting(&with_clause, lex);
            let ante = vis.or_previous(vis.last_list);
            found.push(Subkind::Ordinal, seg.text, s, e, ante, &others);
        }
    }

    /// Anaphoric descriptions: a demonstrative or a backward cue before a noun ("these
    /// changes", "the previous calculation", "the file you created").
    fn descriptions(&self, seg: &Segment, found: &mut Found) {
        let (lex, vis, traj, t, text) = (
            self.lex,
            self.vis,
            self.traj,
            seg.text.text.as_str(),
            seg.text,
        );
        let (i, turn, task, infos) = (self.i, self.turn, self.task, self.infos);
        let shows_work = !turn.calls.is_empty();
        // Whether the turn quotes the task: then "the original request" is restated in it.
        let quotes_task =
            || !task.is_empty() && turn.segments.iter().any(|s| s.text.text.contains(task));
        for c in lex.description.captures_iter(t) {
            let m = c.get(0).unwrap();
            let (s, e) = (m.start(), m.end());
            if found.claims(s) || !seg.in_prose(s) {
                continue;
            }
            // Any noun after these/those or a strong backward cue (group 7) when no listed one
            // matched: "these LiveView modules", "the previous calculation". Its last word is
            // the head. ("this" is too often the situation itself: "in this regard".)
            // Group 9 is an event noun after "recent" (group 8): "Recent messages indicate".
            let noun = c.get(4).or(c.get(5)).or(c.get(9)).map_or_else(
                || {
                    c.get(7)
                        .map_or("", |n| n.as_str().rsplit(' ').next().unwrap_or(""))
                },
                |n| n.as_str(),
            );
            // Group 6 is "these/those" or a strong cue ("the previous") before an unlisted noun.
            let demonstrative = c
                .get(1)
                .or(c.get(6).filter(|d| !d.as_str().contains(' ')))
                .map(|d| d.as_str().to_lowercase());
            if c.get(6).is_some()
                && (lex.not_head_nouns.contains(&noun.to_lowercase())
                    || demonstrative.is_some() && !said_in_an_earlier_turn(traj, i, &stem(noun)))
            {
                continue;
            }
            // An agent's "both tests" counts what its own message names; a user's "cancel
            // both reservations" picks up what the agent presented.
            if demonstrative
                .as_ref()
                .is_some_and(|d| lex.user_quantifiers.contains(d))
                && turn.role != Role::User
            {
                continue;
            }
            // "a function that checks": a singular demonstrative before a plural is a verb.
            if matches!(demonstrative.as_deref(), Some("this" | "that"))
                && m.as_str().ends_with('s')
                && !noun.ends_with('s')
            {
                continue;
            }
            // "the funds that match these criteria": "that" before a noun that is also a verb,
            // and a determiner after it, is a relative pronoun.
            if demonstrative.as_deref() == Some("that")
                && c.get(3).is_none()
                && VERB_NOUNS.contains(&noun.to_lowercase().as_str())
                && next_word_in(&t[e..], DETERMINERS)
            {
                continue;
            }
            // "It seems that order #W5565470 was sent to Houston": after a verb that takes no
            // object, "that" opens a clause.
            if demonstrative.as_deref() == Some("that")
                && t[..s].split_whitespace().next_back().is_some_and(|w| {
                    let w = w.to_lowercase();
                    matches!(
                        w.as_str(),
                        "seems" | "seem" | "seemed" | "appears" | "appear" | "appeared"
                    )
                })
            {
                continue;
            }
            // The word between the demonstrative and its noun ("these LiveView modules").
            let modifier = c.get(3).map(|w| w.as_str().to_lowercase());
            let modifier = modifier.as_deref();
            // "Let me fix that and list the directory", "escalate this or flag it": before a
            // conjunction the demonstrative stands alone, a pronoun.
            if matches!(modifier, Some("and" | "or" | "but" | "nor" | "then")) {
                if matches!(demonstrative.as_deref(), Some("this" | "that")) {
                    let others = vis.nearby_for_a_pronoun();
                    found.push(Subkind::Pronoun, text, s, s + 4, vis.previous, &others);
                }
                continue;
            }
            // "verify that the fix works", "a page that contains information": a complementizer
            // or a relative pronoun, not a demonstrative.
            if modifier.is_some_and(|w| DETERMINERS.contains(&w) || CLAUSE_VERBS.contains(&w)) {
                continue;
            }
            // "The user requested \"Implement X\"", "the agent provided a patch": a participle
            // after its noun that takes an object is the sentence's verb, not a backward cue.
            if c.get(5).is_some() && takes_an_object(&t[e..]) {
                continue;
            }
            // Past a turn's opening, "this"/"these" point at what the turn itself shows when it
            // shows something (the edit it makes, the code it quotes, the list it has just
            // given: "1. Change the flight … Please confirm these changes").
            let past_work = matches!(demonstrative.as_deref(), Some("this" | "these"))
                && s >= seg.opening_end
                && (shows_work || seg.code_before(t.len()) || seg.list_before(s));
            // The task is never the turn's own work: "Here is the final script: … we can
            // consider this task complete" points at the task as given.
            // (Unless it is an item the turn's calls act on: "Let me close this task" with
            // `bd close X`, below.)
            let task_past_work = past_work && {
                let lower = noun.to_lowercase();
                TASK_NOUNS.contains(&lower.as_str())
                    && !(lex.record_nouns.contains(&lower)
                        && acted_on_earlier(turn, infos, vis).is_some())
            };
            if past_work && !task_past_work {
                // ("Tests pass. Let me close this task and commit." with `bd close X`: the
                // call acts on a thing an earlier turn showed, and "this task" is that thing,
                // not the turn's own work as "this change" or "this command" would be.)
                let lower = noun.to_lowercase();
                let thing = lex.record_nouns.contains(&lower);
                if let Some(defining) = thing.then(|| acted_on_earlier(turn, infos, vis)).flatten()
                {
                    found.push(
                        Subkind::Anaphoric,
                        text,
                        s,
                        e,
                        Some(defining),
                        &vis.nearby(),
                    );
                } else if lex.file_nouns.contains(&lower)
                    && !t[..s].contains('`')
                    && !seg.code_before(s)
                    && !seg.file_before(s)
                    && !tokens(&t[..s]).any(|(_, w)| stem(w) == stem(noun))
                {
                    let ante = vis.or_previous(vis.noun_last.get(&stem(noun)).copied());
                    found.push(Subkind::Anaphoric, text, s, e, ante, &vis.nearby());
                }
                continue;
            }
            // "your recent reservation": an owner's thing is dated, not pointed back at.
            if c.get(2)
                .is_some_and(|b| b.as_str().to_lowercase().ends_with("recent"))
                && dated_not_pointed(m.as_str(), lex)
            {
                continue;
            }
            // "I'll need your user ID and the reservation ID. Could you provide these details?":
            // a noun that stands in for whatever was just named points inside the turn.
            if demonstrative.is_some()
                && s >= seg.opening_end.min(seg.sents.first().map_or(0, |f| f.end))
                && s > 0
                && lex.stand_in_nouns.contains(&noun.to_lowercase())
            {
                continue;
            }
            // "the above code" after a code block in this same turn points at that block.
            if c.get(2)
                .is_some_and(|b| b.as_str().eq_ignore_ascii_case("above"))
                && seg.code_before(s)
            {
                continue;
            }
            let rest_of_line = t[e..].split('\n').next().unwrap_or("");
            if demonstrative.is_some() {
                // "this X" after X was introduced in this turn points at it; "that X" points
                // further back whatever the turn said. Either may point forward ("this command:").
                // ("the API throttles requests… I'll repeat that request": a different, earlier
                // request, so "that" needs the same word, not just the same stem).
                let near = matches!(demonstrative.as_deref(), Some("this" | "these"));
                // ("aider/io.py\n\nThis file contains …": the turn named the file.)
                if said_before(&t[..s], noun, near)
                    || near && lex.file_nouns.contains(&noun.to_lowercase()) && seg.file_before(s)
                {
                    continue;
                }
                // ("Let me mark this task as in progress:" with `bd update spotter-4te.3`: the
                // call acts on a thing an earlier turn showed, and the words point back at it.)
                let colon = rest_of_line.trim_end().ends_with(':');
                let acted_on = colon.then(|| acted_on_earlier(turn, infos, vis)).flatten();
                // Only the phrase the colon closes points forward: in "the function doesn't
                // exist with that name. Let me fix it:" or "how these modules are used
                // together:" it points back.
                let closes = t[e..]
                    .trim_start_matches(['*', '`', ')', ' ', '"'])
                    .starts_with(':');
                if (closes
                    && acted_on.is_none()
                    && !done_before_the_calls(noun, t[e..].trim(), infos, vis, lex))
                    || (rest_of_line.trim().is_empty() && is_fence_line(&t[e..]))
                {
                    continue;
                }
                if let Some(defining) = acted_on {
                    found.push(
                        Subkind::Anaphoric,
                        text,
                        s,
                        e,
                        Some(defining),
                        &vis.nearby(),
                    );
                    continue;
                }
            }
            // "Here are the selected flights:" (the line ends within a few words) followed by
            // a list or a code block introduces what the turn shows next.
            // ("the scenarios you requested:" says where they came from: it points back.)
            let introduces = c.get(2).is_some()
                && rest_of_line.trim_end().ends_with(':')
                && rest_of_line.split_whitespace().count() <= 3;
            let shown_next = || {
                // (Past the segment's end, the turn's next segment.)
                t[e..]
                    .split('\n')
                    .skip(1)
                    .find(|l| !l.trim().is_empty())
                    .map_or(seg.around.next_shows, starts_shown)
            };
            if introduces && shown_next() {
                continue;
            }
            if restates_in_parentheses(t, e) || names_it_next(&t[e..]) {
                continue;
            }
            let ante = vis.or_previous(vis.noun_last.get(&stem(noun)).copied());
            // A cue that names an action ("the inserted line") points at a turn that did it.
            let cue = c.get(2).map_or("", |b| b.as_str());
            let mut others = vis.nearby_and_acting(cue, lex);
            // "my original payment", "the initial request": the first turn that said it.
            let first_cue = c.get(2).or(c.get(6)).is_some_and(|b| {
                let b = b.as_str().to_lowercase();
                b.contains("original") || b.contains("initial") || b.contains("former")
            });
            if first_cue && TASK_NOUNS.contains(&noun.to_lowercase().as_str()) && quotes_task() {
                continue;
            }
            if first_cue {
                others.push(vis.noun_first.get(&stem(noun)).copied());
            }
            if task_past_work {
                // (The first turn that names it, not the work just before.)
                let given = vis.noun_first.get(&stem(noun)).copied();
                found.push(Subkind::Anaphoric, text, s, e, vis.or_previous(given), &[]);
                continue;
            }
            // "the requested video": what someone asked for is in a turn someone said (the
            // user's, or an agent's instruction), not in a tool's output.
            let requested =
                tokens(m.as_str()).any(|(_, w)| lex.request_cues.contains(&w.to_ascii_lowercase()));
            if requested {
                let said = |t: &Option<usize>| t.is_some_and(|t| traj.turns[t].role != Role::Tool);
                others.retain(said);
                let ante = if said(&ante) { ante } else { vis.last_dialogue };
                found.push(Subkind::Anaphoric, text, s, e, ante, &others);
                continue;
            }
            found.push(Subkind::Anaphoric, text, s, e, ante, &others);
        }
    }

    /// Pronouns: only where nothing in this turn can be their antecedent yet, i.e. in its
    /// opening: a sentence-initial pronoun in the first sentence (or the second after a short
    /// interjection), an object pronoun in the first two ("You're right, and thank you for
    /// pointing that out").
    fn pronouns(&self, seg: &Segment, found: &mut Found) {
        if seg.index > 0 {
            return;
        }
        let (lex, vis, t, sents) = (self.lex, self.vis, seg.text.text.as_str(), &seg.sents);
        let mut first_short = false;
        for (k, s) in sents.iter().enumerate().take(2) {
            let sentence = &t[s.start..s.end];
            // Thanks is an interjection however long ("Thank you for your help. Everything
            // looks great."): what follows still opens the turn.
            let short = sentence.split_whitespace().count() <= 3
                || strip_prefix_ci(sentence, "thank").is_some();
            let may_start = k == 0 || first_short;
            first_short = k == 0 && short;
            let hit = may_start
                .then(|| lex.pronoun_start.first(sentence))
                .flatten()
                .filter(|&(ps, pe)| {
                    // The pronoun is the match's last word ("Thanks, that" → "that").
                    let word = sentence[ps..pe]
                        .trim_end()
                        .rfind(' ')
                        .map_or(ps, |k| ps + k + 1);
                    !is_expletive(&sentence[word..], lex)
                        && !is_complementizer(&sentence[..word], &sentence[word..])
                })
                .or_else(|| {
                    // (In the second sentence, the first may have named what it stands for:
                    // "It looks like `src` is there. Let's use find_file to see where it is.")
                    let earlier = if k == 1 {
                        &t[sents[0].start..sents[0].end]
                    } else {
                        ""
                    };
                    // "I can retrieve your reservation details. Let me do that for you.": after
                    // a first sentence that says something, "do that" stands for its action.
                    let says_its_action = k == 1 && !may_start;
                    lex.pronoun_object
                        .first(sentence)
                        .filter(|&(ps, _)| !names_a_thing(&sentence[..ps]) && !names_code(earlier))
                        .filter(|&(ps, _)| {
                            !(says_its_action && strip_prefix_ci(&sentence[ps..], "do ").is_some())
                        })
                        // The fact ends at the pronoun, not at the word the pattern saw after it
                        // ("find it and").
                        .map(|(ps, pe)| (ps, ps + through_pronoun(&sentence[ps..pe])))
                })
                .or_else(|| {
                    may_start
                        .then(|| bare_it(&t[sents[0].start..s.start], sentence, lex))
                        .flatten()
                });
            if let Some((ps, pe)) = hit {
                let (as_, ae) = (s.start + ps, s.start + pe);
                if !found.claimed.iter().any(|c| c.start < ae && as_ < c.end) {
                    let ae = t[as_..ae]
                        .trim_end_matches(|c: char| !c.is_alphanumeric())
                        .len()
                        + as_;
                    let others = vis.nearby_for_a_pronoun();
                    found.push(Subkind::Pronoun, seg.text, as_, ae, vis.previous, &others);
                }
            }
        }
    }

    /// Identifiers used in prose, defined in an earlier turn. (Not in a fenced code block:
    /// code the turn writes restates its values.)
    fn identifiers<'t>(
        &self,
        seg: &Segment<'t>,
        ids: &[(usize, usize)],
        restated_here: &mut Vec<&'t str>,
        found: &mut Found,
    ) {
        let (vis, t, text) = (self.vis, seg.text.text.as_str(), seg.text);
        for &(s, e) in ids {
            let id = &t[s..e];
            if found.claims(s) || !seg.in_prose(s) {
                continue;
            }
            // ("3. **Reservation ID: HSR97W** - Origin: ORD …", then "reservations PUNERT and
            // HSR97W are on the same day".)
            match restated(t, s, e) {
                Restated::No => {}
                Restated::Particulars if !ends_on_a_colon(t, e) => continue,
                Restated::Particulars => {}
                Restated::Record => {
                    restated_here.push(id);
                    continue;
                }
            }
            if restated_here.contains(&id) {
                continue;
            }
            // A short form ("6276644") and the full id it stands for ("gift_card_6276644") name
            // one thing: the defining occurrence is the earliest of either.
            let full = vis.id_alias.get(id).and_then(|full| vis.ids.get(full));
            let seen = match (full, vis.ids.get(id)) {
                (Some(a), Some(b)) => Some(a.merge(b)),
                (a, b) => a.or(b).copied(),
            };
            let Some(seen) = seen else {
                // Defined only in turns a compaction replaced: nothing visible says what it is.
                if vis.ids_compacted.contains_key(id) {
                    found.push(Subkind::Identifier, text, s, e, None, &[]);
                }
                continue;
            };
            let others = [Some(seen.first), Some(seen.latest)];
            found.push(
                Subkind::Identifier,
                text,
                s,
                e,
                Some(seen.defining()),
                &others,
            );
        }
    }

    /// A tracked item by its number ("Let me claim task 6", "Tasks 4 and 5 are ready") after a
    /// turn showed its id (`spotter-4te.6`): the number stands for that id. (Most logs show no
    /// such id: then there is nothing to read.)
    fn tracked_items(&self, seg: &Segment, found: &mut Found) {
        let (lex, vis, t, text, turn) = (
            self.lex,
            self.vis,
            seg.text.text.as_str(),
            seg.text,
            self.turn,
        );
        let mut words = tokens(if vis.numbered.is_empty() { "" } else { t }).peekable();
        while let Some((ns, noun)) = words.next() {
            let number_next = words
                .peek()
                .is_some_and(|&(_, w)| w.bytes().all(|b| b.is_ascii_digit()));
            if !number_next
                || !lex.record_nouns.contains(&noun.to_ascii_lowercase())
                || !seg.in_prose(ns)
            {
                continue;
            }
            let numbers = numbers_after(t, ns + noun.len(), &mut words);
            let items: Vec<(usize, &IdSeen)> = numbers
                .iter()
                .filter_map(|&(k, number)| {
                    let full = vis.numbered.get(number)?;
                    let seen = vis.ids.get(full)?;
                    // (Not when the turn writes the id out itself: "tasks 1 and 2" above
                    // its own list "1. **spotter-gqc.1** …".)
                    let written = turn
                        .segments
                        .iter()
                        .any(|s| s.text.text.contains(full.as_str()));
                    (!written).then_some((k + number.len(), seen))
                })
                .collect();
            let (Some(&(_, first)), Some(&(e, _))) = (items.first(), items.last()) else {
                continue;
            };
            // ("Now task 5: Trace LiveView …" and "Task 2 (TranscriptRenderer + JS hook)" say
            // what it is.)
            if found.claims(ns) || restated(t, ns, e) != Restated::No && !ends_on_a_colon(t, e) {
                continue;
            }
            let others: Vec<Option<usize>> = items
                .iter()
                .flat_map(|(_, seen)| [seen.defining(), seen.first, seen.latest])
                .map(Some)
                .collect();
            found.push(
                Subkind::Identifier,
                text,
                ns,
                e,
                Some(first.defining()),
                &others,
            );
        }
    }
}

/// Whether an id ending at `e` ends its text on a colon ("Commit task 6:" before the call):
/// the colon introduces what the turn does next, not what the id is.
fn ends_on_a_colon(t: &str, e: usize) -> bool {
    t[e..]
        .trim_start_matches(['*', '`', ' '])
        .strip_prefix(':')
        .is_some_and(|rest| rest.trim().is_empty())
}

/// The numbers right after a noun ending at `from`, taken from `words`: "task 4", "tasks 4, 5
/// and 6", "issue #12" (not a list's "1." after "order:\n\n").
fn numbers_after<'t>(
    t: &'t str,
    from: usize,
    words: &mut std::iter::Peekable<impl Iterator<Item = (usize, &'t str)>>,
) -> Vec<(usize, &'t str)> {
    let mut numbers = Vec::new();
    let mut after = from;
    while let Some(&(k, w)) = words.peek() {
        if !numbers.is_empty() && matches!(w, "and" | "or") {
            words.next();
            continue;
        }
        let number = w.len() <= 3 && w.bytes().all(|b| b.is_ascii_digit());
        let joins = if numbers.is_empty() {
            matches!(&t[after..k], " " | " #")
        } else {
            matches!(&t[after..k], ", " | " and " | " or " | ", and " | ", or ")
        };
        if !(number && joins) {
            break;
        }
        numbers.push((k, w));
        after = k + w.len();
        words.next();
    }
    numbers
}

/// The turn where the thing this turn's calls act on was defined, when their arguments name an
/// identifier an earlier turn showed (`bd update spotter-4te.3` after `bd show spotter-4te.3`).
fn acted_on_earlier(turn: &Turn, infos: &[CallInfo], vis: &Visible) -> Option<usize> {
    turn.calls.iter().zip(infos).find_map(|(c, info)| {
        info.ids
            .iter()
            .find_map(|&(s, e)| vis.ids.get(&c.arguments[s..e]).map(IdSeen::defining))
    })
}

/// Whether what follows a phrase names its referent: "your original payment method, which is
/// PayPal", "Since the original payment method was PayPal". (A name, a figure or code after
/// the verb; "was not available" says something of it instead.)
fn names_it_next(rest: &str) -> bool {
    let rest = rest.trim_start_matches(',').trim_start();
    let rest = ["which ", "that "]
        .iter()
        .find_map(|w| strip_prefix_ci(rest, w))
        .unwrap_or(rest);
    ["is ", "was ", "are ", "were "]
        .iter()
        .find_map(|v| rest.strip_prefix(v))
        .is_some_and(|value| {
            value.starts_with(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '`')
        })
}

/// "None of these tools (credo, dialyxir, sobelow)": the turn lists at once what it means.
fn restates_in_parentheses(t: &str, end: usize) -> bool {
    let rest = &t[end..];
    let word = rest
        .split_whitespace()
        .next()
        .filter(|w| w.chars().all(char::is_alphabetic))
        .map_or(0, |w| rest.find(w).unwrap_or(0) + w.len());
    // One more word ("these tools (…)") may stand between the phrase and its list.
    let after = if rest.trim_start().starts_with('(') {
        rest.trim_start()
    } else {
        rest[word..].trim_start()
    };
    // A list, not a gloss: "your original payment method (gift card)" still says which card
    // only through an earlier turn. An address is no gloss: "the first relevant link
    // (https://…)" names the link outright.
    after.starts_with('(')
        && after[1..].find(')').is_some_and(|k| {
            let inside = &after[1..=k];
            inside.contains(',') || inside.starts_with("http://") || inside.starts_with("https://")
        })
}

/// Whether a text lists several things: "A, B and C", "A, B, or C".
fn names_several(text: &str) -> bool {
    text.find(", ").is_some_and(|k| {
        let rest = &text[k..];
        rest.contains(" and ") || rest.contains(" or ")
    })
}

/// "Now that we have…", "so that the…", "Now that everything's installed": "that" opening a
/// clause, not pointing at anything. (`before` is the sentence up to the pronoun: "now",
/// "so", "given" make "that" a conjunction whatever its clause begins with, unless a verb
/// follows it: "Now that works".)
fn is_complementizer(before: &str, from_pronoun: &str) -> bool {
    const CONJOINING: [&str; 6] = ["now", "so", "given", "provided", "such", "except"];
    const VERBS: [&str; 12] = [
        "is", "was", "works", "worked", "looks", "seems", "sounds", "should", "will", "would",
        "helps", "makes",
    ];
    let mut words = from_pronoun.split_whitespace();
    if !words.next().is_some_and(|w| w.eq_ignore_ascii_case("that")) {
        return false;
    }
    let Some(next) = words.next().map(|w| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    }) else {
        return false;
    };
    let conjoined = before
        .split_whitespace()
        .next_back()
        .is_some_and(|w| CONJOINING.iter().any(|c| w.eq_ignore_ascii_case(c)));
    // "That all sounds good": a floating "all" before a verb ("now that all tests pass" has
    // its noun).
    let floating = next == "all"
        && words
            .next()
            .is_some_and(|v| FLOATING_VERBS.contains(&v.to_lowercase().as_str()));
    conjoined && !VERBS.contains(&next.as_str())
        || DETERMINERS.contains(&next.as_str()) && !floating
}

/// Verbs after "that all" that make "all" float ("that all sounds good").
const FLOATING_VERBS: [&str; 8] = [
    "sounds", "looks", "seems", "works", "makes", "is", "helps", "checks",
];

/// Whether a sentence's words before an object pronoun name something it can stand for ("run
/// the script to see if it works", "open `fields.py` and check it"): the pronoun then resolves
/// inside its own sentence. (An indefinite, "a way to cancel it", introduces something else.)
fn names_a_thing(before: &str) -> bool {
    let words: Vec<&str> = before.split_whitespace().collect();
    names_code(before)
        || words.windows(2).any(|p| {
            let det = p[0].to_lowercase();
            matches!(
                det.as_str(),
                "the" | "my" | "our" | "your" | "this" | "that"
            ) && p[1].chars().next().is_some_and(char::is_alphabetic)
        })
}

/// Whether a text names code, a file or a path (`fields.py`, `src/`).
fn names_code(text: &str) -> bool {
    text.contains('`') || names_a_file(text)
}

/// Whether a text names a file or a path (`fields.py`, src/).
fn names_a_file(text: &str) -> bool {
    first_file_name(text).is_some()
}

/// Where the first word naming a file or a path starts.
fn first_file_name(text: &str) -> Option<usize> {
    text.split_whitespace()
        .find(|w| {
            let w = w.trim_matches([',', '.', '(', ')', ':', '"', '\'', '`']);
            // ("e.g.", "$245.50", "05/26" are not names, nor a command such as "/ask".)
            (w.contains('.') || w.chars().skip(1).any(|c| c == '/'))
                && w.chars().any(|c| c.is_ascii_alphabetic())
                && !matches!(
                    w.to_ascii_lowercase().as_str(),
                    "e.g" | "i.e" | "etc" | "vs"
                )
        })
        .map(|w| w.as_ptr() as usize - text.as_ptr() as usize)
}

/// "it" or "them" early in a turn's opening with nothing before it that it could stand for: only
/// a few content words precede it, none of them a named thing ("I'd like to exchange it for …",
/// "I'm not sure which one it is", "1. It's a one-way trip."). `before` is the turn's text up to
/// the sentence.
fn bare_it(before: &str, sentence: &str, lex: &Lexicon) -> Option<(usize, usize)> {
    let mut prev = String::new();
    let mut content_words = tokens(before)
        .filter(|(_, w)| !is_function_word(&w.to_ascii_lowercase()))
        .count();
    for (ws, w) in tokens(sentence) {
        let lw = w.to_ascii_lowercase();
        if lw == "it" || lw == "them" {
            // ("Got it", "make it to", "that's it": idioms, not references.)
            let idiom = matches!(prev.as_str(), "got" | "get" | "make" | "made" | "s" | "is");
            let free = !idiom
                && !names_a_thing(before)
                && !names_a_thing(&sentence[..ws])
                && !is_expletive(&sentence[ws..], lex);
            return free.then_some((ws, ws + w.len()));
        }
        if !is_function_word(&lw) {
            content_words += 1;
            if content_words > 3 {
                return None;
            }
        }
        prev = lw;
    }
    None
}

/// Pronouns, auxiliaries, particles and interjections: words that cannot name what "it" stands for.
fn is_function_word(w: &str) -> bool {
    w.bytes().all(|b| b.is_ascii_digit()) || FUNCTION_WORDS.binary_search(&w).is_ok()
}

/// (Sorted, for the binary search.)
const FUNCTION_WORDS: &[&str] = &[
    "a", "about", "ah", "alright", "also", "am", "an", "and", "are", "as", "at", "be", "been",
    "but", "by", "can", "could", "d", "did", "do", "does", "don", "for", "from", "great", "had",
    "has", "have", "hmm", "i", "if", "in", "is", "just", "let", "ll", "m", "may", "me", "might",
    "must", "my", "no", "not", "now", "of", "oh", "ok", "okay", "on", "or", "our", "perfect",
    "please", "re", "s", "shall", "should", "so", "t", "thank", "thanks", "then", "to", "us", "ve",
    "was", "we", "well", "were", "will", "with", "would", "yes", "you", "your",
];

fn is_expletive(from_pronoun: &str, lex: &Lexicon) -> bool {
    lex.expletive_it.is_match(&from_pronoun.to_lowercase())
}

/// How many of the latest turns a reference keeps live besides its antecedent.
const RECENT: usize = 4;

/// Verbs that follow a relative "that" ("the page that contains the table").
const CLAUSE_VERBS: &[&str] = &[
    "is",
    "was",
    "are",
    "were",
    "has",
    "had",
    "have",
    "contains",
    "contain",
    "includes",
    "shows",
    "means",
    "makes",
    "uses",
    "returns",
    "gives",
    "takes",
    "provides",
    "requires",
    "needs",
    "describes",
    "explains",
    "lists",
    "matches",
    "causes",
    "handles",
    "should",
    "would",
    "will",
    "can",
    "could",
    "may",
    "might",
    "must",
    "did",
    "does",
    "lets",
    "allows",
];

/// A list line without its marker ("- ", "2. ", "**").
fn unmarked(l: &str) -> &str {
    l.trim_start_matches(|c: char| c.is_whitespace() || "-*•0123456789.)".contains(c))
}

/// Whether the text around an identifier restates what it denotes ("HAT052 (03:00 EST)",
/// "Certificate 7504069: $250", "**Flight HAT052**: LAX to ORD"), so no earlier turn is needed.
/// How much of what an id denotes the text around it gives.
#[derive(Debug, PartialEq)]
enum Restated {
    No,
    /// A particular or two ("Flight HAT113 (SEA to DFW)", "IFOYYZ is a basic economy ticket").
    Particulars,
    /// Its record, field by field ("3. **Reservation ID: HSR97W**" over "- Origin: ORD").
    Record,
}

fn restated(t: &str, s: usize, e: usize) -> Restated {
    let line_end = t[e..].find('\n').map_or(t.len(), |k| e + k);
    let after_end = floor_boundary(t, (e + 80).min(line_end));
    let after = &t[e..after_end];
    let line_start = t[..s].rfind('\n').map_or(0, |k| k + 1);
    let before = &t[line_start..s];
    let after_trim = after.trim_start_matches(['*', '`', ' ']);
    // "IDs UDMOP1, XAZ3C0, and 4XGCCM": a comma before the next id of a list adds nothing.
    let next_in_list = after_trim.strip_prefix(',').is_some_and(|r| {
        let r = r.trim_start();
        let r = r
            .strip_prefix("and ")
            .or_else(|| r.strip_prefix("or "))
            .unwrap_or(r);
        r.split(|c: char| !c.is_alphanumeric())
            .next()
            .is_some_and(|w| {
                w.len() >= 4
                    && w.bytes().any(|b| b.is_ascii_digit())
                    && w.bytes().any(|b| b.is_ascii_uppercase())
            })
    });
    // "Your user ID is verified as james_kim_7213": a user's id denotes the user spoken to.
    let yours = {
        let b = before.trim_end().to_ascii_lowercase();
        let b = b.strip_suffix("verified as").unwrap_or(&b).trim_end();
        b.ends_with("your user id is") || b.ends_with("your user id:")
    };
    // "<task-id>b7636e2</task-id>": the key field of a record written in markup (a harness's
    // notification about that task).
    let tagged = after.starts_with("</")
        && before.strip_suffix('>').is_some_and(|b| {
            let name = &b[b.rfind('<').map_or(b.len(), |k| k + 1)..];
            name.len() > 2 && name.to_ascii_lowercase().ends_with("id")
        });
    let detail = yours
        || tagged
        || after_trim.starts_with(['(', ':', '-', '\u{2013}', '\u{2014}'])
        || after_trim.starts_with(',') && !next_in_list && !clause_goes_on(&after_trim[1..])
        || [
            "is a ",
            "is an ",
            "was a ",
            "was an ",
            "which is",
            "which was",
        ]
        .iter()
        .any(|p| after_trim.starts_with(p))
        || after
            .as_bytes()
            .windows(3)
            .any(|w| w[0].is_ascii_digit() && w[1] == b':' && w[2].is_ascii_digit())
        || after.contains('$')
        || after.contains(" from ");
    // A record in a list: "1. **Flight HAT052**" followed by its fields.
    let item = unmarked(before);
    let listing = before.contains("**") && item.split_whitespace().count() <= 2;
    // A field line under it ("- Origin: JFK") describes it when the id ends its own line (past
    // closing markup: "**JFK to ATL (Flight HAT136)**"); a sibling item with the same
    // label ("2. Reservation ID: LU15PA") is the next record, not a field of this one.
    let label = |l: &str| -> String {
        let l = unmarked(l);
        l.find(':').map_or(String::new(), |k| l[..k].to_lowercase())
    };
    let next_line_field = t[line_end..]
        .trim_start_matches('\n')
        .lines()
        .next()
        .is_some_and(|l| {
            let field = l.trim_start().trim_start_matches(['-', '*', ' ']);
            field.find(':').is_some_and(|k| k > 0 && k < 30)
                && (label(l).is_empty() || label(l) != label(before))
        })
        && after_trim.trim_end_matches(['*', ':', ' ', ')']).is_empty();
    // The line around it gives its particulars: "SEA to DFW on 2024-05-26, Flight HAT113".
    // (Near it: a long line with many ids is not scanned whole for each.)
    let near_start = ceil_boundary(t, s.saturating_sub(80).max(line_start));
    let line = &t[near_start..after_end];
    let dated = line.as_bytes().windows(10).any(|w| {
        w[..4].iter().all(u8::is_ascii_digit)
            && w[4] == b'-'
            && w[5..7].iter().all(u8::is_ascii_digit)
            && w[7] == b'-'
            && w[8..].iter().all(u8::is_ascii_digit)
    });
    // (A bold id in a sentence, "Reservation **XEHM4B** cannot be canceled", heads no record,
    // nor does one a list item acts on: "- **Order #W5490111** will be refunded to PayPal".
    // "1. **Flight HAT136 & HAT039**" heads one with the id beside it.)
    let heads_its_line = !after
        .split_whitespace()
        .any(|w| w.bytes().any(|b| b.is_ascii_lowercase()));
    // A row of a table ("| `3bb8701` | spotter-fum.1 | Enriched … |") is a record in itself.
    // (Measured: a list of bare ids, "1. AAVMM8\n2. MQHHT6", is not: the labels count most.)
    let whole_line = &t[line_start..line_end];
    let table_row = {
        let row = whole_line.trim();
        row.starts_with('|') && row.ends_with('|') && row.matches('|').count() >= 3
    };
    if next_line_field && prices_only(&t[line_end..]) {
        Restated::No
    } else if next_line_field || listing && heads_its_line || table_row {
        Restated::Record
    } else if priced_only(before, after_trim) {
        Restated::No
    } else if detail || dated {
        Restated::Particulars
    } else {
        Restated::No
    }
}

/// "each of these trails", "both of those files": the noun after the demonstrative that ends
/// `phrase` was said earlier in the turn (`said_before`), or a colon after it opens the list it
/// means ("each of these bars: A, B"), so the phrase points inside the turn.
fn points_inside_turn(phrase: &str, t: &str, s: usize, e: usize) -> bool {
    let last = phrase.rsplit(' ').next().unwrap_or("").to_ascii_lowercase();
    if !matches!(last.as_str(), "these" | "those") || !t[e..].starts_with(' ') {
        return false;
    }
    // ("whether any of these have installers": a verb, the phrase stands alone.)
    let Some((k, noun)) = tokens(&t[e..])
        .next()
        .filter(|(_, w)| !is_stopword(&w.to_ascii_lowercase()))
    else {
        return false;
    };
    t[e + k + noun.len()..].starts_with(':') || said_before(&t[..s], noun, last == "these")
}

/// Whether `before` says `noun` as a demonstrative before it would point back at: its stem after
/// "this"/"these" (`near`), the word itself after "that"/"those", which may point further back
/// ("the API throttles requests… I'll repeat that request").
fn said_before(before: &str, noun: &str, near: bool) -> bool {
    let noun_stem = near.then(|| stem(noun));
    tokens(before).any(|(_, w)| match &noun_stem {
        Some(n) => stem(w) == *n,
        None => w.eq_ignore_ascii_case(noun),
    })
}

/// After a comma, words that carry on the sentence instead of describing what precedes it: "I'll
/// go with Flight HAT271, please", "reservation 4WQ150, and the other one too".
fn clause_goes_on(after_comma: &str) -> bool {
    const WORDS: [&str; 7] = ["please", "thanks", "thank", "and", "but", "so", "then"];
    after_comma
        .split(|c: char| !c.is_ascii_alphabetic())
        .find(|w| !w.is_empty())
        .is_some_and(|w| WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

/// Whether the id heads only a price ("Reservation 7WPL39: $402", "**Reservation 3EMQJ6**: Total
/// cost is $306"): a total worked out for a booking or an order says nothing of which one it is.
/// A payment instrument's amount is what it holds ("Certificate 7504069: $250"): that restates it.
fn priced_only(before: &str, after: &str) -> bool {
    const INSTRUMENTS: [&str; 5] = ["certificate", "card", "voucher", "credit", "balance"];
    let Some(rest) = after.strip_prefix(':') else {
        return false;
    };
    let rest = rest.trim().trim_end_matches('.').to_ascii_lowercase();
    let amount = [
        "total cost is ",
        "total cost: ",
        "total: ",
        "cost: ",
        "price: ",
    ]
    .iter()
    .find_map(|p| rest.strip_prefix(p))
    .unwrap_or(&rest);
    let is_amount = amount_len(amount) == Some(amount.len());
    let noun = unmarked(before)
        .trim_end_matches(['*', ' ', '#'])
        .rsplit(' ')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    is_amount && !INSTRUMENTS.iter().any(|i| noun.starts_with(i))
}

/// Whether the fields under an id's line give only amounts ("- New Total Price: $241",
/// "- Refund: $6,594 has been processed"): the booking's money, not which booking it is.
fn prices_only(below: &str) -> bool {
    let fields: Vec<&str> = below
        .trim_start_matches('\n')
        .lines()
        .map(str::trim)
        .take_while(|l| l.starts_with(['-', '*']) && l.contains(':'))
        .collect();
    !fields.is_empty()
        && fields.iter().all(|l| {
            let value = &l[l.find(':').map_or(0, |k| k + 1)..];
            amount_len(value.trim_start()).is_some()
        })
}

/// The length of the dollar amount a text starts with ("$6,594.50 has been processed" → 9).
fn amount_len(text: &str) -> Option<usize> {
    let digits = text.strip_prefix('$')?;
    let n = digits
        .bytes()
        .take_while(|&b| b.is_ascii_digit() || b == b',' || b == b'.')
        .count();
    (n > 0).then_some(1 + n)
}

/// What "the original X" calls the task a log starts from.
const TASK_NOUNS: &[&str] = &["request", "task", "question", "query", "prompt", "problem"];

/// Head nouns that are also verbs in the base form ("the funds that match these criteria").
const VERB_NOUNS: &[&str] = &[
    "match", "check", "test", "fix", "change", "call", "list", "answer", "search", "query",
    "request", "edit", "patch", "log", "record", "order", "return", "report",
];

/// Words after "that" that make it a complementizer ("shows that the test fails").
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "it", "we", "i", "you", "they", "he",
    "she", "there", "our", "my", "your", "his", "her", "its", "their", "some", "all", "no", "each",
    "every", "any", "either", "neither", "both",
];

/// Whether a word is a superlative adjective ("cheapest", "best"), not another word in -est
/// ("test", "request", "honest").
fn superlative(word: &str) -> bool {
    const OTHERS: [&str; 13] = [
        "test", "request", "interest", "guest", "forest", "quest", "protest", "contest",
        "manifest", "digest", "honest", "modest", "earnest",
    ];
    matches!(word, "best" | "worst")
        || word.len() > 5 && word.ends_with("est") && !OTHERS.iter().any(|n| word.ends_with(n))
}

/// Whether the words after a verb are its object: a quotation, or a noun phrase opened by a
/// determiner ("a patch", "the fix"). ("That" may open a relative clause as well: not counted.)
fn takes_an_object(after: &str) -> bool {
    const OPENERS: [&str; 13] = [
        "a", "an", "the", "this", "these", "those", "my", "your", "our", "his", "her", "their",
        "some",
    ];
    after
        .strip_prefix(' ')
        .is_some_and(|rest| rest.starts_with(['"', '\u{201c}', '`']))
        || next_word_in(after, &OPENERS)
}

/// Whether the word right after a match (one space on) is one of `words`.
fn next_word_in(after: &str, words: &[&str]) -> bool {
    after.strip_prefix(' ').is_some_and(|rest| {
        tokens(rest)
            .next()
            .is_some_and(|(k, w)| k == 0 && words.contains(&w.to_ascii_lowercase().as_str()))
    })
}

/// The length of `phrase` through its first object pronoun ("find it and" → "find it").
fn through_pronoun(phrase: &str) -> usize {
    const OBJECTS: [&str; 6] = ["that", "this", "it", "those", "these", "them"];
    tokens(phrase)
        .skip(1)
        .find(|(_, w)| OBJECTS.iter().any(|o| w.eq_ignore_ascii_case(o)))
        .map_or(phrase.len(), |(k, w)| k + w.len())
}

/// Whether "my last X" / "your most recent X" dates the owner's thing rather than pointing back:
/// X is not something said or done in the log ("my last reservation"; not "your last answer").
fn dated_not_pointed(phrase: &str, lex: &Lexicon) -> bool {
    let mut words = phrase.split_whitespace();
    let owner = words.next().unwrap_or("").to_ascii_lowercase();
    let noun = words
        .next_back()
        .unwrap_or("")
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    matches!(owner.as_str(), "my" | "your" | "our") && !lex.said_or_done_nouns.contains(&noun)
}

/// Whether "these changes:" ending a turn's words (`after` is what follows it) points back at
/// earlier work rather than at the calls it introduces: earlier turns did what the noun names
/// ("changes": edits) and none of this turn's calls does it ("Let me commit these changes:"
/// with `git status`; not "Let me apply this change:" with an edit).
fn done_before_the_calls(
    noun: &str,
    after: &str,
    infos: &[CallInfo],
    vis: &Visible,
    lex: &Lexicon,
) -> bool {
    if after.trim_start_matches(':').trim().is_empty() && !infos.is_empty() {
        let families = super::obligations::families_of(noun, lex);
        let done_before = families.iter().any(|f| vis.by_family.contains_key(f));
        // Changes are made by an editor call: a shell line's words ("git add -A && git commit")
        // name no edit it makes.
        let does_it = |c: &CallInfo| {
            if families.iter().any(|f| f == "edit") {
                c.command.is_none() && c.kind == super::null_results::CallKind::Write
            } else {
                c.families.iter().any(|f| families.contains(f))
            }
        };
        done_before && !infos.iter().any(does_it)
    } else {
        false
    }
}

/// The fence lines (```) of a text, as (start, end) offsets.
fn fence_lines(t: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    t.split_inclusive('\n')
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len();
            Some((start, *at, line))
        })
        .filter(|(_, _, line)| is_fence_line(line))
        .map(|(start, end, _)| (start, end))
}

/// Opaque identifiers in a text: pattern matches holding a letter and a digit, not inside a
/// path or URL.
pub fn identifiers(t: &str, lex: &Lexicon) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = lex
        .identifier
        .find_all(t)
        .into_iter()
        .filter_map(|(s, e)| {
            let w = &t[s..e];
            // "Job 4411", "Gift Card 6276644", "#4411": a keyword or a hash names a number; the
            // number is the id. ("#W5490111", a retail order, is an id with a letter.)
            if let Some(k) = w.rfind(|c: char| c.is_whitespace() || c == ':' || c == '#') {
                let rest = &w[k + 1..];
                let number = rest.len() >= 3 && rest.bytes().all(|b| b.is_ascii_digit());
                let hashed = k == 0 && rest.bytes().any(|b| b.is_ascii_alphabetic());
                return (number || hashed).then_some((s + k + 1, e));
            }
            let has_digit = w.bytes().any(|b| b.is_ascii_digit());
            let has_alpha = w.bytes().any(|b| b.is_ascii_alphabetic());
            let before = t[..s].chars().next_back();
            let after = t[e..].chars().next();
            let after2 = t[e..].chars().nth(1);
            let in_path = matches!(before, Some('/' | '\\' | '.' | '=' | '-' | '_'))
                || matches!(after, Some('/' | '\\' | '-' | '_'))
                || (after == Some('.') && after2.is_some_and(|c| c.is_alphanumeric()));
            (has_digit && has_alpha && !in_path).then_some((s, e))
        })
        .collect();
    out.sort();
    out.dedup_by(|b, a| b.0 < a.1); // drop matches inside an earlier, longer one
    out
}

/// Whether an id found right after `before` is the key field of a record: `"order_id": "`,
/// `id: `, `reservation_id=`.
fn names_its_record(before: &str) -> bool {
    let b = before.trim_end_matches([' ', '"', '\'', ':', '=']);
    let key = b
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    before.len() - b.len() <= 4
        && before[b.len()..].contains([':', '='])
        && (key.eq_ignore_ascii_case("id") || key.to_ascii_lowercase().ends_with("_id"))
}

/// The text that can restate an id at `s..e`: its line, and when the line ends on a colon
/// ("I found reservation **UDMOP1**. Here are the details:"), the list under it.
fn id_window(t: &str, s: usize, e: usize) -> &str {
    const REACH: usize = 300;
    const LIST_LINES: usize = 16;
    let line_start = t[..s].rfind('\n').map_or(0, |k| k + 1);
    let line_end = t[e..].find('\n').map_or(t.len(), |k| e + k);
    let from = ceil_boundary(t, line_start.max(s.saturating_sub(REACH)));
    let mut to = floor_boundary(t, line_end.min(e + REACH));
    if t[e..line_end].trim_end().ends_with(':') {
        let mut at = line_end;
        let mut taken = 0;
        for line in t[line_end..].split_inclusive('\n') {
            let l = line.trim();
            let field = is_list_item(line).is_some() || l.find(':').is_some_and(|k| k < 30);
            if !l.is_empty() && !field || taken == LIST_LINES {
                break;
            }
            at += line.len();
            taken += usize::from(!l.is_empty());
        }
        to = at.max(to);
    }
    &t[from..to]
}

/// Words of a record that say nothing of what it is.
const RECORD_STOPWORDS: &[&str] = &[
    "the", "and", "for", "with", "from", "into", "not", "are", "was", "has", "have", "this",
    "that", "true", "false", "null", "none", "yes",
];

/// The words of the record an id at `s..e` of a tool result belongs to: the values (not the keys)
/// of the innermost JSON object around it. (Bounded: a record further than `REACH` bytes away is
/// not read; an id in plain text has none.)
fn record_values(t: &str, s: usize, e: usize) -> Vec<String> {
    const REACH: usize = 2048;
    const MAX: usize = 48;
    let b = t.as_bytes();
    let mut depth = 0usize;
    let open = (s.saturating_sub(REACH)..s).rev().find(|&k| match b[k] {
        b'}' => {
            depth += 1;
            false
        }
        b'{' if depth == 0 => true,
        b'{' => {
            depth -= 1;
            false
        }
        _ => false,
    });
    let Some(open) = open else {
        return Vec::new();
    };
    let mut depth = 0usize;
    let close = (open..b.len().min(e + REACH)).find(|&k| match b[k] {
        b'{' => {
            depth += 1;
            false
        }
        b'}' => {
            depth -= 1;
            depth == 0
        }
        _ => false,
    });
    let to = floor_boundary(t, close.map_or(e + REACH, |c| c + 1));
    let id = t[s..e].to_lowercase();
    let mut values: Vec<String> = Vec::new();
    let mut add = |v: &str| {
        for w in v.split(|c: char| !c.is_alphanumeric()) {
            let w = w.to_lowercase();
            // (Not the id's own words, `gift_card` of `gift_card_6276644`, nor other ids, nor
            // words any record has.)
            if w.chars().count() >= 3
                && w.chars().all(char::is_alphabetic)
                && !id.contains(w.as_str())
                && !RECORD_STOPWORDS.contains(&w.as_str())
                && values.len() < MAX
                && !values.contains(&w)
            {
                values.push(w);
            }
        }
    };
    // JSON strings: a value is one not followed by a colon (that is a key).
    let mut rest = &t[open..to];
    while let Some(q) = rest.find('"') {
        let body = &rest[q + 1..];
        let Some(end) = body.find('"') else { break };
        if !body[end + 1..].trim_start().starts_with(':') {
            add(&body[..end]);
        }
        rest = &body[end + 1..];
    }
    values
}

/// Updates what later turns can refer back to with what this turn shows.
/// Records that turn `i` shows identifier `id` (in a tool result when `is_result`).
fn see_id(vis: &mut Visible, id: &str, i: usize, is_result: bool) {
    // (Most sightings are of an id seen before: no key is built for them.)
    let seen = match vis.ids.get_mut(id) {
        Some(seen) => seen,
        None => vis.ids.entry(id.to_string()).or_insert(IdSeen {
            first: i,
            first_result: None,
            first_record: None,
            latest: i,
        }),
    };
    seen.latest = i;
    if is_result && seen.first_result.is_none() {
        seen.first_result = Some(i);
    }
    if seen.first == i {
        alias(vis, id);
    }
    // A tracker's item (`spotter-4te.6`) goes by its number: the latest one shown wins.
    if let Some((head, number)) = id.rsplit_once('.') {
        if (1..=3).contains(&number.len())
            && number.bytes().all(|b| b.is_ascii_digit())
            && head.bytes().any(|b| b.is_ascii_alphabetic())
            && vis.numbered.get(number).is_none_or(|latest| latest != id)
        {
            vis.numbered.insert(number.to_string(), id.to_string());
        }
    }
}

/// Registers the short forms of an id (see `Visible::id_alias`).
fn alias(vis: &mut Visible, id: &str) {
    for (k, _) in id.match_indices('-') {
        let short = &id[k + 1..];
        if short.len() >= 4 && short.bytes().any(|b| b.is_ascii_digit()) {
            vis.id_alias
                .entry(short.to_string())
                .or_insert_with(|| id.to_string());
        }
    }
    if let Some(k) = id.rfind('_') {
        let digits = &id[k + 1..];
        if digits.len() >= 5 && digits.bytes().all(|b| b.is_ascii_digit()) {
            vis.id_alias
                .entry(digits.to_string())
                .or_insert_with(|| id.to_string());
        }
    }
}

/// Whether one of the last turns before `i` says `stem` ("these modules" after a listing of
/// modules; not "take screenshots of those moments", whose moments are this turn's own).
fn said_in_an_earlier_turn(traj: &Trajectory, i: usize, stem: &str) -> bool {
    const LOOK_BACK: usize = 12;
    let stem = stem.to_ascii_lowercase();
    traj.turns[..i].iter().rev().take(LOOK_BACK).any(|turn| {
        turn.segments.iter().any(|s| {
            head_and_tail(&s.text.text, 4096)
                .iter()
                .any(|part| part.to_ascii_lowercase().contains(&stem))
        })
    })
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

fn remember(
    i: usize,
    turn: &Turn,
    seg_ids: &[Vec<(usize, usize)>],
    calls: &Calls,
    nouns: &HashMap<String, String>,
    vis: &mut Visible,
) {
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
            for w in part.split(|c: char| !c.is_ascii_alphabetic()) {
                if (3..=16).contains(&w.len()) {
                    lower.clear();
                    lower.push_str(w);
                    lower.make_ascii_lowercase();
                    if let Some(s) = nouns.get(lower.as_str()) {
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
        items += t.lines().filter(|l| is_list_item(l).is_some()).count();
        if is_result
            && (t.trim_start().starts_with('[')
                || t.lines().filter(|l| !l.trim().is_empty()).nth(1).is_some())
        {
            items += 2;
        }
    }
    // A result is what its call did: "the file you grepped" is in the grep's output.
    if let Some(a) = turn
        .result
        .as_ref()
        .and_then(|r| r.call)
        .filter(|call| vis.awaiting.remove(call))
        .and_then(|(t, k)| calls.of_turn(t).get(k))
    {
        act(vis, i, &a.families);
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
    use super::*;

    #[test]
    fn a_listed_restatement_is_not_a_gloss() {
        let t = "None of these tools (credo, dialyxir, sobelow) are installed.";
        assert!(restates_in_parentheses(t, "None of these".len()));
        let t = "It goes back to your original payment method (gift card).";
        assert!(!restates_in_parentheses(t, t.find(" (gift").unwrap()));
    }

    #[test]
    fn a_name_after_the_copula_restates_the_phrase() {
        assert!(names_it_next(", which is PayPal."));
        assert!(names_it_next(" was PayPal, the refund goes there."));
        assert!(names_it_next(" is `lib/otel.ex`."));
        assert!(!names_it_next(" was not available."));
        assert!(!names_it_next(" is the one you booked."));
        assert!(!names_it_next(", please."));
    }

    #[test]
    fn it_after_an_inverted_verb_can_be_expletive() {
        let lex = Lexicon::builtin();
        // The text from the pronoun on, as the pronoun scan passes it.
        assert!(is_expletive("it possible to upgrade to economy?", &lex));
        assert!(is_expletive("it be better to wait for the build?", &lex));
        assert!(!is_expletive("it possible?", &lex));
        assert!(!is_expletive("it still failing after the fix?", &lex));
    }

    #[test]
    fn a_quantifier_over_things_the_turn_names_points_inside_it() {
        let inside = |t: &str, phrase: &str| {
            let s = t.find(phrase).unwrap();
            points_inside_turn(phrase, t, s, s + phrase.len())
        };
        let t = "Search for trails with 1,000 reviews. Verify the rating of each of these trails.";
        assert!(inside(t, "each of these"));
        assert!(inside(
            "Find the distance to each of these bars: Dirty Franks, Milkboy.",
            "each of these"
        ));
        // Nothing named before; a verb after the phrase; "those" wants the word itself.
        assert!(!inside(
            "Verify the rating of each of these trails.",
            "each of these"
        ));
        assert!(!inside(
            "I have the list. Check whether any of these have installers.",
            "any of these"
        ));
        assert!(!inside(
            "The file is open. Which of those files failed?",
            "of those"
        ));
    }

    #[test]
    fn an_id_on_a_line_that_gives_its_particulars_is_restated() {
        let at = |t: &str, id: &str| {
            let s = t.find(id).unwrap();
            restated(t, s, s + id.len()) != Restated::No
        };
        assert!(at(
            "- **Flights:**\n  - SEA to DFW on 2024-05-26, Flight HAT113\n",
            "HAT113"
        ));
        assert!(!at("Your reservation UM3OG5 is confirmed.", "UM3OG5"));
        assert!(!at("I cannot cancel UDMOP1, XAZ3C0, and 4XGCCM.", "UDMOP1"));
        // A comma opens an apposition, not a word that carries the sentence on.
        assert!(at(
            "Reservation XEWRD9, your basic economy booking, is next.",
            "XEWRD9"
        ));
        assert!(!at("I'll go with Flight HAT271, please.", "HAT271"));
        assert!(!at(
            "Start with spotter-a0y.2, then a0y.3.",
            "spotter-a0y.2"
        ));
        assert!(at("Flight HAT113 (SEA to DFW) is delayed.", "HAT113"));
        // One particular picks the flight out; it does not restate its record.
        assert!(!at(
            "I'll go with Flight HAT072 departing at 9 am.",
            "HAT072"
        ));
        // A dash, whichever, opens its description.
        assert!(at(
            "1. **spotter-dov.1** \u{2014} Extracted shared transcript presentation",
            "spotter-dov.1"
        ));
        // The key of a record in markup: a harness's notification about that task.
        assert!(at(
            "<task-notification>\n<task-id>b7636e2</task-id>\n<status>completed</status>",
            "b7636e2"
        ));
        assert!(!at("<summary>Task b7636e2 finished</summary>", "b7636e2"));
        // A price alone does not say which booking an id is; a payment's amount is what it holds.
        assert!(!at(
            "- Reservation 7WPL39: $402\n- Reservation 3EMQJ6: $306",
            "7WPL39"
        ));
        assert!(!at(
            "1. **Reservation 3EMQJ6**: Total cost is $306.",
            "3EMQJ6"
        ));
        assert!(at("  - Certificate 7504069: $250\n", "7504069"));
        assert!(at("1. **Gift Card 7091239**: $157\n", "7091239"));
        assert!(at("- Reservation 7WPL39: $402 for JFK to SEA", "7WPL39"));
        // Nor do fields that give only amounts; one field of its own record restates it.
        let priced = "1. **Reservation ID: JG7FMM**\n   - New Total Price: $241\n   - Refund: $6,594 has been processed.\n";
        assert!(!at(priced, "JG7FMM"));
        let routed =
            "1. **Reservation ID: JG7FMM**\n   - New Total Price: $241\n   - Route: JFK to SEA\n";
        assert!(at(routed, "JG7FMM"));
    }

    /// How much the text around the first `id` in `t` restates it.
    fn of(t: &str, id: &str) -> Restated {
        let s = t.find(id).unwrap();
        restated(t, s, s + id.len())
    }

    #[test]
    fn an_id_closing_its_line_heads_the_fields_under_it() {
        // Its closing parenthesis and markup end the heading as well as a colon would.
        let t = "- **Flights:**\n  - **JFK to ATL (Flight HAT136)**\n    - Departure: 07:00 PM\n";
        assert_eq!(of(t, "HAT136"), Restated::Record);
        // A heading that goes on past the id says something of it instead.
        let t = "- **JFK to ATL (Flight HAT136)** was cancelled\n    - Reason: weather\n";
        assert_ne!(of(t, "HAT136"), Restated::Record);
    }

    #[test]
    fn a_row_of_a_table_is_the_record_of_its_ids() {
        let t = "| Commit | Task |\n|---|---|\n| `3bb8701` | spotter-fum.1 | Enriched metadata |\n";
        assert_eq!(of(t, "3bb8701"), Restated::Record);
        assert_eq!(of(t, "spotter-fum.1"), Restated::Record);
        // A pipe in prose makes no row.
        assert_eq!(of("Run `a | b` for 3bb8701 now", "3bb8701"), Restated::No);
    }

    #[test]
    fn a_list_or_an_address_in_parentheses_restates_a_phrase_and_a_gloss_does_not() {
        let after = |t: &str, phrase: &str| {
            restates_in_parentheses(t, t.find(phrase).unwrap() + phrase.len())
        };
        let link = "Please click on the first relevant link (https://nas.er.usgs.gov/queries/FactSheet.aspx).";
        assert!(after(link, "the first relevant link"));
        assert!(after(
            "None of these tools (credo, dialyxir, sobelow) run.",
            "these tools"
        ));
        assert!(!after(
            "Refund to your original payment method (gift card).",
            "original payment method"
        ));
    }

    #[test]
    fn identifiers_skip_paths_and_plain_words() {
        let lex = Lexicon::builtin();
        let t = "Flight HAT072 and reservation 4WQ150 for sofia_kim_7287; not src/HAT073/x or README or added or a1b2c3d.py";
        let ids: Vec<&str> = identifiers(t, &lex)
            .into_iter()
            .map(|(s, e)| &t[s..e])
            .collect();
        assert_eq!(ids, vec!["HAT072", "4WQ150", "sofia_kim_7287"]);
        let t = "Closing spotter-4te.3, spotter-a0y.4 and gqc.7 on ubuntu-22.04, node-v18.17 and release-rc1.0 with python3.11.";
        let ids: Vec<&str> = identifiers(t, &lex)
            .into_iter()
            .map(|(s, e)| &t[s..e])
            .collect();
        assert_eq!(ids, vec!["spotter-4te.3", "spotter-a0y.4", "gqc.7"]);
    }
}
