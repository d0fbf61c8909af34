"""Every example of README.md and docs/*.md runs as written, each on its own (keep the docs true).

What runs, and how:

* Every ```` ```python ```` block, in a fresh process (``python -c BLOCK``, the working folder a new tmp
  folder, the repository on ``PYTHONPATH`` as the venv's editable install puts it): a block that needs an
  import it does not make fails, as it would pasted alone. A ```` ```py ```` block is shown, not run: its
  first line must say why (``# (not run by the README test: ...)``).
* Every line of every ```` ```bash ```` block (continuations joined, comments dropped), in a fresh
  ``bash -c`` in a tmp folder holding ``.venv`` (a link to the venv running the tests), ``docs`` and
  ``tests`` (links into the repository), so ``.venv/bin/python -m benchmarks ...``, ``tom-envs ...`` and
  ``python -m tom_envs...`` run as pasted in a checkout, while whatever they write lands in the tmp folder
  (never the repository). A line runs as written except for the rewrites declared in :data:`REWRITES` and
  :func:`_rewrite`: sizes capped (episodes, horizons, training steps, seeds, timings; negotiation's named built-in
  cases by the smallest), a server's URL
  pointed at the loopback scripted OpenAI-compatible server (``tests/llm/scripted_server.py``, whose chat
  rule answers every protocol the docs use; negotiation's parties, mediators and judges from the case the
  prompt shows: ``tests/llm/negotiation_rule.py``), a downloaded or released data folder replaced by the
  bundled sample, a model folder of your own (``path/to/model``) by the tests' tiny random Llama
  (``tests/llm/tiny_model.py``, context for 100 rounds; its replies are garbage, so :data:`TINY_ADDED` bounds
  the re-asks and falls back, flagged, as docs/results/commands.txt does for the real model), lm-eval's
  ``pretrained=MODEL`` by the real small model's folder (one question a task, 8-token replies), and
  ``batch docs/results/commands.txt`` (hours of real-model runs) by a capped copy: the same commands in the
  same order, capped like a doc line, the real models replaced by the tiny one (its context said, so that one
  engine serves them all), the release lines skipped
  by ``batch`` itself (:func:`capped_batch_file`). The tiny model's lines and that copy run as one ``tom-envs
  batch`` (:func:`tiny_batch`: the same commands through the same entry point, the engines shared as ``batch``
  shares them), each line's test passing when every command of its own exited 0. ``data download`` lines run
  against a loopback mirror of the release hosts (``TOM_ENVS_RELEASE_MIRROR``, tests/release_mirror.py: the release
  clones the tests' variables name, else the bundled samples; :data:`DOWNLOAD`), into the run folder; the recorded
  session of docs/harnesses.md against the tests' scripted server on the port the doc names (:data:`RECORDED`);
  ``make TARGET`` by its own recipe (``make -n``, the install done: :func:`make_recipe`); a release's own tests when
  the variable naming its clone is set, else skipped as they skip (:data:`RELEASE_LINES`). A line that cannot run
  here is skipped only when a pattern of :data:`SKIPS` names why (a GPU, a Ray cluster, ``make test`` itself);
  any other line that fails, fails the test. A line that reads what an earlier step wrote (``report
  results``) gets that step first (:data:`SETUPS`). Lines run in one shell session per doc: an ``export``
  or ``NAME=value`` line carries to the doc's later lines, and a line repeated (up to the program's
  spelling and ``--format``) runs once, at its first place.

What the docs must not do (checked over the whole text of every doc):

* name a machine's absolute path (:data:`MACHINE_PATHS`: ``/work/``, ``/home/``, ``/root/``, ``/Users/``,
  ``/mnt/``, ``C:\\``): paths in docs are repo-relative (``/tmp/...`` scratch folders are fine);
* use the venv without saying how. The rule: a line that starts with a program the venv installs
  (:data:`VENV_PROGRAMS`: ``python``, ``tom-envs``, ``pytest``, ``inspect``, ``lm_eval``, ``ray``, ``pip``)
  bare, not as ``.venv/bin/PROGRAM``, is allowed only after a ``source .venv/bin/activate`` line earlier
  in the same document (a reader lands on one page; README's activation does not carry into docs/*.md).

Run time is bounded: a few seconds a line, RL training, Inspect and the real model's line (marked slow) up to
a few minutes under load; every block and line is its own test, each in an xdist group of its own so they
spread over workers.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from benchmarks.batch import read_commands
from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
VENV_BIN = Path(sys.executable).parent

# ---------------------------------------------------------------------------------------------- the rules
MACHINE_PATHS = re.compile(r"(?<![\w.~-])(/work/|/home/|/root/|/Users/|/mnt/|[A-Z]:\\)")
VENV_PROGRAMS = ("python", "python3", "tom-envs", "pytest", "inspect", "lm_eval", "ray", "pip")
ACTIVATE = "source .venv/bin/activate"

# A line matching one of these is not run, for the reason given (first match wins).
SKIPS: list[tuple[str, str]] = [
    (
        r"^make test\b",
        "`make test` runs the whole suite, this file included: it cannot run inside itself (CI runs it, .ci/run)",
    ),
    (r"--ray-address auto|^ray start\b", "needs a Ray cluster"),
    (
        r"\bperf llm --model path/to/model --max-model-len 8192 --format json$",
        "needs a GPU (the doc says so): 100-round episodes and a transformers reference; its CPU twin (the doc's "
        "next line, --cache-horizon 4) runs",
    ),
]
#: ``make TARGET`` (not ``test``): the install step is the one ``make test`` runs before this file (the venv this
#: test runs in); the target's own recipe, as ``make -n`` prints it with the install stamp taken as done, runs as
#: doc lines (:func:`make_recipe`).
MAKE_LINE = re.compile(r"make (\w+)")
#: A line that runs a release's own tests: (pattern, the variable naming the clone, the placeholder in the docs).
#: Run on the clone the variable names; skipped, as the release tests skip, when it is unset.
RELEASE_LINES = [
    (
        r"^TOM_ENVS_COMMON_TOM_RELEASE=\S+ \S*python -m pytest\b",
        "TOM_ENVS_COMMON_TOM_RELEASE",
        "path/to/common-tom/data",
    )
]
#: ``data download``: run against a loopback mirror of the release hosts (``TOM_ENVS_RELEASE_MIRROR``,
#: tests/release_mirror.py), into the run folder (the doc's ``--dest``, not the bundled sample).
DOWNLOAD = re.compile(r"\bdata download\b")
#: A recorded session (docs/harnesses.md): the tests' scripted server (``scripted_reply`` of
#: tests/test_lm_eval_scores.py) on the port the doc names; lm-eval there asks a few questions a task.
RECORDED_PORT = 42543
RECORDED = re.compile(rf"http://127\.0\.0\.1:{RECORDED_PORT}/")
RECORDED_ADDED = {"--limit": "4"}

# Lines that read what an earlier step of the reader's wrote: the step, run first (in the same tmp folder).
SETUPS: list[tuple[str, str]] = [
    (
        r"\breport results\b",
        ".venv/bin/python -m benchmarks matrix --policy tabular,random --games IPD --episodes 2 "
        "--horizon 5 --out results",
    ),
    (r"--include_path tasks/", ".venv/bin/python -m benchmarks export lm-eval tasks/"),
    (r"--include_path lmx/", ".venv/bin/python -m benchmarks export lm-eval lmx/"),
]

# Placeholders and folders the docs name, and what runs in their place.
REWRITES: list[tuple[str, str]] = [
    (r"(?<![\w/])(data/common_tom|path/to/common-tom/data)\b", str(ROOT / "tom_envs/common_ground/sample_data")),
    (r"(?<![\w/])data/promediate/cases/hmo\.json\b", str(ROOT / "tests/data/negotiation/cases/harbour.json")),
    (r"(?<![\w/])(data/persuasive_tom|path/to/PersuasiveToM/data)\b", str(ROOT / "tom_envs/persuasion/sample_data")),
]

# Sizes capped: option -> largest value run.
CAPS = {
    "--episodes": 2,
    "--repetitions": 1,
    "--horizon": 3,
    "--steps": 128,
    "--seeds": 1,
    "--lockstep": 2,
    "--max-episodes": 2,
    "--train": 40,
    "--splits": 2,
    "--limit": 4,
    "--learner-steps": 0,
    "--rounds": 1,
    "--probe-episodes": 2,
    "--curve-points": 1,
    "--max-resamples": 1,
    "--max-tokens": 16,
}
# inspect's task parameters (-T name=value)
T_CAPS = {"episodes": 1, "horizon": 3}


# ------------------------------------------------------------------------------------------- the parsing
@dataclass
class Block:
    doc: Path
    line: int
    lang: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


@dataclass
class ShellLine:
    doc: Path
    line: int
    text: str
    activated: bool
    env: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def blocks(doc: Path) -> list[Block]:
    text = doc.read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M):
        out.append(Block(doc, text[: m.start()].count("\n") + 1, m.group(1), m.group(2)))
    return out


def shell_lines(doc: Path) -> list[ShellLine]:
    """The command lines of a doc's bash blocks, with what an earlier line of the doc set up (activation, variables)."""
    out, activated, env = [], False, {}  # one shell session per doc: activation and exports carry to later blocks
    for block in blocks(doc):
        if block.lang != "bash":
            continue
        raw_lines = block.text.split("\n")
        i = 0
        while i < len(raw_lines):
            number, raw = block.line + 1 + i, raw_lines[i]
            while raw.endswith("\\") and i + 1 < len(raw_lines):
                i += 1
                raw = raw[:-1] + " " + raw_lines[i]
            i += 1
            line = re.sub(r"\s+", " ", raw).strip()
            line = "" if line.startswith("#") else re.split(r"\s#\s", line, maxsplit=1)[0].strip()
            if not line:
                continue
            if line == ACTIVATE:
                activated = True
            elif m := re.fullmatch(r"(?:export )?((?:[A-Z_]+=\S+ ?)+)", line):
                env.update(word.split("=", 1) for word in m.group(1).split())
            else:
                out.append(ShellLine(doc, number, line, activated, dict(env)))
    return out


