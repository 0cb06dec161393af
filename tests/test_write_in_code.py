"""The embedded model's write pass, all in code (memory.writer.IN_CODE_STAGES): promises opened
from the commitment reader with their due day and closed only on evidence, series counted by
meaning across passes, requests to act kept out of the facts. Cases of their own, none from an
eval set."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from memory import facts, meaning, promises, series, writer
from memory import messages as store

TZ = ZoneInfo("Europe/Berlin")

needs_meaning = pytest.mark.skipif(not meaning.available(), reason="meaning model package not installed")


class NoModel:
    """A memory model that must not be asked: the pass in code makes no call."""

    def __call__(self, **kwargs):
        raise AssertionError(f"the write pass in code asked the model: {kwargs.get('purpose')}")


def said(db, texts, day, *, role="user", author="me"):
    chat = store.get_chat(db, "me")
    for i, t in enumerate(texts):
        store.add_message(db, chat, role, author, t, datetime(2026, 11, day, 9, i, tzinfo=TZ))


def run(db, day):
    now = datetime(2026, 11, day, 20, 0, tzinfo=TZ)
    return writer.run_pass(db, NoModel(), cap=1500, max_active=200, force=True, in_code=True, now=now)


def ledger(db):
    return {p.what: p for p in promises.list_promises(db, (promises.OPEN, promises.DONE, promises.DROPPED))}


def test_the_embedded_models_stages_are_read_in_code():
    # The choice is made once, in the writer; the hosted path keeps the model's stages.
    assert writer.IN_CODE_STAGES[1] is promises.IN_CODE and writer.IN_CODE_STAGES[2] is series.IN_CODE
    assert promises in writer.STAGES and series in writer.STAGES


def test_a_promise_opens_from_code_with_to_whom_and_its_due_day(db):
    # 2026-11-02 is a Monday: "by Thursday" is due on the 5th, "tomorrow" on the 3rd.
    said(db, ["I'll send Aiko the venue shortlist by Thursday.", "Bram said he'll return the projector tomorrow."], 2)
    result = run(db, 2)
    assert result.extra["promises"]["opened"] == 2
    got = ledger(db)
    mine = got["send Aiko the venue shortlist"]
    assert (mine.who, mine.to_whom, mine.due_on, mine.opened_on) == ("me", "Aiko", "2026-11-05", "2026-11-02")
    theirs = got["return the projector"]
    assert (theirs.who, theirs.to_whom, theirs.due_on) == ("Bram", "me", "2026-11-03")


def test_a_promise_closes_only_on_evidence_about_the_same_thing(db):
    said(db, ["I'll send Aiko the venue shortlist by Thursday.", "I need to renew the boat licence this month."], 2)
    run(db, 2)
    # Not evidence: another delivery to another person, kept's own words, a new commitment.
    said(db, ["Sent the invoice to Omar."], 3)
    said(db, ["I sent Aiko the venue shortlist."], 3, role="assistant", author="kept")
    said(db, ["Will send Aiko the shortlist soon."], 3)
    run(db, 3)
    assert {p.status for p in ledger(db).values()} == {promises.OPEN}
    # Evidence: the person says it was done, about the same thing; and calls the other off.
    said(db, ["Sent Aiko the venue shortlist this morning."], 4)
    said(db, ["Never mind the licence, I'm selling the boat."], 5)
    run(db, 5)
    got = ledger(db)
    assert got["send Aiko the venue shortlist"].status == promises.DONE
    assert "Sent Aiko the venue shortlist" in (got["send Aiko the venue shortlist"].evidence or "")
    assert got["renew the boat licence"].status == promises.DROPPED


@needs_meaning
def test_a_series_is_counted_across_two_passes_without_a_model(db):
    # The first report says no "again": it is counted when its kind repeats. A question and a plan
    # of the same kind are no occurrences.
    said(db, ["Repotted the fig tree on the balcony.", "Should I repot the fig tree again?"], 2)
    said(db, ["Repotted the fig tree again, the roots were circling."], 4)
    run(db, 4)
    said(db, ["I'll repot the fig tree again in spring.", "Had to repot the fig tree once more."], 9)
    run(db, 9)
    kept = [s for s in series.all_series(db) if s.count]
    assert len(kept) == 1
    assert kept[0].dates == ["2026-11-02", "2026-11-04", "2026-11-09"]


@needs_meaning
def test_reports_of_another_kind_start_no_series_of_their_own_without_a_repeat(db):
    said(db, ["Repotted the fig tree on the balcony.", "Fixed the kitchen tap."], 2)
    said(db, ["Repotted the fig tree again."], 3)
    run(db, 3)
    (only,) = [s for s in series.all_series(db) if s.count]
    assert only.count == 2 and "tap" not in " ".join(only.texts)


def test_a_request_to_act_is_not_stored_as_a_fact(db):
    said(
        db,
        [
            "Set up a call with Ines about the Kestrel audit.",
            "帮我约一下李老师下周见面。",
            "Please book the Birch room, the Kestrel audit is on Thursday.",
            "The Kestrel audit team has four people.",
            "Paid the Kestrel audit deposit to Lumen Partners.",
            "我弟弟3月8号到上海，待一个星期。",
        ],
        2,
    )
    result = run(db, 2)
    active = [f.text for f in facts.by_status(db, facts.ACTIVE)]
    assert not any("Set up a call" in t or "李老师" in t or "Birch room" in t for t in active)
    # What the request states of the world is a clause of its own, and is kept.
    assert any(t.startswith("2026-11-02: The Kestrel audit is on Thursday") for t in active)
    assert "2026-11-02: The Kestrel audit team has four people." in active
    # A report opening with a past form is what was done, not a request ("Paid …", not "Pay …").
    assert "2026-11-02: Paid the Kestrel audit deposit to Lumen Partners." in active
    # A Chinese statement whose only Latin characters are its digits is read as Chinese: a statement.
    assert any("我弟弟3月8号到上海" in t for t in active)
    # The report says why the request was dropped.
    lines = result.extra["facts"]["decisions"]
    assert any("Set up a call" in line and "a request to act" in line for line in lines)


def test_a_request_clause_leaning_on_another_states_nothing_of_its_own():
    from memory.embedded_writer import world_clauses

    assert world_clauses("Schedule a call with Bo about the Tern lease, which ends on May 2.") == []
    assert world_clauses("Send Kai the agenda because the board meets on Monday.") == ["The board meets on Monday."]


def test_due_day_is_read_from_the_sentence_by_the_date_reader():
    from memory.promises.write import _due

    assert _due("I'll file the claim by the end of the month", "", date(2026, 11, 10)) == date(2026, 11, 30)
    assert _due("I'll call the bank", "", date(2026, 11, 10)) is None


def test_statement_clauses_of_a_request_are_kept_together_coordinator_and_all():
    from memory.embedded_writer import world_clauses

    # A discourse imperative ("Forget that") opens a statement of its own; the clause after "so" has
    # its own subject, and the two are kept as the one sentence the person said.
    assert world_clauses("Forget that - the Alder room flooded, so the workshop is now in Hall C") == [
        "The Alder room flooded, so the workshop is now in Hall C."
    ]
    # A time alone is when the request is for, not a clause of its own.
    assert world_clauses("Book Lena for Friday 3pm, the pitch deck is final") == ["The pitch deck is final."]
    assert world_clauses("帮我约一下王老师，明天上午十点，合同已经签好了。") == ["合同已经签好了"]


def test_a_statement_under_a_label_keeps_its_label():
    from memory.embedded_writer import world_clauses

    assert world_clauses("News on Juniper: the vendor has cut the price to $900.") == [
        "News on Juniper: the vendor has cut the price to $900."
    ]
    # A request before the colon is no label: only what follows it is kept.
    assert world_clauses("Send Ola a note: the vendor has cut the price to $900.") == [
        "The vendor has cut the price to $900."
    ]


def test_a_sentence_opening_with_a_pronoun_stays_with_the_one_it_points_back_to(db):
    said(db, ["Our auditor is Rhea Stone at Pell & Co; her number is 0171 555 0199."], 2)
    run(db, 2)
    active = [f.text for f in facts.by_status(db, facts.ACTIVE)]
    assert any("Rhea Stone" in t and "0171 555 0199" in t for t in active)


def test_a_statement_with_a_clause_shaped_like_a_request_is_a_report(db):
    # Read whole it is a statement; "改到…" has a request's shape but nobody is asked anything.
    said(db, ["年度盘点又推迟了，改到6月9号。", "墨盒快没了，帮我买两个。"], 2)
    run(db, 2)
    active = [f.text for f in facts.by_status(db, facts.ACTIVE)]
    assert any("改到6月9号" in t for t in active)
    assert not any("帮我买两个" in t for t in active)  # asked of kept: a request, left to the tool call


def test_a_number_is_no_clause_break():
    from memory.text.commitments import clauses

    assert clauses("The quote is $86,000 for the line, which is a lot") == [
        "The quote is $86,000 for the line",
        "which is a lot",
    ]
    assert clauses("My 1:1 with Ines is at 10:00") == ["My 1:1 with Ines is at 10:00"]
