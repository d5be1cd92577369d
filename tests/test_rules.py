"""Rule sets: presets, options by id or field name, files, and refusals (SPEC A.19)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from canasta.engine.errors import RulesError
from canasta.engine.rules import (
    OPTIONS_BY_ID,
    PRESETS,
    RuleSet,
    load_rules,
    resolve_rules,
    save_rules,
)
from canasta.families.classic.options import CLASSIC_OPTIONS

PRESET_NAMES = sorted(PRESETS)
EXPECTED_PRESETS = {
    "classic-4p", "classic-2p", "classic-3p", "classic-6p", "classic-3p-cutthroat", "classic-6p-3x2",
}


def test_the_six_classic_presets_exist() -> None:
    assert {n for n, r in PRESETS.items() if r.family == "classic"} == EXPECTED_PRESETS


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_preset_loads(name: str) -> None:
    rules = RuleSet.preset(name)
    assert rules.name == name
    if name in EXPECTED_PRESETS:
        assert rules.family == "classic"
    assert RuleSet.preset(name.upper()) == rules
    assert RuleSet.preset(name.replace("-", "_")) == rules
    assert resolve_rules(name) == rules
    seats = sorted(s for team in rules.teams for s in team)
    assert seats == list(range(rules.players)), "every seat is on exactly one side"
    assert rules.deck_size == 54 * rules.packs


def test_preset_parameters_follow_the_spec() -> None:
    p4 = RuleSet.preset("classic-4p")
    assert (p4.players, p4.packs, p4.hand_size, p4.draw_count, p4.canastas_to_go_out, p4.target) == (
        4, 2, 11, 1, 1, 5000)
    assert p4.teams == ((0, 2), (1, 3))  # A.1.1: partners sit opposite
    p2 = RuleSet.preset("classic-2p")  # A.16
    assert (p2.players, p2.hand_size, p2.draw_count, p2.canastas_to_go_out, p2.target) == (2, 15, 2, 2, 5000)
    p3 = RuleSet.preset("classic-3p")  # A.17.1
    assert (p3.players, p3.hand_size, p3.draw_count, p3.canastas_to_go_out, p3.target) == (3, 13, 1, 1, 5000)
    assert p3.num_sides == 3
    ct = RuleSet.preset("classic-3p-cutthroat")  # A.17.2
    assert ct.cutthroat and (ct.draw_count, ct.canastas_to_go_out, ct.target) == (2, 2, 7500)
    p6 = RuleSet.preset("classic-6p")  # A.18
    assert (p6.players, p6.packs, p6.deck_size, p6.hand_size, p6.canastas_to_go_out, p6.target) == (
        6, 3, 162, 13, 2, 10000)
    assert p6.teams == ((0, 2, 4), (1, 3, 5))  # seated alternately
    x2 = RuleSet.preset("classic-6p-3x2")  # A.18.5
    assert x2.six_as_three_pairs and x2.target == 7500 and x2.num_sides == 3
    assert all(len(t) == 2 for t in x2.teams)


def test_minimum_counts_a7_1() -> None:
    r = RuleSet.preset("classic-4p")
    table = {-5: 15, -1000: 15, 0: 50, 1495: 50, 1500: 90, 2995: 90, 3000: 120, 9000: 120}
    for score, minimum in table.items():
        assert r.minimum_for(score) == minimum, score
    six = RuleSet.preset("classic-6p")
    assert six.minimum_for(7495) == 120
    assert six.minimum_for(7500) == 150  # A.18.4


def test_red_three_values() -> None:
    r = RuleSet.preset("classic-4p")
    assert [r.red_three_points(k) for k in range(5)] == [0, 100, 200, 300, 800]  # A.10.2
    six = RuleSet.preset("classic-6p")
    assert [six.red_three_points(k) for k in range(7)] == [0, 100, 200, 300, 400, 1000, 1200]  # A.18.3


def test_defaults_are_the_sourced_defaults() -> None:
    rules = RuleSet.preset("classic-4p")
    assert len(CLASSIC_OPTIONS) == 14
    assert [o.id for o in CLASSIC_OPTIONS] == [f"C-O{i}" for i in range(1, 15)]
    for opt in CLASSIC_OPTIONS:
        assert rules.get(opt.field) == opt.choices[0], opt.id
    assert rules.non_default_options() == {}
    expected = {
        "C-O1": "no_more_wild_than_natural", "C-O2": False, "C-O3": True, "C-O4": False, "C-O5": True,
        "C-O6": True, "C-O7": "no_meld", "C-O8": "immediately_after_deal", "C-O9": "play_another_hand",
        "C-O10": False, "C-O11": False, "C-O12": False, "C-O13": False, "C-O14": True,
    }
    assert rules.option_values() == expected


@pytest.mark.parametrize("opt", CLASSIC_OPTIONS, ids=lambda o: o.id)
def test_every_option_value_accepted_by_id_and_field(opt: Any) -> None:
    base = RuleSet.preset("classic-3p" if opt.id == "C-O10" else "classic-6p" if opt.id == "C-O11"
                          else "classic-4p")
    for value in opt.choices:
        by_id = base.with_options({opt.id: value})
        by_field = base.with_options({opt.field: value})
        by_lower = base.with_options({opt.id.lower(): value})
        assert by_id.get(opt.field) == value
        assert by_id == by_field == by_lower
        assert by_id.option_values()[opt.id] == value


def test_preset_with_overrides() -> None:
    rules = RuleSet.preset("classic-4p", {"C-O1": "max3_only", "target": 3000})
    assert rules.wild_ratio == "max3_only" and rules.target == 3000
    assert rules.non_default_options() == {"C-O1": "max3_only"}
    assert rules == RuleSet.preset("classic-4p", {"wild_ratio": "max3_only", "target": 3000})
    assert rules == RuleSet.preset("classic-4p", {"wild-ratio": "max3_only", "target": 3000})
    assert RuleSet.preset("classic-4p") .wild_ratio == "no_more_wild_than_natural", "presets stay unchanged"


def test_cutthroat_override_implies_its_settings() -> None:
    rules = RuleSet.preset("classic-3p", {"C-O10": True})
    assert (rules.draw_count, rules.canastas_to_go_out, rules.target) == (2, 2, 7500)
    explicit = RuleSet.preset("classic-3p", {"C-O10": True, "target": 6000})
    assert explicit.target == 6000


# -- round trips -------------------------------------------------------------------------------


def _variants() -> list[RuleSet]:
    out = [RuleSet.preset(n) for n in PRESET_NAMES]
    out.append(RuleSet.preset("classic-4p", {"C-O1": "max3_only", "C-O2": True, "C-O14": False,
                                             "target": 3000}))
    out.append(RuleSet.preset("classic-3p", {"cutthroat": True}))
    out.append(RuleSet.preset("classic-6p", {"C-O11": True, "C-O7": "no_canasta", "hand_size": 12}))
    out.append(RuleSet.preset("classic-2p", {"C-O8": "on_first_turn", "C-O9": "draw"}))
    house = RuleSet.from_dict({**RuleSet.preset("classic-4p").to_dict(), "name": "house",
                               "minimum_table": [[-100000, 10], [0, 40], [2000, 100]],
                               "red_three_values": [0, 100, 200, 300, 1000]})
    assert house.name == "house"
    out.append(house)
    return out


VARIANTS = _variants()


def _same(a: RuleSet, b: RuleSet) -> None:
    assert a == b
    assert a.teams == b.teams
    assert a.to_dict() == b.to_dict()


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.name}-{len(r.non_default_options())}")
def test_dict_round_trip(rules: RuleSet) -> None:
    data = rules.to_dict()
    json.dumps(data)  # plain data
    _same(RuleSet.from_dict(data), rules)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.name}-{len(r.non_default_options())}")
@pytest.mark.parametrize("suffix", [".toml", ".json", ".TOML"])
def test_file_round_trip(rules: RuleSet, suffix: str, tmp_path: Path) -> None:
    path = tmp_path / f"rules{suffix}"
    save_rules(rules, path)
    _same(load_rules(path), rules)
    _same(load_rules(str(path)), rules)
    if suffix.lower() in (".toml", ".json"):
        _same(resolve_rules(str(path)), rules)


def test_json_file_is_json_and_toml_file_is_toml(tmp_path: Path) -> None:
    import tomllib

    rules = RuleSet.preset("classic-6p")
    save_rules(rules, tmp_path / "r.json")
    save_rules(rules, tmp_path / "r.toml")
    assert json.loads((tmp_path / "r.json").read_text()) == rules.to_dict()
    assert tomllib.loads((tmp_path / "r.toml").read_text()) == rules.to_dict()


def test_short_rules_files(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text('preset = "classic-2p"\n"C-O1" = "max3_only"\ntarget = 4000\n')
    rules = load_rules(tmp_path / "a.toml")
    assert rules.players == 2 and rules.wild_ratio == "max3_only" and rules.target == 4000
    (tmp_path / "b.toml").write_text('preset = "classic-4p"\n[options]\n"C-O2" = true\nC-O13 = true\n')
    rules = load_rules(tmp_path / "b.toml")
    assert rules.black_three_freezes and rules.red_three_upcard_freezes
    (tmp_path / "c.json").write_text(json.dumps({"name": "classic-3p", "options": {"cutthroat": True}}))
    assert load_rules(tmp_path / "c.json").cutthroat


# -- refusals ------------------------------------------------------------------------------------


def _refused(overrides: dict[str, Any], *words: str, preset: str = "classic-4p") -> str:
    with pytest.raises(RulesError) as info:
        RuleSet.preset(preset, overrides)
    message = str(info.value)
    for w in words:
        assert w.lower() in message.lower(), f"{message!r} should mention {w!r}"
    assert "\n" not in message
    return message


def test_unknown_preset() -> None:
    with pytest.raises(RulesError, match=r"unknown rules preset 'classic-5p'.*classic-4p"):
        RuleSet.preset("classic-5p")


@pytest.mark.parametrize("key", ["C-O99", "C-O0", "wildratio", "colour", "teams", "preset2"])
def test_unknown_options(key: str) -> None:
    _refused({key: True}, key, "unknown")


@pytest.mark.parametrize(
    ("key", "value", "word"),
    [
        ("C-O1", "bogus", "C-O1"),
        ("wild_ratio", 3, "C-O1"),
        ("C-O2", "yes", "C-O2"),
        ("C-O2", 1, "C-O2"),
        ("C-O7", True, "C-O7"),
        ("C-O14", None, "C-O14"),
        ("target", "5000", "target"),
        ("target", 5000.0, "target"),
        ("target", True, "target"),
        ("players", "4", "players"),
        ("hand_size", [11], "hand_size"),
        ("minimum_table", "x", "minimum_table"),
        ("minimum_table", [[0, True]], "minimum_table"),
        ("red_three_values", [0, "100"], "red_three_values"),
        ("name", 5, "name"),
    ],
)
def test_wrong_types(key: str, value: Any, word: str) -> None:
    _refused({key: value}, word)


@pytest.mark.parametrize(
    ("preset", "overrides", "words"),
    [
        ("classic-4p", {"C-O10": True}, ("C-O10", "3 players")),
        ("classic-4p", {"cutthroat": True}, ("C-O10", "3 players")),
        ("classic-2p", {"C-O10": True}, ("C-O10",)),
        ("classic-4p", {"C-O11": True}, ("C-O11", "6 players")),
        ("classic-3p-cutthroat", {"players": 4}, ("C-O10",)),
        ("classic-4p", {"players": 5}, ("players", "5")),
        ("classic-4p", {"players": 1}, ("players",)),
        ("classic-4p", {"packs": 4}, ("packs",)),
        ("classic-4p", {"hand_size": 21}, ("hand_size", "21")),
        ("classic-4p", {"hand_size": 0}, ("hand_size",)),
        ("classic-6p", {"packs": 2, "hand_size": 17}, ("hands of 17", "stock")),
        ("classic-4p", {"draw_count": 3}, ("draw_count",)),
        ("classic-4p", {"canastas_to_go_out": 0}, ("canastas_to_go_out",)),
        ("classic-4p", {"target": 0}, ("target",)),
        ("classic-4p", {"target": -100}, ("target",)),
        ("classic-4p", {"minimum_table": [[0, 50], [-10, 15]]}, ("minimum_table", "sorted")),
        ("classic-4p", {"minimum_table": []}, ("minimum_table",)),
        ("classic-4p", {"minimum_table": [[0, -5]]}, ("minimum_table",)),
        ("classic-4p", {"red_three_values": [100, 200]}, ("red_three_values",)),
        ("classic-4p", {"family": "bridge"}, ("family", "bridge")),
    ],
)
def test_inconsistent_combinations(preset: str, overrides: dict[str, Any], words: tuple[str, ...]) -> None:
    _refused(overrides, *words, preset=preset)


def test_options_of_another_family_are_refused() -> None:
    """A Classic rule set refuses a non-default value of another family's option."""
    others = [o for oid, o in OPTIONS_BY_ID.items()
              if not oid.startswith("C-") and len(o.choices) > 1 and o.field != "target"]
    if not others:
        pytest.skip("no other rules family is defined")
    for opt in others[:5]:
        with pytest.raises(RulesError) as info:
            RuleSet.preset("classic-4p", {opt.id: opt.choices[-1]})
        assert opt.id in str(info.value)


