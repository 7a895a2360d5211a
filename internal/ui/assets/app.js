// The dashboard of a running crawl: it polls /api/status every two
// seconds and draws what it says. No library: canvas charts of its own.
// Each number shown carries its raw value in data-value, and each chart
// the number of points or bars it drew in data-points, for the tests.
"use strict";

const blue = "#1f77b4", orange = "#ff7f0e", grey = "#7f7f7f";

function show(id, value, text) {
  const el = document.getElementById(id);
  el.dataset.value = value;
  el.textContent = text;
}

function fmtInt(n) { return Number(n).toLocaleString("en-US"); }

function fmtDuration(s) {
  if (!(s > 0)) return "0 s";
  if (s < 120) return s.toFixed(1) + " s";
  if (s < 7200) return (s / 60).toFixed(1) + " min";
  if (s < 172800) return (s / 3600).toFixed(1) + " h";
  return (s / 86400).toFixed(1) + " d";
}

function fmtTime(t) {
  if (!t) return "–";
  return new Date(t).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}

// frame draws the axes of a chart and returns the mapping of data to
// pixels; y is linear over [y0, y1], x over [x0, x1].
function frame(ctx, w, h, x0, x1, y0, y1, yfmt) {
  const left = 48, right = 52, top = 8, bottom = 22;
  ctx.clearRect(0, 0, w, h);
  ctx.strokeStyle = "#ccc";
  ctx.fillStyle = "#555";
  ctx.font = "11px system-ui, sans-serif";
  ctx.lineWidth = 1;
  for (let i = 0; i <= 4; i++) {
    const v = y0 + (y1 - y0) * i / 4;
    const y = top + (h - top - bottom) * (1 - i / 4);
    ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(w - right, y); ctx.stroke();
    ctx.fillText(yfmt(v), 2, y + 4);
  }
  return {
    x: v => left + (w - left - right) * (x1 > x0 ? (v - x0) / (x1 - x0) : 0.5),
    y: v => top + (h - top - bottom) * (1 - (y1 > y0 ? (v - y0) / (y1 - y0) : 0.5)),
    left, right, top, bottom,
  };
}

function line(ctx, pts, colour, dashed) {
  if (pts.length === 0) return;
  ctx.strokeStyle = colour;
  ctx.lineWidth = 2;
  ctx.setLineDash(dashed ? [6, 4] : []);
  ctx.beginPath();
  pts.forEach(([x, y], i) => i ? ctx.lineTo(x, y) : ctx.moveTo(x, y));
  ctx.stroke();
  ctx.setLineDash([]);
}

function timeAxis(ctx, f, w, h, t0, t1) {
  ctx.fillStyle = "#555";
  const span = (t1 - t0) / 1000;
  ctx.fillText("-" + fmtDuration(span), f.left, h - 6);
  ctx.fillText("now", w - f.right - 20, h - 6);
}

function drawSeries(id, series, lines, ymax, yfmt) {
  const c = document.getElementById(id), ctx = c.getContext("2d");
  const ts = series.map(s => Date.parse(s.at));
  const t0 = ts.length ? ts[0] : 0, t1 = ts.length ? ts[ts.length - 1] : 1;
  const f = frame(ctx, c.width, c.height, t0, t1, 0, ymax, yfmt);
  let drawn = 0;
  for (const [get, colour, dashed] of lines) {
    const pts = [];
    series.forEach((s, i) => { const v = get(s); if (v !== null && v !== undefined) pts.push([f.x(ts[i]), f.y(v)]); });
    line(ctx, pts, colour, dashed);
    drawn += pts.length;
  }
  timeAxis(ctx, f, c.width, c.height, t0, t1);
  c.dataset.points = drawn;
}

function drawRates(rates) {
  const c = document.getElementById("chart-rates"), ctx = c.getContext("2d");
  const est = rates.filter(b => b.hi_per_day > 0);
  const none = rates.filter(b => b.hi_per_day === 0).reduce((a, b) => a + b.pages, 0);
  const ymax = Math.max(1, ...est.map(b => b.pages));
  // At least eight octaves wide, so that one bucket is a bar, not a wall.
  let lo = est.length ? Math.log2(est[0].lo_per_day) : 0;
  let hi = est.length ? Math.log2(est[est.length - 1].hi_per_day) : 8;
  const pad = Math.max(0, (8 - (hi - lo)) / 2);
  lo -= pad; hi += pad;
  const f = frame(ctx, c.width, c.height, lo, hi, 0, ymax, v => fmtInt(Math.round(v)));
  const bw = Math.max(2, f.x(lo + 1) - f.x(lo) - 1);
  ctx.fillStyle = blue;
  for (const b of est) {
    const x = f.x(Math.log2(b.lo_per_day)), y = f.y(b.pages);
    ctx.fillRect(x, y, bw, f.y(0) - y);
  }
  // The interval curve, on a log scale of its own at the right.
  const iv = est.filter(b => b.interval_seconds > 0);
  let curve = 0;
  if (iv.length) {
    const l0 = Math.log10(Math.min(...iv.map(b => b.interval_seconds))) - 0.1;
    const l1 = Math.log10(Math.max(...iv.map(b => b.interval_seconds))) + 0.1;
    const yl = v => f.top + (c.height - f.top - f.bottom) * (1 - (Math.log10(v) - l0) / (l1 - l0));
    const pts = iv.map(b => [f.x(Math.log2(b.lo_per_day) + 0.5), yl(b.interval_seconds)]);
    line(ctx, pts, orange, false);
    ctx.fillStyle = orange;
    for (const [x, y] of pts) { ctx.beginPath(); ctx.arc(x, y, 3, 0, 2 * Math.PI); ctx.fill(); }
    curve = pts.length;
    ctx.fillStyle = orange;
    ctx.fillText(fmtDuration(Math.pow(10, l1)), c.width - f.right + 4, f.top + 8);
    ctx.fillText(fmtDuration(Math.pow(10, l0)), c.width - f.right + 4, c.height - f.bottom);
  }
  ctx.fillStyle = "#555";
  const perDay = v => v >= 1 ? v.toPrecision(2) + "/day" : (1 / v).toPrecision(2) + " days";
  ctx.fillText(perDay(Math.pow(2, lo)), f.left, c.height - 6);
  ctx.fillText(perDay(Math.pow(2, hi)), c.width - f.right - 60, c.height - 6);
  if (none) ctx.fillText(fmtInt(none) + " pages not estimated yet", f.left + 90, f.top + 12);
  c.dataset.points = est.length;
  c.dataset.curve = curve;
}

