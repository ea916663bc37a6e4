// Texts in the reader's language.  Every word the page shows goes through t() (or tn() for
// a count, tp() for words that need a context): the argument is the English text, which is
// also the key into the language's catalogue (gettext msgid), with {fields} filled from
// params.  English needs no catalogue; another language's catalogue comes from the server
// (/api/i18n/<lang>, built from the web's and the games' .po files) before the page draws.
//
// A message from the server (a log line, a refusal, an action's text) is {m, p, pl, c}, the
// same form the Python side builds (gemtable.core.i18n); render() draws it in this language.

export let lang = "en";
let entries = Object.create(null); // "context\u0004English" or "English" -> text or [forms]
let categories = ["one", "other"];
let rules = null;

// CLDR plural categories in the order gettext catalogues made by Babel number their forms.
const CLDR_ORDER = ["zero", "one", "two", "few", "many", "other"];

export function useCatalogue(code, messages) {
  lang = code;
  entries = Object.assign(Object.create(null), messages || {});
  try {
    rules = new Intl.PluralRules(code);
    const have = new Set(rules.resolvedOptions().pluralCategories);
    categories = CLDR_ORDER.filter((c) => have.has(c));
  } catch (e) {
    rules = null;
    categories = ["one", "other"];
  }
  document.documentElement.lang = code;
}

// `url`: the catalogue's versioned address the shell names (and preloads) on <html data-catalogue>
export async function load(code, url) {
  if (!code || code === "en") { useCatalogue("en", {}); return; }
  try {
    const r = await fetch(url || `/api/i18n/${encodeURIComponent(code)}`, { credentials: "same-origin" });
    if (!r.ok) throw new Error(String(r.status));
    const data = await r.json();
    useCatalogue(data.lang || code, data.messages);
  } catch (e) {
    useCatalogue("en", {}); // unreadable catalogue: English rather than nothing
  }
}

export function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const v = params[name];
    if (v && typeof v === "object" && !Array.isArray(v) && typeof v.m === "string") return render(v);
    if (Array.isArray(v)) return v.map((x) => (x && typeof x === "object" && typeof x.m === "string" ? render(x) : String(x))).join(", ");
    return String(v);
  });
}

function pluralIndex(n) {
  if (!rules) return n === 1 ? 0 : 1;
  const i = categories.indexOf(rules.select(n));
  return i < 0 ? categories.length - 1 : i;
}

function lookup(context, text) {
  return entries[context ? `${context}\u0004${text}` : text];
}

export function t(text, params) {
  const found = lookup(null, text);
  return fill(typeof found === "string" && found ? found : text, params);
}

export function tp(context, text, params) {
  const found = lookup(context, text);
  return fill(typeof found === "string" && found ? found : text, params);
}

export function tn(singular, plural, n, params) {
  const all = Object.assign({ n }, params || {});
  const found = lookup(null, singular);
  if (Array.isArray(found)) {
    const s = found[pluralIndex(n)];
    if (s) return fill(s, all);
  }
  return fill(n === 1 ? singular : plural, all);
}

// A message from the server ({m, p, pl, c}) or text rendered before (a string).
export function render(message) {
  if (message == null) return "";
  if (typeof message === "string") return message;
  if (typeof message !== "object" || typeof message.m !== "string") return String(message);
  const params = message.p || {};
  let text = null;
  const found = lookup(message.c, message.m);
  if (message.pl !== undefined) {
    if (Array.isArray(found)) text = found[pluralIndex(Number(params.n))] || null;
    if (!text) text = Number(params.n) === 1 ? message.m : message.pl;
  } else {
    text = typeof found === "string" && found ? found : message.m;
  }
  return fill(text, params);
}
