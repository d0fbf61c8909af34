"""Two-player matrix games: payoff tables, action labels and stage-game helpers.

A :class:`MatrixGame` is an immutable, validated description of a one-shot game that
the environments repeat for ``T`` rounds. The focal agent picks the row, the partner the
column; ``payoffs[a][b] == (focal reward, partner reward)``.

The three games of seed 004 (Riemer et al., Tables 5-7) are :data:`RPS`, :data:`IBS` and
:data:`IPD`.
"""

from __future__ import annotations

import math
import re
from functools import cached_property
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from tom_envs.errors import InvalidGame, TomEnvsError

#: Names of the action-label sets of seed 004, Appendix C.
LABEL_SETS = ("canonical", "letters", "neutral", "repeated", "nonsense")
#: Neutral labels (004 uses J, F, B to avoid contamination); extended for bigger games.
NEUTRAL_LABELS = ("J", "F", "B", "K", "Q", "X", "Z", "V", "W", "Y")
#: Nonsense-word labels (004 uses Pasta, Rice, Bread); extended for bigger games.
NONSENSE_LABELS = ("Pasta", "Rice", "Bread", "Soup", "Cheese", "Beans", "Corn", "Tea", "Olive", "Honey")
#: How many times a neutral label is repeated in the "repeated" set (004: 21 J's).
REPEAT = 21

_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")

#: The responses ΔToM can charge a wrong prediction with (docs/architecture.md, "Metric definitions"):
#: ``stage`` best-responds to the prediction in the stage game, ``reciprocal`` adds a one-step look-ahead
#: at a partner that answers in kind, ``action_value`` uses the exact T-step action values under the
#: partner automaton (:func:`tom_envs.matrix.oracle.action_value_costs`).
TOM_RESPONSES = ("stage", "reciprocal", "action_value")
#: The response of ΔToM's default keys: the one that reproduces seed 004's published ΔToM (Tables 1, 2, 4, 8, 9).
DEFAULT_TOM_RESPONSE = "reciprocal"
#: The weight of the look-ahead in the ``reciprocal`` response. Any value in (0.4, 1) gives the same response
#: in RPS, IBS and the IPD (below 0.4 the IPD response to "cooperate" is to defect, from 1 on the response to
#: "defect" is to cooperate); 0.7 is the middle of that interval.
RECIPROCAL_GAMMA = 0.7


class UnknownToMResponse(TomEnvsError, ValueError):
    """A ΔToM response that is not one of :data:`TOM_RESPONSES`."""


def check_tom_response(response: str) -> str:
    """``response`` if it names one of :data:`TOM_RESPONSES`.

    Raises:
        UnknownToMResponse: any other value.
    """
    if response not in TOM_RESPONSES:
        raise UnknownToMResponse(
            f"unknown ΔToM response {response!r}; choose one of {', '.join(TOM_RESPONSES)} "
            f"(default {DEFAULT_TOM_RESPONSE}; docs/architecture.md, 'Metric definitions')"
        )
    return response


def _fmt_validation_error(name: Any, err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(x) for x in e["loc"]) or "game"
        msg = e["msg"].removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}")
    return f"invalid matrix game {name!r}: " + "; ".join(parts)


