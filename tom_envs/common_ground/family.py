"""The common-ground family (seed 003, Common-ToM) as a plugin (:class:`tom_envs.family.Family`)."""

from __future__ import annotations

from tom_envs.download import Dataset
from tom_envs.family import Family

FAMILY = Family.standard(
    "common_ground",
    download=True,
    command="common-ground",
    order=20,
    rl=("benchmarks.common_ground.rl:TASK",),
    retired_commands={"common-ground-download": "use `tom-envs data download common-ground` (same options)"},
)


def dataset() -> Dataset:
    """Common-ToM's release, as ``tom-envs data list`` shows it."""
    from tom_envs.common_ground import SAMPLE_DATA_DIR
    from tom_envs.common_ground.download import REPOSITORY
    from tom_envs.registration import reader_ids

    ids = reader_ids("tom_envs.common_ground.env:CommonToMEnv")
    return Dataset(
        "common-ground",
        "003 Common-ToM",
        ids,
        f"https://github.com/{REPOSITORY}",
        "cg/*.tsv (annotated corpus) and questions/*_yn_questions.csv.gz",
        str(SAMPLE_DATA_DIR),
        f"tom_envs.make('{ids[0]}', data_dir=DIR); python -m benchmarks common-ground --data-dir DIR",
        FAMILY.download,
    )
