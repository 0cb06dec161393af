"""The fitter and the threshold choice of evals/bench/fit_gate.py, on synthetic rows of their own."""

from __future__ import annotations

import numpy as np

from evals.bench import fit_gate


def test_the_fitter_recovers_known_weights_on_synthetic_rows():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(100_000, 3)) * np.array([1.0, 2.0, 0.5]) + np.array([0.0, 1.0, -2.0])
    true_w, true_b = np.array([1.5, -0.8, 2.0]), 0.4
    y = (rng.random(100_000) < 1 / (1 + np.exp(-(x @ true_w + true_b)))).astype(float)
    w, b = fit_gate.fit_logistic(x, y, l2=0.0)
    assert np.allclose(w, true_w, rtol=0.1)
    assert abs(b - true_b) < 0.15


def test_l2_shrinks_the_weights_and_a_constant_column_gets_none():
    rng = np.random.default_rng(5)
    x = np.hstack([rng.normal(size=(300, 1)), np.ones((300, 1))])
    y = (x[:, 0] + rng.normal(scale=0.5, size=300) > 0).astype(float)
    loose, _ = fit_gate.fit_logistic(x, y, l2=0.0)
    tight, _ = fit_gate.fit_logistic(x, y, l2=1000.0)
    assert abs(tight[0]) < abs(loose[0])
    assert loose[1] == 0.0


def _turn(cls, gold, cands):
    return {"text": f"{cls} {gold} {len(cands)}", "class": cls, "gold": gold, "kept": [], "turn": [0.0], "cands": cands}


def test_decide_brings_candidates_over_the_threshold_best_first_with_their_chain():
    turn = _turn("answerable", [1], [{"brings": [1, 7], "x": []}, {"brings": [2], "x": []}, {"brings": [3], "x": []}])
    pc = np.array([0.6, 0.9, 0.1])
    assert fit_gate.decide(turn, 0.8, pc, tt=0.5, tc=0.5) == [2, 1, 7]
    assert fit_gate.decide(turn, 0.4, pc, tt=0.5, tc=0.5) == []  # the turn threshold closes it
    assert fit_gate.decide(turn, 0.8, pc, tt=0.5, tc=0.5, k=1) == [2]


def test_decide_lets_every_candidate_the_hand_rules_also_accepted_past_the_cap_as_recall_does():
    at = fit_gate._ACCEPTED
    hand = [0.0] * len(fit_gate.accept.FEATURES)
    hand[at] = 1.0
    cands = [{"brings": [i], "x": hand if i < 3 else []} for i in range(4)]
    turn = _turn("answerable", [0], cands)
    pc = np.array([0.9, 0.8, 0.7, 0.95])
    # cap 1, but three candidates passing the threshold were accepted by the hand rules too
    assert fit_gate.decide(turn, 0.8, pc, tt=0.5, tc=0.5, k=1) == [3, 0, 1]
    # without the hand rules' acceptance the cap holds
    plain = _turn("answerable", [0], [{"brings": [i], "x": []} for i in range(4)])
    assert fit_gate.decide(plain, 0.8, pc, tt=0.5, tc=0.5, k=1) == [3]


def test_thresholds_keep_to_the_leak_rate_and_the_facts_per_turn_of_the_rules_they_are_compared_with():
    # Two answerable turns whose gold scores 0.9 and 0.4; two leak-class turns whose best
    # candidate scores 0.5 and 0.2. Kept recall (in "kept") finds one answerable whole, leaks
    # once and brings one fact per turn on average.
    a1 = _turn("answerable", [1], [{"brings": [1], "x": []}])
    a2 = _turn("answerable", [2], [{"brings": [2], "x": []}])
    n1 = _turn("absent", [], [{"brings": [3], "x": []}])
    n2 = _turn("general", [], [{"brings": [4], "x": []}])
    a1["kept"], n1["kept"] = [1, 5, 6], [3]
    turns = [a1, a2, n1, n2]
    probs = [(1.0, np.array([0.9])), (1.0, np.array([0.4])), (1.0, np.array([0.5])), (1.0, np.array([0.2]))]
    chosen = fit_gate.thresholds(turns, probs)
    _, tc, _, ans, leak = chosen["same-leaks"]
    assert (ans, leak) == (1.0, 0.5) and 0.2 < tc <= 0.4  # both gold reached, one leak as kept
    _, tc, _, ans, leak = chosen["same-answerable"]
    assert (ans, leak) == (0.5, 0.0) and 0.5 < tc <= 0.9  # kept's one answerable, no leak
    # With kept bringing fewer facts, a threshold bringing more per turn is not chosen.
    a1["kept"] = [1]
    _, tc, _, ans, leak = fit_gate.thresholds(turns, probs)["same-leaks"]
    assert tc > 0.4


