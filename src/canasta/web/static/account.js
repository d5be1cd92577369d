// The browser's account: who is signed in (GET /api/account/me) and the CSRF token that every
// state-changing request carries (X-CSRF-Token); sign up, in and out; the header's part that says
// who you are (your name, a link to your profile, Sign out) on every page that shows it.
// Guests need none of it: a page that cannot ask still plays, as a guest.
import { _, lang } from "/static/i18n.js";

let csrf = null;
let account = null;

let asking = null; // the question under way: the page's scripts asking at once share it

async function ask() {
  const r = await fetch("/api/account/me", { cache: "no-store" });
  const data = await r.json();
  csrf = data.csrf;
  account = data.account;
  return account;
}

/** The signed-in account ({name, role, lang, created}) or null; remembers the CSRF token.  Asked
 * once for every caller waiting at the same moment: a guest's first answers would each set
 * another CSRF cookie, and a token read from one of them would not be the cookie's. */
export function me() {
  if (!asking) asking = ask().finally(() => { asking = null; });
  return asking;
}

export const signedIn = () => account;

/** Headers of a JSON POST of this browser: the CSRF token as the server knows it now (asked
 * afresh, so a session begun or ended in another tab or on another server is the one sent),
 * or no token when it cannot be asked: the request is then a guest's, as it always was. */
export async function headers() {
  try { await me(); } catch (e) { /* an older server or a moment offline: a guest's request */ }
  const out = { "content-type": "application/json" };
  if (csrf) out["x-csrf-token"] = csrf;
  return out;
}

/** A JSON POST carrying the CSRF token (and the page's language, for the server's words); the Response. */
export async function post(url, body) {
  const sep = url.includes("?") ? "&" : "?";
  const address = /[?&]lang=/.test(url) ? url : `${url}${sep}lang=${encodeURIComponent(lang)}`;
  return fetch(address, { method: "POST", headers: await headers(), body: JSON.stringify(body) });
}

/** The seats this browser holds as a guest ({table, token}), brought along when signing up or in. */
export function heldSeats() {
  const out = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    const m = /^canasta:([A-Za-z0-9]{4,32})$/.exec(key || "");
    if (!m) continue;
    try {
      const saved = JSON.parse(localStorage.getItem(key));
      if (saved && typeof saved.token === "string") out.push({ table: m[1], token: saved.token });
    } catch (e) { /* not a seat */ }
  }
  return out.slice(-200);
}

/** Sign up (what = "register") or in ("login"): {account, claimed}, or throws the server's words
 * (in the page's language: "wrong name or password" alike for an unknown name and a wrong password). */
export async function enter(what, name, password) {
  const r = await post(`/api/account/${what}`, { name, password, lang, seats: heldSeats() });
  let data = {};
  try { data = await r.json(); } catch (e) { /* not JSON: said below by its status */ }
  if (!r.ok) throw new Error(data.detail || _("error {status}", { status: r.status }));
  csrf = data.csrf;
  account = data.account;
  window.dispatchEvent(new CustomEvent("canasta:account"));
  return data;
}

/** Sign out: the session ends on the server (on every server of a cluster). */
export async function leave() {
  await post("/api/account/logout", {});
  account = null;
  csrf = null;
  try { await me(); } catch (e) { /* signed out all the same */ }
  window.dispatchEvent(new CustomEvent("canasta:account"));
}

/** The address of a player's profile. */
export const profileLink = (name) => `/u/${encodeURIComponent(name)}`;

/** Draw who this browser is into `box`: signed in, the name (a link to the profile) and Sign out;
 * a guest, a Sign in link (to the lobby's form, or `onSignIn` where the page has one).
 * `onChange` runs after signing out. */
export function drawBar(box, { onSignIn = null, onChange = null } = {}) {
  box.innerHTML = "";
  document.body.dataset.account = account ? account.name : "";
  if (account) {
    const a = document.createElement("a");
    a.id = "me-name";
    a.className = "account-name";
    a.href = profileLink(account.name);
    a.textContent = account.name;
    a.title = _("your profile: your games and statistics");
    const out = document.createElement("button");
    out.type = "button";
    out.id = "btn-signout";
    out.className = "secondary";
    out.textContent = _("Sign out");
    out.onclick = async () => {
      out.disabled = true;
      try { await leave(); } catch (e) { out.disabled = false; return; }
      drawBar(box, { onSignIn, onChange });
      if (onChange) onChange(null);
    };
    box.append(a, out);
  } else {
    const a = document.createElement("a");
    a.id = "btn-signin";
    a.className = "button-link";
    a.href = "/#account";
    a.textContent = _("Sign in");
    if (onSignIn) a.onclick = (ev) => { ev.preventDefault(); onSignIn(); };
    box.append(a);
  }
}

// friends and civility (follow, mute, block, report, invitations) on every page that shows an account
import("/static/social.js").catch(() => { /* an older server: the pages play without them */ });
