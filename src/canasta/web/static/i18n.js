// The page's language: English, Spanish, Italian, Brazilian Portuguese, or any language the server has a catalog for.
// The choice comes from the page's own setting (remembered in this browser), then from
// "?lang=" in the address, then from the browser's Accept-Language header, which the
// server reads when no language is asked for.  The texts come from the server's
// gettext catalog of the "canasta-web" domain (src/canasta/locale/<lang>/LC_MESSAGES),
// extracted from these pages by `python -m canasta.i18n.catalog extract`.
//
//   _("Draw")                                 a text
//   _("it is {name}'s move", { name })         with named fields
//   ngettext("{n} card", "{n} cards", n)       a count ({n} is filled in, written as a number of the language)
//   pgettext("button", "Meld")                 a text whose translation depends on where it stands
//
// Static pages mark their texts with data-i18n="msgid" (the element's text) and
// data-i18n-title="msgid" (an attribute's value); translatePage() puts them into the language.

export const LANG_KEY = "canasta:lang";
export const PSEUDO = "qps";

function asked() {
  const fromAddress = new URLSearchParams(location.search).get("lang");
  return fromAddress || localStorage.getItem(LANG_KEY) || "";
}

async function load() {
  try {
    const r = await fetch(`/i18n/catalog.json?lang=${encodeURIComponent(asked())}`);
    if (r.ok) return await r.json();
  } catch (e) { /* offline or old server: English */ }
  return { lang: "en", languages: [["en", "English"]], messages: {}, plural: [] };
}

const catalog = await load();
// a language asked for in the address is the reader's choice from then on, as the menu's is: the
// table the lobby opens, its rematch and every other page of the room follow it
const fromAddress = new URLSearchParams(location.search).get("lang");
const same = (a, b) => a.toLowerCase().replace("-", "_") === b.toLowerCase().replace("-", "_");
if (fromAddress && catalog.lang && catalog.lang !== PSEUDO && same(fromAddress, catalog.lang)) {
  localStorage.setItem(LANG_KEY, catalog.lang);
}
export const lang = catalog.lang;
export const languages = catalog.languages || [["en", "English"]];
/** The notes on the pile, by key, in this language (the engine's sentences: canasta.engine.family.PILE_NOTES). */
export const pileNoteTexts = catalog.pile_notes || {};
/** A family's notes on the table, by key, in this language (canasta.engine.family.table_note_texts). */
export const tableNoteTexts = catalog.table_notes || {};
/** Why a hand ended with nobody out (the engine's English words) in this language. */
export const endReasonTexts = catalog.end_reasons || {};
// the language as a BCP 47 tag (pt_BR, a catalog's name, is pt-BR to the browser and to Intl)
const tag = lang === PSEUDO ? "en" : lang.replace("_", "-");
document.documentElement.lang = tag;
const messages = catalog.messages || {};
const pluralTable = catalog.plural || [];
// grouped from four digits on, as the terminal and the server's messages write them (Italian 7.800:
// Chromium's own Italian rule writes 7800 but 16.505, which mixed the two forms on one score sheet)
const numbers = new Intl.NumberFormat(tag, { useGrouping: "always" });

// the pseudo-language marks every text that went through the catalog, so a test finds the rest
const ACCENTS = { a: "á", e: "é", i: "í", o: "ö", u: "ü", c: "ç", n: "ñ", s: "ş", y: "ý", A: "Á", E: "É", O: "Ö", U: "Ü" };
function pseudo(text) {
  let out = "";
  let depth = 0; // keep {fields} as they are
  for (const ch of text) {
    if (ch === "{") depth++;
    if (ch === "}") depth--;
    out += depth > 0 || ch === "}" ? ch : (ACCENTS[ch] || ch);
  }
  return `⟦${out}⟧`;
}

/** The plural form's index for a count, from the catalog's Plural-Forms rule. */
function pluralIndex(n) {
  if (!pluralTable.length) return n === 1 ? 0 : 1;
  n = Math.abs(Math.trunc(n));
  return n < pluralTable.length ? pluralTable[n] : pluralTable[100 + (n % 100)];
}

/** A number as the language writes it (1,234 / 1.234). */
export function number(n) {
  return numbers.format(n);
}

/** Fill {name} fields; numbers are written as the language writes them. */
export function fmt(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (m, key) => {
    if (!(key in params)) return m;
    const v = params[key];
    return typeof v === "number" ? number(v) : String(v);
  });
}

function lookup(key, fallback) {
  let t = messages[key];
  if (Array.isArray(t)) t = t[Math.min(pluralIndex(1), t.length - 1)]; // a plural entry asked for once
  if (typeof t === "string" && t) return t;
  return lang === PSEUDO ? pseudo(fallback) : fallback;
}

export function _(msgid, params) {
  return fmt(lookup(msgid, msgid), params);
}

export function pgettext(context, msgid, params) {
  return fmt(lookup(`${context}\u0004${msgid}`, msgid), params);
}

export function ngettext(singular, plural, n, params) {
  const forms = messages[singular];
  let text;
  if (Array.isArray(forms) && forms.length && forms.every((f) => f)) text = forms[Math.min(pluralIndex(n), forms.length - 1)];
  else {
    text = n === 1 ? singular : plural;
    if (lang === PSEUDO) text = pseudo(text);
  }
  return fmt(text, { n, ...(params || {}) });
}

/** Put a static page's marked texts into the language: data-i18n="msgid" gives the element's
 * text, data-i18n-title="msgid" (any attribute after the dash) that attribute; "context|msgid"
 * stands for a text with a context.  (canasta.i18n.catalog extracts the same attributes.) */
export function translatePage(root = document) {
  const tr = (value) => {
    const bar = value.indexOf("|");
    return bar > 0 ? pgettext(value.slice(0, bar), value.slice(bar + 1)) : _(value);
  };
  for (const el of root.querySelectorAll("*")) {
    for (const { name, value } of [...el.attributes]) {
      if (!name.startsWith("data-i18n") || !value) continue;
      if (name === "data-i18n") el.textContent = tr(value);
      else el.setAttribute(name.slice("data-i18n-".length), tr(value));
    }
  }
}

/** A language picker: remembers the choice in this browser and reloads the page in it. */
export function languagePicker(select, onChange) {
  select.innerHTML = "";
  for (const [code, name] of languages) {
    const o = document.createElement("option");
    o.value = code;
    o.textContent = name;
    select.appendChild(o);
  }
  select.value = lang;
  select.onchange = () => {
    localStorage.setItem(LANG_KEY, select.value);
    if (onChange) onChange(select.value);
    const url = new URL(location.href);
    url.searchParams.delete("lang");
    location.href = url.toString();
  };
}
