"""Repeated two-player matrix games (seed 004): games, partners, oracle, envs, text.

Import the pieces from their modules (``tom_envs.matrix.games``, ``.partners``, ``.oracle``,
``.env``, ``.parallel_env``, ``.text``); this package import stays light.
:func:`register_matrix_game` registers a game of your own as a new id.
"""

from __future__ import annotations

from typing import Any


def register_matrix_game(
    name: str,
    payoffs: Any,
    action_labels: Any,
    partners: Any = None,
    *,
    partner_action_labels: Any = None,
    version: int = 0,
    horizon: int = 100,
    tit_for_tat_style: str | None = None,
    summary: str = "",
) -> str:
    """Register a new repeated matrix game as ``tom/<name>-v<version>`` and return the id.

    The game is validated at once (pydantic): payoffs must be a rectangular table of finite
    numbers (cells of (focal, partner) pairs, or single numbers for a symmetric game) and the
    labels must match its shape; otherwise :class:`~tom_envs.errors.InvalidGame` says what is
    wrong. ``partners`` is validated too (see ``tom_envs.matrix.partners.resolve_partners``);
    partner objects cannot be stored in a registry spec, so give names, populations or queries.

    Example::

        env_id = tom_envs.matrix.register_matrix_game(
            "StagHunt", payoffs=[[4, 0], [3, 3]], action_labels=["Stag", "Hare"],
            partners=["tit_for_tat", "always_hare"])
        env = gymnasium.make(env_id)
    """
    from tom_envs.errors import InvalidPartner
    from tom_envs.registration import register
    from tom_envs.matrix.games import MatrixGame
    from tom_envs.matrix.partners import Partner, PartnerDistribution, resolve_partners

    fields: dict[str, Any] = {"name": name, "payoffs": payoffs, "action_labels": action_labels}
    if partner_action_labels is not None:
        fields["partner_action_labels"] = partner_action_labels
    if tit_for_tat_style is not None:
        fields["tit_for_tat_style"] = tit_for_tat_style
    game = MatrixGame(**fields)
    items = partners if isinstance(partners, (list, tuple)) else [partners]
    if any(isinstance(p, (Partner, PartnerDistribution)) for p in items):
        raise InvalidPartner("register_matrix_game takes partner names, populations or queries, not objects")
    resolve_partners(game, partners)  # fail now, not at make time
    game_dict = game.model_dump(mode="python")
    kwargs: dict[str, Any] = {"game": game_dict, "horizon": horizon}
    if partners is not None:
        kwargs["partners"] = partners
    env_id = f"tom/{name}-v{version}"
    register(
        env_id,
        "tom_envs.matrix.env:MatrixGameEnv",
        kwargs=kwargs,
        family="matrix",
        summary=summary or f"user-registered matrix game {name}",
        self_checked=True,
        vector_entry_point="tom_envs.matrix.vector_env:MatrixGameVectorEnv",
    )
    return env_id
