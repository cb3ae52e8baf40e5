// Drives Debian's headless Chromium (Puppeteer) through the profiler's HTML pages, as a user
// would: real mouse drags on the heatmap, clicks, right clicks. Each check prints "ok: ..." or
// "FAIL: ..."; the exit status is the number of failures (at most 100).
//   node views.js heatmap PAGE SWITCH_MS SHOTS   a recording of PhaseShift (phaseOne, then
//                                                phaseTwo from SWITCH_MS, epoch ms)
//   node views.js views PAGE SHOTS                reverse view and hidden frames on truth.collapsed
//   node views.js diff PAGE SHOTS                 the differential flame graph of diff_*.collapsed
//   node views.js labels PAGE SHOTS               the label selector on a profile of LabelShares
//                                                (endpoint=/a, /b, /c: 50/30/20 % of the CPU)
//   node views.js nolabels PAGE                   a page without labels has no label selector
// SHOTS: a folder for screenshots of each view.
"use strict";
const fs = require("fs");
const puppeteer = require("puppeteer-core");

let failures = 0;
function check(ok, what) {
  console.log((ok ? "ok: " : "FAIL: ") + what);
  if (!ok) failures++;
}

// The drawn frames: name -> {total, change, background}, of the widest frame of each name (a
// method can be drawn twice, interpreted and JIT-compiled; a busy machine compiles it later).
async function frames(page) {
  return page.$$eval("#graph .f", (els) => {
    const out = {};
    for (const e of els) {
      const seen = out[e.textContent];
      if (seen && seen.total >= Number(e.getAttribute("data-total"))) continue;
      out[e.textContent] = {
        total: Number(e.getAttribute("data-total")),
        change: e.hasAttribute("data-change") ? Number(e.getAttribute("data-change")) : null,
        background: getComputedStyle(e).backgroundColor,
        depth: Math.round(parseFloat(e.style.top) / 16),
        dim: e.classList.contains("dim"),
      };
    }
    return out;
  });
}

async function body(page, attribute) {
  return page.$eval("body", (b, a) => b.getAttribute(a), attribute);
}

async function open(browser, file, errors) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto("file://" + file);
  await page.waitForFunction(() => document.body.getAttribute("data-status") === "ok", { timeout: 30000 });
  return page;
}

// Drags the mouse over the heatmap's cells from time FROM_MS to TO_MS (epoch ms); SHIFT: as base.
async function dragRange(page, fromMs, toMs, shift) {
  const g = await page.$eval("#heatmap", (c) => {
    const r = c.getBoundingClientRect();
    return { left: r.left, top: r.top, w: Number(c.getAttribute("data-cell-width")), h: Number(c.getAttribute("data-cell-height")),
             per: Number(c.getAttribute("data-per-column")), cellMs: Number(c.getAttribute("data-cell-ms")),
             startMs: Number(c.getAttribute("data-start-ms")) };
  });
  const point = (ms) => {
    const cell = Math.floor((ms - g.startMs) / g.cellMs);
    const col = Math.floor(cell / g.per), row = cell % g.per;
    return { x: g.left + col * g.w + g.w / 2, y: g.top + row * g.h + g.h / 2, cell };
  };
  const a = point(fromMs), b = point(toMs);
  await page.evaluate(() => window.scrollTo(0, 0));
  if (shift) await page.keyboard.down("Shift");
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 5 });
  await page.mouse.up();
  if (shift) await page.keyboard.up("Shift");
  return [a.cell, b.cell];
}

