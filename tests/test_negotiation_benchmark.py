"""``python -m benchmarks negotiation``: Table 1 layout, JSON, resume and plots."""

from __future__ import annotations

import argparse
import json

import pytest

from benchmarks.negotiation import benchmark as bench
from tom_envs.negotiation import NegotiationConfigError


def _args(tmp_path, **kw):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    argv = ["--scenarios", "hopkins_hmo,ias", "--runs", "2", "--out", str(tmp_path / "res")]
    for k, v in kw.items():
        argv += [f"--{k}", v]
    return parser.parse_args(argv)


def test_json_rows_follow_table_1(tmp_path, capsys):
    assert bench.run(_args(tmp_path, format="json", mode="easy,hard")) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["conflict_mode"], r["mediator"]) for r in rows] == [
        (m, med) for m in ("accommodating", "avoiding", "competing") for med in ("none", "blind", "generic", "social")
    ]
    none = rows[0]
    assert none["episodes"] == 4 and none["rl"] is None and none["me"] is None and none["mi"] is None
    assert rows[3]["mi"] is not None and rows[3]["mi_judge"].startswith("rule-based")
    # every row says how the consensus moved (the blind mediator's moves provoke reactance)
    assert all(r["falls"] is not None and r["reversals"] is not None for r in rows)
    assert rows[1]["reactance"] > rows[3]["reactance"]


def test_results_are_written_per_episode_and_reruns_resume(tmp_path, capsys):
    args = _args(tmp_path, mode="hard", mediator="social")
    bench.run(args)
    files = list((tmp_path / "res" / "negotiation").glob("*.jsonl"))
    assert len(files) == 1 and len(files[0].read_text().splitlines()) == 4
    first = capsys.readouterr().out
    bench.run(args)
    assert len(files[0].read_text().splitlines()) == 4  # nothing recomputed
    assert capsys.readouterr().out == first
    assert "CC ↑" in first and "compe/social" in first


