"""Chronological replay of a match history through a rating model.

:func:`replay` feeds the matches, in the order given, to ``model.rate`` one by one, exactly as a
caller would: a player's first match starts from ``model.rating()``; each match's teams are
passed as dicts ``{player: rating}`` with the match's ranks and weights. Before each match it
records the model's predictions for every pair of teams whose order the result decides (see
:class:`MatchPrediction`).

Elapsed-time drift: when ``model.rate`` accepts an ``elapsed`` keyword (mindsport's TrueSkill with
``drift``), replay passes the time since each player's previous match (0 for a first match), in
``time_unit``s: days for ``datetime`` times, the raw difference for numeric times, unless given.
Glicko-2 takes it too when its ``period`` is set (idle rating periods widen the deviation).
Models without it (Elo, Tenhou, pairwise) are called without it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mindsport.errors import MindsportError
from mindsport.match import Match, pair_outcome

__all__ = ["MatchPrediction", "Replay", "pair_outcome", "pair_probability", "replay"]


@dataclass(frozen=True, slots=True)
class MatchPrediction:
    """Pre-game predictions for one match.

    ``pairs``: ``(i, j, p, outcome)`` for every pair of teams ``i < j`` whose relative order the
    result tells (both ranked, or exactly one unranked): ``p`` is the model's probability that
    team ``i`` finishes ahead of team ``j`` given that one of them does (draw-free), ``outcome`` is
    1.0 if ``i`` finished ahead, 0.0 if behind, 0.5 for a tie.
    """

    index: int
    match_id: str
    pairs: tuple[tuple[int, int, float, float], ...]


@dataclass(frozen=True)
class Replay:
    """The result of :func:`replay`.

    ``ratings``: every player's rating after the last match. ``predictions``: one
    :class:`MatchPrediction` per match (empty when ``predict=False``). ``history``: for each match,
    ``(match_id, {player: rating after the match})`` (empty when ``keep_history=False``).
    """

    ratings: dict[str, Any]
    predictions: list[MatchPrediction] = field(default_factory=list)
    history: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def pair_probability(model: Any, team_a: Any, team_b: Any) -> float:
    """Probability that ``team_a`` finishes ahead of ``team_b``, draws excluded.

    Uses ``model.outcome_probabilities`` (win, draw, loss) when the model has it, normalising
    away the draw; otherwise ``model.win_probability``.
    """
    op = getattr(model, "outcome_probabilities", None)
    if op is not None:
        win, _draw, loss = op(team_a, team_b)
        s = win + loss
        return 0.5 if s <= 0 else win / s
    return float(model.win_probability(team_a, team_b))


def _accepts_elapsed(model: Any) -> bool:
    try:
        sig = inspect.signature(model.rate)
    except (TypeError, ValueError):
        return False
    return "elapsed" in sig.parameters


def replay(
    model: Any,
    matches: Iterable[Match],
    *,
    predict: bool = True,
    keep_history: bool = True,
    initial: Mapping[str, Any] | None = None,
    time_unit: float | None = None,
    progress: Callable[[int], None] | None = None,
    fast: bool | None = None,
) -> Replay:
    """Replay ``matches`` (in the given order) through ``model``; see the module docstring.

    ``initial``: ratings of players known before the first match. ``progress``: called with the
    number of matches done, every 1000 matches and at the end. ``fast``: use the compiled
    kernels (:mod:`mindsport.history.fast`; same numbers); ``None`` picks them automatically
    for :class:`~mindsport.rating.TrueSkill`, :class:`~mindsport.rating.Elo` (constant K or
    :class:`~mindsport.rating.FideK`), :class:`~mindsport.rating.Glicko2` and
    :class:`~mindsport.rating.TenhouRating` (exact classes, ``initial`` ratings of the model's
    own type); anything else, e.g. another callable K, takes the object path. ``False`` forces
    the object path, ``True`` raises if there is no compiled path.
    """
    if not hasattr(model, "rate") or not hasattr(model, "rating"):
        raise MindsportError(f"replay: {model!r} is not a rating model (needs rate and rating)")
    from mindsport.rating.batch_classic import compiled_model
    from mindsport.rating.elo import Elo, EloRating
    from mindsport.rating.glicko2 import Glicko2, Glicko2Rating
    from mindsport.rating.rating import Rating
    from mindsport.rating.tenhou import TenhouR, TenhouRating
    from mindsport.rating.trueskill import TrueSkill

    value_type: dict[type, type] = {
        TrueSkill: Rating,
        Elo: EloRating,
        Glicko2: Glicko2Rating,
        TenhouRating: TenhouR,
    }
    want = value_type.get(type(model))
    compiled_ok = (
        want is not None
        and (type(model) is TrueSkill or compiled_model(model))
        and all(  # initial ratings of the model's own type (game counts whole numbers)
            (isinstance(r, Rating) if want is Rating else type(r) is want)
            and (not hasattr(r, "games") or type(r.games) is int)
            for r in (initial or {}).values()
        )
    )
    if fast and not compiled_ok:
        raise MindsportError(f"replay: no compiled path for {model!r}")
    if compiled_ok and fast is not False:
        from mindsport.history.fast import replay_classic, replay_trueskill

        compiled = replay_trueskill if type(model) is TrueSkill else replay_classic
        rated, preds, hist = compiled(
            model,
            matches,
            predict=predict,
            keep_history=keep_history,
            initial=initial,
            time_unit=time_unit,
            progress=progress,
        )
        return Replay(rated, preds, hist)
    ratings: dict[str, Any] = dict(initial or {})
    last: dict[str, float] = {}
    predictions: list[MatchPrediction] = []
    history: list[tuple[str, dict[str, Any]]] = []
    # elapsed times matter only to a model with drift (TrueSkill) or a rating period (Glicko-2)
    use_elapsed = (
        _accepts_elapsed(model)
        and bool(getattr(model, "drift", True))
        and getattr(model, "period", True) is not None
    )
    new_rating = model.rating
    count = 0
    for idx, m in enumerate(matches):
        if not isinstance(m, Match):
            raise MindsportError(f"replay: item {idx} is not a Match: {m!r}")
        try:
            teams: list[dict[str, Any]] = []
            for team in m.teams:
                d: dict[str, Any] = {}
                for p in team:
                    r = ratings.get(p)
                    if r is None:
                        r = new_rating()
                    d[p] = r
                teams.append(d)
            if predict:
                pairs: list[tuple[int, int, float, float]] = []
                n = len(teams)
                for i in range(n):
                    for j in range(i + 1, n):
                        o = pair_outcome(m.ranks[i], m.ranks[j])
                        if o is None:
                            continue
                        prob = pair_probability(
                            model, tuple(teams[i].values()), tuple(teams[j].values())
                        )
                        pairs.append((i, j, prob, o))
                predictions.append(MatchPrediction(idx, m.id, tuple(pairs)))
            kwargs: dict[str, Any] = {}
            if use_elapsed:
                now = m.time_value()
                unit = (
                    time_unit
                    if time_unit is not None
                    else (86400.0 if isinstance(m.time, datetime) else 1.0)
                )
                el = []
                for k, team in enumerate(m.teams):
                    row = {}
                    for j, p in enumerate(team):
                        prev = last.get(p)
                        row[p] = 0.0 if prev is None else max(0.0, (now - prev) / unit)
                        if m.weights is None or m.weights[k][j] > 0:  # absent players: not
                            last[p] = now  # a game they played
                    el.append(row)
                kwargs["elapsed"] = el
            weights: Sequence[Any] | None = None
            if m.weights is not None:
                weights = [
                    dict(zip(t, w, strict=True)) for t, w in zip(m.teams, m.weights, strict=True)
                ]
            new = model.rate(teams, list(m.ranks), weights, **kwargs)
        except MindsportError as exc:
            msg = f"match {m.id!r}: {exc}"
            try:
                err = type(exc)(msg)
            except TypeError:
                err = MindsportError(msg)
            raise err from exc
        after: dict[str, Any] = {}
        for t in new:
            after.update(t)
        ratings.update(after)
        if keep_history:
            history.append((m.id, after))
        count = idx + 1
        if progress is not None and count % 1000 == 0:
            progress(count)
    if progress is not None:
        progress(count)
    return Replay(ratings, predictions, history)
