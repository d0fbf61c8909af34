"""The command-line vocabulary every benchmark shares: option groups, refusals, the help formatter.

Every command reads the same names (docs/architecture.md, "One spine"):

* :func:`add_run_options` -- ``--episodes`` (repetitions; old names such as ``--runs`` or
  ``--repetitions`` as aliases), ``--seed``, ``--out``, ``--format table|json``, ``--plot DIR``,
  ``--policy``;
* :func:`add_llm_options` -- the LLM option group (``--backend --model --base-url --tokenizer
  --max-model-len --fallback --max-resamples --lockstep``), read back by :func:`llm_settings` and
  turned into a backend by :func:`build_backend` (:mod:`benchmarks.cli_llm`, :mod:`benchmarks.cli_backends`);
* ``type=`` validators (:func:`positive_int`, :func:`non_negative_int`, :func:`positive_float`,
  :func:`output_dir`, :func:`existing_file`, :func:`comma_list`: :mod:`benchmarks.cli_types`), so a bad
  flag value is a usage error (exit status 2, ``error: ...``) and never a traceback;
* :class:`HelpFormatter` -- shows every option's default and keeps descriptions as written;
* :func:`refuse_options` -- an option of this vocabulary a command does not take is a usage error saying
  why (:class:`Refused`); :func:`not_applicable` -- one that would change nothing is a named error;
* :func:`add_executor_options` -- ``--executor local|ray`` and the Ray options, on every benchmark
  command (:mod:`benchmarks.distributed`); under an executor, :func:`backend_from_args` hands out
  :class:`BackendHandle` s, which a worker process rebuilds from their options (:func:`backends_as`).

A long run shows a progress bar on a terminal: :func:`progress_bar` (tqdm on stderr).

This module defines the option groups and the refusals; the names of the other modules listed above
are re-exported here, so ``benchmarks.cli`` stays the one place a command's vocabulary is found.
"""

from __future__ import annotations

import argparse
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.cli_backends import (
    BackendHandle,
    backend_from_args,
    backend_spec,
    backends_as,
    build_backend,
    server_summary,
    share_backends,
)
from benchmarks.cli_llm import BACKENDS, FALLBACKS, LLMSettings, add_llm_options, llm_settings
from benchmarks.cli_types import (
    MAX_EPISODES,
    comma_list,
    count,
    existing_file,
    non_negative_float,
    non_negative_int,
    output_dir,
    positive_float,
    positive_int,
    split_list,
)
from benchmarks.errors import RunnerError
from benchmarks.runner import progress_bar

__all__ = [
    "Applies",
    "BACKENDS",
    "EXECUTORS",
    "FALLBACKS",
    "BackendHandle",
    "check_applies",
    "declare_applies",
    "HelpFormatter",
    "LLMSettings",
    "add_executor_options",
    "add_format_option",
    "add_llm_options",
    "add_run_options",
    "backend_from_args",
    "backend_spec",
    "backends_as",
    "share_backends",
    "build_backend",
    "comma_list",
    "existing_file",
    "llm_settings",
    "non_negative_int",
    "output_dir",
    "positive_float",
    "positive_int",
    "progress_bar",
    "refuse_options",
    "split_list",
    "Refused",
    "CheckedAction",
    "server_summary",
]


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
        if "default" in text.lower() or isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            return text  # a flag's default is its absence ("--no-prompts (default: True)" read as on by default)
        return super()._get_help_string(action)


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
        raise RunnerError(
            f"{flags} {'does' if len(used) == 1 else 'do'} nothing {why}: drop {'it' if len(used) == 1 else 'them'}"
        )


@dataclass(frozen=True)
class Applies:
    """When an option of a command does something, declared once beside the option (:func:`declare_applies`)
    and enforced for every command by ``tom-envs`` (:func:`check_applies`): written on a command line where it
    would change nothing, the option is a named error instead of being ignored.

    Attributes:
        why: what it needs, as the message ends: ``"does nothing {why}: drop it"`` (e.g. ``"without
            --policy llm"``).
        policies: it acts when ``--policy`` names one of these (empty: no such condition).
        when: it acts when ``when(args)`` holds (None: no such condition). With both, either suffices.
    """

    why: str
    policies: tuple[str, ...] = ()
    when: Callable[[argparse.Namespace], bool] | None = None

    def holds(self, args: argparse.Namespace) -> bool:
        from benchmarks.cli_types import split_list

        named = set(split_list(getattr(args, "policy", "") or "")) if self.policies else set()
        return bool(named & set(self.policies)) or (self.when is not None and bool(self.when(args)))


def declare_applies(parser: argparse.ArgumentParser, table: dict[str, Applies]) -> None:
    """Declare when the options ``table`` names (by ``dest``) act on ``parser``'s command (:class:`Applies`);
    declarations add up (a later one for the same option replaces it)."""
    current = parser.get_default("applies_rules") or {}
    parser.set_defaults(applies_rules={**current, **table})


def check_applies(args: argparse.Namespace) -> None:
    """Every option written on the command line (``args.given``) whose declared condition does not hold is a
    :class:`~benchmarks.errors.RunnerError` naming it and what it needs (the first such option, in declaration
    order)."""
    for dest, rule in (getattr(args, "applies_rules", None) or {}).items():
        if not rule.holds(args):
            not_applicable(args, [dest], rule.why)


