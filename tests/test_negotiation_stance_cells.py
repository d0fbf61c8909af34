"""The negotiation rows' stance ToM on unstated and changing cells beside the prior
(:mod:`benchmarks.negotiation.stance_cells`, issue 38): the figures of a scripted mediator equal a
recomputation from its records and from what it was shown, cell by cell."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from benchmarks.negotiation.cells import play_episode
from benchmarks.negotiation.stance_cells import COLUMNS, cell_columns
from benchmarks.negotiation.table import format_table, summarise
from benchmarks.runner_envs import make_env, recorder_of
from policies.negotiation.scripted import SocialMediator
from tom_envs.scoring import NOT_PREDICTED


class Watching(SocialMediator):
    """The social mediator, keeping the public ``stated`` it was shown at each prediction (what the
    recomputation checks the events' replay against). ``fill``: predict option 0 on unstated cells too."""

    def __init__(self, fill: bool = False) -> None:
        super().__init__()
        self.fill, self.shown = fill, []

    def predict(self, observation, info):
        self.shown.append(np.array(info["state"]["stated"]))
        out = super().predict(observation, info)
        if self.fill:
            out = {"stances": np.where(out["stances"] == NOT_PREDICTED, 0, out["stances"])}
        return out


def _prediction(record: dict, shape: tuple) -> np.ndarray:
    """The recorder's prediction of a turn (None: none recorded, every cell NOT_PREDICTED)."""
    pred = record.get("prediction")
    return np.full(shape, NOT_PREDICTED) if pred is None else np.asarray(pred)


def _play(env_id: str, fill: bool, seeds=range(3)) -> tuple[list[dict], list[list[tuple]]]:
    """Episodes (records as the benchmark stores them) and, per episode and resolved turn, (case, truth,
    prediction, stated as shown) from the recorder and the mediator's own view."""
    episodes, turns = [], []
    for seed in seeds:
        env, mediator = make_env(env_id), Watching(fill)
        episode = play_episode(env, mediator, seed)
        episodes.append(episode)
        resolved = [r for r in recorder_of(env).records if r.get("stances") is not None]
        assert len(resolved) == len(mediator.shown)  # the mediator predicts once per turn, before it resolves
        turns.append(
            [
                (episode["scenario"], np.asarray(r["stances"]), _prediction(r, shown.shape), shown)
                for r, shown in zip(resolved, mediator.shown)
            ]
        )
    return episodes, turns


def _recompute(by_episode: list[list[tuple]]) -> dict:
    """The columns from scratch: every (turn, party, topic) with the stated matrix the mediator was shown."""
    truths: dict[tuple, Counter] = {}
    rows = []
    for ep in by_episode:
        stack = np.stack([t[1] for t in ep])
        changing = (stack != stack[0]).any(axis=0)
        for case, truth, pred, shown in ep:
            for (i, k), y in np.ndenumerate(truth):
                truths.setdefault((case, i, k), Counter())[int(y)] += 1
                rows.append((case, i, k, int(y), int(pred[i, k]), shown[i, k] < 0, bool(changing[i, k])))
    prior = {key: min(c, key=lambda y: (-c[y], y)) for key, c in truths.items()}
    out = {}
    for kind, col in (("unstated", 5), ("changing", 6)):
        cells = [r for r in rows if r[col]]
        made = [r for r in cells if r[4] != NOT_PREDICTED]
        out[f"tom_{kind}"] = 100 * np.mean([r[3] == r[4] for r in made]) if made else None
        out[f"tom_{kind}_prior"] = 100 * np.mean([r[3] == prior[r[:3]] for r in made]) if made else None
        out[f"tom_{kind}_n"], out[f"tom_{kind}_cells"] = len(made), len(cells)
        out[f"tom_{kind}_prior_all"] = 100 * np.mean([r[3] == prior[r[:3]] for r in cells]) if cells else None
    return out


@pytest.mark.parametrize("env_id", ["tom/Negotiation-Easy-v1", "tom/Negotiation-Hard-v2"])
@pytest.mark.parametrize("fill", [False, True])
def test_a_scripted_mediators_figures_equal_a_recomputation_from_its_records(fill, env_id):
    episodes, turns = _play(env_id, fill)
    got = cell_columns([e["tom_cells"] for e in episodes])
    want = _recompute(turns)
    assert set(got) == set(COLUMNS)
    for key in COLUMNS:
        assert got[key] == pytest.approx(want[key]), key
    if fill:  # option 0 on every unstated cell: predictions made there, and scored against the prior
        assert got["tom_unstated_n"] == got["tom_unstated_cells"] > 0
    else:  # the social mediator repeats what was said: it predicts no unstated cell
        assert got["tom_unstated_n"] == 0 and got["tom_unstated"] is None and got["tom_unstated_cells"] > 0
    assert got["tom_changing_n"] > 0 and got["tom_changing_prior"] is not None


def test_the_rows_and_the_table_carry_the_columns():
    episodes, _ = _play("tom/Negotiation-Easy-v1", False, seeds=range(2))
    row = summarise("easy", "accommodating", "social", [{"episode": e} for e in episodes])
    assert all(key in row for key in COLUMNS) and row["tom"] is not None
    table = format_table([row])
    assert "ToM unstat." in table and "ToM chang." in table and " prior" in table


def test_a_prior_guessing_mediator_scores_exactly_the_prior():
    """The prior is what a no-ToM guess reaches: a mediator whose every prediction is the prior's guess
    scores the prior's figure on the same cells (so the column can tell ToM from the prior)."""
    episodes, turns = _play("tom/Negotiation-Easy-v1", True, seeds=range(2))
    cells = [e["tom_cells"] for e in episodes]
    from benchmarks.negotiation.stance_cells import prior_guesses

    guess = prior_guesses(cells)
    for ep in cells:  # rewrite the counts as if every prediction were the prior's guess
        for kind in ("unstated", "changing"):
            for cell, by in ep[kind].items():
                g = str(guess[(ep["scenario"], cell)])
                for y, tally in by.items():
                    tally[1], tally[2] = tally[0], tally[0] if y == g else 0
    row = cell_columns(cells)
    assert (
        row["tom_unstated"] == pytest.approx(row["tom_unstated_prior"]) == pytest.approx(row["tom_unstated_prior_all"])
    )
    assert row["tom_changing"] == pytest.approx(row["tom_changing_prior"])


def test_the_report_shows_each_figure_beside_its_prior():
    from benchmarks.negotiation.report import _beside_prior

    episodes, _ = _play("tom/Negotiation-Easy-v1", False, seeds=range(2))
    cols = cell_columns([e["tom_cells"] for e in episodes])
    assert _beside_prior(cols, "changing") == (
        f"{cols['tom_changing']:.1f} vs {cols['tom_changing_prior']:.1f} ({cols['tom_changing_n']:,})"
    )
    assert _beside_prior(cols, "unstated") == f"- (prior {cols['tom_unstated_prior_all']:.1f})"  # it abstains there
    assert _beside_prior(cell_columns([None]), "changing") == "-"  # records of older code