async function heatmap(browser, file, switchMs, shots) {
  const errors = [];
  const page = await open(browser, file, errors);
  check(Number(await body(page, "data-cells")) > 0, "the page has a time view (" + (await body(page, "data-cells")) + " cells)");
  const cellMs = await page.$eval("#heatmap", (c) => Number(c.getAttribute("data-cell-ms")));
  check(cellMs > 0 && cellMs <= 20, "cells of " + cellMs + " ms (at most 20)");
  await page.screenshot({ path: shots + "/heatmap.png", fullPage: true });

  // A range well inside the second phase: its flame graph is phaseTwo's.
  const cells = await dragRange(page, switchMs + 700, switchMs + 1700, false);
  check((await body(page, "data-range")) === cells[0] + "-" + cells[1], "the drag selected cells " + cells.join("-"));
  let f = await frames(page);
  check(f["jvmkit.test.profiler.PhaseShift.phaseTwo"] !== undefined, "the range after the switch shows phaseTwo");
  check(f["jvmkit.test.profiler.PhaseShift.phaseOne"] === undefined, "... and not phaseOne");
  await page.screenshot({ path: shots + "/heatmap-range.png", fullPage: true });

  // A base in the first phase: the diff shows phaseTwo grown.
  const baseCells = await dragRange(page, switchMs - 1700, switchMs - 700, true);
  check((await body(page, "data-diff")) === "on", "a shift+drag sets a base: the flame graph is a diff");
  const where = "range " + (await body(page, "data-range")) + ", base " + (await body(page, "data-base-range")) +
      " (dragged " + baseCells.join("-") + ")";
  f = await frames(page);
  const two = f["jvmkit.test.profiler.PhaseShift.phaseTwo"];
  check(two && two.change > 50, "phaseTwo's share grew against the base (" + (two && two.change) + " points; " + where + ")");
  check(two && /^rgb\((\d+), (\d+), (\d+)\)$/.test(two.background) && Number(RegExp.$1) > Number(RegExp.$3),
        "phaseTwo is drawn red (" + (two && two.background) + ")");
  await page.screenshot({ path: shots + "/heatmap-diff.png", fullPage: true });

  // The first phase on its own.
  await page.click("#nobase");
  await dragRange(page, switchMs - 1700, switchMs - 700, false);
  f = await frames(page);
  check(f["jvmkit.test.profiler.PhaseShift.phaseOne"] !== undefined && f["jvmkit.test.profiler.PhaseShift.phaseTwo"] === undefined,
        "the range before the switch shows phaseOne and not phaseTwo");
  check((await body(page, "data-diff")) === "off", "Clear base ends the diff");
  check(errors.length === 0, "no script or console errors " + JSON.stringify(errors));
}

async function views(browser, file, shots) {
  const errors = [];
  const page = await open(browser, file, errors);
  let f = await frames(page);
  check(Number(await body(page, "data-total")) === 100, "the whole profile: 100 samples");
  await page.screenshot({ path: shots + "/flame.png", fullPage: true });

  // Reverse: the leaves are the roots, each with its callers.
  await page.click("#reverse");
  check((await body(page, "data-reversed")) === "on", "the Reverse box turns the reverse view on");
  f = await frames(page);
  check(f.leaf && f.leaf.depth === 1 && f.leaf.total === 90, "reversed: leaf is a root with 90 samples");
  check(f.other && f.other.depth === 1 && f.other.total === 10, "reversed: other is a root with 10 samples");
  const callers = await page.$$eval("#graph .f", (els) => els.filter((e) => Math.round(parseFloat(e.style.top) / 16) === 2)
      .map((e) => e.textContent + "=" + e.getAttribute("data-total")).sort().join(","));
  check(callers === "a=60,b=10,b=30", "reversed: the callers below the leaves: " + callers);
  await page.screenshot({ path: shots + "/reverse.png", fullPage: true });
  await page.click("#reverse");

  // Hide b's subtree with a right click: only a's samples are left.
  const handles = await page.$$("#graph .f");
  let target = null;
  for (const h of handles) if ((await h.evaluate((e) => e.textContent)) === "b") target = h;
  check(target !== null, "frame b is drawn");
  if (target) await target.click({ button: "right" });
  check((await body(page, "data-hidden")) === "b", "a right click hides b");
  f = await frames(page);
  check(f.b === undefined && f.other === undefined, "b and its subtree are gone");
  check(Number(await body(page, "data-total")) === 60 && f.a && f.a.total === 60, "60 samples left, all under a");
  await page.screenshot({ path: shots + "/hidden.png", fullPage: true });
  await page.click("#unhide");
  check(Number(await body(page, "data-total")) === 100, "Show hidden frames brings the 100 samples back");
  check(errors.length === 0, "no script or console errors " + JSON.stringify(errors));
}

