//! Words, sentences and content terms: the small amount of language handling the extractors and
//! the resolver share. Everything here is linear in the text.

use rustc_hash::FxHashSet as HashSet;
use std::sync::OnceLock;

pub use crate::text::Sentence;

use crate::markdown::Fence;
use crate::model::Segment;

/// The sentences of a segment's text, split on first use and kept: the extractors and the
/// resolver all read them (one split each was a twentieth of the analysis).
pub fn sentences_of(seg: &Segment) -> &[Sentence] {
    seg.sentences.get_or_init(|| sentences(&seg.text.text))
}

/// The length past which a sentence is cut (bytes): about twice the longest one in the corpora
/// (519).
const LONGEST_SENTENCE: usize = 1000;

/// Splits prose into sentences: at `.`, `!`, `?` followed by white space, at line breaks, and
/// never inside fenced code blocks (which are dropped: code is not prose).
pub fn sentences(text: &str) -> Vec<Sentence> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut fence = Fence::Outside;
    let mut i = 0;
    let push = |out: &mut Vec<Sentence>, s: usize, e: usize| {
        let (s, e) = trim(text, s, e);
        if e > s {
            out.push(Sentence { start: s, end: e });
        }
    };
    // (A text that opens with a fence is code from its first line.)
    let first_line_end = memchr::memchr(b'\n', b).unwrap_or(b.len());
    if let (f, true) = fence.step(&text[..first_line_end]) {
        fence = f;
        start = first_line_end;
        i = first_line_end;
    }
    while i < b.len() {
        let c = b[i];
        // A "sentence" far longer than prose has (a model looping on one clause, a dump with no
        // full stop) is cut into pieces of about `LONGEST_SENTENCE`, at a space where there is
        // one: what reads a sentence once per cue in it then stays linear in the text.
        let long = i - start;
        if !fence.is_open()
            && (long >= LONGEST_SENTENCE && (c == b' ' || c == b'\t')
                || long >= 4 * LONGEST_SENTENCE && text.is_char_boundary(i))
        {
            push(&mut out, start, i);
            start = i;
        }
        if c == b'\n' {
            let line_start = start;
            if !fence.is_open() {
                push(&mut out, line_start, i);
            }
            start = i + 1;
            // A fence line opens or closes a code block.
            let next_line_end = memchr::memchr(b'\n', &b[start..]).map_or(b.len(), |k| start + k);
            if let (f, true) = fence.step(&text[start..next_line_end]) {
                fence = f;
                start = next_line_end.min(b.len());
                i = next_line_end;
                continue;
            }
        } else if !fence.is_open()
            && matches!(c, b'.' | b'!' | b'?')
            && b.get(i + 1).is_some_and(|n| *n == b' ' || *n == b'\t')
        {
            // "e.g. " and "1. " are not sentence ends.
            let before = &text[start..i];
            let abbreviation = c == b'.' && ends_an_abbreviation(before, &text[i + 1..])
                || !before.is_empty()
                    && before.len() <= 2
                    && before.chars().all(|c| c.is_ascii_digit());
            if !abbreviation {
                push(&mut out, start, i + 1);
                start = i + 1;
            }
        } else if !fence.is_open() && c == b'.' && glued_sentence_start(text, i) {
            push(&mut out, start, i + 1);
            start = i + 1;
        }
        i += 1;
    }
    if !fence.is_open() && start < b.len() {
        push(&mut out, start, b.len());
    }
    out
}

/// Whether a period between `before` and `after` ends an abbreviation, not a sentence:
/// "e.g.", "etc.", "Dr.", "No. 5", or a run of initials ("U.S."; a lone capital, "option A.",
/// often ends one, as "No." before a word does).
pub fn ends_an_abbreviation(before: &str, after: &str) -> bool {
    const ABBREVIATIONS: [&str; 9] = ["e.g", "i.e", "etc", "vs", "Mr", "Dr", "St", "cf", "approx"];
    let numbered = after.trim_start().starts_with(|c: char| c.is_ascii_digit());
    let word_start = |w: &str| {
        before[..before.len() - w.len()]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric())
    };
    ABBREVIATIONS
        .iter()
        .chain(numbered.then_some(&"No"))
        .any(|a| before.ends_with(a) && word_start(a))
        || initials(before.as_bytes())
}

