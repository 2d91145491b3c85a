// The board's charts: each player's running total over the deals (an SVG line each),
// and the points each player lost to mistakes (bars).  Drawn from numbers the server
// sent; nothing here knows a rule.

import { t } from "./strings.js";

const SVG = "http://www.w3.org/2000/svg";
/** One colour per seat, told apart on the dark page and by the legend's names. */
export const SEAT_COLOURS = ["#f2c14e", "#7cc4ff", "#ff9de2", "#8fe3a0"];

function svg(tag, attributes = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The running totals after each deal (0 before the first), one line per seat; the
 * deal shown now marked. */
export function renderTotals(box, board, names, current) {
  const series = [0, 1, 2, 3].map((seat) => [0, ...board.deals.filter((d) => d.complete).map((d) => d.totals[seat])]);
  const values = series.flat();
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const span = high - low || 1;
  const width = 320;
  const height = 170;
  const pad = { left: 40, right: 8, top: 8, bottom: 20 };
  const deals = Math.max(series[0].length - 1, 1);
  const x = (i) => pad.left + (i / deals) * (width - pad.left - pad.right);
  const y = (v) => pad.top + ((high - v) / span) * (height - pad.top - pad.bottom);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart-svg" });
  chart.setAttribute("aria-label", t("analysis.chartLabel"));
  for (const v of [low, 0, high]) {
    chart.append(svg("line", { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: v === 0 ? "axis zero" : "axis" }));
    const label = svg("text", { x: pad.left - 4, y: y(v) + 4, class: "tick", "text-anchor": "end" });
    label.textContent = String(Math.round(v));
    chart.append(label);
  }
  for (const i of [0, Math.round(deals / 2), deals]) {
    const label = svg("text", { x: x(i), y: height - 4, class: "tick", "text-anchor": "middle" });
    label.textContent = String(i);
    chart.append(label);
  }
  const marker = Math.min(current + 1, deals);
  chart.append(svg("line", { x1: x(marker), x2: x(marker), y1: pad.top, y2: height - pad.bottom, class: "now" }));
  series.forEach((points, seat) => {
    const line = svg("polyline", {
      points: points.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
      stroke: SEAT_COLOURS[seat],
      class: "series",
      "data-seat": seat,
      "data-values": points.join(","),
    });
    chart.append(line);
  });
  const legend = el("ul", "chart-legend");
  names.forEach((name, seat) => {
    const item = el("li");
    const swatch = el("span", "swatch");
    swatch.style.background = SEAT_COLOURS[seat];
    item.append(swatch, el("span", "", name), el("span", "num", String(series[seat].at(-1))));
    legend.append(item);
  });
  box.replaceChildren(chart, legend);
}

/** Bars of the points each player lost to mistakes, in the game and in this deal. */
export function renderLost(box, analysis, names, current) {
  box.replaceChildren();
  if (!analysis) {
    box.append(el("p", "muted small", t("analysis.notYet")));
    return;
  }
  const most = Math.max(1, ...analysis.lost);
  const inDeal = analysis.deals[current]?.lost ?? [0, 0, 0, 0];
  names.forEach((name, seat) => {
    const row = el("div", "lost-row");
    row.dataset.seat = String(seat);
    row.dataset.lost = String(analysis.lost[seat]);
    row.dataset.dealLost = String(inDeal[seat]);
    const bar = el("span", "lost-bar");
    bar.style.width = `${(100 * analysis.lost[seat]) / most}%`;
    bar.style.background = SEAT_COLOURS[seat];
    const track = el("span", "lost-track");
    track.append(bar);
    row.append(
      el("span", "lost-name", name),
      track,
      el("span", "num", t("analysis.lostValue", { all: fixed(analysis.lost[seat]), deal: fixed(inDeal[seat]) })),
    );
    box.append(row);
  });
}

/** A number of points with one decimal, as the page's language writes it. */
export function fixed(value) {
  return new Intl.NumberFormat(document.documentElement.lang || "en", {
    minimumFractionDigits: 1,
    maximumFractionDigits: 1,
  }).format(value);
}
