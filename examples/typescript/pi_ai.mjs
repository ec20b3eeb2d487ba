// conformance runtime-protocol adapter for @mariozechner/pi-ai (docs/runtimes.md).
// encode / decode / turn all go through pi-ai's own `complete()`: its request building, its SDK
// clients, its stream parsing. The adapter only moves bytes (a swapped fetch) and renames fields.
import { complete, isContextOverflow, stream } from "@mariozechner/pi-ai";
import { TURN_NOT_OFFERED, capturedBody, capturingFetch, libraryProbe, recordedFetch, serve, textOf, versionOf, withFetch } from "./lib/protocol.mjs";

const VERSION = versionOf("@mariozechner/pi-ai");

// provider -> pi-ai's api, provider name and default base URL (the URL pi-ai's model table uses).
const PROVIDERS = {
  openai: { api: "openai-completions", provider: "openai", baseUrl: "https://api.openai.com/v1" },
  openrouter: { api: "openai-completions", provider: "openrouter", baseUrl: "https://openrouter.ai/api/v1" },
  xai: { api: "openai-completions", provider: "xai", baseUrl: "https://api.x.ai/v1" },
  groq: { api: "openai-completions", provider: "groq", baseUrl: "https://api.groq.com/openai/v1" },
  deepseek: { api: "openai-completions", provider: "deepseek", baseUrl: "https://api.deepseek.com" },
  fireworks: { api: "openai-completions", provider: "fireworks", baseUrl: "https://api.fireworks.ai/inference/v1" },
  // the Anthropic SDK pi-ai uses appends /v1/messages itself: its base URL has no version
  anthropic: { api: "anthropic-messages", provider: "anthropic", baseUrl: "https://api.anthropic.com", unversioned: true },
  gemini: { api: "google-generative-ai", provider: "google", baseUrl: "https://generativelanguage.googleapis.com/v1beta" },
};

const STOP = { stop: "stop", length: "length", toolUse: "tool_use", error: "error", aborted: "aborted" };

function model(provider, id, baseUrl, reasoning = false) {
  const p = PROVIDERS[provider];
  if (!p) throw new Error(`pi-ai adapter: provider ${provider} is not one it drives`);
  return {
    id: id ?? "model", name: id ?? "model", api: p.api, provider: p.provider,
    baseUrl: baseUrl === undefined ? p.baseUrl : p.unversioned ? baseUrl.replace(/\/v1\/?$/, "") : baseUrl,
    reasoning, input: ["text", "image"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 1_000_000, maxTokens: 32_000,
  };
}

const ZERO = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

function userBlocks(content) {
  if (typeof content === "string") return content;
  return (content ?? []).flatMap((b) =>
    b.type === "text" ? [{ type: "text", text: b.text }] : b.type === "image" && b.data ? [{ type: "image", data: b.data, mimeType: b.media_type }] : [],
  );
}

function assistantBlocks(content) {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return (content ?? []).flatMap((b) => {
    if (b.type === "text") return [{ type: "text", text: b.text, ...(b.signature ? { textSignature: b.signature } : {}) }];
    if (b.type === "thinking") return [{ type: "thinking", thinking: b.thinking, thinkingSignature: b.signature ?? undefined }];
    if (b.type === "redacted_thinking") return [{ type: "thinking", thinking: "", thinkingSignature: b.data, redacted: true }];
    if (b.type === "tool_call") return [{ type: "toolCall", id: b.id, name: b.name, arguments: b.arguments ?? {}, ...(b.signature ? { thoughtSignature: b.signature } : {}) }];
    return [];
  });
}

/** A CONVERSATION.json as the pi-ai Context a pi-ai user writes. */
function context(conversation, m) {
  const ts = 0;
  const system = (conversation.messages ?? []).filter((x) => x.role === "system").map((x) => textOf(x.content));
  const messages = (conversation.messages ?? []).flatMap((x) => {
    if (x.role === "user") return [{ role: "user", content: userBlocks(x.content), timestamp: ts }];
    if (x.role === "assistant")
      return [{ role: "assistant", content: assistantBlocks(x.content), api: m.api, provider: m.provider, model: m.id, usage: ZERO, stopReason: "stop", timestamp: ts }];
    if (x.role === "tool_result")
      return [{ role: "toolResult", toolCallId: x.tool_call_id, toolName: x.tool_name ?? "", content: userBlocks(x.content) === x.content ? [{ type: "text", text: x.content }] : userBlocks(x.content), isError: !!x.is_error, timestamp: ts }];
    return [];
  });
  const tools = (conversation.tools ?? []).map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.parameters ?? { type: "object", properties: {} } }));
  return { ...(system.length ? { systemPrompt: system.join("\n\n") } : {}), messages, ...(tools.length ? { tools } : {}) };
}