def test_overrides_must_be_a_mapping() -> None:
    with pytest.raises(RulesError, match="table"):
        RuleSet.preset("classic-4p").with_options([("C-O1", "max3_only")])  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="table"):
        RuleSet.from_dict(["classic-4p"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "data",
    [
        {"preset": 4},
        {"preset": "classic-9p"},
        {"name": 7},
        {"options": "C-O1=max3_only"},
        {"options": {"C-O77": 1}},
        {"preset": "classic-4p", "C-O3": "no"},
    ],
)
def test_from_dict_refusals(data: dict[str, Any]) -> None:
    with pytest.raises(RulesError):
        RuleSet.from_dict(data)


def test_missing_rules_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.toml"
    with pytest.raises(RulesError, match="cannot read the rules file") as info:
        load_rules(path)
    assert "nope.toml" in str(info.value)


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("bad.toml", "players = = 4\n", ("not valid",)),
        ("bad.toml", "[unclosed\n", ("not valid",)),
        ("bad.json", "{players: 4", ("not valid",)),
        ("list.json", "[1, 2]", ("table",)),
        ("unknown.toml", 'preset = "classic-4p"\nC-O42 = true\n', ("C-O42",)),
        ("wrongtype.toml", 'preset = "classic-4p"\ntarget = "high"\n', ("target",)),
        ("inconsistent.toml", 'preset = "classic-4p"\ncutthroat = true\n', ("C-O10",)),
        ("inconsistent.json", '{"preset": "classic-2p", "hand_size": 99}', ("hand_size",)),
    ],
)
def test_bad_rules_files(tmp_path: Path, name: str, text: str, words: tuple[str, ...]) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(RulesError) as info:
        load_rules(path)
    for w in words:
        assert w in str(info.value)