function rows(id, items, cells) {
  const body = document.querySelector("#" + id + " tbody");
  body.replaceChildren(...items.map(it => {
    const tr = document.createElement("tr");
    for (const [text, cls] of cells(it)) {
      const td = document.createElement("td");
      td.textContent = text;
      if (cls) td.className = cls;
      tr.appendChild(td);
    }
    return tr;
  }));
  body.dataset.rows = items.length;
}

function render(d) {
  const l = d.live, series = d.series || [];
  const last = series.length ? series[series.length - 1] : null;
  document.body.dataset.liveAt = l.at;
  document.body.dataset.updates = (Number(document.body.dataset.updates) || 0) + 1;
  show("policy", l.policy, "policy " + l.policy + (l.objective ? " (" + l.objective + ")" : ""));
  show("updated", l.at, "as of " + fmtTime(l.at));
  show("held", l.pages_held, fmtInt(l.pages_held));
  const rate = last ? last.fetches_per_second : 0;
  show("rate", rate, rate.toFixed(1) + (l.budget_per_second > 0 ? " (" + l.budget_per_second + ")" : " (no budget)"));
  show("budget-used", l.budget_used, l.budget_per_second > 0 ? (100 * l.budget_used).toFixed(1) + " %" : "–");
  const planned = l.expected_freshness !== null && l.expected_freshness !== undefined;
  show("expected", planned ? l.expected_freshness : "", planned ? l.expected_freshness.toFixed(3) : "–");
  show("age", planned ? l.expected_age_seconds : "", planned ? fmtDuration(l.expected_age_seconds) : "–");
  show("queued", l.urls_queued, fmtInt(l.urls_queued));
  show("requests", l.requests, fmtInt(l.requests));
  show("changed", l.changes_found, fmtInt(l.changes_found));
  show("failures", l.failures, fmtInt(l.failures));
  const hasTruth = l.true_freshness !== undefined;
  document.getElementById("truth-tile").hidden = !hasTruth;
  document.getElementById("truth-caption").hidden = !hasTruth;
  if (hasTruth) show("truth", l.true_freshness, l.true_freshness.toFixed(3));

  const ymax = Math.max(1, l.budget_per_second, ...series.map(s => s.fetches_per_second)) * 1.1;
  drawSeries("chart-rate", series, [[s => s.fetches_per_second, blue], [s => s.budget_per_second || null, grey, true]],
    ymax, v => v.toFixed(0));
  drawSeries("chart-fresh", series, [[s => s.expected_freshness, blue], [s => s.true_freshness, orange]],
    1, v => v.toFixed(2));
  drawRates(d.rates || []);

  const hs = d.host_states;
  show("host-states", hs.all, fmtInt(hs.all) + " hosts: " + hs.busy + " busy, " + hs.waiting + " waiting on their delay, " +
    hs.ready + " ready, " + hs.backing_off + " backing off, " + hs.idle + " idle; robots.txt available on " +
    d.robots.available + ", none on " + d.robots.unavailable + ", unreachable on " + d.robots.unreachable);
  rows("hosts", d.hosts || [], h => [[h.name], [fmtInt(h.urls_queued)], [fmtTime(h.next_revisit)],
    [fmtDuration(h.delay_seconds)], [String(h.consecutive_failures)],
    [h.state.replace("_", " ")], [h.robots]]);
  rows("errors", (d.errors || []).slice().reverse(), e => [[fmtTime(e.at)], [e.status ? String(e.status) : "network"],
    [e.reason], [e.url, "url"]]);
  const st = d.status;
  document.getElementById("status-line").textContent = st ?
    "Data directory " + st.dir + " (read " + fmtTime(d.status_at) + "): " + fmtInt(st.urls_seen) + " URLs seen, " +
    fmtInt(st.page_rows) + " page rows, " + fmtInt(st.revisits_scheduled) + " revisits scheduled, " +
    st.warc.files + " WARC files." : (d.status_error || "");
}

async function poll() {
  try {
    const r = await fetch("api/status", { cache: "no-store" });
    if (r.ok) render(await r.json());
    else document.getElementById("updated").textContent = "error " + r.status;
  } catch (e) {
    document.getElementById("updated").textContent = "crawl not answering (" + e.message + ")";
  }
}

poll();
setInterval(poll, 2000);
