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

#[cfg(test)]
mod tests {
    use super::visible;

    #[test]
    fn control_characters_become_their_pictures() {
        assert_eq!(visible("plain text\n\tok"), "plain text\n\tok");
        assert!(matches!(visible("plain"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(
            visible("\u{1b}[31mred\u{1b}]0;PWNED\u{7}\0\r\u{7f}\u{9b}x"),
            "␛[31mred␛]0;PWNED␇␀␍␡\u{FFFD}x"
        );
    }
}
