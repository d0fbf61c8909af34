"""The suite inside the harnesses researchers already run: Inspect AI tasks (``inspect eval
tom_envs/<task>``) and lm-evaluation-harness task exports (``tom-envs export lm-eval DIR``).

Each harness is an optional extra (``pip install 'tom-envs[inspect]'``, ``'tom-envs[lm-eval]'``)
imported only when used; scoring is the suite's own code, never a copy (docs/harnesses.md).
"""
