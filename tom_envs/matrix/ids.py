"""The matrix games's registered ids (matrix); ``import tom_envs`` imports this module (its family's
``envs``), and this is the one place its ids are declared."""

from __future__ import annotations

from tom_envs.registration import register

_MATRIX_ENV = "tom_envs.matrix.env:MatrixGameEnv"
_MATRIX_PAR = "tom_envs.matrix.parallel_env:MatrixGameParallelEnv"
_MATRIX_VEC = "tom_envs.matrix.vector_env:MatrixGameVectorEnv"
_EXAMPLE_GAME = {
    "name": "Chicken",
    "payoffs": [[[0, 0], [-1, 1]], [[1, -1], [-10, -10]]],
    "action_labels": ["Swerve", "Straight"],
}

for _g, _what in (
    ("RPS", "Rock, Paper, Scissors vs a scripted partner (004): single-action and best-response-to-last partners"),
    ("IBS", "Iterated Battle of the Sexes vs a scripted partner (004): single-action and copy-last partners"),
    ("IPD", "Iterated Prisoner's Dilemma vs a scripted partner (004): single-action and tit-for-tat partners"),
):
    register(
        f"tom/{_g}-v0",
        _MATRIX_ENV,
        kwargs={"game": _g},
        family="matrix",
        summary=_what,
        builtin=True,
        self_checked=True,
        vector_entry_point=_MATRIX_VEC,
        pinned=("game",),
    )
register(
    "tom/MatrixGame-v0",
    _MATRIX_ENV,
    family="matrix",
    summary="any two-player matrix game: `payoffs=` and `action_labels=` as kwargs",
    example_kwargs=dict(_EXAMPLE_GAME),
    builtin=True,
    self_checked=True,
    vector_entry_point=_MATRIX_VEC,
)
for _g in ("RPS", "IBS", "IPD"):
    register(
        f"tom/{_g}-Parallel-v0",
        _MATRIX_PAR,
        kind="parallel",
        kwargs={"game": _g},
        pinned=("game",),
        family="matrix",
        summary=f"two learners play {_g} (PettingZoo parallel; AEC via `make_aec`)",
        builtin=True,
    )
register(
    "tom/MatrixGame-Parallel-v0",
    _MATRIX_PAR,
    kind="parallel",
    family="matrix",
    summary="two learners play any matrix game (`payoffs=`, `action_labels=`)",
    example_kwargs=dict(_EXAMPLE_GAME),
    builtin=True,
)
