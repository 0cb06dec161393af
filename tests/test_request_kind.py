"""A request in no shape the readings know gets its kind of act by meaning (memory.request_kind)."""

from __future__ import annotations

import pytest

from agent.models.base import Message, ToolSpec
from agent.models.local import LocalModel
from memory import meaning, request_kind

needs_meaning = pytest.mark.skipif(not meaning.available(), reason="the meaning model is not installed")

MEETING = ToolSpec("schedule_meeting", "Book.", {"required": ["title", "start"]}, kinds={"start": "moment"})
MESSAGE = ToolSpec("send_message", "Send.", {"required": ["to", "body"]}, kinds={"to": "person"})
TASK = ToolSpec("assign_task", "Assign.", {"required": ["assignee", "title"]}, kinds={"due": "deadline"})
LISTING = ToolSpec("list_events", "List.", {})
TOOLS = [LISTING, MEETING, MESSAGE, TASK]


@needs_meaning
@pytest.mark.parametrize(
    "request_, kind",
    [
        ("Could we get Ingrid and me in a room Thursday at 10 to go over the grant?", request_kind.MEETING),
        ("下周一早上九点安排一次项目例会", request_kind.MEETING),
        # A doubtful reading (a message, but less likely than the rest together) is left to the model.
        ("Shoot Lotte a note about the duplicate invoice.", None),
        ("Tobias can look after the fence repairs this week.", request_kind.TASK),
        # News reads as asking for no act, whatever a misreading of its grammar says.
        ("Lotte sent the invoice twice.", None),
    ],
)
def test_a_request_gets_its_kind_of_act_by_meaning(request_, kind):
    assert request_kind.kind(request_) == kind
    found = request_kind.probabilities(request_)
    assert found is not None and set(found) == set(request_kind.KINDS) and abs(sum(found.values()) - 1) < 1e-5


def test_without_the_meaning_model_or_switched_off_no_kind_is_read(monkeypatch):
    with meaning.words_only():
        assert request_kind.kind("Ping Lotte re the invoice - it came in twice.") is None
    monkeypatch.setenv("KEPT_REQUEST_KIND", "0")
    assert request_kind.kind("Ping Lotte re the invoice - it came in twice.") is None


@needs_meaning
def test_the_embedded_model_is_made_to_write_the_tool_of_the_kind_read():
    model = LocalModel(path="unused")
    # Neither a telling nor a hand-over by shape: before, the model chose among every tool.
    forced = model._forced_tool([Message("user", "Could we get Ingrid and me in a room Thursday at 10?")], TOOLS)
    assert forced is MEETING
    # A doubtful reading forces nothing.
    assert model._forced_tool([Message("user", "Shoot Lotte a note about the duplicate invoice.")], TOOLS) is None
    # A statement or a question is no request: nothing is forced, whatever its meaning.
    assert model._forced_tool([Message("user", "Lotte sent the invoice twice.")], TOOLS) is None
    # A kind whose tool is not offered (a meeting with no time: the screen would drop it) forces nothing.
    assert (
        model._forced_tool([Message("user", "Could we get Ingrid and me in a room Thursday at 10?")], [MESSAGE, TASK])
        is None
    )


# Two small dev "files" of labelled lines, for the fitting tests: two requests and one line asking
# for no act each.
_LABELLED = {
    "a": [
        {"text": "Book a call with Ana on Monday", "tool": "schedule_meeting"},
        {"text": "Tell Ana the van is fixed", "tool": "send_message"},
        {"text": "The van is fixed.", "tool": None},
    ],
    "b": [
        {"text": "Give Ana the stocktake", "tool": "assign_task"},
        {"text": "Book the room with Jo", "tool": "schedule_meeting"},
        {"text": "Jo met Ana at noon.", "tool": None},
    ],
}


