"""The command-line vocabulary every benchmark shares: validators, option groups, the help formatter.

Every command reads the same names (docs/architecture.md, "One spine"):

* :func:`add_run_options` -- ``--episodes`` (repetitions; old names such as ``--runs`` or
  ``--repetitions`` as aliases), ``--seed``, ``--out``, ``--format table|json``, ``--plot DIR``,
  ``--policy``;
* :func:`add_llm_options` -- the LLM option group (``--backend --model --base-url --tokenizer
  --max-model-len --fallback --max-resamples --lockstep``), read back by :func:`llm_settings` and
  turned into a backend by :func:`build_backend`;
* ``type=`` validators (:func:`positive_int`, :func:`non_negative_int`, :func:`positive_float`,
  :func:`output_dir`, :func:`existing_file`, :func:`comma_list`), so a bad flag value is a usage
  error (exit status 2, ``error: ...``) and never a traceback;
* :class:`HelpFormatter` -- shows every option's default and keeps descriptions as written;
* :func:`add_executor_options` -- ``--executor local|ray`` and the Ray options, on every benchmark
  command (:mod:`benchmarks.distributed`); under an executor, :func:`backend_from_args` hands out
  :class:`BackendHandle` s, which a worker process rebuilds from their options (:func:`backends_as`).

A long run shows a progress bar on a terminal: :func:`progress_bar` (tqdm on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.errors import RunnerError
from benchmarks.results import FAULT_WORDS
from benchmarks.runner import progress_bar

__all__ = [
    "BACKENDS", "EXECUTORS", "FALLBACKS", "BackendHandle", "HelpFormatter", "LLMSettings", "add_executor_options",
    "add_format_option", "add_llm_options", "add_run_options", "backend_from_args", "backend_spec", "backends_as", "share_backends",
    "build_backend", "comma_list", "existing_file", "llm_settings", "non_negative_int",
    "output_dir", "positive_float", "positive_int", "progress_bar", "refuse_options", "split_list", "Refused",
]

BACKENDS = ("vllm", "openai")
FALLBACKS = ("raise", "random")


@dataclass(frozen=True)
class Command:
    """A ``tom-envs`` subcommand that a family adds beside its benchmark (``Family.commands`` names
    it as ``"module:attribute"``): its name, its one-line help, the function adding its options and
    the one running it (``run(args) -> exit status``)."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str | None = None


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows each option's default (``(default: ...)``, unless its help already says what the
    default is) and keeps descriptions' line breaks."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "default" in text.lower():
            return text
        return super()._get_help_string(action)


# ---------------------------------------------------------------------- validators (argparse type=)
def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _int_from(text: str, low: int, says: str) -> int:
    value = _int(text)
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {says}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1."""
    return _int_from(text, 1, "at least 1")


#: Upper bounds of the size options (a typo such as ``--episodes 100000000000`` is a usage error, said
#: at once, not a MemoryError or a run that never ends).
MAX_EPISODES = 1_000_000
MAX_LOCKSTEP = 100_000


def count(high: int) -> Callable[[str], int]:
    """An ``argparse`` type: an integer in ``1..high``."""
    def parse(text: str) -> int:
        value = positive_int(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, got {value:,}")
        return value

    parse.__name__ = "count"  # argparse names the type in its messages
    return parse


def non_negative_int(text: str) -> int:
    """An integer >= 0."""
    return _int_from(text, 0, "0 or more")


def positive_float(text: str) -> float:
    """A finite number > 0."""
    value = _float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
    return value


def output_dir(text: str) -> str:
    """A folder to write into: it may not exist yet, but neither it nor a parent may be a file."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder, got an empty path")
    path = Path(text).expanduser()
    for p in (path, *path.parents):
        if p.exists():
            if not p.is_dir():
                what = "is a file" if p == path else f"is inside {p}, which is a file"
                raise argparse.ArgumentTypeError(f"{text!r} {what}; give a folder")
            break
    return text


def existing_file(text: str) -> str:
    """A file that exists."""
    path = Path(text).expanduser()
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text!r} {'is a folder' if path.is_dir() else 'does not exist'}; give a file")
    return text