class MatrixGame(BaseModel):
    """A validated two-player matrix game.

    Args:
        name: short identifier (letters, digits, underscores; starts with a letter).
        payoffs: either an ``n_a x n_b`` table of (focal, partner) pairs, or an ``n x n`` table
            of numbers for a *symmetric* game, in which case the partner's payoff for the joint
            action (a, b) is ``payoffs[b][a]``.
        action_labels: canonical names of the focal agent's actions (``n_a`` strings).
        partner_action_labels: canonical names of the partner's actions; defaults to
            ``action_labels`` (only allowed when the game is square).
        label_sets: optional overrides of the text label sets (``"letters"``, ``"neutral"``,
            ``"repeated"``, ``"nonsense"``) for the focal actions; missing sets are derived.
        tit_for_tat_style: which partner forms this game's "tit-for-tat style" population (004
            §C.3): ``"copy"`` repeats the focal agent's last action, ``"best_response"`` plays
            the partner's stage best response to it. Defaults to ``"copy"`` for square games.
        description: one line used in docs and prompts.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    payoffs: tuple[tuple[tuple[float, float], ...], ...]
    action_labels: tuple[str, ...]
    partner_action_labels: tuple[str, ...] = ()
    label_sets: dict[str, tuple[str, ...]] = {}
    tit_for_tat_style: Literal["copy", "best_response"] = "copy"
    description: str = ""

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise InvalidGame(_fmt_validation_error(data.get("name"), err)) from None

    def tom_public_view(self) -> "MatrixGame":
        """The whole game is public (its payoffs and labels: what every player of a matrix game knows), so an
        env description hands it over as it is (:func:`tom_envs.description.public_value`)."""
        return self

    # ------------------------------------------------------------------ validation
    @field_validator("name")
    @classmethod
    def _check_name(cls, v: str) -> str:
        if not _NAME_RE.match(v):
            raise ValueError(
                f"{v!r} is not a valid game name; use letters, digits and underscores, starting "
                "with a letter (e.g. 'Chicken')"
            )
        return v

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        table = data.get("payoffs")
        data["payoffs"] = _normalise_payoffs(table)
        n_a, n_b = len(data["payoffs"]), len(data["payoffs"][0])
        labels = data.get("action_labels")
        if isinstance(labels, str) or not isinstance(labels, (list, tuple)):
            raise ValueError(f"action_labels must be a list of {n_a} strings, got {labels!r}")
        if not data.get("partner_action_labels"):
            if n_a != n_b:
                raise ValueError(
                    f"the game is {n_a}x{n_b} (not square), so partner_action_labels must be given ({n_b} strings)"
                )
            data["partner_action_labels"] = tuple(labels)
        if "tit_for_tat_style" not in data and n_a != n_b:
            data["tit_for_tat_style"] = "best_response"
        return data

    @model_validator(mode="after")
    def _check_labels(self) -> "MatrixGame":
        n_a, n_b = self.n_actions, self.n_partner_actions
        for field, labels, n in (
            ("action_labels", self.action_labels, n_a),
            ("partner_action_labels", self.partner_action_labels, n_b),
        ):
            if len(labels) != n:
                raise ValueError(
                    f"{field} has {len(labels)} labels but the payoff table has {n} {'rows' if field == 'action_labels' else 'columns'}"
                )
            if any(not isinstance(x, str) or not x.strip() for x in labels):
                raise ValueError(f"{field} must be non-empty strings, got {list(labels)!r}")
            if len(set(labels)) != n:
                raise ValueError(f"{field} must be distinct, got {list(labels)!r}")
        for key, labels in self.label_sets.items():
            if key not in LABEL_SETS:
                raise ValueError(f"label_sets has unknown set {key!r}; known sets: {', '.join(LABEL_SETS)}")
            if len(labels) != n_a or len(set(labels)) != n_a:
                raise ValueError(f"label_sets[{key!r}] must hold {n_a} distinct labels, got {list(labels)!r}")
        if self.tit_for_tat_style == "copy" and n_a != n_b:
            raise ValueError("tit_for_tat_style='copy' needs a square game; use 'best_response'")
        return self

    # ------------------------------------------------------------------ shape
    @property
    def n_actions(self) -> int:
        """Number of focal (row) actions."""
        return len(self.payoffs)

    @property
    def n_partner_actions(self) -> int:
        """Number of partner (column) actions."""
        return len(self.payoffs[0])

    @property
    def is_square(self) -> bool:
        return self.n_actions == self.n_partner_actions

    # ------------------------------------------------------------------ tables (cached)
    @cached_property
    def focal_payoffs(self) -> np.ndarray:
        """``R[a, b]``: focal reward, float64 array of shape (n_a, n_b), read-only."""
        arr = np.array([[p[0] for p in row] for row in self.payoffs], dtype=np.float64)
        arr.flags.writeable = False
        return arr

    @cached_property
    def partner_payoffs(self) -> np.ndarray:
        """``Rp[a, b]``: partner reward, float64 array of shape (n_a, n_b), read-only."""
        arr = np.array([[p[1] for p in row] for row in self.payoffs], dtype=np.float64)
        arr.flags.writeable = False
        return arr

    @cached_property
    def focal_best_responses(self) -> tuple[int, ...]:
        """Stage best response of the focal agent to each partner action (lowest index on ties)."""
        return tuple(_argmax_first(self.focal_payoffs[:, b]) for b in range(self.n_partner_actions))

    @cached_property
    def partner_best_responses(self) -> tuple[int, ...]:
        """Stage best response of the partner to each focal action (lowest index on ties)."""
        return tuple(_argmax_first(self.partner_payoffs[a, :]) for a in range(self.n_actions))

    @cached_property
    def stage_regret(self) -> np.ndarray:
        """``D[b_hat, b] = max_a R(a, b) - R(BR(b_hat), b)``: the stage regret of best-responding
        to a predicted partner action ``b_hat`` when the partner actually plays ``b`` (ΔToM's cost
        under the ``stage`` response). Shape (n_b, n_b), read-only."""
        R = self.focal_payoffs
        best = R.max(axis=0)
        br = np.array(self.focal_best_responses)
        arr = best[None, :] - R[br, :]
        arr.flags.writeable = False
        return arr

    def reciprocal_response(self, gamma: float = RECIPROCAL_GAMMA) -> tuple[int, ...]:
        """The ``reciprocal`` response to each predicted partner action x (lowest index on ties)::

            m(x) = argmax_a [R(a, x) + gamma * max_a' R(a', rho(a))]

        a one-step look-ahead at a partner that answers the focal action a next round with rho(a):
        the same action (square games; 004's tit-for-tat partners in IBS and the IPD) or, in a game
        that is not square, its stage best response to a. In RPS the look-ahead is the same for every
        a (something always wins), so m is the stage best response; in IBS too for gamma < 7/3; in
        the IPD m cooperates with cooperation and defects against defection for gamma in (0.4, 1).
        """
        R = self.focal_payoffs
        reply = np.arange(self.n_actions) if self.is_square else np.array(self.partner_best_responses)
        ahead = R[:, reply].max(axis=0)  # ahead[a]: the best reward against the partner's answer to a
        return tuple(_argmax_first(R[:, x] + gamma * ahead) for x in range(self.n_partner_actions))

    @cached_property
    def reciprocal_regret(self) -> np.ndarray:
        """``D[b_hat, b] = |R(m(b), b) - R(m(b_hat), b)|`` with m the :meth:`reciprocal_response` at
        :data:`RECIPROCAL_GAMMA`: what acting on the prediction ``b_hat`` instead of the truth ``b``
        changes in this round's reward. Equals :attr:`stage_regret` in RPS and IBS; in the IPD
        ``[[0, 5], [2, 0]]`` (rows: predicted C, D). Shape (n_b, n_b), read-only."""
        R = self.focal_payoffs
        m = np.array(self.reciprocal_response())
        cols = np.arange(self.n_partner_actions)
        arr = np.abs(R[m, cols][None, :] - R[m[:, None], cols[None, :]])
        arr.flags.writeable = False
        return arr

    def tom_cost_table(self, response: str) -> np.ndarray:
        """ΔToM's cost of predicting ``b_hat`` when the partner plays ``b``, ``D[b_hat, b]``, for the
        responses that depend on the game alone (``stage``, ``reciprocal``).

        Raises:
            UnknownToMResponse: ``response`` is not a response of :data:`TOM_RESPONSES`, or is
                ``action_value``, whose costs depend on the round and the partner's state
                (:func:`tom_envs.matrix.oracle.action_value_costs`).
        """
        if check_tom_response(response) == "stage":
            return self.stage_regret
        if response == "reciprocal":
            return self.reciprocal_regret
        raise UnknownToMResponse(
            "the action_value costs depend on the round and the partner automaton's state; "
            "get them from tom_envs.matrix.oracle.action_value_costs(game, solution)"
        )

    # ------------------------------------------------------------------ labels
    def labels(self, label_set: str = "canonical", role: Literal["focal", "partner"] = "focal") -> tuple[str, ...]:
        """Action labels of one of 004's label sets for the focal agent or the partner.

        ``"canonical"`` are the game's own names (Rock/Paper/Scissors, ...), ``"letters"`` their
        first letters, ``"neutral"`` J/F/B, ``"repeated"`` the neutral labels repeated 21 times,
        ``"nonsense"`` Pasta/Rice/Bread.
        """
        if label_set not in LABEL_SETS:
            raise InvalidGame(f"unknown label set {label_set!r}; choose one of {', '.join(LABEL_SETS)}")
        canonical = self.action_labels if role == "focal" else self.partner_action_labels
        if role == "focal" and label_set in self.label_sets:
            return self.label_sets[label_set]
        if role == "partner" and self.is_square and label_set != "canonical":
            return self.labels(label_set, "focal")
        n = len(canonical)
        if label_set == "canonical":
            return canonical
        if label_set == "letters":
            letters = tuple(x[0].upper() for x in canonical)
            return letters if len(set(letters)) == n else tuple(chr(ord("A") + i) for i in range(n))
        pool = NONSENSE_LABELS if label_set == "nonsense" else NEUTRAL_LABELS
        if n > len(pool):
            raise InvalidGame(f"label set {label_set!r} has only {len(pool)} labels; game {self.name} needs {n}")
        base = pool[:n]
        return tuple(x * REPEAT for x in base) if label_set == "repeated" else base

    # ------------------------------------------------------------------ derived games
    def transposed(self) -> "MatrixGame":
        """The same game seen from the partner's seat (rows and columns swapped)."""
        return MatrixGame(
            name=self.name,
            payoffs=tuple(
                tuple((self.payoffs[a][b][1], self.payoffs[a][b][0]) for a in range(self.n_actions))
                for b in range(self.n_partner_actions)
            ),
            action_labels=self.partner_action_labels,
            partner_action_labels=self.action_labels,
            tit_for_tat_style=self.tit_for_tat_style,
            description=self.description,
        )

    @property
    def key(self) -> tuple:
        """Hashable identity of the dynamics (name and payoffs), used for caching."""
        return (self.name, self.payoffs)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:  # cached numpy tables live in __dict__: compare fields
        if not isinstance(other, MatrixGame):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in type(self).model_fields)

    def joint_code(self, a: int, b: int) -> int:
        """Index of the joint action (a, b) in ``range(n_a * n_b)``."""
        return a * self.n_partner_actions + b

    def decode_joint(self, code: int) -> tuple[int, int] | None:
        """Inverse of :meth:`joint_code`; the start symbol ``n_a * n_b`` decodes to ``None``."""
        if code == self.n_actions * self.n_partner_actions:
            return None
        return divmod(int(code), self.n_partner_actions)