function options(conversation, extra = {}) {
  const o = conversation.options ?? {};
  return {
    ...(o.max_tokens ? { maxTokens: o.max_tokens } : {}),
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    // AnthropicOptions' extended thinking (pi-ai has no budget option for the other apis)
    ...(o.thinking_budget ? { thinkingEnabled: true, thinkingBudgetTokens: o.thinking_budget } : {}),
    apiKey: "test-key",
    maxRetries: 0,
    ...extra,
  };
}

function block(b) {
  if (b.type === "text") return { type: "text", text: b.text, ...(b.textSignature ? { signature: b.textSignature } : {}) };
  if (b.type === "thinking")
    return b.redacted ? { type: "redacted_thinking", data: b.thinkingSignature } : { type: "thinking", thinking: b.thinking, signature: b.thinkingSignature ?? null };
  return { type: "tool_call", id: b.id, name: b.name, arguments: b.arguments ?? {}, ...(b.thoughtSignature ? { signature: b.thoughtSignature } : {}) };
}

/** pi-ai's AssistantMessage as an outcome. pi-ai never throws: a failure is `stopReason: "error"`
 * with `errorMessage`, read as an error outcome. Its `usage.input` excludes cached tokens (pi-ai's
 * documented split), so the prompt total is input + cache parts. */
function outcome(msg, provider) {
  const u = msg.usage ?? ZERO;
  const message = {
    role: "assistant",
    content: (msg.content ?? []).filter((b) => !(b.type === "text" && b.text === "" && !b.textSignature)).map(block),
    stop_reason: STOP[msg.stopReason] ?? msg.stopReason,
    usage: { input_tokens: u.input + u.cacheRead + u.cacheWrite, output_tokens: u.output, cache_read_tokens: u.cacheRead, cache_write_tokens: u.cacheWrite },
    provider,
  };
  // pi-ai classifies one failure only (isContextOverflow); any other is read as `server`, the kind
  // of a failure nothing narrows (as the AI SDK adapter reads an error without an HTTP status).
  if (msg.stopReason !== "error") return { message };
  const error = isContextOverflow(msg) ? { kind: "context_overflow", message: msg.errorMessage ?? "" } : { kind: "server", message: said(msg.errorMessage) };
  // what arrived before the failure: its content, or the usage the provider reported
  const arrived = message.content.length || u.input || u.output || u.cacheRead || u.cacheWrite;
  return { error, partial: arrived ? { ...message, error } : null };
}

/** The provider's message in pi-ai's `errorMessage`, which is the provider's error object as JSON
 * where the SDK under it got one in the stream (Anthropic's `{"type":"error","error":{…}}`). */
function said(text) {
  if (!text?.startsWith("{")) return text ?? "";
  try {
    const body = JSON.parse(text);
    const inner = body?.error && typeof body.error === "object" ? body.error : body;
    return typeof inner?.message === "string" ? inner.message : text;
  } catch {
    return text;
  }
}

const declaration = {
  name: "pi-ai",
  version: VERSION,
  providers: Object.keys(PROVIDERS),
  features: null,
  // pi-ai keeps an error's message text only: no status, no kind but context overflow. A turn is
  // one call with the SDK's own retries: one key, no compression, trimming or compaction.
  not_offered: ["error_invalid_request", "error_rate_limit", "error_auth", "error_not_found", "error_overloaded", ...TURN_NOT_OFFERED],
  exposed_fields: ["message.usage", "error.message", "partial"],
};

await serve(declaration, {
  async encode({ conversation, provider }) {
    const m = model(provider, conversation.model, undefined, !!conversation.options?.thinking_budget);
    const seen = [];
    await withFetch(capturingFetch(seen), () => complete(m, context(conversation, m), options(conversation)));
    return capturedBody(seen);
  },
  async decode({ provider, model: id, status, headers, chunks, dropped }) {
    const m = model(provider, id);
    const ctx = { messages: [{ role: "user", content: "hi", timestamp: 0 }] };
    const keep = libraryProbe(provider);
    const msg = await withFetch(recordedFetch({ status, headers, chunks, dropped }), async () => {
      if (!keep) return complete(m, ctx, options({}));
      // the library probe: the events a pi-ai stream hands its reader (each without `partial`, the
      // message so far, whose last form is the result), then the message `complete` returns
      const events = stream(m, ctx, options({}));
      for await (const { partial, ...event } of events) keep("event", event);
      return events.result();
    });
    keep?.("message", msg);
    return outcome(msg, provider);
  },
  async turn({ provider, conversation, base_url, keys, settings }) {
    const m = model(provider, conversation.model, base_url, !!conversation.options?.thinking_budget);
    const attempts = settings?.policy?.max_attempts;
    const msg = await complete(m, context(conversation, m), options(conversation, { apiKey: keys?.[0] ?? "test-key", maxRetries: attempts ? attempts - 1 : undefined }));
    return outcome(msg, provider);
  },
});