/// Whether a text ends in a run of single capitals joined by periods ("U.S", "U.S.A"; not
/// "AWS.S", whose first part is a word).
fn initials(b: &[u8]) -> bool {
    let letter =
        |k: usize| b[k].is_ascii_uppercase() && (k == 0 || !b[k - 1].is_ascii_alphanumeric());
    matches!(b, [.., a, b'.', c] if a.is_ascii_uppercase() && c.is_ascii_uppercase())
        && letter(b.len() - 3)
}

/// Whether the period at `dot` ends a sentence whose next one starts right after it, with no
/// space ("a static message.Next, I'll check", "this version of Perl.Let's try"): a word
/// before it and a word that opens sentences after it. ("fmt.Println" or "forms.pl" do not.)
fn glued_sentence_start(text: &str, dot: usize) -> bool {
    // Words that open sentences and name nothing in code (a capitalized name after a dot is
    // usually a module: "Ecto.Repo", "Phoenix.Controller", "fmt.Println").
    const OPENERS: [&str; 56] = [
        "Let",
        "Let's",
        "Lets",
        "Next",
        "Now",
        "Then",
        "The",
        "This",
        "That",
        "These",
        "Those",
        "It",
        "It's",
        "I",
        "I'll",
        "I'm",
        "We",
        "We'll",
        "We're",
        "You",
        "They",
        "There",
        "Here",
        "However",
        "So",
        "But",
        "If",
        "Since",
        "Finally",
        "First",
        "Before",
        "After",
        "Once",
        "When",
        "While",
        "As",
        "Although",
        "Because",
        "Given",
        "Considering",
        "Based",
        "Upon",
        "Also",
        "Additionally",
        "Instead",
        "Otherwise",
        "Unfortunately",
        "Looking",
        "In",
        "To",
        "Another",
        "All",
        "Some",
        "Most",
        "Our",
        "My",
    ];
    let before_is_word = text[..dot]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_lowercase());
    let rest = &text[dot + 1..];
    let word_len = rest
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '\''))
        .unwrap_or(rest.len());
    before_is_word
        && rest[word_len..].starts_with([' ', ','])
        && OPENERS.contains(&&rest[..word_len])
}

/// A sentence's span without the white space around it, nor the tags some models wrap their
/// reasoning in ("<think>Let me check …"): they are markup, not words of the sentence.
fn trim(text: &str, s: usize, e: usize) -> (usize, usize) {
    const TAGS: [&str; 4] = ["<think>", "</think>", "<thinking>", "</thinking>"];
    let mut piece = text[s..e].trim();
    // (Written in any case: "<Thinking>".)
    while let Some(rest) = TAGS.iter().find_map(|t| strip_prefix_ci(piece, t)) {
        piece = rest.trim_start();
    }
    while let Some(rest) = TAGS.iter().find_map(|t| strip_suffix_ci(piece, t)) {
        piece = rest.trim_end();
    }
    // A scaffold's section label opens the text it heads ("THOUGHT: Let me check", as
    // mini-swe-agent asks for): the sentence is what follows. (TODO and FIXME are cues.)
    if let Some((label, rest)) = piece.split_once(':') {
        let is_label = label.len() >= 4
            && label.bytes().all(|b| b.is_ascii_uppercase())
            && !matches!(label, "TODO" | "FIXME");
        if is_label && rest.starts_with([' ', '\t']) && !rest.trim().is_empty() {
            piece = rest.trim_start();
        }
    }
    let start = offset_in(text, piece);
    (start, start + piece.len())
}

/// Word tokens (letters, digits, `_`), as written, with their byte offsets. (A separator may
/// be several bytes long, an em dash or a curly quote: offsets come from the slices.)
pub fn tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(move |w| (offset_in(text, w), w))
}

/// The runs of ASCII letters in `text`, left to right: what `text.split(|c: char|
/// !c.is_ascii_alphabetic())` yields, without the empty pieces, read byte by byte (no byte of
/// a character outside ASCII is a letter, so no run starts or ends inside one).
pub fn ascii_letter_runs(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut k = 0;
    std::iter::from_fn(move || {
        while k < b.len() && !b[k].is_ascii_alphabetic() {
            k += 1;
        }
        let start = k;
        while k < b.len() && b[k].is_ascii_alphabetic() {
            k += 1;
        }
        (start < k).then(|| &text[start..k])
    })
}

