"""What ``tom-envs crossplay`` computes from its records (:mod:`benchmarks.crossplay`): the rows of each
ordered pairing, OpenSkill ratings of the agents and the agreement of ratings from two disjoint seed sets.

Everything here reads records only (the command's and the report's figures are the same function of the same
files):

* **Pairings.** Per ordered pairing (row agent in the first seat, column agent in the second): each seat's
  mean return and each seat's literal ToM (its % of correct predictions of the other seat's next action),
  with 95 % CIs over episodes (Student's t, :func:`tom_envs.stats.mean_ci95`); ToM is None for an agent that
  predicts nothing.
* **Ratings.** Every episode is a two-player match for OpenSkill's Plackett-Luce model (the ``openskill``
  package, ``pip install 'tom-envs[bench]'``): the seat with the higher return ranks first, equal returns tie.
  The matches are rated in **rating periods**, one per seed in seed order, as Glicko does: every match of a
  period is rated by OpenSkill's own ``model.rate`` from the ratings at the period's start, and each agent's
  updates are then combined and applied at once: its ``mu`` deltas are summed (what Weng-Lin's update does for
  one game against several opponents: every pair's term taken at the pre-game ``sigma``), and its ``sigma^2``
  is the start's, plus the model's dynamics ``tau^2`` once per period, times the product of every match's
  shrink factor (new ``sigma^2`` over the ``sigma^2 + tau^2`` it started from; the product stays positive, where
  a summed shrink could pass zero). The sums run through :func:`math.fsum` (exact, so in any order) and each
  period's ratings are rounded to :data:`DIGITS` decimals. So a rating depends on no agent's name and on no
  order of a seed's records: a permutation of the names permutes the ratings exactly, and agents with
  identical results get identical ratings, which rank as ties (competition ranks: 1, 2, 2, 4). An agent's
  rating is its ``mu`` and its uncertainty ``sigma``; ``ordinal = mu - 3 sigma``.
  In games that are not zero-sum "higher return than the partner" is what wins a match: an agent that
  exploits its partners rates high even where mutual cooperation pays both more (IPD).
* **Seated games.** Where the two seats differ (a persuader and a persuadee; a mediator and the parties),
  every agent plays one seat only (its cell's ``seat``) and an episode's record may hold ``scores``, the
  match result of each seat (e.g. persuaded 1/0, not persuaded 0/1), which is rated in place of the returns
  (seats' returns are then on different scales). Each agent is rated in its own seat: the rows give its
  ``seat`` and its rank among that seat's agents (``seat_rank``), and the rank agreement is also given
  within each seat (``spearman_by_seat``), since a Spearman over both seats also counts the gap between
  the seats.
* **Win shares.** Beside the ratings, each agent's share of its matches won (ties half, self-play left out) and
  the Spearman agreement of those shares between the seed halves (``win_share_spearman``). OpenSkill updates
  period by period, and its ``sigma`` shrinks as it goes, so a half's ``mu`` leans on that half's first seeds;
  the win shares weigh every match alike.
* **Rank agreement.** The seeds are cut into two disjoint halves (the first and the second half of the seeds
  every pairing has played: :func:`seed_halves`), each half rated on its own, and the Spearman rank
  correlation of the two ``mu`` vectors over the agents is reported (average ranks for ties; None with fewer
  than 2 seeds or when a half rates every agent alike). An agent that played fewer of the population's seeds
  than the rest (an LLM agent played with fewer episodes) is left out of it, named in ``left_out``
  (:func:`under_sampled`): kept, its few seeds would be the only ones both halves could use. Beside it,
  ``with_all`` is the agreement with them back in: every agent with at least :data:`WITH_ALL_SEEDS` seeds, on
  the seeds all their pairings have played (an LLM agent's 20 beside a population's 40: halves 0-9 and 10-19),
  computed only when those are at least :data:`WITH_ALL_SEEDS`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tom_envs.errors import import_optional
from tom_envs.stats import mean_ci95


def _rounded(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(float(value), digits)


def agent_names(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """Agent names in the order they first appear as row agents (the population's order), then columns."""
    names: dict[str, None] = {}
    for rec in records:
        names.setdefault(rec["cell"]["row"]["name"], None)
    for rec in records:
        names.setdefault(rec["cell"]["col"]["name"], None)
    return list(names)


def pairing_rows(env_id: str, records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per ordered pairing present in ``records`` (all of one env id), row-major in population order."""
    by_pair: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for rec in records:
        by_pair.setdefault((rec["cell"]["row"]["name"], rec["cell"]["col"]["name"]), []).append(rec)
    order = {name: i for i, name in enumerate(agent_names(records))}
    rows = []
    for (row, col), recs in sorted(by_pair.items(), key=lambda kv: (order[kv[0][0]], order[kv[0][1]])):
        out: dict[str, Any] = {
            "kind": "pairing",
            "env_id": env_id,
            "row": row,
            "col": col,
            "row_kind": recs[0]["cell"]["row"]["kind"],
            "col_kind": recs[0]["cell"]["col"]["kind"],
            "episodes": len(recs),
            "seeds": sorted(int(r["seed"]) for r in recs),
        }
        for i, side in enumerate(("row", "col")):
            mean, ci = mean_ci95([r["episode"]["returns"][i] for r in recs])
            out[f"{side}_return"], out[f"{side}_return_ci"] = _rounded(mean), _rounded(ci)
            mean, ci = mean_ci95([r["episode"]["tom"][i] for r in recs if r["episode"]["tom"][i] is not None])
            out[f"{side}_tom"], out[f"{side}_tom_ci"] = _rounded(mean, 2), _rounded(ci, 2)
        rows.append(out)
    return rows


def match_scores(record: Mapping[str, Any]) -> tuple[float, float]:
    """An episode's match result: its ``scores`` where the record holds them (seated games), else its returns."""
    got = record["episode"].get("scores") or record["episode"]["returns"]
    return float(got[0]), float(got[1])


def seat_of(records: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """``agent -> seat`` of the agents that play one seat only (their cell's ``seat``); empty otherwise."""
    return {
        r["cell"][side]["name"]: r["cell"][side]["seat"]
        for r in records
        for side in ("row", "col")
        if "seat" in r["cell"][side]
    }


def _matches(records: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, float, float]]:
    """``(row agent, column agent, row score, column score)`` per episode (:func:`match_scores`), by seed, then
    row agent, then column agent (the win shares do not depend on it)."""
    found = [(int(r["seed"]), r["cell"]["row"]["name"], r["cell"]["col"]["name"], *match_scores(r)) for r in records]
    return [m[1:] for m in sorted(found, key=lambda m: m[:3])]


#: Decimals a rating is rounded to after each rating period: the sums are exact (:func:`math.fsum`), the rounding
#: keeps any float noise of OpenSkill's own arithmetic from splitting agents whose results are identical.
DIGITS = 9


def _periods(records: Iterable[Mapping[str, Any]]) -> list[list[tuple[str, str, float, float]]]:
    """The matches ``(row agent, column agent, row score, column score)`` grouped into rating periods, one per
    seed in seed order; self-play left out (it says nothing about who is stronger)."""
    by_seed: dict[int, list[tuple[str, str, float, float]]] = {}
    for r in records:
        row, col = r["cell"]["row"]["name"], r["cell"]["col"]["name"]
        if row != col:
            by_seed.setdefault(int(r["seed"]), []).append((row, col, *match_scores(r)))
    return [by_seed[seed] for seed in sorted(by_seed)]


def rate(records: Iterable[Mapping[str, Any]], agents: Sequence[str] | None = None) -> dict[str, tuple[float, float]]:
    """``agent -> (mu, sigma)``: OpenSkill Plackett-Luce ratings from the episodes, rated in periods of one seed
    (module docstring): every match of a period is rated by ``model.rate`` from the ratings at the period's start,
    and each agent's updates are combined (its ``mu`` deltas summed, its ``sigma^2`` ratios multiplied) and
    applied at the period's end. Neither the agents' names nor the order of a seed's records change a rating."""
    import_optional("openskill", "bench", "tom-envs crossplay's ratings")
    from openskill.models import PlackettLuce

    records = list(records)
    model = PlackettLuce()
    names = list(agents) if agents is not None else agent_names(records)
    ratings = {name: (model.mu, model.sigma) for name in names}
    tau2 = model.tau**2  # model.rate adds it to sigma^2 before each match; a period adds it once
    for period in _periods(records):
        deltas: dict[str, list[float]] = {}
        logs: dict[str, list[float]] = {}  # log of each match's sigma^2 factor: their fsum is exact in any order
        for row, col, r0, r1 in period:
            # ordinal ranks (0 first): OpenSkill reads ranks closer than 1 apart (fractional returns) as no win
            ranks = [0, 0] if r0 == r1 else ([0, 1] if r0 > r1 else [1, 0])
            teams = [[model.rating(mu=ratings[n][0], sigma=ratings[n][1])] for n in (row, col)]
            (new_row,), (new_col,) = model.rate(teams, ranks=ranks)
            for name, new in ((row, new_row), (col, new_col)):
                mu, sigma = ratings[name]
                deltas.setdefault(name, []).append(float(new.mu) - mu)
                logs.setdefault(name, []).append(math.log(float(new.sigma) ** 2 / (sigma**2 + tau2)))
        for name in deltas:
            mu, sigma = ratings[name]
            ratings[name] = (
                round(mu + math.fsum(deltas[name]), DIGITS),
                round(math.sqrt((sigma**2 + tau2) * math.exp(math.fsum(logs[name]))), DIGITS),
            )
    return dict(ratings)


def ranked(values: Mapping[str, float]) -> dict[str, int]:
    """``name -> rank`` by descending value, equal values sharing a rank (competition ranking: 1, 2, 2, 4)."""
    order = sorted(values.values(), reverse=True)
    return {name: order.index(value) + 1 for name, value in values.items()}


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rank correlation (average ranks for ties); None when either side has no spread."""

    def ranks(values: Sequence[float]) -> list[float]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return out

    if len(xs) != len(ys) or len(xs) < 2:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx, syy = sum((a - mx) ** 2 for a in rx), sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / (sxx * syy) ** 0.5


def shared_seeds(records: Iterable[Mapping[str, Any]]) -> list[int]:
    """The seeds every pairing in ``records`` has played, in order."""
    by_pair: dict[tuple[str, str], set[int]] = {}
    for r in records:
        by_pair.setdefault((r["cell"]["row"]["name"], r["cell"]["col"]["name"]), set()).add(int(r["seed"]))
    return sorted(set.intersection(*by_pair.values())) if by_pair else []


def seed_halves(records: Iterable[Mapping[str, Any]]) -> tuple[list[int], list[int]]:
    """The seeds every pairing has played, cut into two disjoint halves (first half, second half). A seed that
    only some pairings have (an agent that joined a population later, with fewer episodes) is left out of both:
    in a half without its matches that agent would keep its prior rating, and its rank there would say nothing."""
    seeds = shared_seeds(records)
    half = len(seeds) // 2
    return seeds[:half], seeds[half : half * 2]


def rating_rows(env_id: str, records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per agent: its rating (mu, sigma, ordinal), its rank, its pooled ToM and return over both seats."""
    agents = agent_names(records)
    rated = rate(records, agents)
    seats = seat_of(records)
    ranks = ranked({name: mu for name, (mu, _) in rated.items() if name in set(agents)})
    rows = []
    for name in sorted(agents, key=lambda n: (ranks[n], agents.index(n))):
        mu, sigma = rated[name]
        rank = ranks[name]
        toms = [
            r["episode"]["tom"][i]
            for r in records
            for i, side in enumerate(("row", "col"))
            if r["cell"][side]["name"] == name and r["episode"]["tom"][i] is not None
        ]
        rets = [
            r["episode"]["returns"][i]
            for r in records
            for i, side in enumerate(("row", "col"))
            if r["cell"][side]["name"] == name
        ]
        kind = next(
            r["cell"][side]["kind"] for r in records for side in ("row", "col") if r["cell"][side]["name"] == name
        )
        tom, tom_ci = mean_ci95(toms)
        ret, ret_ci = mean_ci95(rets)
        rows.append(
            {
                "kind": "rating",
                "env_id": env_id,
                "agent": name,
                "agent_kind": kind,
                "rank": rank,
                "mu": round(mu, 3),
                "sigma": round(sigma, 3),
                "ordinal": round(mu - 3 * sigma, 3),
                "tom": _rounded(tom, 2),
                "tom_ci": _rounded(tom_ci, 2),
                "return": _rounded(ret),
                "return_ci": _rounded(ret_ci),
            }
        )
        if name in seats:
            rows[-1]["seat"] = seats[name]
    if seats:
        for seat in dict.fromkeys(seats.values()):
            mine = [r for r in rows if r.get("seat") == seat]
            within = ranked({r["agent"]: rated[r["agent"]][0] for r in mine})
            for r in mine:
                r["seat_rank"] = within[r["agent"]]
    return rows


def under_sampled(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """``agent -> seeds it has played`` for each agent that has played fewer of the population's seeds than the
    others (an LLM agent played with fewer episodes beside a committed population). The rank agreement leaves
    them out: their seeds would cut both halves down to a few seeds for every agent. Empty when fewer than two
    agents would be left."""
    played: dict[str, set[int]] = {}
    for r in records:
        for side in ("row", "col"):
            played.setdefault(r["cell"][side]["name"], set()).add(int(r["seed"]))
    every = set().union(*played.values()) if played else set()
    short = {name: len(seeds) for name, seeds in played.items() if seeds != every}
    return short if len(played) - len(short) >= 2 else {}


#: The fewest seeds (both halves together) every pairing must share for :func:`agreement_row`'s ``with_all``.
WITH_ALL_SEEDS = 10


def halves_agreement(
    records: Sequence[Mapping[str, Any]], agents: Sequence[str], first: Sequence[int], second: Sequence[int]
) -> dict[str, Any]:
    """The agreement of ``agents`` between the seed halves ``first`` and ``second``: the Spearman of the two halves'
    ``mu`` (``spearman``, and ``spearman_by_seat`` in a seated game), each half's ``mu`` (``mu_a``, ``mu_b``) and
    the Spearman of the win shares (``win_share_spearman``, ``win_share_spearman_by_seat``)."""
    a_recs = [r for r in records if int(r["seed"]) in set(first)]
    b_recs = [r for r in records if int(r["seed"]) in set(second)]
    a, b = rate(a_recs, agents), rate(b_recs, agents)
    wa, wb = win_shares(a_recs, agents), win_shares(b_recs, agents)
    seats = seat_of(records)

    def by_seat(x: Mapping[str, Any], y: Mapping[str, Any]) -> dict[str, float | None]:
        return {
            seat: _rounded(
                spearman(
                    [x[n] for n in agents if seats.get(n) == seat], [y[n] for n in agents if seats.get(n) == seat]
                ),
                4,
            )
            for seat in dict.fromkeys(seats.values())
        }

    mu_a, mu_b = {n: a[n][0] for n in agents}, {n: b[n][0] for n in agents}
    out: dict[str, Any] = {"spearman": _rounded(spearman(list(mu_a.values()), list(mu_b.values())), 4)}
    if seats:
        out["spearman_by_seat"] = by_seat(mu_a, mu_b)
    out["mu_a"] = {n: round(v, 3) for n, v in mu_a.items()}
    out["mu_b"] = {n: round(v, 3) for n, v in mu_b.items()}
    out["win_share_spearman"] = _rounded(spearman([wa[n] for n in agents], [wb[n] for n in agents]), 4)
    if seats:
        out["win_share_spearman_by_seat"] = by_seat(wa, wb)
    return out


def agreement_row(env_id: str, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The rank agreement of ratings from the two seed halves (module docstring), over the agents that played
    every seed (:func:`under_sampled` names the others, ``left_out``).

    Where some are left out, ``with_all`` is the agreement with them back in: every agent that played at least
    :data:`WITH_ALL_SEEDS` seeds, on the seeds all their pairings have played (:func:`shared_seeds`, halved as
    :func:`seed_halves` does). It holds ``seeds`` (how many are shared), ``seeds_a``, ``seeds_b``, ``agents``,
    ``left_out`` (the agents with fewer seeds, if any) and the figures of :func:`halves_agreement`, or
    ``spearman`` None alone when fewer than :data:`WITH_ALL_SEEDS` seeds are shared."""
    everyone = list(records)
    left_out = under_sampled(everyone)
    records = [
        r for r in everyone if r["cell"]["row"]["name"] not in left_out and r["cell"]["col"]["name"] not in left_out
    ]
    agents = agent_names(records)
    first, second = seed_halves(records)
    row: dict[str, Any] = {
        "kind": "agreement",
        "env_id": env_id,
        "agents": len(agents),
        "seeds_a": first,
        "seeds_b": second,
        "spearman": None,
    }
    if left_out:
        row["left_out"] = left_out
    if first and second:
        row.update(halves_agreement(records, agents, first, second))
    if left_out:
        row["with_all"] = with_all(everyone, left_out)
    return row


def with_all(records: Sequence[Mapping[str, Any]], left_out: Mapping[str, int]) -> dict[str, Any]:
    """:func:`agreement_row`'s ``with_all``: the agreement of every agent with at least :data:`WITH_ALL_SEEDS`
    seeds (``left_out``: :func:`under_sampled` of ``records``), on the seeds all their pairings share. When no
    left-out agent has that many, nothing is rated (``spearman`` None) and ``seeds`` and ``agents`` are those
    of every agent's pairings."""
    short = {name: n for name, n in left_out.items() if n < WITH_ALL_SEEDS}
    kept = [r for r in records if r["cell"]["row"]["name"] not in short and r["cell"]["col"]["name"] not in short]
    if len(short) == len(left_out):  # nobody comes back: the agreement would be the population's own
        kept, short = list(records), {}
    agents = agent_names(kept)
    seeds = shared_seeds(kept)
    first, second = seed_halves(kept)
    out: dict[str, Any] = {
        "seeds": len(seeds),
        "seeds_a": first,
        "seeds_b": second,
        "agents": len(agents),
        "spearman": None,
    }
    if short:
        out["left_out"] = short
    if len(seeds) >= WITH_ALL_SEEDS:
        out.update(halves_agreement(kept, agents, first, second))
    return out


def win_shares(records: Iterable[Mapping[str, Any]], agents: Sequence[str]) -> dict[str, float]:
    """``agent -> `` its share of the matches it won (a tie counts half; self-play left out), the order-free
    summary beside the ratings: OpenSkill updates match by match, so a half's ``mu`` leans on its first seeds."""
    won: dict[str, list[float]] = {n: [] for n in agents}
    for row, col, r0, r1 in _matches(records):
        if row == col:
            continue
        share = 0.5 if r0 == r1 else float(r0 > r1)
        won[row].append(share)
        won[col].append(1.0 - share)
    return {n: (sum(v) / len(v) if v else 0.5) for n, v in won.items()}


def summarise(records: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """``{"pairings", "ratings", "agreement"}`` rows of every env id's records."""
    out: dict[str, list[dict[str, Any]]] = {"pairings": [], "ratings": [], "agreement": []}
    for env_id, recs in records.items():
        recs = list(recs)
        if not recs:
            continue
        out["pairings"] += pairing_rows(env_id, recs)
        out["ratings"] += rating_rows(env_id, recs)
        out["agreement"].append(agreement_row(env_id, recs))
    return out


def rating_label(row: Mapping[str, Any], either: str) -> list[str]:
    """The first cells of a rating row in a table: its rank, the agent, its kind, and the seat it plays with its
    rank within that seat (``either`` for an agent of either seat)."""
    seat = f"{row['seat']} ({row['seat_rank']})" if "seat" in row else either
    return [str(row["rank"]), row["agent"], row["agent_kind"], seat]


def agreement_text(agree: Mapping[str, Any]) -> str:
    """``Spearman 0.900`` (and, in a seated game, each seat's), or why there is none."""

    def one(rho: Any) -> str:
        return "n/a (too few seeds, or no spread)" if rho is None else f"{rho:.3f}"

    text = f"Spearman {one(agree['spearman'])}"
    by_seat = agree.get("spearman_by_seat")
    if by_seat:
        text += " over both seats; within a seat: " + ", ".join(f"{seat} {one(rho)}" for seat, rho in by_seat.items())
    if "win_share_spearman" in agree:
        text += f"; of the win shares: {one(agree['win_share_spearman'])}"
        shares = agree.get("win_share_spearman_by_seat")
        if shares:
            text += " (" + ", ".join(f"{seat} {one(rho)}" for seat, rho in shares.items()) + ")"
    return text


def _fmt(value: Any, ci: Any, digits: int = 2) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f} ± {ci:.{digits}f}" if ci is not None else f"{value:.{digits}f}"


def _table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(c)), *(len(str(r[i])) for r in rows)) if rows else len(str(c)) for i, c in enumerate(columns)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    return "\n".join([line(columns), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def render(result: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """The rows as text tables, one block per env id."""
    blocks = []
    for agree in result["agreement"]:
        env_id = agree["env_id"]
        pairs = [r for r in result["pairings"] if r["env_id"] == env_id]
        blocks.append(
            f"{env_id}: {len(pairs)} pairings, {pairs[0]['episodes'] if pairs else 0} episodes each "
            "(row agent in the first seat; ToM = % correct predictions of the other's next action)"
        )
        blocks.append(
            _table(
                ["row", "col", "row return", "col return", "row ToM %", "col ToM %"],
                [
                    [
                        r["row"],
                        r["col"],
                        _fmt(r["row_return"], r["row_return_ci"]),
                        _fmt(r["col_return"], r["col_return_ci"]),
                        _fmt(r["row_tom"], r["row_tom_ci"], 1),
                        _fmt(r["col_tom"], r["col_tom_ci"], 1),
                    ]
                    for r in pairs
                ],
            )
        )
        rates = [r for r in result["ratings"] if r["env_id"] == env_id]
        blocks.append(
            _table(
                ["rank", "agent", "kind", "seat (rank)", "mu ± sigma", "ordinal", "ToM %", "return"],
                [
                    [
                        *rating_label(r, "any"),
                        f"{r['mu']:.2f} ± {r['sigma']:.2f}",
                        f"{r['ordinal']:.2f}",
                        _fmt(r["tom"], r["tom_ci"], 1),
                        _fmt(r["return"], r["return_ci"]),
                    ]
                    for r in rates
                ],
            )
        )
        line = (
            f"rank agreement (OpenSkill mu, seeds {agree['seeds_a'][:1]}.. vs {agree['seeds_b'][:1]}.., "
            f"{agree['agents']} agents): {agreement_text(agree)}"
        )
        if agree.get("left_out"):
            line += "\nleft out (fewer episodes): " + ", ".join(
                f"{n} ({k} seeds)" for n, k in agree["left_out"].items()
            )
        every = agree.get("with_all")
        if every is not None:
            line += f"\nwith every agent of {WITH_ALL_SEEDS}+ seeds ({every['agents']} agents, {every['seeds']} shared seeds): "
            line += agreement_text(every) if "mu_a" in every else f"n/a (fewer than {WITH_ALL_SEEDS} shared seeds)"
        blocks.append(line + "\n")
    return "\n".join(blocks)
