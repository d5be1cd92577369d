"""Widgets of the table: the hand (large card faces grouped by rank, with
selection) and the staging of several meld groups."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.containers import Grid
from textual.message import Message
from textual.widgets import Static

from canasta.engine.cards import CARD_RANK, JOKER, RANK_NAMES, Card
from canasta.tui.render import GroupKey, Style, group_face, group_hand, group_title

GROUP_WIDTH = 8  # characters of one card face
GROUP_GAP = 1


class CardGroup(Static):
    """The cards of one rank: click to select one more (right click: one fewer)."""

    DEFAULT_CSS = """
    CardGroup { width: 8; height: 5; }
    """

    class Picked(Message):
        def __init__(self, index: int, delta: int) -> None:
            super().__init__()
            self.index = index
            self.delta = delta

    def __init__(self, index: int, cards: Sequence[Card], selected: int, cursor: bool, style: Style) -> None:
        super().__init__(self._face(cards, selected, cursor, style))
        self.index = index

    @staticmethod
    def _face(cards: Sequence[Card], selected: int, cursor: bool, style: Style) -> Text:
        return group_face(cards, selected, style, cursor)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Picked(self.index, -1 if event.button == 3 or event.shift else 1))


class HandView(Grid):
    """A person's hand grouped by rank with counts; keeps what is selected."""

    DEFAULT_CSS = f"""
    HandView {{
        height: auto;
        grid-size: 8;
        grid-columns: {GROUP_WIDTH};
        grid-gutter: 1 {GROUP_GAP};
        padding: 0 1;
    }}
    """

    #: the table's keys go to the hand (and from it to the screen's bindings): nothing else on
    #: the table holds the focus, and the move input must not keep it once hidden
    can_focus = True

    class Changed(Message):
        """The selection changed."""

    def __init__(self, style: Style | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.card_style = style or Style()
        self.hand: tuple[Card, ...] = ()
        self.groups: list[tuple[GroupKey, list[Card]]] = []
        self.selected: dict[GroupKey, int] = {}
        self.cursor = 0

    # -- state ------------------------------------------------------------------

    def set_hand(self, hand: Sequence[Card]) -> None:
        """Show a new hand, keeping the selection where those cards are still held."""
        hand = tuple(hand)
        if hand == self.hand and self.children:
            return
        self.hand = hand
        self.groups = group_hand(hand)
        sizes = {k: len(cards) for k, cards in self.groups}
        self.selected = {k: min(n, sizes[k]) for k, n in self.selected.items() if k in sizes and n}
        self.cursor = min(self.cursor, max(0, len(self.groups) - 1))
        self._rebuild()

    def selection(self) -> list[Card]:
        """The selected cards (within a rank, suits in display order)."""
        out: list[Card] = []
        for key, cards in self.groups:
            out.extend(cards[: self.selected.get(key, 0)])
        return out

    def clear(self) -> None:
        if self.selected:
            self.selected = {}
            self._rebuild()
            self.post_message(self.Changed())

    def pick(self, index: int, delta: int) -> None:
        """Select one more (``delta`` 1) or one fewer (-1) card of group ``index``;
        selecting past the last card wraps to none."""
        if not self.groups:
            return
        index = max(0, min(index, len(self.groups) - 1))
        key, cards = self.groups[index]
        n = self.selected.get(key, 0) + delta
        if n > len(cards):
            n = 0
        self.selected[key] = max(0, n)
        self.cursor = index
        self._rebuild()
        self.post_message(self.Changed())

    def pick_rank(self, rank_name: str) -> int | None:
        """Select one more card of the rank named (``8``, ``K``, ``10``, ``JK``): ``None``
        when none is held, else how many are held; pressed once more than that, the
        selection stays as it is (the rank key never wraps to none, unlike space)."""
        for i, (key, cards) in enumerate(self.groups):
            if group_title(cards) == rank_name:
                if self.selected.get(key, 0) < len(cards):
                    self.pick(i, 1)
                else:
                    self.cursor = i
                    self._rebuild()
                return len(cards)
        return None

    def move_cursor(self, delta: int) -> None:
        if self.groups:
            self.cursor = (self.cursor + delta) % len(self.groups)
            self._rebuild()

    def cursor_rank(self) -> str:
        if not self.groups:
            return ""
        c = self.groups[self.cursor][1][0]
        return "JK" if c == JOKER else RANK_NAMES[CARD_RANK[c]]

    # -- drawing ------------------------------------------------------------------

    def _rebuild(self) -> None:
        if not self.is_mounted:
            return
        if len(self.children) == len(self.groups):
            for i, ((key, cards), child) in enumerate(zip(self.groups, self.children, strict=True)):
                assert isinstance(child, CardGroup)
                child.update(CardGroup._face(cards, self.selected.get(key, 0), i == self.cursor, self.card_style))
            return
        self.remove_children()
        widgets = [
            CardGroup(i, cards, self.selected.get(key, 0), i == self.cursor, self.card_style)
            for i, (key, cards) in enumerate(self.groups)
        ]
        if widgets:
            self.mount_all(widgets)

    def on_mount(self) -> None:
        self._rebuild()

    def on_resize(self, event: events.Resize) -> None:
        columns = max(1, (event.size.width - 2 + GROUP_GAP) // (GROUP_WIDTH + GROUP_GAP))
        self.styles.grid_size_columns = columns

    def on_card_group_picked(self, message: CardGroup.Picked) -> None:
        message.stop()
        self.pick(message.index, message.delta)