ALL_BLOCKS = [b for doc in DOCS for b in blocks(doc)]
PYTHON_BLOCKS = [b for b in ALL_BLOCKS if b.lang == "python"]
SHELL_LINES = [line for doc in DOCS for line in shell_lines(doc)]


def _same(text: str) -> str:
    """A line with the program's spelling unified (``.venv/bin/python -m benchmarks`` = ``tom-envs``) and
    ``--format`` dropped: two lines that differ only there run once."""
    text = re.sub(r" --format (json|table)\b", "", text)  # one printing path, whichever command
    return re.sub(r"^(\.venv/bin/)?(python -m benchmarks|tom-envs)\b", "tom-envs", text)


FIRST_OF = {}
for _line in SHELL_LINES:
    FIRST_OF.setdefault((_same(_line.text), tuple(sorted(_line.env.items()))), _line)


def skip_reason(line: ShellLine) -> str | None:
    for pattern, reason in SKIPS:
        if re.search(pattern, line.text):
            return reason
    for pattern, variable, _ in RELEASE_LINES:
        if re.search(pattern, line.text) and not os.environ.get(variable):
            return (
                f"runs a release's own tests: set {variable} to the release clone's folder (as its tests skip without)"
            )
    first = FIRST_OF[(_same(line.text), tuple(sorted(line.env.items())))]
    if first is not line:
        return f"the same command as {first.where}, run there"
    return None