def test_resolve_rules_refuses_other_things() -> None:
    with pytest.raises(RulesError, match="unknown rules"):
        resolve_rules("classic-42p")
    with pytest.raises(RulesError, match="unknown rules"):
        resolve_rules("rules.yaml")


def test_rulesets_are_frozen_and_hashable() -> None:
    rules = RuleSet.preset("classic-4p")
    with pytest.raises(AttributeError):
        rules.target = 1  # type: ignore[misc]
    assert len({RuleSet.preset(n) for n in PRESET_NAMES}) == len(PRESET_NAMES)


def test_describe_names_every_option() -> None:
    rows = RuleSet.preset("classic-4p", {"C-O1": "max3_only"}).describe()
    assert [r[0] for r in rows] == [o.id for o in CLASSIC_OPTIONS]
    assert all(o.id in OPTIONS_BY_ID for o in CLASSIC_OPTIONS)
    assert "house rule" in rows[0][2] and "default" in rows[1][2]


# -- messages a person can act on (issue 13, points 6 and 7) -------------------------------------


@pytest.mark.parametrize(
    ("key", "nearest"),
    [("C-O99", "C-O9"), ("c-o15", "C-O1"), ("I-O40", "I-O4"), ("wildratio", "wild_ratio"),
     ("black_three_freeze", "black_three_freezes")],
)
def test_an_unknown_option_suggests_the_nearest_ones(key: str, nearest: str) -> None:
    message = _refused({key: True}, key, "unknown", "did you mean", nearest, "canasta rules")
    assert len(message) < 200, "the nearest ones, not the whole list of options"


