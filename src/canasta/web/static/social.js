// Friends and civility on every page of a signed-in player (nothing for a guest):
// - the lobby and one's own profile: the inbox (invitations to a seat, moderators' warnings),
//   whom you follow (online or not, at which table), whom you mute and block;
// - another player's profile: follow, mute, block, report them (and where they sit, if followed);
// - a table: its players who have an account, each to follow, mute, block or report; a followed
//   player invited to an open seat; a chat line reported.
// Every change is a POST with the CSRF token (account.js); the server's refusal is shown as it
// says it, in the page's language.
import { _ } from "/static/i18n.js";
import { me, post, profileLink } from "/static/account.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 15000;

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "dataset") Object.assign(e.dataset, v);
    else if (k.startsWith("on")) e[k] = v;
    else if (k in e) e[k] = v;
    else e.setAttribute(k, v);
  }
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
}

const button = (text, onclick, cls = "secondary", extra = {}) => el("button", { type: "button", className: cls, textContent: text, onclick, ...extra });
const playerLink = (name) => el("a", { href: profileLink(name), textContent: name });

async function send(url, body, errorBox) {
  errorBox.textContent = "";
  const r = await post(url, body);
  let data = {};
  try { data = await r.json(); } catch (e) { /* said by its status */ }
  if (!r.ok) {
    errorBox.textContent = data.detail || _("error {status}", { status: r.status });
    return null;
  }
  return data;
}

async function getJSON(url) {
  const r = await fetch(url, { cache: "no-store" });
  return r.ok ? r.json() : null;
}

/** A reason asked inline (reports, warnings, bans): `onSend(reason)` with the text typed. */
function askReason(box, label, onSend) {
  box.querySelectorAll(".reason-form").forEach((f) => f.remove());
  const input = el("input", { className: "reason-input", maxLength: 400, placeholder: _("the reason"), "aria-label": label });
  const form = el("form", { className: "row reason-form", onsubmit: async (ev) => {
    ev.preventDefault();
    if (await onSend(input.value.trim())) form.remove();
  } }, el("span", { textContent: label }), input,
  el("button", { type: "submit", className: "secondary report-send", textContent: _("Send") }),
  button(_("Cancel"), () => form.remove()));
  box.append(form);
  input.focus();
}

// ------------------------------------------------------------------ the inbox and friends

function drawInbox(list, items, errorBox, refresh) {
  list.innerHTML = "";
  for (const item of items) {
    const li = el("li", { className: `inbox-${item.kind}`, dataset: { id: item.id } });
    if (item.kind === "invitation") {
      li.append(_("{name} invites you to a seat.", { name: item.from }), " ",
        el("a", { className: "button-link invite-take", href: item.link, textContent: _("Take the seat") }));
    } else {
      li.append(el("b", { textContent: _("A moderator's warning:") }), " ", item.text || "");
    }
    li.append(" ", button(_("Dismiss"), async () => { if (await send("/api/social/dismiss", { id: item.id }, errorBox)) refresh(); }));
    list.append(li);
  }
}

function drawFollowing(list, friends, errorBox, refresh) {
  list.innerHTML = "";
  for (const f of friends) {
    const li = el("li", { className: f.online ? "online" : "offline", dataset: { name: f.name } });
    li.append(playerLink(f.name), " · ", f.online ? _("online") : _("offline"));
    for (const t of f.tables || []) {
      li.append(" · ", el("a", { href: t.link, className: "friend-table", textContent: _("at a table: watch") }));
    }
    li.append(" ", button(_("Unfollow"), async () => { if (await send("/api/social/unfollow", { name: f.name }, errorBox)) refresh(); }));
    list.append(li);
  }
  if (!friends.length) list.append(el("li", { className: "muted", textContent: _("You follow nobody yet.") }));
}

function drawNames(list, names, undo, label, errorBox, refresh) {
  list.innerHTML = "";
  for (const name of names) {
    list.append(el("li", { dataset: { name } }, playerLink(name), " ",
      button(label, async () => { if (await send(`/api/social/${undo}`, { name }, errorBox)) refresh(); })));
  }
}

