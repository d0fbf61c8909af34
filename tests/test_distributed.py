"""``--executor ray`` on every benchmark command: the same records, byte for byte, as in process.

One local Ray instance (2 CPUs, started as the executor starts its own: with the watchdog) serves
the whole module; each command runs in this process with ``--executor ray`` (a pool of 2 Ray workers
for the command) and again in process, and the rows and every results file must be equal. LLM cells
talk to a loopback OpenAI-compatible server (tests/llm/scripted_server.py) from every worker. The
kill tests run the command in a subprocess with its own local Ray instance, kill it mid-run
(SIGKILL, SIGTERM), check that no process of that instance is left, and resume it. The worker kill
test kills one Ray worker mid-piece (the one waiting for the server's reply) and gets the in-process files.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

from benchmarks.__main__ import main  # noqa: E402
from benchmarks.distributed import RayExecutor  # noqa: E402
from benchmarks.matrix.benchmark import RunnerError, evaluate, load_records, make_cell  # noqa: E402
from tom_envs import family as families_module  # noqa: E402

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "tests" / "plugins" / "hidden_role"
GRID = (["RPS", "IPD"], ["single_action", "tit_for_tat"], ["tabular", "oracle"])


# ---------------------------------------------------------------------- one Ray instance, the plugin installed
@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory):
    """The hidden-role plugin installed as pip installs it (as tests/plugins/hidden_role does), on
    ``sys.path`` here and on ``PYTHONPATH`` for the Ray workers."""
    tmp = tmp_path_factory.mktemp("hidden_role")
    source, target = tmp / "src", tmp / "site"
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "test_*.py"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(target), str(ROOT), *([before] if before else [])])
    try:
        assert "hidden_role" in [f.name for f in families_module.refresh()]
        yield target
    finally:
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before
        sys.path.remove(str(target))
        import tom_envs
        from benchmarks import family as benchmarks_family

        benchmarks_family.unregister("hidden-role")
        if "tom/HiddenRole-v0" in tom_envs.REGISTRY:
            tom_envs.registration.unregister("tom/HiddenRole-v0")
        for name in [m for m in sys.modules if m == "hidden_role" or m.startswith("hidden_role.")]:
            del sys.modules[name]
        families_module._discovered.cache_clear()


def two_cpu_ray():
    """One local Ray instance of 2 CPUs (started as the executor starts its own: with the watchdog); a
    generator for module fixtures."""
    if ray.is_initialized():
        ray.shutdown()
    session = RayExecutor(num_cpus=2)
    session._connect()
    try:
        yield session
    finally:
        session.close()


@pytest.fixture(scope="module")
def local_ray(plugin_site):
    """One local Ray instance of 2 CPUs for the module."""
    yield from two_cpu_ray()


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.jsonl"))}


def _cli(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0, capsys.readouterr().err[-3000:]
    return capsys.readouterr().out


def _same_in_ray(capsys, tmp_path: Path, *argv: str, workers: int = 2) -> dict[str, bytes]:
    """The command in process and with --executor ray: equal output, equal results files; returns them."""
    here = _cli(capsys, *argv, "--out", str(tmp_path / "here"), "--format", "json")
    there = _cli(
        capsys,
        *argv,
        "--out",
        str(tmp_path / "ray"),
        "--format",
        "json",
        "--executor",
        "ray",
        "--ray-workers",
        str(workers),
    )
    assert json.loads(there) == json.loads(here)
    files = _files(tmp_path / "here")
    assert files and _files(tmp_path / "ray") == files
    return files


# ---------------------------------------------------------------------- the matrix grid through the API
def _records(out, seeds):
    return {
        (g, p, pol): [load_records(make_cell(g, p, pol, 30).path(out))[s] for s in seeds]
        for g in GRID[0]
        for p in GRID[1]
        for pol in GRID[2]
    }


def test_ray_grid_equals_the_in_process_grid_and_resumes(local_ray, tmp_path):
    local_rows, _ = evaluate(*GRID, episodes=12, seed=3, horizon=30, out=tmp_path / "local")
    ex = RayExecutor(chunk=5, workers=2)
    ray_rows, _ = evaluate(*GRID, episodes=12, seed=3, horizon=30, out=tmp_path / "ray", executor=ex)
    assert ex.tasks == 8 * 3  # 8 cells x ceil(12 / 5) pieces
    assert json.dumps(ray_rows, sort_keys=True) == json.dumps(local_rows, sort_keys=True)
    assert _files(tmp_path / "ray") == _files(tmp_path / "local")
    sizes = {p: p.stat().st_size for p in (tmp_path / "ray").rglob("*.jsonl")}
    again, _ = evaluate(*GRID, episodes=12, seed=3, horizon=30, out=tmp_path / "ray", executor=ex)
    assert ex.tasks == 0 and again == ray_rows  # nothing left to run
    assert {p: p.stat().st_size for p in (tmp_path / "ray").rglob("*.jsonl")} == sizes
    evaluate(*GRID, episodes=4, seed=3, horizon=30, out=tmp_path / "part")  # seeds 3-6 in process, 7-14 on Ray
    evaluate(*GRID, episodes=12, seed=3, horizon=30, out=tmp_path / "part", executor=RayExecutor(chunk=3, workers=2))
    assert _files(tmp_path / "part") == _files(tmp_path / "local")


def test_bad_executor_arguments_raise_named_errors(tmp_path, capsys):
    for kwargs, flag in (
        ({"chunk": 0}, "--ray-chunk"),
        ({"num_cpus": 0}, "--ray-num-cpus"),
        ({"workers": True}, "--ray-workers"),
        ({"worker_gpus": -1}, "--ray-worker-gpus"),
    ):
        with pytest.raises(RunnerError, match=flag):
            RayExecutor(**kwargs)
    assert main(["matrix", "--policy", "llm", "--executor", "ray", "--model", "m", "--out", str(tmp_path)]) == 2
    assert "--policy llm with --executor ray needs --backend openai" in capsys.readouterr().err
    assert (
        main(
            [
                "matrix",
                "--policy",
                "llm",
                "--executor",
                "ray",
                "--model",
                "m",
                "--backend",
                "openai",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--time-budget",
                "1h",
                "--out",
                str(tmp_path),
            ]
        )
        == 2
    )
    assert "--time-budget with --executor ray" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["negotiation", "--executor", "spark"])
    assert "invalid choice: 'spark'" in capsys.readouterr().err
    assert main(["negotiation", "--ray-workers", "2", "--out", str(tmp_path)]) == 2
    assert "--ray-workers configures the Ray executor; add --executor ray" in capsys.readouterr().err


def test_more_workers_than_cpus_share_them_and_gpus_are_checked(local_ray, tmp_path, capsys):
    _same_in_ray(capsys, tmp_path, "hidden-role", "--policy", "tally", "--episodes", "8", workers=3)
    with pytest.raises(RunnerError, match="needs 2 GPUs; the Ray cluster has 0"):
        RayExecutor(workers=2, worker_gpus=1)._workers()


# ---------------------------------------------------------------------- every family's command, scripted
def test_matrix_command(local_ray, tmp_path, capsys):
    _same_in_ray(
        capsys,
        tmp_path,
        "matrix",
        "--policy",
        "tabular,random",
        "--games",
        "RPS,IBS",
        "--partners",
        "single_action",
        "--episodes",
        "6",
        "--horizon",
        "30",
    )


def test_common_ground_command(local_ray, tmp_path, capsys):
    _same_in_ray(capsys, tmp_path, "common-ground", "--policy", "random", "--episodes", "2")


def test_persuasion_qa_and_live_commands(local_ray, tmp_path, capsys):
    _same_in_ray(capsys, tmp_path / "qa", "persuasion", "--policy", "random,always-first", "--episodes", "2")
    _same_in_ray(
        capsys,
        tmp_path / "live",
        "persuasion",
        "--env",
        "live",
        "--policy",
        "random,bayes",
        "--episodes",
        "3",
        "--horizon",
        "4",
        "--families",
        "health,charity",
    )


def test_negotiation_command(local_ray, tmp_path, capsys):
    _same_in_ray(
        capsys,
        tmp_path,
        "negotiation",
        "--mode",
        "easy",
        "--policy",
        "none,social",
        "--episodes",
        "2",
        "--scenarios",
        "builtin",
    )


def test_a_declared_plugin_command(local_ray, tmp_path, capsys):
    files = _same_in_ray(
        capsys, tmp_path, "hidden-role", "--policy", "tally,random", "--episodes", "10", "--lockstep", "3"
    )
    assert len(files) == 2


# ---------------------------------------------------------------------- LLM cells: each worker a client of the server
def _hidden_role_reply(prompt: str, seed: int | None) -> str:
    from tests.plugins.hidden_role.test_hidden_role import reply

    return reply(prompt, seed)


def _letter(content: str, seed: int | None) -> str:
    """A QA answer that depends on the question only (the same whoever asks, whenever)."""
    return f"The answer is {'AB'[hashlib.sha256(content.encode()).digest()[0] % 2]}"


@pytest.fixture
def server():
    from tests.llm.scripted_server import ScriptedServer

    made = []

    def start(rule):
        made.append(ScriptedServer(rule))
        return made[-1]

    yield start
    for s in made:
        s.close()


def _llm(url: str) -> list[str]:
    return ["--backend", "openai", "--base-url", url, "--model", "scripted", "--max-resamples", "3"]


def test_llm_cells_of_a_declared_command(local_ray, tmp_path, capsys, server):
    url = server(_hidden_role_reply).url
    files = _same_in_ray(
        capsys, tmp_path, "hidden-role", "--policy", "llm", "--episodes", "6", "--lockstep", "2", *_llm(url)
    )
    (records,) = [[json.loads(line) for line in text.splitlines()] for text in files.values()]
    assert len(records) == 6 and all(r["episode"]["policy_stats"]["0"]["requests"] >= 3 for r in records)


def test_llm_cells_of_the_qa_commands(local_ray, tmp_path, capsys, server):
    url = server(_letter).url
    _same_in_ray(
        capsys,
        tmp_path / "persuasion",
        "persuasion",
        "--policy",
        "llm",
        "--episodes",
        "1",
        "--lockstep",
        "4",
        *_llm(url),
    )
    _same_in_ray(
        capsys,
        tmp_path / "common_ground",
        "common-ground",
        "--policy",
        "llm",
        "--episodes",
        "1",
        "--lockstep",
        "4",
        *_llm(url),
    )


def test_llm_cells_of_live_persuasion_and_negotiation(local_ray, tmp_path, capsys, server):
    from tests.llm.test_negotiation_llm import scripted_reply
    from tests.llm.test_persuasion_live_llm import ARGUE, _rule

    _same_in_ray(
        capsys,
        tmp_path / "live",
        "persuasion",
        "--env",
        "live",
        "--policy",
        "llm",
        "--episodes",
        "3",
        "--families",
        "health",
        "--horizon",
        "4",
        *_llm(server(_rule(ARGUE)).url),
    )
    _same_in_ray(
        capsys,
        tmp_path / "negotiation",
        "negotiation",
        "--mediator",
        "llm-generic",
        "--mode",
        "hard",
        "--scenarios",
        "hopkins_hmo",
        "--runs",
        "2",
        *_llm(server(scripted_reply).url)[:-2],
    )


def test_llm_cells_of_the_matrix_protocol(local_ray, tmp_path, capsys, server):
    """004's strategies: each worker plays a cell's lockstep batch (journaled round by round) as a client
    of the server; the records equal the in-process ones but for ``wall_s``, which no two runs share."""
    from tests.llm.test_matrix_protocol import labelled_reply

    argv = [
        "matrix",
        "--policy",
        "llm",
        "--strategies",
        "qa,cot",
        "--games",
        "RPS,IPD",
        "--partners",
        "single_action",
        "--episodes",
        "3",
        "--horizon",
        "5",
        "--fallback",
        "random",
        "--max-resamples",
        "1",
        "--format",
        "json",
        *_llm(server(labelled_reply).url)[:-2],
    ]
    here = json.loads(_cli(capsys, *argv, "--out", str(tmp_path / "here")))
    there = json.loads(_cli(capsys, *argv, "--out", str(tmp_path / "ray"), "--executor", "ray", "--ray-workers", "2"))

    def timeless(rows_or_files):
        if isinstance(rows_or_files, list):
            return [{k: v for k, v in row.items() if k != "wall_s"} for row in rows_or_files]
        return {
            name: [{k: v for k, v in json.loads(line).items() if k != "wall_s"} for line in text.splitlines()]
            for name, text in rows_or_files.items()
        }

    assert timeless(there) == timeless(here) and len(here) == 4
    files = _files(tmp_path / "here")
    assert len(files) == 4 and timeless(_files(tmp_path / "ray")) == timeless(files)
    assert not list((tmp_path / "ray").rglob("*.inflight"))  # every batch's journal gone once its records were written


# ---------------------------------------------------------------------- killing the driver
KILL_GRID = [
    "matrix",
    "--policy",
    "tabular,random",
    "--games",
    "RPS,IPD",
    "--partners",
    "single_action",
    "--episodes",
    "30",
    "--horizon",
    "100",
    "--format",
    "json",
]


def _instance(driver: psutil.Process) -> list[psutil.Process]:
    """The driver's Ray processes now (GCS, raylet, agents, workers) and the watchdog."""
    try:
        return [p for p in driver.children(recursive=True)]
    except psutil.Error:
        return []


