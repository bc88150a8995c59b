// Loads an HTML report in headless Chromium over the DevTools protocol (through
// --remote-debugging-pipe, no extra package), fails on any console error, uncaught exception
// or network request that is not a local file, checks what a reader needs (the outline, the
// coloured lines, a badge whose link leads to a test), and saves a screenshot.
// Usage: node check_page.mjs PAGE.html SCREENSHOT.png [CHECKS]
//   CHECKS: "coverage" (default), "metamorphic", "concolic" (the --report page) or "diff"
//   (the page of `lexprobe diff --report`).
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const [page, shot, kind = "coverage"] = process.argv.slice(2);
if (!page || !shot) {
  console.error("usage: node check_page.mjs PAGE.html SCREENSHOT.png [coverage|metamorphic|concolic|diff]");
  process.exit(2);
}
const url = "file://" + resolve(page);
const browser = process.env.CHROMIUM || "chromium";
const profile = mkdtempSync(join(tmpdir(), "lexprobe-browser-"));
const chrome = spawn(
  browser,
  [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--user-data-dir=" + profile, "--remote-debugging-pipe", "--window-size=1400,900",
    "about:blank",
  ],
  { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
);
chrome.stderr.on("data", () => {});
const toBrowser = chrome.stdio[3];
const fromBrowser = chrome.stdio[4];

let nextId = 1;
const waiting = new Map();
const listeners = [];
let buffer = Buffer.alloc(0);
fromBrowser.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  let end;
  while ((end = buffer.indexOf(0)) >= 0) {
    const message = JSON.parse(buffer.subarray(0, end).toString("utf8"));
    buffer = buffer.subarray(end + 1);
    if (message.id && waiting.has(message.id)) {
      const { ok, fail } = waiting.get(message.id);
      waiting.delete(message.id);
      message.error ? fail(new Error(JSON.stringify(message.error))) : ok(message.result);
    } else {
      for (const l of listeners) l(message);
    }
  }
});
function send(method, params = {}, sessionId) {
  const id = nextId++;
  toBrowser.write(JSON.stringify({ id, method, params, sessionId }) + "\0");
  return new Promise((ok, fail) => waiting.set(id, { ok, fail }));
}

const problems = [];
const timer = setTimeout(() => {
  console.error("timed out");
  chrome.kill();
  process.exit(1);
}, 60000);