def given_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> set[str]:
    """The ``dest`` of every option of ``parser`` written in ``argv`` (``--name`` or ``--name=value``, and
    argparse's unambiguous abbreviations): what the user set, as opposed to a default. ``tom-envs`` keeps
    it as ``args.given`` for :func:`not_applicable`."""
    strings = parser._option_string_actions
    given = set()
    for token in argv:
        if not token.startswith("--") or token == "--":
            continue
        key = token.split("=", 1)[0]
        action = strings.get(key)
        if action is None:
            matches = {strings[s] for s in strings if s.startswith(key)}
            action = matches.pop() if len(matches) == 1 else None
        if action is not None:
            given.add(action.dest)
    return given


def not_applicable(args: argparse.Namespace, dests: Sequence[str], why: str) -> None:
    """A named error for options written on the command line that would change nothing ``why`` (e.g.
    ``"without --policy llm"``): an option silently ignored reads as if it had been used. Only what the
    user wrote counts (``args.given``, set by ``tom-envs``; a namespace built elsewhere has none).

    Raises:
        RunnerError: naming the options and why they do not apply.
    """
    given = getattr(args, "given", None) or set()
    used = [d for d in dests if d in given]
    if used:
        flags = ", ".join("--" + d.replace("_", "-") for d in used)
        raise RunnerError(f"{flags} {'does' if len(used) == 1 else 'do'} nothing {why}: drop "
                          f"{'it' if len(used) == 1 else 'them'}")


class Refused(argparse.Action):
    """An option of the shared vocabulary that does not apply to this command: writing it is a usage error
    (exit status 2) that says why, instead of argparse's "unrecognized arguments" (:func:`refuse_options`)."""

    def __init__(self, option_strings: Sequence[str], dest: str, why: str = "", **kwargs: Any) -> None:
        kwargs.update(nargs="?", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)
        self.why = why

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        parser.error(f"{option_string} does not apply to `{parser.prog}`: {self.why}")


def refuse_options(parser: argparse.ArgumentParser, options: dict[str, str]) -> None:
    """Declare options of the shared vocabulary (``--plot``, ``--policy``, ...) that ``parser``'s command
    does not take, each with why (:class:`Refused`; hidden from ``--help``); a flag the command has is left alone."""
    for flag, why in options.items():
        if flag not in parser._option_string_actions:
            parser.add_argument(flag, action=Refused, why=why)


def split_list(text: str) -> list[str]:
    """The non-empty items of a comma-separated list, stripped (no validation)."""
    return [x.strip() for x in text.split(",") if x.strip()]


def comma_list(choices: Sequence[str] | None = None, *, name: str = "item",
               extra: Callable[[str], bool] | None = None) -> Callable[[str], str]:
    """A ``type=`` for a comma-separated list: non-empty, without duplicates, and (with
    ``choices``) every item one of them or accepted by ``extra(item)``. The value stays the text
    (commands split it with :func:`split_list`), so defaults and old callers are unchanged."""

    def parse(text: str) -> str:
        items = split_list(text)
        if not items:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list ({name}, ...), got {text!r}")
        seen = {x for x in items if items.count(x) > 1}
        if seen:
            raise argparse.ArgumentTypeError(f"{name} {', '.join(sorted(seen))} given twice")
        if choices is not None:
            bad = [x for x in items if x not in choices and not (extra and extra(x))]
            if bad:
                raise argparse.ArgumentTypeError(f"unknown {name} {', '.join(map(repr, bad))}; choose from "
                                                 f"{', '.join(choices)}")
        return text

    parse.__name__ = f"{name} list"  # argparse names the type in some messages
    return parse


# ---------------------------------------------------------------------- option groups
def add_format_option(parser: argparse.ArgumentParser | Any) -> None:
    """``--format table|json``."""
    parser.add_argument("--format", choices=["table", "json"], default="table",
                        help="table: the paper's layout; json: the rows, nothing else on stdout")


