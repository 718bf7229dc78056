// The search page: an MCP client of this server's own /mcp (Streamable HTTP, stateless JSON), so it
// shows exactly what an agent gets. No framework, no build step; text goes in with textContent only.
"use strict";

const MCP_PATH = "/mcp";
const PROTOCOL_VERSION = "2025-11-25";
const SEARCH_TOOL = "search_docs";
const GET_TOOL = "get_doc";
const NOT_FACETS = new Set(["query", "limit", "cursor"]);

const TOKEN_KEY = "docs-mcp-token"; // sessionStorage: gone when the tab closes

// /mcp answered 401: the server takes bearer tokens (serve --auth-tokens or --auth-issuer).
class AuthRequired extends Error {}

const state = {
  token: sessionStorage.getItem(TOKEN_KEY),
  nextId: 1,
  protocolVersion: PROTOCOL_VERSION,
  facets: [], // [{name, values, description}]
  cursor: null,
  // Bumped by every new search: an answer that arrives after a newer search began (a filter change
  // followed at once by Enter) is dropped, not appended to the newer one's hits.
  searchGeneration: 0,
};

const $ = (id) => document.getElementById(id);

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

async function post(message) {
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": state.protocolVersion,
  };
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  const response = await fetch(MCP_PATH, { method: "POST", headers, body: JSON.stringify(message) });
  if (response.status === 401) throw new AuthRequired(state.token ? "the token was refused" : "a token is needed");
  if (response.status === 202) return null; // a notification
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${response.status} ${response.statusText}: ${text.slice(0, 200)}`);
  }
  if (body.error) throw new Error(`${body.error.message} (JSON-RPC ${body.error.code})`);
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  return body.result;
}

function request(method, params) {
  return post({ jsonrpc: "2.0", id: state.nextId++, method, params });
}

async function callTool(name, args) {
  const result = await request("tools/call", { name, arguments: args });
  if (result.isError) {
    const text = (result.content || []).map((c) => c.text || "").join("\n");
    throw new Error(text || `${name} failed`);
  }
  return result.structuredContent;
}

async function connect() {
  const init = await request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "docs-mcp-page", version: "1" },
  });
  state.protocolVersion = init.protocolVersion || PROTOCOL_VERSION;
  await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  const info = init.serverInfo || {};
  $("title").textContent = info.name || "docs-mcp";
  const { tools } = await request("tools/list", {});
  const search = tools.find((tool) => tool.name === SEARCH_TOOL);
  if (!search) throw new Error(`the server offers no ${SEARCH_TOOL} tool`);
  // The corpus as the search tool names it ("Search <name and description> (hybrid ..."), not the
  // instructions written for an agent.
  const corpus = /^Search (.+?) \(hybrid/.exec(search.description || "");
  $("server-info").textContent = corpus ? corpus[1] : `${info.name || "server"} ${info.version || ""}`;
  const properties = (search.inputSchema && search.inputSchema.properties) || {};
  state.facets = Object.entries(properties)
    .filter(([name, schema]) => !NOT_FACETS.has(name) && Array.isArray(schema.enum))
    .map(([name, schema]) => ({ name, values: schema.enum, description: schema.description || "" }))
    // Several libraries served: the library comes first, it narrows everything else.
    .sort((a, b) => (a.name === "library" ? -1 : b.name === "library" ? 1 : 0));
  renderFacetSelects();
}

function renderFacetSelects() {
  const box = $("facets");
  box.replaceChildren();
  for (const facet of state.facets) {
    const label = element("label", "facet");
    label.append(element("span", "", facet.name));
    const select = element("select");
    select.name = facet.name;
    select.dataset.facet = facet.name;
    select.title = facet.description;
    select.append(new Option(`any ${facet.name}`, ""));
    for (const value of facet.values) select.append(new Option(value, value));
    select.addEventListener("change", () => search());
    label.append(select);
    box.append(label);
  }
}

function currentSearch() {
  const filters = {};
  for (const select of document.querySelectorAll("select[data-facet]")) {
    if (select.value) filters[select.dataset.facet] = select.value;
  }
  return { query: $("query").value.trim(), filters };
}

function writeUrl({ query, filters }) {
  const params = new URLSearchParams();
  if (query) params.set("q", query);
  for (const [name, value] of Object.entries(filters)) params.set(name, value);
  const url = params.toString() ? `?${params}` : location.pathname;
  if (url !== location.search) history.pushState(null, "", url);
}

function readUrl() {
  const params = new URLSearchParams(location.search);
  $("query").value = params.get("q") || "";
  for (const select of document.querySelectorAll("select[data-facet]")) {
    const value = params.get(select.dataset.facet) || "";
    select.value = [...select.options].some((o) => o.value === value) ? value : "";
  }
}

function setStatus(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

async function search({ pushUrl = true } = {}) {
  const wanted = currentSearch();
  if (!wanted.query) {
    setStatus("Type a question or keywords.");
    return;
  }
  if (pushUrl) writeUrl(wanted);
  const generation = ++state.searchGeneration;
  state.cursor = null;
  $("hits").replaceChildren();
  $("hint").hidden = true;
  $("more").hidden = true;
  setStatus("Searching…");
  const started = performance.now();
  try {
    const page = await callTool(SEARCH_TOOL, { query: wanted.query, ...wanted.filters });
    if (generation === state.searchGeneration) showPage(page, performance.now() - started);
  } catch (error) {
    if (generation === state.searchGeneration) setStatus(error.message, true);
  }
}

async function more() {
  if (!state.cursor) return;
  const generation = state.searchGeneration;
  const started = performance.now();
  $("more").disabled = true;
  try {
    const page = await callTool(SEARCH_TOOL, { cursor: state.cursor });
    if (generation === state.searchGeneration) showPage(page, performance.now() - started);
  } catch (error) {
    if (generation === state.searchGeneration) setStatus(error.message, true);
  } finally {
    $("more").disabled = false;
  }
}

function showPage(page, millis) {
  const list = $("hits");
  for (const hit of page.hits) list.append(renderHit(hit));
  state.cursor = page.next_cursor;
  $("more").hidden = !page.next_cursor;
  const shown = list.children.length;
  const inferred = Object.entries(page.inferred_filters || {}).map(([k, v]) => `${k}=${v}`);
  const parts = [`${shown} result${shown === 1 ? "" : "s"}`, `${page.mode}`, `${Math.round(millis)} ms`];
  if (page.fallback_reason) parts.push(page.fallback_reason);
  if (inferred.length) parts.push(`ranked first from the query: ${inferred.join(", ")}`);
  setStatus(parts.join(" · "));
  document.body.dataset.searchDone = String(Date.now());
  if (page.hint) showHint(page.hint);
}

function showHint(hint) {
  const box = $("hint");
  box.replaceChildren(element("p", "", hint.message));
  for (const [facet, values] of Object.entries(hint.suggested_filters || {})) {
    for (const value of values) {
      const button = element("button", "chip", `${facet}: ${value || "any"}`);
      button.type = "button";
      button.addEventListener("click", () => {
        const select = document.querySelector(`select[data-facet="${CSS.escape(facet)}"]`);
        if (select) select.value = value;
        search();
      });
      box.append(button);
    }
  }
  box.hidden = false;
}

function renderHit(hit) {
  const item = element("li", "hit");
  item.dataset.chunkId = hit.chunk_id;
  // Several libraries served: each hit says which one (and version) it is from, and opens there.
  const where = hit.library ? { library: hit.library, ...(hit.version ? { version: hit.version } : {}) } : {};
  if (hit.library) item.dataset.library = hit.library;
  const head = element("div", "hit-head");
  const title = element("button", "hit-title", hit.heading || hit.chunk_id);
  title.type = "button";
  title.title = "get_doc with its neighbours";
  title.addEventListener("click", () => openDoc(hit.chunk_id, where));
  head.append(title, element("span", "score", Number(hit.score).toFixed(3)));
  item.append(head);
  if (hit.breadcrumb && hit.breadcrumb.length) {
    item.append(element("div", "breadcrumb", hit.breadcrumb.join(" › ")));
  }
  item.append(element("p", "snippet", hit.snippet));
  const meta = element("div", "meta");
  if (hit.library) {
    const label = hit.version ? `${hit.library}@${hit.version}` : hit.library;
    meta.append(element("span", "chip library", `library: ${label}`));
  }
  meta.append(element("code", "file", hit.file));
  if (hit.matched) meta.append(element("span", "chip muted", `matched: ${hit.matched}`));
  for (const [name, value] of Object.entries(hit.facets || {})) {
    meta.append(element("span", "chip", `${name}: ${value}`));
  }
  if (hit.url) meta.append(link(hit.url));
  item.append(meta);
  if (hit.also_in && hit.also_in.length) {
    const also = element("div", "also-in", "also in ");
    for (const variant of hit.also_in) {
      const button = element("button", "chip link", `${variant.facet}: ${variant.value}`);
      button.type = "button";
      button.dataset.chunkId = variant.chunk_id;
      button.addEventListener("click", () => openDoc(variant.chunk_id, where));
      also.append(button);
    }
    item.append(also);
  }
  return item;
}

function link(url) {
  const anchor = element("a", "url", url);
  // Only web links: a hit's url comes from the docs, and a javascript: URL must not become a link.
  if (/^https?:\/\//i.test(url)) {
    anchor.href = url;
    anchor.rel = "noopener noreferrer";
    anchor.target = "_blank";
  }
  return anchor;
}

// get_doc's chunks, and a "Read on" button while the answer was cut to fit its budget (next_cursor).
function renderChunks(body, result) {
  for (const chunk of result.chunks) {
    const section = element("section", chunk.chunk_id === result.chunk_id ? "chunk target" : "chunk");
    section.dataset.chunkId = chunk.chunk_id;
    section.append(element("div", "breadcrumb", (chunk.breadcrumb || []).join(" › ")));
    const where = `${chunk.file} · section ${chunk.position} of ${chunk.total}`;
    const part = chunk.part ? ` · characters ${chunk.part.start}-${chunk.part.end} of ${chunk.part.length}` : "";
    section.append(element("div", "position", where + part));
    section.append(element("pre", "markdown", chunk.markdown));
    body.append(section);
  }
  if (!result.next_cursor) return;
  const more = element("button", "read-on", "Read on");
  more.type = "button";
  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      const next = await callTool(GET_TOOL, { cursor: result.next_cursor });
      more.remove();
      renderChunks(body, next);
    } catch (error) {
      more.replaceWith(element("p", "error", error.message));
    }
  });
  body.append(more);
}

async function openDoc(chunkId, where = {}) {
  const dialog = $("doc");
  const body = $("doc-body");
  $("doc-title").textContent = chunkId;
  body.replaceChildren(element("p", "muted", `get_doc ${chunkId}…`));
  if (!dialog.open) dialog.showModal();
  try {
    const result = await callTool(GET_TOOL, { chunk_id: chunkId, context: 1, ...where });
    body.replaceChildren();
    renderChunks(body, result);
    const target = body.querySelector(".chunk.target");
    if (target) target.scrollIntoView({ block: "nearest" });
  } catch (error) {
    body.replaceChildren(element("p", "error", error.message));
  }
}

// Shows the token form and resolves once a token is entered (kept for this tab only).
function askToken() {
  const form = $("auth");
  form.hidden = false;
  $("token").focus();
  return new Promise((resolve) => {
    form.addEventListener(
      "submit",
      (event) => {
        event.preventDefault();
        state.token = $("token").value.trim() || null;
        if (state.token) sessionStorage.setItem(TOKEN_KEY, state.token);
        else sessionStorage.removeItem(TOKEN_KEY);
        resolve();
      },
      { once: true },
    );
  });
}

async function start() {
  $("search").addEventListener("submit", (event) => {
    event.preventDefault();
    search();
  });
  $("more").addEventListener("click", more);
  window.addEventListener("popstate", () => {
    readUrl();
    search({ pushUrl: false });
  });
  for (;;) {
    try {
      await connect();
      break;
    } catch (error) {
      $("server-info").textContent = "";
      if (!(error instanceof AuthRequired)) {
        setStatus(`Cannot reach ${MCP_PATH}: ${error.message}`, true);
        return;
      }
      setStatus(`This server needs a bearer token: ${error.message}.`, true);
      await askToken();
    }
  }
  $("auth").hidden = true;
  setStatus("");
  document.body.dataset.ready = "true";
  readUrl();
  if ($("query").value.trim()) search({ pushUrl: false });
}

start();
