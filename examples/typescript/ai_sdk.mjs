// conformance runtime-protocol adapter for the Vercel AI SDK (`ai` with @ai-sdk/openai, /anthropic,
// /google, /openai-compatible; docs/runtimes.md). generateText / streamText do the work: their
// provider packages build the request and parse the response, `maxRetries` is their retry loop.
// The adapter hands them a fetch (recorded response, captured request, or the real loopback one)
// and renames their result's fields to the normalized form.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, RetryError, generateText, jsonSchema, streamText } from "ai";
import { TURN_NOT_OFFERED, capturedBody, capturingFetch, kindOfStatus, libraryProbe, recordedFetch, serve, textOf, versionOf } from "./lib/protocol.mjs";

const VERSION = versionOf("ai");

// provider -> the AI SDK model factory a user of that provider writes.
const PROVIDERS = {
  openai: (o) => createOpenAI(o).chat,
  anthropic: (o) => createAnthropic(o),
  gemini: (o) => createGoogleGenerativeAI(o),
  "openai-compatible": (o) => createOpenAICompatible({ name: "compatible", baseURL: o.baseURL ?? "https://example.invalid/v1", ...o }),
};

function model(provider, id, { baseURL, apiKey = "test-key", fetch } = {}) {
  const make = PROVIDERS[provider];
  if (!make) throw new Error(`ai-sdk adapter: provider ${provider} is not one it drives`);
  return make({ apiKey, fetch, ...(baseURL ? { baseURL } : {}) })(id ?? "model");
}

const STOP = { stop: "stop", length: "length", "tool-calls": "tool_use", "content-filter": "content_filter", error: "error" };

function userParts(content) {
  if (typeof content === "string") return content;
  return (content ?? []).flatMap((b) =>
    b.type === "text" ? [{ type: "text", text: b.text }] : b.type === "image" ? [{ type: "image", image: b.data ?? b.url, mediaType: b.media_type }] : [],
  );
}

function assistantParts(content) {
  if (typeof content === "string") return content;
  return (content ?? []).flatMap((b) => {
    if (b.type === "text") return [{ type: "text", text: b.text }];
    if (b.type === "thinking") return [{ type: "reasoning", text: b.thinking, providerOptions: b.signature ? { anthropic: { signature: b.signature } } : undefined }];
    if (b.type === "redacted_thinking") return [{ type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: b.data } } }];
    if (b.type === "tool_call") return [{ type: "tool-call", toolCallId: b.id, toolName: b.name, input: b.arguments ?? {} }];
    return [];
  });
}

/** A CONVERSATION.json as the generateText call an AI SDK user writes. */
function call(conversation) {
  const o = conversation.options ?? {};
  const messages = (conversation.messages ?? []).map((x) => {
    if (x.role === "system") return { role: "system", content: textOf(x.content) };
    if (x.role === "user") return { role: "user", content: userParts(x.content) };
    if (x.role === "assistant") return { role: "assistant", content: assistantParts(x.content) };
    return {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: x.tool_call_id, toolName: x.tool_name ?? "", output: { type: x.is_error ? "error-text" : "text", value: textOf(x.content) } }],
    };
  });
  const tools = Object.fromEntries(
    (conversation.tools ?? []).map((t) => [t.name, { description: t.description, inputSchema: jsonSchema(t.parameters ?? { type: "object", properties: {} }) }]),
  );
  return {
    messages,
    allowSystemInMessages: true,
    ...(Object.keys(tools).length ? { tools } : {}),
    ...(o.max_tokens ? { maxOutputTokens: o.max_tokens } : {}),
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...(o.top_p !== undefined ? { topP: o.top_p } : {}),
    ...(o.stop ? { stopSequences: Array.isArray(o.stop) ? o.stop : [o.stop] } : {}),
    // the provider packages' own thinking options (@ai-sdk/openai's chat model has no budget)
    ...(o.thinking_budget
      ? {
          providerOptions: {
            anthropic: { thinking: { type: "enabled", budgetTokens: o.thinking_budget } },
            google: { thinkingConfig: { thinkingBudget: o.thinking_budget, includeThoughts: true } },
          },
        }
      : {}),
  };
}

// Gemini's thoughtSignature, which @ai-sdk/google keeps in a part's provider metadata
const thoughtSignature = (p) => Object.values(p.providerMetadata ?? {}).find((m) => m?.thoughtSignature)?.thoughtSignature;

const snake = (v) =>
  Array.isArray(v) ? v.map(snake) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(x)])) : v;

/** @ai-sdk/anthropic's parts for a server tool's call and result as the wire blocks they came from:
 * `server_tool_use` (id, name, input) and `<name>_tool_result` (tool_use_id, the content it renamed
 * to camelCase; it writes them back to the wire the same way when the history is sent). */
