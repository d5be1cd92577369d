// The lobby: quick play, creating a table, open tables, finished games.
import { _, languagePicker, lang, ngettext, translatePage } from "/static/i18n.js";
import { levelName, seatName, tableTitle } from "/static/words.js";
import { drawBar, enter, me, post as postWithToken, profileLink, signedIn } from "/static/account.js";
import { drawPasskeys, signInWithPasskey, supported as passkeysHere } from "/static/passkeys.js";

translatePage();
languagePicker(document.getElementById("lang"));
const $ = (id) => document.getElementById(id);
let presets = [];
let levels = [];

const nameInput = $("name");
nameInput.value = nameInput.value || localStorage.getItem("canasta:name") || ""; // typed before the page was ready: kept
nameInput.onchange = () => localStorage.setItem("canasta:name", nameInput.value.trim());
const myName = () => (signedIn() ? signedIn().name : nameInput.value.trim() || _("Guest"));
const query = new URLSearchParams(location.search); // a rematch comes back here with its table filled in
const PACE_KEY = "canasta:pace";

// the bots' pace: remembered, and sent with a new table as "bot_delay" (seconds)
for (const id of ["quick-pace", "create-pace"]) {
  const sel = $(id);
  const asked = query.get("pace"); // any pace from 0 to 5 s through the address (tests, demos)
  if (asked !== null && Number(asked) >= 0 && Number(asked) <= 5 && ![...sel.options].some((o) => o.value === String(Number(asked)))) {
    const o = document.createElement("option");
    o.value = String(Number(asked));
    o.textContent = _("{seconds} s", { seconds: Number(asked) });
    sel.appendChild(o);
  }
  const want = asked ?? localStorage.getItem(PACE_KEY);
  if (want && [...sel.options].some((o) => o.value === String(Number(want)))) sel.value = String(Number(want));
  sel.onchange = () => {
    localStorage.setItem(PACE_KEY, sel.value);
    for (const other of ["quick-pace", "create-pace"]) $(other).value = sel.value;
  };
}
const pace = (id) => Number($(id).value);

// every POST carries the CSRF token (account.js): signed in, the seat taken is the account's
async function post(url, body) {
  const r = await postWithToken(url, body);
  const data = await r.json();
  if (!r.ok) throw new Error(data.detail || _("error {status}", { status: r.status }));
  return data;
}

function remember(data) {
  if (!signedIn()) localStorage.setItem("canasta:name", myName());
  localStorage.setItem(`canasta:${data.table}`, JSON.stringify({ token: data.token, seat: data.seat, invites: data.invites }));
}

$("btn-quick").onclick = async () => {
  try {
    const body = { name: myName(), level: $("quick-level").value, bot_delay: pace("quick-pace") };
    const seed = new URLSearchParams(location.search).get("seed"); // a fixed deal, for demos and tests
    if (seed) body.seed = Number(seed);
    const data = await post("/api/quick", body);
    remember(data);
    location.href = `/t/${data.table}`;
  } catch (e) { alert(e.message); }
};

function preset() { return presets.find((p) => p.name === $("preset").value); }

