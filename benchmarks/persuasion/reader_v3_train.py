"""Train the learned v3 reader's weights from its training set (issue 39, docs/reader_v3.md).

Reads the training set ``tests/data/persuasion/reader_v3_train.jsonl`` (composed by
:mod:`~benchmarks.persuasion.reader_v3_corpus`), the scripted reader's development set
``tests/data/persuasion/reader_v3_dev.jsonl`` and the retired evaluation set ``reader_v3_frozen.jsonl``, featurises every line
(:mod:`tom_envs.persuasion.reader_v3_features`), fits two multinomial logistic regressions with scikit-learn
(L-BFGS, L2; a train-time dependency only: the reader reads the weights with numpy) and writes
``tom_envs/persuasion/reader_v3_weights.npz``. Nothing is drawn at random, so the same files give the same weights,
bit for bit. The retired evaluation set (frozen until its one scoring, development data since) is read like the
development set; a frozen set that is still held out is never read here.

``--cv`` prints held-out figures for choosing the settings instead: five-fold cross-validation over the three files,
and two harder splits: trained on the composed set alone and scored on the development set (another author's
phrasings), and trained on the composed and development sets and scored on the retired set (a third author's).

    python -m benchmarks.persuasion.reader_v3_train            # rebuild the weights
    python -m benchmarks.persuasion.reader_v3_train --cv       # held-out figures per setting
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from tom_envs.persuasion.reader_v3 import CONCERN_CLASSES, READING_CLASSES, ReaderV3, load_labelled
from tom_envs.persuasion.reader_v3_features import FeatureSettings, featurise
from tom_envs.persuasion.reader_v3_learned import WEIGHTS

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "persuasion"
#: the composed set, the scripted reader's development set and the retired evaluation set (scored once while frozen,
#: development data since issue 39's second round)
TRAIN_FILES: tuple[Path, ...] = (
    DATA / "reader_v3_train.jsonl",
    DATA / "reader_v3_dev.jsonl",
    DATA / "reader_v3_frozen.jsonl",
)
#: the settings chosen by ``--cv`` (see docs/reader_v3.md)
SETTINGS = FeatureSettings(lexicon_scale=3.0)
C_READING = 8.0
C_CONCERN = 8.0
#: the reading head weighs each class by the inverse of its share (the composed set holds many more hostile lines)
CLASS_WEIGHT = "balanced"
#: low, so that a hostile line in words no frame holds still reads as hostile (it must never land as a pitch)
HOSTILE_THRESHOLD = 0.2


def _sklearn():
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError as e:  # pragma: no cover - the venv has it
        raise ImportError("training the reader needs scikit-learn: pip install scikit-learn") from e
    return LogisticRegression


def load_rows(paths: tuple[Path, ...] = TRAIN_FILES) -> list[tuple[str, str, str]]:
    """(text, reading class, concern class) of every line of ``paths``, in file order."""
    return [
        (item.text, item.reading.label, item.reading.concern or "none")
        for path in paths
        for item in load_labelled(path)
    ]


def evidence_of(texts: list[str]) -> list[dict[str, Any]]:
    reader = ReaderV3()
    return [reader.explain(t) for t in texts]


def matrix(texts: list[str], evidence: list[dict[str, Any]], settings: FeatureSettings):
    """The CSR feature matrix of ``texts`` (rows in order)."""
    from scipy.sparse import csr_matrix

    indptr, indices, values = [0], [], []
    for text, ev in zip(texts, evidence):
        vec = featurise(text, ev, settings)
        for slot in sorted(vec):
            indices.append(slot)
            values.append(vec[slot])
        indptr.append(len(indices))
    return csr_matrix((values, indices, indptr), shape=(len(texts), settings.size), dtype=np.float64)


def fit(
    x, labels: list[str], classes: tuple[str, ...], c: float, class_weight: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A multinomial logistic regression's (W, b), rows in the order of ``classes`` (absent classes get -inf
    bias so they are never read)."""
    cols = np.unique(x.indices)  # fit on the slots some line uses: the others' weights are 0 under L2
    model = _sklearn()(C=c, max_iter=1000, tol=1e-4, class_weight=class_weight)
    model.fit(x[:, cols], labels)
    w = np.zeros((len(classes), x.shape[1]))
    b = np.full(len(classes), -1e9)
    for row, cls in enumerate(model.classes_):
        w[classes.index(cls), cols] = model.coef_[row]
        b[classes.index(cls)] = model.intercept_[row]
    return w, b


def predict(w: np.ndarray, b: np.ndarray, x) -> np.ndarray:
    """Class probabilities, one row per line."""
    z = np.asarray(x @ w.T) + b
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def decide(p_reading: np.ndarray, scripted_hostile: list[bool], threshold: float) -> list[str]:
    """The reading classes :class:`~tom_envs.persuasion.reader_v3_learned.LearnedReaderV3` decides."""
    h = READING_CLASSES.index("hostile")
    masked = p_reading.copy()
    masked[:, h] = -1
    return [
        "hostile" if sh or p[h] >= threshold else READING_CLASSES[int(m.argmax())]
        for p, m, sh in zip(p_reading, masked, scripted_hostile)
    ]


