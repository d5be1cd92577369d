"""A duplicate round's deals: one committed secret per round, every table's boards derived from it.

Before the tournament's first pairing, the director (or the server) draws one 256-bit secret per
round and publishes only the commitments, ``SHA-256(secret)``.  Board ``b`` of round ``r`` is the
provably fair deal (:mod:`canasta.engine.fairdeal`, ``docs/fair-deals.md``) whose secret is::

    board secret = HMAC-SHA256(key = round secret, message = "canasta-board/1|<r>|<b>")

with no client seeds (every table must get the same cards, so nobody at one table may change
them) and hand number 1; board ``b``'s dealer is seat ``(b - 1) mod players`` at every table.
When the round is over its secret is revealed: anyone checks that its SHA-256 is the published
commitment, derives each board's secret, and re-derives each table's deal from it (the tables'
records carry the board secret, as a fair hand's ``[Secret]``, so ``canasta verify`` checks each
record on its own as well).

A tournament run from a number (``canasta tournament --seed N``: bots, tests, demonstrations)
derives its round secrets from that number instead (:meth:`RoundSeed.from_seed`); the scheme is
the same, but such secrets are only as secret as the number.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from canasta.engine.errors import CanastaError
from canasta.engine.fairdeal import SECRET_BYTES, FairDeal, commitment_of, parse_secret

BOARD_SCHEME = "canasta-board/1"


class BoardError(CanastaError):
    """A round's secret that does not match its commitment, or a board out of range."""


@dataclass(frozen=True)
class RoundSeed:
    """One round's secret: its commitment is published before the round, the secret after it."""

    round: int
    secret: bytes

    @staticmethod
    def new(round_number: int) -> RoundSeed:
        """A fresh secret from the operating system's generator."""
        return RoundSeed(round_number, secrets.token_bytes(SECRET_BYTES))

    @staticmethod
    def from_seed(seed: int, round_number: int) -> RoundSeed:
        """A round's secret derived from a tournament number (reproducible; as secret as the number)."""
        key = hashlib.sha256(f"canasta-tournament:{int(seed)}".encode()).digest()
        return RoundSeed(round_number, hmac.new(key, f"round|{round_number}".encode(), hashlib.sha256).digest())

    @property
    def commitment(self) -> str:
        """``SHA-256(secret)`` in hex: what is published before the round."""
        return commitment_of(self.secret)

    def board_secret(self, board: int) -> bytes:
        """Board ``board``'s secret (boards count from 1)."""
        if board < 1:
            raise BoardError("boards are numbered from 1")
        message = f"{BOARD_SCHEME}|{self.round}|{board}".encode("ascii")
        return hmac.new(self.secret, message, hashlib.sha256).digest()

    def deal(self, board: int, players: int) -> FairDeal:
        """The fair deal every table plays as board ``board``."""
        return FairDeal(self.board_secret(board), ("",) * players, 1)


def board_dealer(board: int, players: int) -> int:
    """The dealer of board ``board`` at every table: the deal passes left from board to board."""
    return (board - 1) % players


def reveal(round_number: int, commitment: str, secret_hex: str) -> RoundSeed:
    """A revealed round secret checked against the commitment published before the round."""
    secret = parse_secret(secret_hex)
    if commitment_of(secret) != commitment:
        raise BoardError(f"round {round_number}: the revealed secret does not match the commitment {commitment}")
    return RoundSeed(round_number, secret)


__all__ = ["BOARD_SCHEME", "BoardError", "RoundSeed", "board_dealer", "reveal"]
