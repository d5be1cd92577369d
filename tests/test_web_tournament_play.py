"""Playing one's own tournament board by picking cards (issue 53): ``POST /api/tournaments/ID/check``
says what each action would make of the cards picked at the asker's own seat and whether the rules
allow it now, in the asker's language; the move it offers is played by ``/move``; someone with no
seat, a malformed selection and a paused tournament are refused or told so, and nothing changes."""

from __future__ import annotations

from typing import Any

from conftest import need

need("fastapi")
need("argon2")

from fastapi.testclient import TestClient  # noqa: E402

from test_web_tournaments import Steps, api, as_player, person_to_move, started  # noqa: E402
from test_web_tournaments import people as people  # noqa: E402  (the fixture)

Actions = dict[str, dict[str, Any]]


def check(client: TestClient, tid: str, selection: Any, lang: str = "en") -> tuple[int, Any]:
    r = api(client, f"/{tid}/check?lang={lang}", {"selection": selection})
    return r.status_code, r.json()


def actions(client: TestClient, tid: str, staged: list[list[str]] | None = None, cards: list[str] | None = None,
            lang: str = "en") -> Actions:
    code, data = check(client, tid, {"staged": staged or [], "cards": cards or []}, lang)
    assert code == 200, data
    return {a["action"]: a for a in data["actions"]}


def test_the_cards_picked_make_the_moves_offered_and_the_rules_say_why_not(people: tuple[TestClient, str]) -> None:
    client, tid = people
    started(client, tid)
    steps = Steps(client)
    try:
        mover, _mario = person_to_move(client, tid, steps)
        other = "Giulia" if mover == "Mario" else "Mario"
        as_player(client, other)  # the partner, not to move: every action refused, by the engine's rule
        waiting = actions(client, tid)
        assert waiting and all(a["why"] for a in waiting.values()), waiting
        as_player(client, mover)
        mine = client.get(f"/api/tournaments/{tid}").json()["me"]
        hand = mine["view"]["hand"]
        assert mine["view"]["phase"] == "draw"
        offered = actions(client, tid)
        assert offered["draw"]["why"] is None and offered["draw"]["move"] == "draw"
        assert offered["draw"]["text"]  # in words, for the button
        # one card picked before drawing: a discard is not a move yet, and the engine says why
        one = actions(client, tid, cards=[hand[0]])
        assert one["discard"]["move"] == f"discard {hand[0]}" and one["discard"]["why"]
        italian = actions(client, tid, cards=[hand[0]], lang="it")
        assert italian["discard"]["why"] != one["discard"]["why"]  # said in the asker's language
        # a card not in the hand is refused as a move, never shown as anyone's
        missing = next(c for c in ("AS", "AH", "AD", "AC", "KS", "KH") if c not in hand)
        assert actions(client, tid, cards=[missing])["discard"]["why"]
        # the move offered is the move played
        before = client.get(f"/api/tournaments/{tid}").json()["seq"]
        assert api(client, f"/{tid}/move", {"move": offered["draw"]["move"]}).status_code == 200
        after = client.get(f"/api/tournaments/{tid}").json()
        assert after["seq"] != before and after["me"]["view"]["phase"] != "draw"
        hand = after["me"]["view"]["hand"]
        if after["me"]["to_move"] == after["me"]["seat"]:  # still this seat's turn: a discard of one card is offered
            assert actions(client, tid, cards=[hand[-1]])["discard"]["why"] is None
        # malformed selections: refused by name, nothing changed
        for bad in ("KH", {"cards": "KH"}, {"cards": ["ZZ"]}, {"staged": [["KH"]] * 40}):
            code, data = check(client, tid, bad)
            assert code == 400 and "say which cards you picked" in data["detail"], (bad, data)
        assert client.get(f"/api/tournaments/{tid}").json()["seq"] == after["seq"]
        # a player with no seat, and someone signed out
        as_player(client, "Eve")
        code, data = check(client, tid, {"cards": []})
        assert code == 403 and data["detail"] == "you have no seat in this round"
        # the director pauses: the moves are still shown, each says the tournament is paused
        as_player(client, "Dora")
        assert api(client, f"/{tid}/director/pause").status_code == 200
        as_player(client, mover)
        paused = actions(client, tid)
        assert paused and all(a["why"].startswith("the tournament is paused") for a in paused.values())
    finally:
        steps.close()
