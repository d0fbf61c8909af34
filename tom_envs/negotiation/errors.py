"""Named errors of the negotiation family (all subclass :class:`~tom_envs.errors.TomEnvsError`)."""

from __future__ import annotations

from tom_envs.errors import InvalidAction, TomEnvsError


class NegotiationError(TomEnvsError):
    """Base class of the negotiation family's errors."""


class ScenarioError(NegotiationError, ValueError):
    """A scenario file or object is malformed; the message names the file and the field to fix."""


class NegotiationConfigError(NegotiationError, ValueError):
    """Bad arguments to the negotiation env, a mediator or the benchmark."""


class NegotiationActionError(NegotiationError, InvalidAction):
    """A seat's action could not be read (out of range, unknown strategy, topic, option or party)."""


class AttitudeExtractionError(NegotiationError, ValueError):
    """An attitude extractor returned something that is not ``{topic: option or None}`` for the scenario."""


class NegotiationWarning(UserWarning):
    """A setting that applies to only part of what was asked (named in the message), e.g. ``--lockstep``
    with mediators that play one episode at a time."""


class PromediateFormatWarning(UserWarning):
    """A ProMediate-Eval case was imported with a part kept as plain text (named in the message)."""


class PromediateImportError(ScenarioError):
    """A ProMediate-Eval case imported with ``strict=True`` has party-topic pairs with no stated first choice."""