/// Where `part` (a sub-slice of `whole`) starts in it.
pub fn offset_in(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

/// `text` before `suffix`, compared ignoring ASCII case.
fn strip_suffix_ci<'a>(text: &'a str, suffix: &str) -> Option<&'a str> {
    let k = text.len().checked_sub(suffix.len())?;
    text.get(k..)?
        .eq_ignore_ascii_case(suffix)
        .then(|| &text[..k])
}

/// `text` after `prefix`, compared ignoring ASCII case. (`get`: the prefix's length may fall
/// inside a character of the text.)
pub fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.get(..prefix.len())
        .filter(|head| head.eq_ignore_ascii_case(prefix))
        .map(|_| &text[prefix.len()..])
}

/// A crude stem: lowercase, without common suffixes, so "tests", "testing" and "tested" meet.
pub fn stem(word: &str) -> String {
    let mut w = String::new();
    stem_into(word, &mut w);
    w
}

/// `stem`, written into `w` (cleared first): callers stemming many words reuse one buffer.
pub(crate) fn stem_into(word: &str, w: &mut String) {
    lowercase_into(word, w);
    cut_suffixes(w);
}

/// The stem of `lower`, a word already lowercase, written into `w` (cleared first).
fn stem_lowercase_into(lower: &str, w: &mut String) {
    w.clear();
    w.push_str(lower);
    cut_suffixes(w);
}

/// Strips a lowercase word's common suffixes in place; an irregular past form of a verb an
/// agent reports with ("built", "wrote", "ran") becomes its verb first, so "I built it" meets
/// "build the project".
fn cut_suffixes(w: &mut String) {
    let cut = |w: &mut String, n: usize| w.truncate(w.len() - n);
    if let Some(verb) = irregular_verb(w) {
        w.clear();
        w.push_str(verb);
    }
    if !w.is_ascii() || w.len() <= 3 {
        return;
    }
    if w.ends_with("ies") && w.len() > 4 {
        cut(w, 3);
        w.push('y');
    } else if w.ends_with("es")
        && ["ches", "shes", "sses", "xes", "zes"]
            .iter()
            .any(|s| w.ends_with(s))
    {
        cut(w, 2);
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        cut(w, 1);
    } else if w.ends_with("ing") && w.len() > 5 {
        cut(w, 3);
        undouble(w);
    } else if w.ends_with("ied") && w.len() > 4 {
        cut(w, 3);
        w.push('y');
    } else if w.ends_with("ed") && w.len() > 4 {
        cut(w, 2);
        undouble(w);
    }
    if w.ends_with("ment") && w.len() > 7 {
        cut(w, 4);
    }
    // A noun of action meets its verb: "cancellation" / "cancel", "calculation" /
    // "calculate", "deletion" / "delete", "confirmation" / "confirm", "modification" / "modify".
    if w.ends_with("ification") && w.len() > 11 {
        cut(w, 7);
        w.push('y');
    } else if w.ends_with("ation") && w.len() > 8 {
        cut(w, 5);
    } else if w.ends_with("tion") && w.len() > 7 {
        cut(w, 3);
    }
    // "update", "updated", "updating" all end up as "updat".
    if w.ends_with('e') && w.len() > 3 {
        cut(w, 1);
    }
    if w.ends_with("at") && w.len() > 6 {
        cut(w, 2);
    }
    // "install", "installing", "installation"; "cancelled", "cancellation".
    if w.ends_with("ll") && w.len() >= 6 {
        w.pop();
    }
}