function serverTool(p) {
  if (p.type === "tool-call") {
    let input = p.input;
    if (typeof input === "string") {
      try {
        input = JSON.parse(input);
      } catch {
        // kept as the text the provider sent
      }
    }
    const data = { type: "server_tool_use", id: p.toolCallId, name: p.toolName, input };
    return { type: "server_tool", dialect: "anthropic", name: data.type, id: p.toolCallId, data };
  }
  if (p.type === "tool-result") {
    const data = { type: `${p.toolName}_tool_result`, tool_use_id: p.toolCallId, content: snake(p.output ?? p.result) };
    return { type: "server_tool", dialect: "anthropic", name: data.type, id: p.toolCallId, data };
  }
  return null;
}

function part(p, provider) {
  if (p.type === "text") {
    const sig = thoughtSignature(p);
    return p.text === "" && !sig ? null : { type: "text", text: p.text, ...(sig ? { signature: sig } : {}) };
  }
  if (p.type === "reasoning") {
    const sig = p.providerMetadata?.anthropic?.signature;
    const redacted = p.providerMetadata?.anthropic?.redactedData;
    return redacted ? { type: "redacted_thinking", data: redacted } : { type: "thinking", thinking: p.text, ...(sig ? { signature: sig } : {}) };
  }
  // a call the provider ran itself (providerExecuted) is no client tool call: on Anthropic it is a
  // server tool block, whose wire item the SDK's part holds field for field (serverTool)
  if (p.providerExecuted) return provider === "anthropic" ? serverTool(p) : null;
  if (p.type === "tool-call") {
    const sig = thoughtSignature(p);
    const args = typeof p.input === "string" ? { arguments: {}, raw_arguments: p.input } : { arguments: p.input ?? {} };
    return { type: "tool_call", id: p.toolCallId, name: p.toolName, ...args, ...(sig ? { signature: sig } : {}) };
  }
  return null;
}

/** The usage Anthropic's `message_start` reported, as the SDK's usage (its input counts the cache parts). */
function startUsage(raw) {
  if (!raw) return undefined;
  const [read, write] = [raw.cache_read_input_tokens ?? 0, raw.cache_creation_input_tokens ?? 0];
  return { inputTokens: (raw.input_tokens ?? 0) + read + write, outputTokens: raw.output_tokens ?? 0, inputTokenDetails: { cacheReadTokens: read, cacheWriteTokens: write } };
}

function usage(u) {
  if (!u || (u.inputTokens === undefined && u.outputTokens === undefined)) return undefined;
  return {
    input_tokens: u.inputTokens ?? 0,
    output_tokens: u.outputTokens ?? 0,
    cache_read_tokens: u.inputTokenDetails?.cacheReadTokens ?? 0,
    cache_write_tokens: u.inputTokenDetails?.cacheWriteTokens ?? 0,
    reasoning_tokens: u.outputTokenDetails?.reasoningTokens ?? 0,
  };
}

function message(provider, { content, finishReason, rawFinishReason, usage: u, response }) {
  return {
    role: "assistant",
    content: (content ?? []).map((p) => part(p, provider)).filter(Boolean),
    // `other` (a reason the SDK does not know) has no normalized stop reason
    ...(STOP[finishReason] ? { stop_reason: STOP[finishReason] } : {}),
    ...(rawFinishReason !== undefined ? { raw_stop_reason: rawFinishReason } : {}),
    ...(usage(u) ? { usage: usage(u) } : {}),
    provider,
    ...(response?.modelId ? { model: response.modelId } : {}),
  };
}

/** An AI SDK error as the normalized error. The SDK classifies errors only as retryable or not; its
 * APICallError carries the HTTP status, read with its HTTP meaning (kindOfStatus). A failure without
 * a status (an error event inside a 200 stream) is one the provider sent: `server`. */
function error(exc) {
  const e = RetryError.isInstance(exc) ? exc.lastError : exc;
  // the body of a successful answer stopped arriving: Node's fetch says `TypeError: terminated`
  // (cause: undici's SocketError) and the SDK hands it on as this error's cause
  if (APICallError.isInstance(e) && connectionLost(e.cause)) return { kind: "stream_interrupted", message: e.message };
  if (APICallError.isInstance(e) && e.statusCode) return { kind: kindOfStatus(e.statusCode), status: e.statusCode, message: e.message };
  return { kind: "server", message: e instanceof Error ? e.message : String(e) };
}

const connectionLost = (cause) =>
  cause instanceof TypeError && (cause.message === "terminated" || String(cause.cause?.code ?? "").startsWith("UND_ERR"));

// decode has no tool definitions: every tool name the response calls is one the caller defined with
// an open schema, so the SDK parses its input as for any defined tool (sent as no tool at all).
const OPEN_TOOL = { inputSchema: jsonSchema({}) };
const ANY_TOOL = new Proxy(
  {},
  {
    getOwnPropertyDescriptor: (_, key) => (typeof key === "string" ? { value: OPEN_TOOL, configurable: true, enumerable: false, writable: false } : undefined),
    get: (_, key) => (typeof key === "string" ? OPEN_TOOL : undefined),
  },
);

