"""Stops a local Ray instance when the driver that started it ends, however it ends (a kill included).

``python -m benchmarks.distributed_watchdog DRIVER_PID TEMP_DIR`` is started by
:class:`benchmarks.distributed.RayExecutor` before it starts Ray in ``TEMP_DIR``, in a session of
its own (a Ctrl-C of the terminal does not reach it), with a pipe from the driver on its stdin.
Every half second it notes the instance's processes: the driver's children whose command line
names ``TEMP_DIR`` (GCS, raylet, monitors) and everything below them (agents, workers). When the
pipe closes (the driver ended: a normal stop writes ``stop`` first, a kill just closes it) it
stops every noted process still alive, and any process whose ``RAY_RAYLET_PID`` is one of the
instance's raylets (workers started between two looks): SIGTERM, then SIGKILL after a grace time,
since Ray's agents outlive a killed driver and ignore SIGTERM. Then it removes ``TEMP_DIR``.
Processes are matched by pid and start time, so a reused pid is never touched.
"""

from __future__ import annotations

import os
import select
import shutil
import sys

import psutil

LOOK_S = 0.5
GRACE_S = 3.0


def _noted(driver: psutil.Process, temp_dir: str) -> dict[tuple[int, float], psutil.Process]:
    found: dict[tuple[int, float], psutil.Process] = {}
    try:
        tops = [p for p in driver.children() if p.pid != os.getpid() and temp_dir in " ".join(_cmdline(p))]
    except psutil.Error:
        return found
    for top in tops:
        try:
            for p in [top, *top.children(recursive=True)]:
                found[(p.pid, p.create_time())] = p
        except psutil.Error:
            continue
    return found


def _cmdline(p: psutil.Process) -> list[str]:
    try:
        return p.cmdline()
    except psutil.Error:
        return []


def _raylet_children(raylets: set[int]) -> list[psutil.Process]:
    """Processes (of this user) started by one of ``raylets``: their ``RAY_RAYLET_PID`` says so."""
    out = []
    me = os.getuid()
    for p in psutil.process_iter(["uids"]):
        try:
            if p.info["uids"] is None or p.info["uids"].real != me:
                continue
            if int(p.environ().get("RAY_RAYLET_PID", -1)) in raylets:
                out.append(p)
        except (psutil.Error, ValueError):
            continue
    return out


def _stop(procs: list[psutil.Process]) -> None:
    alive = []
    for p in procs:
        try:
            if p.is_running():
                p.terminate()
                alive.append(p)
        except psutil.Error:
            continue
    _, left = psutil.wait_procs(alive, timeout=GRACE_S)
    for p in left:
        try:
            p.kill()
        except psutil.Error:
            continue
    psutil.wait_procs(left, timeout=GRACE_S)


def main(argv: list[str]) -> int:
    driver_pid, temp_dir = int(argv[0]), argv[1]
    try:
        driver = psutil.Process(driver_pid)
    except psutil.Error:
        driver = None
    noted: dict[tuple[int, float], psutil.Process] = {}
    raylets: set[int] = set()
    fd = sys.stdin.fileno()
    while True:
        if driver is not None:
            for key, p in _noted(driver, temp_dir).items():
                if key not in noted:
                    noted[key] = p
                    if any(a.endswith("/raylet") for a in _cmdline(p)[:1]):
                        raylets.add(p.pid)
        readable, _, _ = select.select([fd], [], [], LOOK_S)
        if readable:
            os.read(fd, 64)
            break  # "stop" (the driver stopped the instance itself) or EOF (the driver ended)
    mine = (driver_pid, os.getpid())
    procs = [p for p in noted.values() if p.pid not in mine]
    seen = {p.pid for p in procs}
    procs += [p for p in _raylet_children(raylets) if p.pid not in seen and p.pid not in mine]
    _stop(procs)
    shutil.rmtree(temp_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
