"""An SB3 ``VecEnv`` over a Gymnasium vector env, so SB3 trains on the native matrix vector env.

Imports stable-baselines3 (``pip install 'tom-envs[rl]'``); ``wrappers`` itself does not.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from tom_envs.errors import TomEnvsError, import_optional

_vec_env = import_optional("stable_baselines3.common.vec_env", "rl", "Training SB3 agents on a Gymnasium vector env")


class SB3VecEnv(_vec_env.VecEnv):
    """Presents a Gymnasium vector env with same-step autoreset as an SB3 ``VecEnv``.

    SB3 expects the observation after an episode end to be the next episode's first one, with the
    last one in ``infos[i]["terminal_observation"]``: exactly Gymnasium's ``SAME_STEP``
    autoreset, so the vector env must use it, e.g.
    ``gymnasium.make_vec("tom/IPD-v0", num_envs=8, vectorization_mode="vector_entry_point",
    autoreset_mode=AutoresetMode.SAME_STEP)``. Seeds set with ``seed(s)`` reach sub-env ``i`` as
    ``s + i`` at the next reset, as with SB3's own vec envs.
    """

    def __init__(self, env: VectorEnv) -> None:
        mode = env.metadata.get("autoreset_mode")
        if mode != AutoresetMode.SAME_STEP:
            raise TomEnvsError(
                f"SB3VecEnv needs a vector env with same-step autoreset, got {mode!r}; create it with "
                "autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP"
            )
        self.venv = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> Any:
        seed = None if all(s is None for s in self._seeds) else [int(s) for s in self._seeds]
        options = self._options[0] if self._options and self._options[0] else None
        obs, info = self.venv.reset(seed=seed, options=options)
        self.reset_infos = self._per_env(info)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> Any:
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        dones = terminated | truncated
        infos = self._per_env(info.get("final_info", info))
        final = info.get("final_obs")
        for i in np.flatnonzero(dones):
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if final is not None:
                infos[i]["terminal_observation"] = final[i]
        return obs, reward.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self.venv, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        result = getattr(self.venv, method_name)(*args, **kwargs)
        return [result] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else list(indices)

    def _per_env(self, info: dict[str, Any]) -> list[dict[str, Any]]:
        """Gymnasium's dict of arrays -> SB3's list of dicts."""
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for key, values in info.items():
            if key.startswith("_") or key in ("final_obs", "final_info"):
                continue
            mask = info.get("_" + key)
            for i in range(self.num_envs):
                if mask is None or mask[i]:
                    out[i][key] = values[i]
        return out


class VecVectorizeObservation(_vec_env.VecEnvWrapper):
    """An SB3 ``VecEnv`` whose observations are flattened as :class:`wrappers.VectorizeObservation`
    flattens a single env's (the same vectors, batched; a native vector env of ``Discrete``
    observations is one-hot encoded with one table lookup per step).

    Args:
        venv: an SB3 ``VecEnv`` (e.g. :class:`SB3VecEnv` over a native vector env).
        **options: :class:`wrappers.vectorize.Vectorizer`'s ``buckets`` and ``skip``.
    """

    def __init__(self, venv: Any, **options: Any) -> None:
        from wrappers.vectorize import Vectorizer

        self.vectorizer = Vectorizer(venv.observation_space, **options)
        super().__init__(venv, observation_space=self.vectorizer.space)

    def reset(self) -> Any:
        return self.vectorizer.batch(self.venv.reset())

    def step_wait(self) -> Any:
        obs, reward, dones, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = self.vectorizer(info["terminal_observation"])
        return self.vectorizer.batch(obs), reward, dones, infos
