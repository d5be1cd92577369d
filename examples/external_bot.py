#!/usr/bin/env python3
"""A complete external Canasta bot in a few dozen lines (protocol canasta-bot/1).

It speaks JSON lines on stdin/stdout and needs nothing but Python.  Strategy:
take the pile when it can, meld whenever it can, otherwise discard its
lowest single card.  Try it:  canasta arena --bots "cmd:python3 examples/external_bot.py",basic
"""

import json
import sys

VALUES = {"JK": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10}


def rank(card: str) -> str:
    return card if card == "JK" else card[:-1]


def value(card: str) -> int:
    return VALUES.get(rank(card), 5)


def choose(view: dict[str, list[str]], legal: list[str]) -> str:
    for prefix in ("take", "meld"):
        options = [m for m in legal if m.startswith(prefix)]
        if options:
            return max(options, key=len)  # the move that uses most cards
    discards = [m for m in legal if m.startswith("discard")]
    if discards:
        hand = view["hand"]
        singles = [m for m in discards if sum(1 for c in hand if rank(c) == rank(m.split()[1])) == 1]
        return min(singles or discards, key=lambda m: value(m.split()[1]))
    return legal[0]  # draw, yes, no, end ...


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "example"}), flush=True)
    elif msg["type"] == "turn":
        print(json.dumps({"type": "move", "move": choose(msg["view"], msg["legal"])}), flush=True)
    elif msg["type"] == "bye":
        break