class OneSpelling(argparse.Action):
    """Stores an option's value, and makes two spellings of it on one command line (``--episodes 3
    --runs 5``: an option and its alias) a usage error rather than letting the last one win."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: per namespace (by id, checked against a weak reference: ids are reused): the spelling that set it
        self._spelled: dict[int, tuple[weakref.ref, str | None]] = {}

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        ref, before = self._spelled.get(id(namespace), (None, None))
        if ref is not None and ref() is namespace and before != option_string:
            parser.error(f"{before} and {option_string} are two names of one option; give it once")
        self._spelled = {k: v for k, v in self._spelled.items() if v[0]() is not None}
        self._spelled[id(namespace)] = (weakref.ref(namespace), option_string)
        setattr(namespace, self.dest, values)


@dataclass(frozen=True)
class RunOptions:
    """How a command spells the options every benchmark reads (:func:`add_run_options`).

    Attributes:
        episodes: default of ``--episodes`` (None: the command picks, say so in ``episodes_help``).
        episodes_help: what one repetition is in this family.
        episode_aliases: old names kept working (``--runs``, ``--repetitions``).
        seed_help: how seeds derive from ``--seed``.
        out: default results folder (None: no ``--out``).
        plot: help of ``--plot DIR`` (None: the command draws nothing).
        policy: default of ``--policy`` (None: no ``--policy``).
        policy_help: the policies it knows.
        policy_type: validator of ``--policy`` (default: a comma list).
        output_format: add ``--format``.
    """

    episodes: int | None = 30
    episodes_help: str | None = None
    episode_aliases: Sequence[str] = ()
    seed_help: str | None = None
    out: str | None = "results"
    plot: str | None = None
    policy: str | None = None
    policy_help: str | None = None
    policy_type: Callable[[str], Any] | None = None
    output_format: bool = True


def add_run_options(parser: argparse.ArgumentParser, options: RunOptions | None = None, **fields: Any) -> None:
    """The options every benchmark reads, with the same names everywhere: ``--episodes``,
    ``--seed``, ``--out``, ``--plot``, ``--format``, ``--policy`` as ``options`` (or its fields as
    keywords, e.g. ``add_run_options(parser, episodes=5, policy="random")``) spells them."""
    o = options if options is not None else RunOptions(**fields)
    parser.add_argument("--episodes", *o.episode_aliases, dest="episodes", type=count(MAX_EPISODES), default=o.episodes,
                        action=OneSpelling if o.episode_aliases else "store",
                        help=o.episodes_help or "episodes per cell (episode i uses seed + i)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help=o.seed_help or "the first episode's seed")
    if o.out is not None:
        parser.add_argument("--out", type=output_dir, default=o.out,
                            help="folder of the result records (a rerun resumes from them)")
    if o.plot is not None:
        parser.add_argument("--plot", metavar="DIR", type=output_dir, default=None, help=o.plot)
    if o.output_format:
        add_format_option(parser)
    if o.policy is not None:
        parser.add_argument("--policy", type=o.policy_type or comma_list(name="policy"), default=o.policy,
                            help=o.policy_help or "comma-separated policies, one cell each")


LLM_OPTIONS = ("backend", "model", "base_url", "tokenizer", "max_model_len", "fallback", "max_resamples", "lockstep",
               "scoring_path", "engine_arg", "timeout", "max_retries", "retry_budget")
#: The server options' defaults (those of :class:`policies.llm.OpenAIBackend`).
SERVER_DEFAULTS = {"timeout": 60.0, "max_retries": 6, "retry_budget": 120.0}
#: How a backend gets label log-probabilities (``policies.llm.scoring.SCORING_PATHS`` plus ``auto``).
SCORING_PATH_CHOICES = ("auto", "next-token", "prompt-logprobs")


def engine_arg(text: str) -> tuple[str, Any]:
    """``type=`` for ``--engine-arg KEY=VALUE``: the value read as JSON (true, 4096, ...), else as text."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip().isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a vllm.LLM argument name, got {text!r}")
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = {"True": True, "False": False}.get(value, value)
    return key.strip(), parsed


