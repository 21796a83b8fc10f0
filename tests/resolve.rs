//! Resolution rules on small conversations built through the library API: which later turn
//! discharges, incorporates or binds what (semantics.md, "Obligation" and "Reference").

use serde_json::{json, Value};
use trajlint::extract::{Fact, Status, Subkind};
use trajlint::Annotated;

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"id": id, "type": "function",
           "function": {"name": name, "arguments": args.to_string()}})
}

fn analyse(messages: Value) -> Annotated {
    Annotated::from_openai_messages(&messages).expect("messages read")
}

/// A shell call.
fn bash(id: &str, command: &str) -> Value {
    call(id, "Bash", json!({"command": command}))
}

/// Reads and analyses a log in whatever format it is (detected from its name and bytes).
fn process(name: &str, bytes: &[u8]) -> trajlint::FileReport {
    let lex = trajlint::extract::lexicon::Lexicon::builtin();
    let src = trajlint::source::SourceFile::new(name, None, bytes.to_vec());
    trajlint::process(src, None, &lex)
}

/// The facts of these subkinds, in order.
fn of_kind<'a>(a: &'a Annotated, kinds: &[Subkind]) -> Vec<&'a Fact> {
    a.analysis
        .facts
        .iter()
        .filter(|f| kinds.contains(&f.subkind))
        .collect()
}

/// (turn, text) of the facts of these subkinds, in order.
fn turns_and_texts<'a>(a: &'a Annotated, kinds: &[Subkind]) -> Vec<(usize, &'a str)> {
    of_kind(a, kinds)
        .into_iter()
        .map(|f| (f.turn, f.text.as_str()))
        .collect()
}

fn commitments(a: &Annotated) -> Vec<&Fact> {
    of_kind(a, &[Subkind::SelfCommitment])
}

#[test]
fn what_the_team_still_needs_is_owed_and_what_it_asks_the_user_for_is_not() {
    let a = analyse(json!([
        {"role": "user", "content": "How much do four visits cost with daily tickets?"},
        {"role": "assistant", "content": "We need specific details on the ticket prices."},
        {"role": "assistant", "content": "To proceed with the cancellation, I need the reservation ID."},
        {"role": "assistant", "content": "We need your user ID to look it up."},
        {"role": "assistant", "content": "Everything we need is in the log."},
        {"role": "assistant", "content": "Once confirmed, I'll also need a payment method for the fare difference."},
        {"role": "assistant", "content": "I'll check the server logs next since I need the stack trace."},
        {"role": "assistant", "content": "I'll need a helper function to parse the ISO dates."},
        // However long the clause before it.
        {"role": "assistant", "content": "To proceed with downgrading the cabin class for your reservation, I'll need the reservation ID."},
    ]));
    let owed = commitments(&a);
    let turns: Vec<usize> = owed.iter().map(|f| f.turn).collect();
    assert_eq!(turns, [1, 6, 7], "{owed:#?}");
}

#[test]
fn a_needs_line_owes_its_action_from_the_verb_s_first_letter() {
    // A summary's "Needs …" / "Need to …" lines: the action starts with its verb, whole.
    let a = analyse(json!([
        {"role": "assistant", "content": "Status:\nNeed to restructure the guard in parser.ex.\nNeeds debug output for the grid."},
    ]));
    let owed = commitments(&a);
    let heads: Vec<(Option<&str>, &str)> = owed
        .iter()
        .map(|f| (f.action.as_deref(), f.terms[0].as_str()))
        .collect();
    assert_eq!(
        heads,
        [(Some("edit"), "restructur"), (None, "debug")],
        "{owed:#?}"
    );
}

#[test]
fn a_participle_after_its_noun_points_back_unless_it_takes_an_object() {
    let a = analyse(json!([
        {"role": "user", "content": "Rename the helper and add a docstring to parse_args."},
        {"role": "assistant", "content": "The user requested \"Rename the helper\" first."},
        {"role": "assistant", "content": "Earlier the user provided a list of two edits."},
        {"role": "assistant", "content": "I have made the changes you requested."},
    ]));
    let refs = turns_and_texts(&a, &[Subkind::Anaphoric]);
    assert_eq!(refs, [(3, "the changes you requested")]);
}

#[test]
fn that_before_a_noun_that_is_also_a_verb_and_a_determiner_is_a_relative_pronoun() {
    let a = analyse(json!([
        {"role": "user", "content": "Find funds with no transaction fee and a 5-year record."},
        {"role": "assistant", "content": "Collect the names of the funds that match these filters."},
        {"role": "assistant", "content": "Fund A and Fund B. Let me fix that match."},
    ]));
    let refs = turns_and_texts(&a, &[Subkind::Anaphoric]);
    assert_eq!(refs, [(2, "that match")]);
}

#[test]
fn criteria_or_conditions_past_a_turn_s_opening_are_what_it_just_listed() {
    let a = analyse(json!([
        {"role": "user", "content": "Can I cancel reservation ABC123? What are the criteria and conditions?"},
        {"role": "assistant", "content": "Let me explain. A basic economy ticket can be cancelled only within 24 hours of booking or with travel insurance. Your reservation does not meet these criteria."},
        {"role": "user", "content": "Are you sure about these conditions?"},
    ]));
    let refs = turns_and_texts(&a, &[Subkind::Anaphoric]);
    assert_eq!(refs, [(2, "these conditions")]);
}

#[test]
fn an_ordinal_before_a_superlative_ranks_by_a_measure_and_points_at_no_list() {
    let a = analyse(json!([
        {"role": "assistant", "content": "Two flights fit:\n1. HAT023 at $163\n2. HAT069 at $120\nAnd two test cases failed:\n1. test_price\n2. test_seats"},
        {"role": "user", "content": "I'd prefer the second cheapest flight in economy instead."},
        {"role": "user", "content": "Book the second flight, and rerun the first test case."},
    ]));
    let ordinals = turns_and_texts(&a, &[Subkind::Ordinal]);
    assert_eq!(
        ordinals,
        [(2, "the second flight"), (2, "the first test")],
        "{ordinals:?}"
    );
}

#[test]
fn now_that_opening_a_clause_is_a_conjunction_and_before_a_verb_a_pronoun() {
    let a = analyse(json!([
        {"role": "user", "content": "I patched the parser."},
        {"role": "assistant", "content": "Now that everything's installed, the suite can run."},
        {"role": "assistant", "content": "So that the build stays green, keep the lockfile."},
        {"role": "user", "content": "Now that works."},
    ]));
    let pronouns = turns_and_texts(&a, &[Subkind::Pronoun]);
    assert_eq!(pronouns, [(3, "Now that")], "{pronouns:?}");
}

#[test]
fn a_user_s_reply_points_back_with_its_pronoun() {
    let a = analyse(json!([
        {"role": "user", "content": "I want to change my flight to May 20."},
        {"role": "assistant", "content": "The change costs $120 and goes on your Visa card. Shall I proceed?"},
        {"role": "user", "content": "Yes, everything looks correct."},
        {"role": "assistant", "content": "Your flight is changed."},
        {"role": "user", "content": "Thank you for handling that."},
        {"role": "assistant", "content": "Which city do you depart from?"},
        {"role": "user", "content": "Certainly, it's New York City."},
        {"role": "assistant", "content": "I could not find a reservation under that name."},
        {"role": "user", "content": "I see, that's unfortunate. I'll try to find it and get back to you."},
        {"role": "assistant", "content": "Take your time."},
        {"role": "user", "content": "Thanks for your help, I'll be using my card for the next trip."},
    ]));
    let found = turns_and_texts(&a, &[Subkind::Pronoun]);
    assert_eq!(
        found,
        [
            (2, "Yes, everything looks correct"),
            (4, "handling that"),
            (6, "Certainly, it"),
            (8, "I see, that"),
            (8, "find it")
        ]
    );
}

#[test]
fn a_reply_to_an_offer_or_a_condition_points_back_and_a_closing_does_not() {
    let a = analyse(json!([
        {"role": "user", "content": "I want to cancel my trip."},
        {"role": "assistant", "content": "Basic economy cannot be cancelled. I can offer a travel certificate instead."},
        {"role": "user", "content": "I understand. In that case, I would like the certificate."},
        {"role": "assistant", "content": "Shall I issue a $150 certificate?"},
        {"role": "user", "content": "Yes, please. That would be great!"},
        {"role": "assistant", "content": "The certificate is issued; the airline will review your claim too."},
        {"role": "user", "content": "Thanks for looking into it."},
        {"role": "assistant", "content": "Your refund goes to the original card."},
        {"role": "user", "content": "Thank you for that."},
        {"role": "assistant", "content": "Is there anything else?"},
        {"role": "user", "content": "No, that's all I needed."},
        {"role": "assistant", "content": "In this case the fare rules apply to every passenger."},
        {"role": "user", "content": "Could a human agent help?"},
        {"role": "assistant", "content": "I can transfer you to a human agent."},
        {"role": "user", "content": "Yes, please, that would be helpful. Thank you!"},
        {"role": "assistant", "content": "Transferred. Your new booking is two bags in economy."},
        {"role": "user", "content": "Thank you! That all sounds good."},
    ]));
    let found = turns_and_texts(&a, &[Subkind::Pronoun]);
    assert_eq!(
        found,
        [
            (2, "In that case"),
            (4, "That"),
            (6, "looking into it"),
            (8, "Thank you for that"),
            (14, "Yes, please, that"),
            (16, "That"),
        ],
        "a closing (\"that's all\") and a situational \"in this case\" are not references"
    );
}