def test_fitting_writes_weights_the_reader_loads(tmp_path, monkeypatch):
    if not meaning.available():
        pytest.skip("the meaning model is not installed")
    from evals.bench import fit_kind

    monkeypatch.setattr(fit_kind, "dev_files", lambda: _LABELLED)
    monkeypatch.setattr(fit_kind, "_chat_vectors", lambda: None)  # the meaning model's vectors alone
    path = fit_kind.write(tmp_path / "weights.json")
    weights, bias = request_kind._weights(path)
    assert weights.shape == (meaning.DIM, len(request_kind.KINDS)) and bias.shape == (len(request_kind.KINDS),)
    assert "fit_kind fit" in path.read_text(encoding="utf-8")
    report = fit_kind.cross_validate()
    assert set(report) == {"a", "b"} and all(row["requests"] == 2 and row["no act"] == 1 for row in report.values())


def test_a_kind_is_read_only_when_it_is_likelier_than_every_other_reading_together():
    assert request_kind.chosen({"meeting": 0.6, "message": 0.2, "task": 0.1, "none": 0.1}) == request_kind.MEETING
    assert request_kind.chosen({"meeting": 0.45, "message": 0.3, "task": 0.2, "none": 0.05}) is None
    assert request_kind.chosen({"meeting": 0.1, "message": 0.1, "task": 0.1, "none": 0.7}) is None


def test_a_line_asks_for_no_act_only_when_every_acting_sentence_reads_so_by_a_majority():
    news = {"meeting": 0.1, "message": 0.1, "task": 0.1, "none": 0.7}
    doubtful = {"meeting": 0.3, "message": 0.2, "task": 0.1, "none": 0.4}
    assert request_kind.none_asked([news])
    assert request_kind.none_asked([news, news])
    assert not request_kind.none_asked([news, doubtful])  # one sentence may still ask to act
    assert not request_kind.none_asked([doubtful])
    assert not request_kind.none_asked([]) and not request_kind.none_asked(None)


def test_the_acting_sentences_of_a_long_message_are_read_alone():
    message = "Book a call with Dana Ortiz, the roofer, Friday at eight. The gutters on block B are leaking again."
    assert request_kind.acting_sentences(message) == ["Book a call with Dana Ortiz, the roofer, Friday at eight."]
    one = "Get Ilse and me in a room Wednesday at 11 to settle the rota."
    assert request_kind.acting_sentences(one) == [one]


CANCEL = ToolSpec("cancel_event", "Cancel.", {"required": ["event_id"]})
COMPLETE = ToolSpec("complete_task", "Complete.", {"required": ["task_id"]})


@needs_meaning
def test_a_request_to_close_what_is_there_makes_nothing_new():
    from agent.models.local import forced_kind, offers_making

    model = LocalModel(path="unused")
    for request_ in ("Mark the fence repair task as complete.", "The roof inspection's off, cancel it for me."):
        assert request_kind.kind(request_) == request_kind.CLOSE
        # Before, the fitted kind made the model write assign_task for the first: a new task.
        assert forced_kind(request_) is None and not offers_making(request_)
        _, offered = model._cut([Message("user", request_)], TOOLS + [CANCEL, COMPLETE])
        assert offered is not None and {t.name for t in offered} == {"list_events", "cancel_event", "complete_task"}
    # Making something new still gets its tool.
    assert forced_kind("Get Ilse and me in a room Wednesday at 11 to settle the rota.") == request_kind.MEETING


@needs_meaning
def test_news_the_grammar_reads_as_a_request_is_offered_no_tool_that_makes_a_meeting_a_message_or_a_task():
    from agent.models.local import offers_making
    from agent.reply_check import asks_to_act

    model = LocalModel(path="unused")
    news = "Call centre's moving to the third floor next month."
    assert asks_to_act(news) and not offers_making(news)  # the grammar's misreading, and the meaning's
    _, offered = model._cut([Message("user", news)], TOOLS + [CANCEL])
    assert offered is not None and {t.name for t in offered} == {"list_events", "cancel_event"}
    # A request among news keeps them: its acting sentence is read alone.
    booking = "Book a call with Dana Ortiz, the roofer, Friday at eight. The gutters on block B are leaking again."
    assert offers_making(booking)
    _, offered = model._cut([Message("user", booking)], TOOLS + [CANCEL])
    assert offered is not None and "schedule_meeting" in {t.name for t in offered}
    # Switched off, the grammar's reading stands.
    assert offers_making(news, fitted=False)