def test_plot_writes_trajectories(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    bench.run(_args(tmp_path, mode="medium", mediator="social", plot=str(tmp_path / "plots")))
    assert len(list((tmp_path / "plots").glob("*.png"))) == 2


def test_bad_arguments_raise_named_errors(tmp_path):
    with pytest.raises(NegotiationConfigError, match="--mediator"):
        bench.run(_args(tmp_path, mediator="oracle"))
    with pytest.raises(NegotiationConfigError, match="--mode"):
        bench.run(_args(tmp_path, mode="nightmare"))


def test_keyword_attitudes_reproduce_the_stated_table_in_their_own_files(tmp_path, capsys):
    bench.run(_args(tmp_path, format="json", mode="hard", mediator="social"))
    stated = json.loads(capsys.readouterr().out)
    bench.run(_args(tmp_path, format="json", mode="hard", mediator="social", attitudes="keyword"))
    read = json.loads(capsys.readouterr().out)
    assert read[0]["cc"] == stated[0]["cc"] and read[0]["tle"] == stated[0]["tle"]
    assert (stated[0]["attitudes"], stated[0]["extraction_agreement"]) == ("stated", None)
    assert (read[0]["attitudes"], read[0]["extraction_agreement"]) == ("extracted:all", 1.0)
    assert len(list((tmp_path / "res" / "negotiation").glob("*.jsonl"))) == 2  # never mixed
    bench.run(_args(tmp_path, mode="hard", mediator="social", attitudes="keyword"))
    assert "mean agreement with the stances taken: 100.0%" in capsys.readouterr().out


def test_llm_attitudes_need_a_backend(tmp_path):
    with pytest.raises(NegotiationConfigError, match="needs an LLM backend"):
        bench.evaluate(_run(tmp_path, attitudes="llm"))
    with pytest.raises(NegotiationConfigError, match="unknown attitudes"):
        bench.evaluate(_run(tmp_path, attitudes="vibes"))


def _run(tmp_path, **kw):
    return bench.NegotiationRun(
        levels=("hard",), mediators=("none",), scenarios=("hopkins_hmo",), runs=1, seed=0, out=tmp_path, **kw
    )


def test_records_are_stamped_and_records_of_other_code_are_recomputed(tmp_path, capsys):
    from benchmarks.results import STAMP_FIELD, StaleResultWarning, code_stamp

    args = _args(tmp_path, format="json", mode="hard", mediator="generic")
    bench.run(args)
    first = capsys.readouterr().out
    (path,) = (tmp_path / "res" / "negotiation").glob("*.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert all(rec[STAMP_FIELD] == code_stamp() for rec in records)
    records[0][STAMP_FIELD] = {**code_stamp(), "commit": "an older commit"}
    path.write_text("".join(json.dumps(rec) + "\n" for rec in records))
    with pytest.warns(StaleResultWarning):
        bench.run(args)
    assert capsys.readouterr().out == first  # the stale episode was played again, with the same result
    assert sum(1 for _ in path.read_text().splitlines()) == 4


def test_cells_follow_table_1_and_key_llm_runs_by_model(tmp_path):
    def grid(levels, model):
        return bench.grid(
            bench.NegotiationRun(
                levels=levels, mediators=("none", "llm-social"), llm=bench.NegotiationLLM({"model": model})
            )
        )

    cells = grid(("easy", "hard"), "m")
    assert [(c.conflict_mode, c.mediator) for c in cells] == [
        (m, med) for m in ("accommodating", "avoiding", "competing") for med in ("none", "llm-social")
    ]
    assert "llm" not in cells[0].config() and cells[1].config()["llm"] == {"model": "m"}
    assert cells[1].path(tmp_path) != grid(("easy",), "n")[1].path(tmp_path)


CASE = __import__("pathlib").Path(__file__).parent / "data" / "negotiation" / "cases" / "harbour.json"


def test_a_promediate_case_file_is_a_scenario(tmp_path, capsys):
    """``--scenarios cases/<case>.json`` plays the case (our sample in the release's format)."""
    assert bench.run(_args(tmp_path, format="json", mode="hard", mediator="social", scenarios=str(CASE), runs="1")) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["episodes"] == 1


def test_a_case_file_is_stored_under_its_name_and_hash_never_its_folder(tmp_path, capsys):
    """Records of a case file name the file and its content hash, not the folder it was read from: a copy elsewhere
    resumes them (nothing is played again), an edited copy is a new scenario, and no machine's folder is written."""
    import hashlib
    import shutil

    first, moved = tmp_path / "a" / CASE.name, tmp_path / "b" / CASE.name
    for path in (first, moved):
        path.parent.mkdir()
        shutil.copy(CASE, path)
    args = dict(format="json", mode="hard", mediator="none", runs="1")
    assert bench.run(_args(tmp_path, scenarios=str(first), **args)) == 0
    (path,) = (tmp_path / "res" / "negotiation").glob("*.jsonl")
    text = path.read_text()
    key = f"{CASE.name}@{hashlib.sha256(CASE.read_bytes()).hexdigest()[:12]}"
    assert json.loads(text.splitlines()[0])["scenario"] == key and str(tmp_path) not in text
    capsys.readouterr()
    assert bench.run(_args(tmp_path, scenarios=str(moved), **args)) == 0
    assert path.read_text() == text  # resumed from the first copy's record
    moved.write_text(moved.read_text().replace("}", " }", 1))  # the same case, other bytes: another scenario
    assert bench.run(_args(tmp_path, scenarios=str(moved), **args)) == 0
    assert len(path.read_text().splitlines()) == 2
    assert bench.scenario_key("ias") == "ias"  # built-in names as they are
    builtin = bench.run(_args(tmp_path, scenarios="ias", **args))
    assert builtin == 0 and len(list((tmp_path / "res" / "negotiation").glob("*.jsonl"))) == 2  # never pooled


def test_all_takes_the_downloaded_cases_when_present(tmp_path, monkeypatch, capsys):
    import shutil

    from tom_envs.negotiation.download import ENV_VAR

    monkeypatch.setenv(ENV_VAR, str(tmp_path / "none"))
    assert bench.scenario_list("all") == list(bench.BUILTIN_SCENARIOS)
    assert "self-written" in capsys.readouterr().err
    with pytest.raises(NegotiationConfigError, match="data download negotiation"):
        bench.scenario_list("release")
    shutil.copy(CASE, tmp_path / "hmo.json")
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert bench.scenario_list("all") == [str(tmp_path / "hmo.json")]
    assert "released ProMediate cases" in capsys.readouterr().err
    assert bench.scenario_list("builtin") == list(bench.BUILTIN_SCENARIOS)


def test_metrics_flag_reads_the_other_definitions_from_the_same_records(tmp_path, capsys):
    assert bench.run(_args(tmp_path, format="json", mode="medium", mediator="generic")) == 0
    release = json.loads(capsys.readouterr().out)[0]
    assert bench.run(_args(tmp_path, format="json", mode="medium", mediator="generic", metrics="paper")) == 0
    paper = json.loads(capsys.readouterr().out)[0]
    assert (release["metric_definitions"], paper["metric_definitions"]) == ("release", "paper")
    assert release["episodes"] == paper["episodes"] == 4
    assert (release["cc"], release["rl"]) != (paper["cc"], paper["rl"])
    assert bench.run(_args(tmp_path, mode="medium", mediator="generic")) == 0
    text = capsys.readouterr().out
    assert "the release's definitions" in text and "SCRIPTED" in text


def test_the_mediator_tom_score_is_the_recorders_and_the_mediator_never_sees_it(tmp_path):
    """The records' ``tom_accuracy`` / ``tom_predictions`` come from ``wrappers.AECToMRecorder`` (the env has
    no prediction key since v1): the same as scoring the social mediator's predictions against the
    env's per-turn truths by hand; nothing of it is in an info the mediator gets before the end."""
    import numpy as np

    from policies.negotiation.scripted import SocialMediator
    from tom_envs.negotiation.env import NegotiationEnv
    from tom_envs.negotiation.scenario import resolve_scenario

    bench.run(_args(tmp_path, mode="hard", mediator="social"))
    (path,) = (tmp_path / "res" / "negotiation").glob("*.jsonl")
    rec = next(
        r for r in map(json.loads, path.read_text().splitlines()) if r["scenario"] == "hopkins_hmo" and r["seed"] == 0
    )
    env = NegotiationEnv(scenario=resolve_scenario("hopkins_hmo"), conflict_mode="competing")
    mediator = SocialMediator()
    mediator.reset(0)
    env.reset(seed=0)
    hits = cells = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert "tom" not in info
        guess = mediator.predict(obs, info)["stances"]
        env.step(mediator.act(obs, info))
        truth = env.tom_truth()["stances"]
        hits += int(((guess == truth) & (guess >= 0)).sum())
        cells += int((guess >= 0).sum())
    assert rec["episode"]["tom_predictions"] == cells > 0
    assert rec["episode"]["tom_accuracy"] == pytest.approx(hits / cells)
    assert rec["episode"]["cc"] == env.episode_summary()["cc"]
    assert np.isfinite(rec["episode"]["cc"])