def _program(text: str) -> str:
    words = [w for w in shlex.split(text) if not re.fullmatch(r"[A-Z_]+=\S*", w)]
    return words[0] if words else ""


def _cap(argv: list[str]) -> list[str]:
    out = list(argv)
    for i, word in enumerate(out[:-1]):
        if word in CAPS and re.fullmatch(r"\d+", out[i + 1]):
            out[i + 1] = str(min(int(out[i + 1]), CAPS[word]))
        if word == "-T" and (m := re.fullmatch(r"(\w+)=(\d+)", out[i + 1])) and m.group(1) in T_CAPS:
            out[i + 1] = f"{m.group(1)}={min(int(m.group(2)), T_CAPS[m.group(1)])}"
    return out


@dataclass
class Here:
    """What a line's rewrite points at: the loopback server, the run folder, the tiny model (built on demand)."""

    base_url: str
    folder: Path
    tiny_model: Callable[[], Path]
    mirror_url: str = ""


#: negotiation's smallest built-in case (3 parties x 5 topics: the fewest turns), played for a line's built-in ones
SMALLEST_SCENARIO = "hopkins_hmo"
#: Options added to a command that does not give them (its sizes, when the doc leaves them at the default).
ADDED = {
    "perf matrix": {"--seconds": "0.02"},
    "perf rl": {"--seconds": "0.02", "--steps": "64"},
    "perf llm": {"--episodes": "2", "--horizon": "2", "--reference-episodes": "1"},
    "rl": {"--steps": "128", "--seeds": "1", "--episodes": "1", "--curve-points": "1"},
    "matrix": {"--episodes": "2", "--horizon": "5"},
    "persuasion": {"--episodes": "1"},
    # one case (the smallest: 3 parties x 5 topics) where the line plays the six built-in ones
    "negotiation": {"--episodes": "1", "--scenarios": SMALLEST_SCENARIO},
    "common-ground": {"--episodes": "1"},
    # the population's pairings at 2 episodes of each task's own horizon (one --horizon for every id
    # would leave the range of some: negotiation's turn budget is at least 20), the learner left out
    "crossplay": {"--episodes": "2", "--learner-steps": "0"},
    # one round of the smallest rollout, a couple of episodes per checkpoint
    "selfplay": {"--rounds": "1", "--steps": "128", "--seeds": "1", "--episodes": "2", "--probe-episodes": "2"},
    # the real model's path is run by README's `matrix --policy llm --model smollm2-135m` line
    "demo": {"--episodes": "2", "--no-real-model": ""},
}
#: Added to a command run on the tiny random Llama (a model folder of your own, :data:`OWN_MODEL`): its replies are
#: garbage, so a reply that does not parse is re-asked once and then falls back (flagged, counted), as every line of
#: docs/results/commands.txt does for the real small model; what runs is the command's whole path.
#: ``--max-model-len``: the tiny model's own context (tests/llm/tiny_model.py's LONG_POSITIONS), said for a line that
#: leaves it out, so that its engine is the one the other lines share in the batch (the same engine, one start fewer).
TINY_ADDED = {"--fallback": "random", "--max-resamples": "1", "--max-tokens": "16", "--max-model-len": "8192"}

