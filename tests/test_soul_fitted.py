"""SOUL's fitted reading (memory.soul, fitted by evals/treatment_fit.py): where a sentence said to
kept is far from every kind's description, a logistic model over its meaning may still make it a
candidate; the grammar's reading of who it is said to and about what still decides first, and the
fitting never reads a held-out set."""

from __future__ import annotations

import json

import pytest

from evals import treatment_fit
from memory import meaning, soul

needs_meaning = pytest.mark.skipif(not meaning.available(), reason="the meaning model is not installed")
TAKES_ALL = {"how": "test", "l2": 1.0, "threshold": 0.0, "bias": 0.0, "weights": [0.0] * meaning.DIM}
TAKES_NONE = {**TAKES_ALL, "threshold": 1.1}


@needs_meaning
def test_the_fitted_reading_is_asked_only_for_what_the_grammar_reads_as_said_to_kept():
    far = "no need to sugarcoat anything for me"
    with soul.fitted_reading(TAKES_NONE):
        assert soul.treatment_reading(far)[:2] == ("", "far from every kind")
    with soul.fitted_reading(TAKES_ALL):
        kind, why, _ = soul.treatment_reading(far)
        assert kind and why == soul.FITTED
        # Not said to kept, about a third party, about a particular text: the model is not asked.
        assert soul.treatment_reading("my colleague Ana wants a shorter agenda")[0] == ""
        assert soul.treatment_reading("She wants her answers without the sugar coating.")[1] == "a third party"
        assert soul.treatment_reading("Make this email less sugary for me.")[0] == ""
    with soul.fitted_reading(None):
        assert soul.treatment_reading(far)[0] == ""


@needs_meaning
def test_what_the_fitted_reading_finds_is_a_candidate_the_model_confirms():
    items = [(0, "no need to sugarcoat anything for me", "")]
    with soul.fitted_reading(TAKES_ALL):
        assert soul.read_wishes(items) == {0}

        class Refuses:
            asked: list[str] = []

            def __call__(self, *, purpose, system, prompt, schema=None, schema_name="record", max_tokens=2048):
                self.asked.append(prompt)
                return {"what": "a fact about their life"}

        refuses = Refuses()
        assert soul.read_wishes(items, refuses) == set() and refuses.asked


@needs_meaning
def test_the_shipped_model_reads_a_wish_far_from_every_description():
    # Sentences of this test's own, not from a treatment set.
    kind, why, _ = soul.treatment_reading("no need to sugarcoat anything for me")
    assert kind and why == soul.FITTED
    for not_a_wish in ("I went for a long walk with the dog this morning", "The supplier sent the invoice in German"):
        assert soul.treatment_reading(not_a_wish)[0] == ""


def test_fitting_refuses_a_held_out_set_and_the_shipped_weights_name_only_dev_sets():
    for held in treatment_fit.HELD_OUT:
        with pytest.raises(ValueError, match="held out"):
            treatment_fit.examples(held)
    shipped = json.loads(treatment_fit.WEIGHTS.read_text(encoding="utf-8"))
    assert len(shipped["weights"]) == meaning.DIM and 0 < shipped["threshold"] < 1
    assert not any(held in shipped["how"] for held in treatment_fit.HELD_OUT)
    assert "evals.treatment_fit fit" in shipped["how"]
