#!/usr/bin/env python3
"""A riichi mahjong bot speaking mjai (docs/bots.md, "Mahjong: mjai"): it keeps its hand from
the events, throws a lone honour tile when it holds one (else the tile it just drew) and passes
every call and win offered on another seat's discard.

It reads one JSON array of mjai events per line on stdin and answers one mjai action per line
on stdout; it needs nothing but Python. Seat it at a table with

    mindsport games play mahjong-east \
        --bots 'cmd:"python examples/mahjong_mjai_bot.py",level:60,level:60,level:60'
"""

from __future__ import annotations

import json
import sys

HONOURS = ("E", "S", "W", "N", "P", "F", "C")


class Player:
    """What the bot remembers: its seat, its hand, the tile it drew last."""

    def __init__(self) -> None:
        self.seat = -1
        self.hand: list[str] = []
        self.drawn: str | None = None

    def see(self, event: dict) -> None:
        kind = event["type"]
        if kind == "start_game":
            self.seat = event["id"]
        elif kind == "start_kyoku":
            self.hand = list(event["tehais"][self.seat])
            self.drawn = None
        elif kind == "tsumo" and event["actor"] == self.seat:
            self.hand.append(event["pai"])
            self.drawn = event["pai"]
        elif kind == "dahai" and event["actor"] == self.seat:
            self.hand.remove(event["pai"])

    def act(self, last: dict) -> dict:
        if last["type"] != "tsumo" or last["actor"] != self.seat:
            return {"type": "none"}  # a discard of another seat: no call, no ron
        lone = [t for t in self.hand if t in HONOURS and self.hand.count(t) == 1]
        tile = lone[0] if lone else self.drawn
        tsumogiri = tile == self.drawn and self.hand.count(tile) == 1
        return {"type": "dahai", "actor": self.seat, "pai": tile, "tsumogiri": tsumogiri}


def main() -> None:
    print("mahjong_mjai_bot: ready", file=sys.stderr, flush=True)  # stderr goes to the log
    player = Player()
    for line in sys.stdin:
        events = json.loads(line)
        for event in events:
            player.see(event)
        print(json.dumps(player.act(events[-1])), flush=True)


if __name__ == "__main__":
    main()