#: A model folder of your own in the docs, and the real models known by a short name (in a batch file).
OWN_MODEL = re.compile(r"(?<![\w/])path/to/model\b")
KNOWN_MODELS = ("smollm2-135m", "gemma3-270m")
#: lm-eval's hf model on a model of your own: run on the real small model's folder, a question a task, short replies
LM_EVAL_MODEL = re.compile(r"pretrained=MODEL\b")
LM_EVAL_ADDED = {"--limit": "1", "--gen_kwargs": "max_gen_toks=8", "--device": "cpu"}
#: ``batch FILE`` of a shipped commands file: run on a capped copy (:func:`capped_batch_file`).
BATCH_FILE = re.compile(r"(?<![\w/])(docs/results/commands\.txt)\b")


def _rewrite(line: ShellLine, here: Here) -> str:
    """The line as run: placeholders replaced (:data:`REWRITES`), sizes capped (:data:`CAPS`), servers looped back,
    a model folder of your own by the tiny random Llama, a shipped batch file by its capped copy."""
    text = line.text
    for name, value in line.env.items():
        text = text.replace(f"${name}", value)
    for pattern, variable, placeholder in RELEASE_LINES:
        if re.search(pattern, line.text):
            text = text.replace(placeholder, os.environ[variable])
    for pattern, value in REWRITES if not DOWNLOAD.search(text) else ():  # (a download fills the run folder)
        text = re.sub(pattern, value, text)
    text = re.sub(r"\bTOM_ENVS_RELEASE_MIRROR=\S+", f"TOM_ENVS_RELEASE_MIRROR={here.mirror_url}", text)
    text = re.sub(rf"http://(127\.0\.0\.1|10\.0\.0\.5):(?!{RECORDED_PORT}/)\d+/v1", here.base_url, text)
    if m := BATCH_FILE.search(text):
        copy = capped_batch_file(ROOT / m.group(1), here.folder / "commands.capped.txt", here.tiny_model())
        text = text.replace(m.group(1), str(copy))
    tiny = bool(OWN_MODEL.search(text))
    if tiny:
        text = OWN_MODEL.sub(str(here.tiny_model()), text)
    argv = _sized(shlex.split(text), tiny)
    if LM_EVAL_MODEL.search(text):
        from policies.llm.models import DEFAULT_MODEL, resolve_model

        argv = [LM_EVAL_MODEL.sub(f"pretrained={resolve_model(DEFAULT_MODEL)},dtype=float32", w) for w in argv]
        argv += [x for option, value in LM_EVAL_ADDED.items() if option not in argv for x in (option, value)]
    if RECORDED.search(text) and _program(text) == "lm_eval":
        argv += [x for option, value in RECORDED_ADDED.items() if option not in argv for x in (option, value)]
    return shlex.join(argv)