/// The verb of an irregular past form. (Not those as often words of their own: "left",
/// "lost", "led", "felt"; nor "found", which after a search names what it found: as "find" it
/// met the query's own `find_…` and incorporated a search that found nothing.)
fn irregular_verb(w: &str) -> Option<&'static str> {
    Some(match w {
        "built" => "build",
        "rebuilt" => "rebuild",
        "ran" => "run",
        "reran" => "rerun",
        "wrote" | "written" => "write",
        "rewrote" | "rewritten" => "rewrite",
        "made" => "make",
        "got" | "gotten" => "get",
        "went" | "gone" => "go",
        "saw" | "seen" => "see",
        "took" | "taken" => "take",
        "gave" | "given" => "give",
        "kept" => "keep",
        "sent" => "send",
        "began" | "begun" => "begin",
        "broke" | "broken" => "break",
        "chose" | "chosen" => "choose",
        "did" | "done" => "do",
        "redid" | "redone" => "redo",
        "undid" | "undone" => "undo",
        "drew" | "drawn" => "draw",
        "held" => "hold",
        "knew" | "known" => "know",
        "meant" => "mean",
        "paid" => "pay",
        "said" => "say",
        "sold" => "sell",
        "stood" => "stand",
        "understood" => "understand",
        "thought" => "think",
        "told" => "tell",
        "shown" => "show",
        "brought" => "bring",
        "bought" => "buy",
        "caught" => "catch",
        "forgot" | "forgotten" => "forget",
        "froze" | "frozen" => "freeze",
        "threw" | "thrown" => "throw",
        "hid" | "hidden" => "hide",
        "spent" => "spend",
        _ => return None,
    })
}

/// "running" → "runn" → "run"; "stopped" → "stopp" → "stop".
fn undouble(w: &mut String) {
    let b = w.as_bytes();
    let n = b.len();
    if n >= 3 && b[n - 1] == b[n - 2] && !matches!(b[n - 1], b'l' | b's' | b'z' | b'e' | b'o') {
        w.pop();
    }
}

pub fn is_stopword(w: &str) -> bool {
    static STOP: OnceLock<HashSet<&'static str>> = OnceLock::new();
    STOP.get_or_init(|| STOPWORDS.split_whitespace().collect())
        .contains(w)
}

/// Words too common to show that two turns are about the same thing.
const STOPWORDS: &str = "a an the and or but if then than so to of in on at by for with from into onto
 about as is are was were be been being it its this that these those there here i me my we our us you
 your he she they them their what which who whom whose when where why how all any both each few more
 most other some such no nor not only own same too very can will just should now also again further
 once do does did doing have has had having would could may might must shall let lets ll ve re d s t
 m im ill ive id dont doesnt didnt cant wont isnt arent wasnt up down out over under off new next
 first second last still already yet well okay ok sure please thanks thank yes get got make made use
 using used need needs want see look check run file files code line lines one two way time thing
 things something anything everything nothing step steps now go going make sure able try trying
 know let us some like also will verify before after later need done start end work working works";

/// Content terms of a text: stems of the words that are not stop words, at least 3 characters.
pub fn terms(text: &str) -> Vec<String> {
    /// Past this many terms, a set beside the list answers "seen?" (the text may be a whole
    /// file, with thousands of distinct words); below it, scanning the list is cheaper.
    const SCAN: usize = 32;
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::default();
    let (mut lw, mut s) = (String::new(), String::new());
    for (_, w) in tokens(text) {
        if w.len() < 3 {
            continue;
        }
        lowercase_into(w, &mut lw);
        if is_stopword(&lw) {
            continue;
        }
        stem_lowercase_into(&lw, &mut s);
        let new = if out.len() < SCAN {
            !out.contains(&s)
        } else {
            if seen.is_empty() {
                seen.extend(out.iter().cloned());
            }
            seen.insert(s.clone())
        };
        if new {
            out.push(s.clone());
        }
    }
    out
}

/// `word` lowercased into `out` (cleared first).
fn lowercase_into(word: &str, out: &mut String) {
    out.clear();
    if word.is_ascii() {
        out.push_str(word);
        out.make_ascii_lowercase();
    } else {
        out.push_str(&word.to_lowercase());
    }
}

