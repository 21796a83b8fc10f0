//! Opaque identifiers in prose (a reservation code, an order or task id, a hash), bound to their
//! defining occurrence; an id whose record the turn restates is not a reference.

use super::*;

impl Reader<'_> {
    /// Identifiers used in prose, defined in an earlier turn. (Not in a fenced code block:
    /// code the turn writes restates its values.)
    pub(super) fn identifiers<'t>(
        &self,
        seg: &Segment<'t>,
        ids: &[(usize, usize)],
        restated_here: &mut HashSet<&'t str>,
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
                    restated_here.insert(id);
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
    pub(super) fn tracked_items(&self, seg: &Segment, found: &mut Found) {
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

/// A list line without its marker ("- ", "2. ", "**").
/// The line around `t[s..e]`, looked for at most `LINE_REACH` bytes on either side: a longer
/// line is cut there (a line of thousands of ids was read whole for each of them).
fn line_bounds(t: &str, s: usize, e: usize) -> (usize, usize) {
    let lo = ceil_boundary(t, s.saturating_sub(LINE_REACH));
    let start = memchr::memrchr(b'\n', &t.as_bytes()[lo..s]).map_or(lo, |k| lo + k + 1);
    let hi = floor_boundary(t, (e + LINE_REACH).min(t.len()));
    let end = memchr::memchr(b'\n', &t.as_bytes()[e..hi]).map_or(hi, |k| e + k);
    (start, end)
}

/// How far from an id `line_bounds` looks for its line's ends: far past a line of prose.
const LINE_REACH: usize = 2048;

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
    let (line_start, line_end) = line_bounds(t, s, e);
    let after_end = floor_boundary(t, (e + 80).min(line_end));
    let after = &t[e..after_end];
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
    // (What a later clause says is not about the id: "HAT266 at 13:00. Could you also remove
    // the bag from my reservation?")
    let clause = same_clause(after);
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
        || !picked_by_its_time(after_trim)
            && clause
                .as_bytes()
                .windows(3)
                .any(|w| w[0].is_ascii_digit() && w[1] == b':' && w[2].is_ascii_digit())
        || clause.contains('$')
        || clause.contains(" from ");
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
    // (The next line's first `LINE_REACH` bytes, when this one ends within its reach.)
    let next_line = (t.as_bytes().get(line_end) == Some(&b'\n')).then(|| {
        let rest = t[line_end..].trim_start_matches('\n');
        rest[..floor_boundary(rest, LINE_REACH.min(rest.len()))]
            .lines()
            .next()
    });
    let next_line_field = next_line.flatten().is_some_and(|l| {
        let field = l.trim_start().trim_start_matches(['-', '*', ' ']);
        field.find(':').is_some_and(|k| k > 0 && k < 30)
            && (label(l).is_empty() || label(l) != label(before))
    }) && after_trim.trim_end_matches(['*', ':', ' ', ')']).is_empty();
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

/// "Flight HAT266 at 13:00", "HAT052 departing at 03:00": the one particular that picks a
/// flight out of the options shown earlier, as "departing at 9 am" does; it restates nothing.
/// (With a date or a route after it, the line restates the record: `dated` and " from ".)
fn picked_by_its_time(after: &str) -> bool {
    [
        "at ",
        "departing at ",
        "departs at ",
        "leaving at ",
        "leaves at ",
    ]
    .iter()
    .any(|p| after.starts_with(p))
}

/// The text after an id up to the end of its clause: "gift card 7091239 with a balance of $157"
/// gives what the card holds; in "upgrade **M20IZO** to business class, the additional cost
/// will be $597" the price is the change's, not the reservation's.
/// (A date's commas, "May 19, 2024, at 9:00", do not end it.)
fn same_clause(after: &str) -> &str {
    let comma = after
        .match_indices(", ")
        .find(|&(k, _)| {
            // "19, 2024" (a day before its year) and "2024, at" (a year before its time).
            let year = after[..k]
                .rsplit(|c: char| !c.is_ascii_digit())
                .next()
                .is_some_and(|d| d.len() == 4);
            !year && !after[k + 2..].starts_with(|c: char| c.is_ascii_digit())
        })
        .map(|(k, _)| k);
    let end = [". ", "; ", "? ", "! "]
        .iter()
        .filter_map(|p| after.find(p))
        .chain(comma)
        .min()
        .unwrap_or(after.len());
    &after[..end]
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
    // (A record's fields are few: the lines read stop at the first that is no price, and at
    // `FIELDS_READ`; a list of thousands of "- ID:" lines was read to its end for each id.)
    let mut fields = below
        .trim_start_matches('\n')
        .lines()
        .map(str::trim)
        .take_while(|l| l.starts_with(['-', '*']) && l.contains(':'))
        .take(FIELDS_READ)
        .peekable();
    fields.peek().is_some()
        && fields.all(|l| {
            let value = &l[l.find(':').map_or(0, |k| k + 1)..];
            amount_len(value.trim_start()).is_some()
        })
}

/// How many field lines under an id `prices_only` reads.
const FIELDS_READ: usize = 16;

/// The length of the dollar amount a text starts with ("$6,594.50 has been processed" → 9).
fn amount_len(text: &str) -> Option<usize> {
    let digits = text.strip_prefix('$')?;
    let n = digits
        .bytes()
        .take_while(|&b| b.is_ascii_digit() || b == b',' || b == b'.')
        .count();
    (n > 0).then_some(1 + n)
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
/// `id: `, `reservation_id=`, also with the value's sigil (`"order_id": "#W5490111"`) and
/// with the quotes escaped (a record quoted inside a string).
pub(super) fn names_its_record(before: &str) -> bool {
    let value_start = before.strip_suffix('#').unwrap_or(before);
    let b = value_start.trim_end_matches([' ', '"', '\'', ':', '=', '\\']);
    let key = b
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    let between = &value_start[b.len()..];
    between.len() - between.matches('\\').count() <= 4
        && between.contains([':', '='])
        && (key.eq_ignore_ascii_case("id") || key.to_ascii_lowercase().ends_with("_id"))
}

/// The text that can restate an id at `s..e`: its line, and when the line ends on a colon
/// ("I found reservation **UDMOP1**. Here are the details:"), the list under it.
pub(super) fn id_window(t: &str, s: usize, e: usize) -> &str {
    const REACH: usize = 300;
    const LIST_LINES: usize = 16;
    let (line_start, line_end) = line_bounds(t, s, e);
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
pub(super) fn record_values(t: &str, s: usize, e: usize) -> Vec<String> {
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
pub(super) fn see_id(vis: &mut Visible, id: &str, i: usize, is_result: bool) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_names_its_id_in_its_key_field() {
        assert!(names_its_record(r##"{"reservation_id": ""##));
        assert!(names_its_record("reservation_id="));
        // The order's sigil is part of the value; a record quoted inside a string escapes its quotes.
        assert!(names_its_record(r##"{"order_id": "#"##));
        assert!(names_its_record(r##"{\"order_id\": \"#"##));
        // A list of ids names them without giving their records.
        assert!(!names_its_record(r##"{"orders": [""##));
        assert!(!names_its_record(r##"{"order_ids": ["#"##));
        assert!(!names_its_record("the order id is "));
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
        assert!(!at("Let's take Flight HAT101 at 07:30 EST.", "HAT101"));
        assert!(!at("Book HAT207 departing at 17:45, please.", "HAT207"));
        // Its time in a description of its own still restates it.
        assert!(at("Flight HAT101 (07:30 EST) is delayed.", "HAT101"));
        assert!(at("Flight HAT101, departing at 07:30 EST.", "HAT101"));
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
        // A price in a later clause is the change's, not the booking's.
        assert!(!at(
            "To upgrade reservation **K2PQ7Z** to business, the extra cost is $412.",
            "K2PQ7Z"
        ));
        assert!(at(
            "Use gift card 7091239 with a balance of $157.",
            "7091239"
        ));
        // A later sentence says nothing of it; a date's comma does not end its clause.
        assert!(!at(
            "Switch me to HAT101 at 07:30. Also drop the bag from my booking.",
            "HAT101"
        ));
        assert!(at(
            "You'd move to Flight HAT101 departing on May 19, 2024, at 07:30 EST.",
            "HAT101"
        ));
        // Any other number before a comma ends the clause: the fee is not the flight's.
        assert!(!at(
            "Switch me to HAT101 at 07:30, and the change fee is $50.",
            "HAT101"
        ));
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