async function diff(browser, file, shots) {
  const errors = [];
  const page = await open(browser, file, errors);
  check((await body(page, "data-diff")) === "on", "the page is a differential flame graph");
  const f = await frames(page);
  const red = (c) => /^rgb\((\d+), (\d+), (\d+)\)$/.test(c) && Number(RegExp.$1) > Number(RegExp.$3);
  check(f.a && Math.abs(f.a.change - 30) < 0.01 && red(f.a.background), "a grew by 30 points and is red (" + (f.a && f.a.change) + ")");
  check(f.b && Math.abs(f.b.change + 40) < 0.01 && !red(f.b.background), "b shrank by 40 points and is blue (" + (f.b && f.b.change) + ")");
  check(f.c && Math.abs(f.c.change - 10) < 0.01, "c, new, grew by 10 points");
  await page.screenshot({ path: shots + "/diff.png", fullPage: true });
  check(errors.length === 0, "no script or console errors " + JSON.stringify(errors));
}

// The page's embedded data (var DATA = {...}; on one line), read here in Node so that the
// expected trees do not come from the page's own code.
function pageData(file) {
  const m = /^var DATA = (.*);$/m.exec(fs.readFileSync(file, "utf8"));
  return m ? JSON.parse(m[1]) : null;
}

// The tree the label selector must show for CHOICE, from the first event's data ([name, type,
// total, self, kids]; the label frames, type 10, below the root, their labels in data.labels):
// "" every sample with the label frames merged away, "*" the tree as recorded, "k=v" the samples
// of the label sets that have it, their label frames merged away. Frames merge by name and type.
function expectedTree(data, choice) {
  const names = data.names, r = data.events[0].root;
  const fresh = (name, type) => ({ name, type, total: 0, kids: new Map() });
  const out = fresh(names[r[0]], r[1]);
  const into = (a, to) => {
    const key = a[1] + " " + names[a[0]];
    if (!to.kids.has(key)) to.kids.set(key, fresh(names[a[0]], a[1]));
    const k = to.kids.get(key);
    k.total += a[2];
    a[4].forEach((c) => into(c, k));
  };
  for (const k of r[4]) {
    const labels = k[1] === 10 ? data.labels[names[k[0]]] || [] : null;
    if (choice !== "" && choice !== "*" && !(labels && labels.includes(choice))) continue;
    out.total += k[2];
    if (labels && choice !== "*") k[4].forEach((c) => into(c, out));
    else into(k, out);
  }
  return out;
}

// A tree's frames of at least 1 % of its root, as "depth type name total", sorted: what the page
// must draw (it leaves out only frames narrower than half a pixel).
function framesOf(tree) {
  const out = [];
  (function walk(n, depth) {
    if (n.total * 100 < tree.total) return;
    out.push(depth + " t" + n.type + " " + n.name + " " + n.total);
    for (const k of n.kids.values()) walk(k, depth + 1);
  })(tree, 0);
  return out.sort();
}

// The drawn frames of at least 1 % of the drawn root (not the dimmed ancestors of a zoom), in
// framesOf's form.
async function drawnFrames(page) {
  return page.$$eval("#graph .f:not(.dim)", (els) => {
    const rows = els.map((e) => ({ depth: Math.round(parseFloat(e.style.top) / 16), type: /\bt(\d+)\b/.exec(e.className)[1],
                                   name: e.textContent, total: Number(e.getAttribute("data-total")) }));
    const all = rows.filter((r) => r.depth === 0).reduce((s, r) => s + r.total, 0);
    return rows.filter((r) => r.total * 100 >= all).map((r) => r.depth + " t" + r.type + " " + r.name + " " + r.total).sort();
  });
}

