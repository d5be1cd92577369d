"""The game's pause: any player of a table may ask for one; once every person at the table
agrees, the clock stops (the turn timer, the grace periods, the bots and the automatic deal
wait, and no move is played) until any player resumes.

A pause is a table event like any other (kind ``pause``, its ``line`` what the seat did:
``ask``, ``agree``, ``decline`` or ``resume``), so it is the same on every server of a cluster
and after a restart: the room's state is what its events made it (:func:`apply_pause`).

Who must agree: the people seated at the table that no bot stands in for (a seat played by a
stand-in after its grace period is not asked); bots never vote, so at a table with one person
the pause starts as soon as it is asked.  The asker agrees by asking.  Anyone may decline a
request (the asker withdraws it the same way).  A rated table allows :data:`RATED_PAUSES`
pauses in a match unless its maker chose another number, 0 to :data:`MAX_PAUSES`
(``config["pauses"]``, written when the table is made); a request that is declined does not
count, a pause that started does.

When the pause starts, the turn timer keeps the seconds it had left; it runs on from them when
play resumes (at least :data:`RESUME_SECONDS`, so a pause asked in the last second does not end
in a lost turn).  A grace period starts afresh at the resume."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from canasta.i18n import N_

DOES = ("ask", "agree", "decline", "resume")  # what a seat may do about a pause (the event's line)
RATED_PAUSES = 2  # pauses a rated match allows (each that started counts; a declined request does not)
MAX_PAUSES = 5  # the most a rated table's maker may allow ("pauses" of POST /api/rated/tables)
RESUME_SECONDS = 10.0  # a turn timer resumed has at least this many seconds left (or its whole time, if less)

# the refusals: (code, what the player is told)
NOT_PLAYING = ("PAUSE_NOT_NOW", N_("a pause is only for a match being played"))
MATCH_OVER = ("MATCH_OVER", N_("the match is over: there is nothing to pause"))
ALREADY_PAUSED = ("ALREADY_PAUSED", N_("the game is paused already"))
ALREADY_ASKED = ("PAUSE_ASKED", N_("a pause has been asked for already: agree to it, or decline it"))
NO_PAUSES_LEFT = ("NO_PAUSES_LEFT", N_("no pauses left: a rated match allows {limit}"))
NOTHING_ASKED = ("NO_PAUSE_ASKED", N_("nobody has asked for a pause"))
ALREADY_AGREED = ("ALREADY_AGREED", N_("you have agreed to this pause already"))
NOT_PAUSED = ("NOT_PAUSED", N_("the game is not paused"))
PAUSED = ("PAUSED", N_("the game is paused: resume it to play on"))


@dataclass
class Pause:
    """A pause asked for (``paused_at`` None: waiting for the others to agree) or in force."""

    asked_by: int
    asked_at: float
    agreed: set[int] = field(default_factory=set)
    paused_at: float | None = None  # when every person had agreed
    #: the turn timer's (hand, turn, seat) and the seconds it had left when the pause started
    held: tuple[tuple[int, int, int], float] | None = None

    @property
    def paused(self) -> bool:
        return self.paused_at is not None


def voters(seats: list[Any], takeover: set[int]) -> list[int]:
    """The seats whose agreement a pause needs: the people no stand-in plays for."""
    return [s.seat for s in seats if s.kind == "human" and s.seat not in takeover]


def pause_refusal(pause: Pause | None, used: int, limit: int | None, status: str, seat: int,
                  does: str) -> tuple[str, str, dict[str, Any]] | None:
    """Why ``seat`` may not ``does`` now (code, English template, its fields), or None.
    ``used``: the pauses that started in this match; ``limit``: how many it allows (None: any)."""
    if status == "finished":
        return (*MATCH_OVER, {})
    if status != "playing":
        return (*NOT_PLAYING, {})
    paused = pause is not None and pause.paused
    if does == "ask":
        if paused:
            return (*ALREADY_PAUSED, {})
        if pause is not None:
            return (*ALREADY_ASKED, {})
        if limit is not None and used >= limit:
            return (*NO_PAUSES_LEFT, {"limit": limit})
    elif does == "agree":
        if paused:
            return (*ALREADY_PAUSED, {})
        if pause is None:
            return (*NOTHING_ASKED, {})
        if seat in pause.agreed:
            return (*ALREADY_AGREED, {})
    elif does == "decline":
        if paused:
            return (*ALREADY_PAUSED, {})
        if pause is None:
            return (*NOTHING_ASKED, {})
    elif does == "resume" and not paused:
        return (*NOT_PAUSED, {})
    return None


def apply_pause(pause: Pause | None, does: str, seat: int, at: float) -> Pause | None:
    """The pause after ``seat`` did ``does`` at ``at`` (checked by :func:`pause_refusal`); whether
    everyone has agreed is the room's to say (:func:`complete`)."""
    if does == "ask":
        return Pause(seat, at, {seat})
    if does == "agree" and pause is not None:
        pause.agreed.add(seat)
        return pause
    return None  # declined, withdrawn or resumed


def complete(pause: Pause | None, needed: list[int]) -> bool:
    """Has every seat in ``needed`` agreed to a pause that has not started yet?"""
    return pause is not None and not pause.paused and set(needed) <= pause.agreed


def public(pause: Pause | None, needed: list[int], used: int, limit: int | None) -> dict[str, Any]:
    """What every seat is shown of the pause: ``asked_by``, ``agreed``, ``waiting`` (the seats
    still to agree), ``paused``, ``since`` (when it was asked, or when it started), ``turn_left``
    (the seconds the turn timer will have when play resumes), and ``used`` / ``limit``."""
    out: dict[str, Any] = {"used": used, "limit": limit, "left": None if limit is None else max(0, limit - used)}
    if pause is None:
        return out | {"asked_by": None, "agreed": [], "waiting": [], "paused": False, "since": None,
                      "turn_left": None}
    return out | {"asked_by": pause.asked_by, "agreed": sorted(pause.agreed),
                  "waiting": [s for s in needed if s not in pause.agreed], "paused": pause.paused,
                  "since": pause.paused_at if pause.paused_at is not None else pause.asked_at,
                  "turn_left": None if pause.held is None else round(pause.held[1], 1)}


__all__ = ["DOES", "MAX_PAUSES", "PAUSED", "RATED_PAUSES", "RESUME_SECONDS", "Pause", "apply_pause", "complete", "pause_refusal",
           "public", "voters"]
