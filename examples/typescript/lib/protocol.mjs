// The runtime protocol v1 loop (docs/other-runtimes.md): line-delimited JSON requests on stdin,
// one response per request on stdout, logs on stderr. An adapter hands over its declaration and
// one async function per capability; requests are answered one at a time, in order, because the
// adapters swap `globalThis.fetch` for the duration of a call.
import { appendFileSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";

export const PROTOCOL = 1;

// the chunk probe (lib/chunk_probe.mjs): loaded only when asked for
if (process.env.CONFORMANCE_CHUNK_PROBE) await (await import("./chunk_probe.mjs")).install(process.env.CONFORMANCE_CHUNK_PROBE);

function errorOf(exc) {
  const err = exc instanceof Error ? exc : new Error(String(exc));
  return { message: err.message.split("\n")[0] || err.name, type: err.name, traceback: err.stack ?? "" };
}

function write(obj) {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

/** Serve `methods` ({encode, decode, turn, ...}: async (params) => result) under `declaration`. */
export async function serve(declaration, methods) {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let request;
    try {
      request = JSON.parse(line);
    } catch (exc) {
      write({ id: null, error: { ...errorOf(exc), message: `request is not JSON: ${errorOf(exc).message}` } });
      continue;
    }
    const { id, method, params = {} } = request;
    if (method === "shutdown") {
      write({ id, result: null });
      break;
    }
    if (method === "handshake") {
      write({ id, result: { protocol: PROTOCOL, ...declaration, capabilities: Object.keys(methods) } });
      continue;
    }
    const fn = methods[method];
    if (!fn) {
      write({ id, error: { message: `unknown method ${JSON.stringify(method)}`, type: "UnknownMethod", traceback: "" } });
      continue;
    }
    try {
      write({ id, result: method === "turn" ? await withWaits(() => fn(params)) : await fn(params) });
    } catch (exc) {
      write({ id, error: errorOf(exc) });
    }
  }
  lines.close();
}

/** Turn features neither library has (examples/_offers.py says the same of the Python ones): a
 * client holds one key (no rotation), an overflow or a 413 is returned, not compressed and
 * retried, and no history is kept to trim, compact or repair for a proxy. */
export const TURN_NOT_OFFERED = ["auth_rotation", "retry_compress", "history_trim", "auto_compaction", "proxy_recovery"];

/** The waits the library made while `body()` ran, as the protocol's `waited` (seconds, in order):
 * each timer of 100 ms or more that it set and that fired, keeping the process alive (a sleep
 * before a retry). Timers that were cleared (request time-outs) or unref'd (undici's clock) are
 * not waits. The harness believes them only where they fit the gaps between the requests it saw. */
export async function withWaits(body) {
  const saved = globalThis.setTimeout;
  const waited = [];
  globalThis.setTimeout = (fn, ms, ...args) => {
    const timer = saved(
      (...a) => {
        if (typeof ms === "number" && ms >= 100 && timer.hasRef?.()) waited.push(ms / 1000);
        return fn(...a);
      },
      ms,
      ...args,
    );
    return timer;
  };
  try {
    const result = await body();
    return result && typeof result === "object" && !Array.isArray(result) ? { ...result, waited } : result;
  } finally {
    globalThis.setTimeout = saved;
  }
}

/** `globalThis.fetch` replaced by `fake` while `body()` runs. */
export async function withFetch(fake, body) {
  const saved = globalThis.fetch;
  globalThis.fetch = fake;
  try {
    return await body();
  } finally {
    globalThis.fetch = saved;
  }
}

/** What Node's fetch (undici) raises when the peer closes the connection mid-body. */
function droppedError() {
  const cause = Object.assign(new Error("other side closed"), { name: "SocketError", code: "UND_ERR_SOCKET" });
  return new TypeError("terminated", { cause });
}

/** A fetch answering every call with one recorded response (the decode pattern). `dropped`: the
 * connection dropped after the chunks, so reading on raises what fetch raises then. */
export function recordedFetch({ status, headers, chunks, dropped }) {
  return async () => {
    const parts = (chunks ?? []).map((c) => Buffer.from(c, "base64"));
    let next = 0;
    const body = new ReadableStream(
      {
        async pull(controller) {
          // one chunk per read, then the end: a clean close, or the error a dropped connection gives,
          // which a socket reports in an I/O event of its own, after the bytes were handed on
          if (next < parts.length) controller.enqueue(new Uint8Array(parts[next++]));
          else if (dropped) await new Promise((done) => setImmediate(done)).then(() => controller.error(droppedError()));
          else controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const hdrs = new Headers();
    for (const [k, v] of Object.entries(headers ?? {})) hdrs.append(k, Array.isArray(v) ? v.join(", ") : String(v));
    return new Response(status === 204 || status === 304 ? null : body, { status, headers: hdrs });
  };
}

/** A fetch that keeps the request body the library built and answers 599 (the encode pattern). */
export function capturingFetch(seen) {
  return async (input, init) => {
    const body = init?.body ?? (input instanceof Request ? await input.text() : undefined);
    seen.push({ url: String(input instanceof Request ? input.url : input), body: typeof body === "string" ? body : String(body) });
    return new Response(JSON.stringify({ error: { message: "captured" } }), { status: 400, headers: { "content-type": "application/json" } });
  };
}

/** The conversation's last request body as JSON. */
export function capturedBody(seen) {
  if (!seen.length) throw new Error("the library sent no request");
  return JSON.parse(seen[seen.length - 1].body);
}

export const textOf = (content) =>
  typeof content === "string" ? content : (content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("");

/** The installed version of `pkg` (read from node_modules, whatever its `exports` allow). */
export function versionOf(pkg) {
  const file = new URL(`../node_modules/${pkg}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(file, "utf8")).version;
}

// An HTTP status a library exposes, read with its HTTP meaning (RFC 9110, RFC 6585): nothing a
// status alone does not say (an overflow, an overload) is read into it.
const STATUS_KINDS = { 400: "invalid_request", 401: "auth", 403: "permission", 404: "not_found", 408: "timeout", 413: "payload_too_large", 429: "rate_limited" };

export function kindOfStatus(status) {
  return STATUS_KINDS[status] ?? (status >= 500 ? "server" : "invalid_request");
}

// The library probe (tests/examples/test_typescript_library_keeps.py): with
// CONFORMANCE_LIBRARY_PROBE=<file>, each decode appends the objects the library handed the adapter
// (its result, stream parts or events, the error it raised) to <file> as JSON lines
// `{"call", "provider", "kind", "object"}`; unset, `libraryProbe` is null and nothing is kept.
const PROBE_FILE = process.env.CONFORMANCE_LIBRARY_PROBE;
let probeCalls = 0;

/** A recorder `(kind, object) => void` for one decode call on `provider`, or null without the probe. */
export function libraryProbe(provider) {
  if (!PROBE_FILE) return null;
  const call = ++probeCalls;
  return (kind, object) => appendFileSync(PROBE_FILE, `${JSON.stringify({ call, provider, kind, object: plain(object) })}\n`);
}

// The HTTP exchange a library object carries (a response's raw body and headers, the request it
// sent) is the provider's bytes, not the library's reading of them: left out.
const RAW_KEYS = new Set(["body", "headers", "request", "requestBodyValues", "responseBody", "responseHeaders", "rawValue", "rawResponse"]);

/** Every data field of `value` as JSON: own properties, getters of its classes, an error's name,
 * message and cause; functions, promises, streams and bytes left out, each object once. */
function plain(value, seen = new WeakSet(), depth = 0) {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return String(value);
  if (typeof value !== "object") return typeof value === "function" || typeof value === "symbol" ? null : value;
  if (depth > 20 || seen.has(value) || typeof value.then === "function" || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return null;
  if (value instanceof ReadableStream || value instanceof Headers || value instanceof Response || value instanceof Request) return null;
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => plain(item, seen, depth + 1));
  const out = value instanceof Error ? { name: value.name, message: value.message } : {};
  const keys = new Set(Object.keys(value));
  if (value instanceof Error && value.cause !== undefined) keys.add("cause");
  for (let proto = Object.getPrototypeOf(value); proto && proto !== Object.prototype && proto !== Error.prototype; proto = Object.getPrototypeOf(proto))
    for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(proto))) if (d.get) keys.add(key);
  for (const key of keys) {
    if (RAW_KEYS.has(key)) continue;
    let item;
    try {
      item = value[key];
    } catch {
      continue; // a getter that throws (the AI SDK's `output` without an output spec)
    }
    const got = plain(item, seen, depth + 1);
    if (got !== null) out[key] = got;
  }
  return out;
}