def test_standing_rules_the_rules_bring_are_kept_whatever_the_model_says():
    turn = _turn("answerable", [9], [{"brings": [1], "x": []}, {"brings": [9], "x": []}])
    pc = np.array([0.9, 0.01])
    assert fit_gate.decide(turn, 0.0, pc, tt=0.5, tc=0.5, keep=[False, True]) == [9]
    assert fit_gate.decide(turn, 1.0, pc, tt=0.5, tc=0.5, keep=[False, True]) == [1, 9]


def test_the_acceptance_step_loads_weights_and_applies_them(tmp_path):
    import json

    from memory import accept

    path = tmp_path / "w.json"
    part = {
        "candidate": {"bias": -2.0, "weights": {"cos": 4.0, "accepted": 3.0}},
        "turn": {"bias": 0.0, "weights": {"question": 2.0}},
        "turn_threshold": 0.6,
        "candidate_threshold": 0.5,
    }
    path.write_text(json.dumps({"meaning": part}))
    model = accept.load("meaning", path)
    assert model is not None and accept.load("words", path) is None
    rows = [(0, {"cos": 0.1}), (1, {"cos": 0.2, "accepted": 1.0}), (2, {"cos": 0.8})]
    # sigmoid(-2 + 0.4) < 0.5; sigmoid(-2 + 0.8 + 3) and sigmoid(-2 + 3.2) > 0.5, the first higher.
    assert [i for i, _ in model.choose({"question": 1.0}, rows, k=5)] == [1, 2]
    assert [i for i, _ in model.choose({"question": 1.0}, rows, k=1)] == [1]
    assert model.choose({"question": 0.0}, rows, k=5) == []  # sigmoid(0) = 0.5 < 0.6: no memory


def test_a_standing_rule_the_rules_brought_stays_when_the_turn_model_says_no_memory():
    from memory import accept

    model = accept.Model(accept.Logistic(0.0, {}), accept.Logistic(-5.0, {}), 0.5, 0.5)
    rows = [(0, {"cos": 0.9}), (1, {"acc_rule": 1.0})]
    assert model.choose({}, rows, k=5) == [(1, 1.0)]


def test_recall_applies_the_fitted_step_and_keeps_the_hand_rules_without_it(monkeypatch):
    from memory import accept, meaning, recall

    docs = [
        "Priya Raman owns the Harbor launch.",
        "The Harbor launch is on 3 December.",
        "Dentist appointment moved to Friday.",
    ] + [f"Reading list item {i}: a novel on the shelf." for i in range(accept.MIN_DOCS)]
    # A model that accepts exactly the candidates holding a word of the turn that is a store name.
    part = accept.Model(accept.Logistic(-10.0, {"name": 20.0}), accept.Logistic(10.0, {}), 0.5, 0.5)
    monkeypatch.setattr(accept, "load", lambda variant, path=accept.WEIGHTS: part)
    with meaning.words_only(), accept.switched(True):
        got = recall.recall("When does Harbor go out the door?", docs)
        assert sorted(i for i, _ in got) == [0, 1]
        with accept.hand_rules_only():
            hand = recall._docs_index(docs).match("When does Harbor go out the door?", 12, fill=recall.FILL_N)
            assert recall.recall("When does Harbor go out the door?", docs) == [(m.index, m.score) for m in hand]


