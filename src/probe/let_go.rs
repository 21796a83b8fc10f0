//! What a summary lets go. "Skipping the docs update" names the docs update, and drops it: a
//! summary that names an open obligation only in words a let-go word governs does not carry it.
//!
//! The lexicon says which words let go (`obligation.let_go`, `let_go_after`), which put the work
//! off instead (`put_off`) and which say it is still owed (`still_owed`); this module says what
//! each governs, by the clause's shape:
//! - a word before what it lets go ("skipped", "decided not to", "no need to") governs the rest
//!   of its clause: to a mark (`. ; : , ! ?`, brackets, a spaced dash) or a word that opens
//!   another clause ("then", "when", "since", "and update …", "and we …");
//! - a word after it governs its subject: a passive ("the docs update was skipped") the few
//!   words before it, back to a mark or a subordinating word ("update the docs to say slow
//!   tests are skipped" lets go of "say slow tests"); a status ("Update the docs: skipped",
//!   "(not needed)") its item, back to the mark before it;
//! - text struck through (`~~update the docs~~`) is let go whole.
//!
//! A word inside a flag or a name (`--skip-cache`, `no-drop`) or in capitals (SQL's `DROP`), one
//! negated ("must not skip it") or over another let-go word ("won't skip the docs update"), one
//! in a sentence that puts the work off ("for now", "until the code compiles"), or one whose own
//! words say the work is still owed ("skipped by mistake and must be done") governs nothing;
//! "skip (straight) to" goes to what follows.
//!
//! Every boundary of a unit is found once, and each word's reach by binary search: linear in the
//! unit, however many let-go words it holds.

use crate::extract::lexicon::Lexicon;

/// Words that open another clause: a let-go word's reach ends before them.
const OPENS_CLAUSE: [&str; 18] = [
    "then", "but", "so", "since", "because", "while", "though", "although", "whereas", "instead",
    "until", "once", "unless", "when", "after", "before", "if", "where",
];

/// After "and", words that start another clause ("skipped the lint step and will update the
/// docs"), besides a verb ("and update the docs"), not another object ("the docs and the
/// changelog").
const AND_THEN: [&str; 15] = [
    "i", "we", "will", "must", "should", "need", "needs", "then", "also", "still", "now", "later",
    "it", "they", "you",
];

/// Words a passive's subject does not reach back over: "(the docs explaining) why empty lines
/// are skipped", "(update the docs) to say slow tests are skipped".
const SUBORDINATE: [&str; 25] = [
    "why",
    "that",
    "which",
    "where",
    "when",
    "if",
    "whether",
    "because",
    "since",
    "so",
    "and",
    "but",
    "then",
    "while",
    "after",
    "before",
    "once",
    "until",
    "as",
    "how",
    "to",
    "about",
    "regarding",
    "with",
    "without",
];

/// Nor over a pronoun (an active verb's subject: "the options we dropped"), a preposition or a
/// form in -ing ("update the docs listing every test skipped").
const PRONOUN_OR_PREPOSITION: [&str; 14] = [
    "i", "we", "you", "they", "he", "she", "it", "for", "of", "in", "on", "at", "from", "by",
];

/// How far a passive's subject reaches back at most: words, and bytes.
const SUBJECT_WORDS: usize = 6;
const SUBJECT_BYTES: usize = 200;

/// How far back a negation is looked for: the three words before a let-go word, in its clause.
const NEGATION_BYTES: usize = 64;

/// Byte ranges of `unit` (a line or sentence of a summary) that let-go words govern, the words
/// included: sorted, disjoint.
pub fn spans(unit: &str, lex: &Lexicon) -> Vec<(usize, usize)> {
    governed(unit, lex, true)
}

/// What the let-go words of an obligation's own text reach, whatever puts them off or negates
/// them ("I'll drop the old index once the migration has run" reaches "the old index").
pub fn reach(unit: &str, lex: &Lexicon) -> Vec<(usize, usize)> {
    governed(unit, lex, false)
}

