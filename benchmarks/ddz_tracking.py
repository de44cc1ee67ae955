"""Card tracking in Dou Dizhu: the tracking bot against the strong bot, and tracker accuracy.

Part 1, duplicate deals. Every deal is played three times with the same game seed:
``tracking`` landlord vs ``strong`` farmers (A), ``strong`` vs ``strong`` (B, the reference) and
``strong`` landlord vs ``tracking`` farmers (C). The tracking side's gain on the deal is
``(A - B)`` as landlord plus ``(B - C)`` as farmers (landlord scores, LINEAR scoring), i.e.
``A - C``; the mean gain comes with a 95% confidence interval (1.96 standard errors over deals;
the deals are independent). Win rates are given per seating. Deals are played until ``--deals``
or the ``--seconds`` budget is used up (whichever first); the report says how many.

The kitty is not part of :class:`~mindsport.doudizhu.Deal`; under seed 001's dealing it is a
uniformly random 3-card subset of the landlord's 20 cards, so one is drawn that way per deal and
given to the tracking bot (``TrackingBot.set_kitty``).

Part 2, tracker accuracy. Strong self-play; after every action each seat's tracker gives the
probability of the true holder of every unseen card; the mean over cards is reported against the
number of plays seen (non-pass actions), for three trackers: ``sizes`` (hand sizes only: the
uniform baseline), ``hard`` (+ kitty) and ``hard+pass`` (+ passes as soft evidence); with the
mean log-probability (a proper score) too.

    .venv/bin/python benchmarks/ddz_tracking.py --seconds 300
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from mindsport.doudizhu import LINEAR, Deal, GameState, Move, StateView, deal, play
from mindsport.doudizhu.bots import StrongBot, TrackingBot
from mindsport.doudizhu.cards import N_RANKS, Counts
from mindsport.doudizhu.tracking import CardTracker, PassModel


def random_kitty(d: Deal, rng: np.random.Generator) -> Counts:
    """A uniformly random 3-card subset of the landlord's hand."""
    cards = [r for r, n in enumerate(d.counts()[0]) for _ in range(n)]
    kitty = [0] * N_RANKS
    for i in rng.choice(len(cards), 3, replace=False):
        kitty[cards[i]] += 1
    return tuple(kitty)