def _argmax_first(values: np.ndarray, tol: float = 1e-12) -> int:
    """Lowest index among the maximal entries (ties broken by lowest index)."""
    top = float(np.max(values))
    return int(np.flatnonzero(values >= top - tol)[0])


def _normalise_payoffs(table: Any) -> tuple[tuple[tuple[float, float], ...], ...]:
    hint = (
        "Give payoffs as a table with one row per focal action and one column per partner action, "
        "each cell a (focal, partner) pair -- or a square table of numbers for a symmetric game."
    )
    if isinstance(table, np.ndarray):
        table = table.tolist()
    if not isinstance(table, (list, tuple)) or len(table) == 0:
        raise ValueError(f"payoffs must be a non-empty table, got {table!r}. {hint}")
    rows = [list(r) if isinstance(r, (list, tuple, np.ndarray)) else None for r in table]
    if any(r is None for r in rows):
        raise ValueError(f"every row of payoffs must be a list. {hint}")
    widths = {len(r) for r in rows}
    if len(widths) != 1 or 0 in widths:
        raise ValueError(f"payoff rows have different or zero lengths {sorted(widths)}. {hint}")
    n_a, n_b = len(rows), widths.pop()
    if n_a < 2 or n_b < 2:
        raise ValueError(f"a matrix game needs at least 2 actions per player, got {n_a}x{n_b}")
    cells_are_pairs = [isinstance(c, (list, tuple, np.ndarray)) for r in rows for c in r]
    if all(cells_are_pairs):
        cells = [[tuple(c) for c in r] for r in rows]
        if any(len(c) != 2 for r in cells for c in r):
            raise ValueError(f"every payoff cell must be a (focal, partner) pair. {hint}")
    elif not any(cells_are_pairs):
        if n_a != n_b:
            raise ValueError(
                f"a table of single numbers describes a symmetric game and must be square, got {n_a}x{n_b}. {hint}"
            )
        cells = [[(rows[a][b], rows[b][a]) for b in range(n_b)] for a in range(n_a)]
    else:
        raise ValueError(f"payoff cells mix numbers and pairs. {hint}")
    out = []
    for a, r in enumerate(cells):
        row = []
        for b, (x, y) in enumerate(r):
            vals = []
            for v in (x, y):
                if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                    raise ValueError(f"payoff at row {a}, column {b} is {v!r}, not a number")
                if not math.isfinite(float(v)):
                    raise ValueError(f"payoff at row {a}, column {b} is {v!r}; payoffs must be finite")
                vals.append(float(v))
            row.append((vals[0], vals[1]))
        out.append(tuple(row))
    return tuple(out)


