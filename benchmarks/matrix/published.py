"""004's published numbers: Table 4's Tabular rows.

The published reference rows are data: the command's tables and the report read them from here."""

from __future__ import annotations


#: 004's Table 4 (Tabular rows): (ΔFunctional/T, ΔToM/T, ToM %). 004's ΔToM is reproduced by the
#: ``reciprocal`` response (docs/architecture.md, "Metric definitions").
PUBLISHED_TABULAR: dict[tuple[str, str], tuple[float, float, float]] = {
    ("RPS", "single_action"): (0.083, 0.039, 97.4),
    ("RPS", "tit_for_tat"): (0.224, 0.105, 93.0),
    ("IBS", "single_action"): (0.211, 0.088, 98.7),
    ("IBS", "tit_for_tat"): (0.468, 0.162, 98.1),
    ("IPD", "single_action"): (0.086, 0.071, 98.6),
    ("IPD", "tit_for_tat"): (0.248, 0.070, 98.0),
}
