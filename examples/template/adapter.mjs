// A runtime adapter in plain Node (no dependencies): copy this file, keep the loop, replace
// `decodeOpenAI` with a call into your own library. It speaks the conformance runtime protocol v1
// (docs/other-runtimes.md) and answers `decode` for OpenAI Chat Completions:
//
//   conformance run --runtime-cmd "node examples/template/adapter.mjs" --provider openai
//
// One JSON object per line on stdin (`{"id", "method", "params"}`), one answer per line on stdout
// (`{"id", "result"}` or `{"id", "error"}`); stderr is free text (the harness shows its tail when
// the program misbehaves). The answers are the normalized form of docs/normalized-form.md.
import { createInterface } from "node:readline";

// 1. The handshake: who we are and what we offer. Everything not declared counts as offered, so
//    declare honestly: a row outside the declaration is "not offered", never a failure.
const DECLARATION = {
  protocol: 1,
  name: "template",
  version: "0.1.0",
  capabilities: ["decode"], // methods answered below; rows needing others are skipped
  providers: ["openai"], // other columns are "not offered"
  features: null, // null: every matrix feature of those providers
  not_offered: [], // matrix features we know we lack, e.g. ["refusal"]
  // optional normalized-form fields our answers carry (message.sources is Perplexity's: not read here)
  exposed_fields: [
    "message.raw_stop_reason",
    "message.usage",
    "error.status",
    "error.provider_code",
    "error.retry_after_s",
    "error.message",
    "partial",
  ],
};

// 2. The provider's vocabulary, as tables.
const FINISH = { stop: "stop", length: "length", tool_calls: "tool_use", function_call: "tool_use", content_filter: "content_filter" };
const ERROR_CODES = {
  context_length_exceeded: "context_overflow",
  invalid_api_key: "auth",
  rate_limit_exceeded: "rate_limited",
  insufficient_quota: "rate_limited",
  model_not_found: "not_found",
  invalid_request_error: "invalid_request",
};
const STATUS_KINDS = { 400: "invalid_request", 401: "auth", 403: "permission", 404: "not_found", 408: "timeout", 413: "payload_too_large", 429: "rate_limited", 503: "overloaded", 504: "timeout" };
const kindOfStatus = (status) => STATUS_KINDS[status] ?? (status >= 500 || status == null ? "server" : "invalid_request");

// 3. Errors: an HTTP error body, or an error inside a 200 response.
function retryAfter(headers) {
  const get = (name) => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  const ms = Number(get("retry-after-ms"));
  if (get("retry-after-ms") !== undefined && Number.isFinite(ms)) return ms / 1000;
  const s = get("retry-after");
  if (s === undefined) return null;
  if (Number.isFinite(Number(s))) return Number(s);
  const date = Date.parse(s); // an HTTP date
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}

function errorOf(payload, status, headers = {}) {
  const e = typeof payload?.error === "object" && payload.error !== null ? payload.error : {};
  const message = typeof e.message === "string" ? e.message : typeof payload === "string" ? payload : "";
  const code = typeof e.code === "string" ? e.code : null;
  const type = typeof e.type === "string" ? e.type : null;
  let kind = ERROR_CODES[code] ?? ERROR_CODES[type] ?? null;
  if (/maximum context length is \d+ tokens/i.test(message)) kind = "context_overflow";
  if (kind === null || (kind === "invalid_request" && status != null && status !== 400)) kind = kindOfStatus(status);
  return { kind, status: status ?? null, retry_after_s: retryAfter(headers), provider_code: code ?? type, message };
}

// 4. One message built from a whole response or from stream deltas (choice 0 only).
class Builder {
  constructor() {
    this.blocks = []; // text / thinking blocks and tool calls, in arrival order
    this.tools = new Map(); // stream index -> tool call block
    this.refused = false;
    this.message = { role: "assistant", content: [], provider: "openai" };
  }

  text(type, field, piece) {
    if (!piece) return;
    const last = this.blocks.at(-1);
    if (last?.type === type) last[field] += piece;
    else this.blocks.push({ type, [field]: piece });
  }

  apply(delta, whole) {
    this.text("thinking", "thinking", delta.reasoning_content ?? delta.reasoning); // OpenAI-compatible proxies
    if (typeof delta.content === "string") this.text("text", "text", delta.content);
    if (delta.refusal) {
      this.refused = true;
      this.text("text", "text", delta.refusal);
    }
    (delta.tool_calls ?? []).forEach((call, position) => {
      // whole: every entry is its own call; stream: deltas of one call share an `index`
      const key = whole ? `whole-${position}` : (call.index ?? position);
      let block = this.tools.get(key);
      if (!block) this.blocks.push((block = { type: "tool_call", id: null, name: null, raw: "" })), this.tools.set(key, block);
      block.id ??= call.id || null;
      block.name ??= call.function?.name || null;
      block.raw += call.function?.arguments ?? "";
    });
    if (delta.function_call) {
      // the deprecated functions API: one call, no id
      let block = this.tools.get("function_call");
      if (!block && !delta.function_call.name) return;
      if (!block) this.blocks.push((block = { type: "tool_call", id: null, name: null, raw: "" })), this.tools.set("function_call", block);
      block.name ??= delta.function_call.name;
      block.raw += delta.function_call.arguments ?? "";
    }
  }

  finish(reason) {
    this.message.raw_stop_reason = reason;
    let stop = FINISH[reason] ?? (this.tools.size ? "tool_use" : "stop");
    if (this.refused && stop === "stop") stop = "refusal";
    this.message.stop_reason = stop;
  }