/// `spans`, or with `strict` false, `reach`.
fn governed(unit: &str, lex: &Lexicon, strict: bool) -> Vec<(usize, usize)> {
    let after = nonempty(lex.let_go_after.find_all(unit));
    let before = nonempty(lex.let_go.find_all(unit));
    if after.is_empty() && before.is_empty() {
        return struck(unit);
    }
    let shape = Shape::of(unit, lex);
    let b = unit.as_bytes();
    let mut out = Vec::new();
    // (An item does not reach back over the status before it: each is read once.)
    let mut previous_end = 0;
    for &(s, e) in &after {
        // A status opens on its mark (": skipped", "(not needed)"); a passive on its verb.
        let passive = b[s].is_ascii_alphabetic();
        if !passive && !ends_status(unit, e) {
            continue; // ": skipped tests must pass": a noun's word, not a status
        }
        // "No docs update needed" holds what it lets go.
        let between = unit[s..e]
            .get(..3)
            .is_some_and(|w| w.eq_ignore_ascii_case("no ") || w.eq_ignore_ascii_case("no\t"));
        let start = if between {
            s
        } else if passive {
            subject_start(unit, s)
        } else {
            shape.item_start(s, previous_end)
        };
        previous_end = e;
        // "The docs update must not be skipped", "is not skipped" (words before the participle;
        // "isn't needed" is a let-go of its own).
        if strict && passive && !between && shape.negated(s) {
            continue;
        }
        if !strict || !shape.puts_off(s) && !shape.owed_in(s, shape.sentence_end(e)) {
            out.push((start, e));
        }
    }
    for (k, &(s, e)) in before.iter().enumerate() {
        // (The participle of a passive or a status is its word, not one of its own: `after`
        // is sorted and disjoint.)
        let a = after.partition_point(|&(_, z)| z < e);
        let in_after = after.get(a).is_some_and(|&(a, z)| a <= s && e <= z);
        let word = &unit[s..e];
        let capitals = word.bytes().any(|c| c.is_ascii_uppercase())
            && !word.bytes().any(|c| c.is_ascii_lowercase());
        let in_a_name = s > 0 && matches!(b[s - 1], b'-' | b'/' | b'.' | b'`' | b'=' | b'_')
            || b.get(e).is_some_and(|&c| c == b'-' || c == b'_')
            || capitals;
        // "Skip (straight) to the docs update" goes to it.
        let goes_to = word.to_ascii_lowercase().starts_with("skip")
            && matches!(
                next_word(unit, e).as_str(),
                "to" | "straight" | "ahead" | "directly"
            );
        if in_after || in_a_name || goes_to {
            continue;
        }
        if strict && (shape.negated(s) || shape.puts_off(s)) {
            continue;
        }
        let end = shape.clause_end(e);
        // A let-go word over another is a double negative: "won't skip the docs update",
        // "no need to drop it", "won't forget to update the docs".
        let double = before.get(k + 1).is_some_and(|&(s2, _)| s2 < end)
            || matches!(
                next_word(unit, e).as_str(),
                "forget" | "miss" | "neglect" | "fail"
            );
        if strict && (double || shape.owed_in(e, end)) {
            continue;
        }
        out.push((s, end));
    }
    out.extend(struck(unit));
    merge(out)
}

/// Markdown's struck-through text (`~~update the docs~~`), marks included: what a summary
/// strikes out it no longer owes, whatever the words say.
fn struck(unit: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = unit[from..].find("~~") {
        let s = from + k;
        let Some(z) = unit[s + 2..].find("~~") else {
            break;
        };
        let e = s + 2 + z + 2;
        // (Not an empty pair, nor one across lines: a fence of tildes is no strike.)
        if z > 0 && !unit[s..e].contains('\n') {
            out.push((s, e));
        }
        from = e;
    }
    out
}

/// What may follow a status word: nothing, a mark, or its reason ("skipped per the user's
/// request", "not needed anymore").
fn ends_status(unit: &str, at: usize) -> bool {
    const REASON: [&str; 12] = [
        "per", "anymore", "as", "since", "because", "due", "by", "for", "at", "on", "in", "after",
    ];
    let rest = unit[at..].trim_start();
    match rest.bytes().next() {
        None => true,
        Some(c) if !c.is_ascii_alphanumeric() => true,
        Some(_) => REASON.contains(&word_at(rest, 0).to_ascii_lowercase().as_str()),
    }
}

/// Matches that hold something: a user's pattern that can match nothing would govern nothing.
fn nonempty(matches: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    matches.into_iter().filter(|(s, e)| s < e).collect()
}