def test_an_unknown_option_with_nothing_near_points_to_the_rules_command() -> None:
    message = _refused({"colour": "blue"}, "colour", "canasta rules")
    assert "did you mean" not in message
    assert "I-O39" not in message


def test_boolean_errors_speak_toml() -> None:
    message = _refused({"C-O2": "yes"}, "C-O2", "false or true", '"yes"')
    assert "False" not in message and "True" not in message
    _refused({"C-O1": "bogus"}, '"no_more_wild_than_natural" or "max3_only"', '"bogus"')


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('preset = "classic-4p"\n"C-O2" = "yes"\n', ("C-O2", "false or true")),
        ('preset = "classic-4p"\ntarget = "high"\n', ("target", "whole number")),
        ('preset = "classic-4p"\nminimum_table = "x"\n', ("minimum_table",)),
        ('preset = "classic-4p"\nC-O99 = true\n', ("C-O99", "did you mean C-O9")),
        ('preset = "classic-4p"\nfamily = "italian"\n', ("family", "italian", "classic-4p")),
        ('preset = "italian-4p"\nfamily = "classic"\n', ("family", "classic", "italian-4p")),
        ('name = "classic-2p"\nfamily = "italian"\n', ("family", "italian", "classic-2p")),
    ],
)
def test_rules_file_errors_name_the_file_and_the_key(tmp_path: Path, text: str, words: tuple[str, ...]) -> None:
    path = tmp_path / "house.toml"
    path.write_text(text)
    with pytest.raises(RulesError) as info:
        load_rules(path)
    message = str(info.value)
    assert str(path) in message
    for w in words:
        assert w in message, f"{message!r} should mention {w!r}"