def test_the_fitted_step_is_on_unless_turned_off(monkeypatch):
    from memory import accept

    monkeypatch.delenv("KEPT_ACCEPT", raising=False)
    assert accept.enabled()
    monkeypatch.setenv("KEPT_ACCEPT", "0")
    assert not accept.enabled()
    monkeypatch.setenv("KEPT_ACCEPT", "1")
    assert accept.enabled()
    with accept.hand_rules_only():
        assert not accept.enabled()


def test_the_fitted_step_is_for_stores_of_the_kind_it_was_fitted_on():
    from memory import accept

    facts = [f"Fact number {i} about the store." for i in range(accept.MIN_DOCS)]
    assert accept.fits(facts, 400)
    assert not accept.fits(facts[:3], 400)  # a new user's few facts: the hand rules decide
    assert not accept.fits(["a whole session " * 40] * accept.MIN_DOCS, 400)  # pages


def test_the_shipped_weights_load_for_both_paths():
    from memory import accept

    for variant in ("meaning", "words"):
        model = accept.load(variant)
        assert model is not None and 0 < model.turn_threshold < 1 and model.cap >= 1
        assert model.within_rules  # on by default: it may not open a turn the hand rules left closed
        assert set(model.candidate.weights) <= set(accept.FEATURES)
        assert set(model.turn.weights) <= set(accept.TURN_FEATURES) | set(accept.STACK)
        # A signal of the store as a whole would name the split it came from: none is weighed.
        assert all(abs(model.turn.weights.get(f, 0.0)) < 1e-6 for f in fit_gate.STORE_LEVEL)
        assert all(abs(model.candidate.weights.get(f, 0.0)) < 1e-6 for f in fit_gate.STORE_LEVEL)


def test_fitting_refuses_a_held_out_split_and_reads_only_dev_splits_by_default(monkeypatch, tmp_path):
    import pytest

    from evals.bench import fit_gate, gate

    read: list[str] = []
    monkeypatch.setattr(fit_gate, "extract", lambda paths, **_: read.extend(paths) or {})
    held = sorted(gate.HELD_OUT)[0]
    with pytest.raises(SystemExit):
        fit_gate.main(["extract", "--split", held, "--out", str(tmp_path / "rows.json")])
    assert read == []
    fit_gate.main(["extract", "--out", str(tmp_path / "rows.json")])
    assert read and not set(read) & gate.HELD_OUT


def test_the_step_brings_nothing_on_a_turn_the_hand_rules_found_nothing_for():
    from memory import accept

    model = accept.Model(accept.Logistic(5.0, {}), accept.Logistic(5.0, {}), 0.5, 0.5, within_rules=True)
    rows = [(0, {"cos": 0.9}), (1, {"cos": 0.8})]
    assert model.choose({"any_accepted": 0.0}, rows, k=5) == []
    assert [i for i, _ in model.choose({"any_accepted": 1.0}, rows, k=5)] == [0, 1]
    loose = accept.Model(accept.Logistic(5.0, {}), accept.Logistic(5.0, {}), 0.5, 0.5, within_rules=False)
    assert len(loose.choose({"any_accepted": 0.0}, rows, k=5)) == 2


def test_cross_validation_gives_no_turn_probability_where_the_hand_rules_found_nothing(monkeypatch):
    monkeypatch.setattr(fit_gate, "WITHIN_RULES", True)
    at = fit_gate._ANY_ACCEPTED
    closed, opened = [0.0] * len(fit_gate.accept.TURN_FEATURES), [0.0] * len(fit_gate.accept.TURN_FEATURES)
    opened[at] = 1.0
    model = {"candidate": (np.zeros(1), 0.0), "turn": (np.zeros(len(closed)), 3.0), "stack": False}
    turns = [{"turn": closed, "cands": [{"x": [1.0]}]}, {"turn": opened, "cands": [{"x": [1.0]}]}]
    (pt_closed, _), (pt_open, _) = fit_gate._probabilities(turns, model)
    assert pt_closed < 0 < pt_open