/// Overlapping ranges joined: sorted and disjoint.
fn merge(mut v: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    v.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(v.len());
    for (s, e) in v {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// The boundaries of a unit, found once.
struct Shape<'u> {
    unit: &'u str,
    /// Where a clause ends: marks and spaced dashes (at the mark), ascending.
    marks: Vec<usize>,
    /// Words that open another clause: (where the word starts, where the clause before it
    /// ends), ascending.
    openers: Vec<(usize, usize)>,
    /// Where sentences end, ascending.
    sentence_ends: Vec<usize>,
    /// Matches of `put_off` and `still_owed`, ascending.
    put_off: Vec<(usize, usize)>,
    still_owed: Vec<(usize, usize)>,
}

impl<'u> Shape<'u> {
    fn of(unit: &'u str, lex: &Lexicon) -> Shape<'u> {
        let b = unit.as_bytes();
        let mut marks = Vec::new();
        let mut sentence_ends = Vec::new();
        let mut openers = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if is_sentence_end(b, i) {
                sentence_ends.push(i);
            }
            if is_clause_mark(b, i) || is_spaced_dash(b, i) {
                marks.push(i);
            }
            if b[i].is_ascii_alphabetic() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
                let word = word_at(unit, i);
                let lower = word.to_ascii_lowercase();
                let opens = OPENS_CLAUSE.contains(&lower.as_str())
                    || lower == "and" && starts_clause(&next_word(unit, i + word.len()), lex)
                    || lower == "to" && purpose(&previous_word(unit, i));
                if opens {
                    openers.push((i, unit[..i].trim_end().len()));
                }
                i += word.len();
                continue;
            }
            i += 1;
        }
        Shape {
            unit,
            marks,
            openers,
            sentence_ends,
            put_off: lex.put_off.find_all(unit),
            still_owed: lex.still_owed.find_all(unit),
        }
    }

    /// Where the clause that goes on at `from` ends.
    fn clause_end(&self, from: usize) -> usize {
        let mark = first_at_or_after(&self.marks, from).unwrap_or(self.unit.len());
        let k = self.openers.partition_point(|&(w, _)| w <= from);
        let opener = self.openers.get(k).map_or(self.unit.len(), |&(_, end)| end);
        mark.min(opener).max(from)
    }

    /// Where the clause holding `at` starts: after the last mark before it.
    fn clause_start(&self, at: usize) -> usize {
        let k = self.marks.partition_point(|&m| m < at);
        k.checked_sub(1).map_or(0, |k| self.marks[k] + 1)
    }

    /// Where the item a status at `at` closes starts: after the mark before it (a list's last
    /// item: "update the docs, benchmarks (skipped)"), passing over a bracketed group closed
    /// before it ("the docs (README, CHANGELOG): skipped"), not out of the bracket it is in
    /// ("Update the docs (screenshots: not needed)").
    fn item_start(&self, at: usize, floor: usize) -> usize {
        let b = self.unit.as_bytes();
        let mut depth = 0usize;
        let k = self.marks.partition_point(|&m| m < at);
        let j = self.marks.partition_point(|&m| m < floor);
        for &m in self.marks[j..k].iter().rev() {
            match b[m] {
                b',' if depth > 0 => {}
                b')' | b']' => depth += 1,
                b'(' | b'[' if depth > 0 => depth -= 1,
                _ => return m + 1,
            }
        }
        floor
    }

    /// Where the sentence holding `at` ends.
    fn sentence_end(&self, at: usize) -> usize {
        first_at_or_after(&self.sentence_ends, at).unwrap_or(self.unit.len())
    }

    /// The sentence holding `at` puts the work off: "for now", "until the code compiles".
    fn puts_off(&self, at: usize) -> bool {
        let k = self.sentence_ends.partition_point(|&e| e < at);
        let start = k.checked_sub(1).map_or(0, |k| self.sentence_ends[k] + 1);
        let end = self.sentence_end(at);
        any_in(&self.put_off, start, end)
    }

    /// `from..to` says the work is still owed: "by mistake and must be done".
    fn owed_in(&self, from: usize, to: usize) -> bool {
        any_in(&self.still_owed, from, to)
    }

    /// "not", "never", "without", "no" or a word in "n't" among the three words before `at`, in
    /// its clause.
    fn negated(&self, at: usize) -> bool {
        let mut from = self.clause_start(at).max(at.saturating_sub(NEGATION_BYTES));
        while !self.unit.is_char_boundary(from) {
            from += 1;
        }
        self.unit[from..at]
            .split_whitespace()
            .rev()
            .take(3)
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                    .to_lowercase()
            })
            .any(|w| matches!(w.as_str(), "not" | "never" | "without" | "no") || w.ends_with("n't"))
    }
}