def _sized(argv: list[str], tiny: bool = False) -> list[str]:
    """``argv`` capped (:data:`CAPS`) with the sizes it leaves at the default added (:data:`ADDED`; on the tiny
    model :data:`TINY_ADDED` too, where the command has LLM options)."""
    argv = _cap(argv)
    added = dict(ADDED.get(_command(argv), {}))
    if "--repetitions" in argv:  # (persuasion's QA passes: --episodes would count them twice)
        added.pop("--episodes", None)
    if _command(argv) == "negotiation" and "--parties" in argv:  # LLM parties: the shorter of the two turn budgets
        added.setdefault("--budget", "paper")
    if tiny and _command(argv) in TINY_COMMANDS:  # (perf llm scores labels: nothing to parse)
        added |= TINY_ADDED
    for option, value in added.items():
        if option not in argv:
            argv += [option, value] if value else [option]
    return argv


#: the commands with the options of :data:`TINY_ADDED` (``--max-tokens``: a cap on every generated reply)
TINY_COMMANDS = ("matrix", "persuasion", "negotiation", "common-ground")


def capped_batch_file(source: Path, copy: Path, model: Path) -> Path:
    """``source`` (a batch file such as docs/results/commands.txt, hours of real-model runs) as the docs test runs
    it: the same commands in the same order, each capped like a doc line (:func:`_sized`), the real models it
    names (:data:`KNOWN_MODELS`) replaced by ``model`` (the tiny random Llama: one engine for every LLM line, as in
    the real batch; the figures are not the point, the path is; a line that so becomes an earlier one, another
    model's run of it, is played once), records under the run folder (``--out
    records``). Lines reading a release (``${TOM_ENVS_..._RELEASE}``) are skipped by ``batch`` itself, the
    variables being unset for the run (:func:`_env`)."""
    lines, seen = [], {}
    for number, argv in read_commands(source):
        argv = ["tom-envs", *argv]
        tiny = False
        for i, word in enumerate(argv[:-1]):
            if word == "--model" and argv[i + 1] in KNOWN_MODELS:
                argv[i + 1], tiny = str(model), True
            if word == "--out":
                argv[i + 1] = "records"
            if word == "--scenarios" and set(argv[i + 1].split(",")) <= set(BUILTIN_SCENARIOS):
                argv[i + 1] = SMALLEST_SCENARIO  # a named built-in case: the smallest, as a doc line plays
        line = shlex.join(_sized(argv, tiny))
        if line in seen:  # another real model's run of an earlier line: on the tiny model it is that line again
            lines.append(f"# {source.name}:{number}: the same command as {source.name}:{seen[line]} on the tiny model")
            continue
        seen[line] = number
        lines.append(f"# {source.name}:{number}\n{line}")
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return copy


def _command(argv: list[str]) -> str:
    """``rl``, ``perf matrix``, ... of a ``python -m benchmarks`` / ``tom-envs`` line ('' for other programs)."""
    if "benchmarks" in argv[:3] and argv[argv.index("benchmarks") - 1] == "-m":
        rest = argv[argv.index("benchmarks") + 1 :]
    elif argv and Path(argv[0]).name == "tom-envs":
        rest = argv[1:]
    else:
        return ""
    return " ".join(rest[:2]) if rest[:1] == ["perf"] else (rest[0] if rest else "")


def _needs_real_model(line: ShellLine) -> bool:
    return (
        "smollm2-135m" in line.text
        and "--backend openai" not in line.text
        and not re.search(r"(benchmarks|tom-envs) model (path|list|verify)\b", line.text)
    )


def _runs_release_tests(line: ShellLine) -> bool:
    return any(re.search(pattern, line.text) for pattern, _, _ in RELEASE_LINES)


def _long(line: ShellLine) -> bool:
    """A line that starts an engine or a model (the real one, the tiny one, lm-eval's hf) or plays a batch."""
    return _needs_real_model(line) or bool(
        OWN_MODEL.search(line.text)
        or BATCH_FILE.search(line.text)
        or LM_EVAL_MODEL.search(line.text)
        or "--parties llm" in line.text
        or _runs_release_tests(line)
    )


def _params(items, where):
    params = []
    for item in items:
        real = isinstance(item, ShellLine) and _needs_real_model(item)  # started early (tests/conftest.py)
        tiny = isinstance(item, ShellLine) and _on_tiny_engine(item)  # one batch, one worker (tiny_batch)
        recorded = isinstance(item, ShellLine) and RECORDED.search(item.text)  # one server on one port, one worker
        group = "docs-real-model" if real else "docs-tiny-model" if tiny else "docs-recorded" if recorded else None
        marks = [pytest.mark.xdist_group(group or f"docs:{item.where}")]
        if isinstance(item, ShellLine) and (_long(item) or re.search(r"\brl\b|\binspect eval\b|^lm_eval\b", item.text)):
            marks.append(pytest.mark.slow)
        params.append(pytest.param(item, id=where(item), marks=marks))
    return params