RPS = MatrixGame(
    name="RPS",
    payoffs=((0, -1, 1), (1, 0, -1), (-1, 1, 0)),
    action_labels=("Rock", "Paper", "Scissors"),
    tit_for_tat_style="best_response",
    description="Rock, Paper, Scissors: win +1, tie 0, loss -1 (zero-sum, competitive).",
)
"""Rock, Paper, Scissors (004 Table 5)."""

IBS = MatrixGame(
    name="IBS",
    payoffs=(((10, 7), (0, 0)), ((0, 0), (7, 10))),
    action_labels=("Fight", "Ballet"),
    tit_for_tat_style="copy",
    description="Battle of the Sexes: coordinating pays, the focal prefers the first action (cooperative).",
)
"""Iterated Battle of the Sexes (004 Table 6)."""

IPD = MatrixGame(
    name="IPD",
    payoffs=(((8, 8), (0, 10)), ((10, 0), (5, 5))),
    action_labels=("Cooperate", "Defect"),
    label_sets={"letters": ("C", "D")},
    tit_for_tat_style="copy",
    description="Prisoner's Dilemma: mutual cooperation 8, temptation 10, punishment 5, sucker 0 (mixed motive).",
)
"""Iterated Prisoner's Dilemma (004 Table 7)."""

#: The built-in games by name.
GAMES: dict[str, MatrixGame] = {g.name: g for g in (RPS, IBS, IPD)}


def get_game(game: "str | MatrixGame | dict") -> MatrixGame:
    """Resolve a game given by name (``"RPS"``), as a :class:`MatrixGame`, or as a dict of fields."""
    if isinstance(game, MatrixGame):
        return game
    if isinstance(game, dict):
        return MatrixGame(**game)
    if isinstance(game, str):
        try:
            return GAMES[game]
        except KeyError:
            raise InvalidGame(
                f"unknown game {game!r}; built-in games are {', '.join(GAMES)} "
                "(or pass payoffs= and action_labels= for a custom game)"
            ) from None
    raise InvalidGame(f"game must be a name, a MatrixGame or a dict of its fields, got {type(game).__name__}")