def _start(out: Path) -> subprocess.Popen:
    out.mkdir(parents=True)
    with open(out.with_name(out.name + ".stderr"), "wb") as err:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "benchmarks",
                *KILL_GRID,
                "--out",
                str(out),
                "--executor",
                "ray",
                "--ray-num-cpus",
                "2",
                "--ray-chunk",
                "2",
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )


def _kill_midway(procs: dict[int, tuple[subprocess.Popen, Path]]) -> dict[int, list[psutil.Process]]:
    """Each run killed with its signal once it has written a few records; the processes each had."""
    seen: dict[int, dict[int, psutil.Process]] = {signum: {} for signum in procs}
    deadline = time.monotonic() + 150
    waiting = dict(procs)
    while waiting and time.monotonic() < deadline:
        for signum, (proc, out) in list(waiting.items()):
            assert proc.poll() is None, f"the run ended before it was killed: {_log(out)}"
            seen[signum].update({p.pid: p for p in _instance(psutil.Process(proc.pid))})
            if sum(len(p.read_bytes().splitlines()) for p in out.rglob("*.jsonl")) >= 4:
                assert any(p.name().startswith("ray::") for p in seen[signum].values() if p.is_running())
                proc.send_signal(signum)
                del waiting[signum]
        time.sleep(0.2)
    assert not waiting, "no records within the time allowed"
    for proc, _ in procs.values():
        proc.wait(timeout=60)
    return {signum: list(found.values()) for signum, found in seen.items()}


