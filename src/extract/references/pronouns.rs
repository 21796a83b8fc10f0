//! Pronouns that open a turn with no antecedent in it ("It failed again", "I can help you with
//! that"), bound to the previous turn; expletive "it" is not one.

use super::descriptions::DETERMINERS;
use super::*;

impl Reader<'_> {
    /// Pronouns: only where nothing in this turn can be their antecedent yet, i.e. in its
    /// opening: a sentence-initial pronoun in the first sentence (or the second after a short
    /// interjection), an object pronoun in the first two ("You're right, and thank you for
    /// pointing that out").
    pub(super) fn pronouns(&self, seg: &Segment, found: &mut Found) {
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
                // The fact starts at the pronoun, past an interjection ("OK, it failed again"
                // → "it").
                .map(|(ps, pe)| (ps + to_the_pronoun(&sentence[ps..pe]), pe))
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
                        // ("Thank you for your help. I appreciate it.": what the thanks
                        // names.)
                        .filter(|_| !thanks_for_a_thing(earlier))
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
                if !found.claimed.overlaps(as_, ae) {
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

/// "Thank you for your help", "Alright, thanks for the update": thanks naming what they are
/// for (within the sentence's first three words).
fn thanks_for_a_thing(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    let opens_with_thanks = lower
        .split_whitespace()
        .take(3)
        .any(|w| w.starts_with("thank"));
    opens_with_thanks
        && lower
            .split_once(" for ")
            .is_some_and(|(_, rest)| names_a_thing(rest))
}

/// Whether a text names code, a file or a path (`fields.py`, `src/`).
fn names_code(text: &str) -> bool {
    text.contains('`') || names_a_file(text)
}

/// Whether a text names a file or a path (`fields.py`, src/).
fn names_a_file(text: &str) -> bool {
    first_file_name(text).is_some()
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

/// Pronouns, auxiliaries, particles, interjections and degree adverbs ("really", "quite"): words
/// that cannot name what "it" stands for.
fn is_function_word(w: &str) -> bool {
    w.bytes().all(|b| b.is_ascii_digit()) || FUNCTION_WORDS.binary_search(&w).is_ok()
}

/// (Sorted, for the binary search.)
const FUNCTION_WORDS: &[&str] = &[
    "a", "about", "actually", "ah", "alright", "also", "am", "an", "and", "are", "as", "at", "be",
    "been", "but", "by", "can", "could", "d", "did", "do", "does", "don", "for", "from", "great",
    "had", "has", "have", "hmm", "honestly", "i", "if", "in", "is", "just", "let", "ll", "m",
    "may", "me", "might", "must", "my", "no", "not", "now", "of", "oh", "ok", "okay", "on", "or",
    "our", "perfect", "please", "probably", "quite", "re", "really", "s", "shall", "should", "so",
    "t", "thank", "thanks", "then", "to", "us", "ve", "very", "was", "we", "well", "were", "will",
    "with", "would", "yes", "you", "your",
];

fn is_expletive(from_pronoun: &str, lex: &Lexicon) -> bool {
    lex.expletive_it.is_match(&from_pronoun.to_lowercase())
}

/// Where the pronoun of a matched opening starts past an interjection set off by punctuation
/// ("OK, it" → 4, "Yes, please, that" → 13); 0 otherwise: a question's verb or a verb before an
/// object stays with it ("Does it", "I can help you with that"), as object pronouns keep theirs.
fn to_the_pronoun(phrase: &str) -> usize {
    const PRONOUNS: [&str; 12] = [
        "it",
        "this",
        "that",
        "these",
        "those",
        "they",
        "them",
        "both",
        "neither",
        "either",
        "everything",
        "all",
    ];
    tokens(phrase)
        .find(|(_, w)| PRONOUNS.iter().any(|p| w.eq_ignore_ascii_case(p)))
        .filter(|&(k, _)| phrase[..k].trim_end().ends_with([',', '.', '!']))
        .map_or(0, |(k, _)| k)
}

/// The length of `phrase` through its first object pronoun ("find it and" → "find it").
fn through_pronoun(phrase: &str) -> usize {
    const OBJECTS: [&str; 6] = ["that", "this", "it", "those", "these", "them"];
    tokens(phrase)
        .skip(1)
        .find(|(_, w)| OBJECTS.iter().any(|o| w.eq_ignore_ascii_case(o)))
        .map_or(phrase.len(), |(k, w)| k + w.len())
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn function_words_are_sorted_for_the_binary_search() {
        assert!(FUNCTION_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_function_word("really") && !is_function_word("reservation"));
    }
}
