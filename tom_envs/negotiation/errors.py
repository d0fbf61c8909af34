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


class MissingOptionBlockError(ScenarioError):
    """A topic of a ProMediate case has no option block of its own in ``options`` (none headed by its name or
    its number): it is never given another topic's options."""


class ThresholdRangeError(ScenarioError):
    """A turn-taking threshold or probability lies outside its range (``im_threshold``, ``interrupt_threshold``,
    ``intervention_threshold`` in [1, 5], the release's motivation scale; ``system1_prob`` in [0, 1])."""


class UnknownKeyError(ScenarioError):
    """A case file has a key its format does not know; the message lists the known ones."""


class EmptyIssuesError(ScenarioError):
    """A ProMediate case's ``issues`` text is empty (the release puts it into every prompt as ``{issues}``)."""


class CaseTooLargeError(ScenarioError):
    """An episode of the case would cost more than the work bound (turns x parties^2 x topics, see
    :data:`tom_envs.negotiation.case_rules.MAX_EPISODE_WORK`); the message gives the figure and the override."""
