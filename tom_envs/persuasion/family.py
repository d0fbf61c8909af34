"""The persuasion family (seed 001, PersuasiveToM and live persuasion) as a plugin
(:class:`tom_envs.family.Family`)."""

from __future__ import annotations

from tom_envs.download import Dataset
from tom_envs.family import Family

# the information-rule checker: what is public (the case shown, what was said) and what the persuadee seat
# knows of itself is declared on the envs (mind_env.MIND_PUBLIC, the QA envs' tom_public / tom_composed)
FAMILY = Family.standard(
    "persuasion",
    download=True,
    order=30,
    rl=("benchmarks.persuasion.rl:LIVE", "benchmarks.persuasion.rl_v3:LIVE_V3", "benchmarks.persuasion.rl_qa:QA"),
    crossplay=("benchmarks.persuasion.crossplay:TASK",),
)


def dataset() -> Dataset:
    """PersuasiveToM's release, as ``tom-envs data list`` shows it."""
    from tom_envs.persuasion import SAMPLE_DATA_DIR
    from tom_envs.persuasion.data import RELEASE_QUIRKS, RELEASE_UNVERIFIED, RELEASE_VERIFIED
    from tom_envs.persuasion.download import DEFAULT_BASE_URL
    from tom_envs.registration import reader_ids

    ids = reader_ids("tom_envs.persuasion.qa_env:PersuasiveToMEnv")
    notes = (
        f"verified in the release: {', '.join(RELEASE_VERIFIED)} (they load exactly: 2,459 / 2,041 / 2,041 / "
        "2,041 questions, 001's Table 4)",
        f"listed in the release's tree but not verified here: {', '.join(RELEASE_UNVERIFIED)} "
        "(their contents were not in the copy we read; "
        "the download tries them and reports any it cannot get; our sample's files for them assume the "
        "verified files' format)",
        "a file named like a verified one must hold the release's record count and sha256 (RELEASE_FILES), "
        "else ReleaseMismatch; --allow-partial goes on with its rows and records marked partial",
        *(f"quirk, {q}: {text}" for q, text in RELEASE_QUIRKS.items()),
        "the authors' prompts: the download also fetches the release's evaluation/evaluate.py into "
        "DIR/evaluation/ (read as text by --protocol authors, never run; without it our prompts are used, "
        "prompt_source 'ours')",
    )
    return Dataset(
        "persuasion",
        "001 PersuasiveToM",
        ids,
        DEFAULT_BASE_URL,
        "<qtype>.json per question type (8 in Table 5; 4 verified in the release, see notes)",
        str(SAMPLE_DATA_DIR),
        f"tom_envs.make('{ids[0]}', data_dir=DIR); python -m benchmarks persuasion --data-dir DIR",
        FAMILY.download,
        notes,
    )
