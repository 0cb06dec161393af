"""memory.accept: the fitted step's cap bounds its own choice, not what both judges accept."""

from __future__ import annotations

from memory import accept


def _model(cap: int) -> accept.Model:
    # Every candidate passes (probability sigmoid(5) > 0.5), every turn is open.
    return accept.Model(accept.Logistic(5.0, {}), accept.Logistic(5.0, {}), 0.5, 0.5, cap=cap, within_rules=True)


def test_candidates_the_rules_accepted_are_not_cut_by_the_cap():
    turn = {"any_accepted": 1.0}
    accepted = [(i, {"accepted": 1.0}) for i in range(5)]
    free = [(i, {}) for i in range(5, 9)]
    # Five the hand rules found and the model passes: all come, though the cap is 3 ...
    assert len(_model(3).choose(turn, accepted + free, k=10)) == 5
    # ... but never more than the caller's k.
    assert len(_model(3).choose(turn, accepted + free, k=4)) == 4
    # Only what the model adds of its own is held to the cap.
    assert len(_model(3).choose(turn, accepted[:1] + free, k=10)) == 3
    assert len(_model(6).choose(turn, accepted + free, k=10)) == 6


def test_an_accepted_candidate_the_model_rejects_does_not_widen_the_room():
    turn = {"any_accepted": 1.0}
    model = accept.Model(
        accept.Logistic(5.0, {"accepted": -10.0}), accept.Logistic(5.0, {}), 0.5, 0.5, cap=2, within_rules=True
    )
    rows = [(i, {"accepted": 1.0}) for i in range(4)] + [(i, {}) for i in range(4, 8)]
    # The rules' four fall below the candidate threshold: the cap of 2 holds for the others.
    assert [i for i, _ in model.choose(turn, rows, k=10)] == [4, 5]
