"""The base of every Gymnasium env of tom-envs: the call order, checked once (docs/architecture.md, "Contracts").

:class:`TomEnv` is to the single-agent envs what :class:`tom_envs.aec.TomAECEnv` is to the AEC ones. It holds
whether ``reset`` has run and whether the episode is over, and raises the named errors of a call out of order
(``step`` before the first ``reset``: :class:`~tom_envs.errors.ResetNeeded`; after the episode's end:
:class:`~tom_envs.errors.EpisodeEnded` with the env's :attr:`~TomEnv.episode_over`). It also holds the other
rules every env applies alike: the keys ``reset(options=...)`` reads, the render modes offered and what
``render()`` does without one. The envs raise these errors themselves, so their ids are registered
``self_checked`` (no ``OrderEnforcing`` around them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gymnasium as gym

from tom_envs.errors import call_order_error, check_options, check_render_mode


def rendered(render_mode: str | None, modes: Sequence[str], make_text: Callable[[], str]) -> str | None:
    """What ``render()`` returns in ``render_mode`` (one of ``modes``): without a mode a warning that names the
    modes, and None; ``"human"`` prints the text and returns None; otherwise the text."""
    if render_mode is None:
        offered = " or ".join(repr(m) for m in modes)
        gym.logger.warn(f"render() was called without a render_mode; pass render_mode={offered} to make().")
        return None
    text = make_text()
    if render_mode == "human":
        print(text + "\n")
        return None
    return text


class TomEnv(gym.Env):
    """A :class:`gymnasium.Env` with the call-order state and checks of the tom-envs envs.

    A subclass calls :meth:`check_render_mode` in ``__init__``; in ``reset`` it calls
    ``super().reset(seed=seed)``, reads its options with :meth:`read_options` and, once the episode is
    set up, :meth:`start_episode`; ``step`` begins with :meth:`check_step` (or, in a hot loop, tests
    ``self._done`` itself and raises :meth:`order_error`) and sets ``self._done`` when the episode ends.
    ``render()`` renders :meth:`render_text` in the env's ``render_mode``.
    """

    #: the sentence of :class:`~tom_envs.errors.EpisodeEnded`: what ended the episode, what to call
    episode_over = "the episode is over; call env.reset()."
    #: the keys ``reset(options=...)`` reads (any other is :class:`~tom_envs.errors.InvalidOptions`)
    reset_options: Sequence[str] = ()

    # class defaults: before the first reset no episode is running
    _started = False
    _done = True

    @property
    def started(self) -> bool:
        """Whether ``reset`` has completed at least once."""
        return self._started

    @property
    def running(self) -> bool:
        """Whether an episode is running: started, and not over."""
        return self._started and not self._done

    def check_render_mode(self, render_mode: str | None) -> str | None:
        """``render_mode`` when it is None or one of ``metadata["render_modes"]``, else
        :class:`~tom_envs.errors.UnsupportedRenderMode`."""
        check_render_mode(render_mode, self.metadata["render_modes"])
        return render_mode

    def read_options(self, options: object) -> dict:
        """``reset``'s options as a dict (None: empty), checked against :attr:`reset_options`."""
        return check_options(options, self.reset_options, type(self).__name__)

    def start_episode(self) -> None:
        """An episode runs from now on (the end of ``reset``)."""
        self._started, self._done = True, False

    def check_step(self) -> None:
        """Raise :meth:`order_error` unless an episode is running."""
        if not self._started or self._done:
            raise self.order_error()

    def order_error(self) -> Exception:
        """The error of a ``step`` now: :class:`~tom_envs.errors.ResetNeeded` before the first reset, else
        :class:`~tom_envs.errors.EpisodeEnded` with :attr:`episode_over`."""
        return call_order_error(self._started, self.episode_over)

    def render(self) -> str | None:
        return rendered(self.render_mode, self.metadata["render_modes"], self.render_text)

    def render_text(self) -> str:
        """The text ``render()`` shows (the env's state for a reader)."""
        raise NotImplementedError


__all__ = ["TomEnv", "rendered"]
