"""Provably fair deals: a committed server secret, players' client seeds, and a
keyed cryptographic shuffle that anyone can re-derive (``docs/fair-deals.md``).

Before a hand, the server draws a 256-bit secret and publishes only its SHA-256
(the *commitment*); each seated person may send a *client seed*.  The deck is
then a pure function of (secret, client seeds, hand number)::

    context  = "canasta-deal/1|<hand number>|<seed of seat 0>,<seed of seat 1>,..."
    block i  = HMAC-SHA256(key=secret, message=context + "|" + str(i))   i = 0, 1, 2 ...
    stream   = block 0 || block 1 || ...      read 4 bytes at a time, big-endian
    below(n) = draw u until u < 2**32 - (2**32 mod n); return u mod n   (no modulo bias)
    deck     = the canonical deck; for i = len-1 down to 1: swap deck[i], deck[below(i + 1)]
               deck[0] is then the top of the stock, the first card dealt

Italian Canasta then draws the cut (``30 + below(len - 60)`` cards lifted) and,
under I-O7 ``random``, the places where special pozzo cards go back, from the
same stream.  When the hand ends the secret is revealed: anyone can check that
its SHA-256 is the commitment shown before the deal and re-derive the deck
(``examples/fair_deal.mjs`` does it in 30 lines of JavaScript; ``canasta
verify`` checks a whole record).

The engine itself stays seeded and deterministic: a :class:`DealStream` is just
another source of the deal's randomness (``Game(rules, stream=...)``); local
games, benches and tests keep integer seeds.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from canasta.engine.errors import CanastaError

SCHEME = "canasta-deal/1"
SECRET_BYTES = 32
MAX_CLIENT_SEED = 64
_CLIENT_SEED = re.compile(r"[A-Za-z0-9_-]{0,64}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_T = TypeVar("_T")


class FairDealError(CanastaError):
    """A client seed, secret or commitment that is not of the scheme's form."""


class DealRandom(Protocol):
    """Where a deal's randomness comes from: ``random.Random(seed)`` for seeded
    games, a :class:`DealStream` for provably fair ones."""

    def shuffle(self, x: list[_T]) -> None: ...

    def randrange(self, start: int, stop: int | None = None) -> int: ...


def check_client_seed(value: object) -> str:
    """A client seed as sent by a player: 0 to 64 characters of ``A-Z a-z 0-9 _ -``."""
    if not isinstance(value, str) or not _CLIENT_SEED.fullmatch(value):
        raise FairDealError(f"a client seed is up to {MAX_CLIENT_SEED} letters, digits, '_' or '-' "
                            "(for example 3f9a01c2)")
    return value


def commitment_of(secret: bytes) -> str:
    """The public commitment to a hand's secret: SHA-256 of its 32 bytes, as hex."""
    return hashlib.sha256(secret).hexdigest()


def parse_secret(text: object) -> bytes:
    if not isinstance(text, str) or not _HEX64.fullmatch(text):
        raise FairDealError("a deal secret is 64 lowercase hexadecimal digits")
    return bytes.fromhex(text)


class DealStream:
    """The keyed stream of one hand: HMAC-SHA256 in counter mode, drawn 32 bits at
    a time, with rejection sampling for unbiased choices."""

    __slots__ = ("_block", "_buf", "_context", "_key", "_pos")

    def __init__(self, secret: bytes, client_seeds: Sequence[str], hand_number: int) -> None:
        if len(secret) != SECRET_BYTES:
            raise FairDealError(f"a deal secret is {SECRET_BYTES} bytes")
        for s in client_seeds:
            check_client_seed(s)
        self._key = bytes(secret)
        self._context = f"{SCHEME}|{int(hand_number)}|{','.join(client_seeds)}|"
        self._block = 0
        self._buf = b""
        self._pos = 0

    def next_u32(self) -> int:
        if self._pos + 4 > len(self._buf):
            rest = self._buf[self._pos:]
            msg = (self._context + str(self._block)).encode("ascii")
            self._buf = rest + hmac.new(self._key, msg, hashlib.sha256).digest()
            self._block += 1
            self._pos = 0
        value = int.from_bytes(self._buf[self._pos:self._pos + 4], "big")
        self._pos += 4
        return value

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if not 0 < n <= 1 << 32:
            raise ValueError("below(n) needs 0 < n <= 2**32")
        limit = (1 << 32) - (1 << 32) % n
        while True:
            u = self.next_u32()
            if u < limit:
                return u % n

    def randrange(self, start: int, stop: int | None = None) -> int:
        if stop is None:
            start, stop = 0, start
        return start + self.below(stop - start)

    def shuffle(self, x: list[_T]) -> None:
        """Fisher–Yates, from the last position down."""
        for i in range(len(x) - 1, 0, -1):
            j = self.below(i + 1)
            x[i], x[j] = x[j], x[i]


@dataclass(frozen=True)
class FairDeal:
    """One hand's fair deal: the server's secret, each seat's client seed ("" for
    none) and the hand number."""

    secret: bytes
    client_seeds: tuple[str, ...]
    hand_number: int

    @staticmethod
    def new(hand_number: int, players: int) -> FairDeal:
        """A fresh secret from the operating system's generator; no client seeds yet."""
        return FairDeal(secrets.token_bytes(SECRET_BYTES), ("",) * players, hand_number)

    @property
    def commitment(self) -> str:
        return commitment_of(self.secret)

    def with_client_seed(self, seat: int, seed: str) -> FairDeal:
        seeds = list(self.client_seeds)
        seeds[seat] = check_client_seed(seed)
        return FairDeal(self.secret, tuple(seeds), self.hand_number)

    def stream(self) -> DealStream:
        return DealStream(self.secret, self.client_seeds, self.hand_number)

    def to_dict(self) -> dict[str, object]:
        return {"hand": self.hand_number, "secret": self.secret.hex(), "client_seeds": list(self.client_seeds)}

    @staticmethod
    def from_dict(data: object, players: int) -> FairDeal:
        if not isinstance(data, dict):
            raise FairDealError("a fair deal is an object with hand, secret and client_seeds")
        hand = data.get("hand")
        seeds = data.get("client_seeds")
        if not isinstance(hand, int) or isinstance(hand, bool) or hand < 1:
            raise FairDealError("a fair deal's hand is a number from 1")
        if not isinstance(seeds, list) or len(seeds) != players:
            raise FairDealError(f"a fair deal has {players} client seeds (\"\" for none)")
        return FairDeal(parse_secret(data.get("secret")), tuple(check_client_seed(s) for s in seeds), hand)

    def seeds_text(self) -> str:
        """The client seeds as a record writes them: ``0=3f9a 1= 2=ab 3=``."""
        return " ".join(f"{i}={s}" for i, s in enumerate(self.client_seeds))


def parse_seeds_text(text: str, players: int) -> tuple[str, ...]:
    seeds = [""] * players
    for word in text.split():
        seat, sep, seed = word.partition("=")
        if not sep or not seat.isdigit() or not 0 <= int(seat) < players:
            raise FairDealError(f"client seeds are written SEAT=SEED for seats 0 to {players - 1}, got {word!r}")
        seeds[int(seat)] = check_client_seed(seed)
    return tuple(seeds)


__all__ = ["SCHEME", "DealRandom", "DealStream", "FairDeal", "FairDealError", "check_client_seed",
           "commitment_of", "parse_secret", "parse_seeds_text"]
