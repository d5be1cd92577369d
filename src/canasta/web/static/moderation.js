// The moderators' page (/moderation): the reports (a chat line's text as the table stored it),
// acting on a player (warn, ban for a time or for good, unban), and the audit log of every
// moderator's action.  The server refuses anyone else (and says so, in the page's language).
import { _, languagePicker, translatePage } from "/static/i18n.js";
import { drawBar, me, post, profileLink } from "/static/account.js";

translatePage();
languagePicker(document.getElementById("lang"));
const $ = (id) => document.getElementById(id);
const when = (at) => new Date(at * 1000).toLocaleString(document.documentElement.lang);
const ACTIONS = { warn: () => _("warn"), ban: () => _("ban"), unban: () => _("unban"), close: () => _("close") };

function link(name) {
  const a = document.createElement("a");
  a.href = profileLink(name);
  a.textContent = name;
  return a;
}

async function answer(r) {
  let data = {};
  try { data = await r.json(); } catch (e) { /* said by its status */ }
  if (!r.ok) { $("error").textContent = data.detail || _("error {status}", { status: r.status }); return null; }
  $("error").textContent = "";
  return data;
}

async function act(body) {
  const done = await answer(await post(`/api/moderation/${body.action}`, body));
  if (done) { $("act-done").textContent = _("Done: {action} {name}.", { action: ACTIONS[body.action](), name: body.name || "" }); await load(); }
  return done;
}

function drawReports(reports) {
  const list = $("reports");
  list.innerHTML = "";
  $("no-reports").hidden = reports.length > 0;
  for (const r of reports) {
    const li = document.createElement("li");
    li.dataset.id = r.id;
    li.dataset.status = r.status;
    li.append(`#${r.id} · ${when(r.at)} · `, link(r.reporter), ` → `, link(r.reported), ": ");
    const why = document.createElement("b");
    why.textContent = r.reason;
    li.append(why);
    if (r.chat_text) {
      const q = document.createElement("q");
      q.className = "reported-line";
      q.textContent = r.chat_text;
      li.append(" · ", _("chat line:"), " ", q, " ");
      const t = document.createElement("a");
      t.href = `/replay/${r.table}`;
      t.textContent = _("the table");
      li.append(t);
    }
    if (r.status === "open") {
      for (const [what, label] of [["warn", _("Warn")], ["ban", _("Ban")], ["close", _("Close")]]) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "secondary";
        b.dataset.act = what;
        b.textContent = label;
        b.onclick = () => {
          $("act-name").value = r.reported;
          if (what === "close") { act({ action: "close", report: r.id }); return; }
          $("act-action").value = what;
          $("act-form").dataset.report = String(r.id);
          $("act-reason").value = what === "ban" ? r.reason : "";
          $("act-reason").focus();
        };
        li.append(" ", b);
      }
    } else {
      li.append(" · ", _("closed by {name}", { name: r.handled_by || "?" }));
    }
    list.append(li);
  }
}

function drawAudit(rows) {
  const table = $("audit");
  table.innerHTML = "";
  const head = table.insertRow();
  for (const h of [_("When"), _("Moderator"), _("Action"), _("Player"), _("Until"), _("Reason")]) {
    const th = document.createElement("th");
    th.textContent = h;
    head.append(th);
  }
  for (const a of rows) {
    const row = table.insertRow();
    row.dataset.action = a.action;
    const until = a.until === null ? "" : a.until >= 253402300799 ? _("for good") : when(a.until);
    for (const text of [when(a.at), a.moderator, (ACTIONS[a.action] || (() => a.action))(), a.target || (a.report ? `#${a.report}` : ""), until, a.reason || ""]) {
      row.insertCell().textContent = text;
    }
  }
}

async function load() {
  const reports = await answer(await fetch(`/api/moderation/reports?status=${$("status").value}`, { cache: "no-store" }));
  if (!reports) return;
  drawReports(reports.reports);
  const audit = await answer(await fetch("/api/moderation/audit", { cache: "no-store" }));
  if (audit) drawAudit(audit.audit);
  document.body.dataset.ready = "true";
}

$("status").onchange = load;
$("act-form").onsubmit = async (ev) => {
  ev.preventDefault();
  const action = $("act-action").value;
  const body = { action, name: $("act-name").value.trim() };
  const reason = $("act-reason").value.trim();
  if (action === "warn") body.text = reason;
  else if (reason || action === "ban") body.reason = reason;
  if (action === "ban" && $("act-days").value) body.days = Number($("act-days").value);
  if ($("act-form").dataset.report) body.report = Number($("act-form").dataset.report);
  if (await act(body)) { delete $("act-form").dataset.report; $("act-reason").value = ""; }
};

(async () => {
  await me().catch(() => null);
  drawBar($("account-bar"), { onChange: () => { location.href = "/"; } });
  await load();
})();