def test_a_request_to_be_with_someone_at_a_time_is_a_meeting_by_its_grammar():
    from agent.models.local import _shaped_kind, meets_with

    # "with" before a person and a time that is no deadline: a meeting, whatever the wording says of work.
    for said in (
        "Set me up with Odile Marchetti to walk through the audit findings, Thursday at 10:15.",
        "明天上午十点跟罗经理对一下季度账目。",
    ):
        assert meets_with(said) and _shaped_kind(said, True) == request_kind.MEETING
    # A deadline, no one to be with, or no time: not read as one.
    assert not meets_with("Have the audit findings with Odile by Thursday at 10:15.")
    assert not meets_with("Walk through the audit findings on Thursday at 10:15.")
    assert not meets_with("Set me up with Odile Marchetti to walk through the audit findings.")


def test_an_hour_with_its_part_of_the_day_after_a_deadline_word_makes_a_task():
    from agent.models.local import _shaped_kind

    said = (
        "Ines takes the stock count of the cold room, I need the numbers by 3 in the afternoon the day after tomorrow."
    )
    assert _shaped_kind(said, True) == request_kind.TASK


def _counted(line: str):
    """A stand-in model's sentence vector: counts of a few words, so a fit on it is exact to check."""
    import numpy as np

    words = line.lower().split()
    return np.array([words.count(w) for w in ("book", "tell", "give", "the", "met", "call")] + [1.0], dtype=np.float32)


def test_weights_fitted_on_a_model_files_vectors_read_only_that_files_vectors(tmp_path, monkeypatch):
    from evals.bench import fit_kind

    mine = request_kind.Vectors("sha-of-this-file", _counted)
    monkeypatch.setattr(fit_kind, "dev_files", lambda: _LABELLED)
    monkeypatch.setattr(fit_kind, "_chat_vectors", lambda: mine)
    path = fit_kind.write(tmp_path / "embedded.json")
    monkeypatch.setattr(request_kind, "EMBEDDED_WEIGHTS", path)
    weights, bias = request_kind._weights(path, "sha-of-this-file")
    assert weights.shape == (7, len(request_kind.KINDS))
    line = "Book a call with Jo"
    found = request_kind.probabilities(line, mine)
    import numpy as np

    z = _counted(line) @ weights + bias
    expected = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    assert found is not None and np.allclose([found[k] for k in request_kind.KINDS], expected, atol=1e-5)
    assert request_kind.kind(line, mine) == request_kind.MEETING
    # Another model file's vectors are not read by these weights: the meaning model reads instead.
    other = request_kind.Vectors("sha-of-another-file", _counted)
    assert request_kind._weights(path, "sha-of-another-file") is None
    assert request_kind.probabilities(line, other) == request_kind.probabilities(line)


needs_chat_model = pytest.mark.skipif(
    __import__("importlib").util.find_spec("llama_cpp") is None
    or __import__("agent.models.model_file", fromlist=["locate"]).locate() is None,
    reason="the embedded model is not installed",
)


@needs_chat_model
def test_the_embedded_model_gives_a_line_one_unit_vector():
    import numpy as np

    from agent.models.local import sentence_vector

    asked = sentence_vector("请帮我约 Mehmet 明天十点开会。")
    assert asked.shape == (896,) and abs(float(np.linalg.norm(asked)) - 1.0) < 1e-3
    assert np.allclose(sentence_vector("请帮我约 Mehmet 明天十点开会。"), asked)  # the fit's vectors are the reader's
    assert float(asked @ sentence_vector("The forklift battery was replaced last week.")) < 0.99


@needs_chat_model
@needs_meaning
def test_the_shipped_kind_weights_read_the_shipped_model_files_vectors():
    from agent.models.local import kind_vectors

    vectors = kind_vectors()
    assert vectors is not None
    fitted = request_kind._fitted(vectors)
    assert fitted is not None and fitted[2] is vectors  # the shipped weights read these vectors
    assert request_kind.kind("Could we get Ingrid and me in a room Thursday at 10?", vectors) == request_kind.MEETING
    assert request_kind.kind("Lotte sent the invoice twice.", vectors) is None