# -------------------------------------------------------------------------------------------- the checks
@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_doc_names_no_machine_path(doc):
    bad = [
        f"{doc.relative_to(ROOT)}:{n}: {line.strip()}"
        for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
        if MACHINE_PATHS.search(line)
    ]
    assert not bad, "a machine's absolute path in the docs (write repo-relative paths):\n" + "\n".join(bad)


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_doc_activates_the_venv_before_bare_commands(doc):
    bad = [
        f"{line.where}: {line.text}"
        for line in shell_lines(doc)
        if not line.activated and _program(line.text) in VENV_PROGRAMS
    ]
    assert not bad, (
        f"a bare venv program before any `{ACTIVATE}` in the doc: write `.venv/bin/PROGRAM` "
        "or activate first:\n" + "\n".join(bad)
    )


def test_shown_only_blocks_say_why():
    bad = [b.where for b in ALL_BLOCKS if b.lang == "py" and not re.match(r"# \(not run by the \w+ test: ", b.text)]
    assert not bad, "a ```py block (shown, not run) must start with `# (not run by the README test: why)`: " + str(bad)


def test_every_shell_block_is_bash():
    bad = [b.where for b in ALL_BLOCKS if b.lang in ("sh", "shell", "console", "zsh")]
    assert not bad, f"write shell examples as ```bash blocks (the ones this test runs): {bad}"


def test_the_docs_have_examples_to_run():
    assert len(PYTHON_BLOCKS) >= 10 and len(SHELL_LINES) >= 80
    assert any(line.text.startswith("tom-envs --version") for line in SHELL_LINES)