def test_a_family_cannot_be_switched_by_an_override() -> None:
    _refused({"family": "italian"}, "italian", "italian-4p")
    # a family that agrees with the preset is fine, and a file without a preset starts from its family
    assert RuleSet.preset("italian-3p", {"family": "italian"}).family == "italian"
    assert RuleSet.from_dict({"name": "mine", "family": "italian", "players": 3}).players == 3
    assert RuleSet.from_dict({"name": "mine", "family": "italian"}).family == "italian"


def _declared_types(cls: type, module: Any) -> dict[str, Any]:
    """The field types of ``cls`` read from its module's source file and evaluated in that
    module: what the code says, whether the module runs as Python or compiled."""
    import ast

    source = Path(module.__file__)
    if source.suffix != ".py":  # a compiled module: its source is installed beside it
        source = source.with_name(source.name.split(".")[0] + ".py")
    tree = ast.parse(source.read_text(encoding="utf-8"))
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__).body
    return {
        n.target.id: eval(ast.unparse(n.annotation), vars(module))  # our own source, evaluated in its module
        for n in body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }


def test_literal_choices_match_the_options() -> None:
    """Every word-valued rule option has a ``Literal`` type listing exactly its choices."""
    import dataclasses
    import typing

    from canasta.engine import rules as rules_module
    from canasta.families.classic.options import CLASSIC_OPTIONS
    from canasta.families.italian import options as italian_module
    from canasta.families.italian.options import ITALIAN_OPTIONS, ItalianRules

    # the types as the source declares them: a compiled class (mypyc) keeps only ``type`` for an alias
    hints = _declared_types(RuleSet, rules_module)
    hints.update(_declared_types(ItalianRules, italian_module))
    checked = 0
    for opt in CLASSIC_OPTIONS + ITALIAN_OPTIONS:
        hint = hints[opt.field]
        if typing.get_origin(hint) is typing.Literal:
            assert set(typing.get_args(hint)) == set(opt.choices), opt.id
            checked += 1
        else:
            assert not all(isinstance(c, str) for c in opt.choices), f"{opt.id} ({opt.field}) needs a Literal type"
    assert checked >= 30
    fields = {f.name for f in dataclasses.fields(RuleSet)} | {f.name for f in dataclasses.fields(ItalianRules)}
    assert fields >= {o.field for o in CLASSIC_OPTIONS + ITALIAN_OPTIONS}


def test_a_family_keeps_its_own_options_in_its_part(tmp_path: Path) -> None:
    """Italian's options live in its part of the rule set; a Classic rules file holds none of
    them, and a file that still lists them at their defaults (as files once did) reads the same."""
    from canasta.families.italian.options import ITALIAN_OPTIONS, ItalianRules

    classic, italian = RuleSet.preset("classic-4p"), RuleSet.preset("italian-4p")
    assert classic.part is None and isinstance(italian.part, ItalianRules)
    own = {o.field for o in ITALIAN_OPTIONS} - {"target", "direction"}
    assert not own & set(classic.to_dict()) and own <= set(italian.to_dict())
    old_file = {**classic.to_dict(), **{o.field: o.choices[0] for o in ITALIAN_OPTIONS if o.field in own}}
    assert RuleSet.from_dict(old_file) == classic
    changed = italian.with_options({"I-O8": "classic", "frozen_pozzo_naturals": 2})
    assert (changed.get("pozzo_take"), changed.get("frozen_pozzo_naturals")) == ("classic", 2)
    assert changed.non_default_options() == {"I-O8": "classic", "I-O9": 2}
    save_rules(changed, tmp_path / "house.toml")
    assert load_rules(tmp_path / "house.toml") == changed and hash(load_rules(tmp_path / "house.toml")) == hash(changed)
    with pytest.raises(RulesError, match="I-O8"):
        italian.with_options({"pozzo_take": "sometimes"})
