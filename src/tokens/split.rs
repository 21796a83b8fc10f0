//! The `o200k_base` pre-tokenizer: text cut into the pieces the BPE then encodes one by one.
//!
//! Logs are almost all ASCII, and on ASCII the pattern's classes are a byte table, so the
//! pieces are cut here by hand (four times faster than the regex); at any piece whose cut
//! depends on a non-ASCII character the regex takes over for that one piece. Each piece is a
//! pure function of its start, so mixing the two is exact (checked against `bpe-openai`'s own
//! split in the tests).

use regex_automata::{meta::Regex, Anchored, Input};
use std::sync::OnceLock;

/// tiktoken's `o200k_base` pattern, as `bpe-openai` writes it: the negative look-ahead
/// `\s+(?!\S)` becomes `\s+\s` whose last character is dropped (the second pattern).
const PATTERNS: [&str; 3] = [
    concat!(
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"|\p{N}{1,3}",
        r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
        r"|\s*[\r\n]+",
        r"|\s+$",
    ),
    r"\s+\s",
    r"\s+",
];
const LOOKAHEAD_PATTERN: usize = 1;

fn regex() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new_many(&PATTERNS).expect("the o200k pattern compiles"))
}

/// The pieces of `text`, in order; they concatenate to `text`.
pub fn pieces(text: &str) -> impl Iterator<Item = &str> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= text.len() {
            return None;
        }
        let end = ascii_piece(text.as_bytes(), at).unwrap_or_else(|| regex_piece(text, at));
        let piece = &text[at..end];
        at = end;
        Some(piece)
    })
}

/// The end of the piece starting at `at`, by the pattern itself.
fn regex_piece(text: &str, at: usize) -> usize {
    let input = Input::new(&text[at..]).anchored(Anchored::Yes);
    let Some(m) = regex().find(input) else {
        // Unreachable (`\s+` and the punctuation class cover every character); one character
        // keeps the cut total rather than looping.
        return at + text[at..].chars().next().map_or(1, char::len_utf8);
    };
    let mut end = at + m.end();
    if m.pattern().as_usize() == LOOKAHEAD_PATTERN {
        end -= text[at..end].chars().next_back().map_or(0, char::len_utf8);
    }
    end
}

/// ASCII character classes of the pattern.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Upper,
    Lower,
    Digit,
    /// `\r` or `\n`.
    Newline,
    /// Whitespace other than a newline.
    Space,
    /// Neither letter, digit nor whitespace.
    Other,
}

fn class(b: u8) -> Class {
    match b {
        b'A'..=b'Z' => Class::Upper,
        b'a'..=b'z' => Class::Lower,
        b'0'..=b'9' => Class::Digit,
        b'\r' | b'\n' => Class::Newline,
        b'\t' | 0x0B | 0x0C | b' ' => Class::Space,
        _ => Class::Other,
    }
}

/// The end of the run of `want` starting at `i`; `None` when the run stops at a non-ASCII
/// character, which might belong to the class.
fn run(b: &[u8], mut i: usize, want: impl Fn(Class) -> bool) -> Option<usize> {
    while i < b.len() {
        if !b[i].is_ascii() {
            return None;
        }
        if !want(class(b[i])) {
            break;
        }
        i += 1;
    }
    Some(i)
}