  usage(u) {
    if (!u) return;
    this.message.usage = {
      input_tokens: u.prompt_tokens ?? 0,
      output_tokens: u.completion_tokens ?? 0,
      cache_read_tokens: u.prompt_tokens_details?.cached_tokens ?? 0,
      cache_write_tokens: 0,
      reasoning_tokens: u.completion_tokens_details?.reasoning_tokens ?? 0,
    };
  }

  build() {
    // thinking first, then the rest in order; arguments parsed once, at the end
    const ordered = [...this.blocks.filter((b) => b.type === "thinking"), ...this.blocks.filter((b) => b.type !== "thinking")];
    this.message.content = ordered.map((b) => (b.type === "tool_call" ? toolCall(b, this.blocks.filter((x) => x.type === "tool_call").indexOf(b)) : b));
    return this.message;
  }
}

// Arguments are always an object: "" means {}, anything unreadable is {} with the wire text kept.
function toolCall(b, n) {
  let args = {};
  let raw = null;
  if (b.raw.trim()) {
    try {
      args = JSON.parse(b.raw);
    } catch {
      args = undefined;
    }
    if (args === null || typeof args !== "object" || Array.isArray(args)) [args, raw] = [{}, b.raw];
  }
  return { type: "tool_call", id: b.id ?? `call_${n}`, name: b.name ?? "", arguments: args, raw_arguments: raw };
}

// A turn that failed part-way: the error, and what arrived before it.
function failed(builder, error) {
  const partial = builder.build();
  partial.stop_reason = "error";
  partial.error = error;
  return { error, partial };
}

// 5. Server-sent events (WHATWG): `data:` lines joined by "\n", dispatched at a blank line.
function* sseEvents(text) {
  let data = [];
  let event = "message";
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (data.length) yield { event, data: data.join("\n") };
      [data, event] = [[], "message"];
      continue;
    }
    if (line.startsWith(":")) continue; // a comment (keep-alive)
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    if (field === "event") event = value;
  }
  if (data.length) yield { event, data: data.join("\n"), last: true }; // no blank line after it: maybe cut
}

function decodeStream(text) {
  const builder = new Builder();
  let finished = false;
  for (const { event, data, last } of sseEvents(text)) {
    if (data === "[DONE]") continue;
    let chunk;
    try {
      chunk = JSON.parse(data);
    } catch {
      if (last) break; // a frame cut mid-way: the stream was interrupted
      return failed(builder, errorOf({ error: { message: "an SSE event is not valid JSON", type: "server_error" } }, null));
    }
    if (chunk.model) builder.message.model = chunk.model;
    if (chunk.usage) builder.usage(chunk.usage);
    const choice = (chunk.choices ?? []).find((c) => (c.index ?? 0) === 0);
    if (choice?.delta) builder.apply(choice.delta, false);
    if (choice?.finish_reason && !finished) {
      builder.finish(choice.finish_reason);
      finished = true;
    }
    if (chunk.error || event === "error") return failed(builder, errorOf(chunk.error ? chunk : { error: chunk }, null));
  }
  if (finished) return { message: builder.build() };
  // no finish_reason: the stream stopped early, and the partial has no stop reason
  const error = { kind: "stream_interrupted", status: null, retry_after_s: null, provider_code: null, message: "stream ended before a finish_reason" };
  const partial = builder.build();
  partial.error = error;
  return { error, partial };
}

function decodeJson(text) {
  const builder = new Builder();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return failed(builder, errorOf({ error: { message: "response body is not JSON", type: "server_error" } }, null));
  }
  if (body.model) builder.message.model = body.model;
  const choice = (body.choices ?? []).find((c) => (c.index ?? 0) === 0);
  if (choice?.message) builder.apply(choice.message, true);
  builder.usage(body.usage);
  if (choice?.finish_reason) builder.finish(choice.finish_reason);
  if (body.error) return failed(builder, errorOf(body, null));
  return { message: builder.build() };
}

// 6. The `decode` capability: one recorded HTTP response in, the normalized outcome out.
//    `dropped`: the connection dropped after these chunks (your HTTP client would have raised), so a
//    JSON body is cut short and holds no answer; a stream is read as far as it came.
function decodeOpenAI({ status, headers, chunks, stream, dropped }) {
  const text = Buffer.concat(chunks.map((c) => Buffer.from(c, "base64"))).toString("utf8");
  if (status >= 400) {
    let payload = text;
    try {
      payload = JSON.parse(text);
    } catch {} // a body that is not JSON is the message itself
    return { error: errorOf(payload, status, headers), partial: null };
  }
  if (dropped && !stream) {
    const message = "the connection dropped mid-body";
    return { error: { kind: "stream_interrupted", status: null, retry_after_s: null, provider_code: null, message }, partial: null };
  }
  return stream ? decodeStream(text) : decodeJson(text); // `stream`: the request asked for SSE
}

const METHODS = {
  handshake: () => DECLARATION,
  decode: (params) => {
    if (params.provider !== "openai") throw new Error(`provider ${params.provider} is not one this adapter reads`);
    return decodeOpenAI(params);
  },
  shutdown: () => null,
};

// 7. The loop: one answer per request, in order. An exception is an `error` answer (the row is an
//    error with this message and stack; the program stays in use).
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { id, method, params } = JSON.parse(line);
  let answer;
  try {
    if (!METHODS[method]) throw new Error(`unknown method ${method}`);
    answer = { id, result: METHODS[method](params ?? {}) };
  } catch (exc) {
    answer = { id, error: { type: exc.name, message: exc.message, traceback: exc.stack ?? "" } };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
  if (method === "shutdown") break;
}
