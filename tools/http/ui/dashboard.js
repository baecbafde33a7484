// The dashboard's behaviour: reads /v1/* every refresh_ms (the history every
// history_every refreshes), with the token the operator typed (kept in
// sessionStorage, so it lasts as long as the tab), draws what it read, and
// sends pause, resume and drain. Every figure comes from the API; nothing
// here is computed that the API does not say.
"use strict";

(() => {
  const refresh_ms = 2000;
  const history_every = 5;  // the history every 10 s: a journal read, heavier than the rest
  const token_key = "ballast.token";
  const $ = (id) => document.getElementById(id);
  let brokerIds = [];
  let refreshes = 0;
  let timer = null;

  function token() { return sessionStorage.getItem(token_key) || ""; }

  function showMessage(text) {
    const box = $("message");
    box.textContent = text;
    box.hidden = !text;
  }

  // One API call; resolves to the answer's JSON, rejects with an Error whose
  // message is what the operator should read.
  async function api(method, path, body) {
    const headers = {"Accept": "application/json"};
    if (token()) headers["Authorization"] = "Bearer " + token();
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
    } catch (e) {
      throw new Error(method + " " + path + ": the API did not answer (" + e.message + ")");
    }
    let answer = {};
    try { answer = await response.json(); } catch (e) { answer = {message: "an answer that is not JSON"}; }
    if (response.status === 401 || response.status === 403) {
      const error = new Error("This instance asks for its token (" + response.status + "): type it in the Token field " +
        "above. " + (answer.message || ""));
      error.refused = response.status === 401;
      throw error;
    }
    if (!response.ok) {
      const error = new Error(method + " " + path + ": " + response.status + " " + (answer.message || ""));
      error.answer = answer;  // a 503 while the engine is away names the instance's role and readiness
      throw error;
    }
    return answer;
  }

  function cell(row, text, className) {
    const td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  }

  function ago(now_ms, then_ms) {
    if (then_ms < 0) return "";
    const s = Math.round((now_ms - then_ms) / 1000);
    return s < 120 ? s + " s ago" : Math.round(s / 60) + " min ago";
  }

  function badge(id, text, kind) {
    const node = $(id);
    node.textContent = text;
    node.className = "badge " + kind;
  }

  function renderInstance(instance) {
    badge("role", "role " + instance.role, "");
    badge("ready", instance.ready ? "ready" : "not ready: " + instance.detail, instance.ready ? "good" : "bad");
  }

  function renderState(state) {
    renderInstance(state.instance);
    badge("paused", state.engine.paused ? "paused" : "balancing", state.engine.paused ? "warn" : "good");
    $("clock").textContent = "engine time " + new Date(state.engine.now_ms).toISOString() +
      ", journal seq " + state.journal.last_seq;
    const body = $("brokers").tBodies[0];
    body.replaceChildren();
    brokerIds = state.cluster.brokers.map((b) => b.broker_id);
    for (const b of state.cluster.brokers) {
      const row = document.createElement("tr");
      row.dataset.brokerId = b.broker_id;
      const id = cell(row, "");
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = BallastChart.colorOf(brokerIds.indexOf(b.broker_id));
      id.append(swatch, String(b.broker_id));
      cell(row, b.rack);
      cell(row, b.state);
      cell(row, BallastChart.bytesText(b.bytes_in_per_s), "number");
      cell(row, BallastChart.bytesText(b.bytes_out_per_s), "number");
      cell(row, BallastChart.bytesText(b.size_bytes), "number");
      cell(row, [b.draining ? "draining" : "", b.excluded ? "excluded" : ""].filter(Boolean).join(", "));
      body.appendChild(row);
    }
  }

  function renderActions(page, now_ms) {
    const order = (a) => (a.state === "in_flight" || a.state === "submitted" ? 0 : 1);
    const actions = page.actions.slice().sort((a, b) => order(a) - order(b) || b.action_id - a.action_id).slice(0, 20);
    const body = $("actions").tBodies[0];
    body.replaceChildren();
    for (const a of actions) {
      const row = document.createElement("tr");
      row.className = a.state;
      cell(row, String(a.action_id), "number");
      cell(row, a.state);
      cell(row, a.description);
      cell(row, a.action.goal);
      cell(row, String(a.attempts), "number");
      cell(row, ago(now_ms, a.planned_ms));
      cell(row, a.detail);
      body.appendChild(row);
    }
  }

  function explainLink(topic, partition) {
    const link = document.createElement("a");
    link.href = "/v1/explain/" + encodeURIComponent(topic) + "/" + partition;
    link.textContent = topic + "-" + partition;
    link.className = "explain";
    link.addEventListener("click", (event) => {
      event.preventDefault();
      $("explain-path").textContent = link.getAttribute("href");
      api("GET", link.getAttribute("href"))
        .then((answer) => { $("explain").textContent = answer.explanation; })
        .catch((e) => showMessage(e.message));
    });
    return link;
  }

  function actionItem(action, note) {
    const li = document.createElement("li");
    li.append(action.kind.toUpperCase() + " ", explainLink(action.topic, action.partition),
      " " + action.source_broker + " -> " + action.destination_broker);
    if (action.swap_topic) li.append(" with ", explainLink(action.swap_topic, action.swap_partition));
    li.append(" [" + action.goal + "]" + (note ? ": " + note : ""));
    return li;
  }

  function renderDecisions(page, now_ms) {
    const list = $("decisions");
    list.replaceChildren();
    for (const d of page.decisions.slice().reverse()) {
      const item = document.createElement("li");
      item.append("round " + d.round + " (seq " + d.seq + ", " + ago(now_ms, d.time_ms) + "): " +
        d.actions.length + " planned, " + d.held.length + " held");
      const details = document.createElement("ul");
      for (const a of d.actions) details.appendChild(actionItem(a, ""));
      for (const h of d.held) details.appendChild(actionItem(h.action, "held: " + h.reason));
      for (const r of d.rejections) {
        const li = document.createElement("li");
        li.textContent = "rejected " + r.count + "x: " + r.reason;
        details.appendChild(li);
      }
      for (const u of d.unfixable) {
        const li = document.createElement("li");
        li.textContent = "unfixable" + (u.topic ? " " + u.topic + "-" + u.partition : " broker " + u.broker_id) +
          " [" + u.goal + "]: " + u.reason;
        details.appendChild(li);
      }
      item.appendChild(details);
      list.appendChild(item);
    }
  }

  function renderHistory(history) {
    BallastChart.draw($("chart-in"), history, 1, brokerIds);
    BallastChart.draw($("chart-out"), history, 2, brokerIds);
    $("history-note").textContent = "(" + history.moves.length + " actions marked; band +-" +
      Math.round(history.band.allowed_deviation_in * 100) + "% in, +-" +
      Math.round(history.band.allowed_deviation_out * 100) + "% out" +
      (history.complete ? "" : "; the journal read reaches back only to its newest events") + ")";
    const legend = $("legend");
    legend.replaceChildren();
    for (const id of brokerIds) {
      const entry = document.createElement("span");
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = BallastChart.colorOf(brokerIds.indexOf(id));
      entry.append(swatch, "broker " + id);
      legend.appendChild(entry);
    }
  }

  async function refresh() {
    const withHistory = refreshes % history_every === 0;
    const [state, actions, decisions] = await Promise.all([
      api("GET", "/v1/state"), api("GET", "/v1/actions?limit=50"), api("GET", "/v1/decisions?limit=10")]);
    renderState(state);
    renderActions(actions, state.engine.now_ms);
    renderDecisions(decisions, state.engine.now_ms);
    if (withHistory) renderHistory(await api("GET", "/v1/brokers/history?window_ms=3600000"));
    refreshes++;
  }

  // One refresh after another (never two at once), until a token is needed.
  async function loop() {
    timer = null;
    if (document.body.dataset.token === "required" && !token()) {
      showMessage("This instance asks for its token: type it in the Token field above.");
      return;
    }
    try {
      await refresh();
      showMessage("");
    } catch (e) {
      if (e.answer && e.answer.instance) renderInstance(e.answer.instance);
      showMessage(e.message);
      if (e.refused) return;  // a wrong token: asked again only once another is typed
    }
    timer = setTimeout(loop, refresh_ms);
  }

  function restart() {
    if (timer !== null) clearTimeout(timer);
    refreshes = 0;
    loop();
  }

  async function command(path, what) {
    $("command-result").textContent = what + "...";
    try {
      const answer = await api("POST", path, {reason: "from the dashboard"});
      $("command-result").textContent = what + ": applied by seq " + answer.applied_by_seq;
      showMessage("");
      restart();
    } catch (e) {
      $("command-result").textContent = "";
      showMessage(e.message);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = $("token").value.trim();
      if (typed) sessionStorage.setItem(token_key, typed); else sessionStorage.removeItem(token_key);
      $("token").value = "";
      $("token").placeholder = typed ? "token set" : "bearer token";
      restart();
    });
    if (token()) $("token").placeholder = "token set";
    $("pause").addEventListener("click", () => command("/v1/pause", "paused"));
    $("resume").addEventListener("click", () => command("/v1/resume", "resumed"));
    $("drain").addEventListener("click", () => {
      const id = $("drain-broker").value.trim();
      if (!/^[0-9]+$/.test(id)) {
        showMessage("Type the id of the broker to drain (a number) beside the Drain button.");
        return;
      }
      command("/v1/brokers/" + id + "/drain", "draining broker " + id);
    });
    loop();
  });
})();
