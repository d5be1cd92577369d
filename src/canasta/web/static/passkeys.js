// Passkeys (WebAuthn): sign in with one (with the name typed, or none: the device offers the
// passkeys it holds for this site), and, signed in, add one to your account, see and remove them.
// The server gives the options and checks the answers (/api/account/passkeys...); the page only
// carries bytes between it and navigator.credentials, as base64url.
import { _, lang } from "/static/i18n.js";
import { heldSeats, me, post } from "/static/account.js";

/** Can this browser use passkeys at all? (A page without WebAuthn hides their buttons.) */
export const supported = () => typeof window.PublicKeyCredential === "function" && !!navigator.credentials;

const bytes = (text) => {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
};
const text = (buffer) => {
  let raw = "";
  for (const b of new Uint8Array(buffer)) raw += String.fromCharCode(b);
  return btoa(raw).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};
const described = (list) => (list || []).map((c) => ({ ...c, id: bytes(c.id) }));

/** The server's JSON answer, or throws its words (in the page's language). */
async function ask(url, body) {
  const r = await post(url, body);
  let data = {};
  try { data = await r.json(); } catch (e) { /* not JSON: said by its status */ }
  if (!r.ok) throw new Error(data.detail || _("error {status}", { status: r.status }));
  return data;
}

/** What the browser said when no passkey was used, in words a person can act on. */
function refusal(e) {
  if (e && e.name === "NotAllowedError") return new Error(_("No passkey was used (cancelled, or the time ran out)."));
  if (e && e.name === "InvalidStateError") return new Error(_("This device already holds a passkey for your account."));
  if (e && e.name === "SecurityError") return new Error(_("Passkeys cannot be used at this address."));
  return e instanceof Error && e.message ? e : new Error(_("The passkey could not be used."));
}

/** Sign in with a passkey (`name`: the account's, or "" to let the device offer its passkeys);
 * {account, claimed}, or throws words to show. */
export async function signInWithPasskey(name) {
  const { options } = await ask("/api/account/passkeys/signin/options", name ? { name } : {});
  let cred;
  try {
    cred = await navigator.credentials.get({ publicKey: {
      ...options, challenge: bytes(options.challenge), allowCredentials: described(options.allowCredentials) } });
  } catch (e) { throw refusal(e); }
  const r = cred.response;
  const done = await ask("/api/account/passkeys/signin", { lang, seats: heldSeats(), credential: {
    id: cred.id, rawId: text(cred.rawId), type: cred.type, authenticatorAttachment: cred.authenticatorAttachment,
    clientExtensionResults: cred.getClientExtensionResults(),
    response: { clientDataJSON: text(r.clientDataJSON), authenticatorData: text(r.authenticatorData),
      signature: text(r.signature), userHandle: r.userHandle ? text(r.userHandle) : null } } });
  await me(); // account.js learns the new session and its CSRF token
  return done;
}

/** Add a passkey to the signed-in account; the list of its passkeys after. */
export async function addPasskey() {
  const { options } = await ask("/api/account/passkeys/options", {});
  let cred;
  try {
    cred = await navigator.credentials.create({ publicKey: {
      ...options, challenge: bytes(options.challenge), user: { ...options.user, id: bytes(options.user.id) },
      excludeCredentials: described(options.excludeCredentials) } });
  } catch (e) { throw refusal(e); }
  const r = cred.response;
  await ask("/api/account/passkeys", { credential: {
    id: cred.id, rawId: text(cred.rawId), type: cred.type, authenticatorAttachment: cred.authenticatorAttachment,
    clientExtensionResults: cred.getClientExtensionResults(),
    response: { clientDataJSON: text(r.clientDataJSON), attestationObject: text(r.attestationObject),
      transports: typeof r.getTransports === "function" ? r.getTransports() : [] } } });
  return listPasskeys();
}

export async function listPasskeys() {
  const r = await fetch("/api/account/passkeys", { cache: "no-store" });
  if (!r.ok) return [];
  return (await r.json()).passkeys;
}

export async function removePasskey(id) {
  return (await ask("/api/account/passkeys/remove", { id })).passkeys;
}

const day = (seconds) => new Date(seconds * 1000).toLocaleDateString(document.documentElement.lang,
  { year: "numeric", month: "short", day: "numeric" });

/** Fill `box` (a <details> holding #passkey-list, #btn-passkey-add, #passkey-status,
 * #passkey-error) with the signed-in account's passkeys; hidden for a guest or without WebAuthn. */
export async function drawPasskeys(box, account) {
  box.hidden = !account || !supported();
  if (box.hidden) return;
  const list = box.querySelector("#passkey-list");
  const status = box.querySelector("#passkey-status");
  const error = box.querySelector("#passkey-error");
  const show = (keys) => {
    list.replaceChildren();
    if (!keys.length) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = _("No passkey yet: add one to sign in without a password.");
      list.append(li);
    }
    keys.forEach((k, i) => {
      const li = document.createElement("li");
      li.className = "row passkey";
      li.dataset.id = k.id;
      const what = document.createElement("span");
      const added = document.createElement("span");
      added.textContent = _("Passkey {n}, added {date}", { n: i + 1, date: day(k.created) });
      const used = document.createElement("span");
      used.textContent = k.last_used ? _("last used {date}", { date: day(k.last_used) }) : _("not used yet");
      for (const part of [added, used]) part.style.whiteSpace = "nowrap"; // a date never split where the window is narrow
      what.append(added, " · ", used);
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "secondary";
      remove.textContent = _("Remove");
      remove.setAttribute("aria-label", _("Remove passkey {n}", { n: i + 1 }));
      remove.onclick = async () => {
        remove.disabled = true;
        error.textContent = "";
        try {
          show(await removePasskey(k.id));
          status.textContent = _("Passkey removed.");
        } catch (e) { error.textContent = e.message; remove.disabled = false; }
      };
      li.append(what, remove);
      list.append(li);
    });
  };
  status.textContent = ""; // what was said before a sign-out is not said again
  error.textContent = "";
  const add = box.querySelector("#btn-passkey-add");
  add.onclick = async () => {
    add.disabled = true;
    error.textContent = "";
    status.textContent = "";
    try {
      show(await addPasskey());
      status.textContent = _("Passkey added: next time, sign in with it.");
    } catch (e) { error.textContent = refusal(e).message; } finally { add.disabled = false; }
  };
  show(await listPasskeys());
}