def _log(out: Path) -> str:
    return out.with_name(out.name + ".stderr").read_text()[-2000:]


def _alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def test_a_killed_driver_leaves_no_ray_process_and_resumes(local_ray, tmp_path, capsys, monkeypatch):
    """SIGKILL and SIGTERM (two runs side by side): nothing of their Ray instances is left, and a
    rerun writes the files an uninterrupted run writes."""
    procs = {
        signum: (_start(tmp_path / signum.name), tmp_path / signum.name) for signum in (signal.SIGKILL, signal.SIGTERM)
    }
    seen = _kill_midway(procs)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_alive(p) for found in seen.values() for p in found):
        time.sleep(0.5)
    left = [f"{p.pid} {p.name()}" for found in seen.values() for p in found if _alive(p)]
    assert not left, f"processes of a killed run's Ray instance left: {left}"
    assert procs[signal.SIGKILL][0].returncode == -signal.SIGKILL
    # SIGTERM: an orderly exit (SystemExit; Ray's own handler exits with the signal's number)
    assert procs[signal.SIGTERM][0].returncode in (signal.SIGTERM, 128 + signal.SIGTERM), _log(tmp_path / "SIGTERM")
    # the reruns are the killed runs' code (a checkout that commits meanwhile would make their records stale)
    stamp = json.loads(
        next(line for p in (tmp_path / "SIGKILL").rglob("*.jsonl") for line in p.read_text().splitlines())
    )["code"]
    monkeypatch.setattr("benchmarks.results.git_commit", lambda: stamp["commit"])
    here = _cli(capsys, *KILL_GRID, "--out", str(tmp_path / "here"))
    for signum, (_, out) in procs.items():
        partial = sum(len(p.read_text().splitlines()) for p in out.rglob("*.jsonl"))
        assert 0 < partial < 4 * 30
        again = _cli(capsys, *KILL_GRID, "--out", str(out), "--executor", "ray", "--ray-workers", "2")
        assert json.loads(again) == json.loads(here)
        assert _files(out) == _files(tmp_path / "here")