function drawSeats() {
  const p = preset();
  const box = $("seats");
  box.innerHTML = "";
  for (let i = 0; i < p.players; i++) {
    const row = document.createElement("div");
    row.className = "row";
    row.innerHTML = `<label><input type="radio" name="myseat" value="${i}" ${i === 0 ? "checked" : ""}> </label>` +
      `<select data-seat="${i}"><option value="open"></option>${levels.map((l) => `<option value="bot:${l}" ${l === "basic" && i ? "selected" : ""}></option>`).join("")}<option value="reserved"></option></select>` +
      `<input data-reserved="${i}" maxlength="24" hidden>`;
    row.querySelector("label").lastChild.textContent = " " + _("Seat {seat}", { seat: i });
    for (const o of row.querySelectorAll("option")) {
      o.textContent = o.value === "open" ? _("open") : o.value === "reserved" ? _("reserved") : levelName(o.value.slice(4), 1);
    }
    row.querySelector("input[data-reserved]").placeholder = _("name of the invited player");
    const sel = row.querySelector("select");
    sel.onchange = () => { row.querySelector("input[data-reserved]").hidden = sel.value !== "reserved"; };
    box.appendChild(row);
  }
  const mark = () => {
    for (const sel of box.querySelectorAll("select[data-seat]")) {
      const mine = document.querySelector("input[name=myseat]:checked").value === sel.dataset.seat;
      sel.disabled = mine;
      sel.title = mine ? _("your seat") : "";
    }
  };
  for (const r of box.querySelectorAll("input[name=myseat]")) r.onchange = mark;
  mark();
  const opts = $("options");
  opts.innerHTML = "<tr><th></th><th></th><th></th></tr>";
  [_("Option"), _("Topic"), _("Value")].forEach((t, k) => { opts.rows[0].cells[k].textContent = t; });
  for (const o of p.options) {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td>${o.id}</td><td></td><td><select data-option="${o.id}"></select></td>`;
    tr.children[1].textContent = `${o.topic} (${o.rule})`;
    const sel = tr.querySelector("select");
    o.choices.forEach((c, k) => {
      const opt = document.createElement("option");
      opt.value = JSON.stringify(c);
      const shown = (o.choice_names && o.choice_names[k]) || String(c);
      opt.textContent = k === 0 ? _("{choice} (default)", { choice: shown }) : shown;
      if (JSON.stringify(c) === JSON.stringify(o.value)) opt.selected = true;
      sel.appendChild(opt);
    });
    opts.appendChild(tr);
  }
  $("target").value = p.target;
  const names = COMPASS[p.players];
  if (names) box.querySelectorAll("label").forEach((l, i) => { l.lastChild.textContent = ` ${seatName(names[i], "open")}`; });
}

// the seats' names as the server gives them (canasta.play.table.seat_names), from the creator's seat
const COMPASS = { 2: ["South", "North"], 3: ["South", "West", "East"], 4: ["South", "West", "North", "East"],
  5: ["South", "South-west", "North-west", "North-east", "South-east"],
  6: ["South", "South-west", "North-west", "North", "North-east", "South-east"] };

/** A rematch link (/?preset=…&seats=me,bot:basic,…&target=…&pace=…) fills in the create form. */
function prefill() {
  const name = query.get("preset");
  if (!name || !presets.some((p) => p.name === name)) return;
  $("preset").value = name;
  drawSeats();
  const seats = (query.get("seats") || "").split(",");
  seats.forEach((kind, i) => {
    const sel = document.querySelector(`select[data-seat="${i}"]`);
    if (!sel) return;
    if (kind === "me") { const r = document.querySelector(`input[name=myseat][value="${i}"]`); if (r) { r.checked = true; r.dispatchEvent(new Event("change")); } }
    else if ([...sel.options].some((o) => o.value === kind)) sel.value = kind;
  });
  const t = Number(query.get("target"));
  if (t) $("target").value = t;
  $("create").scrollIntoView();
}

$("btn-create").onclick = async () => {
  const p = preset();
  const me = Number(document.querySelector("input[name=myseat]:checked").value);
  const seats = [];
  for (let i = 0; i < p.players; i++) {
    const v = document.querySelector(`select[data-seat="${i}"]`).value;
    if (v.startsWith("bot:")) seats.push({ kind: "bot", level: v.slice(4) });
    else if (v === "reserved") seats.push({ kind: "reserved", name: document.querySelector(`input[data-reserved="${i}"]`).value });
    else seats.push({ kind: "open" });
  }
  const options = {};
  for (const sel of document.querySelectorAll("select[data-option]")) {
    const o = p.options.find((x) => x.id === sel.dataset.option);
    if (sel.value !== JSON.stringify(o.value)) options[o.id] = JSON.parse(sel.value);
  }
  const body = { preset: p.name, name: myName(), seat: me, seats, options, target: Number($("target").value) || null,
    turn_seconds: Number($("timer").value), title: $("table-title").value, bot_delay: pace("create-pace"),
    review_others: $("review-others").checked, chat_spectators: $("chat-spectators").checked };
  const seed = new URLSearchParams(location.search).get("seed"); // honoured only with --allow-fixed-seeds
  if (seed) body.seed = Number(seed);
  try {
    const data = await post("/api/tables", body);
    remember(data);
    $("create-error").textContent = "";
    const base = location.origin;
    const box = $("created");
    box.innerHTML = "";
    const line = (text, value) => {
      const p = document.createElement("p");
      p.textContent = text + " ";
      const input = document.createElement("input");
      Object.assign(input, { readOnly: true, size: 40, value });
      p.appendChild(input);
      box.appendChild(p);
    };
    line(_("Table created. Invite link:"), `${base}/t/${data.table}`);
    for (const [seat, link] of Object.entries(data.invites)) line(_("Reserved seat {seat}:", { seat }), `${base}${link}`);
    const go = document.createElement("p");
    go.innerHTML = `<a href="/t/${encodeURIComponent(data.table)}"></a>`;
    go.firstChild.textContent = _("Go to the table");
    box.appendChild(go);
    $("created").hidden = false;
  } catch (e) { $("create-error").textContent = e.message; }
};

/** A preset in words, in the page's language ("Canasta classica, 4 giocatori ..."), else its id. */
function presetWords(name) {
  const found = presets.find((p) => p.name === name);
  return (found && found.label) || name;
}

// the open tables: a page at a time; the tables this reader hid are left out (remembered in this browser)
const HIDDEN_KEY = "canasta:hidden-tables";
const MAX_HIDDEN = 200;
let openPage = 1;
const hiddenTables = () => { try { return JSON.parse(localStorage.getItem(HIDDEN_KEY) || "[]").slice(-MAX_HIDDEN); } catch (e) { return []; } };
function hideTable(id) {
  localStorage.setItem(HIDDEN_KEY, JSON.stringify([...hiddenTables().filter((x) => x !== id), id].slice(-MAX_HIDDEN)));
  refresh();
}
$("open-prev").onclick = () => { openPage = Math.max(1, openPage - 1); refresh(); };
$("open-next").onclick = () => { openPage += 1; refresh(); };
$("open-unhide").onclick = () => { localStorage.removeItem(HIDDEN_KEY); refresh(); };

async function refresh() {
  const hidden = hiddenTables();
  const ask = (page) => fetch(`/api/tables?lang=${lang}&page=${page}&hide=${encodeURIComponent(hidden.join(","))}`).then((r) => r.json());
  let open = await ask(openPage);
  if (open.page > open.pages) { openPage = open.pages; open = await ask(openPage); } // the list got shorter
  const box = $("open-tables");
  box.textContent = open.tables.length ? "" : _("none yet");
  for (const t of open.tables) {
    const d = document.createElement("div");
    d.className = "row open-table";
    d.dataset.table = t.table;
    const free = t.seats.filter((s) => s.kind === "open").length;
    d.innerHTML = `<a></a><span class="muted"></span><button type="button" class="secondary small"></button>`;
    d.querySelector("a").href = `/t/${encodeURIComponent(t.table)}`;
    d.querySelector("a").textContent = tableTitle(t.title, t.host) || t.table;
    const rated = t.rated ? _("rated") : ""; // a rated table: signed-in players only (rated.js)
    d.querySelector("span").textContent = [presetWords(t.preset), rated, ngettext("{n} open seat", "{n} open seats", free),
      t.seats.map((s) => seatName(s.name, s.kind)).join(", ")].filter(Boolean).join(" · ");
    const hide = d.querySelector("button");
    hide.textContent = _("Hide");
    hide.title = _("leave this table out of your list (in this browser)");
    hide.onclick = () => hideTable(t.table);
    box.appendChild(d);
  }
  $("open-pager").hidden = open.pages <= 1;
  $("open-page").textContent = _("page {page} of {pages}", { page: open.page, pages: open.pages });
  $("open-prev").disabled = open.page <= 1;
  $("open-next").disabled = open.page >= open.pages;
  $("open-unhide").hidden = !hidden.length;
  $("open-unhide").textContent = ngettext("Show the {n} hidden table", "Show the {n} hidden tables", hidden.length);
  document.body.dataset.openPage = `${open.page}/${open.pages}`; // tests read it
  const hist = await (await fetch("/api/history")).json();
  const hb = $("history");
  hb.textContent = hist.tables.length ? "" : _("no finished games yet");
  for (const t of hist.tables) {
    const d = document.createElement("div");
    d.className = "row";
    const id = encodeURIComponent(t.table);
    d.innerHTML = `<span></span><a href="/replay/${id}"></a><a href="/api/tables/${id}/record"></a>`;
    d.querySelector("span").textContent = `${tableTitle(t.title, t.host) || t.table} · ${presetWords(t.preset)} · ${(t.names || []).map((n, i) => seatName(n, (t.kinds || [])[i] || "human")).join(", ")} · ${ngettext("{n} hand", "{n} hands", t.hands)}`;
    d.querySelectorAll("a")[0].textContent = _("replay");
    d.querySelectorAll("a")[1].textContent = _("record");
    hb.appendChild(d);
  }
}

// ------------------------------------------------------------------ the account
// Signed in: the header says who you are (your profile, Sign out) and the seats you take are
// your account's, under its name.  A guest sees a name field and, folded away, the form to sign
// in or up: nothing stands between a guest and a quick game.
const form = $("account-form");
const accountBox = $("account");

function openSignIn() {
  accountBox.open = true;
  if (!$("account-name").value) $("account-name").value = nameInput.value.trim();
  accountBox.scrollIntoView({ block: "nearest" });
  $(($("account-name").value ? "account-password" : "account-name")).focus();
}

function showAccount() {
  const account = signedIn();
  drawBar($("account-bar"), { onSignIn: openSignIn, onChange: () => {
    showAccount();
    $("account-status").textContent = _("Signed out. You play as a guest.");
    nameInput.focus();
  } });
  $("guest-name").hidden = !!account;
  accountBox.hidden = !!account;
  $("playing-as").hidden = !account;
  if (account) {
    const link = document.createElement("a");
    link.href = profileLink(account.name);
    link.textContent = account.name;
    const [before, after] = _("You play as {name}.").split("{name}");
    $("playing-as").replaceChildren(before, link, after ?? "");
  }
  drawPasskeys($("passkeys"), account).catch(() => { $("passkeys").hidden = true; });
}

// signed in (by a password or a passkey): the header, then what was kept, said
function welcome(done, what) {
  accountBox.open = false;
  showAccount();
  const said = [what === "register" ? _("Welcome, {name}: your account is ready.", { name: done.account.name })
    : _("Signed in as {name}.", { name: done.account.name })];
  if (done.claimed) said.push(ngettext("{n} game played in this browser is now kept under your account.",
    "{n} games played in this browser are now kept under your account.", done.claimed));
  $("account-status").textContent = said.join(" ");
  $("me-name").focus();
}

$("account-show").onchange = () => { $("account-password").type = $("account-show").checked ? "text" : "password"; };
// Enter (and "Sign in") signs in; "Create an account" signs up, the password then a new one
$("btn-register").onfocus = () => { $("account-password").autocomplete = "new-password"; };
$("btn-login").onfocus = () => { $("account-password").autocomplete = "current-password"; };
form.onsubmit = async (ev) => {
  ev.preventDefault();
  const what = ev.submitter && ev.submitter.id === "btn-register" ? "register" : "login";
  const buttons = [$("btn-login"), $("btn-register")];
  $("account-error").textContent = "";
  for (const b of buttons) b.disabled = true;
  try {
    const done = await enter(what, $("account-name").value.trim(), $("account-password").value);
    $("account-password").value = "";
    welcome(done, what);
  } catch (e) {
    $("account-error").textContent = e.message;
    $("account-password").select();
    $("account-password").focus();
  } finally {
    for (const b of buttons) b.disabled = false;
  }
};

// a passkey signs in with the name typed (only that account's passkeys are offered) or without one
$("btn-passkey").hidden = !passkeysHere();
$("btn-passkey").onclick = async () => {
  const buttons = [$("btn-login"), $("btn-register"), $("btn-passkey")];
  $("account-error").textContent = "";
  for (const b of buttons) b.disabled = true;
  try {
    welcome(await signInWithPasskey($("account-name").value.trim()), "login");
  } catch (e) {
    $("account-error").textContent = e.message;
  } finally {
    for (const b of buttons) b.disabled = false;
  }
};

async function start() {
  const who = me().catch(() => null); // asked beside the presets; a guest plays even if it fails
  const data = await (await fetch(`/api/presets?lang=${lang}`)).json();
  presets = data.presets;
  levels = data.bot_levels;
  for (const l of levels) { const o = document.createElement("option"); o.value = l; o.textContent = levelName(l, 2); if (l === "basic") o.selected = true; $("quick-level").appendChild(o); }
  for (const p of presets) { const o = document.createElement("option"); o.value = p.name; o.textContent = p.label ? `${p.label} · ${p.name}` : ngettext("{name} ({n} player)", "{name} ({n} players)", p.players, { name: p.name }); if (p.name === "classic-4p") o.selected = true; $("preset").appendChild(o); }
  $("preset").onchange = drawSeats;
  drawSeats();
  prefill();
  refresh();
  setInterval(refresh, 5000);
  await who;
  showAccount();
  if (location.hash === "#account" && !signedIn()) openSignIn();
  document.body.dataset.ready = "true"; // the page's texts are in its language and its buttons work
}
start();