try {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  let loaded;
  const loadedPromise = new Promise((ok) => (loaded = ok));
  listeners.push((m) => {
    if (m.sessionId !== sessionId) return;
    if (m.method === "Runtime.consoleAPICalled" && ["error", "assert"].includes(m.params.type))
      problems.push("console " + m.params.type + ": " + JSON.stringify(m.params.args.map((a) => a.value)));
    if (m.method === "Runtime.exceptionThrown")
      problems.push("exception: " + m.params.exceptionDetails.text);
    if (m.method === "Log.entryAdded" && m.params.entry.level === "error")
      problems.push("log error: " + m.params.entry.text + " " + (m.params.entry.url || ""));
    if (m.method === "Network.requestWillBeSent") {
      const u = m.params.request.url;
      if (!u.startsWith("file://") && !u.startsWith("data:") && u !== "about:blank")
        problems.push("network request: " + u);
    }
    if (m.method === "Page.loadEventFired") loaded();
  });
  for (const domain of ["Runtime", "Log", "Network", "Page"]) await send(domain + ".enable", {}, sessionId);
  await send("Emulation.setDeviceMetricsOverride", { width: 1400, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
  const started = Date.now();
  await send("Page.navigate", { url }, sessionId);
  await loadedPromise;
  const loadMs = Date.now() - started;
  const evaluate = async (expression) =>
    (await send("Runtime.evaluate", { expression, returnByValue: true }, sessionId)).result.value;
  let facts;
  if (kind === "metamorphic") {
    facts = await evaluate(`({
      relations: document.querySelectorAll("section.relation, .relation").length,
      svgTrees: document.querySelectorAll("svg").length,
      pairs: document.querySelectorAll("table.pair").length,
      highlighted: document.querySelectorAll("table.pair .diff").length,
    })`);
    if (facts.relations === 0) problems.push("no relation section");
  } else if (kind === "concolic") {
    facts = await evaluate(`(() => {
      const link = document.querySelector(".problem a[href^='#test-']");
      const target = link && document.getElementById(link.getAttribute("href").slice(1));
      return {
        problems: document.querySelectorAll(".problem").length,
        conditions: document.querySelectorAll(".problem .condition").length,
        coverageRows: document.querySelectorAll("#coverage + p + table tr").length - 1,
        testRows: document.querySelectorAll("tr[id^='test-']").length,
        exampleLeadsToTest: !link || !!(target && target.querySelector("td")),
      };
    })()`);
    if (facts.testRows === 0) problems.push("no test row");
    if (facts.coverageRows <= 0) problems.push("no law coverage row");
    if (!facts.exampleLeadsToTest) problems.push("a problem's first test leads nowhere");
  } else if (kind === "diff") {
    facts = await evaluate(`(() => {
      const links = [...document.querySelectorAll(".region a[href^='#new-L'], .region a[href^='#old-L'], #changed-headings + ul a")];
      const broken = links.filter((a) => !document.getElementById(a.getAttribute("href").slice(1)));
      // Each file pair (a .sides block): two sides with as many rows, each row beside its pair.
      const pairs = [...document.querySelectorAll(".sides")].map((p) => [...p.querySelectorAll(":scope > .side")]);
      const rows = pairs.map((sides) => sides.map((s) => s.querySelectorAll(".r").length));
      const misaligned = pairs.reduce((n, sides) => {
        if (sides.length !== 2) return n + 1;
        const tops = sides.map((s) => [...s.querySelectorAll(".r")].map((r) => Math.round(r.getBoundingClientRect().top)));
        return n + tops[0].filter((t, k) => t !== tops[1][k]).length;
      }, 0);
      return {
        verdict: (document.querySelector(".verdict") || {}).textContent || "",
        regions: document.querySelectorAll(".region").length,
        links: links.length,
        brokenLinks: broken.map((a) => a.getAttribute("href")),
        rows,
        marked: document.querySelectorAll(".r.chg, .r.add, .r.del").length,
        misaligned,
      };
    })()`);
    if (!facts.verdict.startsWith("Verdict:")) problems.push("no verdict");
    if (facts.brokenLinks.length > 0) problems.push("links lead nowhere: " + facts.brokenLinks.join(" "));
    if (facts.rows.length === 0) problems.push("no law text");
    if (facts.rows.some((r) => r.length !== 2 || r[0] !== r[1])) problems.push("the two sides of a file do not have as many rows");
    if (facts.misaligned !== 0) problems.push("rows of the two sides are not side by side: " + facts.misaligned);
  } else {
    facts = await evaluate(`(() => {
      const badge = document.querySelector(".b a[href^='#t']");
      const target = badge && document.getElementById(badge.getAttribute("href").slice(1));
      return {
        outline: document.querySelectorAll("nav#outline li").length,
        applied: document.querySelectorAll(".l.a").length,
        considered: document.querySelectorAll(".l.c").length,
        notReached: document.querySelectorAll(".l.u").length,
        badgeLeadsToTest: !!(target && target.querySelector("pre")),
        tableRows: document.querySelectorAll("#table tr").length - 1,
      };
    })()`);
    if (facts.outline === 0) problems.push("no outline");
    if (facts.applied + facts.considered + facts.notReached === 0) problems.push("no coloured line");
    if (facts.applied > 0 && !facts.badgeLeadsToTest) problems.push("a test badge leads nowhere");
  }
  const { data } = await send("Page.captureScreenshot", { format: "png" }, sessionId);
  writeFileSync(shot, Buffer.from(data, "base64"));
  // A second screenshot at the first failing pair (metamorphic), the law coverage (concolic),
  // the law text (diff) or problem mark / test badge (coverage): SCREENSHOT-detail.png.
  const detail =
    kind === "metamorphic" ? "table.pair" : kind === "concolic" ? "#coverage" : kind === "diff" ? "#law" : "a.p, .b a";
  const found = await evaluate(`(() => { const e = document.querySelector(${JSON.stringify(detail)});
    if (!e) return false; e.scrollIntoView({block: "center"}); return true; })()`);
  if (found) {
    await new Promise((ok) => setTimeout(ok, 200));
    const second = await send("Page.captureScreenshot", { format: "png" }, sessionId);
    writeFileSync(shot.replace(/\.png$/, "") + "-detail.png", Buffer.from(second.data, "base64"));
  }
  // Let late console messages arrive.
  await new Promise((ok) => setTimeout(ok, 300));
  console.log(JSON.stringify({ page, bytes: statSync(page).size, loadMs, facts, problems }));
} catch (e) {
  problems.push(String(e));
  console.log(JSON.stringify({ page, problems }));
} finally {
  clearTimeout(timer);
  try { await send("Browser.close"); } catch {}
  chrome.kill();
}
process.exit(problems.length === 0 ? 0 : 1);
