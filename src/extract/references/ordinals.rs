//! Ordinals and positions: "the second option", "the first of them", "option 3".

use super::descriptions::{dated_not_pointed, points_inside_turn, restates_in_parentheses};
use super::*;

impl Reader<'_> {
    /// Ordinals: "the second option", "the first of them".
    pub(super) fn ordinals(&self, seg: &Segment, found: &mut Found) {
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
            let line_start = seg.line_start(s);
            let lead = t[line_start..s]
                .trim_start_matches(|c: char| c.is_whitespace() || "#*-•>0123456789.)".contains(c));
            // (At most one word before it: counting them all read a long line once per match.)
            if t[e..].trim_start_matches(['*', ' ', ')']).starts_with(':')
                || lead.split_whitespace().nth(1).is_none() && t[line_start..s].contains("**")
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
            let sentence_start = seg
                .sents
                .get(seg.sents.partition_point(|x| x.end <= s))
                .map_or(0, |x| x.start);
            if of_them && (s >= seg.opening_end || names_several(&t[sentence_start.min(s)..s])) {
                continue;
            }
            // "my last reservation": the latest one the user has, not the last of a list.
            let phrase = &t[s..e];
            // "Verify the rating of each of these trails" after the turn named the trails: the
            // demonstrative points inside the turn, as "these trails" alone does.
            if points_inside_turn(phrase, t, &seg.said, s, e) {
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
}

/// Whether a text lists several things: "A, B and C", "A, B, or C".
fn names_several(text: &str) -> bool {
    text.find(", ").is_some_and(|k| {
        let rest = &text[k..];
        rest.contains(" and ") || rest.contains(" or ")
    })
}

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
