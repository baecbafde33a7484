// The history chart, SVG drawn by hand: each broker's line, the band the
// network distribution goals hold brokers within (the mean of the brokers
// that reported, times 1 +- the allowed deviation), and the actions planned
// as vertical marks (the line from planned to ended). No library.
"use strict";

const BallastChart = (() => {
  const svgNs = "http://www.w3.org/2000/svg";
  const width = 640, height = 220, left = 64, right = 10, top = 10, bottom = 22;
  const palette = ["#2b6cb0", "#c05621", "#2f855a", "#b83280", "#6b46c1", "#975a16", "#2c7a7b", "#c53030"];

  function colorOf(index) { return palette[index % palette.length]; }

  function element(name, attributes, parent) {
    const node = document.createElementNS(svgNs, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
    if (parent) parent.appendChild(node);
    return node;
  }

  function titled(node, text) {
    element("title", {}, node).textContent = text;
    return node;
  }

  function bytesText(value) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let unit = 0;
    while (Math.abs(value) >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
    return (value >= 100 || unit === 0 ? value.toFixed(0) : value.toFixed(1)) + " " + units[unit];
  }

  // history: GET /v1/brokers/history's answer; column: 1 (in) or 2 (out);
  // brokerIds: the order that gives each broker its colour.
  function draw(svg, history, column, brokerIds) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const deviation = column === 1 ? history.band.allowed_deviation_in : history.band.allowed_deviation_out;
    let max = 0;
    for (const broker of history.brokers) for (const p of broker.points) max = Math.max(max, p[column]);
    for (const p of history.band.mean) max = Math.max(max, p[column] * (1 + deviation));
    max = max > 0 ? max * 1.1 : 1;
    // A journal younger than the window is drawn over what it holds (a slice before its first point on).
    let first = history.to_ms;
    for (const p of history.band.mean) first = Math.min(first, p[0]);
    const from = Math.max(history.from_ms, first - history.slice_ms);
    const span = Math.max(1, history.to_ms - from);
    const x = (t) => left + ((Math.max(t, from) - from) / span) * (width - left - right);
    const y = (v) => top + (1 - v / max) * (height - top - bottom);
    const xy = (t, v) => x(t).toFixed(1) + "," + y(v).toFixed(1);

    // Axes and their labels.
    element("line", {class: "axis", x1: left, y1: y(0), x2: width - right, y2: y(0)}, svg);
    element("line", {class: "axis", x1: left, y1: top, x2: left, y2: y(0)}, svg);
    element("text", {class: "axis-label", x: left - 4, y: y(max) + 8, "text-anchor": "end"}, svg).textContent =
      bytesText(max) + "/s";
    element("text", {class: "axis-label", x: left - 4, y: y(0), "text-anchor": "end"}, svg).textContent = "0";
    const minutes = Math.round(span / 60000);
    element("text", {class: "axis-label", x: left, y: height - 6}, svg).textContent =
      minutes >= 1 ? "-" + minutes + " min" : "-" + Math.round(span / 1000) + " s";
    element("text", {class: "axis-label", x: width - right, y: height - 6, "text-anchor": "end"}, svg).textContent = "now";

    // The band, then its centre.
    const mean = history.band.mean;
    if (mean.length > 0) {
      const upper = mean.map((p) => xy(p[0], p[column] * (1 + deviation)));
      const lower = mean.slice().reverse().map((p) => xy(p[0], p[column] * (1 - deviation)));
      if (mean.length === 1) {  // one slice so far: the band over that slice rather than a line
        upper.unshift(xy(mean[0][0] - history.slice_ms, mean[0][column] * (1 + deviation)));
        lower.push(xy(mean[0][0] - history.slice_ms, mean[0][column] * (1 - deviation)));
      }
      titled(element("polygon", {class: "band", points: upper.concat(lower).join(" ")}, svg),
        "band: mean +- " + Math.round(deviation * 100) + "%");
      element("polyline", {class: "mean", points: mean.map((p) => xy(p[0], p[column])).join(" ")}, svg);
    }

    // The actions, from planned to ended (or now).
    for (const move of history.moves) {
      const end = move.ended_ms >= 0 ? move.ended_ms : history.to_ms;
      titled(element("rect", {class: "move", x: x(move.planned_ms), y: top, width: Math.max(1, x(end) - x(move.planned_ms)),
        height: y(0) - top, fill: "#805ad5", "fill-opacity": 0.12}, svg),
        "action " + move.action_id + " (" + move.state + "): " + move.description);
    }

    // Each broker's line, and a dot at its newest point.
    for (const broker of history.brokers) {
      if (broker.points.length === 0) continue;
      const color = colorOf(Math.max(0, brokerIds.indexOf(broker.broker_id)));
      titled(element("polyline", {class: "series", "data-broker": broker.broker_id, stroke: color,
        points: broker.points.map((p) => xy(p[0], p[column])).join(" ")}, svg), "broker " + broker.broker_id);
      const newest = broker.points[broker.points.length - 1];
      titled(element("circle", {class: "point", "data-broker": broker.broker_id, cx: x(newest[0]), cy: y(newest[column]),
        r: 2.5, fill: color}, svg), "broker " + broker.broker_id + ": " + bytesText(newest[column]) + "/s");
    }
  }

  return {draw, colorOf, bytesText};
})();
