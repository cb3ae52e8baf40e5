// Drives Debian's headless Chromium (Puppeteer) through the profiler's HTML pages, as a user
// would: real mouse drags on the heatmap, clicks, right clicks. Each check prints "ok: ..." or
// "FAIL: ..."; the exit status is the number of failures (at most 100).
//   node views.js heatmap PAGE SWITCH_MS SHOTS   a recording of PhaseShift (phaseOne, then
//                                                phaseTwo from SWITCH_MS, epoch ms)
//   node views.js views PAGE SHOTS                reverse view and hidden frames on truth.collapsed
//   node views.js diff PAGE SHOTS                 the differential flame graph of diff_*.collapsed
// SHOTS: a folder for screenshots of each view.
"use strict";
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
    else check(false, "unknown mode " + mode);
  } catch (e) {
    check(false, "the test broke: " + (e && e.stack ? e.stack : e));
  } finally {
    await browser.close();
  }
  process.exit(Math.min(failures, 100));
})();
