"""A loopback mirror of the release hosts, for the downloads (``TOM_ENVS_RELEASE_MIRROR``, tom_envs/download.py).

:func:`build_mirror` lays out a folder as ``wget -x`` saves the hosts: ``raw.githubusercontent.com/<owner>/<repo>/
main/<path>`` for the raw files and ``api.github.com/repos/cogstates/common-tom/contents/data/cg`` for the one
directory listing the Common-ToM download reads (GitHub's contents-API format, its ``download_url`` entries on
raw.githubusercontent.com as GitHub writes them). Each release's files come from its clone when the tests' variable
names one (``TOM_ENVS_PERSUASION_RELEASE``, ``TOM_ENVS_COMMON_TOM_RELEASE``, ``TOM_ENVS_PROMEDIATE_RELEASE``): the
mirror then holds what the release holds, and a download exits 0 as it would from GitHub. Else from the files the
repository ships in the published formats (``tom_envs/*/sample_data``): every PersuasiveToM file and the authors'
evaluation script, two of Common-ToM's four conversations, none of ProMediate's six case files (the repository's
own case, ``tests/data/negotiation/cases/harbour.json``, is not one of the release's names); what the mirror lacks
answers 404 and the download reports it missing upstream. :class:`MirrorServer` serves the folder
(``http.server`` in a thread on 127.0.0.1) and keeps every request's path and status.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

from tests.llm.scripted_server import _LoopbackServer

ROOT = Path(__file__).resolve().parents[1]
RAW = "raw.githubusercontent.com"
PERSUASION, COMMON_TOM, PROMEDIATE = "Yu-Fangxu/PersuasiveToM", "cogstates/common-tom", "microsoft/ProMediate-Eval"
#: repository -> (the tests' variable naming its clone, the clone's root from the variable's folder)
CLONES = {
    PERSUASION: ("TOM_ENVS_PERSUASION_RELEASE", "."),
    COMMON_TOM: ("TOM_ENVS_COMMON_TOM_RELEASE", ".."),  # the variable names the clone's data/ folder
    PROMEDIATE: ("TOM_ENVS_PROMEDIATE_RELEASE", "."),
}
#: repository -> {path in the repository: path in this repository}: what the mirror serves without a clone
SAMPLES = {
    PERSUASION: {"data": "tom_envs/persuasion/sample_data", "evaluation": "tom_envs/persuasion/sample_data/evaluation"},
    COMMON_TOM: {"data": "tom_envs/common_ground/sample_data"},
    PROMEDIATE: {},
}


def build_mirror(folder: Path) -> dict[str, str]:
    """Lay out the mirror in ``folder`` (see the module's docstring); returns repository -> where its files
    came from (``"release clone"`` or ``"bundled samples"``)."""
    sources = {}
    for repo, (variable, up) in CLONES.items():
        target = folder / RAW / repo / "main"
        target.parent.mkdir(parents=True, exist_ok=True)
        clone = os.environ.get(variable)
        if clone:
            target.symlink_to((Path(clone) / up).resolve(), target_is_directory=True)
            sources[repo] = "release clone"
            continue
        sources[repo] = "bundled samples"
        target.mkdir()
        for inside, here in SAMPLES[repo].items():
            shutil.copytree(ROOT / here, target / inside, ignore=shutil.ignore_patterns("SAMPLE.md", "evaluation"))
    cg = folder / RAW / COMMON_TOM / "main" / "data" / "cg"
    listing = [
        {
            "name": f.name,
            "path": f"data/cg/{f.name}",
            "type": "file",
            "size": f.stat().st_size,
            "download_url": f"https://{RAW}/{COMMON_TOM}/main/data/cg/{f.name}",
        }
        for f in sorted(cg.iterdir())
    ]
    api = folder / "api.github.com" / "repos" / COMMON_TOM / "contents" / "data"
    api.mkdir(parents=True)
    (api / "cg").write_text(json.dumps(listing, indent=1), encoding="utf-8")
    return sources


class MirrorServer(_LoopbackServer):
    """Serves ``folder`` on 127.0.0.1 (a free port) in a daemon thread; ``url`` is what
    ``TOM_ENVS_RELEASE_MIRROR`` is set to; ``requests`` holds ``(path, status)`` of every request."""

    def __init__(self, folder: Path) -> None:
        self.requests: list[tuple[str, int]] = []
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
                server.requests.append((self.path, int(code)))

        self._serve(partial(Handler, directory=str(folder)))  # (a handler factory: the folder bound)
        self.url = self.url.removesuffix("/v1")  # (a mirror's root, not an API's)


def _repository(path: str) -> str:
    """The repository a request's path belongs to (``owner/name``)."""
    parts = path.split("/")
    return "/".join(parts[2:4] if parts[1] == RAW else parts[3:5])


def download_problems(
    returncode: int, stdout: str, stderr: str, server: MirrorServer, sources: dict[str, str], folder: Path
) -> list[str]:
    """What is wrong with a ``data download`` run against the mirror (empty: nothing): every file the mirror served
    is saved under ``folder``; a download from a mirror of a whole release (its clone) exits 0 and prints the paths
    it saved; from the bundled samples it exits 0, or 2 naming each file the mirror answered 404 (missing upstream,
    as from GitHub a release lacking them would) and nothing else."""
    problems = [] if server.requests else ["asked the mirror for nothing: TOM_ENVS_RELEASE_MIRROR was not used"]
    for path, status in server.requests:
        name = path.rsplit("/", 1)[1]
        if status == 200 and path.split("/")[1] == RAW and not any(folder.rglob(name)):
            problems.append(f"the mirror served {path}, but no {name} was saved")
        if status not in (200, 404):
            problems.append(f"the mirror answered {path} with HTTP {status}")
    missing = [path.rsplit("/", 1)[1] for path, status in server.requests if status == 404]
    whole = all(sources[_repository(path)] == "release clone" for path, _ in server.requests)
    if returncode == 0:
        problems += [f"printed {p}, which is not a file" for p in stdout.split() if not (folder / p).is_file()]
    elif whole:
        problems.append(f"exit {returncode} from a mirror holding the whole release")
    elif returncode != 2 or not missing:
        problems.append(f"exit {returncode}: expected 0, or 2 naming the files missing from the mirror")
    else:
        errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
        if len(errors) != 1 or not re.match(
            r"error: (the download is incomplete: missing upstream at |nothing was "
            r"fetched from )",
            errors[0],
        ):
            problems.append(f"exit 2 for another reason than files missing upstream: {errors}")
        problems += [f"{name} answered 404 and is not reported" for name in missing if name not in stderr]
    return problems