# ---------------------------------------------------------------------- a worker killed mid-run
class KillCaller:
    """A scripted reply rule that, once armed, kills (SIGKILL) the Ray worker process asking for the next
    reply: the worker is then in the middle of a piece, waiting for that reply."""

    def __init__(self, rule) -> None:
        self.rule, self.server, self.armed, self.killed = rule, None, False, []

    def __call__(self, content: str, seed: int | None) -> str:
        if self.armed:
            self.armed = False
            port = self.server.caller.address[1]
            (worker,) = [
                p
                for p in psutil.Process().children(recursive=True)
                if _is_worker(p) and any(c.laddr and c.laddr.port == port for c in p.net_connections("tcp"))
            ]
            os.kill(worker.pid, signal.SIGKILL)
            self.killed.append(worker.pid)  # recorded at once: under load Ray's raylet may reap the process late
            psutil.wait_procs([worker], timeout=30)  # (never raises; `wait` raised past 30 s and lost the record)
        return self.rule(content, seed)


def _is_worker(p: psutil.Process) -> bool:
    try:
        return p.cmdline()[:1] and p.cmdline()[0].startswith("ray::Worker")
    except psutil.Error:
        return False


def test_a_killed_worker_is_replaced_and_its_piece_played_again(local_ray, tmp_path, capsys, server):
    """One of two workers is killed mid-piece: the command still exits 0 with the in-process files, and says
    so; with --ray-lost-workers 0 the same loss stops it with a named error."""
    rule = KillCaller(_hidden_role_reply)
    rule.server = server(rule)
    argv = [
        "hidden-role",
        "--policy",
        "llm",
        "--episodes",
        "6",
        "--lockstep",
        "2",
        *_llm(rule.server.url),
        "--format",
        "json",
    ]
    here = _cli(capsys, *argv, "--out", str(tmp_path / "here"))
    rule.armed = True
    ray_argv = [*argv, "--executor", "ray", "--ray-workers", "2", "--ray-chunk", "2"]
    assert main([*ray_argv, "--out", str(tmp_path / "ray")]) == 0
    out, err = capsys.readouterr()
    assert len(rule.killed) == 1 and json.loads(out) == json.loads(here)
    assert "a Ray worker died while it played seeds" in err and "lost workers: 1 of at most 3" in err
    assert _files(tmp_path / "ray") == _files(tmp_path / "here")

    rule.armed = True
    assert main([*ray_argv, "--ray-lost-workers", "0", "--out", str(tmp_path / "stopped")]) == 2
    err = capsys.readouterr().err
    assert len(rule.killed) == 2, err[-3000:]  # (what stopped the run, if not the kill)
    assert "error: 1 Ray worker died during this command, more than --ray-lost-workers 0 allows" in err
    assert "Traceback" not in err
