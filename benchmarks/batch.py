"""``tom-envs batch FILE``: run a list of ``tom-envs`` commands in one process, sharing one LLM engine.

Each non-blank line of ``FILE`` that does not start with ``#`` is one command line, written as on a shell
(``tom-envs matrix --policy llm --model smollm2-135m ...``; the leading ``tom-envs`` is optional; a trailing
``\\`` continues a line; ``${NAME}`` is the environment variable NAME, and a line naming an unset one is
skipped with a note, e.g. a line that reads a dataset release from ``${TOM_ENVS_COMMON_TOM_RELEASE}``).

The commands run in order, in this process, with LLM backends handed out as shared ones
(:func:`benchmarks.cli.backends_as`): every command whose LLM options are the same (backend, model, seed,
context length, engine arguments) uses one engine, started once, instead of one each -- on a CPU the start is
most of a short command's wall time. Every command writes its records as it would alone, so a rerun of the
batch resumes each of them. The batch stops at the first command that fails and names it (exit status: that
command's). ``make results`` runs ``docs/results/commands.txt`` this way (docs/results/README.md).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tom_envs.errors import TomEnvsError


#: ``${NAME}`` in a command line: replaced by the environment variable; a line naming an unset one is skipped.
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class BatchFileError(TomEnvsError, ValueError):
    """A batch file that cannot be read as a list of ``tom-envs`` command lines."""


def read_commands(
    path: Path, skipped: list[tuple[int, str]] | None = None, written: dict[int, list[str]] | None = None
) -> list[tuple[int, list[str]]]:
    """The (line number, argv) of every command in ``path`` (see the module doc); a line naming an unset
    ``${VARIABLE}`` is left out and listed in ``skipped`` as (line number, why). ``written`` (if given) gets each
    command's argv as the file writes it, ``${VARIABLE}`` kept: what the records' ``.runs`` lines name, so that
    they show no folder of the machine that ran them.

    Raises:
        BatchFileError: an unbalanced quote, a nested ``batch``, or no command at all.
    """
    commands: list[tuple[int, list[str]]] = []
    skipped = [] if skipped is None else skipped
    pending, start = "", 0
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        text, pending = pending + line, ""
        missing = [name for name in _VARIABLE.findall(text) if not os.environ.get(name)]
        if missing:
            skipped.append((start, f"needs ${{{missing[0]}}} (unset)"))
            continue
        as_written, text = text, _VARIABLE.sub(lambda m: os.environ[m.group(1)], text)
        argv = _argv(path, start, text)
        if not argv:
            continue
        if argv[0] == "batch":
            raise BatchFileError(f"{path}:{start}: a batch cannot run another batch")
        commands.append((start, argv))
        if written is not None:
            written[start] = _argv(path, start, as_written)
    if pending:
        raise BatchFileError(f"{path}: the last line ends with '\\' but nothing follows it")
    if not commands:
        raise BatchFileError(f"{path} holds no command (one `tom-envs COMMAND ...` per line; # starts a comment)")
    return commands


def _argv(path: Path, start: int, text: str) -> list[str]:
    """The argv of a command line, without a leading ``tom-envs`` or ``python -m benchmarks``."""
    try:
        argv = shlex.split(text, comments=True)
    except ValueError as exc:
        raise BatchFileError(f"{path}:{start}: {exc}; quote each argument as on a shell") from None
    if argv and argv[0] == "tom-envs":
        argv = argv[1:]
    if argv[:3] == ["python", "-m", "benchmarks"]:
        argv = argv[3:]
    return argv


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="one tom-envs command line per line (# comments, \\ continues)")
    parser.add_argument("--dry-run", action="store_true", help="print the commands and stop")
    parser.add_argument(
        "--format",
        choices=["table", "json"],
        default="table",
        help="table: each command's own output; json: only one JSON object at the end (the commands "
        "run, their exit status and seconds, the lines skipped)",
    )


def run(args: argparse.Namespace, main: Callable[[list[str]], int]) -> int:
    """Run the batch file ``args.file``, each command through ``main`` (``tom-envs``'s own entry point)."""
    from benchmarks.cli_backends import SHARED_BACKENDS, backends_as
    from benchmarks.results import written_as

    if not args.file.is_file():
        raise BatchFileError(f"no batch file {args.file}")
    skipped: list[tuple[int, str]] = []
    written: dict[int, list[str]] = {}
    commands = read_commands(args.file, skipped, written)
    for number, why in skipped:
        print(f"[batch] {args.file}:{number}: skipped: {why}", file=sys.stderr)
    if args.dry_run:
        if args.format == "json":
            print(
                json.dumps(
                    {
                        "commands": [{"line": n, "argv": a} for n, a in commands],
                        "skipped": [{"line": n, "why": w} for n, w in skipped],
                    },
                    indent=2,
                )
            )
        for number, argv in commands if args.format != "json" else []:
            print(f"{args.file}:{number}: tom-envs {shlex.join(argv)}")
        return 0
    done: list[dict] = []
    status = 0
    try:
        with backends_as("shared"):
            for i, (number, argv) in enumerate(commands, 1):
                with written_as(["tom-envs", *written[number]]):
                    status = _one(main, argv, f"[batch {i}/{len(commands)}]", args.format == "json", done, number)
                if status:
                    print(
                        f"error: {args.file}:{number}: `tom-envs {shlex.join(argv)}` failed (exit {status}); the "
                        "commands before it kept their records: fix it and rerun the batch to resume",
                        file=sys.stderr,
                    )
                    break
    finally:
        for handle in list(SHARED_BACKENDS.values()):  # the shared engines end with the batch
            if handle._backend is not None:
                handle._backend.close()
        SHARED_BACKENDS.clear()
    if args.format == "json":
        print(json.dumps({"commands": done, "skipped": [{"line": n, "why": w} for n, w in skipped]}, indent=2))
    return status


def _one(
    main: Callable[[list[str]], int], argv: list[str], tag: str, quiet: bool, done: list[dict], number: int
) -> int:
    """Run one command line through ``main`` (its stdout dropped when ``quiet``); its summary goes to ``done``."""
    print(f"{tag} tom-envs {shlex.join(argv)}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()) if quiet else contextlib.nullcontext():
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            status = exc.code if isinstance(exc.code, int) else 2
    sys.stdout.flush()
    seconds = time.perf_counter() - started
    print(f"{tag} exit {status} after {seconds:.0f} s", file=sys.stderr, flush=True)
    done.append({"line": number, "argv": argv, "exit": status, "seconds": round(seconds, 1)})
    return status
