//! The Markdown structure that readers and extractors share: fenced code blocks. Code is not
//! prose: no commitment, reference or plan lies inside a fence.

/// Whether a line opens or closes a fenced code block: "```", "```python", indented or not, or
/// a line that is only one of the tags Aider fences code with for some models (`<source>python`,
/// `<pre>`, `<code class=x>`, `</source>`).
pub fn is_fence_line(line: &str) -> bool {
    let t = line.trim();
    if t.starts_with("```") {
        return true;
    }
    let Some(tag) = t.strip_prefix("</").or_else(|| t.strip_prefix('<')) else {
        return false;
    };
    CODE_TAGS.iter().any(|name| {
        tag.strip_prefix(name).is_some_and(|rest| {
            // `<source>`, `<source>python`, `<source python>`, `<code class="x">`; nothing else
            // on the line.
            if let Some(lang) = rest.strip_prefix('>') {
                return lang.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            }
            rest.strip_prefix(' ')
                .and_then(|r| r.strip_suffix('>'))
                .is_some_and(|attrs| {
                    attrs.chars().all(|c| {
                        c.is_ascii_alphanumeric()
                            || matches!(c, '-' | '_' | '=' | '"' | '\'' | ' ' | '.')
                    })
                })
        })
    })
}

/// The tags Aider fences code with when a model handles Markdown fences badly.
const CODE_TAGS: [&str; 5] = ["sourcecode", "source", "codeblock", "code", "pre"];

/// Where a line of text lies, read line by line as Markdown reads fences: a block opened by n
/// backticks closes only at a bare fence of at least n backticks, one opened by a tag only at a
/// closing tag. Inside a block, any other fence line is code: an edit that writes a Markdown
/// example ("```python" within `<source>` or within "````") does not end the block.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Fence {
    #[default]
    Outside,
    Backticks(usize),
    Tag,
}

impl Fence {
    /// The state after `line`, and whether the line is a fence that opens or closes a block.
    pub fn step(self, line: &str) -> (Fence, bool) {
        if !is_fence_line(line) {
            return (self, false);
        }
        let t = line.trim();
        let ticks = t.bytes().take_while(|&b| b == b'`').count();
        let closing_tag = t.starts_with("</");
        match self {
            Fence::Outside if ticks >= 3 => (Fence::Backticks(ticks), true),
            // A closing tag with no block open closes nothing.
            Fence::Outside if closing_tag => (Fence::Outside, true),
            Fence::Outside => (Fence::Tag, true),
            Fence::Backticks(n) if ticks >= n && t[ticks..].trim().is_empty() => {
                (Fence::Outside, true)
            }
            Fence::Tag if closing_tag => (Fence::Outside, true),
            inside => (inside, false),
        }
    }

    pub fn is_open(self) -> bool {
        self != Fence::Outside
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(lines: &[&str]) -> Vec<bool> {
        let mut f = Fence::Outside;
        lines
            .iter()
            .map(|l| {
                f = f.step(l).0;
                f.is_open()
            })
            .collect()
    }

    #[test]
    fn fences_nest_as_markdown_reads_them() {
        // "```python" inside a tag fence or a longer backtick fence is code.
        assert_eq!(
            states(&[
                "<source>python",
                "```python",
                "x",
                "```",
                "</source>",
                "prose"
            ]),
            [true, true, true, true, false, false]
        );
        assert_eq!(
            states(&["````markdown", "```python", "```", "````", "prose"]),
            [true, true, true, false, false]
        );
        // A fence with an info string does not close a backtick block; a bare one does.
        assert_eq!(
            states(&["```", "```python", "```", "prose"]),
            [true, true, false, false]
        );
        // A stray closing tag opens nothing.
        assert_eq!(states(&["</source>", "prose"]), [false, false]);
    }

    #[test]
    fn a_fence_is_three_backticks_or_a_line_that_is_only_a_code_tag() {
        for fence in [
            "```",
            "  ```python",
            "<source python>",
            "<pre>",
            "<source>python",
            "<code class=x>",
            "<pre class=\"py\">",
            "</source>",
        ] {
            assert!(is_fence_line(fence), "{fence}");
        }
        for prose in [
            "<sourcefile>",
            "<code>x</code> is the flag",
            "<source> is a tag",
            "</doc>",
            "<b>",
        ] {
            assert!(!is_fence_line(prose), "{prose}");
        }
    }
}
