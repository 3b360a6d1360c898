// compare.html's side-by-side questions: filters, a text search, and rows rendered a page at a time
// (by paged_list.js, which comes first in the page's script).
// Every text from the runs goes in with textContent, never as markup: an agent's reply cannot
// become part of the page.  The page's Content-Security-Policy lets this script run and no other.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("mb-q-data").textContent);
  const outcome = document.getElementById("mb-q-outcome");
  const loss = document.getElementById("mb-q-loss");
  const verdicts = Array.from(document.querySelectorAll(".mb-q-verdict"));
  // an item: [nodeid, suite, scenario, category, questions, expected, answers]
  // an answer: [score, passed, responses, reasons, recall, memory indices, judging, judges disagree,
  //             where it was lost, precision]
  const NODEID = 0, SUITE = 1, SCENARIO = 2, CATEGORY = 3, QUESTIONS = 4, EXPECTED = 5, ANSWERS = 6;
  const node = mbNode;

  function text(item) {
    const answers = item[ANSWERS].map((answer) => answer[2].join(" "));
    return [item[NODEID], ...item[QUESTIONS], ...item[EXPECTED], ...answers].join("\n");
  }

  function matches(item) {
    const passed = item[ANSWERS].map((answer) => answer[1] === 1);
    if (outcome.value === "disagree" && passed.every((value) => value === passed[0])) return false;
    if (outcome.value === "all right" && !passed.every(Boolean)) return false;
    if (outcome.value === "all wrong" && passed.some(Boolean)) return false;
    if (outcome.value === "judges disagree" && !item[ANSWERS].some((answer) => answer[7] === 1)) return false;
    if (loss.value && !item[ANSWERS].some((answer) => answer[8] === loss.value)) return false;
    for (const select of verdicts) {
      if (select.value && passed[Number(select.dataset.run)] !== (select.value === "right")) return false;
    }
    return true;
  }

  function chips(item) {
    const span = node("span");
    item[ANSWERS].forEach((answer, index) => {
      const right = answer[1] === 1;
      const chip = node("span", "mb-q-chip " + (right ? "mb-right" : "mb-wrong"), data.runs[index].letter);
      chip.title = data.runs[index].label + ": " + (right ? "right" : "wrong") + ", score " + answer[0].toFixed(2);
      span.append(chip);
    });
    return span;
  }

  function pairs(parent, label, texts) {
    const list = node("dl", "mb-qa");
    texts.forEach((text) => list.append(node("dt", null, label), node("dd", null, text)));
    parent.append(list);
  }

  function runCard(item, answer, index) {
    const run = data.runs[index];
    const card = node("div", "mb-q-run");
    card.dataset.run = run.letter;
    const right = answer[1] === 1;
    const head = node("h4");
    head.append(node("span", "mb-q-chip " + (right ? "mb-right" : "mb-wrong"), run.letter), node("span", null, run.label + " · "));
    head.append(node("span", right ? "mb-ok" : "mb-fail", (right ? "right" : "wrong") + " " + answer[0].toFixed(2)));
    card.append(head);
    pairs(card, "answer", answer[2].length ? answer[2] : ["(no reply)"]);
    if (answer[3].length) {
      const reasons = node("ul", "mb-reasons mb-q-reasons");
      answer[3].forEach((reason) => reasons.append(node("li", "mb-text", reason)));
      card.append(reasons);
    }
    if (answer[6]) card.append(node("div", "mb-muted mb-q-judging", "by each judge: " + answer[6]));
    if (answer[4] !== null) {
      const where = answer[8] ? " · " + loss.querySelector(`option[value="${answer[8]}"]`).textContent : "";
      const precision = answer[9] == null ? "" : ", precision " + answer[9].toFixed(2);
      card.append(node("div", "mb-muted", "evidence recall " + answer[4].toFixed(2) + precision + where));
    }
    if (answer[5].length) {
      card.append(node("div", "mb-muted", "memories its search returned, best first"));
      const memories = node("ol", "mb-q-memories");
      answer[5].forEach((at) => memories.append(node("li", "mb-text", data.memories[at])));
      card.append(memories);
    }
    if (run.report) {
      const link = node("a", null, "transcript in " + run.letter + "'s report");
      link.href = run.report + "#item-" + encodeURIComponent(item[NODEID].split(/\s+/).join("_"));
      card.append(link);
    }
    return card;
  }

  function row(item) {
    const details = node("details", "mb-item mb-q-item");
    details.dataset.nodeid = item[NODEID];
    const summary = node("summary");
    const where = item[SCENARIO] + (item[CATEGORY] ? " · " + item[CATEGORY] : "");
    summary.append(chips(item), node("span", null, item[NODEID] + " "), node("span", "mb-muted", where));
    summary.append(node("div", "mb-text", item[QUESTIONS].join(" / ")));
    details.append(summary);
    details.addEventListener("toggle", function fill() {
      if (!details.open) return;
      details.removeEventListener("toggle", fill);
      pairs(details, "question", item[QUESTIONS]);
      pairs(details, "expected", item[EXPECTED]);
      const runs = node("div", "mb-q-runs");
      item[ANSWERS].forEach((answer, index) => runs.append(runCard(item, answer, index)));
      details.append(runs);
    });
    return details;
  }

  mbPagedList({
    prefix: "mb-q",
    entries: data.items,
    noun: "questions",
    place: (item) => [item[SUITE], item[SCENARIO], item[CATEGORY]],
    text,
    matches,
    controls: [outcome, loss, ...verdicts],
    row,
  });
  document.body.dataset.questionsMs = performance.now().toFixed(0); // from navigation to the first page shown
})();
