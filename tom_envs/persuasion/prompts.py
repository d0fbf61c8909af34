"""The prompts of PersuasiveToM's authors' protocol: read from the release's ``evaluation/evaluate.py``
at run time, or ours.

The authors' evaluation script builds its chat messages in Python code; we do not ship its
sentences. :func:`read_authors_prompts` reads them from a user's copy of the script as *text*: the
file is parsed with :mod:`ast` (never imported or executed) and the string literals assigned in
its ``evaluate`` function are taken in the roles the release gives them:

* ``system_prompt = ...`` under ``if args.cot ...`` / ``else``: the system message per mode;
* ``shot = ...``: the chain-of-thought preamble that opens the CoT user message;
* ``user_prompt = <literals and the names shot, dialogue, question joined by +>``: the user message
  up to the options, per mode;
* ``user_prompt += f"...{letters[i]}...{choice}..."`` inside a loop: one option line;
* ``user_prompt += ...`` under ``if args.cot ...`` / ``else``: the answer cue per mode.

A file whose layout differs raises :class:`PromptFileError` naming what was not found.
:data:`OUR_PROMPTS` are prompts we wrote ourselves in the same layout (a system message naming the
persuader and the persuadee, the dialogue, the question, the options, an answer cue); they are
used when no release file is at hand, and every result says which were used
(:attr:`QAPrompts.source`): ``"release"`` (read from a file whose prompts equal the release's,
checked by :data:`RELEASE_DIGEST`: comparable with 001's Table 5), ``"file"`` (read from a file in
the release's layout whose prompts differ, e.g. our bundled sample's or an edited copy) or
``"ours"``.

Where the file is looked for (:func:`find_release_prompts`): ``<data>/evaluation/evaluate.py``
(where ``data download persuasion`` puts it) and ``<data>/../evaluation/evaluate.py`` (a clone of
the release, whose questions are in ``data/``).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tom_envs.errors import DatasetError
from tom_envs.qa import QAPrompts

#: Where the release keeps its evaluation script, relative to the repository root (and where the
#: download puts it, relative to the data folder).
RELEASE_PROMPT_PATH = "evaluation/evaluate.py"
MODES = ("zero_shot", "cot")
#: The user message's fields: the CoT preamble, the dialogue and the question.
USER_FIELDS = {"shot": "preamble", "dialogue": "dialogue", "question": "question"}
PROMPT_SOURCES = ("release", "file", "ours")


class PromptFileError(DatasetError):
    """The authors' evaluation script is missing, unreadable, or not laid out as the release's."""


#: SHA-256 of the prompts read from the release's ``evaluation/evaluate.py`` (commit daade8f of
#: github.com/Yu-Fangxu/PersuasiveToM); a file whose prompts have this digest is ``"release"``.
RELEASE_DIGEST = "2ea3976377775cdbd665de41e0b3987957367bfbe867eddc5dd8663cac8e3653"

#: Our own prompts in the release's layout (written for tom-envs; not the release's sentences).
OUR_PROMPTS = QAPrompts(
    system={
        "zero_shot": "You will read a conversation in which a persuader tries to get a persuadee to do something. "
        "Reply with the letter of one option (A, B, C, D, E or F) and nothing else.",
        "cot": "You will read a conversation in which a persuader tries to get a persuadee to do something. "
        "Reason it through step by step before you answer.",
    },
    user={
        "zero_shot": "\nDialogue:\n{dialogue}\nQuestion:\n{question}\nOptions:",
        "cot": "{preamble}\nDialogue:\n{dialogue}\nQuestion:\n{question}\nOptions:",
    },
    preamble="\nWhen you are done, write a last sentence of the form 'The answer is X', with X the letter of the "
    "option you judge most likely (e.g. 'The answer is C').\n",
    option_line="\n{letter}. {choice}",
    answer_cue={"zero_shot": "\nAnswer:", "cot": "\nAnswer: Reasoning step by step first."},
    source="ours",
)


def find_release_prompts(data_dir: str | Path | None) -> Path | None:
    """The evaluation script next to a data folder, or None: ``<data>/evaluation/evaluate.py``
    (the download's place) or ``<data>/../evaluation/evaluate.py`` (a clone of the release)."""
    if data_dir is None:
        return None
    data = Path(data_dir)
    for path in (data / RELEASE_PROMPT_PATH, data.parent / RELEASE_PROMPT_PATH):
        if path.is_file():
            return path
    return None


# ---------------------------------------------------------------------- reading the script as text
class _Layout(Exception):
    """Internal: the script's layout is not the release's (becomes a PromptFileError)."""


def _mentions_cot(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Attribute) and n.attr == "cot" or isinstance(n, ast.Name) and n.id == "cot"
        for n in ast.walk(node)
    )