/// The end of the piece starting at `at` when the cut depends on ASCII characters only;
/// `None` hands the piece to the regex. The alternatives are tried in the pattern's order.
fn ascii_piece(b: &[u8], at: usize) -> Option<usize> {
    let first = *b.get(at).filter(|c| c.is_ascii())?;
    let first = class(first);
    let next_class = |i: usize| match b.get(i) {
        Some(c) if !c.is_ascii() => None,
        c => Some(c.map(|&c| class(c))),
    };

    // Letters, after an optional prefix that is neither a newline, a letter nor a digit:
    // upper* lower+ (or upper+ when no lowercase follows), then an English contraction.
    if matches!(
        first,
        Class::Space | Class::Other | Class::Upper | Class::Lower
    ) {
        let start = at + usize::from(matches!(first, Class::Space | Class::Other));
        let upper = run(b, start, |c| c == Class::Upper)?;
        let lower = run(b, upper, |c| c == Class::Lower)?;
        if lower > start {
            return contraction(b, lower);
        }
    }
    match first {
        Class::Digit => {
            // `\p{N}{1,3}`: only the first three characters decide (a long run of digits is
            // cut every three, not scanned to its end each time).
            run(&b[..b.len().min(at + 3)], at, |c| c == Class::Digit)
        }
        Class::Space | Class::Newline => {
            // ` ?[^\s\p{L}\p{N}]+…` may still start with a space.
            if b[at] == b' ' && next_class(at + 1)? == Some(Class::Other) {
                return punctuation(b, at + 1);
            }
            let end = run(b, at, |c| matches!(c, Class::Space | Class::Newline))?;
            let spaces = &b[at..end];
            if let Some(last) = spaces.iter().rposition(|&c| c == b'\r' || c == b'\n') {
                Some(at + last + 1) // \s*[\r\n]+
            } else if end == b.len() {
                Some(end) // \s+$
            } else if end - at >= 2 {
                Some(end - 1) // \s+(?!\S)
            } else {
                Some(end) // \s+
            }
        }
        Class::Other => punctuation(b, at),
        Class::Upper | Class::Lower => None, // handled above; unreachable
    }
}

/// `[^\s\p{L}\p{N}]+[\r\n/]*` from `at`.
fn punctuation(b: &[u8], at: usize) -> Option<usize> {
    let end = run(b, at, |c| c == Class::Other)?;
    Some(
        end + b[end..]
            .iter()
            .take_while(|&&c| matches!(c, b'\r' | b'\n' | b'/'))
            .count(),
    )
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` at `at`. Case-insensitive matching is Unicode-aware
/// (`ſ` folds to `s`), so a non-ASCII character after the apostrophe defers to the regex.
fn contraction(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'\'') {
        return Some(at);
    }
    let after = &b[at + 1..b.len().min(at + 3)];
    if after.iter().any(|c| !c.is_ascii()) {
        return None;
    }
    let lower: Vec<u8> = after.iter().map(u8::to_ascii_lowercase).collect();
    let len = match lower.as_slice() {
        [b'r', b'e', ..] | [b'v', b'e', ..] | [b'l', b'l', ..] => 3,
        [b's' | b't' | b'm' | b'd', ..] => 2,
        _ => 0,
    };
    Some(at + len)
}

#[cfg(test)]
mod tests {
    use super::pieces;
    use proptest::prelude::*;

    fn reference(text: &str) -> Vec<&str> {
        bpe_openai::o200k_base().split(text).collect()
    }

    #[test]
    fn cuts_as_the_tokenizer_does() {
        let texts = [
            "",
            "Hello world",
            "HELLO world, DON'T you're I'LL x'Re it's",
            "  \n\n   x\t\ty   \n",
            "foo    ",
            "   ",
            "a\u{a0}b \u{a0}c",
            "café naïve Straße 東京 🦀🦀 — “quoted”",
            "x'ſ y'\u{212a}",
            "12345 3.14159 1,000,000 ٣٤٥ ² 12٣45 1٣ 1234567",
            "path/to//file.rs:12:3\r\n\r\n}\n\n//x",
            " .x  ..y ( (1 {\"a\": [1, 2]}",
            "\u{b}\u{c}\u{1c}\u{85}x \u{2028}y",
            "ABCdef ABC DEF abcDEF Ǆx ǅx",
            "tab\tthen\t\tmore  \t",
        ];
        for text in texts {
            assert_eq!(
                pieces(text).collect::<Vec<_>>(),
                reference(text),
                "{text:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn cuts_random_text_as_the_tokenizer_does(
            text in "[a-cA-C0-9 \t\r\n'/.,(){}\u{0b}sStTdDlLrReE_\u{a0}\u{e9}\u{c9}\u{17f}\u{2003}\u{663}\u{1f980}-]{0,60}"
        ) {
            prop_assert_eq!(pieces(&text).collect::<Vec<_>>(), reference(&text));
        }
    }
}