/// Terms of a tool call's name and arguments: also splits paths, flags and identifiers
/// (`tests/test_foo.py` gives `tests`, `test_foo`, `foo`, `py`).
pub fn call_terms(name: &str, args: &str) -> HashSet<String> {
    let mut out = HashSet::default();
    // (Arguments may hold a whole file: one buffer for every word, a key built only for a
    // stem not seen yet.)
    let (mut lw, mut s) = (String::new(), String::new());
    let mut add = |word: &str, s: &mut String| {
        if word.len() >= 3 && !is_stopword(word) {
            stem_lowercase_into(word, s);
            if !out.contains(s.as_str()) {
                out.insert(s.clone());
            }
        }
    };
    for text in [name, args] {
        for (_, w) in tokens(text) {
            lowercase_into(w, &mut lw);
            add(&lw, &mut s);
            if lw.contains('_') {
                for part in lw.split('_') {
                    add(part, &mut s);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(t: &str) -> Vec<&str> {
        sentences(t).iter().map(|s| &t[s.start..s.end]).collect()
    }

    #[test]
    fn a_segment_s_sentences_are_split_once_and_kept() {
        use crate::model::{Segment, SegmentKind};
        let t = "I fixed it. Now I'll run the tests!";
        let seg = Segment::new(SegmentKind::Prose, crate::text::Text::plain(t.into(), 0));
        let first = sentences_of(&seg);
        assert_eq!(first, sentences(t).as_slice());
        // The same slice again, not a second split; a copy of the segment keeps them too.
        assert!(std::ptr::eq(first, sentences_of(&seg)));
        assert_eq!(sentences_of(&seg.clone()), first);
    }

    #[test]
    fn an_abbreviation_does_not_end_a_sentence_but_a_lone_capital_or_a_word_may() {
        assert_eq!(
            texts("Use a tool, e.g. Ruff, for it. The U.S. Army files are in No. 5 for now. Go with option B. No. It failed."),
            vec![
                "Use a tool, e.g. Ruff, for it.",
                "The U.S. Army files are in No. 5 for now.",
                "Go with option B.",
                "No.",
                "It failed."
            ]
        );
        // A word before a capital is no initial: "AWS.S. Then" ends one.
        assert_eq!(texts("Use AWS.S. Then go."), vec!["Use AWS.S.", "Then go."]);
        // Only a period ends an abbreviation: "etc!" and "No?" end their sentences.
        assert_eq!(
            texts("Did it work? No? Then retry. I said etc! Then left."),
            vec![
                "Did it work?",
                "No?",
                "Then retry.",
                "I said etc!",
                "Then left."
            ]
        );
    }

    #[test]
    fn reasoning_tags_are_not_part_of_a_sentence() {
        assert_eq!(
            texts("<think>Let me chain these with &&.\n</THINK>\n\nI'll run it. <Thinking> </thinking>"),
            ["Let me chain these with &&.", "I'll run it."]
        );
        // (Other markup stays: it may be what the sentence is about.)
        assert_eq!(texts("<div> holds it."), ["<div> holds it."]);
    }

    #[test]
    fn a_sentence_glued_to_the_last_one_still_starts_a_sentence() {
        assert_eq!(
            texts(
                "It returns a static message.Next, I'll check forms.pl and call fmt.Println here."
            ),
            [
                "It returns a static message.",
                "Next, I'll check forms.pl and call fmt.Println here."
            ]
        );
        assert_eq!(
            texts("It may not work with this version of Perl.Let's try the file option."),
            [
                "It may not work with this version of Perl.",
                "Let's try the file option."
            ]
        );
        // "Before", "Given", "Our" open sentences too; a module's name does not ("Ecto.Repo").
        assert_eq!(
            texts("I will send a payload.Before attempting it, I'll use Ecto.Repo here."),
            [
                "I will send a payload.",
                "Before attempting it, I'll use Ecto.Repo here."
            ]
        );
    }

    #[test]
    fn token_offsets_survive_separators_of_several_bytes() {
        // Em dashes and curly quotes are three bytes each: an offset counted as one byte per
        // separator lands inside them.
        let t = "——— \u{201c}check\u{201d} — tasks 1 and 2";
        for (at, w) in tokens(t) {
            assert_eq!(&t[at..at + w.len()], w);
        }
        let words: Vec<&str> = tokens(t).map(|(_, w)| w).collect();
        assert_eq!(words, ["check", "tasks", "1", "and", "2"]);
    }

    #[test]
    fn a_noun_of_action_stems_as_its_verb() {
        for (a, b) in [
            ("cancellation", "cancel"),
            ("cancelled", "cancel"),
            ("calculation", "calculate"),
            ("recalculated", "recalculate"),
            ("deletion", "delete"),
            ("confirmation", "confirm"),
            ("installation", "installing"),
            ("validation", "validated"),
            ("modification", "modify"),
            ("verification", "verified"),
            ("identification", "identifies"),
            // An irregular past meets its verb.
            ("built", "building"),
            ("Rebuilt", "rebuild"),
            ("wrote", "writes"),
            ("written", "write"),
            ("ran", "running"),
            ("thought", "thinking"),
            ("chosen", "choose"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        // "found" stays itself: after a search it is a word of the result, not of the query.
        assert_ne!(stem("found"), stem("find"));
        // Short words keep their endings: a station is not a state, an action not an act.
        assert_ne!(stem("station"), stem("state"));
        assert_ne!(stem("action"), stem("act"));
    }

    #[test]
    fn code_between_tag_fences_is_not_prose() {
        assert_eq!(
            texts("Here it is:\n<source>python\n# the same name\n</source>\nDone."),
            vec!["Here it is:", "Done."]
        );
    }

    #[test]
    fn a_sentence_longer_than_prose_has_is_cut_at_spaces() {
        // A model looping on one clause: no full stop in 165 KB.
        let text = "I'll check it, ".repeat(11_000);
        let sents = sentences(&text);
        assert!(sents.len() > 100, "{}", sents.len());
        for (a, b) in sents.iter().zip(&sents[1..]) {
            assert!(a.end - a.start <= LONGEST_SENTENCE + 20, "{a:?}");
            // Cut at a space, nothing lost between pieces.
            assert!(text[a.end..b.start].trim().is_empty(), "{a:?} {b:?}");
        }
        // With no space at all, at a character boundary.
        let text = "é".repeat(5 * LONGEST_SENTENCE);
        let sents = sentences(&text);
        assert_eq!(sents.len(), 3, "{sents:?}");
        assert!(sents.iter().all(|s| text.is_char_boundary(s.start)));
        // Real sentences are untouched: the longest in the corpora is about half the limit.
        let one = format!("{} end.", "word ".repeat(LONGEST_SENTENCE / 5 - 2));
        assert_eq!(sentences(&one).len(), 1);
    }

    #[test]
    fn splits_sentences_and_skips_code() {
        assert_eq!(
            texts("I fixed it. Now I'll run the tests!\nThen commit e.g. later."),
            vec![
                "I fixed it.",
                "Now I'll run the tests!",
                "Then commit e.g. later."
            ]
        );
        assert_eq!(
            texts("Run:\n```bash\nI'll not count\n```\nDone."),
            vec!["Run:", "Done."]
        );
        // A text may open with its fence: the code is skipped, the prose after it kept.
        assert_eq!(
            texts("```python\nx = 1\n\nI'll not count\n```\nDone."),
            vec!["Done."]
        );
        assert_eq!(texts("```\nonly code"), Vec::<&str>::new());
        // An edit that writes a Markdown example: its "```" lines do not end the block.
        assert_eq!(
            texts("Change:\n<source>python\n```python\nI'll not count\n</source>\nDone."),
            vec!["Change:", "Done."]
        );
        assert_eq!(
            texts("1. Read the file\n2. Fix it"),
            vec!["1. Read the file", "2. Fix it"]
        );
    }

    #[test]
    fn stems_meet_across_inflections() {
        for group in [
            &["test", "tests", "testing", "tested"][..],
            &["change", "changes", "changed", "changing"],
            &["update", "updated", "updates", "updating"],
            &["run", "running", "runs"],
            &["fix", "fixes", "fixed"],
            &["entry", "entries"],
            &["replace", "replacement", "replaced"],
        ] {
            let stems: HashSet<String> = group.iter().map(|w| stem(w)).collect();
            assert_eq!(stems.len(), 1, "{group:?} -> {stems:?}");
        }
        assert_ne!(stem("process"), stem("proces"));
    }

    #[test]
    fn terms_drop_stop_words_and_stem() {
        assert_eq!(
            terms("I will run the failing tests in parser.py"),
            vec!["fail", "test", "parser"]
        );
        let c = call_terms("Bash", "{\"command\":\"pytest tests/test_parser.py\"}");
        assert!(
            c.contains("parser") && c.contains("pytest") && c.contains("test"),
            "{c:?}"
        );
    }

    proptest::proptest! {
        /// The byte scan finds the runs the character split finds, multi-byte characters
        /// and all.
        #[test]
        fn letter_runs_are_those_of_the_character_split(text in "[a-zA-Z0-9 _\\-éß€→\n]{0,40}") {
            let split: Vec<&str> = text
                .split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| !w.is_empty())
                .collect();
            proptest::prop_assert_eq!(ascii_letter_runs(&text).collect::<Vec<_>>(), split);
        }
    }
}