/** The panel of one's own friends (the lobby, one's own profile), drawn after `anchor`. */
async function friendsPanel(anchor) {
  const errorBox = el("p", { className: "error", role: "alert", id: "friends-error" });
  const inbox = el("ul", { id: "inbox", className: "inbox" });
  const following = el("ul", { id: "following", className: "friends" });
  const muted = el("ul", { id: "muted-list", className: "friends" });
  const blocked = el("ul", { id: "blocked-list", className: "friends" });
  const name = el("input", { id: "follow-name", maxLength: 24, autocomplete: "off", "aria-label": _("a player's name") });
  const modLink = el("a", { id: "moderation-link", href: "/moderation", textContent: _("Moderation"), hidden: true });
  const panel = el("section", { className: "panel", id: "friends" },
    el("h2", { textContent: _("Friends") }), modLink, inbox,
    el("h3", { textContent: _("Following") }), following,
    el("form", { className: "row", id: "follow-form", onsubmit: async (ev) => {
      ev.preventDefault();
      if (await send("/api/social/follow", { name: name.value.trim() }, errorBox)) { name.value = ""; refresh(); }
    } }, el("label", {}, el("span", { textContent: _("Follow a player") }), " ", name),
    el("button", { type: "submit", id: "btn-follow", className: "secondary", textContent: _("Follow") })),
    errorBox,
    el("details", { id: "civility" }, el("summary", { textContent: _("Muted and blocked players") }),
      el("h3", { textContent: _("Muted: their chat is hidden from you") }), muted,
      el("h3", { textContent: _("Blocked: they cannot follow you, invite you or join your tables") }), blocked));
  anchor.after(panel);
  async function refresh() {
    const data = await getJSON("/api/social");
    if (!data) { panel.hidden = true; return; }
    panel.hidden = false;
    modLink.hidden = !["moderator", "admin"].includes(data.role);
    drawInbox(inbox, data.inbox, errorBox, refresh);
    drawFollowing(following, data.following, errorBox, refresh);
    drawNames(muted, data.muted, "unmute", _("Unmute"), errorBox, refresh);
    drawNames(blocked, data.blocked, "unblock", _("Unblock"), errorBox, refresh);
    document.body.dataset.friends = data.following.map((f) => `${f.name}:${f.online ? 1 : 0}:${(f.tables || []).length}`).join(",");
    document.body.dataset.inbox = String(data.inbox.length);
  }
  await refresh();
  setInterval(refresh, POLL_MS);
  window.addEventListener("canasta:inbox", refresh);
  return refresh;
}

// ------------------------------------------------------------------ one player

/** Follow / mute / block / report buttons for `rel` ({name, following, muted, blocked}) in `box`. */
function relationButtons(box, rel, errorBox, redraw) {
  const toggle = (on, yes, no, doing, undoing) => button(on ? no : yes, async () => {
    const got = await send(`/api/social/${on ? undoing : doing}`, { name: rel.name }, errorBox);
    if (got) redraw(got);
  }, "secondary", { dataset: { act: on ? undoing : doing } });
  box.append(
    toggle(rel.following, _("Follow"), _("Unfollow"), "follow", "unfollow"),
    toggle(rel.muted, _("Mute"), _("Unmute"), "mute", "unmute"),
    toggle(rel.blocked, _("Block"), _("Unblock"), "block", "unblock"),
    button(_("Report"), () => askReason(box, _("Report {name}:", { name: rel.name }), async (reason) => {
      const done = await send("/api/social/report", { name: rel.name, reason }, errorBox);
      if (done) errorBox.textContent = _("Reported. A moderator will look at it.");
      return !!done;
    }), "secondary", { dataset: { act: "report" } }));
}

async function profilePanel(name, anchor) {
  const errorBox = el("p", { className: "error", role: "alert", id: "social-error" });
  const where = el("p", { id: "where", className: "muted" });
  const row = el("div", { className: "row", id: "relation" });
  const panel = el("section", { className: "panel", id: "player-social" }, row, where, errorBox);
  anchor.after(panel);
  const draw = (rel) => {
    row.innerHTML = "";
    relationButtons(row, rel, errorBox, () => load());
    where.innerHTML = "";
    if (rel.following) {
      where.append(rel.online ? _("online") : _("offline"));
      for (const t of rel.tables || []) where.append(" · ", el("a", { href: t.link, className: "friend-table", textContent: _("at a table: watch") }));
    }
  };
  async function load() {
    const rel = await getJSON(`/api/social/player/${encodeURIComponent(name)}`);
    if (rel && !rel.me) draw(rel);
    panel.hidden = !rel || rel.me;
  }
  await load();
}

// ------------------------------------------------------------------ a table