def add_llm_options(parser: argparse.ArgumentParser, *, title: str = "LLM policies (--policy llm)",
                    lockstep: int | None = 32, lockstep_help: str | None = None,
                    max_model_len_help: str | None = None,
                    only: Sequence[str] = LLM_OPTIONS) -> argparse._ArgumentGroup:
    """The one LLM option group, returned so a family can add its own LLM options to it; ``only`` keeps a
    subset (names as in :data:`LLM_OPTIONS`) for commands that use fewer."""
    unknown = set(only) - set(LLM_OPTIONS)
    if unknown:
        raise RunnerError(f"unknown LLM options {sorted(unknown)}; choose from {', '.join(LLM_OPTIONS)}")
    options: dict[str, tuple[tuple, dict]] = {
        "backend": (("--backend",), dict(choices=BACKENDS, default="vllm",
                                         help="vllm: an in-process engine; openai: any OpenAI-compatible server")),
        "model": (("--model",), dict(default=None, help="a known short name (smollm2-135m: `tom-envs model list`); vllm: "
                                     "a local model folder; openai: the served model name")),
        "base_url": (("--base-url",), dict(default=None, help="openai: the server's base URL, e.g. "
                                                               "http://127.0.0.1:8000/v1 (key from OPENAI_API_KEY)")),
        "tokenizer": (("--tokenizer",), dict(default=None, help="openai: a local tokenizer for chat-template scoring")),
        "max_model_len": (("--max-model-len",), dict(type=positive_int, default=None, help=max_model_len_help
                                                     or "vllm: context length (default: the model's)")),
        "fallback": (("--fallback",), dict(choices=FALLBACKS, default="raise", help="after the bounded re-asks: "
                                           "raise, or a uniformly random choice (flagged and counted)")),
        "max_resamples": (("--max-resamples",), dict(type=non_negative_int, default=10,
                                                     help="re-asks after a reply that names no valid choice")),
        "lockstep": (("--lockstep",), dict(type=count(MAX_LOCKSTEP), default=lockstep, help=lockstep_help
                                           or "episodes stepped at once (one backend call per prompting stage)")),
        "scoring_path": (("--scoring-path",), dict(choices=SCORING_PATH_CHOICES, default="auto", help=(
            "how label log-probabilities are read: next-token (max_tokens=1 requests that share the prompt's prefix "
            "cache), prompt-logprobs (the prompt's own log-probabilities; never cached), auto (next-token where the "
            "backend supports it); equal scores either way"))),
        "engine_arg": (("--engine-arg",), dict(action="append", type=engine_arg, default=[], metavar="KEY=VALUE",
                                               help="vllm: one more vllm.LLM argument (repeatable; values read as "
                                                    "JSON, else text), e.g. gpu_memory_utilization=0.8")),
        "timeout": (("--timeout",), dict(type=positive_float, default=SERVER_DEFAULTS["timeout"], metavar="SECONDS",
                                         help="openai: seconds per HTTP attempt")),
        "max_retries": (("--max-retries",), dict(type=non_negative_int, default=SERVER_DEFAULTS["max_retries"],
                                                 help="openai: most retries of one request (timeouts, 408/409/429/5xx, "
                                                      "garbled replies)")),
        "retry_budget": (("--retry-budget",), dict(type=positive_float, default=SERVER_DEFAULTS["retry_budget"],
                                                   metavar="SECONDS", help="openai: seconds after the start of a call "
                                                   "during which retries may still start")),
    }
    llm = parser.add_argument_group(title)
    for name in LLM_OPTIONS:
        if name in only:
            flags, kwargs = options[name]
            llm.add_argument(*flags, **kwargs)
    return llm


class LLMSettings(dict):
    """The LLM options as a dict; what identifies an LLM run in results keys is :meth:`identity`."""

    def identity(self) -> dict[str, Any]:
        """Backend, model, (openai) base URL, the model's exact identity (never an API key)."""
        from benchmarks.models import run_model_identity as exact

        return {"backend": self["backend"], "model": self["model"], "base_url": self["base_url"] if self["backend"]
                == "openai" else None, "model_identity": exact(self["backend"], self["model"])}


def llm_settings(args: argparse.Namespace) -> LLMSettings:
    """The LLM option group's values (checked when the backend is built: :func:`build_backend`)."""
    return LLMSettings(backend=args.backend, model=args.model, base_url=args.base_url,
                       tokenizer=getattr(args, "tokenizer", None), max_model_len=getattr(args, "max_model_len", None),
                       fallback=getattr(args, "fallback", "raise"), max_resamples=getattr(args, "max_resamples", 10),
                       scoring_path=getattr(args, "scoring_path", "auto"),
                       engine_args=dict(getattr(args, "engine_arg", None) or []),
                       server={k: getattr(args, k, None) if getattr(args, k, None) is not None else v
                               for k, v in SERVER_DEFAULTS.items()})


