"""002's published numbers: Table 1 (GPT-4.1 mediators) per conflict mode and mediator.

The published reference rows are data: the command's tables and the report read them from here."""

from __future__ import annotations


#: 002's Table 1 (GPT-4.1 as the mediator backbone; mean over 6 scenarios x 5 runs) per (conflict
#: mode, mediator): CC, TLE and ME in percent, RL in seconds (ours counts turns), MI on 1-5.
_TABLE_1 = {  # per conflict mode: NoAgent (CC, TLE), Generic and Social (CC, TLE, RL, ME, MI)
    "accommodating": ((18.74, 1.05), (20.13, 1.18, 6.39, 1.18, 4.464), (22.59, 1.16, 4.00, 0.82, 4.319)),
    "avoiding": ((17.49, 1.17), (14.31, 1.04, 25.56, 0.17, 4.260), (13.25, 0.48, 5.69, 0.89, 4.445)),
    "general": ((11.36, 0.54), (10.93, 0.44, 5.64, 2.01, 4.292), (11.39, 0.74, 3.00, 0.25, 4.207)),
    "competing": ((6.83, 0.50), (7.01, 0.23, 15.98, 1.75, 4.225), (10.65, 0.57, 3.71, 0.59, 4.318)),
}
PUBLISHED: dict[tuple[str, str], dict[str, float]] = {
    (mode, mediator): dict(zip(("cc", "tle", "rl", "me", "mi"), values))
    for mode, cells in _TABLE_1.items()
    for mediator, values in zip(("none", "generic", "social"), cells)
}