#[test]
fn these_changes_before_a_commit_point_back_and_this_change_before_its_edit_does_not() {
    let edit = |id: &str| {
        call(
            id,
            "edit",
            json!({"path": "src/otel.ex", "old_string": "a", "new_string": "b"}),
        )
    };
    let git = call(
        "c3",
        "bash",
        json!({"command": "git add -A && git commit -m \"Add tracing to the hook\""}),
    );
    let a = analyse(json!([
        {"role": "user", "content": "Add tracing to the hook scripts."},
        {"role": "assistant", "content": "Let me update the hook.", "tool_calls": [edit("c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": "File updated."},
        {"role": "assistant", "content": "Now let me apply this change:", "tool_calls": [edit("c2")]},
        {"role": "tool", "tool_call_id": "c2", "content": "File updated."},
        {"role": "assistant", "content": "Excellent! Now let me commit these changes:", "tool_calls": [git]},
        {"role": "tool", "tool_call_id": "c3", "content": "M src/otel.ex"},
    ]));
    let found = turns_and_texts(&a, &[Subkind::Anaphoric]);
    assert_eq!(found, [(5, "these changes")]);
}

#[test]
fn a_set_read_one_call_at_a_time_is_owed_to_the_next_call() {
    let read = |id: &str, path: &str| call(id, "Read", json!({"file_path": path}));
    let a = analyse(json!([
        {"role": "user", "content": "Wire the trace id through the enqueue path."},
        {"role": "assistant", "content": "Let me read the relevant files:",
         "tool_calls": [read("c1", "config/config.exs")]},
        {"role": "tool", "tool_call_id": "c1", "content": "import Config"},
        {"role": "assistant", "content": null, "tool_calls": [read("c2", "lib/jobs/enrich.ex")]},
        {"role": "tool", "tool_call_id": "c2", "content": "defmodule Enrich do"},
        {"role": "assistant", "content": "Let me run the tests.", "tool_calls": [bash("c3", "mix test")]},
        {"role": "tool", "tool_call_id": "c3", "content": "12 tests, 0 failures"},
        {"role": "assistant", "content": null, "tool_calls": [bash("c4", "mix credo")]},
        {"role": "tool", "tool_call_id": "c4", "content": "no issues"},
    ]));
    let owed: Vec<(usize, Status, Option<usize>)> = commitments(&a)
        .iter()
        .map(|f| (f.turn, f.status, f.resolved_by.map(|l| l.turn)))
        .collect();
    assert_eq!(owed, [(1, Status::Discharged, Some(3))]);
}

#[test]
fn a_set_edited_one_call_at_a_time_is_owed_to_the_next_call() {
    let edit = |id: &str, path: &str| {
        call(
            id,
            "Edit",
            json!({"file_path": path, "old_string": "level: :info", "new_string": "level: :debug"}),
        )
    };
    let a = analyse(json!([
        {"role": "user", "content": "Log at debug level everywhere."},
        {"role": "assistant", "content": "Let me update the configuration files:",
         "tool_calls": [edit("c1", "config/config.exs")]},
        {"role": "tool", "tool_call_id": "c1", "content": "The file config/config.exs has been updated."},
        {"role": "assistant", "content": null, "tool_calls": [edit("c2", "config/dev.exs")]},
        {"role": "tool", "tool_call_id": "c2", "content": "The file config/dev.exs has been updated."},
        // One thing, one edit: done in its own turn.
        {"role": "assistant", "content": "Let me update the logger configuration:",
         "tool_calls": [edit("c3", "config/test.exs")]},
        {"role": "tool", "tool_call_id": "c3", "content": "The file config/test.exs has been updated."},
        {"role": "assistant", "content": null, "tool_calls": [edit("c4", "config/runtime.exs")]},
        {"role": "tool", "tool_call_id": "c4", "content": "The file config/runtime.exs has been updated."},
    ]));
    let owed: Vec<(usize, Status, Option<usize>)> = commitments(&a)
        .iter()
        .map(|f| (f.turn, f.status, f.resolved_by.map(|l| l.turn)))
        .collect();
    assert_eq!(owed, [(1, Status::Discharged, Some(3))]);
}

#[test]
fn a_thing_named_by_the_start_of_a_file_s_name_is_acted_on_and_the_other_is_owed() {
    let edit = |id: &str, path: &str, new: &str| {
        call(
            id,
            "Edit",
            json!({"file_path": path, "old_string": "  end", "new_string": new}),
        )
    };
    let a = analyse(json!([
        {"role": "user", "content": "Add the review context endpoint."},
        {"role": "assistant", "content": "Now add the API route and Tmux function:",
         "tool_calls": [edit("c1", "lib/web/router.ex", "    get(\"/review/:token\", ReviewController, :show)\n  end")]},
        {"role": "tool", "tool_call_id": "c1", "content": "The file lib/web/router.ex has been updated."},
        {"role": "assistant", "content": "Next the launcher.",
         "tool_calls": [edit("c2", "lib/services/tmux.ex", "  def launch_review(token), do: :ok\n  end")]},
        {"role": "tool", "tool_call_id": "c2", "content": "The file lib/services/tmux.ex has been updated."},
    ]));
    let owed: Vec<(usize, Status, Option<usize>)> = commitments(&a)
        .iter()
        .map(|f| (f.turn, f.status, f.resolved_by.map(|l| l.turn)))
        .collect();
    assert_eq!(owed, [(1, Status::Discharged, Some(3))]);
}

#[test]
fn showing_a_tracker_item_does_not_close_it() {
    let a = analyse(json!([
        {"role": "user", "content": "Finish the epic."},
        {"role": "assistant", "content": "Now close the epic since all child tasks are done.",
         "tool_calls": [call("c1", "Bash", json!({"command": "bd show spotter-fum", "description": "Show the epic status"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "spotter-fum: Transcript fidelity (epic, open)"},
        {"role": "assistant", "content": "All four are closed, so it can go.",
         "tool_calls": [bash("c2", "bd close spotter-fum --reason \"all child tasks done\"")]},
        {"role": "tool", "tool_call_id": "c2", "content": "Closed spotter-fum"},
        {"role": "assistant", "content": "Let me close the last task.",
         "tool_calls": [bash("c3", "bd close spotter-fum.4")]},
        {"role": "tool", "tool_call_id": "c3", "content": "Closed spotter-fum.4"},
    ]));
    let owed: Vec<(usize, Status, Option<usize>)> = commitments(&a)
        .iter()
        .map(|f| (f.turn, f.status, f.resolved_by.map(|l| l.turn)))
        .collect();
    assert_eq!(owed, [(1, Status::Discharged, Some(3))]);
}

#[test]
fn a_call_performs_what_its_turn_narrates_though_its_arguments_do_not_name_it() {
    let edit = |id: &str| {
        call(
            id,
            "str_replace_editor",
            json!({"command": "str_replace", "path": "/src/parser.c",
             "old_str": "if (a)", "new_str": "if (a && b)"}),
        )
    };
    // The promise, then a turn that says what its edit does.
    let after_promise = |narration: &str| {
        analyse(json!([
            {"role": "user", "content": "The check in the parser misses a case."},
            {"role": "assistant", "content": "Let me show the lines. I'll edit line 317 to include the condition.",
             "tool_calls": [bash("c1", "sed -n 315,317p src/parser.c")]},
            {"role": "tool", "tool_call_id": "c1", "content": "315\tint x;\n316\t\n317\tif (a)"},
            {"role": "assistant", "content": narration, "tool_calls": [edit("c2")]},
            {"role": "tool", "tool_call_id": "c2", "content": "The file /src/parser.c has been edited."},
        ]))
    };
    let a = after_promise("Now, let's edit line 317 directly.");
    let owed = commitments(&a);
    assert_eq!(owed.len(), 1, "{owed:#?}");
    assert_eq!(owed[0].turn, 1);
    assert_eq!(owed[0].status, Status::Discharged, "{owed:#?}");
    assert_eq!(owed[0].resolved_by.map(|l| l.turn), Some(3));

    // What a turn leaves for later is not what its call does.
    let a = after_promise("Let me fix the lexer first. After that I'll edit line 317.");
    let first = commitments(&a).into_iter().find(|f| f.turn == 1).unwrap();
    assert_eq!(first.status, Status::Open, "{first:#?}");
}

#[test]
fn verifying_a_build_is_done_by_running_it_and_the_tests_it_names_are_still_owed() {
    let a = analyse(json!([
        {"role": "user", "content": "Add the OTEL dependencies."},
        {"role": "assistant", "content": "Now let me verify compilation:",
         "tool_calls": [bash("c1", "mix compile 2>&1 | tail -20")]},
        {"role": "tool", "tool_call_id": "c1", "content": "Compiling 3 files (.ex)"},
        {"role": "assistant", "content": "Now let me verify the installation:",
         "tool_calls": [bash("c2", "npm install")]},
        {"role": "tool", "tool_call_id": "c2", "content": "added 3 packages"},
        {"role": "assistant", "content": "Let me verify the build and the tests:",
         "tool_calls": [bash("c3", "mix compile")]},
        {"role": "tool", "tool_call_id": "c3", "content": "Compiling 1 file (.ex)"},
    ]));
    // (Installing is not verifying the installation: that stays owed.)
    let turns: Vec<usize> = commitments(&a).iter().map(|f| f.turn).collect();
    assert_eq!(turns, [3, 5], "{:#?}", commitments(&a));
}

#[test]
fn a_hook_s_feedback_reports_an_error_and_a_system_prompt_does_not() {
    let a = analyse(json!([
        {"role": "system", "content": "You are a coding agent. Report every error you meet."},
        {"role": "user", "content": "Add row classes to the transcript."},
        {"role": "system", "content": "<system-reminder>\nPostToolUse:Edit hook additional context: [COMPILE ERROR]\nCompiling 2 files (.ex)\n     error: undefined function transcript_row_classes/3\n</system-reminder>"},
        {"role": "assistant", "content": "The compile error says transcript_row_classes/3 is undefined; I defined it with two arguments. Fixed by adding the third."},
        {"role": "system", "content": "<system-reminder>\nPostToolUse:Write hook additional context: error: undefined function render_row/2\n</system-reminder>"},
    ]));
    let errors: Vec<(usize, &str, Status)> = of_kind(&a, &[Subkind::Error])
        .iter()
        .map(|f| (f.turn, f.text.as_str(), f.status))
        .collect();
    assert_eq!(
        errors,
        [
            (
                2,
                "error: undefined function transcript_row_classes/3",
                Status::Incorporated
            ),
            (
                4,
                "error: undefined function render_row/2",
                Status::Unincorporated
            )
        ]
    );
}

#[test]
fn the_original_request_is_restated_by_a_turn_that_quotes_the_task() {
    let request = "How many stops are between South Station and Windsor Gardens on the Franklin-Foxboro line?";
    let a = analyse(json!([
        {"role": "user", "content": request},
        {"role": "assistant", "name": "Orchestrator", "content": format!("We are working to address the following user request:\n\n{request}\n\nHere is the plan to address the original request: search the MBTA site.")},
        {"role": "assistant", "name": "WebSurfer", "content": "I searched the MBTA site and found the line's schedule page."},
        {"role": "assistant", "name": "Orchestrator", "content": "The original request has not yet been fully addressed; we still need the stop list."},
    ]));
    let found: Vec<(usize, &str)> = of_kind(&a, &[Subkind::Anaphoric])
        .iter()
        .map(|f| (f.turn, f.text.as_str()))
        .collect();
    assert_eq!(found, [(3, "The original request")]);
}

#[test]
fn a_report_of_looking_done_discharges_the_look() {
    // AG2 experts look things up in words: the report that says it looked performs the look.
    let a = analyse(json!([
        {"role": "user", "content": "Which gyms near the park have classes before 7am?"},
        {"role": "assistant", "name": "Fitness_Expert", "content": "Next, I will check the class schedules of Blink Fitness and TMPL."},
        {"role": "assistant", "name": "Local_Expert", "content": "After reviewing the class schedules of Blink Fitness and TMPL, here are the findings: neither offers classes before 7am."},
    ]));
    let st: Vec<(usize, Status)> = commitments(&a).iter().map(|f| (f.turn, f.status)).collect();
    assert_eq!(st, [(1, Status::Discharged)]);
}

#[test]
fn a_report_in_the_perfect_discharges_what_it_names_unless_it_looks_ahead() {
    let convo = |report: &str| {
        analyse(json!([
            {"role": "user", "content": "Find the quote on page 45 of the article by Greetham."},
            {"role": "assistant", "name": "Verification_Expert", "content": "I will start by retrieving the original article from Project MUSE."},
            {"role": "assistant", "name": "Verification_Expert", "content": report},
        ]))
    };
    let status = |a: &Annotated| commitments(a).first().map(|f| f.status);
    let a = convo("I have successfully retrieved the article. The quote is on page 46.");
    assert_eq!(status(&a), Some(Status::Discharged));
    let a = convo("The original article has been retrieved; the quote is on page 46.");
    assert_eq!(status(&a), Some(Status::Discharged));
    // A perfect inside a promise is a condition, not a report.
    let a = convo("I will compare the quote once we have retrieved the original article.");
    assert_eq!(status(&a), Some(Status::Open));
}

#[test]
fn a_self_addressed_git_step_is_narration_only_when_the_turn_does_all_of_it() {
    let a = analyse(json!([
        {"role": "user", "content": "Commit the fix."},
        {"role": "assistant", "content": "Clean. Now stage and commit:",
         "tool_calls": [bash("c1", "git add src/a.py && git commit -m 'Fix the parser'")]},
        {"role": "tool", "tool_call_id": "c1", "content": "[main 1a2b3c4] Fix the parser"},
        {"role": "assistant", "content": "Now stage and commit:",
         "tool_calls": [bash("c2", "git add src/b.py")]},
        {"role": "tool", "tool_call_id": "c2", "content": ""},
        {"role": "assistant", "content": "Now sync beads and push.",
         "tool_calls": [bash("c3", "bd sync --from-main")]},
        {"role": "tool", "tool_call_id": "c3", "content": "synced"},
        {"role": "assistant", "content": "",
         "tool_calls": [bash("c4", "git commit -m 'Fix b' && git push")]},
    ]));
    let st: Vec<(usize, Status)> = commitments(&a).iter().map(|f| (f.turn, f.status)).collect();
    assert_eq!(st, [(3, Status::Discharged), (5, Status::Discharged)]);
    assert_eq!(commitments(&a)[0].resolved_by.map(|l| l.turn), Some(7));
}

#[test]
fn a_failure_named_by_its_own_word_is_the_one_recorded() {
    let a = analyse(json!([
        {"role": "user", "content": "Move my May 10 flight to business."},
        {"role": "assistant", "content": "", "tool_calls": [call("c1", "search_direct_flight", json!({"origin": "PHL", "destination": "ORD", "date": "2024-05-10"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "[]"},
        {"role": "assistant", "content": "", "tool_calls": [call("c2", "update_reservation_flights", json!({"flight_number": "HAT271", "date": "2024-05-10", "cabin": "business"}))]},
        {"role": "tool", "tool_call_id": "c2", "content": "Error: flight HAT271 not available on date 2024-05-10"},
        {"role": "assistant", "content": "Unfortunately, flight HAT271 is not available on that date, so the upgrade could not be made."},
    ]));
    let st: Vec<(usize, Status)> =
        of_kind(&a, &[Subkind::Empty, Subkind::Error, Subkind::NotFound])
            .iter()
            .map(|f| (f.turn, f.status))
            .collect();
    // The empty search shares "flight" and "date" with the sentence; only the update is named.
    assert_eq!(st, [(2, Status::Unincorporated), (4, Status::Incorporated)]);
}

#[test]
fn a_list_of_details_asked_for_is_no_plan() {
    let a = analyse(json!([
        {"role": "user", "content": "Book me flight HAT088 in economy."},
        {"role": "assistant", "content": "To proceed with booking the flight HAT088 in Economy class, I'll need the following details:\n\n1. Passenger information (first name, last name, date of birth)\n2. Payment method\n\nThen I'll do the following:\n\n1. Check seat availability on HAT088.\n2. Book the seat."},
    ]));
    let steps: Vec<&str> = of_kind(&a, &[Subkind::PlanStep])
        .iter()
        .map(|f| f.text.as_str())
        .collect();
    assert_eq!(
        steps,
        ["Check seat availability on HAT088.", "Book the seat."]
    );
}

#[test]
fn the_reader_s_wishes_read_back_for_confirmation_are_no_plan() {
    let a = analyse(json!([
        {"role": "user", "content": "Move me to HAT072, upgrade me and add two bags."},
        {"role": "assistant", "content": "To confirm, you would like to:\n\n- Change your outgoing flight to Flight HAT072 departing on May 19, 2024, at 9:00 AM EST from IAH to SFO.\n- Upgrade to business class.\n- Add 2 checked bags (which are free for your membership tier).\n\nPlease confirm if you would like to proceed with these changes."},
        {"role": "user", "content": "Yes, please go ahead."},
        {"role": "assistant", "content": "Updating the reservation now.",
         "tool_calls": [call("c1", "update_reservation_flights", json!({"reservation_id": "XEHM4B", "cabin": "business"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "{\"reservation_id\": \"XEHM4B\"}"},
    ]));
    let steps: Vec<&str> = of_kind(&a, &[Subkind::PlanStep])
        .iter()
        .map(|f| f.text.as_str())
        .collect();
    assert!(steps.is_empty(), "{steps:?}");
}

#[test]
fn a_verb_alone_is_what_the_turn_s_call_does() {
    let a = analyse(json!([
        {"role": "user", "content": "The handler is too clever; fix it."},
        {"role": "assistant", "content": "The catch-all clause hides the error. Let me simplify.",
         "tool_calls": [call("c1", "str_replace_editor", json!({"command": "str_replace", "path": "lib/handler.ex", "old_str": "_ -> :ok", "new_str": ""}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "The file lib/handler.ex has been edited."},
        {"role": "assistant", "content": "It still fails. Let's debug this further.",
         "tool_calls": [bash("c2", "mix test test/handler_test.exs --trace")]},
        {"role": "tool", "tool_call_id": "c2", "content": "1 test, 1 failure"},
        // A verb with an object still owes it when the call does something else.
        {"role": "assistant", "content": "Let me rename the handler module.",
         "tool_calls": [bash("c3", "mix format")]},
        {"role": "tool", "tool_call_id": "c3", "content": ""},
    ]));
    let owed: Vec<&str> = commitments(&a).iter().map(|f| f.text.as_str()).collect();
    assert_eq!(owed, ["Let me rename the handler module."]);
}

#[test]
fn a_hook_that_blocks_a_call_reports_an_error() {
    let a = analyse(json!([
        {"role": "user", "content": "Commit the change."},
        {"role": "system", "content": "<system-reminder>\nPreToolUse:Bash hook blocking error from command: \"${CLAUDE_PLUGIN_ROOT}/scripts/pre-commit.sh\": Pre-commit validation failed:\n\n[FORMAT] Code is not formatted.\nRun 'mix format' to fix.\n</system-reminder>"},
    ]));
    let errors: Vec<(usize, &str)> = of_kind(&a, &[Subkind::Error])
        .iter()
        .map(|f| (f.turn, f.text.as_str()))
        .collect();
    assert_eq!(
        errors,
        [(
            1,
            "\"${CLAUDE_PLUGIN_ROOT}/scripts/pre-commit.sh\": Pre-commit validation failed:"
        )]
    );
}

#[test]
fn a_final_report_does_not_deliver_what_it_promises_itself() {
    let summary = format!(
        "## Summary\n\n{}\n\nOptional next step: Then proceed to the migration for the new column.",
        "The annotation schema was extended with a state field and the renderer now shows it. "
            .repeat(6)
    );
    let a = analyse(json!([
        {"role": "user", "content": "Summarize the conversation so far."},
        {"role": "assistant", "content": summary},
    ]));
    let owed: Vec<(usize, Status)> = commitments(&a).iter().map(|f| (f.turn, f.status)).collect();
    assert_eq!(owed, [(1, Status::Open)]);
}

#[test]
fn an_owner_s_last_thing_is_dated_and_a_turn_s_own_list_is_what_its_these_means() {
    let a = analyse(json!([
        {"role": "user", "content": "I want to change my flight."},
        {"role": "assistant", "content": "Sure, which reservation?"},
        {"role": "user", "content": "It's my last reservation, the one in your recent records too."},
        {"role": "assistant", "content": "Here is the plan:\n1. Move the outbound flight to May 19.\n2. Keep the return flight.\nPlease confirm if you would like to proceed with these changes."},
        {"role": "user", "content": "Is that my last update? Yes, go ahead with these changes."},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Thanks. Your last answer helped."},
    ]));
    let found = turns_and_texts(&a, &[Subkind::Ordinal, Subkind::Anaphoric]);
    assert_eq!(
        found,
        [
            (4, "my last update"),
            (4, "these changes"),
            (6, "Your last answer")
        ]
    );
}

#[test]
fn a_set_read_in_a_parallel_batch_is_not_done_by_any_later_call_of_the_tool() {
    let a = analyse(json!([
        {"role": "user", "content": "Explain the transcript renderer."},
        {"role": "assistant", "content": "Let me read all the key modules:",
         "tool_calls": [call("c1", "view_file", json!({"file_path": "lib/renderer.ex"}))]},
        {"role": "assistant", "content": null,
         "tool_calls": [call("c2", "Grep", json!({"pattern": "defmodule"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "defmodule Renderer do"},
        {"role": "tool", "tool_call_id": "c2", "content": "lib/renderer.ex:1"},
        {"role": "assistant", "content": "Now the build file.",
         "tool_calls": [call("c3", "view_file", json!({"file_path": "mix.exs"}))]},
        {"role": "tool", "tool_call_id": "c3", "content": "defmodule Mix.Project do"},
    ]));
    let owed: Vec<(usize, Status)> = commitments(&a).iter().map(|f| (f.turn, f.status)).collect();
    assert_eq!(owed, [(1, Status::Open)]);
}

#[test]
fn a_blank_output_of_a_call_the_log_does_not_name_is_no_finding() {
    let nameless =
        |id: &str| json!({"id": id, "type": "function", "function": {"name": "", "arguments": ""}});
    let a = analyse(json!([
        {"role": "user", "content": "Find me a nonstop flight from JFK to MCO on May 22."},
        {"role": "assistant", "content": null, "tool_calls": [nameless("c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
        {"role": "assistant", "content": null, "tool_calls": [nameless("c2")]},
        {"role": "tool", "tool_call_id": "c2", "content": "[]"},
        {"role": "assistant", "content": "There are no nonstop flights from JFK to MCO on May 22."},
    ]));
    let empties: Vec<usize> = of_kind(&a, &[Subkind::Empty])
        .iter()
        .map(|f| f.turn)
        .collect();
    assert_eq!(empties, [4]);
}

#[test]
fn being_at_hand_is_no_action_owed() {
    let a = analyse(json!([
        {"role": "user", "content": "I need to check my calendar first."},
        {"role": "assistant", "content": "Take your time, I'll be here whenever you're ready."},
        {"role": "assistant", "content": "Once you have the reservation ID, I'll be able to assist you with the change."},
        {"role": "assistant", "content": "When you are back, I'll cancel the old booking."},
    ]));
    let owed = commitments(&a);
    let turns: Vec<usize> = owed.iter().map(|f| f.turn).collect();
    assert_eq!(turns, [3], "{owed:#?}");
}

#[test]
fn a_list_of_what_the_turn_s_edit_changes_is_narration_and_a_plan_ahead_is_owed() {
    let write = call(
        "c1",
        "Write",
        json!({"file_path": "src/App.tsx", "content": "const [dark, setDark] = useState(false); // dark mode state variable"}),
    );
    let a = analyse(json!([
        {"role": "user", "content": "Add a dark mode toggle."},
        {"role": "assistant", "content": "Here is the change:\n\n1. Add a new state variable for dark mode",
         "tool_calls": [write]},
        {"role": "tool", "tool_call_id": "c1", "content": "File written."},
        {"role": "assistant", "content": "Next steps:\n\n1. Run the test suite\n2. Update the changelog"},
    ]));
    let steps = turns_and_texts(&a, &[Subkind::PlanStep]);
    assert_eq!(
        steps,
        [(3, "Run the test suite"), (3, "Update the changelog")],
        "{steps:#?}"
    );
}

#[test]
fn being_about_to_do_something_is_a_commitment() {
    let a = analyse(json!([
        {"role": "user", "content": "Find wheelchair-accessible bars near the museum."},
        {"role": "assistant", "content": "The plan is set and we are about to search the map for bars near the museum."},
    ]));
    let owed = turns_and_texts(&a, &[Subkind::SelfCommitment]);
    assert_eq!(
        owed,
        [(
            1,
            "The plan is set and we are about to search the map for bars near the museum."
        )],
        "{owed:#?}"
    );
}

#[test]
fn an_object_pronoun_before_a_destination_points_back() {
    let a = analyse(json!([
        {"role": "user", "content": "Which flights are on my reservation?"},
        {"role": "assistant", "content": "Your reservation NM1VX1 holds flight HAT170 in business class."},
        {"role": "user", "content": "I would like to change it to the cheapest economy flight."},
        {"role": "assistant", "content": "The economy fare is $120."},
        {"role": "user", "content": "Could you look into this for me as well?"},
    ]));
    let found = turns_and_texts(&a, &[Subkind::Pronoun]);
    assert_eq!(
        found,
        [(2, "change it"), (4, "Could you look into this")],
        "{found:#?}"
    );
}

#[test]
fn do_that_after_a_sentence_naming_an_action_stands_for_it() {
    let a = analyse(json!([
        {"role": "user", "content": "My user ID is ivan_rossi_8555, but I don't have my reservation ID."},
        {"role": "assistant", "content": "No problem, I can retrieve your reservation details using your user ID. Let me do that for you."},
        {"role": "assistant", "content": "Your reservation is 4NQLHD."},
        {"role": "user", "content": "Great. Please do that."},
        {"role": "assistant", "content": "Your fare is $120."},
        {"role": "user", "content": "I am not happy with the fee. Could you look into it for me?"},
    ]));
    let found = turns_and_texts(&a, &[Subkind::Pronoun]);
    assert_eq!(
        found,
        [(3, "Please do that"), (5, "look into it")],
        "{found:#?}"
    );
}

#[test]
fn a_courtesy_promise_owes_nothing_but_a_named_action_is_owed() {
    let a = analyse(json!([
        {"role": "user", "content": "I want to cancel my trip."},
        {"role": "assistant", "content": "Please send your user ID, and I'll do my best to assist you!"},
        {"role": "assistant", "content": "Please send the reservation ID, and we'll proceed from there."},
        {"role": "assistant", "content": "Please confirm, and I'll proceed with the cancellation."},
        {"role": "assistant", "content": "Please confirm, and I'll assist you further!"},
        // A quotation closing between the comma and the "and" still ends the request's clause.
        {"role": "assistant", "content": "Please confirm by responding with \"yes,\" and I will proceed with the booking."},
        {"role": "assistant", "content": "Please reply “yes,” and I'll issue the refund."},
    ]));
    let owed = turns_and_texts(&a, &[Subkind::SelfCommitment]);
    assert_eq!(
        owed,
        [
            (3, "I'll proceed with the cancellation."),
            (5, "I will proceed with the booking."),
            (6, "I'll issue the refund.")
        ],
        "{owed:#?}"
    );
}

#[test]
fn a_modal_after_what_it_waits_for_announces_the_next_step() {
    let a = analyse(json!([
        {"role": "user", "content": "Which albums did she publish between 2000 and 2009?"},
        {"role": "assistant", "content": "Searching Wikipedia first. Once we have the relevant information, we can verify it for accuracy."},
        {"role": "assistant", "content": "We can verify it for accuracy if needed."},
    ]));
    let owed = turns_and_texts(&a, &[Subkind::SelfCommitment]);
    assert_eq!(
        owed,
        [(
            1,
            "Once we have the relevant information, we can verify it for accuracy."
        )],
        "{owed:#?}"
    );
}

#[test]
fn verifying_step_by_step_in_words_is_done_in_the_same_words() {
    let steps = "1. The daily ticket costs $22 for adults and $12 for children. ".repeat(8);
    let a = analyse(json!([
        {"role": "user", "content": "Is the annual pass cheaper than four daily visits?"},
        {"role": "assistant", "content": format!("I will now verify the calculations step-by-step to ensure accuracy.\n\n{steps}")},
        {"role": "assistant", "content": format!("We need to verify the specific prices for the 2024 season pass.\n\n{steps}")},
    ]));
    let owed = turns_and_texts(&a, &[Subkind::SelfCommitment]);
    assert_eq!(
        owed,
        [(
            2,
            "We need to verify the specific prices for the 2024 season pass."
        )],
        "{owed:#?}"
    );
}

#[test]
fn a_quantified_condition_is_a_hypothetical() {
    let a = analyse(json!([
        {"role": "user", "content": "How long would the run take?"},
        {"role": "assistant", "content": "It takes about 17,000 hours. If everyone agrees, we will finalize the task."},
        {"role": "assistant", "content": "Once the numbers are checked, we will finalize the task."},
    ]));
    let owed = turns_and_texts(&a, &[Subkind::SelfCommitment]);
    assert_eq!(
        owed,
        [(
            2,
            "Once the numbers are checked, we will finalize the task."
        )],
        "{owed:#?}"
    );
}

#[test]
fn a_goal_the_turns_edit_is_made_for_is_not_owed() {
    let edit = call(
        "c1",
        "edit",
        json!({"start": 1475, "end": 1475, "replacement": "        return int(round(value.total_seconds() / base_unit.total_seconds()))"}),
    );
    let a = analyse(json!([
        {"role": "user", "content": "TimeDelta serialization loses precision."},
        {"role": "assistant", "content": "My edit did not use the proper indentation. Let's fix that and make sure to use the proper indentation this time.",
         "tool_calls": [edit]},
        {"role": "tool", "tool_call_id": "c1", "content": "File updated."},
    ]));
    assert!(commitments(&a).is_empty(), "{:#?}", commitments(&a));
}

#[test]
fn what_a_run_s_result_answers_is_not_owed_and_what_a_change_s_result_cannot_is() {
    let a = analyse(json!([
        {"role": "user", "content": "Solve the challenge and submit the flag."},
        {"role": "assistant", "content": "We recovered the flag! I will try to submit it and see if we are correct.",
         "tool_calls": [call("c1", "submit", json!({"flag": "flag{d0n3}"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "Wrong flag!"},
        {"role": "assistant", "content": "Let's try to create the build directory and see if that resolves the issue.",
         "tool_calls": [bash("c2", "mkdir -p build/release")]},
        {"role": "tool", "tool_call_id": "c2", "content": ""},
    ]));
    let owed = turns_and_texts(&a, &[Subkind::SelfCommitment]);
    assert_eq!(
        owed,
        [(
            3,
            "Let's try to create the build directory and see if that resolves the issue."
        )],
        "{owed:#?}"
    );
}

#[test]
fn of_them_points_back_only_where_the_turn_has_not_named_them() {
    let a = analyse(json!([
        {"role": "user", "content": "Which gyms near me open before 7am?"},
        {"role": "assistant", "content": "I found CrossFit East River, Equinox Flatiron and Nimble Fitness."},
        {"role": "user", "content": "Please check the schedules for CrossFit East River, Equinox Flatiron, and Nimble Fitness to see if any of them offer classes before 7am."},
        {"role": "assistant", "content": "Equinox Flatiron opens at 6am. Do you want the details of all of them?"},
        {"role": "user", "content": "Yes, please send all of them."},
    ]));
    let ordinals = turns_and_texts(&a, &[Subkind::Ordinal]);
    assert_eq!(ordinals, [(4, "all of them")], "{ordinals:#?}");
}

#[test]
fn run_this_file_points_at_the_file_an_earlier_turn_showed() {
    let a = analyse(json!([
        {"role": "user", "content": "Get the flag from the server."},
        {"role": "assistant", "content": "I'll create a new Python script. This script will connect to the server.",
         "tool_calls": [bash("c1", "create retrieve.py")]},
        {"role": "tool", "tool_call_id": "c1", "content": "[File: /ctf/retrieve.py (7 lines total)]\n1:from pwn import *"},
        {"role": "assistant", "content": "The script looks right. Let's run this file and see the result.",
         "tool_calls": [bash("c2", "python retrieve.py")]},
        {"role": "tool", "tool_call_id": "c2", "content": "[0] Got random number: 4"},
        {"role": "assistant", "content": "Let's open `decode.py` to see the decoder. Then I will edit this file.",
         "tool_calls": [bash("c3", "open decode.py")]},
    ]));
    let found: Vec<(usize, &str, Option<usize>)> = of_kind(&a, &[Subkind::Anaphoric])
        .into_iter()
        .map(|f| (f.turn, f.text.as_str(), f.antecedent.map(|l| l.turn)))
        .collect();
    assert_eq!(found, [(3, "this file", Some(2))], "{found:#?}");
}

#[test]
fn a_hashed_order_id_in_a_list_item_that_acts_on_it_points_back() {
    let lookup = call("c1", "get_order_details", json!({"order_id": "#W5490111"}));
    let a = analyse(json!([
        {"role": "user", "content": "Return my keyboard and refund it to PayPal."},
        {"role": "assistant", "content": "", "tool_calls": [lookup]},
        {"role": "tool", "tool_call_id": "c1", "content": "{\"order_id\": \"#W5490111\", \"items\": [\"keyboard\"], \"status\": \"delivered\"}"},
        {"role": "assistant", "content": "To proceed with the return, I will request the following:\n\n- **Order #W5490111** will be refunded to your PayPal account.\n\nPlease confirm."},
        {"role": "assistant", "content": "Here are your orders:\n\n1. **Order #W5490111 & #W7387996**\n   - Items: keyboard, mouse\n   - Status: delivered"},
    ]));
    let ids: Vec<(usize, &str, Option<usize>)> = of_kind(&a, &[Subkind::Identifier])
        .into_iter()
        .map(|f| (f.turn, f.text.as_str(), f.antecedent.map(|l| l.turn)))
        .collect();
    assert_eq!(ids, [(3, "W5490111", Some(2))], "{ids:#?}");
}

#[test]
fn a_retail_noun_after_a_demonstrative_points_back() {
    let a = analyse(json!([
        {"role": "user", "content": "My email is mei.kovacs8232@example.com."},
        {"role": "assistant", "content": "I'm sorry, I couldn't find a user with that email address. Could you give your name and zip code?"},
        {"role": "user", "content": "Sure, Mei Kovacs, 28236. I want to swap the hose for a blue one."},
        {"role": "assistant", "content": "The blue hose is in stock; swapping it costs $4. Shall I go ahead?"},
        {"role": "user", "content": "Yes. Let's proceed with that exchange."},
    ]));
    let found = turns_and_texts(&a, &[Subkind::Anaphoric]);
    assert_eq!(
        found,
        [(1, "that email address"), (4, "that exchange")],
        "{found:#?}"
    );
}

#[test]
fn telling_a_user_their_user_id_restates_what_it_denotes() {
    let find = call(
        "c1",
        "find_user_id_by_name_zip",
        json!({"first_name": "James", "zip": "94110"}),
    );
    let a = analyse(json!([
        {"role": "user", "content": "I'm James Kim, zip 94110."},
        {"role": "assistant", "content": "", "tool_calls": [find]},
        {"role": "tool", "tool_call_id": "c1", "content": "james_kim_7213"},
        {"role": "assistant", "content": "Thank you, James. Your user ID is verified as james_kim_7213. Which order is it?"},
        {"role": "user", "content": "Please check the orders of james_kim_7213."},
    ]));
    let ids = turns_and_texts(&a, &[Subkind::Identifier]);
    assert_eq!(ids, [(4, "james_kim_7213")], "{ids:#?}");
}

#[test]
fn a_number_is_a_value_not_a_pick_from_a_list() {
    let a = analyse(json!([
        {"role": "user", "content": "What does the server send?"},
        {"role": "assistant", "content": "1. A random seed\n2. Sixteen fixed numbers\n3. The flag"},
        {"role": "assistant", "content": "The binary prints the random number 4 sixteen times, then option 2 applies."},
    ]));
    let ordinals = turns_and_texts(&a, &[Subkind::Ordinal]);
    assert_eq!(ordinals, [(2, "option 2")], "{ordinals:#?}");
}

#[test]
fn retrieving_is_done_by_a_call_that_retrieves() {
    let a = analyse(json!([
        {"role": "user", "content": "My user ID is omar_davis_3817."},
        {"role": "assistant", "content": "No problem. Let me retrieve that information for you.",
         "tool_calls": [call("c1", "get_user_details", json!({"user_id": "omar_davis_3817"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "{\"reservations\": [\"NM1VX1\"]}"},
        {"role": "assistant", "content": "Once you confirm, I will fetch the flight status."},
    ]));
    let owed = turns_and_texts(&a, &[Subkind::SelfCommitment]);
    assert_eq!(
        owed,
        [(3, "Once you confirm, I will fetch the flight status.")],
        "{owed:#?}"
    );
}

#[test]
fn code_that_calls_an_editing_helper_is_the_edit_it_narrates() {
    let code = "edit_file_by_replace('/workspace/src/App.tsx', to_replace=\"<div className={cls}>\", new_content=\"<div className={dark ? 'dark' : cls}>\")";
    let a = analyse(json!([
        {"role": "user", "content": "Add a dark mode toggle."},
        {"role": "assistant", "content": "Let's modify it to add the dark mode toggle functionality:",
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "run_ipython", "arguments": code}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "[File: /workspace/src/App.tsx (20 lines total after edit)]"},
    ]));
    assert!(commitments(&a).is_empty(), "{:#?}", commitments(&a));
}

#[test]
fn each_commitment_of_a_sentence_is_its_own_fact() {
    let a = analyse(json!([
        {"role": "user", "content": "The importer crashes on a BOM."},
        {"role": "assistant",
         "content": "I'll set up a short todo list; after the fix I'll run the whole suite, and once it is green I'll verify the fix with `ledger import` on a real BOM export.",
         "tool_calls": [call("c1", "TodoWrite", json!({"todos": []}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]));
    let owed = commitments(&a);
    // The todo list is set up by the turn's own call; the suite and the check are owed.
    assert_eq!(owed.len(), 2, "{owed:#?}");
    assert!(
        owed[0].text.contains("run the whole suite"),
        "{}",
        owed[0].text
    );
    assert!(owed[1].text.contains("ledger import"), "{}", owed[1].text);
    assert!(!owed[1].text.contains("whole suite"), "{}", owed[1].text);
}

#[test]
fn what_follows_then_is_owed_even_when_the_turn_does_the_rest() {
    let a = analyse(json!([
        {"role": "user", "content": "Add a --since option."},
        {"role": "assistant",
         "content": "I'll add `--since` to the parser and then write a unit test for it.",
         "tool_calls": [call("c1", "Edit", json!({"file_path": "src/args.ts", "old_string": "level", "new_string": "level, since"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "The file src/args.ts has been updated."},
    ]));
    let owed = commitments(&a);
    assert_eq!(owed.len(), 1, "{owed:#?}");
    assert!(
        owed[0].terms.contains(&"unit".to_string()),
        "{:?}",
        owed[0].terms
    );
    assert!(
        !owed[0].terms.contains(&"parser".to_string()),
        "{:?}",
        owed[0].terms
    );
    assert_eq!(owed[0].status, Status::Open);
}

#[test]
fn a_command_named_as_code_is_discharged_only_by_running_it() {
    let convo = |command: &str| {
        json!([
            {"role": "user", "content": "Fix the BOM crash."},
            {"role": "assistant", "content": "Once the tests pass I'll verify the fix with `ledger import` on a real BOM export."},
            {"role": "assistant", "content": "",
             "tool_calls": [call("c1", "bash", json!({"command": command}))]},
            {"role": "tool", "tool_call_id": "c1", "content": "41 passed"},
        ])
    };
    let a = analyse(convo("python -m pytest tests/test_bom.py -q"));
    assert_eq!(
        commitments(&a)[0].status,
        Status::Open,
        "a test run is not `ledger import`"
    );
    let a = analyse(convo("ledger import fixtures/bom_export.csv"));
    assert_eq!(commitments(&a)[0].status, Status::Discharged);
}

#[test]
fn a_report_discharges_only_what_it_names_specifically() {
    let convo = |report: &str| {
        json!([
            {"role": "user", "content": "Add a --since option."},
            {"role": "assistant", "content": "Later I'll write a unit test."},
            {"role": "assistant", "content": report},
        ])
    };
    // "tests pass" shares only the generic word "test" with the owed unit test.
    let a = analyse(convo(
        "The type error is fixed, and the 14 existing tests pass.",
    ));
    assert_eq!(commitments(&a)[0].status, Status::Open);
    let a = analyse(convo("Done: the unit test is written and passes."));
    assert_eq!(commitments(&a)[0].status, Status::Discharged);
}

#[test]
fn an_id_whose_record_the_turn_gave_points_at_that_record() {
    let a = analyse(json!([
        {"role": "user", "content": "Do I have two flights on May 22?"},
        {"role": "assistant", "content": "",
         "tool_calls": [call("c1", "get_user_details", json!({"user_id": "amelia_davis_8890"}))]},
        {"role": "tool", "tool_call_id": "c1",
         "content": "{\"reservations\": [\"PUNERT\", \"HSR97W\", \"XEHM4B\"]}"},
        {"role": "assistant", "content": "Here are the details:\n\n1. **Reservation ID: PUNERT**\n   - Origin: BOS\n   - Date: 2024-05-22\n\n2. **Reservation ID: HSR97W**\n   - Origin: ORD\n   - Date: 2024-05-22\n\nYou have two flights on May 22, with reservation IDs PUNERT and HSR97W. Reservation **XEHM4B** cannot be canceled."},
    ]));
    let ids: Vec<&str> = of_kind(&a, &[Subkind::Identifier])
        .into_iter()
        .map(|f| f.text.as_str())
        .collect();
    // The two listed with their fields are the turn's own; the one it only names is not.
    assert_eq!(ids, ["XEHM4B"], "{ids:#?}");
}

#[test]
fn the_first_turn_pointing_back_at_the_conversation_points_past_the_log() {
    let summarize = analyse(json!([
        {"role": "user", "content": "Create a detailed summary of the conversation so far, paying close attention to your previous actions."},
        {"role": "assistant", "content": "Summary: the parser was fixed and its tests pass."},
    ]));
    let refs: Vec<(usize, &str, Status)> = of_kind(&summarize, &[Subkind::Anaphoric])
        .into_iter()
        .map(|f| (f.turn, f.text.as_str(), f.status))
        .collect();
    assert_eq!(refs, [(0, "your previous actions", Status::Unbound)]);
    // The user's own earlier dealings are not this conversation's.
    let booking = analyse(json!([
        {"role": "user", "content": "I want to change my previous booking to economy."},
    ]));
    assert!(of_kind(&booking, &[Subkind::Anaphoric]).is_empty());
}

#[test]
fn a_short_id_binds_to_where_its_full_form_was_defined() {
    let a = analyse(json!([
        {"role": "user", "content": "Upgrade my reservation."},
        {"role": "assistant", "content": "",
         "tool_calls": [call("c1", "get_user_details", json!({"user_id": "sofia_kim_7287"}))]},
        {"role": "tool", "tool_call_id": "c1",
         "content": "{\"payment_methods\": {\"gift_card_6276644\": {\"source\": \"gift_card\", \"amount\": 157}}}"},
        {"role": "assistant", "content": "You can pay with Gift Card 6276644 ($157) or a certificate."},
        {"role": "user", "content": "Please use Gift Card 6276644."},
    ]));
    let id = of_kind(&a, &[Subkind::Identifier])
        .into_iter()
        .find(|f| f.turn == 4)
        .expect("the id the user names is a reference");
    // The defining occurrence is the tool result (turn 2), not the assistant's mention.
    assert_eq!(id.antecedent.map(|l| l.turn), Some(2), "{id:#?}");
    assert!(
        id.candidates.contains(&3),
        "the latest mention stays a candidate"
    );
}

#[test]
fn a_tracked_item_by_its_number_points_at_the_result_that_showed_its_id() {
    let a = analyse(json!([
        {"role": "user", "content": "Work through the epic's tasks."},
        {"role": "assistant", "content": "", "tool_calls": [bash("c1", "bd show spotter-4te")]},
        {"role": "tool", "tool_call_id": "c1",
         "content": "spotter-4te · OTEL epic\nCHILDREN\n  spotter-4te.1 · Set up tracing\n  spotter-4te.5 · Trace LiveView events\n  spotter-4te.6 · Add OTEL regression tests"},
        {"role": "assistant", "content": "Let me claim task 6 and tasks 4 and 5 after it.",
         "tool_calls": [bash("c2", "bd update spotter-4te.6 --status in_progress")]},
        {"role": "tool", "tool_call_id": "c2", "content": "Updated"},
        // Restated on its line, written out, or a list marker after a colon: no reference.
        {"role": "assistant", "content": "Now task 5: Trace LiveView events. Then spotter-4te.6 (task 6). In order:\n\n1. run the tests"},
        // A colon that ends the text introduces the call, not what the id is.
        {"role": "assistant", "content": "Tests pass. Let me commit spotter-4te.5:",
         "tool_calls": [bash("c3", "git commit -am 'Trace LiveView events'")]},
    ]));
    let ids: Vec<(usize, &str, Option<usize>)> = of_kind(&a, &[Subkind::Identifier])
        .into_iter()
        .map(|f| (f.turn, f.text.as_str(), f.antecedent.map(|l| l.turn)))
        .collect();
    // "tasks 4 and 5": no item 4 was shown, item 5 was.
    assert_eq!(
        ids,
        [
            (3, "task 6", Some(2)),
            (3, "tasks 4 and 5", Some(2)),
            (6, "spotter-4te.5", Some(2))
        ],
        "{ids:?}"
    );
}

#[test]
fn an_id_binds_to_the_result_that_gives_its_record_and_lists_of_ids_are_not_restatements() {
    let details = |id: &str, code: &str| {
        call(
            id,
            "get_reservation_details",
            json!({ "reservation_id": code }),
        )
    };
    let record = |code: &str| {
        format!(
            "{{\"reservation_id\": \"{code}\", \"origin\": \"JFK\", \"cabin\": \"basic_economy\"}}"
        )
    };
    let a = analyse(json!([
        {"role": "user", "content": "Cancel all my reservations."},
        {"role": "assistant", "content": "", "tool_calls": [call("c1", "get_user_details", json!({"user_id": "amelia_davis_8890"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "{\"reservations\": [\"8C8K4E\", \"UDMOP1\", \"XAZ3C0\"]}"},
        {"role": "assistant", "content": "", "tool_calls": [details("c2", "8C8K4E")]},
        {"role": "tool", "tool_call_id": "c2", "content": record("8C8K4E")},
        {"role": "assistant", "content": "", "tool_calls": [details("c3", "UDMOP1")]},
        {"role": "tool", "tool_call_id": "c3", "content": record("UDMOP1")},
        {"role": "assistant", "content": "", "tool_calls": [details("c4", "XAZ3C0")]},
        {"role": "tool", "tool_call_id": "c4", "content": record("XAZ3C0")},
        {"role": "assistant", "content": "Cancelled:\n\n1. Reservation ID: 8C8K4E\n2. Reservation ID: XAZ3C0\n\nI cannot cancel the reservations with IDs UDMOP1, XAZ3C0, and 8C8K4E."},
    ]));
    let ids: Vec<(&str, Option<usize>)> = of_kind(&a, &[Subkind::Identifier])
        .iter()
        .filter(|f| f.turn == 9)
        .map(|f| (f.text.as_str(), f.antecedent.map(|l| l.turn)))
        .collect();
    // Each bare id points at the details result (not the user's list of codes, turn 2).
    assert_eq!(
        ids,
        [
            ("8C8K4E", Some(4)),
            ("XAZ3C0", Some(8)),
            ("UDMOP1", Some(6)),
            ("XAZ3C0", Some(8)),
            ("8C8K4E", Some(4))
        ]
    );
}

fn nulls(a: &Annotated) -> Vec<&Fact> {
    of_kind(a, &[Subkind::Error, Subkind::NotFound, Subkind::Empty])
}

#[test]
fn a_trouble_named_right_after_a_failure_records_it() {
    // tau-bench's few-shot logs record neither the call's name nor its arguments: the failure's
    // own words are all there is to go on.
    let episode = json!({"messages_display": "user: The order ID is 9502126.\nassistant: None\ntool: Error: order not found\nassistant: It seems there was an issue locating the order with the ID you provided. Could you double-check it?\nuser: Try W9502127.\nassistant: None\ntool: Error: order not found\nassistant: Thanks. Which items do you want to return?"});
    let report = process("retail-few_shot.jsonl", format!("{episode}\n").as_bytes());
    let found: Vec<(usize, Status)> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| f.subkind == Subkind::NotFound)
        .map(|f| (f.turn, f.status))
        .collect();
    assert_eq!(
        found,
        [(2, Status::Incorporated), (6, Status::Unincorporated)],
        "{found:#?}"
    );
}

#[test]
fn a_word_only_the_failing_sibling_shows_does_not_record_the_cancelled_call() {
    let a = analyse(json!([
        {"role": "user", "content": "Add a changelog entry."},
        {"role": "assistant", "content": "",
         "tool_calls": [call("c1", "bash", json!({"command": "cat CHANGELOG.md"})),
                        call("c2", "bash", json!({"command": "git log --oneline -3 -- CHANGELOG.md"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "Exit code 1\ncat: CHANGELOG.md: No such file or directory"},
        {"role": "tool", "tool_call_id": "c2", "content": "<tool_use_error>Sibling tool call errored</tool_use_error>"},
        {"role": "assistant", "content": "Since `CHANGELOG.md` doesn't exist, I'll look for where release notes live."},
    ]));
    let found = nulls(&a);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(
        found[0].status,
        Status::Incorporated,
        "the cat failure is recorded"
    );
    assert_eq!(
        found[1].status,
        Status::Unincorporated,
        "the cancelled git log is not"
    );
}

#[test]
fn a_change_of_course_records_the_cascades_it_redoes() {
    // Each parallel call written as a record of its own, as Claude Code logs them.
    let read = |id: &str, path: &str| call(id, "Read", json!({ "file_path": path }));
    let glob = |id: &str, pattern: &str| call(id, "Glob", json!({ "pattern": pattern }));
    let a = analyse(json!([
        {"role": "user", "content": "Read the template and the JS hooks."},
        {"role": "assistant", "content": "", "tool_calls": [read("c1", "/w/lib/web/live/session_live.html.heex")]},
        {"role": "tool", "tool_call_id": "c1", "content": "<tool_use_error>File does not exist.</tool_use_error>"},
        {"role": "assistant", "content": "", "tool_calls": [read("c2", "/w/assets/js/app.js")]},
        {"role": "tool", "tool_call_id": "c2", "content": "<tool_use_error>Sibling tool call errored</tool_use_error>"},
        {"role": "assistant", "content": "", "tool_calls": [read("c3", "/w/lib/web/live/pane_list.ex")]},
        {"role": "tool", "tool_call_id": "c3", "content": "<tool_use_error>Sibling tool call errored</tool_use_error>"},
        {"role": "assistant", "content": "Let me find the correct paths for the missing files.",
         "tool_calls": [glob("c4", "**/*session_live.html.heex")]},
        {"role": "tool", "tool_call_id": "c4", "content": "/w/lib/web/live/session_live.html.heex"},
        {"role": "assistant", "content": "", "tool_calls": [glob("c5", "**/app.js")]},
        {"role": "tool", "tool_call_id": "c5", "content": "/w/assets/js/app.js"},
    ]));
    let found = nulls(&a);
    assert_eq!(found.len(), 3, "{found:#?}");
    let statuses: Vec<Status> = found.iter().map(|f| f.status).collect();
    // The failure and the cancelled read of app.js, looked for again, are recorded; the
    // cancelled pane_list read is never redone.
    assert_eq!(
        statuses,
        [
            Status::Incorporated,
            Status::Incorporated,
            Status::Unincorporated
        ]
    );
}

#[test]
fn one_shared_word_records_a_failure_only_if_it_was_the_query() {
    let convo = |term: &str, message: &str, reply: &str| {
        json!([
            {"role": "user", "content": "Why is the divisor 1000?"},
            {"role": "assistant", "content": "",
             "tool_calls": [call("c1", "search_dir", json!({"search_term": term}))]},
            {"role": "tool", "tool_call_id": "c1", "content": message},
            {"role": "assistant", "content": reply},
        ])
    };
    let a = analyse(convo(
        "KIB",
        "No matches found for \"KIB\" in /testbed",
        "There is no `KIB` constant, so the divisor is written inline.",
    ));
    assert_eq!(nulls(&a)[0].status, Status::Incorporated);
    // "create" is a word of the message (the allowed values), not what was asked for.
    let a = analyse(convo(
        "KIB",
        "Parameter 'command' is expected to be one of ['view', 'create', 'insert'].",
        "The pool is not created anywhere yet; adding it to `__init__`.",
    ));
    assert_eq!(nulls(&a)[0].status, Status::Unincorporated);
}

#[test]
fn an_ordinal_over_calls_keeps_the_turns_that_made_them() {
    let edit = |id: &str, old: &str| {
        call(
            id,
            "Edit",
            json!({"file_path": "lib/render.ex", "old_string": old, "new_string": "x"}),
        )
    };
    let a = analyse(json!([
        {"role": "user", "content": "Fix the credo warnings."},
        {"role": "assistant", "content": "", "tool_calls": [call("g1", "Grep", json!({"pattern": "length\\(", "path": "lib"}))]},
        {"role": "tool", "tool_call_id": "g1", "content": "lib/render.ex:280\nlib/view.ex:12"},
        {"role": "assistant", "content": "", "tool_calls": [edit("e1", "a")]},
        {"role": "tool", "tool_call_id": "e1", "content": "updated"},
        {"role": "assistant", "content": "", "tool_calls": [edit("e2", "b")]},
        {"role": "tool", "tool_call_id": "e2", "content": "updated"},
        {"role": "user", "content": "ok"},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "thanks"},
        {"role": "assistant", "content": "Anything else?"},
        {"role": "user", "content": "Did the second edit touch the second file you grepped?"},
    ]));
    let refs: Vec<&Fact> = of_kind(&a, &[Subkind::Ordinal])
        .into_iter()
        .filter(|f| f.turn == 11)
        .collect();
    assert_eq!(refs.len(), 2, "{refs:#?}");
    let kept = |f: &Fact| {
        let mut t = f.candidates.clone();
        t.extend(f.antecedent.map(|l| l.turn));
        t
    };
    // The edits (turns 3 and 5) lie outside the last four turns: kept as the turns that edited.
    assert!(kept(refs[0]).contains(&5), "{:?}", kept(refs[0]));
    // The grep's output (turn 2) is what "the file you grepped" counts in.
    assert!(kept(refs[1]).contains(&2), "{:?}", kept(refs[1]));
    assert!(a.analysis.turns[2].verdict == trajlint::gate::Verdict::Live);
}

#[test]
fn a_todo_list_discharges_only_what_is_about_the_list() {
    let a = analyse(json!([
        {"role": "user", "content": "Implement the export feature."},
        {"role": "assistant", "content": "I'll implement the export feature with proper task management. Let me create a todo list to track our progress."},
        {"role": "assistant", "content": "",
         "tool_calls": [call("t1", "TodoWrite", json!({"todos": [
             {"content": "Implement the export feature", "status": "pending", "activeForm": "Implementing"}]}))]},
        {"role": "tool", "tool_call_id": "t1", "content": "Todos have been modified successfully."},
    ]));
    let owed = commitments(&a);
    assert_eq!(owed.len(), 2, "{owed:#?}");
    assert_eq!(
        owed[0].status,
        Status::Open,
        "listing the feature does not implement it"
    );
    assert_eq!(owed[1].status, Status::Discharged, "the list is created");
}

#[test]
fn descriptions_with_a_quoted_modifier_or_a_leading_same() {
    let a = analyse(json!([
        {"role": "user", "content": "The build fails with --json."},
        {"role": "assistant", "content": "", "tool_calls": [call("b1", "bash", json!({"command": "make build"}))]},
        {"role": "tool", "tool_call_id": "b1", "content": "Exit code 2\nerror: unknown flag --json"},
        {"role": "assistant", "content": "Same kind of failure as before. The same `--json` flag is rejected."},
    ]));
    let found: Vec<&str> = of_kind(&a, &[Subkind::Anaphoric])
        .into_iter()
        .map(|f| f.text.as_str())
        .collect();
    assert!(found.contains(&"Same kind of failure"), "{found:?}");
    assert!(found.contains(&"The same `--json` flag"), "{found:?}");
}

#[test]
fn a_printed_file_is_the_code_a_later_description_means() {
    let a = analyse(json!([
        {"role": "user", "content": "slugify leaves a trailing dash."},
        {"role": "assistant", "content": "", "tool_calls": [call("r1", "bash", json!({"command": "cat textkit/slug.py"}))]},
        {"role": "tool", "tool_call_id": "r1", "content": "import re\n\ndef slugify(title):\n    return _NON_ALNUM.sub(\"-\", title.lower())\n"},
        {"role": "assistant", "content": "", "tool_calls": [call("e1", "bash", json!({"command": "sed -i 's/lower())/lower()).strip(\"-\")/' textkit/slug.py"}))]},
        {"role": "tool", "tool_call_id": "e1", "content": ""},
        {"role": "assistant", "content": "", "tool_calls": [call("t1", "bash", json!({"command": "python -m pytest -q"}))]},
        {"role": "tool", "tool_call_id": "t1", "content": "1 failed, 5 passed"},
        {"role": "assistant", "content": "", "tool_calls": [call("t2", "bash", json!({"command": "python -m pytest -q -x"}))]},
        {"role": "tool", "tool_call_id": "t2", "content": "1 failed, 5 passed"},
        {"role": "assistant", "content": "Checking whether it also fails on the original code."},
    ]));
    let f = *of_kind(&a, &[Subkind::Anaphoric])
        .first()
        .expect("'the original code' is a reference");
    assert_eq!(f.antecedent.map(|l| l.turn), Some(2), "{f:#?}");
}

#[test]
fn a_description_that_introduces_a_list_is_not_a_reference() {
    let a = analyse(json!([
        {"role": "user", "content": "Upgrade my reservation FQ8APE to economy."},
        {"role": "assistant", "content": "Your reservation has been upgraded. Here are the updated details:\n\n- **Cabin**: Economy\n- **Flights**: EWR to IAH"},
        {"role": "user", "content": "Did you keep the updated seat I asked for?"},
    ]));
    let found = turns_and_texts(&a, &[Subkind::Anaphoric]);
    // The details follow in the same turn; the seat was set earlier.
    assert_eq!(found, vec![(2, "the updated seat")], "{found:?}");
}

#[test]
fn the_same_kind_of_failure_keeps_the_earlier_error_live() {
    let pytest = |id: &str| call(id, "bash", json!({"command": "python -m pytest -q"}));
    let a = analyse(json!([
        {"role": "user", "content": "The tests fail after the upgrade."},
        {"role": "assistant", "content": "", "tool_calls": [pytest("p1")]},
        {"role": "tool", "tool_call_id": "p1", "content": "ImportError: cannot import name 'escape' from 'jinja2'"},
        {"role": "assistant", "content": "`escape` moved to markupsafe; fixing the import.", "tool_calls": [call("e1", "bash", json!({"command": "sed -i s/jinja2/markupsafe/ render.py"}))]},
        {"role": "tool", "tool_call_id": "e1", "content": ""},
        {"role": "assistant", "content": "", "tool_calls": [call("l1", "bash", json!({"command": "ls"}))]},
        {"role": "tool", "tool_call_id": "l1", "content": "render.py"},
        {"role": "assistant", "content": "", "tool_calls": [call("l2", "bash", json!({"command": "ls -a"}))]},
        {"role": "tool", "tool_call_id": "l2", "content": "render.py"},
        {"role": "assistant", "content": "", "tool_calls": [pytest("p2")]},
        {"role": "tool", "tool_call_id": "p2", "content": "ImportError: cannot import name 'Markup' from 'jinja2'"},
        {"role": "assistant", "content": "Same kind of failure: `Markup` moved as well."},
    ]));
    let f = *of_kind(&a, &[Subkind::Anaphoric])
        .first()
        .expect("'Same kind of failure' is a reference");
    // Bound to the failure at hand (turn 10); the earlier one it compares with stays live.
    assert_eq!(f.antecedent.map(|l| l.turn), Some(10), "{f:#?}");
    assert!(f.candidates.contains(&2), "{:?}", f.candidates);
    assert_eq!(a.analysis.turns[2].verdict, trajlint::gate::Verdict::Live);
}

#[test]
fn what_a_sentence_introduces_the_turns_calls_must_still_do() {
    let convo = |text: &str, command: &str| {
        json!([
            {"role": "user", "content": "Fix the division."},
            {"role": "assistant", "content": text,
             "tool_calls": [call("c1", "bash", json!({"command": command}))]},
            {"role": "tool", "tool_call_id": "c1", "content": ""},
        ])
    };
    // The sed does the fix it introduces: narration.
    let a = analyse(convo(
        "Let me fix the division in the parser:\n\n```bash\nsed -i 's/a\\/b/a \\/ b/' parser.py\n```",
        "sed -i 's/a\\/b/a \\/ b/' parser.py",
    ));
    assert!(commitments(&a).is_empty(), "{:#?}", commitments(&a));
    // Submitting a diff does not verify that the division works.
    let a = analyse(convo(
        "Now let's verify that the updated file works correctly for the division by zero case:\n\n```bash\necho SUBMIT && git diff --cached\n```",
        "echo SUBMIT && git diff --cached",
    ));
    let owed = commitments(&a);
    assert_eq!(owed.len(), 1, "{owed:#?}");
    assert_eq!(owed[0].status, Status::Open);
}

#[test]
fn a_pronoun_whose_sentence_names_its_referent_is_not_a_reference() {
    let a = analyse(json!([
        {"role": "user", "content": "The build fails on CI."},
        {"role": "assistant", "content": "Let me run the build script to see if it fails here too.",
         "tool_calls": [call("c1", "bash", json!({"command": "./build.sh"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "error: linker not found"},
        {"role": "assistant", "content": "Now that we know the linker is missing, I'll install it."},
        {"role": "user", "content": "Ok. Is there a way to cancel it?"},
        {"role": "assistant", "content": "Sorry, can you check that?"},
    ]));
    let pronouns: Vec<&str> = of_kind(&a, &[Subkind::Pronoun])
        .iter()
        .map(|f| f.text.as_str())
        .collect();
    // "it" stands for the build script of its own sentence; "Now that we" opens a clause.
    // "a way to cancel it" introduces a way, not what "it" is; "check that" points back.
    assert_eq!(pronouns, ["cancel it", "check that"], "{pronouns:?}");
}

#[test]
fn a_shell_command_that_changes_files_does_what_it_narrates() {
    let a = analyse(json!([
        {"role": "user", "content": "Fix the rounding bug."},
        {"role": "assistant", "content": "The fix works. Let's remove the reproduce.py file since it is no longer needed.",
         "tool_calls": [call("c1", "bash", json!({"command": "rm reproduce.py"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
    ]));
    assert!(commitments(&a).is_empty(), "{:#?}", commitments(&a));
}

#[test]
fn try_to_do_one_thing_and_see_another_owes_the_second() {
    let a = analyse(json!([
        {"role": "user", "content": "The build cannot load its cache."},
        {"role": "assistant", "content": "Let's try to manually create the build directory and see if that resolves the issue.",
         "tool_calls": [call("c1", "bash", json!({"command": "mkdir -p build/release"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
    ]));
    // "try to" is not a purpose clause: the mkdir creates the directory, the check is owed.
    let owed = commitments(&a);
    assert_eq!(owed.len(), 1, "{owed:#?}");
    assert_eq!(owed[0].status, Status::Open);
}

#[test]
fn a_sentence_ending_in_a_colon_names_the_calls_that_follow() {
    let edit = json!({"file_path": "lib/runner.ex", "old_string": "x", "new_string": "_x"});
    let a = analyse(json!([
        {"role": "user", "content": "Credo complains about the runner."},
        {"role": "assistant", "content": "Let me make the function safer:",
         "tool_calls": [call("c1", "Edit", edit.clone())]},
        {"role": "tool", "tool_call_id": "c1", "content": "The file lib/runner.ex has been updated."},
        {"role": "assistant", "content": "Let me make the function safer.",
         "tool_calls": [call("c2", "Edit", edit)]},
        {"role": "tool", "tool_call_id": "c2", "content": "The file lib/runner.ex has been updated."},
    ]));
    // With the colon the Edit is what the sentence names; without it, "make … safer" names no
    // known kind of action and stays owed (conservative).
    let owed = commitments(&a);
    assert_eq!(owed.len(), 1, "{owed:#?}");
    assert_eq!(owed[0].turn, 3);
}

#[test]
fn these_or_those_with_any_noun_said_before_is_a_reference() {
    let a = analyse(json!([
        {"role": "user", "content": "Which LiveView modules render panes?"},
        {"role": "assistant", "content": "Let me list them.",
         "tool_calls": [call("c1", "bash", json!({"command": "ls lib/web/live"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "pane_view_live.ex\nsession_live.ex"},
        {"role": "assistant", "content": "Now I will read these LiveView modules one by one."},
        {"role": "user", "content": "Then mark the timestamps and take screenshots of those frames."},
        {"role": "assistant", "content": "I wrote a helper that checks the layout."},
    ]));
    let refs: Vec<&Fact> = of_kind(&a, &[Subkind::Anaphoric]);
    let texts: Vec<&str> = refs.iter().map(|f| f.text.as_str()).collect();
    // "modules" was said two turns back; "frames" never was; "that checks" is a verb phrase.
    assert_eq!(texts, ["these LiveView modules"], "{texts:?}");
    assert_eq!(refs[0].status, Status::Bound);
}

#[test]
fn steps_for_the_reader_and_reports_of_work_done_are_not_plans() {
    let a = analyse(json!([
        {"role": "user", "content": "Make a 2048 game."},
        {"role": "assistant", "content": "I created game.py. To run the game, you would need to:\n1. Install the keyboard package\n2. Run `python game.py`\n3. Use the arrow keys"},
        {"role": "assistant", "content": "Here is what changed:\n1. We defined a function `detect_language`\n2. We added a fallback for unknown input\n3. Tested both paths"},
        {"role": "assistant", "content": "Next:\n1. Install the keyboard package\n2. Run the game"},
    ]));
    let steps = of_kind(&a, &[Subkind::PlanStep]);
    // Only the agent's own list of next steps is a plan.
    let turns: Vec<usize> = steps.iter().map(|f| f.turn).collect();
    assert_eq!(turns, [3, 3], "{steps:#?}");
}

const REPORT_LINE: &str = "- `Tmux.list_panes/0` returns `{:error, reason}` when tmux is absent.\n";

#[test]
fn a_set_read_one_record_at_a_time_is_owed_to_the_records_that_follow() {
    let read = |id: &str, path: &str| call(id, "Read", json!({ "file_path": path }));
    let a = analyse(json!([
        {"role": "user", "content": "Explain how panes are listed: lib/tmux.ex, lib/registry.ex."},
        {"role": "assistant", "content": "Let me read all the key files you've specified.",
         "tool_calls": [read("c1", "/w/lib/tmux.ex")]},
        {"role": "tool", "tool_call_id": "c1", "content": "defmodule Tmux do\nend"},
        {"role": "assistant", "content": "", "tool_calls": [read("c2", "/w/lib/registry.ex")]},
        {"role": "tool", "tool_call_id": "c2", "content": "defmodule Registry do\nend"},
    ]));
    let owed = commitments(&a);
    assert_eq!(owed.len(), 1, "{owed:#?}");
    // The second read performs the rest of the set.
    assert_eq!(owed[0].resolved_by.map(|l| l.turn), Some(3));
}

#[test]
fn the_final_report_delivers_what_the_opening_turn_took_on() {
    let edit = call(
        "c1",
        "str_replace_editor",
        json!({"command": "create", "path": "/w/game.py", "file_text": "print(2048)"}),
    );
    let a = analyse(json!([
        {"role": "user", "content": "Make a 2048 game."},
        {"role": "assistant", "content": "I'll help you create a simple 2048 game in Python.", "tool_calls": [edit]},
        {"role": "tool", "tool_call_id": "c1", "content": "File created successfully at: /w/game.py"},
        {"role": "assistant", "content": format!("I've created the game.\n\n{}", REPORT_LINE.repeat(8))},
    ]));
    let owed = commitments(&a);
    assert_eq!(owed.len(), 1, "{owed:#?}");
    assert_eq!(owed[0].resolved_by.map(|l| l.turn), Some(3));
}

#[test]
fn a_sentence_that_looks_ahead_does_not_perform_what_it_names() {
    let a = analyse(json!([
        {"role": "user", "content": "Find the lowest price of a house sold in Queen Anne in January 2023."},
        {"role": "assistant", "content": "Plan:\n1. Search Zillow for January 2023 sales.\n2. Cross-reference the sale data against county property records."},
        {"role": "assistant", "content": "WebSurfer can help to access more specific sale data from county property records."},
        {"role": "assistant", "content": "I cross-referenced the sale data with the county property records: they agree."},
    ]));
    let step = of_kind(&a, &[Subkind::PlanStep])
        .into_iter()
        .find(|f| f.text.starts_with("Cross-reference"))
        .expect("the cross-reference step");
    // Discharged by the report of turn 3, not by what turn 2 says someone can do.
    assert_eq!(step.resolved_by.map(|l| l.turn), Some(3), "{step:#?}");
}

#[test]
fn saying_or_writing_does_not_run_anything() {
    let long = REPORT_LINE.repeat(8);
    let edit = call(
        "c1",
        "edit",
        json!({"path": "src/units.py", "old": "1000", "new": "1024"}),
    );
    let a = analyse(json!([
        {"role": "user", "content": "Fix the KiB threshold."},
        // The opener promises a run; the final report below does not perform it.
        {"role": "assistant", "content": "I'll run the full test suite first."},
        // "reported" is not a report to write: the whole commitment stays owed.
        {"role": "assistant", "content": format!("I'll fix the bug reported in #12 and run the tests.\n\n{long}")},
        // A write does not make the tests pass.
        {"role": "assistant", "content": "Let me update the threshold, then make sure the tests pass.", "tool_calls": [edit]},
        {"role": "tool", "tool_call_id": "c1", "content": "File updated."},
        {"role": "assistant", "content": format!("Summary of the change:\n\n{long}")},
    ]));
    let open: Vec<usize> = commitments(&a)
        .iter()
        .filter(|f| f.status == Status::Open)
        .map(|f| f.turn)
        .collect();
    assert_eq!(open, [1, 2, 3], "{:#?}", commitments(&a));
}

#[test]
fn a_promised_report_is_delivered_by_the_turn_that_writes_it() {
    let report = "## Findings\n\n".to_string()
        + &"- `list_panes/0` returns `{:error, reason}` when tmux is not running.\n".repeat(8);
    // Promised and written in the same turn: narration.
    let a = analyse(json!([
        {"role": "user", "content": "How does list_panes handle errors?"},
        {"role": "assistant", "content": format!("I have what I need. Let me compile the recommendations.\n\n{report}")},
    ]));
    assert!(commitments(&a).is_empty(), "{:#?}", commitments(&a));
    // Promised first, written by a later turn: discharged there.
    let a = analyse(json!([
        {"role": "user", "content": "How does list_panes handle errors?"},
        {"role": "assistant", "content": "Now let me create a comprehensive summary. Let me also check the rescue clauses:",
         "tool_calls": [call("c1", "bash", json!({"command": "grep -A 10 rescue lib/tmux.ex"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "rescue\n  e in ErlangError -> {:error, e}"},
        {"role": "assistant", "content": format!("Here is the report:\n\n{report}")},
    ]));
    let owed = commitments(&a);
    assert_eq!(owed.len(), 1, "{owed:#?}");
    assert_eq!(owed[0].status, Status::Discharged, "{owed:#?}");
    assert_eq!(owed[0].resolved_by.map(|l| l.turn), Some(3));
}

#[test]
fn a_demonstrative_with_a_shell_noun_points_back() {
    let a = analyse(json!([
        {"role": "user", "content": "My flight HAT045 was delayed and I missed a meeting."},
        {"role": "assistant", "content": "I'm sorry to hear about the delay."},
        {"role": "user", "content": "Honestly, this situation is a disaster for my business."},
    ]));
    let refs = of_kind(&a, &[Subkind::Anaphoric]);
    assert_eq!(refs.len(), 1, "{refs:#?}");
    assert_eq!(refs[0].text, "this situation");
    assert_eq!(refs[0].status, Status::Bound);
}

#[test]
fn object_pronouns_after_inflected_verbs_and_with_a_complement_point_back() {
    let a = analyse(json!([
        {"role": "user", "content": "I lost my reservation number."},
        {"role": "assistant", "content": "I can look up your reservations with your user ID."},
        {"role": "user", "content": "Yes, please look it up using my user ID."},
        {"role": "assistant", "content": "You have 4 checked bags on this reservation."},
        {"role": "user", "content": "I see, but could you just confirm it to me in numeric form?"},
        {"role": "assistant", "content": "Four (4) checked bags."},
        {"role": "user", "content": "Great, thanks for confirming that in numbers!"},
        {"role": "assistant", "content": "Please send me the reservation ID when you find it."},
        {"role": "user", "content": "Great, I'll do that as soon as I can."},
        {"role": "assistant", "content": "The ID you sent has only four characters."},
        {"role": "user", "content": "Oh, sorry about that. It is ZFA04Y."},
    ]));
    let turns: Vec<usize> = of_kind(&a, &[Subkind::Pronoun])
        .iter()
        .map(|f| f.turn)
        .collect();
    assert_eq!(turns, [2, 4, 6, 8, 10]);
}

#[test]
fn recent_events_point_at_the_turns_just_before() {
    let a = analyse(json!([
        {"role": "user", "content": "Find the 2024 season pass price."},
        {"role": "assistant", "content": "", "tool_calls": [call("c1", "web_search", json!({"query": "season pass price"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "Season passes: see the official site."},
        {"role": "assistant", "content": "Recent messages indicate that we have not located the price yet."},
    ]));
    let refs = of_kind(&a, &[Subkind::Anaphoric]);
    assert_eq!(refs.len(), 1, "{refs:#?}");
    assert_eq!(refs[0].text, "Recent messages");
    assert_eq!(refs[0].antecedent.map(|l| l.turn), Some(2));
}

#[test]
fn a_pronoun_after_a_sentence_naming_a_file_resolves_in_its_turn() {
    let a = analyse(json!([
        {"role": "user", "content": "Fix the TimeDelta rounding in fields.py."},
        {"role": "assistant", "content": "It looks like `fields.py` is not in the root. Let's use find_file to see where it is."},
        {"role": "assistant", "content": "The search returned nothing. Let's use find_file to see where it is."},
        {"role": "assistant", "content": "The fee was $245.50 (e.g. for bags). Let's check where it is."},
    ]));
    let turns: Vec<usize> = of_kind(&a, &[Subkind::Pronoun])
        .iter()
        .map(|f| f.turn)
        .collect();
    // Only where no earlier sentence of the turn named the file does "it" point back (an
    // amount or "e.g." names no file).
    assert_eq!(turns, [2, 3]);
}

#[test]
fn a_stand_in_noun_after_the_turns_first_sentence_points_inside_it() {
    let a = analyse(json!([
        {"role": "user", "content": "I want to change my flight."},
        {"role": "assistant", "content": "I can help. I'll need your user ID and the reservation ID. Could you please provide these details?"},
        {"role": "user", "content": "These details are in my email, one moment."},
    ]));
    let texts = turns_and_texts(&a, &[Subkind::Anaphoric]);
    // The user's opening "These details" points back; the assistant's points at its own list.
    assert_eq!(texts, [(2, "These details")]);
}

#[test]
fn a_failed_exact_match_is_a_null_result_and_persistent_errors_point_back_at_it() {
    let edit = call(
        "c1",
        "edit",
        json!({"path": "/workspace/src/App.tsx", "old": "<div>", "new": "<main>"}),
    );
    let a = analyse(json!([
        {"role": "user", "content": "Add a dark mode toggle."},
        {"role": "assistant", "content": "", "tool_calls": [edit]},
        {"role": "tool", "tool_call_id": "c1", "content": "No exact match found in /workspace/src/App.tsx for\n<div>"},
        {"role": "assistant", "content": "I apologize for the persistent errors. Let me view the file first."},
    ]));
    let found = nulls(&a);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].subkind, Subkind::NotFound);
    let refs = of_kind(&a, &[Subkind::Anaphoric]);
    assert_eq!(refs.len(), 1, "{refs:#?}");
    assert_eq!(refs[0].text, "the persistent errors");
}

#[test]
fn strong_cues_and_confirmations_point_back() {
    let a = analyse(json!([
        {"role": "user", "content": "Book the flight with my certificate."},
        {"role": "assistant", "content": "The total is $384.",
         "tool_calls": [call("c1", "calculate", json!({"expression": "158 + 226"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "384"},
        {"role": "assistant", "content": "The booking failed. The previous calculation might have been incorrect."},
        {"role": "user", "content": "It also lacks the missing colon, as I said."},
        {"role": "user", "content": "Everything looks great now."},
        {"role": "assistant", "content": "Done, the booking is confirmed."},
        {"role": "user", "content": "Thank you for taking care of that!"},
        {"role": "assistant", "content": "I removed the lock file.",
         "tool_calls": [call("c2", "bash", json!({"command": "rm .lock"}))]},
        {"role": "tool", "tool_call_id": "c2", "content": ""},
        {"role": "assistant", "content": "There was no output, so that must have worked."},
        {"role": "user", "content": "I understand it's a basic economy ticket, so no changes."},
    ]));
    let texts: Vec<&str> = of_kind(&a, &[Subkind::Anaphoric, Subkind::Pronoun])
        .iter()
        .map(|f| f.text.as_str())
        .collect();
    assert!(texts.contains(&"The previous calculation"), "{texts:?}");
    assert!(texts.contains(&"the missing colon"), "{texts:?}");
    assert!(
        texts.iter().any(|t| t.starts_with("Everything")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("care of that")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("that must have worked")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("understand it")),
        "{texts:?}"
    );
}

#[test]
fn a_step_after_then_that_the_call_names_is_done() {
    let a = analyse(json!([
        {"role": "user", "content": "The build cache is stale."},
        {"role": "assistant", "content": "Let's try to remove the `build` directory and then rebuild the runtime.",
         "tool_calls": [call("c1", "bash", json!({"command": "rm -rf build && make rebuild runtime"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]));
    assert!(commitments(&a).is_empty(), "{:#?}", commitments(&a));
}

#[test]
fn thanks_is_an_interjection_however_long() {
    let a = analyse(json!([
        {"role": "user", "content": "Book it."},
        {"role": "assistant", "content": "Your booking is complete: flight HAT097, seat 12C."},
        {"role": "user", "content": "Thank you so much for your help today. Everything looks great."},
    ]));
    let pronouns = of_kind(&a, &[Subkind::Pronoun]);
    assert_eq!(pronouns.len(), 1, "{pronouns:#?}");
    assert_eq!(pronouns[0].antecedent.as_ref().map(|l| l.turn), Some(1));
}

#[test]
fn a_date_a_day_later_and_a_submit_call_are_what_they_narrate() {
    let a = analyse(json!([
        {"role": "user", "content": "Move my flight one day later."},
        {"role": "assistant", "content": "I will now search for the cheapest economy option for a day later, on May 24, 2024.",
         "tool_calls": [call("c1", "search_direct_flight", json!({"origin": "EWR", "destination": "LAX", "date": "2024-05-24"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "[{\"flight_number\": \"HAT041\"}]"},
        {"role": "assistant", "content": "The fix works. Let's submit the changes using the `submit` command.",
         "tool_calls": [call("c2", "submit", json!({}))]},
        {"role": "tool", "tool_call_id": "c2", "content": "diff --git a/x b/x"},
    ]));
    assert!(commitments(&a).is_empty(), "{:#?}", commitments(&a));
}

#[test]
fn the_system_prompt_is_no_antecedent() {
    let a = analyse(json!([
        {"role": "system", "content": "You are an airline agent. Refunds go to the original payment method. Be concise."},
        {"role": "user", "content": "I want to cancel reservation 4WQ150."},
        {"role": "assistant", "content": "Your payment was a gift card ending 1234.",
         "tool_calls": [call("c1", "get_reservation_details", json!({"reservation_id": "4WQ150"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "{\"payment_history\": [{\"payment_id\": \"gift_card_1234\"}]}"},
        {"role": "user", "content": "Please refund it to my original payment."},
    ]));
    let refs = of_kind(&a, &[Subkind::Anaphoric]);
    assert_eq!(refs.len(), 1, "{refs:#?}");
    assert_ne!(refs[0].antecedent.as_ref().map(|l| l.turn), Some(0));
    assert!(!refs[0].candidates.contains(&0), "{:?}", refs[0].candidates);
}

#[test]
fn opening_a_file_does_not_navigate_in_it() {
    let a = analyse(json!([
        {"role": "user", "content": "TimeDelta rounds wrong."},
        {"role": "assistant", "content": "The issue suggests that we should look at line 1474 of the `fields.py` file to see if there is a rounding issue. Let's open the `fields.py` file and navigate to line 1474 to see the relevant code. First we should find the `fields.py` file in the repo.",
         "tool_calls": [call("c1", "bash", json!({"command": "ls -F"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "AUTHORS.rst\nsrc/\ntests/"},
    ]));
    // Listing the directory does not get anyone to line 1474: that is owed.
    let owed = commitments(&a);
    assert!(
        owed.iter().any(|f| f.terms.iter().any(|t| t == "1474")),
        "{owed:#?}"
    );
}

#[test]
fn the_original_thing_keeps_its_first_mention_live() {
    let a = analyse(json!([
        {"role": "user", "content": "Change my flight to a day later."},
        {"role": "assistant", "content": "Let me look up the reservation.",
         "tool_calls": [call("c1", "get_reservation_details", json!({"reservation_id": "4WQ150"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "{\"payment_history\": [{\"payment_id\": \"gift_card_1234\", \"amount\": 350}]}"},
        {"role": "assistant", "content": "The new flight costs $20 more."},
        {"role": "user", "content": "Is there a window seat?"},
        {"role": "assistant", "content": "Yes, 14A is free."},
        {"role": "user", "content": "Take it. Charge the difference to my credit card."},
        {"role": "assistant", "content": "Done: $20 charged to your credit card as the payment for the change."},
        {"role": "user", "content": "Thanks."},
        {"role": "assistant", "content": "You are welcome."},
        {"role": "user", "content": "And any refund later should go back to my original payment."},
    ]));
    let refs = of_kind(&a, &[Subkind::Anaphoric]);
    let original = refs
        .iter()
        .find(|f| f.text.contains("original payment"))
        .expect("a description");
    // The latest turn saying "payment" is turn 7; the original one is the history of turn 2.
    let live: Vec<usize> = original
        .candidates
        .iter()
        .copied()
        .chain(original.antecedent.as_ref().map(|l| l.turn))
        .collect();
    assert!(live.contains(&2), "{live:?}");
}

#[test]
fn a_listed_noun_counts_in_the_plural() {
    let a = analyse(json!([
        {"role": "user", "content": "Which modules import the parser?"},
        {"role": "assistant", "content": "The parser is imported by cli.py, api.py and jobs.py."},
        {"role": "user", "content": "I fixed cli.py myself. Please review the remaining modules."},
    ]));
    let texts: Vec<&str> = of_kind(&a, &[Subkind::Anaphoric])
        .iter()
        .map(|f| f.text.as_str())
        .collect();
    assert_eq!(texts, ["the remaining modules"], "{texts:?}");
}

#[test]
fn an_output_saved_to_a_file_for_a_later_read_is_owed_to_the_next_call_of_the_tool() {
    let a = analyse(json!([
        {"role": "user", "content": "Run the frontend tests."},
        {"role": "assistant", "content": null, "tool_calls": [
            call("c1", "Bash", json!({"command": "npx vitest run"}))]},
        {"role": "tool", "tool_call_id": "c1", "content":
            "<persisted-output>\nOutput too large (141KB). Full output saved to: /tmp/results/c1.txt\n\nPreview (first 2KB):\n RUN v4.0.18\n ✓ test/render.test.js (4 tests)"},
        {"role": "assistant", "content": "The preview shows passing tests so far."},
    ]));
    let retries = of_kind(&a, &[Subkind::ToolRetry]);
    assert_eq!(retries.len(), 1, "{:#?}", a.analysis.facts);
    assert_eq!(retries[0].turn, 2);
    assert!(retries[0].text.contains("Output too large"));
    assert_eq!(retries[0].status, Status::Open, "no later call yet");
    let b = analyse(json!([
        {"role": "assistant", "content": null, "tool_calls": [
            call("c1", "Bash", json!({"command": "ls -R"}))]},
        {"role": "tool", "tool_call_id": "c1", "content":
            "Output too long to show. Full output saved to /tmp/out.txt"},
        {"role": "assistant", "content": null, "tool_calls": [
            call("c2", "Bash", json!({"command": "tail -50 /tmp/out.txt"}))]},
        {"role": "tool", "tool_call_id": "c2", "content": "src/main.rs"},
    ]));
    let retries = of_kind(&b, &[Subkind::ToolRetry]);
    assert_eq!(retries.len(), 1, "{:#?}", b.analysis.facts);
    assert_eq!(retries[0].status, Status::Discharged);
    // A large output shown whole defers nothing.
    let c = analyse(json!([
        {"role": "assistant", "content": null, "tool_calls": [
            call("c1", "Bash", json!({"command": "cat notes.txt"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "The report was too large to email, so it was saved to the share."},
    ]));
    assert!(of_kind(&c, &[Subkind::ToolRetry]).is_empty());
}

#[test]
fn a_colon_after_two_actions_owes_the_one_its_call_does_not_do() {
    let a = analyse(json!([
        {"role": "user", "content": "Finish task 4."},
        {"role": "assistant", "content": "All green. Commit and close:", "tool_calls": [
            call("c1", "Bash", json!({"command": "git add -A && git commit -m 'feat: trace async jobs'"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "[main a23908c] feat: trace async jobs"},
        {"role": "assistant", "content": null, "tool_calls": [
            call("c2", "Bash", json!({"command": "bd close spotter-4te.4"}))]},
        {"role": "tool", "tool_call_id": "c2", "content": "Closed spotter-4te.4"},
        {"role": "assistant", "content": "Let me make the parser safer:", "tool_calls": [
            call("c3", "Edit", json!({"file_path": "src/parser.rs", "old_string": "unwrap()", "new_string": "?"}))]},
        {"role": "tool", "tool_call_id": "c3", "content": "The file src/parser.rs has been updated."},
    ]));
    let owed = commitments(&a);
    assert_eq!(owed.len(), 1, "{owed:#?}");
    assert_eq!(owed[0].turn, 1);
    assert_eq!(owed[0].text, "Commit and close:");
    assert_eq!(
        owed[0].status,
        Status::Discharged,
        "the close that follows does it"
    );
    assert_eq!(owed[0].resolved_by.map(|l| l.turn), Some(3));
}

#[test]
fn proceeding_with_the_update_is_done_by_the_update_not_by_a_lookup() {
    let a = analyse(json!([
        {"role": "user", "content": "Upgrade my reservation YAX4DR to business."},
        {"role": "assistant", "content": "The upgrade costs $600. Please confirm, and I'll proceed with the update."},
        {"role": "user", "content": "Yes, go ahead."},
        {"role": "assistant", "content": null, "tool_calls": [
            call("c1", "get_reservation_details", json!({"reservation_id": "YAX4DR"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "{\"reservation_id\": \"YAX4DR\", \"cabin\": \"economy\"}"},
        {"role": "assistant", "content": null, "tool_calls": [
            call("c2", "update_reservation_flights", json!({"reservation_id": "YAX4DR", "cabin": "business"}))]},
        {"role": "tool", "tool_call_id": "c2", "content": "{\"reservation_id\": \"YAX4DR\", \"cabin\": \"business\"}"},
    ]));
    let owed = commitments(&a);
    assert_eq!(owed.len(), 1, "{owed:#?}");
    assert_eq!(owed[0].status, Status::Discharged, "{owed:#?}");
    assert_eq!(
        owed[0].resolved_by.map(|l| l.turn),
        Some(5),
        "the update, not the lookup"
    );
}

#[test]
fn a_goal_is_met_by_the_change_made_so_unless_it_needs_a_run() {
    let a = analyse(json!([
        {"role": "user", "content": "Book JFK to SFO with my certificate and gift card."},
        {"role": "assistant", "content": null, "tool_calls": [
            call("c1", "think", json!({"thought": "I need to ensure the payment methods add up to the total cost of $833."}))]},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
        {"role": "assistant", "content": null, "tool_calls": [
            call("c2", "get_user_details", json!({"user_id": "mohamed_silva_9265"}))]},
        {"role": "tool", "tool_call_id": "c2", "content": "{\"payment_methods\": {\"certificate_1\": {\"amount\": 500}}}"},
        {"role": "assistant", "content": null, "tool_calls": [
            call("c3", "book_reservation", json!({"user_id": "mohamed_silva_9265",
                "payment_methods": [{"payment_id": "certificate_1", "amount": 500}, {"payment_id": "gift_card_2", "amount": 333}]}))]},
        {"role": "tool", "tool_call_id": "c3", "content": "{\"reservation_id\": \"HATHAT\"}"},
        {"role": "user", "content": "Also fix the rounding bug in the fare module."},
        {"role": "assistant", "content": "I'll fix the rounding in fare.py. After that I'll make sure the fare tests pass."},
        {"role": "assistant", "content": null, "tool_calls": [
            call("c4", "edit", json!({"path": "fare.py", "old_str": "int(total)", "new_str": "round(total, 2)"}))]},
        {"role": "tool", "tool_call_id": "c4", "content": "The file fare.py has been edited."},
    ]));
    let owed = commitments(&a);
    let status_of = |t: &str| {
        owed.iter()
            .find(|f| f.text.contains(t))
            .map(|f| (f.status, f.resolved_by.map(|l| l.turn)))
    };
    assert_eq!(
        status_of("payment methods add up"),
        Some((Status::Discharged, Some(5))),
        "the booking that pays, not the lookup: {owed:#?}"
    );
    assert_eq!(
        status_of("fare tests pass"),
        Some((Status::Open, None)),
        "an edit does not make tests pass: {owed:#?}"
    );
}

#[test]
fn a_word_every_call_holds_does_not_alone_tie_a_remark_to_an_empty_search() {
    let run = |reads: usize| {
        let mut m = vec![
            json!({"role": "user", "content": "Wire up tracing."}),
            json!({"role": "assistant", "content": null, "tool_calls": [
                call("g", "Bash", json!({"command": "grep -rn telemetry_bandit deps/opentelemetry/"}))]}),
            json!({"role": "tool", "tool_call_id": "g", "content": ""}),
        ];
        for k in 0..reads {
            let id = format!("r{k}");
            m.push(json!({"role": "assistant", "content": null, "tool_calls": [
                call(&id, "Read", json!({"file_path": format!("lib/opentelemetry/part{k}.ex")}))]}));
            m.push(
                json!({"role": "tool", "tool_call_id": id, "content": "defmodule Part do\nend"}),
            );
        }
        m.push(json!({"role": "assistant", "content": "The issue is that opentelemetry needs a tracer module."}));
        let a = analyse(Value::Array(m));
        of_kind(&a, &[Subkind::Empty])
            .first()
            .map(|f| f.status)
            .expect("the empty grep is a null result")
    };
    assert_eq!(run(0), Status::Incorporated, "a word of that search alone");
    assert_eq!(run(6), Status::Unincorporated, "a word of the whole run");
}

#[test]
fn an_opening_pronoun_after_an_adverb_a_belief_or_with_a_participle_points_back() {
    let a = analyse(json!([
        {"role": "user", "content": "I need to change my flight."},
        {"role": "assistant", "content": "The business fare for that flight is $1,200."},
        {"role": "user", "content": "Unfortunately, that's a bit above my budget."},
        {"role": "assistant", "content": "Which reservation do you mean?"},
        {"role": "user", "content": "I believe it's the one from JFK on May 17."},
        {"role": "assistant", "content": "You have two reservations on May 17."},
        {"role": "user", "content": "Just need them canceled."},
        {"role": "assistant", "content": "Do you have the confirmation email?"},
        {"role": "user", "content": "I must have left it somewhere else."},
        {"role": "assistant", "content": "Anything else I can help with?"},
        {"role": "user", "content": "I think that's all for now."},
        {"role": "assistant", "content": "We see that there's a setup.py file in the project."},
    ]));
    let found = turns_and_texts(&a, &[Subkind::Pronoun]);
    assert_eq!(
        found,
        [
            (2, "Unfortunately, that"),
            (4, "believe it"),
            (6, "need them"),
            (8, "left it"),
        ],
        "a closing (\"that's all\") and a complementizer (\"see that there's\") are not references"
    );
}

#[test]
fn that_before_a_quantifier_is_a_complementizer() {
    let a = analyse(json!([
        {"role": "user", "content": "Were the two generals at Buena Vista?"},
        {"role": "assistant", "content": "Two options: the muster rolls, or the battle report."},
        {"role": "user", "content": "There is no evidence that either one was at the battle."},
        {"role": "assistant", "content": "Then I will check that option first."},
    ]));
    let found = turns_and_texts(&a, &[Subkind::Anaphoric]);
    assert_eq!(found, [(3, "that option")]);
}

#[test]
fn this_task_before_a_call_on_an_id_shown_earlier_points_back_at_it() {
    let a = analyse(json!([
        {"role": "user", "content": "Work through the epic."},
        {"role": "assistant", "content": null, "tool_calls": [bash("c1", "bd show spotter-4te.3")]},
        {"role": "tool", "tool_call_id": "c1", "content": "spotter-4te.3: Instrument the hook controllers\nStatus: open"},
        {"role": "assistant", "content": "Let me mark this task as in progress:", "tool_calls": [
            bash("c2", "bd update spotter-4te.3 --status in_progress")]},
        {"role": "tool", "tool_call_id": "c2", "content": "Updated spotter-4te.3"},
        {"role": "assistant", "content": "Let me run this command:", "tool_calls": [bash("c3", "mix test")]},
        {"role": "tool", "tool_call_id": "c3", "content": "297 tests, 0 failures"},
    ]));
    let found: Vec<(usize, &str, Option<usize>)> = of_kind(&a, &[Subkind::Anaphoric])
        .iter()
        .map(|f| (f.turn, f.text.as_str(), f.antecedent.map(|l| l.turn)))
        .collect();
    assert_eq!(
        found,
        [(3, "this task", Some(2))],
        "'this command:' still introduces the call that follows"
    );
}

/// A Claude Code log: each line an assistant content block of message `id` (text or tool_use),
/// or a user line with the result of a call.
fn claude_code(lines: &[(&str, Value)]) -> trajlint::FileReport {
    let jsonl: String = lines
        .iter()
        .map(|(id, block)| {
            let line = if block["type"] == "tool_result" {
                json!({"type": "user", "message": {"role": "user", "content": [block]}})
            } else {
                json!({"type": "assistant",
                       "message": {"id": id, "role": "assistant", "content": [block]}})
            };
            line.to_string() + "\n"
        })
        .collect();
    process("session.jsonl", jsonl.as_bytes())
}

fn read(id: &str, path: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "Read", "input": {"file_path": path}})
}

fn result(id: &str, content: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": content})
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

#[test]
fn what_a_message_s_calls_leave_of_the_things_it_names_is_owed() {
    // semantics.md: "Let me check the config files and the priv directory" with calls reading
    // only config files: "the priv directory" is owed. Claude Code writes each call of the
    // message on its own line, its result between: the message's calls are read together.
    let owed = claude_code(&[
        ("m0", text("Let me look at the project.")),
        ("m0", read("t0", "mix.exs")),
        ("", result("t0", "defmodule Spotter.MixProject do")),
        (
            "m1",
            text("Now let me check the config files and priv directory:"),
        ),
        ("m1", read("t1", "config/dev.exs")),
        ("", result("t1", "import Config")),
        ("m1", read("t2", "config/test.exs")),
        ("", result("t2", "import Config")),
        (
            "m2",
            json!({"type": "tool_use", "id": "t3", "name": "Bash",
                      "input": {"command": "find priv -type f"}}),
        ),
        ("", result("t3", "priv/repo/migrations/1_init.exs")),
    ]);
    let traj = &owed.read.trajectories[0];
    assert_eq!(
        traj.turns[4].continues,
        Some(2),
        "the second Read is of message m1"
    );
    let facts: Vec<(usize, Status)> = owed.analyses[0]
        .facts
        .iter()
        .filter(|f| f.subkind == Subkind::SelfCommitment)
        .map(|f| (f.turn, f.status))
        .collect();
    assert_eq!(
        facts,
        [(2, Status::Discharged)],
        "the find of priv discharges it"
    );

    // Both things named are read by the message's calls: narration.
    let done = claude_code(&[
        (
            "m0",
            text("Let me read the router and dashboard live view for patterns."),
        ),
        ("m0", read("t0", "lib/web/router.ex")),
        ("", result("t0", "defmodule Web.Router do")),
        ("m0", read("t1", "lib/web/live/dashboard_live.ex")),
        ("", result("t1", "defmodule Web.DashboardLive do")),
    ]);
    assert!(
        done.analyses[0].facts.is_empty(),
        "{:?}",
        done.analyses[0].facts
    );
}

#[test]
fn a_way_around_this_points_back_and_a_pattern_like_this_colon_does_not() {
    let a = analyse(json!([
        {"role": "user", "content": "I want to cancel my flight."},
        {"role": "assistant", "content": "Basic economy tickets cannot be cancelled."},
        {"role": "user", "content": "Is there really no way around this?"},
        {"role": "assistant", "content": "Only with travel insurance."},
        {"role": "user", "content": "I will wait until that is resolved."},
        {"role": "assistant", "content": "Understood."},
        {"role": "user", "content": "Please format the dates like this: 2024-05-01."},
    ]));
    let found = turns_and_texts(&a, &[Subkind::Pronoun]);
    assert_eq!(found, [(2, "around this"), (4, "until that")]);
}

#[test]
fn a_task_level_opener_is_owed_until_a_later_turn_delivers_it() {
    let a = analyse(json!([
        {"role": "user", "content": "Add an MIT license to the repository."},
        {"role": "assistant", "content": "I'll add the MIT license to the repository. Let's start by creating the license file.",
         "tool_calls": [call("c1", "execute_bash", json!({"command": "touch LICENSE"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
        {"role": "assistant", "content": "Now the text.",
         "tool_calls": [call("c2", "str_replace_editor", json!({"command": "create", "path": "LICENSE", "file_text": "MIT License"}))]},
        {"role": "tool", "tool_call_id": "c2", "content": "File created successfully at: LICENSE"},
        {"role": "user", "content": "Now add a changelog."},
        {"role": "assistant", "content": "I'll add the changelog to the repository.",
         "tool_calls": [call("c3", "str_replace_editor", json!({"command": "create", "path": "CHANGELOG.md", "file_text": "# Changelog"}))]},
        {"role": "tool", "tool_call_id": "c3", "content": "File created successfully at: CHANGELOG.md"},
    ]));
    let owed: Vec<(usize, Status, Option<usize>)> = commitments(&a)
        .iter()
        .map(|f| (f.turn, f.status, f.resolved_by.as_ref().map(|l| l.turn)))
        .collect();
    // The second commitment is narrated by its own call: no "start by" makes it a whole task.
    assert_eq!(owed, [(1, Status::Discharged, Some(3))]);
}

#[test]
fn widening_a_search_that_found_nothing_records_it() {
    let a = analyse(json!([
        {"role": "user", "content": "Find the sync tests."},
        {"role": "assistant", "content": "Let me look for the sync tests.",
         "tool_calls": [call("c1", "Glob", json!({"pattern": "test/**/*sync_transcripts*"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "No files found"},
        {"role": "assistant", "content": "Let me search for test files more broadly:",
         "tool_calls": [call("c2", "Glob", json!({"pattern": "test/**/*.exs"}))]},
        {"role": "tool", "tool_call_id": "c2", "content": "test/sync_test.exs"},
    ]));
    let found: Vec<(usize, Status)> = nulls(&a).iter().map(|f| (f.turn, f.status)).collect();
    assert_eq!(found, [(2, Status::Incorporated)]);
}

#[test]
fn this_task_before_a_call_on_an_earlier_shown_id_points_back_and_this_command_does_not() {
    let a = analyse(json!([
        {"role": "user", "content": "Implement the epic."},
        {"role": "assistant", "content": "Let me look at the tasks.",
         "tool_calls": [bash("c1", "bd show spotter-a0y.3")]},
        {"role": "tool", "tool_call_id": "c1", "content": "spotter-a0y.3: Transcript tail worker [open]"},
        {"role": "assistant", "content": "All 386 tests pass. Let me close this task and commit.",
         "tool_calls": [bash("c2", "bd close spotter-a0y.3 --reason=done")]},
        {"role": "tool", "tool_call_id": "c2", "content": "Closed spotter-a0y.3"},
        {"role": "assistant", "content": "The task is closed in the tracker. Let me run this command to sync.",
         "tool_calls": [bash("c3", "bd sync spotter-a0y.3")]},
        {"role": "tool", "tool_call_id": "c3", "content": "synced"},
    ]));
    let found: Vec<(usize, &str, Option<usize>)> = of_kind(&a, &[Subkind::Anaphoric])
        .iter()
        .map(|f| {
            (
                f.turn,
                f.text.as_str(),
                f.antecedent.as_ref().map(|l| l.turn),
            )
        })
        .collect();
    assert_eq!(found, [(3, "this task", Some(2))]);
}

#[test]
fn the_closing_report_s_lists_describe_and_only_its_headed_next_steps_are_a_plan() {
    let a = analyse(json!([
        {"role": "user", "content": "Explain the hook scripts."},
        {"role": "assistant", "content": "Let me read them.",
         "tool_calls": [call("c1", "Read", json!({"file_path": "scripts/notify.sh"}))]},
        {"role": "tool", "tool_call_id": "c1", "content": "#!/bin/bash\njq -r .session_id"},
        {"role": "assistant", "content": "## How the scripts work\n\n1. Read JSON from stdin using `jq`\n2. Extract the session id\n3. Post it to the server\n\n## Next steps\n\n1. Add a retry to the post\n2. Log failures"},
    ]));
    let steps = turns_and_texts(&a, &[Subkind::PlanStep]);
    assert_eq!(
        steps,
        [(3, "Add a retry to the post"), (3, "Log failures")],
        "the report's description of the script is not a plan"
    );
}

#[test]
fn an_interrupt_after_a_command_s_result_is_leaving_and_one_instead_of_it_is_a_failure() {
    let log = "# aider chat started at 2024-08-15 14:43:28\n\n#### /diff  \n> Diff since 1567d3e...  \n>  \n> ^C again to exit  \n>  \n> ^C KeyboardInterrupt  \n\n# aider chat started at 2024-08-15 14:50:00\n\n#### /add **  \n>  \n> ^C again to exit  \n>  \n> ^C KeyboardInterrupt  \n";
    let report = process("chat.md", log.as_bytes());
    let traj = &report.read.trajectories[0];
    let failed: Vec<&str> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| f.subkind == Subkind::Error)
        .map(|f| {
            let command = traj.turns[..f.turn].iter().rev().find(|t| t.has_text());
            command.map_or("", |t| t.segments[0].text.text.as_str())
        })
        .collect();
    assert_eq!(failed, ["/add **"], "only the interrupted /add failed");
}

#[test]
fn a_run_cut_short_by_the_interrupt_and_a_declined_edit_are_failures() {
    let log = "# aider chat started at 2024-08-15 14:43:28\n\n#### run the io tests  \n\nRun them with:\n\n```bash\npython -m unittest tests/basic/test_io.py\n```\n\n> python -m unittest tests/basic/test_io.py  \n> Run shell command? [Y/n] y  \n> Running python -m unittest tests/basic/test_io.py  \n>  \n>  \n> ^C again to exit  \n>  \n>  \n> ^C KeyboardInterrupt  \n\n#### add a helper  \n\npython\n```python\n<<<<<<< SEARCH\n=======\ndef helper(): pass\n>>>>>>> REPLACE\n```\n\n> python  \n> Create new file? [Y/n] n  \n> Skipping edits to python  \n";
    let report = process("chat.md", log.as_bytes());
    let failed: Vec<&str> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| f.subkind == Subkind::Error)
        .map(|f| f.text.as_str())
        .collect();
    assert_eq!(
        failed,
        ["^C KeyboardInterrupt", "Skipping edits to python"],
        "{failed:#?}"
    );
}

#[test]
fn a_linter_s_findings_are_a_failure_and_a_grep_s_matches_are_not() {
    let a = analyse(json!([
        {"role": "user", "content": "Check the types."},
        {"role": "assistant", "content": "Running dialyzer on the live view.",
         "tool_calls": [bash("c1", "mix dialyzer --format short 2>&1 | grep subagent_live")]},
        {"role": "tool", "tool_call_id": "c1", "content": "lib/web/subagent_live.ex:25:guard_fail The guard clause can never succeed."},
        {"role": "assistant", "content": "Where is the guard used?",
         "tool_calls": [bash("c2", "grep -rn guard_fail lib")]},
        {"role": "tool", "tool_call_id": "c2", "content": "lib/web/subagent_live.ex:25: when guard_fail"},
        // credo writes the place under the finding, with the function after a hash.
        {"role": "assistant", "content": "And the style checks.",
         "tool_calls": [bash("c3", "mix credo --strict 2>&1 | grep -E '^┃'")]},
        {"role": "tool", "tool_call_id": "c3", "content": "┃ \n┃ [R] ↘ The alias `LangChain.ChatModels.ChatAnthropic` is not alphabetically\n┃       ordered among its group.\n┃       lib/spotter/services/waiting_summary.ex:10:9 #(Spotter.Services.WaitingSummary)"},
    ]));
    let found: Vec<(usize, Subkind)> = nulls(&a).iter().map(|f| (f.turn, f.subkind)).collect();
    assert_eq!(found, [(2, Subkind::Error), (6, Subkind::Error)]);
}

#[test]
fn restating_a_plan_s_steps_or_working_on_them_does_not_perform_them() {
    let a = analyse(json!([
        {"role": "user", "content": "Which chapters do the paintings quote?"},
        {"role": "assistant", "content": "Plan:\n1. Locate the 2014 dissertation.\n2. Identify the titles of the paintings.\n3. Compute the difference between the chapter numbers."},
        {"role": "assistant", "content": "### Step 2: Identify the titles of the paintings\nOnce located, compute the difference between the chapter numbers."},
        {"role": "assistant", "content": "We are working on the same task: locating the 2014 dissertation. I can help once it is shared."},
    ]));
    let steps: Vec<Status> = of_kind(&a, &[Subkind::PlanStep])
        .iter()
        .map(|f| f.status)
        .collect();
    assert_eq!(steps, [Status::Open, Status::Open, Status::Open]);
}

#[test]
fn an_id_in_code_the_turn_writes_is_no_reference_even_across_its_paragraphs() {
    // Aider cuts an edit block at its blank lines: the token sits in a later piece of the code.
    let log = "# aider chat started at 2024-08-15 14:43:28\n\n#### set the project token to 6da9a43058a5d1b9f3353153921fb04d  \n\nCertainly! Here is the change:\n\naider/analytics.py\n```python\n<<<<<<< SEARCH\nclass Analytics:\n\n    def __init__(self):\n        project_token = None\n=======\nclass Analytics:\n\n    def __init__(self):\n        project_token = \"6da9a43058a5d1b9f3353153921fb04d\"\n>>>>>>> REPLACE\n```\n\nThe token 6da9a43058a5d1b9f3353153921fb04d is now set.\n";
    let report = process("chat.md", log.as_bytes());
    let prose_at = log.find("The token").unwrap();
    let ids: Vec<bool> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| f.subkind == Subkind::Identifier)
        .map(|f| f.span.start > prose_at)
        .collect();
    assert_eq!(
        ids,
        [true],
        "only the id in prose: {:?}",
        report.analyses[0].facts
    );
}

/// A Who&When (AG2 group chat) log of these (speaker, text) messages.
fn group_chat(messages: &[(&str, &str)]) -> trajlint::FileReport {
    let history: Vec<Value> = messages
        .iter()
        .map(|(name, content)| json!({"content": content, "name": name, "role": "assistant"}))
        .collect();
    let log = json!({"is_correct": false, "question": "Which home sold for more?",
                     "question_ID": "q1", "level": "1", "ground_truth": "x",
                     "history": history});
    process("chat.json", log.to_string().as_bytes())
}

#[test]
fn work_handed_to_a_participant_is_done_by_that_participant() {
    let report = group_chat(&[
        ("Manager", "Find which of the two homes sold for more."),
        ("Analysis_Expert", "Here is the plan:\n\n1. **RealEstate_Expert:** Please gather the 2022 sale prices of both homes.\n2. **Archive_Expert:** Please check the county archive for the deeds."),
        ("RealEstate_Expert", "Here are the 2022 sale prices of both homes:\n\n1. **2072 Akaikai Loop:**\n   - Sold for $850,000\n2. **2017 Komo Mai Drive:**\n   - Sold for $950,000"),
        ("Analysis_Expert", "The second home sold for more. TERMINATE"),
    ]);
    let steps: Vec<(usize, &str, Status)> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| f.subkind == Subkind::PlanStep)
        .map(|f| (f.turn, f.text.as_str(), f.status))
        .collect();
    // The archive expert never speaks: its step stays owed even though a later turn says
    // "sold" and "homes"; the sale prices listed under "Here are …:" are data, not a plan.
    assert_eq!(
        steps,
        [
            (
                1,
                "**RealEstate_Expert:** Please gather the 2022 sale prices of both homes.",
                Status::Discharged
            ),
            (
                1,
                "**Archive_Expert:** Please check the county archive for the deeds.",
                Status::Open
            ),
        ],
        "{steps:#?}"
    );
}

#[test]
fn an_object_it_after_a_few_function_words_points_back() {
    let a = analyse(json!([
        {"role": "assistant", "content": "You ordered a blue kettle last week."},
        {"role": "user", "content": "I'd like to return it for a refund."},
        {"role": "assistant", "content": "Is the trip one-way or round-trip?"},
        {"role": "user", "content": "2. It's one-way."},
        {"role": "assistant", "content": "Which order holds the lamp?"},
        {"role": "user", "content": "I'm not sure which one it is."},
        // Not: the sentence names a thing first, the turn's first sentence did, too many
        // content words come first, an idiom, an expletive.
        {"role": "user", "content": "I'd like to return the kettle and replace it."},
        {"role": "assistant", "content": "Need `serde_json` crate. Let me add it."},
        {"role": "assistant", "content": "Travel insurance typically covers weather delays, but it excludes changes."},
        {"role": "user", "content": "Okay, got it."},
        {"role": "user", "content": "Honestly it seems fine."},
    ]));
    let turns: Vec<usize> = of_kind(&a, &[Subkind::Pronoun])
        .iter()
        .map(|f| f.turn)
        .collect();
    assert_eq!(turns, [1, 3, 5]);
}

#[test]
fn this_task_after_the_turn_s_own_work_points_at_the_task_as_given() {
    let a = analyse(json!([
        {"role": "user", "content": "Task: compute the sum of the squares of the even numbers in a list."},
        {"role": "assistant", "content": "The list holds the numbers from 0 to 10."},
        {"role": "assistant", "content": "Here is the script:\n\n```python\nprint(sum(n * n for n in range(0, 11, 2)))\n```\n\nThe tests pass, so we can consider this task complete."},
        {"role": "assistant", "content": "Here is the script:\n\n```python\nprint(1)\n```\n\nThe tests pass, so this change is complete."},
    ]));
    let refs = of_kind(&a, &[Subkind::Anaphoric]);
    // "this change" is the turn's own code; "this task" is the one the user gave.
    assert_eq!(refs.len(), 1, "{refs:#?}");
    assert_eq!(refs[0].text, "this task");
    assert_eq!(refs[0].antecedent.map(|l| l.turn), Some(0));
    // Nothing else is kept for it: the work just before is not the task.
    assert_eq!(
        a.analysis.turns[1].verdict,
        trajlint::gate::Verdict::Quiescent
    );
}

#[test]
fn a_noun_of_action_is_done_by_its_kind_and_dropped_by_its_kind() {
    let offer = |reply: Value| {
        analyse(json!([
            {"role": "user", "content": "Can I move my flight to May 12?"},
            {"role": "assistant", "content": "Please pick one of the flights above, and I will proceed with the modification."},
            reply,
        ]))
    };
    let status = |a: &Annotated| commitments(a).iter().map(|f| f.status).collect::<Vec<_>>();
    // "modification" is the action "modify": the update call performs it.
    let updated = offer(json!({"role": "assistant", "content": null, "tool_calls": [
        call("c1", "update_reservation_flights", json!({"reservation_id": "ZFA04Y", "flights": ["HAT072"]}))]}));
    assert_eq!(status(&updated), [Status::Discharged]);
    // The user holds off on making any changes: the modification is dropped.
    let held = offer(
        json!({"role": "user", "content": "I think I'll hold off on making any changes for now."}),
    );
    assert_eq!(status(&held), [Status::Discharged]);
    // A reply about something else leaves it owed.
    let other = offer(json!({"role": "user", "content": "What is the baggage allowance?"}));
    assert_eq!(status(&other), [Status::Open]);
}

/// A promise made while waiting on the user, then a call of the kind of action it names, though
/// the call shares none of its words.
#[test]
fn a_call_of_the_kind_an_owed_action_names_performs_it() {
    for (promise, act) in [
        // A word that names the kind of action ("verification") is no object a call must
        // share: any test run verifies.
        ("Once the migration lands, I'll proceed with the verification.", bash("c1", "mix test")),
        // Looking the user up authenticates them.
        (
            "First, I need to authenticate your identity. Could you provide your email?",
            call("c1", "find_user_id_by_email", json!({"email": "mia.garcia@example.com"})),
        ),
        // A calculator call does the calculation.
        (
            "I will calculate the costs for different combinations of flights once you pick the dates.",
            call("c1", "calculate", json!({"expression": "(399 + 165) * 2 - (126 + 139) * 2"})),
        ),
    ] {
        let a = analyse(json!([
            {"role": "user", "content": "Can you help me with my booking?"},
            {"role": "assistant", "content": promise},
            {"role": "user", "content": "Sure, go ahead."},
            {"role": "assistant", "content": null, "tool_calls": [act]},
        ]));
        let owed = commitments(&a);
        assert_eq!(owed.len(), 1, "{promise}: {owed:#?}");
        assert_eq!(owed[0].status, Status::Discharged, "{promise}");
        assert_eq!(owed[0].resolved_by.map(|l| l.turn), Some(3), "{promise}");
    }
}

/// Aider: code in a fenced block is no prose, blank lines inside it or not; an action with a
/// purpose ("mock X to ensure Y") is the mocking the turn's own SEARCH/REPLACE blocks do.
#[test]
fn aider_code_is_no_prose_and_an_edit_does_what_its_blocks_write() {
    let log = "# aider chat started at 2024-08-15 14:43:28\n\n#### /ask how would you split get_files_messages?  \n\nHere's how we can refactor this:\n\n```python\ndef get_readonly_files_messages(self):\n    readonly_messages = []\n\n    return [\n        dict(\n            role=\"assistant\",\n            content=\"Ok, I will use these files as references.\",\n        ),\n    ]\n```\n\nThis keeps each kind of file apart.\n\n#### add a test for map tokens 0  \n\nWe'll mock the `RepoMap` class to ensure it's not called when the map tokens are 0. Here are the changes:\n\ntests/basic/test_main.py\n```python\n<<<<<<< SEARCH\nclass TestMain(TestCase):\n=======\nclass TestMain(TestCase):\n    def test_map_tokens_zero(self):\n        with patch(\"aider.repomap.RepoMap\") as MockRepoMap:\n\n            main([\"--map-tokens\", \"0\"])\n            MockRepoMap.assert_not_called()\n>>>>>>> REPLACE\n```\n\n> Applied edit to tests/basic/test_main.py  \n";
    let report = process("chat.md", log.as_bytes());
    let facts: Vec<(Subkind, &str)> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| {
            !matches!(
                f.subkind,
                Subkind::Error | Subkind::Empty | Subkind::NotFound
            )
        })
        .map(|f| (f.subkind, f.text.as_str()))
        .collect();
    assert_eq!(facts, [], "{facts:#?}");
}

/// The verb of an action is before its purpose ("collect X to analyze Y" collects), but "try
/// to" is no purpose: its "to" completes the verb. Either way the turn's call does it.
#[test]
fn a_try_to_completes_its_verb_and_a_purpose_clause_does_not_name_the_action() {
    for (narration, command) in [
        (
            "We will first try to examine the files that are supplied with this challenge.",
            "file release",
        ),
        (
            "Let's collect a few more time capsules to analyze the data.",
            "nc crypto.chal.csaw.io 5000 < /dev/null",
        ),
    ] {
        let a = analyse(json!([
            {"role": "user", "content": "Solve the challenge."},
            {"role": "assistant", "content": narration, "tool_calls": [bash("c1", command)]},
        ]));
        assert_eq!(
            commitments(&a).len(),
            0,
            "{narration}: {:#?}",
            commitments(&a)
        );
    }
}

#[test]
fn this_command_after_the_turn_s_own_code_block_points_inside_the_turn() {
    // Aider gives each paragraph of a message its own segment: the block is an earlier one.
    let log = "# aider chat started at 2024-08-15 14:43:28\n\n#### how do I run the reset test?  \n\nYou can run it with unittest:\n\n```bash\npython -m unittest tests.basic.test_commands\n```\n\nThis command will run only the reset tests.\n\n#### does it work on Windows?  \n\nYes, this command works on Windows too.\n";
    let report = process("chat.md", log.as_bytes());
    let refs: Vec<&str> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| f.subkind == Subkind::Anaphoric)
        .map(|f| f.text.as_str())
        .collect();
    // The second has no block of its own turn to point at.
    assert_eq!(refs, ["this command"], "{refs:#?}");
    let second = log.rfind("this command").unwrap();
    let at: Vec<usize> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| f.subkind == Subkind::Anaphoric)
        .map(|f| f.span.start)
        .collect();
    assert_eq!(at, [second]);
}

#[test]
fn a_file_or_change_the_turn_shows_in_another_paragraph_is_its_own_and_a_slash_command_no_file() {
    let log = "# aider chat started at 2024-08-15 14:43:28\n\n#### which file sets the colors?  \n\nThe colors are most likely set in:\n\naider/io.py\n\nThis file holds the InputOutput class.\n\n> Added aider/io.py to the chat.  \n\n#### /ask this file is getting large. what should move out?  \n\nMove the prompt helpers to their own module.\n\n#### /code ok, do that  \n\nCertainly! Here's the proposed change:\n\naider/io.py\n```python\n<<<<<<< SEARCH\nimport os\n=======\nimport os\nfrom aider import prompts\n>>>>>>> REPLACE\n```\n";
    let report = process("chat.md", log.as_bytes());
    let refs: Vec<(usize, &str)> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| matches!(f.subkind, Subkind::Anaphoric | Subkind::Pronoun))
        .map(|f| (f.span.start, f.text.as_str()))
        .collect();
    let user_file = log.find("this file is getting").unwrap();
    let do_that = log.find("do that").unwrap();
    // "This file" after the path the turn names, and "the proposed change" before the edit
    // the turn shows, are the turn's own; the user's "this file" after "/ask" is the one added.
    assert_eq!(
        refs,
        [(user_file, "this file"), (do_that, "do that")],
        "{refs:#?}"
    );
}

#[test]
fn a_deferral_in_numbered_code_or_a_commit_subject_is_not_the_tool_s_and_a_note_after_it_is() {
    let a = analyse(json!([
        {"role": "user", "content": "Why does the retry test fail?"},
        {"role": "assistant", "content": "Let me lint it.", "tool_calls": [bash("c1", "flake8 tests/test_sendchat.py")]},
        {"role": "tool", "tool_call_id": "c1", "content": "tests/test_sendchat.py:43:9: F841 local variable 'result' is never used\n22│        mock.side_effect = [\n23│            RateLimitError(\n24│                \"rate limit exceeded\",\n43█        result = send(model, messages)"},
        {"role": "assistant", "content": "And the sender.", "tool_calls": [call("c2", "str_replace_editor", json!({"command": "view", "path": "/repo/send.py"}))]},
        {"role": "tool", "tool_call_id": "c2", "content": "     1\timport time\n     2\tdef send(model, messages):<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n`.</NOTE>"},
    ]));
    let retries = turns_and_texts(&a, &[Subkind::ToolRetry]);
    assert_eq!(retries.len(), 1, "{retries:#?}");
    assert_eq!(retries[0].0, 4, "the clipped view asks to be called again");
    // A commit's subject is its writer's words, not the tool deferring.
    let b = analyse(json!([
        {"role": "user", "content": "Show the last commits."},
        {"role": "assistant", "content": "Here they are.", "tool_calls": [bash("c1", "git log --oneline -2")]},
        {"role": "tool", "tool_call_id": "c1", "content": "608c804 feat: implement countdown for retry in 0.1-second increments\n1a2b3c4 fix: typo"},
    ]));
    assert!(of_kind(&b, &[Subkind::ToolRetry]).is_empty());
    let errors = turns_and_texts(&a, &[Subkind::Error]);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].1.contains("F841"), "{errors:#?}");
}

#[test]
fn a_model_overloaded_is_retried_by_the_next_message_to_the_model() {
    let log = "# aider chat started at 2024-08-06 14:00:00\n\n#### remove `cache_missing`  \n> Unexpected error: litellm.APIConnectionError: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}  \n\n#### remove `cache_missing`  \n\nCertainly! I'll remove it.\n\n#### and the docs?  \n> Unexpected error: litellm.InternalServerError: AnthropicException - Overloaded.  \n";
    let report = process("chat.md", log.as_bytes());
    let retries: Vec<(Status, Option<usize>)> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| f.subkind == Subkind::ToolRetry)
        .map(|f| (f.status, f.resolved_by.map(|l| l.turn)))
        .collect();
    let traj = &report.read.trajectories[0];
    let resent = traj
        .turns
        .iter()
        .enumerate()
        .filter(|(_, t)| t.has_text() && t.segments[0].text.text.contains("remove"))
        .nth(1)
        .map(|(k, _)| k);
    assert!(resent.is_some());
    // The first request is sent again; the last one, at the log's end, waits.
    assert_eq!(
        retries,
        [(Status::Discharged, resent), (Status::Open, None)],
        "{retries:#?}"
    );
}

#[test]
fn a_list_headed_in_the_paragraph_before_is_the_reader_s_steps_or_the_writer_s_plan() {
    // Aider gives each paragraph its own segment: the heading sentence is in the one before.
    let log = "# aider chat started at 2024-08-06 14:00:00\n\n#### how do i install pandas  \n\nUse pip. Here's how you can do it:\n\n1. Open your terminal.\n2. Run the following command:\n\n```bash\npip install pandas\n```\n\n#### add a test for --map-tokens  \n\nCertainly! Here's how we'll implement it:\n\n1. Add a test method called `test_map_tokens`.\n\n2. Mock the `RepoMap` class to check that it is called.\n";
    let report = process("chat.md", log.as_bytes());
    let steps: Vec<&str> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| f.subkind == Subkind::PlanStep)
        .map(|f| f.text.as_str())
        .collect();
    assert_eq!(
        steps,
        [
            "Add a test method called `test_map_tokens`.",
            "Mock the `RepoMap` class to check that it is called."
        ],
        "{steps:#?}"
    );
}

#[test]
fn aider_s_tag_fences_hold_their_code_across_a_blank_line_and_are_what_a_colon_introduces() {
    let log = "# aider chat started at 2024-08-06 14:00:00\n\n#### when a pasted image has a name already in the chat, replace the old one  \n\nCertainly! Here's the proposed change:\n\naider/commands.py\n<source>python\n<<<<<<< SEARCH\n        path = Path(name)\n=======\n        path = Path(name)\n\n        # Check if a file with the same name already exists in the chat\n        drop(path)\n>>>>>>> REPLACE\n</source>\n\nThis drops the old image first.\n";
    let report = process("chat.md", log.as_bytes());
    let refs: Vec<&str> = report.analyses[0]
        .facts
        .iter()
        .filter(|f| f.kind() == trajlint::extract::FactKind::Reference)
        .map(|f| f.text.as_str())
        .collect();
    // "Here's the proposed change:" introduces the block the next paragraph opens.
    assert!(refs.is_empty(), "{refs:#?}");
    // The block is one segment, its blank line and all: its comment is code, not prose.
    let traj = &report.read.trajectories[0];
    let block = traj
        .turns
        .iter()
        .flat_map(|t| &t.segments)
        .find(|s| s.text.text.contains("<source>python"))
        .unwrap();
    assert!(
        block.text.text.trim_end().ends_with("</source>"),
        "{block:#?}"
    );
}