def train(
    rows: list[tuple[str, str, str]],
    evidence: list[dict[str, Any]],
    settings: FeatureSettings = SETTINGS,
    c_reading: float = C_READING,
    c_concern: float = C_CONCERN,
    class_weight: str | None = CLASS_WEIGHT,
) -> dict[str, np.ndarray]:
    """Both heads' weights; the concern head learns from the lines that are not hostile (a hostile line has no
    concern by definition, whatever its words address)."""
    texts = [t for t, _, _ in rows]
    x = matrix(texts, evidence, settings)
    rw, rb = fit(x, [r for _, r, _ in rows], READING_CLASSES, c_reading, class_weight)
    keep = [i for i, (_, r, _) in enumerate(rows) if r != "hostile"]
    cw, cb = fit(x[keep], [rows[i][2] for i in keep], CONCERN_CLASSES, c_concern)
    return {"reading_W": rw, "reading_b": rb, "concern_W": cw, "concern_b": cb}


def weights_bytes(arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> bytes:
    """The npz file's bytes: float32 weights and the meta as JSON (no pickles)."""
    buf = io.BytesIO()
    out = {k: v.astype(np.float32) for k, v in arrays.items()}
    np.savez_compressed(buf, meta=np.array(json.dumps(meta, sort_keys=True)), **out)
    return buf.getvalue()


def build(paths: tuple[Path, ...] = TRAIN_FILES) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Train on ``paths`` with the chosen settings: (arrays, meta)."""
    rows = load_rows(paths)
    arrays = train(rows, evidence_of([t for t, _, _ in rows]))
    meta = {
        "features": SETTINGS.as_dict(),
        "reading_classes": list(READING_CLASSES),
        "concern_classes": list(CONCERN_CLASSES),
        "hostile_threshold": HOSTILE_THRESHOLD,
        "c_reading": C_READING,
        "c_concern": C_CONCERN,
        "class_weight": CLASS_WEIGHT,
        "lines": len(rows),
        "training_files": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths},
    }
    return arrays, meta


def _report(gold: list[str], pred: list[str], classes: tuple[str, ...]) -> dict[str, Any]:
    out = {"accuracy": round(sum(g == p for g, p in zip(gold, pred)) / len(gold), 4)}
    for c in classes:
        tp = sum(g == p == c for g, p in zip(gold, pred))
        n_pred, n_gold = pred.count(c), gold.count(c)
        out[c] = (round(tp / n_pred, 3) if n_pred else None, round(tp / n_gold, 3) if n_gold else None)
    return out


def held_out(settings: FeatureSettings, c: float, thresholds=(0.1, 0.2, 0.3)) -> dict[str, Any]:
    """Held-out figures (precision, recall per class): five-fold CV over the three files, the composed set -> the
    development set, and the composed and development sets -> the retired set."""
    train_rows, dev_rows = load_rows(TRAIN_FILES[:1]), load_rows(TRAIN_FILES[1:2])
    retired_rows = load_rows(TRAIN_FILES[2:])
    rows = train_rows + dev_rows + retired_rows
    ev = evidence_of([t for t, _, _ in rows])
    x = matrix([t for t, _, _ in rows], ev, settings)
    hostile = [bool(e["hostile"]) for e in ev]
    gold_r, gold_c = [r for _, r, _ in rows], [cc for _, _, cc in rows]
    splits = {
        "cv5": [(np.array([i for i in range(len(rows)) if i % 5 != k]), np.arange(k, len(rows), 5)) for k in range(5)]
    }
    n, m = len(train_rows), len(train_rows) + len(dev_rows)
    splits["composed->dev"] = [(np.arange(n), np.arange(n, m))]
    splits["composed+dev->retired"] = [(np.arange(m), np.arange(m, len(rows)))]
    result: dict[str, Any] = {}
    for name, folds in splits.items():
        pr, pc = np.zeros((len(rows), len(READING_CLASSES))), [None] * len(rows)
        tested = np.concatenate([te for _, te in folds])
        for tr, te in folds:
            arrays = train([rows[i] for i in tr], [ev[i] for i in tr], settings, c, c)
            pr[te] = predict(arrays["reading_W"], arrays["reading_b"], x[te])
            for i, p in zip(te, predict(arrays["concern_W"], arrays["concern_b"], x[te])):
                pc[i] = CONCERN_CLASSES[int(p.argmax())]
        for t in thresholds:
            pred = decide(pr[tested], [hostile[i] for i in tested], t)
            result[f"{name} t={t}"] = _report([gold_r[i] for i in tested], pred, READING_CLASSES)
        concern_pred = ["none" if p == "hostile" else c_ for p, c_ in zip(pred, [pc[i] for i in tested])]
        result[f"{name} concern"] = _report([gold_c[i] for i in tested], concern_pred, CONCERN_CLASSES)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Train the learned v3 reader's weights (issue 39).")
    parser.add_argument("--out", default=str(WEIGHTS), help="where to write the weights (.npz)")
    parser.add_argument("--cv", action="store_true", help="print held-out figures per setting; write nothing")
    parser.add_argument("--c", type=float, nargs="*", default=[C_READING], help="regularisation strengths to try")
    parser.add_argument("--scale", type=float, nargs="*", default=[SETTINGS.scripted_scale], help="scripted scales")
    parser.add_argument(
        "--lexicon", type=float, nargs="*", default=[SETTINGS.lexicon_scale], help="word-list scales (0: none)"
    )
    args = parser.parse_args(argv)
    if args.cv:
        for c in args.c:
            for scale in args.scale:
                for lexicon in args.lexicon:
                    settings = FeatureSettings(
                        **{**SETTINGS.as_dict(), "scripted_scale": scale, "lexicon_scale": lexicon}
                    )
                    for key, value in held_out(settings, c).items():
                        print(json.dumps({"c": c, "scale": scale, "lexicon": lexicon, "split": key, **value}))
        return
    arrays, meta = build()
    Path(args.out).write_bytes(weights_bytes(arrays, meta))
    print(f"{meta['lines']} lines -> {args.out}")


if __name__ == "__main__":
    main()