async function tablePanel(tableId, side) {
  const errorBox = el("p", { className: "error", role: "alert", id: "social-error" });
  const list = el("ul", { id: "table-players", className: "friends" });
  const invite = el("div", { id: "invite-box" });
  const inbox = el("ul", { id: "inbox", className: "inbox" });
  const panel = el("section", { className: "panel", id: "table-social" },
    el("h3", { textContent: _("Players") }), list, invite, inbox, errorBox);
  // beside the table once it is dealt; in the waiting room's panel before (the table is hidden then)
  const waiting = $("waiting");
  const place = () => {
    if (waiting && !waiting.hidden) { if (panel.parentElement !== waiting) waiting.append(panel); }
    else if (panel.parentElement !== side) side.prepend(panel);
  };
  place();
  if (waiting) new MutationObserver(place).observe(waiting, { attributes: true, attributeFilter: ["hidden"] });
  let mineSeat = null;
  async function load() {
    const [data, info, mine] = await Promise.all([getJSON(`/api/social/table/${tableId}`),
      getJSON(`/api/tables/${tableId}`), getJSON("/api/social")]);
    if (!data || !mine) { panel.hidden = true; return; }
    list.innerHTML = "";
    mineSeat = null;
    for (const s of data.seats) {
      if (s.me) { mineSeat = s.seat; continue; }
      const li = el("li", { dataset: { name: s.name } }, playerLink(s.name), " ");
      relationButtons(li, s, errorBox, () => load());
      list.append(li);
    }
    if (!list.children.length) list.append(el("li", { className: "muted", textContent: _("No other player here has an account.") }));
    drawInbox(inbox, mine.inbox.filter((i) => i.table !== tableId), errorBox, load); // not this table's
    invite.innerHTML = "";
    const open = info ? info.seats.filter((s) => s.kind === "open") : [];
    if (mineSeat !== null && open.length && mine.following.length) {
      const who = el("select", { id: "invite-name", "aria-label": _("a player you follow") },
        ...mine.following.map((f) => el("option", { value: f.name, textContent: f.name })));
      const seat = el("select", { id: "invite-seat", "aria-label": _("the seat") },
        ...open.map((s) => el("option", { value: String(s.seat), textContent: _("seat {n}", { n: s.seat + 1 }) })));
      invite.append(el("div", { className: "row" }, el("span", { textContent: _("Invite") }), who, seat,
        button(_("Send the invitation"), async () => {
          const done = await send("/api/social/invite", { name: who.value, table: tableId, seat: Number(seat.value) }, errorBox);
          if (done) errorBox.textContent = _("{name} is invited.", { name: done.invited });
        }, "secondary", { id: "btn-send-invite" })));
    }
    panel.hidden = false;
    document.body.dataset.social = "ready";
  }
  await load();
  setInterval(load, POLL_MS);
  window.addEventListener("canasta:inbox", load);
  // a chat line said by someone else may be reported (its text is taken from the table's record)
  const log = $("chat-log");
  if (log) {
    const mark = () => {
      for (const li of log.querySelectorAll("li:not(.mine)")) {
        if (li.querySelector(".chat-report")) continue;
        li.append(" ", button("⚑", () => askReason(li, _("Report this line:"), async (reason) => {
          const done = await send("/api/social/report", { table: tableId, chat: Number(li.dataset.id), reason }, errorBox);
          if (done) errorBox.textContent = _("Reported. A moderator will look at it.");
          return !!done;
        }), "secondary chat-report", { title: _("report this line"), "aria-label": _("report this line") }));
      }
    };
    new MutationObserver(mark).observe(log, { childList: true });
    mark();
  }
}

// ------------------------------------------------------------------ which page

let started = false;

async function start() {
  if (started) return;
  let account = null;
  try { account = await me(); } catch (e) { return; }
  if (!account) return;
  started = true;
  const path = location.pathname;
  if (path.startsWith("/t/")) {
    const side = $("side");
    if (side) await tablePanel(path.split("/")[2], side);
  } else if (path.startsWith("/u/")) {
    const name = decodeURIComponent(path.split("/")[2] || "");
    const anchor = $("since");
    if (name.toLowerCase() === account.name.toLowerCase()) await friendsPanel($("stats-panel"));
    else if (anchor) await profilePanel(name, anchor);
  } else if (path === "/" && $("who")) {
    await friendsPanel($("who"));
  }
}

// signed in later on this page (the lobby's form): drawn then; signed out: gone
window.addEventListener("canasta:account", async () => {
  const account = await me().catch(() => null);
  if (account) start();
  else for (const id of ["friends", "table-social", "player-social"]) { const e = $(id); if (e) e.hidden = true; }
});
start();
