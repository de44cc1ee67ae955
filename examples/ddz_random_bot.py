#!/usr/bin/env python3
"""A bot for mindsport's JSON-lines bot protocol (docs/bots.md): it plays a random legal action.

It reads one request per line on stdin and answers one line on stdout; it needs nothing but
Python. It plays any game of mindsport (it only looks at ``legal_actions``); for Dou Dizhu it
prefers playing cards to passing. Seat it at a table with

    mindsport ddz play --bots 'cmd:"python examples/ddz_random_bot.py",strong,strong'
"""

from __future__ import annotations

import json
import random
import sys


def choose(request: dict, rng: random.Random) -> str:
    """A random legal action; a pass (Dou Dizhu) only one time in four when a play exists."""
    legal = request["legal_actions"]
    plays = [a for a in legal if a != "pass"]
    if plays and ("pass" not in legal or rng.random() < 0.75):
        return rng.choice(plays)
    return rng.choice(legal)


def main() -> None:
    print("ddz_random_bot: ready", file=sys.stderr, flush=True)  # stderr goes to the log
    for line in sys.stdin:
        request = json.loads(line)
        rng = random.Random(request["seed"])  # the game's seed for this decision: replayable
        print(json.dumps({"action": choose(request, rng)}), flush=True)


if __name__ == "__main__":
    main()