/// The first of `sorted` at or after `at`.
fn first_at_or_after(sorted: &[usize], at: usize) -> Option<usize> {
    sorted.get(sorted.partition_point(|&x| x < at)).copied()
}

/// A match of `sorted` starts in `from..to`.
fn any_in(sorted: &[(usize, usize)], from: usize, to: usize) -> bool {
    sorted
        .get(sorted.partition_point(|&(s, _)| s < from))
        .is_some_and(|&(s, _)| s < to)
}

/// A word after "and" that starts another clause: a pronoun or modal, or a verb (one the
/// lexicon knows, or a form in -ing or -ed).
fn starts_clause(word: &str, lex: &Lexicon) -> bool {
    AND_THEN.contains(&word)
        || lex.imperative_verbs.iter().any(|v| v == word)
        || word.len() > 4 && (word.ends_with("ing") || word.ends_with("ed"))
}

/// "to" after this word opens a clause of purpose ("skipped the flaky test to unblock the
/// release"), unless the word wants an infinitive ("trying to", "the plan to", "need to").
fn purpose(previous: &str) -> bool {
    const WANTS: [&str; 24] = [
        "trying", "try", "going", "need", "needs", "have", "has", "had", "want", "wants", "able",
        "how", "what", "attempt", "attempts", "plan", "plans", "effort", "decided", "chose",
        "opted", "asked", "told", "used",
    ];
    !previous.is_empty() && !WANTS.contains(&previous)
}

/// The word before `i`, lowercase.
fn previous_word(unit: &str, i: usize) -> String {
    let before = unit[..i].trim_end();
    let start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map_or(0, |k| {
            k + before[k..].chars().next().map_or(1, char::len_utf8)
        });
    before[start..].to_ascii_lowercase()
}

/// `.` `;` `!` `?` or a line break ending a sentence (not the dot of "v1.5" or "e.g").
fn is_sentence_end(b: &[u8], i: usize) -> bool {
    match b[i] {
        b';' | b'!' | b'?' | b'\n' => true,
        b'.' => b.get(i + 1).is_none_or(|c| !c.is_ascii_alphanumeric()),
        _ => false,
    }
}

/// A mark that ends a clause at `i`.
fn is_clause_mark(b: &[u8], i: usize) -> bool {
    is_sentence_end(b, i) || matches!(b[i], b':' | b',' | b'(' | b')' | b'[' | b']')
}

/// A dash between spaces at `i` (the space before it): " - ", " -- ", " – ", " — ".
fn is_spaced_dash(b: &[u8], i: usize) -> bool {
    b[i] == b' '
        && [
            &b"- "[..],
            b"-- ",
            "\u{2013} ".as_bytes(),
            "\u{2014} ".as_bytes(),
        ]
        .iter()
        .any(|d| b[i + 1..].starts_with(d))
}

/// Where a passive's subject starts: at most [`SUBJECT_WORDS`] words back from `at`, stopping at
/// a mark or a subordinating word.
fn subject_start(unit: &str, at: usize) -> usize {
    let b = unit.as_bytes();
    let floor = at.saturating_sub(SUBJECT_BYTES);
    let mut start = at;
    let mut words = 0;
    let mut i = at;
    while i > floor && words < SUBJECT_WORDS {
        if is_clause_mark(b, i - 1) {
            break;
        }
        if b[i - 1].is_ascii_whitespace() {
            i -= 1;
            continue;
        }
        // A word (or a run of other bytes) ends at i.
        let mut s = i;
        while s > floor && !b[s - 1].is_ascii_whitespace() && !is_clause_mark(b, s - 1) {
            s -= 1;
        }
        while !unit.is_char_boundary(s) {
            s += 1;
        }
        let lower = unit[s..i].to_ascii_lowercase();
        let ing = lower.len() > 4 && lower.ends_with("ing");
        if SUBORDINATE.contains(&lower.as_str())
            || PRONOUN_OR_PREPOSITION.contains(&lower.as_str())
            || ing
        {
            break;
        }
        start = s;
        words += 1;
        i = s;
    }
    start
}

