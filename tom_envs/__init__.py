"""tom-envs: theory-of-mind benchmarks as Gymnasium / PettingZoo environments.

``import tom_envs`` registers every ``tom/...`` id (see :data:`tom_envs.registration.REGISTRY`):
each declared family's (:mod:`tom_envs.family`, entry-point group ``tom_envs.families``) ``envs``
module registers its own::

    import gymnasium, tom_envs
    env = gymnasium.make("tom/IPD-v0")
"""

from __future__ import annotations

from tom_envs import errors
from tom_envs.registration import REGISTRY, EnvRecord, ids, make, make_aec, register

__version__ = "0.1.0"

__all__ = ["REGISTRY", "EnvRecord", "errors", "ids", "make", "make_aec", "register"]


def _register_families() -> None:
    from tom_envs.family import import_envs

    import_envs()


_register_families()
