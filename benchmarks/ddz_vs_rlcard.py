"""mindsport's strong Dou Dizhu bot against RLCard's rule agent (DouDizhuRuleAgentV1).

Duplicate deals: every deal is played twice, once with the strong bot as landlord against two
RLCard farmers, once with an RLCard landlord against two strong farmers. The RLCard agent plays
inside mindsport's engine through an adapter that builds the raw observation it reads
(``trace``, ``current_hand``, ``actions``, ``landlord``, ``self``) in RLCard's notation (jokers
``B``/``R``) and maps its answer back to a mindsport move. Legal actions offered to it are
mindsport's legal moves that also exist in RLCard's action space.

    .venv/bin/pip install rlcard
    .venv/bin/python benchmarks/ddz_vs_rlcard.py --deals 2000
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from mindsport.doudizhu import LINEAR, Move, deal, legal_moves, parse_move, play
from mindsport.doudizhu.bots import StrongBot
from mindsport.doudizhu.state import StateView

_TO_RL = str.maketrans({"X": "B", "D": "R"})
_FROM_RL = str.maketrans({"B": "X", "R": "D"})


class RLCardRuleBot:
    """RLCard's DouDizhuRuleAgentV1 as a mindsport bot.

    The agent draws from NumPy's global generator when it plays a random action; we seed that
    generator from the game's ``rng`` before each call so games replay from a seed.
    """

    name = "rlcard-rule-v1"

    def __init__(self) -> None:
        from rlcard.games.doudizhu.utils import CARD_TYPE
        from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

        self._agent = DouDizhuRuleAgentV1()
        self._known = CARD_TYPE[2]

    def act(
        self, view: StateView, legal: Sequence[Move | None], rng: np.random.Generator
    ) -> Move | None:
        moves = legal_moves(view.hand, view.previous)
        actions = [m.cards.translate(_TO_RL) for m in moves]
        actions = [a for a in actions if a in self._known]
        if view.previous is not None:
            actions.append("pass")
        trace = [
            (seat, "pass" if m is None else m.cards.translate(_TO_RL)) for seat, m in view.history
        ]
        raw: dict[str, Any] = {
            "trace": trace,
            "current_hand": view.hand_text.translate(_TO_RL),
            "actions": actions,
            "landlord": 0,
            "self": view.seat,
        }
        np.random.seed(int(rng.integers(2**31)))  # the agent uses the legacy global generator
        answer = self._agent.step({"raw_obs": raw})
        if answer == "pass":
            return None
        move = parse_move(str(answer).translate(_FROM_RL), view.previous)
        if view.previous is not None and move not in moves:  # never seen; be safe
            return None
        return move


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    strong, rule = StrongBot(), RLCardRuleBot()
    seatings = {
        "strong landlord vs rlcard farmers": [strong, rule, rule],
        "rlcard landlord vs strong farmers": [rule, strong, strong],
        "rlcard vs rlcard (reference)": [rule, rule, rule],
        "strong vs strong (reference)": [strong, strong, strong],
    }
    results: dict[str, list[float]] = {name: [] for name in seatings}
    wins: dict[str, int] = dict.fromkeys(seatings, 0)
    start = time.perf_counter()
    for i in range(args.deals):
        the_deal = deal(np.random.default_rng([args.seed, i]))
        for name, players in seatings.items():
            rec = play(
                the_deal, players, scoring=LINEAR, rng=np.random.default_rng([args.seed, i, 1])
            )
            results[name].append(rec.landlord_score)
            wins[name] += rec.landlord_won
    elapsed = time.perf_counter() - start
    n = args.deals
    print(f"{n} duplicate deals (seed {args.seed}), LINEAR scoring, {elapsed:.0f} s")
    print(f"{'seating':40s} {'landlord win':>12s} {'landlord score':>15s}")
    for name in seatings:
        s = np.array(results[name])
        print(
            f"{name:40s} {wins[name] / n:12.3f} {s.mean():+9.3f} ± {s.std(ddof=1) / np.sqrt(n):.3f}"
        )
    a = np.array(results["strong landlord vs rlcard farmers"])
    b = np.array(results["rlcard landlord vs strong farmers"])
    print(f"strong as landlord: wins {np.mean(a > 0):.3f}, mean score {a.mean():+.3f}")
    print(f"strong as farmers:  wins {np.mean(b < 0):.3f}, mean team score {-b.mean():+.3f}")
    diff = a - b  # strong side's duplicate margin per deal (landlord seat + farmer seats)
    print(
        f"duplicate margin per deal (strong landlord score - rlcard landlord score): "
        f"{diff.mean():+.3f} ± {diff.std(ddof=1) / np.sqrt(n):.3f}"
    )


if __name__ == "__main__":
    main()
