// The table page's pause (canasta.web.pause) and, at a rated table, leaving the match.
// A seated player asks for a pause; the strip under the header shows the request to the others
// ("Ann asks for a pause: Agree · Decline"), then the paused game (its clock stopped) and Resume.
// The server decides: this page only sends {type: "pause", do: ...} and draws the state's "pause".
// "Leave rated match" asks first (leaving counts as a loss), then tells the server
// (POST /api/rated/tables/TABLE/leave) and goes back to the lobby.
import { _, lang, ngettext, number } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);
let hooks = null; // {send, playerName, token, table}
let state = null;

/** Wire the buttons once: ``send`` a socket message, ``playerName(seat)``, ``token()`` the seat's. */
export function initPause(given) {
  hooks = given;
  $("btn-pause").onclick = () => {
    clearError();
    hooks.send({ type: "pause", do: "ask" });
    if ($("bar").classList.contains("open")) $("btn-menu").click(); // a phone's menu: the strip says the rest
  };
  $("pause-agree").onclick = () => { clearError(); hooks.send({ type: "pause", do: "agree" }); };
  $("pause-decline").onclick = () => { clearError(); hooks.send({ type: "pause", do: "decline" }); };
  $("pause-resume").onclick = () => { clearError(); hooks.send({ type: "pause", do: "resume" }); };
  $("btn-leave").onclick = () => { $("leave-error").textContent = ""; $("leave-modal").hidden = false; $("leave-stay").focus(); };
  $("leave-stay").onclick = () => { $("leave-modal").hidden = true; };
  $("leave-go").onclick = leave;
}

function clearError() { $("pause-error").textContent = ""; }

/** A refusal of a pause message, shown in the strip (or under the header's button). */
let errorTimer = null;
export function pauseRefused(message) {
  $("pause-error").textContent = message;
  $("pause-bar").hidden = false;
  clearTimeout(errorTimer);
  errorTimer = setTimeout(() => { clearError(); if (state) renderPause(state); }, 8000); // said, then gone
}

function names(seats) {
  return seats.map((s) => (s === state.seat ? _("you") : hooks.playerName(s))).join(", ");
}

/** Draw the pause's strip, the Pause button and the rated table's Leave button from ``s``. */
export function renderPause(s) {
  state = s;
  const p = s.pause || { paused: false, asked_by: null, agreed: [], waiting: [], left: null };
  const seated = s.seat >= 0;
  const playing = s.status === "playing" && Boolean(s.view) && !s.match_over;
  const asked = p.asked_by !== null && p.asked_by !== undefined;
  document.body.dataset.paused = p.paused ? "true" : "false";
  document.body.dataset.pauseAsked = asked && !p.paused ? "true" : "false";
  const button = $("btn-pause");
  button.hidden = !(seated && playing && !asked);
  const none = p.left === 0;
  button.disabled = none;
  button.title = none ? _("no pauses left in this rated match") : _("pause the game: every player at the table must agree");
  const bar = $("pause-bar");
  const text = $("pause-text");
  const mine = p.agreed.includes(s.seat);
  $("pause-agree").hidden = !(seated && asked && !p.paused && !mine);
  $("pause-decline").hidden = !(seated && asked && !p.paused);
  $("pause-decline").textContent = p.asked_by === s.seat ? _("Withdraw") : _("Decline");
  $("pause-resume").hidden = !(seated && p.paused);
  let line = "";
  let more = "";
  if (p.paused) {
    line = _("The game is paused: the clock is stopped.");
    more = seated ? _("Any player may resume.") : "";
    if (typeof p.turn_left === "number") {
      more = [more, _("The turn timer goes on with {seconds} s.", { seconds: number(Math.round(p.turn_left)) })].filter(Boolean).join(" ");
    }
  } else if (asked) {
    const waiting = names(p.waiting);
    if (p.asked_by === s.seat) line = _("You asked for a pause: waiting for {names}.", { names: waiting });
    else if (mine) line = _("You agreed to a pause: waiting for {names}.", { names: waiting });
    else line = _("{name} asks for a pause.", { name: hooks.playerName(p.asked_by) });
  }
  if ((p.paused || asked) && p.left !== null && p.left !== undefined) {
    const left = ngettext("{n} pause left in this rated match", "{n} pauses left in this rated match", p.left);
    more = [more, left].filter(Boolean).join(" ");
  }
  text.textContent = line;
  $("pause-more").textContent = more;
  const errorShown = Boolean($("pause-error").textContent);
  bar.hidden = !(line || errorShown);
  bar.classList.toggle("paused", Boolean(p.paused));
  if (!p.paused && !asked && !line) $("pause-more").textContent = "";
  // a rated table: a seated player may leave the match (a loss) while it is played
  $("btn-leave").hidden = !(s.rated && seated && playing);
}

async function leave() {
  const token = hooks.token();
  $("leave-go").disabled = true;
  try {
    const r = await fetch(`/api/rated/tables/${encodeURIComponent(hooks.table)}/leave?lang=${encodeURIComponent(lang)}`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }),
    });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) { $("leave-error").textContent = data.detail || _("not saved: try again"); return; }
    document.body.dataset.left = "true";
    location.href = "/";
  } catch (e) {
    $("leave-error").textContent = _("not saved: try again");
  } finally {
    $("leave-go").disabled = false;
  }
}
