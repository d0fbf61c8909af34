"""The authors' prompts read as text from an evaluation script in the release's layout.

On CI the reader runs on our bundled sample script (``sample_data/evaluation/evaluate.py``: our
sentences in the release's code layout) and on variants of it written here. With
``TOM_ENVS_PERSUASION_RELEASE`` (a clone of github.com/Yu-Fangxu/PersuasiveToM) it reads the
release's ``evaluation/evaluate.py``: its prompts are recognised as the release's, and none of its
sentences appears in our code or docs.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tom_envs.errors import DatasetError
from tom_envs.persuasion import SAMPLE_DATA_DIR
from tom_envs.persuasion.prompts import (
    OUR_PROMPTS,
    RELEASE_DIGEST,
    RELEASE_PROMPT_PATH,
    PromptFileError,
    QAPrompts,
    find_release_prompts,
    read_authors_prompts,
)

RELEASE = os.environ.get("TOM_ENVS_PERSUASION_RELEASE")
needs_release = pytest.mark.skipif(not RELEASE, reason="set TOM_ENVS_PERSUASION_RELEASE to a clone of the release")
SAMPLE_SCRIPT = SAMPLE_DATA_DIR / RELEASE_PROMPT_PATH
ROOT = Path(__file__).resolve().parent.parent


def sample_source() -> str:
    return SAMPLE_SCRIPT.read_text(encoding="utf-8")


def write(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "evaluate.py"
    path.write_text(source, encoding="utf-8")
    return path


def test_the_sample_script_is_read_field_by_field():
    p = read_authors_prompts(SAMPLE_SCRIPT)
    assert p.source == "file" and p.path == str(SAMPLE_SCRIPT)
    assert p.system == {
        "zero_shot": "Sample script: a persuader and a persuadee talk. Answer with a single letter {A-F}.",
        "cot": "Sample script: a persuader and a persuadee talk. Work through the question step by step.",
    }
    assert p.user == {
        "zero_shot": "\nConversation so far:\n{dialogue}\nAsked:\n{question}\nPick one:",
        "cot": "{preamble}\nConversation so far:\n{dialogue}\nAsked:\n{question}\nPick one:",
    }
    assert p.preamble == '\n\n    Close with "The answer is X" for the letter X you choose.\n    '
    assert p.option_line == "\n({letter}) {choice}"
    # the release's test is "args.cot == False" for the cue: the body is the zero-shot branch
    assert p.answer_cue == {"zero_shot": "\nLetter:", "cot": "\nLetter: step by step."}
    text = p.user_message("zero_shot", "A says: hi\n", "Q {x}?", ["Yes", "No"], "ABCDEF")
    assert text == "\nConversation so far:\nA says: hi\n\nAsked:\nQ {x}?\nPick one:\n(A) Yes\n(B) No\nLetter:"


def test_the_script_is_read_never_run(tmp_path):
    marker = tmp_path / "ran"
    source = f"open({str(marker)!r}, 'w').write('x')\nraise SystemExit(3)\n" + sample_source()
    p = read_authors_prompts(write(tmp_path, source))
    assert not marker.exists() and p.system == read_authors_prompts(SAMPLE_SCRIPT).system


def test_other_ways_of_testing_cot_are_recognised(tmp_path):
    source = (
        sample_source()
        .replace("if args.cot == True:", "if args.cot:")
        .replace("if args.cot == False:", "if not args.cot:")
    )
    assert read_authors_prompts(write(tmp_path, source)).texts() == read_authors_prompts(SAMPLE_SCRIPT).texts()
    swapped = sample_source().replace("if args.cot == False:", "if args.cot != True:")
    assert read_authors_prompts(write(tmp_path, swapped)).answer_cue["zero_shot"] == "\nLetter:"


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: s.replace("def evaluate(", "def run("), "no function 'evaluate'"),
        (
            lambda s: s.replace('system_prompt = f"Sample', 'system_prompt = f"{args.model} Sample'),
            "expected a string literal",
        ),
        (lambda s: s.replace('system_prompt = f"Sample', 'unused = f"Sample'), r"system_prompt \(zero_shot\)"),
        (
            lambda s: s.replace(
                '  else:\n    system_prompt = f"Sample', '  if args.model:\n    system_prompt = f"Sample'
            ),
            "system_prompt is assigned twice for cot",
        ),
        (lambda s: s.replace("+ dialogue +", "+ problem_text +"), "unknown name 'problem_text'"),
        (lambda s: s.replace('f"\\n({letters[i]}) {choice}"', 'f"\\n{i!r}"'), "option line"),
        (lambda s: s.replace('user_prompt += """\\nLetter: step by step."""', "pass"), r"answer cue \(cot\)"),
        (lambda s: s.replace("    shot = ", "    shots = "), "joins shot, but no 'shot = ...'"),
        (lambda s: s + "\nif (", "not Python source"),
        (lambda s: s.replace("if args.cot == False:", "if args.cot == 'yes':"), "an if on cot"),
    ],
)
def test_an_unrecognised_layout_is_a_named_error(tmp_path, change, message):
    source = change(sample_source())
    assert source != sample_source()
    with pytest.raises(PromptFileError, match=message):
        read_authors_prompts(write(tmp_path, source))


def test_missing_or_folder_paths_are_named_errors(tmp_path):
    with pytest.raises(PromptFileError, match="no evaluation script.*data download persuasion"):
        read_authors_prompts(tmp_path / "nope.py")
    with pytest.raises(PromptFileError, match="is a folder"):
        read_authors_prompts(tmp_path)
    assert issubclass(PromptFileError, DatasetError)


def test_the_script_is_found_where_the_download_or_a_clone_puts_it(tmp_path):
    assert find_release_prompts(None) is None and find_release_prompts(tmp_path) is None
    clone = tmp_path / "clone"
    (clone / "data").mkdir(parents=True)
    (clone / "evaluation").mkdir()
    shutil.copy(SAMPLE_SCRIPT, clone / RELEASE_PROMPT_PATH)
    assert find_release_prompts(clone / "data") == clone / RELEASE_PROMPT_PATH
    shutil.copytree(clone / "evaluation", clone / "data" / "evaluation")
    assert find_release_prompts(clone / "data") == clone / "data" / RELEASE_PROMPT_PATH


def test_our_prompts_have_the_layout_and_round_trip():
    assert OUR_PROMPTS.source == "ours" and OUR_PROMPTS.digest() != RELEASE_DIGEST
    for mode in ("zero_shot", "cot"):
        assert "persuader" in OUR_PROMPTS.system[mode] and "persuadee" in OUR_PROMPTS.system[mode]
        text = OUR_PROMPTS.user_message(mode, "A says: hi\n", "Q?", ["Yes", "No"], "ABCDEF")
        assert text.index("A says: hi") < text.index("Q?") < text.index("A. Yes") < text.index("B. No")
        assert text.endswith(OUR_PROMPTS.answer_cue[mode]) and OUR_PROMPTS.answer_cue[mode].startswith("\nAnswer:")
    assert "The answer is" in OUR_PROMPTS.preamble
    again = QAPrompts.from_texts(OUR_PROMPTS.texts(), "ours")
    assert again == OUR_PROMPTS and again.digest() == OUR_PROMPTS.digest()


@needs_release
def test_the_release_script_is_recognised_as_the_release_s():
    path = Path(RELEASE) / RELEASE_PROMPT_PATH
    p = read_authors_prompts(path)
    assert p.source == "release" and p.digest() == RELEASE_DIGEST
    assert find_release_prompts(Path(RELEASE) / "data") == path
    for mode in ("zero_shot", "cot"):
        assert "persuader" in p.system[mode] and "persuadee" in p.system[mode]
        assert p.user[mode].endswith("{dialogue}\nQuestion:\n{question}\nChoices:")
    assert p.user["cot"].startswith("{preamble}") and p.option_line == "\n{letter}. {choice}"


@needs_release
def test_none_of_the_release_s_prompt_sentences_is_in_our_code_or_docs():
    p = read_authors_prompts(Path(RELEASE) / RELEASE_PROMPT_PATH)
    texts = [*p.system.values(), p.preamble]
    sentences = {s.strip() for t in texts for s in re.split(r"(?<=[.!?])\s+", t) if len(s.strip()) > 25}
    assert len(sentences) >= 4
    folders = ("tom_envs", "policies", "benchmarks", "wrappers", "docs", "tests")
    files = [f for d in folders for f in (ROOT / d).rglob("*") if f.suffix in (".py", ".md", ".json") and f.is_file()]
    files.append(ROOT / "README.md")
    hits = [(f.name, s[:40]) for f in files for s in sentences if s in f.read_text(encoding="utf-8", errors="ignore")]
    assert hits == []
