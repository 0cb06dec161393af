"""One schema system: every memory pass's reply is a pydantic model, its schema what the model is offered."""

from __future__ import annotations

import json

import pytest

from memory.llm import UnusableReply
from memory.promises import PromisesReply
from memory.reconcile import ExtractReply, ReconcileReply
from memory.replies import validate
from memory.series import BackfillReply, SeriesReply
from memory.summary import SummaryReply

REPLIES = [SummaryReply, ExtractReply, ReconcileReply, PromisesReply, SeriesReply, BackfillReply]


@pytest.mark.parametrize("model", REPLIES, ids=lambda m: m.__name__)
def test_the_schema_offered_is_one_plain_object_without_references_or_titles(model):
    schema = model.model_json_schema()
    text = json.dumps(schema)
    assert schema["type"] == "object" and "$ref" not in text and "$defs" not in text and '"title"' not in text
    assert "anyOf" not in text  # optional fields are their plain type, as tools/arguments.py shows them


@pytest.mark.parametrize("model", REPLIES, ids=lambda m: m.__name__)
def test_the_embedded_models_grammar_builds_from_every_reply_schema(model):
    pytest.importorskip("llama_cpp")
    from agent.models.local import _grammar

    assert _grammar(model.model_json_schema()) is not None


def test_required_keys_stay_what_the_passes_demanded():
    assert PromisesReply.model_json_schema()["properties"]["promises"]["items"]["required"] == [
        "message",
        "who",
        "to_whom",
        "what",
        "due_text",
        "due_date",
    ]
    assert SummaryReply.model_json_schema()["required"] == ["who", "asked", "keep", "lately"]
    assert ReconcileReply.model_json_schema()["properties"]["decisions"]["items"]["required"] == ["candidate", "action"]


def test_a_reply_of_the_wrong_shape_is_unusable_and_says_where():
    with pytest.raises(UnusableReply, match="promises.0.message"):
        validate(
            PromisesReply,
            {
                "promises": [
                    {"message": "first", "who": "me", "to_whom": "", "what": "x", "due_text": "", "due_date": ""}
                ],
                "closures": [],
            },
            "promises",
        )
    with pytest.raises(UnusableReply, match="closures"):
        validate(PromisesReply, {"promises": []}, "promises")


def test_nulls_read_as_empty_and_a_bad_date_as_none():
    reply = validate(
        PromisesReply,
        {
            "promises": [
                {
                    "message": "2",
                    "who": "me",
                    "to_whom": None,
                    "what": " send it ",
                    "due_text": None,
                    "due_date": "Friday",
                }
            ],
            "closures": [],
        },
        "p",
    )
    [p] = reply.promises
    assert (p.message, p.to_whom, p.what, p.due_text, p.due_date) == (2, "", "send it", "", None)


def test_one_bad_reconcile_decision_is_counted_not_a_failed_reply():
    reply = validate(
        ReconcileReply, {"decisions": [{"candidate": "x", "action": "ADD"}, {"candidate": 1, "action": "NONE"}]}, "r"
    )
    assert [d.candidate for d in reply.decisions] == [None, 1]


def test_a_field_named_title_survives_the_cleaning_and_tools_share_the_cleaner():
    from memory.replies import Reply
    from tools.arguments import Arguments

    class Titled(Reply):
        title: str
        note: str | None = None

    schema = Titled.model_json_schema()
    assert set(schema["properties"]) == {"title", "note"} and schema["properties"]["note"] == {"type": "string"}

    class ToolArgs(Arguments):
        title: str

    shown = ToolArgs.model_json_schema()
    assert shown["properties"] == {"title": {"type": "string"}} and shown["required"] == ["title"]
    assert shown["title"] == "ToolArgs"  # a tool schema keeps its own name