def test_the_negotiation_rule_reads_every_case_from_the_prompt():
    """The loopback server's negotiation replies name the topics, options and parties the prompt shows, for any case."""
    from policies.negotiation.llm.parties import topics_text
    from tests.llm.negotiation_rule import parties_in, topics_in
    from tom_envs.negotiation.render import seat_text
    from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS, resolve_scenario

    for name in BUILTIN_SCENARIOS:
        sc = resolve_scenario(name)
        topics = [(t.name, list(t.labels)) for t in sc.topics]
        assert topics_in(seat_text(sc, "mediator", None, [], 10)) == topics == topics_in(topics_text(sc)), name
        assert parties_in(seat_text(sc, "mediator", None, [], 10)) == [p.name for p in sc.parties], name


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A tmp folder that looks like a checkout to a pasted line: .venv, docs, tests (links)."""
    where = tmp_path_factory.mktemp("docs-run")
    (where / ".venv").symlink_to(VENV_BIN.parent)
    for name in ("docs", "tests", "pyproject.toml"):
        (where / name).symlink_to(ROOT / name)
    return where


@pytest.fixture(scope="module")
def server():
    """The loopback scripted OpenAI-compatible server: completions with log-probabilities, chat by a rule."""
    from tests.llm.scripted_server import CompletionServer

    srv = CompletionServer()
    chat = srv.answer

    def answer(path: str, body: dict):
        if not path.endswith("/chat/completions"):
            return chat(path, body)
        text = _reply(body["messages"][-1]["content"], body.get("seed"))
        return 200, {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", ""),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
        }

    srv.answer = answer
    yield srv
    srv.close()


def _reply(content: str, seed) -> str:
    """A well-formed reply for whichever protocol asks (the tests' own rules where they exist), else a letter."""
    from tests.llm.negotiation_rule import negotiation_reply
    from tests.test_inspect import live_rule

    if m := re.search(r"'Answer: <action>', where <action> is one of: ([^,.\s]+)", content):
        return f"Answer: {m.group(1)}"  # 004's chat strategies
    if "'A: <label>'" in content or "A: <label>" in content:
        return "A: CT+\nB: CT+"  # common ground's belief labels
    if content.startswith("Which persuasion principle") or "Line:" in content and "Desire:" in content:
        return live_rule(content, seed)
    if (reply := negotiation_reply(content, seed)) is not None:
        return reply  # parties, mediators and judges of whichever case the line plays, read from the prompt
    if re.search(r"\bYes or No\b|answer yes or no|\(Yes/No\)", content, flags=re.I):
        return "Yes."
    return "A"


def _env(workdir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", OPENAI_API_KEY="none")
    env.pop("PYTEST_XDIST_WORKER", None)
    return env | (extra or {})


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """``argv`` in a session of its own; on a timeout the whole process group (an engine's workers too) is ended."""
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        err += f"\n(ended after {timeout} s)"
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


@pytest.mark.parametrize("block", _params(PYTHON_BLOCKS, lambda b: b.where))
def test_python_block_runs_alone(block, tmp_path):
    run = _run([sys.executable, "-c", block.text], tmp_path, _env(tmp_path), timeout=300)  # (a bound for a hang)
    assert run.returncode == 0, f"{block.where} fails pasted alone:\n{run.stderr[-3000:]}"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    """The tests' tiny random Llama (tests/llm/tiny_model.py) with context for 100 rounds: a model folder of your
    own in the docs (``path/to/model``) runs on it."""
    from tests.llm.tiny_model import LONG_POSITIONS, build_tiny_llama

    return build_tiny_llama(tmp_path_factory.mktemp("tiny-model"), positions=LONG_POSITIONS)


def _on_tiny_engine(line: ShellLine) -> bool:
    """A line played in the one shared batch on the tiny model (:func:`tiny_batch`)."""
    return bool(OWN_MODEL.search(line.text) or BATCH_FILE.search(line.text))


@pytest.fixture(scope="module")
def tiny_batch(workdir, tiny_model, tmp_path_factory) -> dict:
    """Every line on the tiny model (``path/to/model``) and the capped copy of a shipped batch file, played as one
    ``tom-envs batch`` (the same commands through the same entry point, in one process): the vLLM engines are
    shared by every command of the same LLM options, as ``batch`` shares them for ``make results``, instead of
    one start each (most of a short line's time on a CPU). Returns ``{doc line: {"commands": [(batch line,
    argv)], "exit": {batch line: status}}, "stderr": ...}``."""
    here = tmp_path_factory.mktemp("tiny-batch")
    for name in (".venv", "docs", "tests"):
        (here / name).symlink_to((workdir / name).resolve())
    context = Here("", here, lambda: tiny_model)
    lines, owners, number = [], {}, 0
    for line in SHELL_LINES:
        if skip_reason(line) or not _on_tiny_engine(line):
            continue
        argv = shlex.split(_rewrite(line, context))
        if BATCH_FILE.search(line.text):
            commands = [["tom-envs", *a] for _, a in read_commands(Path(argv[-1]))]
        else:
            commands = [["tom-envs", *argv[argv.index("benchmarks") + 1 :]] if "benchmarks" in argv else argv]
        for command in commands:
            lines += [f"# {line.where}", shlex.join(command)]
            number += 2
            owners.setdefault(line.where, []).append(number)
    batch = here / "docs-tiny.batch.txt"
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {k: v for k, v in _env(here).items() if not re.fullmatch(r"TOM_ENVS_\w+_RELEASE", k)}
    run = _run(
        [str(VENV_BIN / "python"), "-m", "benchmarks", "batch", str(batch), "--format", "json"], here, env, timeout=1500
    )
    try:
        done = {c["line"]: c["exit"] for c in json.loads(run.stdout)["commands"]}
    except (ValueError, KeyError):
        done = {}
    return {"owners": owners, "exit": done, "file": lines, "stderr": run.stderr, "rc": run.returncode}


@pytest.fixture(scope="module")
def release_mirror(tmp_path_factory):
    """The loopback mirror of the release hosts (tests/release_mirror.py): the release clones the tests' variables
    name, else the bundled samples. Yields ``(server, sources)``."""
    from tests.release_mirror import MirrorServer, build_mirror

    folder = tmp_path_factory.mktemp("release-mirror")
    sources = build_mirror(folder)
    server = MirrorServer(folder)
    yield server, sources
    server.close()


@pytest.fixture(scope="module")
def recorded_server():
    """The recorded session's server (docs/harnesses.md): the tests' scripted server on the port the doc names."""
    from tests.llm.scripted_server import ScriptedServer
    from tests.test_lm_eval_scores import scripted_reply

    try:
        server = ScriptedServer(scripted_reply, port=RECORDED_PORT)
    except OSError as exc:
        pytest.skip(f"port {RECORDED_PORT} is taken on this machine ({exc}): the recorded session's server binds it")
    yield server
    server.close()


def make_recipe(target: str, here: Path) -> list[str]:
    """The commands ``make TARGET`` runs once the venv is installed (``make -n``, the install stamp taken as done:
    installing is what ``make test`` did before this file ran)."""
    (here / "Makefile").symlink_to(ROOT / "Makefile")
    # as a reader's top-level make: under `make test` the variables of the make above would make this one a
    # sub-make, which prints "make[1]: Entering directory ..." among the commands
    env = {k: v for k, v in _env(here).items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")}
    done = _run(["make", "--no-print-directory", "-n", "-o", ".venv/.installed", target], here, env, timeout=60)
    assert done.returncode == 0, f"`make -n {target}` fails:\n{done.stderr[-2000:]}"
    return [c for c in done.stdout.splitlines() if c.strip() and not c.startswith("#")]


def _run_folder(tmp_path: Path, workdir: Path) -> Path:
    here = tmp_path / "run"
    here.mkdir()
    for name in (".venv", "docs", "tests", "pyproject.toml"):
        (here / name).symlink_to((workdir / name).resolve())
    return here


@pytest.mark.parametrize("line", _params(SHELL_LINES, lambda s: s.where))
def test_shell_line_runs(line, workdir, server, tmp_path, request):
    reason = skip_reason(line)
    if reason:
        pytest.skip(f"{line.where}: {reason}")
    if _on_tiny_engine(line):
        batch = request.getfixturevalue("tiny_batch")
        mine = batch["owners"][line.where]
        bad = {
            n: batch["exit"].get(n, "not run (the batch stopped before it)") for n in mine if batch["exit"].get(n) != 0
        }
        assert not bad, (
            f"{line.where} does not run as written in the tiny model's batch: "
            + "; ".join(f"`{batch['file'][n - 1]}`: exit {why}" for n, why in bad.items())
            + f"\n{batch['stderr'][-4000:]}"
        )
        return
    here = _run_folder(tmp_path, workdir)
    if m := MAKE_LINE.fullmatch(line.text):
        for command in make_recipe(m.group(1), here):
            first = FIRST_OF.get((_same(command), tuple(sorted(line.env.items()))))
            if first is None or skip_reason(first):  # else the doc's own line of that command runs it
                _run_line(ShellLine(line.doc, line.line, command, True, dict(line.env)), here, server, request)
        return
    _run_line(line, here, server, request)


def _run_line(line: ShellLine, here: Path, server, request) -> None:
    """Run ``line`` as written (rewritten, :func:`_rewrite`) in the run folder ``here``; fails unless it exits 0
    (a download: unless it does what a download from the mirror should, :func:`download_problems`)."""
    url = request.getfixturevalue("recorded_server").url if RECORDED.search(line.text) else server.url
    mirror = request.getfixturevalue("release_mirror") if DOWNLOAD.search(line.text) else None
    where = Here(url, here, lambda: request.getfixturevalue("tiny_model"), mirror[0].url if mirror else "")
    command = _rewrite(line, where)
    for pattern, setup in SETUPS:
        if re.search(pattern, line.text):
            done = _run(["bash", "-c", setup], here, _env(here), timeout=150)
            assert done.returncode == 0, f"the setup of {line.where} failed:\n$ {setup}\n{done.stderr[-2000:]}"
    exported = {k: re.sub(r"http://127\.0\.0\.1:\d+/v1", server.url, v) for k, v in line.env.items()}
    env = _env(here, exported)
    if BATCH_FILE.search(line.text):  # the batch's release lines are skipped (they read a whole release)
        env = {k: v for k, v in env.items() if not re.fullmatch(r"TOM_ENVS_\w+_RELEASE", k)}
    if mirror is not None:
        env["TOM_ENVS_RELEASE_MIRROR"] = mirror[0].url
        mirror[0].requests.clear()
    # (bounds for a hang; a release's own tests: minutes, its LLM tests on the tiny engine)
    timeout = 900 if _runs_release_tests(line) else 480 if _long(line) else 300
    run = _run(["bash", "-c", command], here, env, timeout=timeout)
    shown = f"$ {command}\n{run.stdout[-1500:]}\n{run.stderr[-3000:]}"
    if mirror is not None:
        from tests.release_mirror import download_problems

        bad = download_problems(run.returncode, run.stdout, run.stderr, *mirror, here)
        assert not bad, f"{line.where} against the release mirror ({mirror[1]}): {bad}\n{shown}"
        return
    assert run.returncode == 0, f"{line.where} does not run as written (rc {run.returncode}):\n{shown}"
