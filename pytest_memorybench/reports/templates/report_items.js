// report.html's items: filters, a text search, and items drawn fifty at a time (by paged_list.js,
// which comes first in the page's script), each item's body when it is first opened.  Every text from the run goes in with textContent, never as markup: an
// agent's reply cannot become part of the page.  The page's Content-Security-Policy lets this
// script run and no other.  The words are made in Python (reports/report_items.py, item_view);
// this script only places them.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("mb-i-data").textContent);
  const outcome = document.getElementById("mb-i-outcome");
  const errorKind = document.getElementById("mb-i-error"); // absent when no item errored
  // an item, in the order of report_items._packed
  const ANCHOR = 0, NODEID = 1, SUITE = 2, SCENARIO = 3, CATEGORY = 4, OUTCOME = 5, ERROR_KIND = 6,
    SCORE = 7, THRESHOLD = 8, HEAD = 9, WHERE = 10, ERROR = 11, QA = 12, REASONS = 13, JUDGING = 14,
    DETAILS = 15, TRANSCRIPT = 16, TRANSCRIPT_TITLE = 17, OPEN = 18, PREVIEW = 19;
  const node = mbNode;

  function text(item) {
    return [item[NODEID], item[ERROR] || "", ...item[QA].flat(), ...item[REASONS]].join("\n");
  }

  function matches(item) {
    if (outcome.value && item[OUTCOME] !== outcome.value) return false;
    return !(errorKind && errorKind.value && item[ERROR_KIND] !== errorKind.value);
  }

  function scoreBar(item) {
    const score = item[SCORE], threshold = item[THRESHOLD];
    const bar = node("span", "mb-bar" + (score === null ? " mb-errored" : ""));
    const label = score === null
      ? "no score: the test errored; the black mark is the threshold, " + threshold.toFixed(2)
      : "score " + score.toFixed(2) + " of 1; the black mark is the threshold, " + threshold.toFixed(2);
    bar.setAttribute("role", "img");
    bar.setAttribute("aria-label", label);
    bar.title = label;
    if (score !== null) {
      const fill = node("i", score >= threshold ? "mb-pass" : "mb-miss");
      fill.style.width = (score * 100).toFixed(1) + "%";
      bar.append(fill);
    }
    const mark = node("b");
    mark.style.left = "calc(" + (threshold * 100).toFixed(1) + "% - 1px)";
    bar.append(mark);
    return bar;
  }

  function pairs(parent, rows) {
    const list = node("dl", "mb-qa");
    rows.forEach(([label, text, textClass]) => list.append(node("dt", null, label), node("dd", textClass, text)));
    parent.append(list);
  }

  function details(item) {
    const box = node("details");
    box.append(node("summary", null, "details"));
    const list = node("dl", "mb-qa mb-details");
    for (const [label, value] of item[DETAILS]) {
      const cell = node("dd", null, Array.isArray(value) ? null : value);
      if (Array.isArray(value)) {
        const texts = node("ol");
        value.forEach((at) => texts.append(node("li", "mb-text", data.texts[at])));
        cell.append(texts);
      }
      list.append(node("dt", null, label), cell);
    }
    box.append(list);
    return box;
  }

  function transcript(item) {
    const box = node("details", "mb-transcript-box");
    box.open = item[OUTCOME] !== "passed";
    const entries = item[TRANSCRIPT];
    box.append(node("summary", null, data.texts[item[TRANSCRIPT_TITLE]]));
    if (!entries || !entries.length) return box;
    const turns = node("ol", "mb-transcript");
    for (const entry of entries) {
      if (typeof entry === "string") {
        turns.append(node("li", "mb-gap", "⋯ " + entry + " ⋯"));
        continue;
      }
      const [message, reply, when, isQuestion] = entry;
      const said = node("li", isQuestion ? "mb-question" : "mb-user");
      said.append(node("span", "mb-who", (isQuestion ? "question" : "benchmark") + (when ? " · " + when : "")));
      said.append(node("span", "mb-text", data.texts[message]));
      const answered = node("li", "mb-agent");
      answered.append(node("span", "mb-who", "agent"));
      answered.append(node("span", "mb-text", reply === null ? "(no reply logged)" : data.texts[reply]));
      turns.append(said, answered);
    }
    box.append(turns);
    return box;
  }

  function fill(box, item) {
    const head = node("div", "mb-item-head");
    head.append(node("span", item[OUTCOME] === "passed" ? "mb-ok" : "mb-fail", item[HEAD]));
    head.append(node("span", "mb-muted", item[WHERE]));
    box.append(head);
    if (item[ERROR]) box.append(node("p", "mb-error mb-text", item[ERROR]));
    for (const [question, expected, got] of item[QA]) {
      pairs(box, [["question", question], ["expected", expected], ["got", got, "mb-text"]]);
    }
    if (item[REASONS].length) {
      const reasons = node("ul", "mb-reasons");
      item[REASONS].forEach((reason) => reasons.append(node("li", null, reason)));
      box.append(reasons);
    }
    if (item[JUDGING]) box.append(node("p", "mb-muted", "by each judge: " + item[JUDGING]));
    if (item[DETAILS].length) box.append(details(item));
    box.append(transcript(item));
  }

  function row(item) {
    const box = node("details", "mb-item");
    box.id = item[ANCHOR];
    const summary = node("summary");
    const status = item[SCORE] === null ? "ERROR" : item[OUTCOME] === "passed" ? "PASSED" : "FAILED";
    const score = item[SCORE] === null ? "no score" : item[SCORE].toFixed(2);
    summary.append(scoreBar(item), " ", node("span", item[OUTCOME] === "passed" ? "mb-ok" : "mb-fail", status));
    summary.append(" " + item[NODEID] + " · " + score);
    if (item[PREVIEW]) summary.append(node("span", "mb-preview", item[PREVIEW]));
    box.append(summary);
    let filled = false;
    const open = () => {
      if (filled) return;
      filled = true;
      fill(box, item);
    };
    box.addEventListener("toggle", () => { if (box.open) open(); });
    if (item[OPEN] === 1) {
      box.open = true;
      open();
    }
    return box;
  }

  // a link to one item (compare.html links to report.html#item-…): draw it first if it is not shown
  function reveal() {
    const anchor = decodeURIComponent(location.hash.slice(1));
    if (!anchor.startsWith("item-")) return;
    let box = document.getElementById(anchor);
    if (!box) {
      const item = data.items.find((candidate) => candidate[ANCHOR] === anchor);
      if (!item) return;
      box = row(item);
      list.prepend(box);
    }
    box.open = true;
    box.scrollIntoView();
  }

  const list = mbPagedList({
    prefix: "mb-i",
    entries: data.items,
    noun: "items",
    place: (item) => [item[SUITE], item[SCENARIO], item[CATEGORY]],
    text,
    matches,
    controls: [outcome, errorKind],
    row,
  });
  window.addEventListener("hashchange", reveal);
  reveal();
  document.body.dataset.itemsMs = performance.now().toFixed(0); // from navigation to the first items shown
})();
