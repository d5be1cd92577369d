// Moves and ranks in words, in the page's language: the log, the last move of each seat,
// hints and the replay all describe a move from its notation ("meld 8H 8S 2C").
import { _, fmt, ngettext, pileNoteTexts } from "/static/i18n.js";
import { prettyCards } from "/static/cards.js";

// a rank in the plural, as a meld's label says it ("kings · 5/7")
export const RANK_WORDS = { 3: _("threes"), 4: _("fours"), 5: _("fives"), 6: _("sixes"), 7: _("sevens"), 8: _("eights"),
  9: _("nines"), 10: _("tens"), J: _("jacks"), Q: _("queens"), K: _("kings"), A: _("aces"), 2: _("twos"),
  JK: _("jokers") };

const cardsWords = (text) => prettyCards(text.trim());
/** A group of a move in words: "8♥ 8♠" or, for wild cards joining a meld, "2♣ on the kings". */
function groupWords(g) {
  const [head, cards] = g.includes(":") ? g.split(":", 2) : [null, g];
  if (!head) return cardsWords(cards);
  const rank = { JACK: "J", QUEEN: "Q", KING: "K", ACE: "A" }[head.toUpperCase()] || head.toUpperCase().replace(/S$/, "");
  return _("{cards} on the {rank}", { cards: cardsWords(cards), rank: RANK_WORDS[rank] || head });
}

/** A move (in notation) in words, with the player's name first when given ("West melds 8♥ 8♠ 2♣"). */
export function moveText(name, move, italian) {
  const [word, ...restWords] = String(move).trim().split(/\s+/);
  const rest = restWords.join(" ");
  const groups = rest ? rest.split(/\s*\+\s*/) : [];
  let what;
  switch (word) {
    case "draw": what = _("draws"); break;
    case "take": {
      const first = groups[0] ? groups[0].trim() : "";
      const more = groups.slice(1).map(groupWords).join(", ");
      const pile = italian ? _("takes the pozzo") : _("takes the pile");
      what = first ? _("{takes} with {cards}", { takes: pile, cards: groupWords(first) }) : pile;
      if (more) what = _("{move}, melding {melds}", { move: what, melds: more });
      break;
    }
    case "meld": what = _("melds {melds}", { melds: groups.map(groupWords).join(", ") }); break;
    case "discard": what = _("discards {card}", { card: cardsWords(rest) }); break;
    case "ask": what = _("asks: may I go out?"); break;
    case "yes": what = _("answers: yes"); break;
    case "no": what = _("answers: no"); break;
    case "end": what = _("ends the hand"); break;
    case "open": what = _("announces an opening"); break;
    default: what = String(move);
  }
  return name ? _("{name} {move}", { name, move: what }) : what;
}

// the names the server gives seats nobody has named: the compass points (canasta.table.seat_names)
const COMPASS = { South: _("South"), West: _("West"), North: _("North"), East: _("East"), "South-west": _("South-west"),
  "North-west": _("North-west"), "North-east": _("North-east"), "South-east": _("South-east") };

/** A seat's name as shown: a person's own name as it is; a bot's or an empty seat's compass name in the language. */
export function seatName(name, kind) {
  return kind !== "human" && COMPASS[name] ? COMPASS[name] : name;
}

/** A bot level in words ("expert bot", "expert bots" for n > 1). */
export function levelName(level, n = 1) {
  const names = { random: ngettext("random bot", "random bots", n), basic: ngettext("basic bot", "basic bots", n),
    advanced: ngettext("advanced bot", "advanced bots", n), expert: ngettext("expert bot", "expert bots", n) };
  return names[level] || _("{level} bot", { level });
}

// the engine's ranks by number (canasta.cards.RANK_NAMES)
const RANK_CODES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK"];

/** A note on the pile from the state's pile_note_keys ({key, n, rank}) in the page's language. */
export function pileNoteText(note) {
  const text = pileNoteTexts[note.key];
  if (!text) return note.key;
  return fmt(text, { n: note.n, rank: note.rank >= 0 ? RANK_WORDS[RANK_CODES[note.rank]] : "" });
}
