"""Provably fair deals (docs/fair-deals.md): the keyed shuffle, its independent
re-derivation in JavaScript, fair tables and their records."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from canasta.bots import make_bot
from canasta.engine.cards import card_str, make_deck
from canasta.engine.fairdeal import DealStream, FairDeal, FairDealError, check_client_seed
from canasta.engine.game import Game
from canasta.engine.rules import RuleSet
from canasta.play.record import parse_records, verify
from canasta.play.table import Table, TableError
from canasta.views.position import position_of

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "examples" / "fair_deal.mjs"
DOC = ROOT / "docs" / "fair-deals.md"


def _secret(rng: random.Random) -> bytes:
    return rng.randbytes(32)


class _Fixed(DealStream):
    """A stream whose 32-bit words are given (to test the rejection step)."""

    def __init__(self, words: list[int]) -> None:
        super().__init__(bytes(32), (), 1)
        self.words = words

    def next_u32(self) -> int:
        return self.words.pop(0)


def test_below_rejects_the_biased_tail() -> None:
    # 2**32 mod 3 == 1: the single value 2**32 - 1 would favour 0, so it is redrawn
    assert _Fixed([2**32 - 1, 5]).below(3) == 2
    assert _Fixed([2**32 - 2, 7]).below(3) == (2**32 - 2) % 3
    # 2**32 mod 7 == 4: the top four values are redrawn
    assert _Fixed([2**32 - 4, 2**32 - 1, 10]).below(7) == 3


def test_below_is_uniform_over_small_ranges() -> None:
    stream = FairDeal(bytes(range(32)), ("",) * 4, 1).stream()
    counts = [0] * 6
    for _ in range(60000):
        counts[stream.below(6)] += 1
    # each count ~ 10000 with sd ~91: six sigma bounds
    assert all(abs(c - 10000) < 600 for c in counts), counts


def test_the_shuffle_is_a_permutation_and_depends_on_every_input() -> None:
    rng = random.Random(11)
    secret = _secret(rng)

    def deck(secret: bytes, seeds: tuple[str, ...], hand: int) -> list[int]:
        cards = make_deck(2)
        DealStream(secret, seeds, hand).shuffle(cards)
        return cards

    base = deck(secret, ("a", "", "b", ""), 1)
    assert sorted(base) == sorted(make_deck(2))
    assert deck(secret, ("a", "", "b", ""), 1) == base  # a pure function
    assert deck(secret, ("a", "", "c", ""), 1) != base  # a client seed changes it
    assert deck(secret, ("a", "", "b", ""), 2) != base  # so does the hand number
    assert deck(_secret(rng), ("a", "", "b", ""), 1) != base  # and the secret


@pytest.mark.parametrize("bad", ["has space", "x" * 65, "ünï", 7, None, "a,b", "a|b"])
def test_bad_client_seeds_are_refused(bad: object) -> None:
    with pytest.raises(FairDealError, match="client seed"):
        check_client_seed(bad)


def _node() -> str | None:
    found = shutil.which("node")
    if found is None and os.environ.get("CANASTA_E2E_REQUIRED"):
        pytest.fail("node is needed to check examples/fair_deal.mjs (CI requires it)")
    return found


@pytest.mark.parametrize("preset", ["classic-4p", "classic-6p", "italian-4p", "italian-2p"])
def test_the_javascript_script_re_derives_the_engines_deal(preset: str) -> None:
    node = _node()
    if node is None:
        pytest.skip("node is not installed")
    rules = RuleSet.preset(preset)
    rng = random.Random(preset)
    for hand in (1, 2, 7):
        seeds = tuple(rng.choice(["", "3f9a01c2", "my-seed_1", "Z"]) for _ in range(rules.players))
        fair = FairDeal(_secret(rng), seeds, hand)
        args = [node, str(SCRIPT), fair.secret.hex(), str(hand), ",".join(seeds), str(rules.packs)]
        if rules.family == "italian":
            args.append("italian")
        out = subprocess.run(args, capture_output=True, text=True, check=True, timeout=30).stdout.split("\n")
        assert out[0] == fair.commitment
        deck_text = out[1].split()
        stream = fair.stream()
        mine = make_deck(rules.packs)
        stream.shuffle(mine)
        assert deck_text == [card_str(c) for c in mine]
        # the engine deals exactly that deck (and, in Italian, that cut) when given the stream
        cut = int(out[2]) if rules.family == "italian" else None
        by_stream = Game(rules, 0, dealer=1, stream=fair.stream())
        by_order = Game(rules, 0, dealer=1, deck=mine, cut=cut)
        assert position_of(by_stream) == position_of(by_order)


def test_the_documented_test_vector_holds() -> None:
    text = DOC.read_text(encoding="utf-8")
    vector = re.search(r"<!-- vector -->\s*```text\n(.*?)```", text, re.S)
    assert vector is not None, "docs/fair-deals.md lost its test vector"
    fields = dict(line.split(": ", 1) for line in vector.group(1).strip().splitlines())
    fair = FairDeal(bytes.fromhex(fields["secret"]), tuple(fields["client seeds"].split(",")),
                    int(fields["hand"]))
    assert fair.commitment == fields["commitment"]
    cards = make_deck(int(fields["packs"]))
    fair.stream().shuffle(cards)
    assert " ".join(card_str(c) for c in cards[:12]) == fields["first 12 cards"]


def _play_out(table: Table, hands: int) -> None:
    for s in range(table.rules.players):
        if table.seats[s] is None:
            table.seats[s] = "basic"
            table._bots[s] = make_bot("basic", seed=s)
    while not table.match_over and len(table.match.hands) < hands:
        table.play_bots()
        if table.hand_over and not table.match_over and len(table.match.hands) < hands:
            table.next_hand()


@pytest.mark.parametrize("preset", ["classic-4p", "italian-3p"])
def test_a_fair_table_commits_before_the_deal_and_reveals_after(preset: str) -> None:
    rules = RuleSet.preset(preset)
    table = Table(rules, [None] + ["basic"] * (rules.players - 1), 3, fair=True, deal=False)
    assert not table.dealt and table.commitment() == ""
    shown = table.next_commitment()
    assert shown is not None
    table.set_client_seed(0, "alice-1")
    table.next_hand()
    assert table.commitment() == shown and table.revealed() == []
    assert table.client_seeds() == ("",) * rules.players  # the next hand's seeds start empty
    second = table.next_commitment()
    assert second is not None and second != shown
    _play_out(table, 2)
    first, then = table.revealed()[:2]
    assert first["commitment"] == shown == hashlib.sha256(bytes.fromhex(first["secret"])).hexdigest()
    assert first["client_seeds"][0] == "alice-1"
    assert then["commitment"] == second


def test_a_client_seed_changes_the_deal_and_a_late_one_changes_nothing() -> None:
    rules = RuleSet.preset("classic-4p")
    a = Table(rules, [None, "basic", "basic", "basic"], 3, fair=True, deal=False)
    b = Table.from_dict(a.to_dict())  # the same secret
    assert b.pending == a.pending
    b.set_client_seed(0, "other")
    a.next_hand()
    b.next_hand()
    assert a.view(0).hand != b.view(0).hand
    before = position_of(a.game)
    a.set_client_seed(0, "late")  # for the next hand, not this one
    assert position_of(a.game) == before


def test_a_refused_client_seed_changes_nothing() -> None:
    rules = RuleSet.preset("classic-4p")
    table = Table(rules, [None, "basic", "basic", "basic"], 3, fair=True)
    saved = table.to_dict()
    for seat, seed in [(0, "no spaces"), (9, "ok"), (0, "x" * 65)]:
        with pytest.raises((TableError, FairDealError)):
            table.set_client_seed(seat, seed)
    assert table.to_dict() == saved
    seeded = Table(rules, [None, "basic", "basic", "basic"], 3)
    with pytest.raises(TableError, match="takes no client seeds"):
        seeded.set_client_seed(0, "abc")


def test_a_fair_table_saves_and_reloads_exactly() -> None:
    rules = RuleSet.preset("italian-4p")
    table = Table(rules, [None, "basic", "basic", "basic"], 8, fair=True)
    _play_out(table, 2)
    table.set_client_seed(2, "next")
    again = Table.from_dict(table.to_dict())
    assert again.to_dict() == table.to_dict()
    assert position_of(again.game) == position_of(table.game)
    assert again.next_commitment() == table.next_commitment()


def test_fair_records_verify_and_tampering_is_caught() -> None:
    rules = RuleSet.preset("classic-4p").with_options({"target": 1500})
    table = Table(rules, [None, "basic", "basic", "basic"], 21, fair=True, deal=False)
    table.set_client_seed(0, "c0ffee")
    table.next_hand()
    _play_out(table, 2)
    text = table.record().to_text()
    games, errors = parse_records(text)
    assert errors == [] and verify(games[0]) == []
    assert "[Secret " in text and "[ClientSeeds \"0=c0ffee " in text and "[Seed " not in text

    secret = re.search(r'\[Secret "([0-9a-f]{64})"\]', text)
    assert secret is not None
    other = hashlib.sha256(secret.group(1).encode()).hexdigest()
    forged = parse_records(text.replace(secret.group(1), other, 1))[0][0]
    assert any("commitment" in p for p in verify(forged))

    swapped = parse_records(text.replace("0=c0ffee", "0=c0ffef", 1))[0][0]
    assert verify(swapped) != []  # another deck: the moves or the scores no longer fit


def test_the_terminal_replay_deals_a_fair_record_from_its_secret() -> None:
    pytest.importorskip("textual")
    from canasta.tui.replay import build_replay

    rules = RuleSet.preset("italian-4p").with_options({"target": 500})
    table = Table(rules, [None, "basic", "basic", "basic"], 5, fair=True)
    _play_out(table, 2)
    record = parse_records(table.record().to_text())[0][0]
    replay = build_replay(record)
    assert len(replay.hands) == len(table.match.hands)
    last = replay.hands[-1].positions[-1]
    assert position_of(last) == position_of(table.game)
    assert replay.hands[0].commitment == table.revealed()[0]["commitment"]


def test_nothing_but_the_secret_decides_a_fair_deal() -> None:
    """The attack on the old scheme was to search the table's seed; here the table
    seed, the client seeds and the hand number can all be known (or guessed) and the
    deal still depends on a 256-bit secret that nothing sent before the hand ends carries."""
    rules = RuleSet.preset("classic-4p")
    deals = set()
    for _ in range(3):
        table = Table(rules, [None, "basic", "basic", "basic"], 1234, fair=True, deal=False)
        table.set_client_seed(0, "known-to-everyone")
        table.next_hand()
        deals.add(tuple(table.game.stock))
        sent = json.dumps([table.view(s).to_dict() for s in range(4)] + [table.spectator_view().to_dict(),
                          table.commitment(), table.next_commitment()])
        assert table.deals[0].secret.hex() not in sent and (table.pending is None
                                                           or table.pending.secret.hex() not in sent)
    assert len(deals) == 3
