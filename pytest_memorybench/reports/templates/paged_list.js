// A filtered list drawn a page at a time, for report.html's items and compare.html's questions.
// Each page's script (placed after this one in the same <script>) says how an entry matches the
// filters and how it is drawn; this part keeps the count, the "show more" button and the search.
"use strict";
function mbNode(tag, className, text) {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined && text !== null) element.textContent = String(text);
  return element;
}

// options: prefix of the page's ids (PREFIX-list, -count, -more, -search, and the place filters
// -suite and -scenario of the place_filters macro), entries, noun ("items"), place(entry) as
// [suite, scenario, category], text(entry) for the search, matches(entry) for the page's other
// filters and their controls, row(entry)
function mbPagedList(options) {
  const PAGE = 50;
  const element = (name) => document.getElementById(options.prefix + "-" + name);
  const list = element("list"), count = element("count"), more = element("more"), search = element("search");
  const suite = element("suite"), scenario = element("scenario");
  const texts = new Map();
  let matching = [];
  let shown = 0;

  function text(entry) {
    let found = texts.get(entry);
    if (found === undefined) {
      found = options.text(entry).toLowerCase();
      texts.set(entry, found);
    }
    return found;
  }

  function matches(entry, words) {
    const [entrySuite, entryScenario, entryCategory] = options.place(entry);
    if (suite.value && entrySuite !== suite.value) return false;
    if (scenario.value) {
      const [name, category] = scenario.value.split("\n");
      if (entryScenario !== name || (category !== undefined && entryCategory !== category)) return false;
    }
    return options.matches(entry) && words.every((word) => text(entry).includes(word));
  }

  function showMore() {
    const fragment = document.createDocumentFragment();
    matching.slice(shown, shown + PAGE).forEach((entry) => fragment.append(options.row(entry)));
    list.append(fragment);
    shown = Math.min(shown + PAGE, matching.length);
    more.hidden = shown >= matching.length;
    more.textContent = "show " + Math.min(PAGE, matching.length - shown) + " more";
    count.textContent = matching.length.toLocaleString("en") + " of " + options.entries.length.toLocaleString("en") +
      " " + options.noun + (shown < matching.length ? ", the first " + shown + " shown" : "");
  }

  function apply() {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    matching = options.entries.filter((entry) => matches(entry, words));
    list.replaceChildren();
    shown = 0;
    showMore();
  }

  let pending = 0;
  search.addEventListener("input", () => {
    clearTimeout(pending);
    pending = setTimeout(apply, 150);
  });
  for (const control of [suite, scenario, ...options.controls]) {
    if (control) control.addEventListener("change", apply);
  }
  more.addEventListener("click", showMore);
  apply();
  return list;
}
