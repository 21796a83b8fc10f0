//! Output formats. Renderers only format what the analysis found; they never re-find text.

pub mod annotations;
pub mod concise;
pub mod excerpt;
pub mod full;
pub mod github;
pub mod json;
pub mod junit;
pub mod output;
pub mod sarif;

use std::borrow::Cow;

/// Text from a log made safe to print: a transcript may hold terminal escapes (a tool's
/// coloured output, or a crafted `ESC ]0;title BEL`), which printed raw would drive the
/// reader's terminal. Each control character but a line break and a tab becomes its Unicode
/// picture (`␛` for ESC, `␀` for NUL, `␡` for DEL) or, for the C1 controls, `�`: one
/// character for one, so columns counted in the text stay right.
pub fn visible(s: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| match c {
                c if !unsafe_char(c) => c,
                '\u{7f}' => '\u{2421}',
                c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'),
                _ => '\u{FFFD}',
            })
            .collect(),
    )
}

/// A file name shown on one line: every control character, line breaks and tabs too, as its
/// picture (a name holding a line break would otherwise split a one-line-per-finding format).
pub fn visible_name(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| match c {
                '\u{7f}' => '\u{2421}',
                c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'),
                c if c.is_control() => '\u{FFFD}',
                c => c,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::{visible, visible_name};

    #[test]
    fn control_characters_become_their_pictures() {
        assert_eq!(visible("plain text\n\tok"), "plain text\n\tok");
        assert!(matches!(visible("plain"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(
            visible("\u{1b}[31mred\u{1b}]0;PWNED\u{7}\0\r\u{7f}\u{9b}x"),
            "␛[31mred␛]0;PWNED␇␀␍␡\u{FFFD}x"
        );
    }

    #[test]
    fn a_file_name_stays_on_one_line() {
        assert_eq!(
            visible_name("runs/new\nline\t.jsonl"),
            "runs/new␊line␉.jsonl"
        );
        assert_eq!(visible_name("r\u{1b}\u{9b}.jsonl"), "r␛\u{FFFD}.jsonl");
        assert!(matches!(
            visible_name("runs/a b.jsonl"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
