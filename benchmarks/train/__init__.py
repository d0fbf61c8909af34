"""Train LLMs on the suite (docs/training.md): every family's tasks as training rows played by replies given
from outside (:mod:`~benchmarks.train.tasks`, :mod:`~benchmarks.train.handoff`), a ``verifiers`` environment
(:mod:`~benchmarks.train.verifiers_env`), an OpenEnv server (:mod:`~benchmarks.train.openenv_server`) and a
GRPO script on TRL (:mod:`~benchmarks.train.grpo`). The trainers are the ``train`` extra, imported only here."""