class Timed:
    """Wraps a bot and records the time of every decision."""

    def __init__(self, bot: StrongBot | TrackingBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.times: list[float] = []
        self.lookahead_times: list[float] = []

    def act(
        self, view: StateView, legal: Sequence[Move | None], rng: np.random.Generator
    ) -> Move | None:
        before = getattr(self.bot, "lookaheads", 0)
        t0 = time.perf_counter()
        move = self.bot.act(view, legal, rng)
        dt = time.perf_counter() - t0
        self.times.append(dt)
        if getattr(self.bot, "lookaheads", 0) > before:
            self.lookahead_times.append(dt)
        return move


def ci(x: np.ndarray) -> str:
    if len(x) < 2:
        return f"{x.mean():+.3f}"
    return f"{x.mean():+.3f} ± {1.96 * x.std(ddof=1) / np.sqrt(len(x)):.3f}"


def duplicate(args: argparse.Namespace) -> None:
    tracking = TrackingBot(
        samples=args.samples,
        max_candidates=args.candidates,
        endgame_cards=args.endgame,
        danger_cards=args.danger,
        confidence=args.confidence,
    )
    tb, sb = Timed(tracking), Timed(StrongBot())
    warm = StrongBot()  # compile the planner's kernels outside the clock
    play(deal(np.random.default_rng(0)), [warm, warm, warm], rng=np.random.default_rng(0))
    a: list[float] = []
    b: list[float] = []
    c: list[float] = []
    start = time.perf_counter()
    i = 0
    while i < args.deals and time.perf_counter() - start < args.seconds:
        d = deal(np.random.default_rng([args.seed, i]))
        tracking.set_kitty(random_kitty(d, np.random.default_rng([args.seed, i, 2])))
        for out, players in ((a, [tb, sb, sb]), (b, [sb, sb, sb]), (c, [sb, tb, tb])):
            rec = play(d, players, scoring=LINEAR, rng=np.random.default_rng([args.seed, i, 1]))
            out.append(rec.landlord_score)
        i += 1
    elapsed = time.perf_counter() - start
    sa, sb_, sc = np.array(a), np.array(b), np.array(c)
    n = len(sa)
    print(
        f"== tracking vs strong: {n} duplicate deals (seed {args.seed}), LINEAR scoring, "
        f"{elapsed:.0f} s; tracking: samples={args.samples} candidates={args.candidates} "
        f"endgame<={args.endgame} or an opponent <={args.danger} confidence={args.confidence}"
    )
    print(f"{'seating':42s} {'landlord wins':>13s} {'landlord score (95% CI)':>24s}")
    for name, s in (
        ("A tracking landlord vs strong farmers", sa),
        ("B strong vs strong (reference)", sb_),
        ("C strong landlord vs tracking farmers", sc),
    ):
        print(f"{name:42s} {np.mean(s > 0):13.3f} {ci(s):>24s}")
    win_l = (sa > 0).astype(float) - (sb_ > 0)
    win_f = (sb_ > 0).astype(float) - (sc > 0)
    print(f"tracking as landlord: win rate {ci(win_l)} vs strong, score {ci(sa - sb_)}")
    print(f"tracking as farmers:  win rate {ci(win_f)} vs strong, score {ci(sb_ - sc)}")
    print(f"duplicate gain per deal (A - C, landlord seat + farmer seats): {ci(sa - sc)}")
    print(
        f"deals where the result changed: A vs B {np.mean(sa != sb_):.3f}, "
        f"C vs B {np.mean(sc != sb_):.3f}"
    )
    t_all, t_la, s_all = np.array(tb.times), np.array(tb.lookahead_times), np.array(sb.times)
    print(
        f"time per move: strong {1e3 * s_all.mean():.2f} ms; tracking {1e3 * t_all.mean():.2f} ms "
        f"({len(t_all)} moves); look-ahead moves {1e3 * t_la.mean():.1f} ms mean, "
        f"{1e3 * np.percentile(t_la, 95):.1f} ms p95, max {1e3 * t_la.max():.1f} ms "
        f"({len(t_la)} = {len(t_la) / len(t_all):.1%} of its moves; "
        f"{tracking.deviations} departed from the strong choice)"
        if len(t_la)
        else "no look-ahead decisions"
    )


def accuracy(args: argparse.Namespace) -> None:
    models = {
        "sizes": (False, PassModel.none()),
        "hard": (True, PassModel.none()),
        "hard+pass": (True, PassModel()),
    }
    buckets = ((0, 0), (1, 4), (5, 9), (10, 14), (15, 19), (20, 29), (30, 99))
    prob: dict[str, dict[int, list[float]]] = {m: defaultdict(list) for m in models}
    logp: dict[str, dict[int, list[float]]] = {m: defaultdict(list) for m in models}
    strong = StrongBot()
    start = time.perf_counter()
    for g in range(args.accuracy_games):
        rng = np.random.default_rng([args.seed, 10**6 + g])
        d = deal(rng)
        kitty = random_kitty(d, rng)
        st = GameState(d)
        trackers = {
            (seat, m): CardTracker(
                seat, d.hands[seat], kitty=kitty if use_kitty else None, pass_model=pm
            )
            for seat in range(3)
            for m, (use_kitty, pm) in models.items()
        }
        while not st.is_terminal():
            plays = sum(1 for _, mv in st.history if mv is not None)
            b = next(k for k, (lo, hi) in enumerate(buckets) if lo <= plays <= hi)
            for (seat, m), t in trackers.items():
                t.update(st.view(seat))
                prob[m][b].append(t.true_holder_probability(st.hands, "exact"))
                logp[m][b].append(t.true_holder_probability(st.hands, "exact", log=True))
            st.apply_unchecked(strong.act(st.view(), st.legal_actions(), rng))
    elapsed = time.perf_counter() - start
    print(
        f"\n== tracker accuracy: {args.accuracy_games} strong self-play games, every seat, every "
        f"action ({elapsed:.0f} s); mean probability of the true holder of an unseen card "
        "[mean log-probability]"
    )
    print(f"{'plays seen':>10s} {'positions':>9s} " + " ".join(f"{m:>17s}" for m in models))
    for k, (lo, hi) in enumerate(buckets):
        if not prob["sizes"][k]:
            continue
        label = f"{lo}" if lo == hi else f"{lo}-{hi}"
        cells = " ".join(f"{np.mean(prob[m][k]):7.4f} [{np.mean(logp[m][k]):+.3f}]" for m in models)
        print(f"{label:>10s} {len(prob['sizes'][k]):9d} {cells}")
    cells = " ".join(
        f"{np.mean([x for v in prob[m].values() for x in v]):7.4f} "
        f"[{np.mean([x for v in logp[m].values() for x in v]):+.3f}]"
        for m in models
    )
    print(f"{'all':>10s} {sum(len(v) for v in prob['sizes'].values()):9d} {cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--samples", type=int, default=TrackingBot().samples)
    parser.add_argument("--candidates", type=int, default=TrackingBot().max_candidates)
    parser.add_argument("--endgame", type=int, default=TrackingBot().endgame_cards)
    parser.add_argument("--danger", type=int, default=TrackingBot().danger_cards)
    parser.add_argument("--confidence", type=float, default=TrackingBot().confidence)
    parser.add_argument("--accuracy-games", type=int, default=60)
    parser.add_argument("--skip-duplicate", action="store_true")
    args = parser.parse_args()
    if not args.skip_duplicate:
        duplicate(args)
    if args.accuracy_games > 0:
        accuracy(args)


if __name__ == "__main__":
    main()
