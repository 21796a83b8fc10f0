//! What a summary lets go. "Skipping the docs update" names the docs update, and drops it: a
//! summary that names an open obligation only in words a let-go word governs does not carry it.
//!
//! The lexicon says which words let go (`obligation.let_go`, `let_go_after`) and which put the
//! work off instead (`put_off`); this module says what each governs, by the clause's shape:
//! - a word before what it lets go ("skipped", "decided not to", "no need to") governs the rest
//!   of its clause: to a mark (`. ; : , ! ?`, brackets, a spaced dash) or a word that opens
//!   another clause ("then", "but", "since", "and we …");
//! - a word after it governs its subject: a passive ("the docs update was skipped") the few
//!   words before it, back to a mark or a subordinating word ("explaining why empty lines are
//!   skipped" lets go of "empty lines"); a status ("Update the docs: skipped", "(not needed)")
//!   its whole item, back to the sentence's start.
//!
//! A word inside a flag or a name (`--skip-cache`, `no-drop`) or in capitals (SQL's `DROP`), one
//! negated ("must not skip it"), or one in a sentence that puts the work off or says it is still owed ("until the code
//! compiles", "by mistake and must be done") governs nothing.

use crate::extract::lexicon::Lexicon;

/// Words that open another clause: a let-go word's reach ends before them.
const OPENS_CLAUSE: [&str; 13] = [
    "then", "but", "so", "since", "because", "while", "though", "although", "whereas", "instead",
    "until", "once", "unless",
];

/// After "and", words that start another clause ("skipped the lint step and will update the
/// docs"), not another object ("dropped the docs and the changelog").
const AND_THEN: [&str; 15] = [
    "i", "we", "will", "must", "should", "need", "needs", "then", "also", "still", "now", "later",
    "it", "they", "you",
];

/// Words a passive's subject does not reach back over: "(the docs explaining) why empty lines
/// are skipped".
const SUBORDINATE: [&str; 20] = [
    "why", "that", "which", "where", "when", "if", "whether", "because", "since", "so", "and",
    "but", "then", "while", "after", "before", "once", "until", "as", "how",
];

/// How many words a passive's subject reaches back at most.
const SUBJECT_WORDS: usize = 6;

/// Byte ranges of `unit` (a line or sentence of a summary) that a let-go word governs, the word
/// included, in order of the words.
pub fn spans(unit: &str, lex: &Lexicon) -> Vec<(usize, usize)> {
    let b = unit.as_bytes();
    let after = lex.let_go_after.find_all(unit);
    let mut out = Vec::new();
    for &(s, e) in &after {
        if puts_off(unit, e, lex) {
            continue;
        }
        // A status opens on its mark (": skipped", "(not needed)"); a passive on its verb.
        let start = if b[s].is_ascii_alphabetic() {
            subject_start(unit, s)
        } else {
            item_start(unit, s)
        };
        out.push((start, e));
    }
    for (s, e) in lex.let_go.find_all(unit) {
        // (The participle of a passive or a status is its word, not one of its own.)
        let in_after = after.iter().any(|&(a, z)| a <= s && e <= z);
        let in_a_name = s > 0 && matches!(b[s - 1], b'-' | b'/' | b'.' | b'`' | b'=')
            || b.get(e).is_some_and(|&c| c == b'-')
            || !unit[s..e].bytes().any(|c| c.is_ascii_lowercase());
        if in_after || in_a_name || negated(&unit[..s]) || puts_off(unit, e, lex) {
            continue;
        }
        out.push((s, clause_end(unit, e)));
    }
    out.sort_unstable();
    out
}

/// The rest of the word's sentence puts the work off or says it is still owed.
fn puts_off(unit: &str, from: usize, lex: &Lexicon) -> bool {
    let b = unit.as_bytes();
    let end = (from..b.len())
        .find(|&i| is_sentence_end(b, i))
        .unwrap_or(b.len());
    lex.put_off.is_match(&unit[from..end])
}

/// `.` `;` `!` `?` ending a sentence (not the dot of "v1.5" or "e.g").
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

/// "not", "never", "without", "no" or a word in "n't" among the three words before the cue, in
/// its clause.
fn negated(before: &str) -> bool {
    let b = before.as_bytes();
    let from = (0..b.len())
        .rev()
        .find(|&i| is_clause_mark(b, i))
        .map_or(0, |i| i + 1);
    before[from..]
        .split_whitespace()
        .rev()
        .take(3)
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .any(|w| matches!(w.as_str(), "not" | "never" | "without" | "no") || w.ends_with("n't"))
}

/// Where the clause that goes on at `from` ends: a mark, a spaced dash, or a word that opens
/// another clause.
fn clause_end(unit: &str, from: usize) -> usize {
    let b = unit.as_bytes();
    let mut i = from;
    while i < b.len() {
        if is_clause_mark(b, i) {
            return i;
        }
        // (By bytes: `i` may fall inside a character.)
        if [" - ", " \u{2013} ", " \u{2014} "]
            .iter()
            .any(|d| b[i..].starts_with(d.as_bytes()))
        {
            return i;
        }
        if b[i].is_ascii_alphabetic() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let word = word_at(unit, i);
            let lower = word.to_ascii_lowercase();
            let opens = OPENS_CLAUSE.contains(&lower.as_str())
                || lower == "and" && AND_THEN.contains(&next_word(unit, i + word.len()).as_str());
            if opens && i > from {
                return unit[..i].trim_end().len().max(from);
            }
            i += word.len();
            continue;
        }
        i += 1;
    }
    b.len()
}

/// Where a passive's subject starts: at most [`SUBJECT_WORDS`] words back from `at`, stopping
/// at a mark or a subordinating word.
fn subject_start(unit: &str, at: usize) -> usize {
    let b = unit.as_bytes();
    let mut start = at;
    let mut words = 0;
    let mut i = at;
    while i > 0 && words < SUBJECT_WORDS {
        let c = b[i - 1];
        if is_clause_mark(b, i - 1) {
            break;
        }
        if c.is_ascii_whitespace() {
            i -= 1;
            continue;
        }
        // A word (or a token of other bytes) ends at i.
        let mut s = i;
        while s > 0 && !b[s - 1].is_ascii_whitespace() && !is_clause_mark(b, s - 1) {
            s -= 1;
        }
        let lower = unit[s..i].to_ascii_lowercase();
        if SUBORDINATE.contains(&lower.as_str()) {
            break;
        }
        start = s;
        words += 1;
        i = s;
    }
    start
}

/// Where the item a status closes starts: the sentence's start.
fn item_start(unit: &str, at: usize) -> usize {
    let b = unit.as_bytes();
    (0..at)
        .rev()
        .find(|&i| is_sentence_end(b, i))
        .map_or(0, |i| i + 1)
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
            governed("Parser fixed. - Update the docs: skipped"),
            [" - Update the docs: skipped"]
        );
        assert_eq!(
            governed("No need to update the docs"),
            ["No need to update the docs"]
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
        // In a flag or a name, negated, put off, still owed: nothing.
        for unit in [
            "Update the docs for the new --skip-cache option.",
            "Migration by table rewrite (RENAME, CREATE, INSERT, DROP pattern).",
            "Added the highlighter, which skips nodes with `data-hljs`.",
            "Do the docs update - I must not skip it.",
            "The user asked us not to skip the docs update.",
            "Skipping the docs update until the code compiles.",
            "The docs update was skipped by mistake and must be done.",
            "Skipped the docs update for now.",
        ] {
            assert!(governed(unit).is_empty(), "{unit}: {:?}", governed(unit));
        }
    }
}