class CheckedAction(argparse.Action):
    """An option whose writing is checked first: :meth:`check` names a usage error (argparse's exit status 2)
    or returns None, and the value is stored (:class:`Refused`, :class:`OneSpelling`)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        error = self.check(parser, namespace, option_string)
        if error is not None:
            parser.error(error)
        setattr(namespace, self.dest, values)

    def check(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, option_string: str | None
    ) -> str | None:
        """The usage error of writing this option here (``option_string``: how it was spelled), else None."""
        raise NotImplementedError


class Refused(CheckedAction):
    """An option of the shared vocabulary that does not apply to this command: writing it is a usage error
    (exit status 2) that says why, instead of argparse's "unrecognized arguments" (:func:`refuse_options`)."""

    def __init__(self, option_strings: Sequence[str], dest: str, why: str = "", **kwargs: Any) -> None:
        kwargs.update(nargs="?", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)
        self.why = why

    def check(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, option_string: str | None) -> str:
        return f"{option_string} does not apply to `{parser.prog}`: {self.why}"


def refuse_options(parser: argparse.ArgumentParser, options: dict[str, str]) -> None:
    """Declare options of the shared vocabulary (``--plot``, ``--policy``, ...) that ``parser``'s command
    does not take, each with why (:class:`Refused`; hidden from ``--help``); a flag the command has is left alone."""
    for flag, why in options.items():
        if flag not in parser._option_string_actions:
            parser.add_argument(flag, action=Refused, why=why)


# ---------------------------------------------------------------------- option groups
def add_format_option(parser: argparse.ArgumentParser | Any) -> None:
    """``--format table|json``."""
    parser.add_argument(
        "--format",
        choices=["table", "json"],
        default="table",
        help="table: the paper's layout; json: the rows, nothing else on stdout",
    )


class OneSpelling(CheckedAction):
    """Stores an option's value, and makes two spellings of it on one command line (``--episodes 3
    --runs 5``: an option and its alias) a usage error rather than letting the last one win."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: per namespace (by id, checked against a weak reference: ids are reused): the spelling that set it
        self._spelled: dict[int, tuple[weakref.ref, str | None]] = {}

    def check(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, option_string: str | None
    ) -> str | None:
        ref, before = self._spelled.get(id(namespace), (None, None))
        if ref is not None and ref() is namespace and before != option_string:
            return f"{before} and {option_string} are two names of one option; give it once"
        self._spelled = {k: v for k, v in self._spelled.items() if v[0]() is not None}
        self._spelled[id(namespace)] = (weakref.ref(namespace), option_string)
        return None


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
    parser.add_argument(
        "--episodes",
        *o.episode_aliases,
        dest="episodes",
        type=count(MAX_EPISODES),
        default=o.episodes,
        action=OneSpelling if o.episode_aliases else "store",
        help=o.episodes_help or "episodes per cell (episode i uses seed + i)",
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help=o.seed_help or "the first episode's seed")
    if o.out is not None:
        parser.add_argument(
            "--out", type=output_dir, default=o.out, help="folder of the result records (a rerun resumes from them)"
        )
    if o.plot is not None:
        parser.add_argument("--plot", metavar="DIR", type=output_dir, default=None, help=o.plot)
    if o.output_format:
        add_format_option(parser)
    if o.policy is not None:
        parser.add_argument(
            "--policy",
            type=o.policy_type or comma_list(name="policy"),
            default=o.policy,
            help=o.policy_help or "comma-separated policies, one cell each",
        )


# ---------------------------------------------------------------------- past one machine
EXECUTORS = ("local", "ray")


#: The options :func:`add_executor_options` adds (commands without them refuse them all with one reason).
EXECUTOR_FLAGS = (
    "--executor",
    "--ray-address",
    "--ray-num-cpus",
    "--ray-workers",
    "--ray-worker-gpus",
    "--ray-chunk",
    "--ray-lost-workers",
)


def add_executor_options(parser: argparse.ArgumentParser) -> None:
    """``--executor local|ray`` and the Ray options (``--ray-address --ray-num-cpus --ray-workers
    --ray-worker-gpus --ray-chunk --ray-lost-workers``): every benchmark command has them
    (benchmarks/distributed.py)."""
    from benchmarks.distributed import DEFAULT_LOST_WORKERS  # imports no Ray

    dist = parser.add_argument_group("past one machine (benchmarks/distributed.py, docs/distributed.md)")
    dist.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="local",
        help="ray: the missing episodes are played by Ray workers (LLM policies: each worker holds "
        "its own backend); the driver writes the results as they arrive",
    )
    dist.add_argument(
        "--ray-address",
        default=None,
        help="join a running cluster ('auto', 'HOST:6379', 'ray://host:10001'); default: start a "
        "local one that ends with the command",
    )
    dist.add_argument(
        "--ray-num-cpus", type=positive_int, default=None, help="CPUs of the local Ray instance (default: all)"
    )
    dist.add_argument(
        "--ray-workers",
        type=positive_int,
        default=None,
        help="Ray workers (actors) playing episodes (default: one per CPU of the cluster, or per "
        "--ray-worker-gpus share of its GPUs)",
    )
    dist.add_argument(
        "--ray-worker-gpus",
        type=non_negative_float,
        default=0.0,
        help="GPUs each worker reserves (1 for an in-process vllm engine per worker)",
    )
    dist.add_argument(
        "--ray-chunk",
        type=positive_int,
        default=None,
        help="episodes per piece of work sent to a worker, rounded up to a multiple of the lockstep size "
        "(default: 25, or the lockstep size when larger)",
    )
    dist.add_argument(
        "--ray-lost-workers",
        type=non_negative_int,
        default=None,
        help="how many Ray workers may die during the command (a killed or crashed worker process, a "
        "lost node): each is replaced and its piece played again; one more stops the command "
        f"(default: {DEFAULT_LOST_WORKERS})",
    )