def _cot_when_true(test: ast.expr) -> bool | None:
    """For an ``if`` test on ``cot``: True when the body is the CoT branch, False when the ``else``
    is; None when the test is not about ``cot``."""
    if not _mentions_cot(test):
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _cot_when_true(test.operand)
        return None if inner is None else not inner
    if isinstance(test, (ast.Attribute, ast.Name)):
        return True
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant):
        value, op = test.comparators[0].value, test.ops[0]
        if isinstance(value, bool) and isinstance(op, (ast.Eq, ast.Is, ast.NotEq, ast.IsNot)):
            return value if isinstance(op, (ast.Eq, ast.Is)) else not value
    raise _Layout(f"line {test.lineno}: an if on cot that is not 'args.cot == True/False' or 'not args.cot'")


def _text(node: ast.expr) -> str:
    """A string literal (an f-string without fields counts)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
        return "".join(str(v.value) for v in node.values)  # type: ignore[attr-defined]
    raise _Layout(f"line {node.lineno}: expected a string literal, found {ast.unparse(node)[:60]!r}")


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _terms(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _terms(node.left) + _terms(node.right)
    return [node]


def _user_template(node: ast.expr) -> str:
    """``shot + "..." + dialogue + ...`` as a format template."""
    out = []
    for term in _terms(node):
        if isinstance(term, ast.Name):
            if term.id not in USER_FIELDS:
                raise _Layout(
                    f"line {term.lineno}: user_prompt joins an unknown name {term.id!r} (known: "
                    f"{', '.join(USER_FIELDS)})"
                )
            out.append("{" + USER_FIELDS[term.id] + "}")
        else:
            out.append(_escape(_text(term)))
    return "".join(out)


def _option_line(node: ast.expr) -> str:
    """``f"...{letters[i]}...{choice}..."`` as a format template."""
    if not isinstance(node, ast.JoinedStr):
        raise _Layout(f"line {node.lineno}: the option line is not an f-string")
    out = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            out.append(_escape(str(v.value)))
            continue
        if not isinstance(v, ast.FormattedValue) or v.conversion != -1 or v.format_spec is not None:
            raise _Layout(f"line {node.lineno}: the option line has a field with a conversion or format")
        if isinstance(v.value, ast.Subscript):
            out.append("{letter}")
        elif isinstance(v.value, ast.Name):
            out.append("{choice}")
        else:
            raise _Layout(
                f"line {node.lineno}: the option line's fields are letters[i] and choice, found "
                f"{ast.unparse(v.value)!r}"
            )
    return "".join(out)


class _Reader:
    def __init__(self) -> None:
        self.found: dict[tuple[str, str], Any] = {}

    def put(self, key: tuple[str, str], value: Any, line: int) -> None:
        if key in self.found:
            raise _Layout(f"line {line}: {key[0]} is assigned twice for {key[1]}")
        self.found[key] = value

    def modes(self, mode: str | None) -> tuple[str, ...]:
        return MODES if mode is None else (mode,)

    def walk(self, body: list[ast.stmt], mode: str | None, in_loop: bool) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):
                cot = _cot_when_true(stmt.test)
                if cot is None:
                    self.walk(stmt.body, mode, in_loop)
                    self.walk(stmt.orelse, mode, in_loop)
                else:
                    self.walk(stmt.body, "cot" if cot else "zero_shot", in_loop)
                    self.walk(stmt.orelse, "zero_shot" if cot else "cot", in_loop)
            elif isinstance(stmt, (ast.For, ast.While)):
                self.walk(stmt.body, mode, True)
                self.walk(stmt.orelse, mode, in_loop)
            elif isinstance(stmt, (ast.With, ast.Try)):
                for part in (stmt.body, *([h.body for h in stmt.handlers] if isinstance(stmt, ast.Try) else [])):
                    self.walk(part, mode, in_loop)
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                if name == "system_prompt":
                    for m in self.modes(mode):
                        self.put(("system_prompt", m), _text(stmt.value), stmt.lineno)
                elif name == "shot":
                    self.put(("shot", "cot"), _text(stmt.value), stmt.lineno)
                elif name == "user_prompt":
                    for m in self.modes(mode):
                        self.put(("user_prompt", m), _user_template(stmt.value), stmt.lineno)
            elif (
                isinstance(stmt, ast.AugAssign)
                and isinstance(stmt.target, ast.Name)
                and stmt.target.id == "user_prompt"
                and isinstance(stmt.op, ast.Add)
            ):
                if in_loop:
                    self.put(("option line", "every mode"), _option_line(stmt.value), stmt.lineno)
                else:
                    for m in self.modes(mode):
                        self.put(("answer cue", m), _text(stmt.value), stmt.lineno)


def _parse_prompts(source: str) -> dict[str, Any]:
    tree = ast.parse(source)
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "evaluate"]
    if not funcs:
        raise _Layout("no function 'evaluate' at the top level")
    reader = _Reader()
    reader.walk(funcs[0].body, None, False)
    f = reader.found
    wanted = (
        [("system_prompt", m) for m in MODES]
        + [("user_prompt", m) for m in MODES]
        + [("option line", "every mode")]
        + [("answer cue", m) for m in MODES]
    )
    missing = [f"{what} ({mode})" for what, mode in wanted if (what, mode) not in f]
    if missing:
        raise _Layout("not found in evaluate(): " + ", ".join(missing))
    for m in MODES:
        for name in ("dialogue", "question"):
            if "{" + name + "}" not in f[("user_prompt", m)]:
                raise _Layout(f"user_prompt ({m}) does not contain the {name}")
    if "{letter}" not in f[("option line", "every mode")] or "{choice}" not in f[("option line", "every mode")]:
        raise _Layout("the option line needs letters[i] and choice")
    uses_shot = any("{preamble}" in f[("user_prompt", m)] for m in MODES)
    if uses_shot and ("shot", "cot") not in f:
        raise _Layout("user_prompt joins shot, but no 'shot = ...' is assigned")
    return {
        "system": {m: f[("system_prompt", m)] for m in MODES},
        "user": {m: f[("user_prompt", m)] for m in MODES},
        "preamble": f.get(("shot", "cot"), ""),
        "option_line": f[("option line", "every mode")],
        "answer_cue": {m: f[("answer cue", m)] for m in MODES},
    }


def read_authors_prompts(path: str | Path) -> QAPrompts:
    """The authors' protocol's prompts, read as text from an evaluation script in the release's
    layout (parsed, never imported or run); ``source`` is ``"release"`` when they equal the
    release's (:data:`RELEASE_DIGEST`), else ``"file"``.

    Raises:
        PromptFileError: the file is missing, unreadable, not Python, or not laid out as the
            release's ``evaluation/evaluate.py`` (the message says what was not found).
    """
    path = Path(path)
    try:
        source = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PromptFileError(
            f"{path}: no evaluation script; the release keeps it in {RELEASE_PROMPT_PATH} (fetch it "
            "with tom-envs data download persuasion, or pass --authors-prompts PATH)"
        ) from None
    except IsADirectoryError:
        raise PromptFileError(
            f"{path}: is a folder; give the evaluation script's path (the release's {RELEASE_PROMPT_PATH})"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PromptFileError(f"{path}: cannot read the evaluation script ({exc})") from None
    try:
        texts = _parse_prompts(source)
    except SyntaxError as exc:
        raise PromptFileError(
            f"{path}: not Python source (line {exc.lineno}: {exc.msg}); expected the release's {RELEASE_PROMPT_PATH}"
        ) from None
    except _Layout as exc:
        raise PromptFileError(
            f"{path}: the layout of the release's {RELEASE_PROMPT_PATH} was not recognised: {exc}. "
            "Use the release's file, or drop it to use our prompts (prompt_source 'ours')"
        ) from None
    prompts = QAPrompts.from_texts(texts, "file", str(path))
    if prompts.digest() == RELEASE_DIGEST:
        prompts = QAPrompts.from_texts(texts, "release", str(path))
    return prompts


__all__ = [
    "MODES",
    "OUR_PROMPTS",
    "PROMPT_SOURCES",
    "PromptFileError",
    "QAPrompts",
    "RELEASE_DIGEST",
    "RELEASE_PROMPT_PATH",
    "find_release_prompts",
    "read_authors_prompts",
]
