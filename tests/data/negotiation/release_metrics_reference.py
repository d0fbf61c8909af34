"""The reference figures of tests/test_negotiation_metrics.py: run the release's own metric functions
(scripts/evaluation.py of microsoft/ProMediate-Eval) on a fixed episode.

    .venv/bin/python tests/data/negotiation/release_metrics_reference.py /path/to/ProMediate-Eval

The functions are taken from the file with ast; the two GPT-4.1 questions (does line t mention the
topic; which topics does line t address) are answered from fixed tables by a stand-in client; tqdm is
the identity."""
import ast, json, sys
from statistics import mean
src = open(sys.argv[1] + '/scripts/evaluation.py').read()
tree = ast.parse(src)
wanted = {"evaluate_consensus_change", "evaluate_topic_level_efficiency", "intervene_yield", "response_latency", "process_scores"}
mod = ast.Module(body=[n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in wanted], type_ignores=[])

OVERALL = [0.40, 0.42, 0.45, 0.45, 0.50, 0.38, 0.30, 0.28, 0.35, 0.40,
           0.44, 0.47, 0.50, 0.52, 0.36, 0.30, 0.33, 0.40, 0.45, 0.50,
           0.55, 0.56, 0.58, 0.60, 0.44, 0.42, 0.50, 0.55, 0.60, 0.62, 0.65]
T1 = [0.2, 0.2, 0.3, 0.3, 0.4, 0.3, 0.2, 0.2, 0.3, 0.4, 0.4, 0.5, 0.5, 0.6, 0.4, 0.3, 0.3, 0.4, 0.5, 0.6,
      0.6, 0.7, 0.7, 0.8, 0.6, 0.5, 0.6, 0.7, 0.8, 0.8, 0.9]
T2 = [0.6, 0.64, 0.6, 0.6, 0.6, 0.46, 0.4, 0.36, 0.4, 0.4, 0.48, 0.44, 0.5, 0.44, 0.32, 0.3, 0.36, 0.4, 0.4, 0.4,
      0.5, 0.42, 0.46, 0.4, 0.28, 0.34, 0.4, 0.4, 0.4, 0.44, 0.4]
N_TURNS = 30
MEDIATOR_T = [3, 8, 12, 17, 21, 26]          # our 1-based turns
MENTION = {"T1": [1, 2, 4, 5, 7, 9, 10, 12, 13, 15, 18, 19, 22, 24, 27, 29],
           "T2": [2, 3, 6, 8, 11, 14, 16, 17, 20, 23, 25, 28, 30]}
ADDRESSED = {3: "T1", 8: "T2", 12: "T1, T2", 17: "T2", 21: "T1", 26: "T2"}

conversations = [f"x: {'Mediator' if t in MEDIATOR_T else 'P'}: line {t}" for t in range(1, N_TURNS + 1)]

class _Msg:
    def __init__(self, c): self.message = type("M", (), {"content": c})()
class _Resp:
    def __init__(self, c): self.choices = [_Msg(c)]
class _Completions:
    def create(self, **kw):
        p = kw["messages"][1]["content"]
        if "check if the current speech mentions this topic" in p:
            topic = p.split("negotiation about ")[1].split(".")[0]
            line = p.split("Current speech: ")[1].split("\n")[0]
            t = int(line.rsplit(" ", 1)[1])
            return _Resp("True" if t in MENTION[topic] else "False")
        line = p.split("Current speech: ")[1].split("\n")[0]
        t = int(line.rsplit(" ", 1)[1])
        return _Resp(ADDRESSED[t])
client = type("C", (), {"chat": type("Ch", (), {"completions": _Completions()})()})()
import builtins, io
real_open = builtins.open
ns = {"client": client, "tqdm": lambda x: x, "mean": mean, "open": lambda *a, **k: io.StringIO("options")}
exec(compile(mod, "evaluation.py", "exec"), ns)
agg = {"overall": OVERALL, "T1": T1, "T2": T2}
mediator_idx = [t - 1 for t in MEDIATOR_T]   # the release's line index i (conversations[i])
assert all("Mediator" in conversations[i].split(':')[1] for i in mediator_idx)
out = {
  "cc": ns["evaluate_consensus_change"](OVERALL),
  "tle": {k: ns["evaluate_topic_level_efficiency"](conversations, agg, k) for k in ("T1", "T2")},
  "me": ns["intervene_yield"](agg, mediator_idx, conversations, "x"),
  "rl": ns["response_latency"](OVERALL, mediator_idx),
}
print(json.dumps(out))