async function run(provider, conversation, opts) {
  const m = model(provider, conversation.model, opts);
  const args = {
    model: m,
    ...call(conversation),
    ...(opts.tools ? { tools: opts.tools } : {}),
    // no retries but where a turn asks for the library's own (undefined: its default, 2)
    maxRetries: "maxRetries" in opts ? opts.maxRetries : 0,
  };
  const keep = opts.probe ? libraryProbe(provider) : null;
  if (!conversation.options?.stream) {
    try {
      const result = await generateText(args);
      keep?.("result", result);
      return { message: message(provider, result) };
    } catch (exc) {
      keep?.("error", exc);
      return { error: error(exc), partial: null };
    }
  }
  let failure = null;
  const result = streamText({ ...args, onError: ({ error: e }) => { failure ??= e; } });
  const parts = [];
  let text = null;
  let reasoning = null;
  let step;
  let started;
  try {
    for await (const p of result.fullStream) {
      keep?.("part", p);
      if (p.type === "error") failure ??= p.error;
      if (p.type === "text-start") parts.push((text = { type: "text", text: "", providerMetadata: p.providerMetadata }));
      if ((p.type === "text-delta" || p.type === "text-end") && text) {
        if (p.type === "text-delta") text.text += p.text;
        if (p.providerMetadata) text.providerMetadata = { ...text.providerMetadata, ...p.providerMetadata };
      }
      if (p.type === "reasoning-start") parts.push((reasoning = { type: "reasoning", text: "", providerMetadata: p.providerMetadata }));
      if (p.type === "reasoning-delta" && reasoning) {
        reasoning.text += p.text;
        if (p.providerMetadata) reasoning.providerMetadata = { ...reasoning.providerMetadata, ...p.providerMetadata };
      }
      if (p.type === "reasoning-end" && reasoning && p.providerMetadata) reasoning.providerMetadata = p.providerMetadata;
      if (p.type === "tool-call" || (p.type === "tool-result" && p.providerExecuted)) parts.push(p);
      // @ai-sdk/anthropic's `message_start` usage, which its finish step gives again only when the
      // stream ends with `message_delta` (a cut or failed stream's step has no token counts)
      if (p.type === "custom" && p.kind === "anthropic.message_start") started = p.providerMetadata?.anthropic?.usage;
      if (p.type === "finish-step") step = p;
    }
  } catch (exc) {
    failure ??= exc; // a connection that drops mid-body is thrown out of the stream, not sent as a part
  }
  const got = message(provider, { content: parts, finishReason: step?.finishReason, rawFinishReason: step?.rawFinishReason, usage: usage(step?.usage) ? step.usage : startUsage(started), response: step?.response });
  // what arrived before a failure carries the error too (docs/normalized-form.md); an interrupted
  // answer has no stop reason of its own
  if (failure) {
    keep?.("error", failure);
    const e = error(failure);
    const stop = e.kind === "stream_interrupted" ? {} : { stop_reason: "error" };
    const { stop_reason, ...rest } = got;
    return { error: e, partial: got.content.length ? { ...rest, ...stop, error: e } : null };
  }
  // the SDK's own finish reason for a stream that ended without its terminal event
  if (step?.finishReason === "interrupted") {
    const { stop_reason, ...rest } = got;
    const e = { kind: "stream_interrupted", message: "" };
    return { error: e, partial: { ...rest, error: e } };
  }
  return { message: got };
}

const declaration = {
  name: "ai-sdk",
  version: VERSION,
  providers: Object.keys(PROVIDERS),
  features: null,
  // a call's retries are `maxRetries` (one key); no compression, trimming or compaction
  not_offered: TURN_NOT_OFFERED,
  exposed_fields: ["message.raw_stop_reason", "message.usage", "error.message", "partial"],
};

await serve(declaration, {
  async encode({ conversation, provider }) {
    const seen = [];
    const out = await run(provider, conversation, { fetch: capturingFetch(seen) });
    // the library refused before sending anything: say what it said
    if (!seen.length && out?.error) throw new Error(`the library sent no request: ${out.error.message}`);
    return capturedBody(seen);
  },
  async decode({ provider, model, status, headers, chunks, stream, dropped }) {
    const conversation = { model, messages: [{ role: "user", content: "hi" }], options: { stream } };
    return run(provider, conversation, { fetch: recordedFetch({ status, headers, chunks, dropped }), tools: ANY_TOOL, probe: true });
  },
  async turn({ provider, conversation, base_url, keys, settings }) {
    const attempts = settings?.policy?.max_attempts;
    return run(provider, conversation, { baseURL: base_url, apiKey: keys?.[0], maxRetries: attempts ? attempts - 1 : undefined });
  },
});