# ---------------------------------------------------------------------- backends
def build_backend(kind: str, model: str | None, base_url: str | None = None, seed: int = 0,
                  tokenizer: str | None = None, max_model_len: int | None = None, scoring_path: str = "auto",
                  options: dict[str, Any] | None = None) -> Any:
    """The LLM backend named on the command line: :func:`policies.llm.build_backend` (the one
    builder; imported only when a backend is needed). Its ``BackendConfigError`` is a
    ``TomEnvsError``, so the command prints ``error: ...`` and exits with 2. ``options`` are the
    backend's own keywords: the in-process vllm engine's (``--engine-arg``), or the server client's
    (``--timeout --max-retries --retry-budget``: ``timeout``, ``max_retries``, ``retry_budget_s``).
    Every backend built here is summarised on stderr when the command ends (:func:`server_summary`)."""
    from policies.llm import build_backend as build

    backend = build(kind, model, base_url=base_url, seed=seed, tokenizer=tokenizer, max_model_len=max_model_len,
                    scoring_path=scoring_path, **(options or {}))
    BUILT.append(backend)
    return backend


#: The backends :func:`build_backend` built in this process (for :func:`server_summary`).
BUILT: list[Any] = []


def server_summary() -> list[str]:
    """One line per backend built by the command line that met trouble (retried requests), to be
    printed on stderr when the command ends (or, when none was built here, what the records this process wrote
    met: their backends ran in Ray workers); forgets them. The records and rows count the same
    retries per episode (``llm_faults``, ``llm_retries``...: :func:`benchmarks.runner.fault_columns`)."""
    lines = []
    for backend in BUILT:
        stats = getattr(backend, "stats", None)
        if stats is not None and getattr(stats, "retries", 0):
            where = getattr(backend, "base_url", None) or type(backend).__name__
            kinds = ", ".join(f"{n} {FAULT_WORDS.get(k, k)}" for k, n in (getattr(stats, "faults", None) or {}).items()
                              if n)
            lines.append(f"note: the server at {where} needed {stats.retries} retried attempt(s) ({kinds}) over "
                         f"{stats.requests} request(s); every record holds a served reply and counts its episode's "
                         "retries in llm_faults (raise --max-retries / --retry-budget / --timeout if runs stop on a "
                         "flaky or slow server)")
    from benchmarks.results import appended_faults_note

    note = appended_faults_note()  # what the records written here met, wherever their backends ran (Ray workers)
    BUILT.clear()
    return lines or note


def backend_from_args(args: argparse.Namespace, seed: int | None = None) -> Any:
    """:func:`build_backend` from the LLM option group (seed: ``args.seed`` unless given).

    Under an executor that plays cells in other processes (:func:`backends_as`), the backend is a
    :class:`BackendHandle` instead: built where it is first used, and sent to a worker as its
    options, where each worker builds it once and shares it with every cell it plays.

    Raises:
        RunnerError: ``--engine-arg`` with ``--backend openai``.
    """
    spec = backend_spec(args, seed)
    if _BACKEND_MODE[-1] == "direct":
        return build_backend(*spec)
    return BackendHandle(spec) if _BACKEND_MODE[-1] == "handle" else shared_backend(spec)


def backend_spec(args: argparse.Namespace, seed: int | None = None) -> tuple:
    """The arguments of :func:`build_backend` that the LLM option group names (see :func:`backend_from_args`)."""
    s = llm_settings(args)
    if s["engine_args"] and s["backend"] != "vllm":
        raise RunnerError("--engine-arg configures the in-process vllm engine; drop it with --backend openai")
    if s["backend"] == "openai":
        server = s["server"]
        options = {"timeout": server["timeout"], "max_retries": server["max_retries"],
                   "retry_budget_s": server["retry_budget"]}
    else:
        options = s["engine_args"]
    return (s["backend"], s["model"], s["base_url"], args.seed if seed is None else seed, s["tokenizer"],
            s["max_model_len"], s["scoring_path"], dict(options))


# ---------------------------------------------------------------------- backends in other processes
#: How :func:`backend_from_args` hands out backends: "direct" (built at once, the default), "handle"
#: (a :class:`BackendHandle`: the driver of an executor), "shared" (one per options per process: an
#: executor's worker). Set with :func:`backends_as`.
_BACKEND_MODE: list[str] = ["direct"]
#: A worker's backends by options (:func:`shared_backend`).
_SHARED: dict[str, "BackendHandle"] = {}