function sameFrames(drawn, expected, what) {
  const missing = expected.filter((f) => !drawn.includes(f)), extra = drawn.filter((f) => !expected.includes(f));
  check(missing.length === 0 && extra.length === 0 && expected.length > 3,
        what + ": the drawn frames are the expected tree's (" + expected.length + " frames of >= 1 %" +
        (missing.length ? "; missing " + JSON.stringify(missing.slice(0, 5)) : "") +
        (extra.length ? "; not expected " + JSON.stringify(extra.slice(0, 5)) : "") + ")");
}

// Chooses VALUE in the label selector as a user would; false when the page did not take it.
async function chooseLabel(page, value) {
  await page.select("#labels", value);
  const taken = await page.waitForFunction((v) => document.body.getAttribute("data-label") === v, { timeout: 10000 }, value)
      .then(() => true, () => false);
  check(taken, "the page shows the label choice \"" + value + "\" (data-label " + JSON.stringify(await body(page, "data-label")) + ")");
  return taken;
}

async function labels(browser, file, shots) {
  const errors = [];
  const data = pageData(file);
  check(data !== null, "the page embeds its data");
  if (!data) return;
  // Truth from the data: each label frame's samples.
  const counts = {};
  let labelled = 0;
  for (const k of data.events[0].root[4]) {
    if (k[1] !== 10) continue;
    counts[data.names[k[0]]] = k[2];
    labelled += k[2];
  }
  const all = data.events[0].root[2];
  check(JSON.stringify(Object.keys(counts).sort()) === '["[endpoint=/a]","[endpoint=/b]","[endpoint=/c]"]',
        "the data has the label frames of the three endpoints " + JSON.stringify(counts));
  check(labelled >= 500 && labelled <= all, labelled + " of " + all + " samples are labelled (at least 500)");
  check(JSON.stringify(data.labels) === JSON.stringify({ "[endpoint=/a]": ["endpoint=/a"], "[endpoint=/b]": ["endpoint=/b"],
                                                      "[endpoint=/c]": ["endpoint=/c"] }),
        "the data names each label frame's labels " + JSON.stringify(data.labels));

  const page = await open(browser, file, errors);
  const options = await page.$$eval("#labels option", (os) => os.map((o) => [o.value, o.textContent]));
  check(JSON.stringify(options) === JSON.stringify([["", "all labels"], ["*", "by label set"], ["endpoint=/a", "endpoint=/a"],
                                                    ["endpoint=/b", "endpoint=/b"], ["endpoint=/c", "endpoint=/c"]]),
        "the selector offers all labels, by label set and the three endpoints: " + JSON.stringify(options));
  const shown = await page.$eval("#labels", (s) => !s.hidden && s.getBoundingClientRect().width > 0 &&
                                 s.previousElementSibling && s.previousElementSibling.id === "event");
  check(shown, "the selector is shown, next to the event's");
  check((await body(page, "data-label")) === "" && Number(await body(page, "data-total")) === all,
        "by default all labels: the whole profile, " + all + " samples (" + (await body(page, "data-total")) + ")");
  sameFrames(await drawnFrames(page), framesOf(expectedTree(data, "")), "all labels");
  check((await drawnFrames(page)).every((f) => !/^\d+ t10 /.test(f)), "all labels: no label frame is drawn");
  await page.screenshot({ path: shots + "/labels-all.png", fullPage: true });

  // One endpoint: only its samples, under the root, without any label frame.
  let sum = 0;
  for (const endpoint of ["/a", "/b", "/c"]) {
    await chooseLabel(page, "endpoint=" + endpoint);
    const want = counts["[endpoint=" + endpoint + "]"];
    const got = Number(await body(page, "data-total"));
    sum += got;
    check(got === want && got < all, "endpoint=" + endpoint + ": " + got + " samples, its label frame's " + want + " (of " + all + ")");
    const drawn = await drawnFrames(page);
    sameFrames(drawn, framesOf(expectedTree(data, "endpoint=" + endpoint)), "endpoint=" + endpoint);
    // A label frame is of type t10 and reads "[key=value,...]" (native frames' markers, such as
    // "[java_unwalkable]", are bracketed too, but hold no "=").
    const labelFrames = await page.$$eval("#graph .f", (els) => els.filter((e) => e.classList.contains("t10") || /^\[[^\]]*=/.test(e.textContent)).length);
    check(labelFrames === 0, "endpoint=" + endpoint + ": no label frame drawn, none of another endpoint (" + labelFrames + ")");
    if (endpoint === "/a") await page.screenshot({ path: shots + "/labels-a.png", fullPage: true });
  }
  check(sum === labelled, "the three endpoints' totals add up to the labelled samples (" + sum + " of " + labelled + ")");

  // The label sets as root frames, with the workload's shares.
  await chooseLabel(page, "*");
  check(Number(await body(page, "data-total")) === all, "by label set: the whole profile, " + all + " samples");
  const roots = await page.$$eval("#graph .f.t10", (els) => els.filter((e) => Math.round(parseFloat(e.style.top) / 16) === 1)
      .map((e) => [e.textContent, Number(e.getAttribute("data-total"))]));
  check(JSON.stringify(roots.map((r) => r[0]).sort()) === '["[endpoint=/a]","[endpoint=/b]","[endpoint=/c]"]',
        "by label set: three root label frames " + JSON.stringify(roots));
  const truth = { "[endpoint=/a]": 0.5, "[endpoint=/b]": 0.3, "[endpoint=/c]": 0.2 };
  const drawnSum = roots.reduce((s, r) => s + r[1], 0);
  for (const [name, total] of roots) {
    const share = drawnSum > 0 ? total / drawnSum : 0;
    check(total === counts[name] && Math.abs(share - truth[name]) <= 0.05,
          "by label set: " + name + " has " + total + " samples (data: " + counts[name] + "), a share of " + share.toFixed(3) +
          " of the labelled ones (truth " + truth[name] + " +- 0.05)");
  }
  sameFrames(await drawnFrames(page), framesOf(expectedTree(data, "*")), "by label set");
  await page.screenshot({ path: shots + "/labels-sets.png", fullPage: true });

  // Back to all labels: the whole profile again.
  await chooseLabel(page, "");
  check(Number(await body(page, "data-total")) === all, "back to all labels: " + (await body(page, "data-total")) + " samples, all " + all);
  sameFrames(await drawnFrames(page), framesOf(expectedTree(data, "")), "all labels again");
  check(errors.length === 0, "no script or console errors " + JSON.stringify(errors));
}

async function nolabels(browser, file) {
  const errors = [];
  const page = await open(browser, file, errors);
  check((await page.$("#labels")) === null, "a page without labels has no label selector");
  check((await body(page, "data-labels")) === null && (await body(page, "data-label")) === null, "... and no label state");
  check(Number(await body(page, "data-total")) > 0, "... and draws its " + (await body(page, "data-total")) + " samples");
  check(errors.length === 0, "no script or console errors " + JSON.stringify(errors));
}

(async () => {
  const [mode, file] = process.argv.slice(2);
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
  try {
    if (mode === "heatmap") await heatmap(browser, file, Number(process.argv[4]), process.argv[5]);
    else if (mode === "views") await views(browser, file, process.argv[4]);
    else if (mode === "diff") await diff(browser, file, process.argv[4]);
    else if (mode === "labels") await labels(browser, file, process.argv[4]);
    else if (mode === "nolabels") await nolabels(browser, file);
    else check(false, "unknown mode " + mode);
  } catch (e) {
    check(false, "the test broke: " + (e && e.stack ? e.stack : e));
  } finally {
    await browser.close();
  }
  process.exit(Math.min(failures, 100));
})();