/// The word (letters, digits, `'`) at `i`.
fn word_at(unit: &str, i: usize) -> &str {
    let end = unit[i..]
        .find(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map_or(unit.len(), |k| i + k);
    &unit[i..end]
}

/// The next word after `i`, lowercase.
fn next_word(unit: &str, i: usize) -> String {
    let rest = unit[i..].trim_start();
    let start = unit.len() - rest.len();
    word_at(unit, start).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn governed(unit: &str) -> Vec<&str> {
        static LEX: std::sync::OnceLock<Lexicon> = std::sync::OnceLock::new();
        spans(unit, LEX.get_or_init(Lexicon::builtin))
            .iter()
            .map(|&(s, e)| &unit[s..e])
            .collect()
    }

    #[test]
    fn what_each_let_go_word_governs() {
        assert_eq!(
            governed("Skipping the docs update."),
            ["Skipping the docs update"]
        );
        assert_eq!(
            governed("Skipped the lint step and will update the docs."),
            ["Skipped the lint step"]
        );
        assert_eq!(
            governed("- Drop the --fast flag and update the docs"),
            ["Drop the --fast flag"]
        );
        assert_eq!(
            governed("Drop the --fast flag section when updating the docs."),
            ["Drop the --fast flag section"]
        );
        assert_eq!(
            governed("Dropped the docs and the changelog, since the README covers them."),
            ["Dropped the docs and the changelog"]
        );
        assert_eq!(
            governed("- Update the docs: drop the --fast flag section"),
            ["drop the --fast flag section"]
        );
        assert_eq!(
            governed("The docs update was skipped."),
            ["The docs update was skipped"]
        );
        assert_eq!(
            governed("Update the docs explaining why empty lines are skipped."),
            ["empty lines are skipped"]
        );
        assert_eq!(
            governed("Update the docs to say slow tests are skipped on CI."),
            ["say slow tests are skipped"]
        );
        assert_eq!(
            governed("Parser fixed. - Update the docs: skipped"),
            ["- Update the docs: skipped"]
        );
        assert_eq!(
            governed("Update the docs (screenshots: not needed)"),
            ["screenshots: not needed"]
        );
        assert_eq!(
            governed("- Update the docs: skipped per the user's request"),
            ["- Update the docs: skipped"]
        );
        assert!(governed("- Update the docs: skipped tests must pass").is_empty());
        assert_eq!(
            governed("No need to update the docs"),
            ["No need to update the docs"]
        );
        assert_eq!(
            governed("No docs update needed."),
            ["No docs update needed"]
        );
        // Characters of several bytes anywhere: "—" ends the clause, "é" and quotes do not.
        assert_eq!(
            governed("Skipped the “café” menu update \u{2014} ✅ parser fixed"),
            ["Skipped the “café” menu update"]
        );
        // A character of several bytes at any place of a line with every kind of let-go word
        // is read through, never sliced.
        let line = "- Docs: skipped the update, no need to rerun - it was dropped (not needed).";
        for ch in ['é', '“', '—', '✅', '東'] {
            for (i, _) in line.char_indices() {
                let mut s = line.to_string();
                s.insert(i, ch);
                governed(&s);
            }
        }
        // In a flag, a name or capitals, negated, put off, still owed: nothing.
        for unit in [
            "Update the docs for the new --skip-cache option.",
            "Migration by table rewrite (RENAME, CREATE, INSERT, DROP pattern).",
            "Added the highlighter, which skips nodes with `data-hljs`.",
            "Do the docs update - I must not skip it.",
            "Not needed - skipping the docs update for now.",
            "The user asked us not to skip the docs update.",
            "Skipping the docs update until the code compiles.",
            "For now, skipping the docs update.",
            "Temporarily skipped the docs update.",
            "Until the code compiles, the docs update is skipped.",
            "The docs update was skipped by mistake and must be done.",
        ] {
            assert!(governed(unit).is_empty(), "{unit}: {:?}", governed(unit));
        }
        // A user's pattern that can match nothing governs nothing (and reads through).
        let lex = Lexicon::with_extra(&[(
            "user.toml".into(),
            "[obligation]\nlet_go_after = ['(: not required)?$']\nlet_go = ['(never)?']".into(),
        )])
        .unwrap();
        assert_eq!(spans("Update the docs", &lex), []);
        assert_eq!(spans("", &lex), []);
        // Still-owed words after the clause are about something else.
        assert_eq!(
            governed("No need to update the docs, since the public API must stay unchanged."),
            ["No need to update the docs"]
        );
    }
}