@contextlib.contextmanager
def backends_as(mode: str) -> Iterator[None]:
    """Within the block, :func:`backend_from_args` returns backends as ``mode`` says (see
    :data:`_BACKEND_MODE`): an executor sets "handle" in its driver and "shared" in its workers."""
    if mode not in ("direct", "handle", "shared"):
        raise RunnerError(f"unknown backend mode {mode!r}; choose direct, handle or shared")
    _BACKEND_MODE.append(mode)
    try:
        yield
    finally:
        _BACKEND_MODE.pop()


def share_backends() -> None:
    """Make this process an executor's worker for good: :func:`backend_from_args` hands out its one
    shared backend per options from now on (:func:`shared_backend`)."""
    _BACKEND_MODE[:] = ["shared"]


class BackendHandle:
    """A backend named by its options (:func:`backend_spec`), built on first use.

    It stands for the backend (every attribute is the built backend's) and pickles as its options:
    a cell whose policy holds one can be sent to another process (an executor's worker), where it
    becomes that process's shared backend of the same options (:func:`shared_backend`), built once
    and used by every cell the worker plays. ``close`` closes what this handle built; a shared one
    lives as long as its process.
    """

    def __init__(self, spec: tuple, shared: bool = False) -> None:
        _check_spec(spec)
        self.spec, self.shared = spec, shared
        self._backend: Any = None

    @property
    def backend(self) -> Any:
        """The backend (built now if it was not yet)."""
        if self._backend is None:
            self._backend = build_backend(*self.spec)
        return self._backend

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("spec", "shared", "_backend"):
            raise AttributeError(name)
        return getattr(self.backend, name)

    def close(self) -> None:
        if self._backend is not None and not self.shared:
            self._backend.close()
            self._backend = None

    def __reduce__(self) -> tuple:
        return shared_backend, (self.spec,)


def shared_backend(spec: tuple) -> BackendHandle:
    """This process's one backend of ``spec`` (a worker's: its cells share it; never closed by them)."""
    key = json.dumps(spec, sort_keys=True, default=str)
    if key not in _SHARED:
        _SHARED[key] = BackendHandle(spec, shared=True)
    return _SHARED[key]


def _check_spec(spec: tuple) -> None:
    """What :func:`policies.llm.build_backend` would refuse, said at once (not in a worker later)."""
    from policies.llm.build import check_backend_options

    check_backend_options(*spec[:3])


# ---------------------------------------------------------------------- past one machine
EXECUTORS = ("local", "ray")


#: The options :func:`add_executor_options` adds (commands without them refuse them all with one reason).
EXECUTOR_FLAGS = ("--executor", "--ray-address", "--ray-num-cpus", "--ray-workers", "--ray-worker-gpus", "--ray-chunk")
#: The LLM group's flags (:data:`LLM_OPTIONS` as written on the command line).
LLM_FLAGS = tuple("--" + o.replace("_", "-") for o in LLM_OPTIONS)


def add_executor_options(parser: argparse.ArgumentParser) -> None:
    """``--executor local|ray`` and the Ray options (``--ray-address --ray-num-cpus --ray-workers
    --ray-worker-gpus --ray-chunk``): every benchmark command has them (benchmarks/distributed.py)."""
    dist = parser.add_argument_group("past one machine (benchmarks/distributed.py, docs/distributed.md)")
    dist.add_argument("--executor", choices=EXECUTORS, default="local",
                      help="ray: the missing episodes are played by Ray workers (LLM policies: each worker holds "
                           "its own backend); the driver writes the results as they arrive")
    dist.add_argument("--ray-address", default=None,
                      help="join a running cluster ('auto', 'HOST:6379', 'ray://host:10001'); default: start a "
                           "local one that ends with the command")
    dist.add_argument("--ray-num-cpus", type=positive_int, default=None,
                      help="CPUs of the local Ray instance (default: all)")
    dist.add_argument("--ray-workers", type=positive_int, default=None,
                      help="Ray workers (actors) playing episodes (default: one per CPU of the cluster, or per "
                           "--ray-worker-gpus share of its GPUs)")
    dist.add_argument("--ray-worker-gpus", type=_non_negative_float, default=0.0,
                      help="GPUs each worker reserves (1 for an in-process vllm engine per worker)")
    dist.add_argument("--ray-chunk", type=positive_int, default=None,
                      help="episodes per piece of work sent to a worker, rounded up to a multiple of the lockstep size "
                           "(default: 25, or the lockstep size when larger)")


def _non_negative_float(text: str) -> float:
    value = _float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value
