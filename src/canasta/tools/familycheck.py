"""A rule family checked end to end: what a newcomer runs after adding one (``canasta
check-family NAME``; docs/architecture.md, "Adding a family").

Each check names what it found missing or wrong, in English (like the self-check's problems):

* **contract**: the family is registered, has presets for its player counts, its words, its
  bots' tuning and a sensible shape (``canasta_size``);
* **generation**: the generating set against the exhaustive enumerator
  (:func:`canasta.tools.soak.reference_check`) on ``seeds`` positions of each kind per preset;
* **invariants**: random hands through the checked API, the invariants after every move
  (:func:`canasta.tools.selfcheck.run_selfcheck`);
* **determinism**: perft counts and whole-hand hashes come out the same twice;
* **positions and views**: a position and every seat's view round-trip, a world sampled from a
  view agrees with the game;
* **bots**: basic, advanced and expert players finish a hand of each preset with legal moves;
* **terminal** and **card room**: the terminal app's texts and the page's words for the family
  (skipped, and said so, without those extras);
* **translations**: the family's title, its presets' and options' words in every language.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from canasta.engine.game import FAMILIES, Game
from canasta.engine.rules import FAMILY_OPTIONS, PRESETS, RuleSet
from canasta.i18n import LANGUAGES, translator

#: the checks, in the order they run
CHECKS = ("contract", "generation", "invariants", "determinism", "positions and views", "bots", "terminal",
          "card room", "translations")


@dataclass
class FamilyReport:
    """What :func:`check_family` found: per check, its problems (none: it passed) or why it
    was skipped."""

    family: str
    problems: dict[str, list[str]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(self.problems.values())

    def lines(self) -> list[str]:
        out = []
        for name in CHECKS:
            if name in self.skipped:
                out.append(f"{name}: skipped ({self.skipped[name]})")
            elif name in self.problems:
                found = self.problems[name]
                out.append(f"{name}: {'ok' if not found else f'{len(found)} problem(s)'}")
                out += [f"  {p}" for p in found[:10]]
        return out


def check_family(family: str, seeds: int = 40, hands: int = 10, seed: int = 1,
                 checks: tuple[str, ...] = CHECKS) -> FamilyReport:
    """Check the registered family ``family`` end to end (``checks``: which of :data:`CHECKS`)."""
    rep = FamilyReport(family)
    fam = FAMILIES.get(family)
    if fam is None:
        rep.problems["contract"] = [f"no family {family!r} is registered (known: {', '.join(sorted(FAMILIES))}); "
                                    "a family registers itself with canasta.engine.game.register_family"]
        return rep
    presets = [PRESETS[n] for n in sorted(PRESETS) if PRESETS[n].family == family]
    runs = {"contract": _contract, "generation": _generation, "invariants": _invariants,
            "determinism": _determinism, "positions and views": _round_trips, "bots": _bots,
            "terminal": _terminal, "card room": _card_room, "translations": _translations}
    for name in CHECKS:
        if name not in checks:
            continue
        if not presets and name != "contract":
            rep.skipped[name] = "the family has no preset"
            continue
        try:
            rep.problems[name] = runs[name](family, presets, seeds, hands, seed)
        except _Skip as why:
            rep.skipped[name] = str(why)
        except Exception as exc:  # a check that crashes is a problem found, said with its cause
            rep.problems[name] = [f"raised {type(exc).__name__}: {exc}"]
    return rep


class _Skip(Exception):
    """A check that cannot run here (an extra not installed)."""


def _contract(family: str, presets: list[RuleSet], seeds: int, hands: int, seed: int) -> list[str]:
    fam = FAMILIES[family]
    out = []
    if not presets:
        out.append("no preset: give presets() (and start_preset) so that games can be made")
    for attr in ("play", "words", "search"):
        if not hasattr(fam, attr):
            out.append(f"no {attr}: every family gives its {attr} (canasta.engine.family), there is no default")
    if not 3 <= fam.canasta_size <= 13:
        out.append(f"canasta_size {fam.canasta_size} is not a meld's size (3 to 13 cards)")
    counts = set(fam.player_counts)
    if counts and not counts <= {r.players for r in presets}:
        out.append(f"player counts {sorted(counts - {r.players for r in presets})} have no preset")
    if fam.start_preset and fam.start_preset not in PRESETS:
        out.append(f"start_preset {fam.start_preset!r} is not a registered preset")
    if family not in FAMILY_OPTIONS:
        out.append("its options are not registered (rule_options, or canasta.engine.rules.register_rules_family)")
    return out


def _generation(family: str, presets: list[RuleSet], seeds: int, hands: int, seed: int) -> list[str]:
    from canasta.tools.soak import reference_check

    out = []
    for rules in presets:
        rep = reference_check(rules, seeds, seed, limit=1000)
        if rep.positions == 0:
            out.append(f"{rules.name}: no position could be made to compare")
        out += [f"{rules.name}: {p}" for p in rep.problems]
    return out


def _invariants(family: str, presets: list[RuleSet], seeds: int, hands: int, seed: int) -> list[str]:
    from canasta.tools.selfcheck import run_selfcheck

    return [f"{rules.name}: {p}" for rules in presets for p in run_selfcheck(rules, hands, seed).problems]


def _determinism(family: str, presets: list[RuleSet], seeds: int, hands: int, seed: int) -> list[str]:
    from canasta.tools import perft

    out = []
    for rules in presets:
        if perft.positions(rules.name) != perft.positions(rules.name):
            out.append(f"{rules.name}: the perft counts differ from one run to the next")
        if perft.hands(rules.name) != perft.hands(rules.name):
            out.append(f"{rules.name}: a seeded hand played twice differs (the engine is not deterministic)")
    return out


def _round_trips(family: str, presets: list[RuleSet], seeds: int, hands: int, seed: int) -> list[str]:
    from canasta.views.position import game_from_position, position_of
    from canasta.views.seat import SeatView, sample_world, seat_view

    out: list[str] = []
    for rules in presets:
        game = Game(rules, seed)
        rng = random.Random(seed)
        step = 0
        while not game.is_over() and len(out) < 10:
            if step % 7 == 0:
                where = f"{rules.name}, seed {seed}, move {step}"
                p = position_of(game)
                again = game_from_position(p)
                if position_of(again) != p:
                    out.append(f"{where}: the position does not read back as written")
                elif [str(m) for m in again.legal_moves] != [str(m) for m in game.legal_moves]:
                    out.append(f"{where}: the position read back has other legal moves")
                for s in range(game.players):
                    v = seat_view(game, s)
                    if SeatView.from_dict(v.to_dict()) != v:
                        out.append(f"{where}: seat {s}'s view does not read back as written")
                    world = sample_world(v, random.Random(step))
                    if sorted(world.hand(s)) != sorted(game.hand(s)) or world.canasta_counts != game.canasta_counts:
                        out.append(f"{where}: a world sampled from seat {s}'s view disagrees with the game")
            moves = list(game.legal_moves)
            game.push(moves[rng.randrange(len(moves))])
            step += 1
    return out


def _bots(family: str, presets: list[RuleSet], seeds: int, hands: int, seed: int) -> list[str]:
    from canasta.bots import make_bot
    from canasta.views.seat import seat_view

    out = []
    for rules in presets:
        for level in ("basic", "advanced", "expert:i4"):
            game = Game(rules, seed)
            bots = [make_bot(level, seed=s) for s in range(rules.players)]
            while not game.is_over():
                s = game.to_move
                move = bots[s].choose(seat_view(game, s))
                err = game.why_illegal(move)
                if err is not None:
                    out.append(f"{rules.name}: {level} played {move}, which is illegal: {err}")
                    break
                game.push(move)
    return out


def _terminal(family: str, presets: list[RuleSet], seeds: int, hands: int, seed: int) -> list[str]:
    try:
        from canasta.tui import render
    except ImportError as exc:
        raise _Skip(f"the terminal app is not installed: pip install 'canasta[tui]' ({exc.name})") from None
    from canasta.views.seat import seat_view

    out = []
    for rules in presets:
        game = Game(rules, seed)
        rng = random.Random(seed)
        names = [f"P{s}" for s in range(rules.players)]
        while not game.is_over():
            view = seat_view(game, game.to_move)
            text = " ".join(t.plain for side in range(len(rules.teams)) for t in render.meld_lines(view, side))
            text += render.pile_panel(view).plain + render.phase_text(view, names)
            if not text.strip():
                out.append(f"{rules.name}: the terminal app shows nothing of the table")
                break
            moves = list(game.legal_moves)
            game.push(moves[rng.randrange(len(moves))])
        render.rules_text(rules)
    return out


def _card_room(family: str, presets: list[RuleSet], seeds: int, hands: int, seed: int) -> list[str]:
    try:
        from canasta.web.sockets import words_of
    except ImportError as exc:
        raise _Skip(f"the card room is not installed: pip install 'canasta[web]' ({exc.name})") from None
    out = []
    for rules in presets:
        words = words_of(rules)
        for key in ("pile", "canastas", "opened", "wilds"):
            if not words.get(key):
                out.append(f"{rules.name}: the page gets no word for {key!r} (RuleFamily.words, pile_word)")
    return out


def _translations(family: str, presets: list[RuleSet], seeds: int, hands: int, seed: int) -> list[str]:
    fam = FAMILIES[family]
    out = []
    for lang in LANGUAGES[1:]:
        t = translator(lang)
        if fam.words.title and not t.has(fam.words.title):
            out.append(f"{lang}: the family's title {fam.words.title!r} has no translation "
                       "(python -m canasta.i18n.catalog all, then translate; docs/languages.md)")
        for o in FAMILY_OPTIONS.get(family, ()):
            if not t.has(o.topic, "rule option"):
                out.append(f"{lang}: option {o.id}'s words {o.topic!r} have no translation")
    return out


__all__ = ["CHECKS", "FamilyReport", "check_family"]
