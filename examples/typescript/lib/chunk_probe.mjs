// The chunk probe (tests/examples/test_chunk_boundaries.py): with CONFORMANCE_CHUNK_PROBE=<file>, every
// piece of a streamed body that a library's own stream decoder is handed is appended to <file> as a
// JSON line `{"probe", "bytes"}`. lib/protocol.mjs installs it before serving; unset, this module is
// never loaded. Each probe sits at the entry of the decoder the library's code path really uses:
//
// - ai-sdk: `parseJsonEventStream` (@ai-sdk/provider-utils) pipes the response body through
//   `new TextDecoderStream()` and then its `EventSourceParserStream`. A TextDecoderStream constructed
//   by `parseJsonEventStream` (read from the call stack) gets a counting TransformStream in front: the
//   pieces counted are those the library's own parser pipeline reads.
// - pi-ai on OpenAI: the openai SDK's `Stream.fromSSEResponse` (openai/streaming), whose
//   `_iterSSEMessages` reads `response.body`; the response it is handed gets that body counted on its
//   way in (and so for any library streaming through the openai or Anthropic SDK's `Stream`).
// - pi-ai on Anthropic: pi-ai decodes the SSE itself (`iterateAnthropicEvents` → `iterateSseMessages`,
//   module-private) from the response of the Anthropic SDK's `APIPromise.asResponse()`
//   (@anthropic-ai/sdk/api-promise); the body of that response, the very stream pi-ai's decoder
//   reads with `getReader()`, is counted.
// - pi-ai on Gemini: @google/genai's `ApiClient.prototype.processStreamResponse`, which reads
//   `response.body` with `getReader()`; the same counted body.
import { appendFileSync } from "node:fs";

export async function install(file) {
  const counter = (probe) =>
    new TransformStream({
      transform(chunk, controller) {
        const bytes = chunk.byteLength ?? chunk.length ?? 0;
        if (bytes) appendFileSync(file, `${JSON.stringify({ probe, bytes })}\n`);
        controller.enqueue(chunk);
      },
    });
  // the response as it was, its body read through the counter
  const counted = (response, probe) => {
    if (response?.body) Object.defineProperty(response, "body", { value: response.body.pipeThrough(counter(probe)), configurable: true });
    return response;
  };

  const RealTextDecoderStream = globalThis.TextDecoderStream;
  globalThis.TextDecoderStream = function TextDecoderStream(...args) {
    const inner = new RealTextDecoderStream(...args);
    if (!(new Error().stack ?? "").includes("parseJsonEventStream")) return inner;
    const front = counter("@ai-sdk/provider-utils parseJsonEventStream");
    front.readable.pipeTo(inner.writable).catch(() => {}); // an error reaches the reader through inner
    return { writable: front.writable, readable: inner.readable };
  };

  for (const [probe, spec] of [["openai Stream.fromSSEResponse", "openai/streaming"], ["@anthropic-ai/sdk Stream.fromSSEResponse", "@anthropic-ai/sdk/streaming"]]) {
    const { Stream } = await import(spec);
    const real = Stream.fromSSEResponse;
    Stream.fromSSEResponse = function fromSSEResponse(response, ...rest) {
      return real.call(this, counted(response, probe), ...rest);
    };
  }

  const { APIPromise } = await import("@anthropic-ai/sdk/api-promise");
  const asResponse = APIPromise.prototype.asResponse;
  APIPromise.prototype.asResponse = function (...args) {
    return asResponse.apply(this, args).then((response) => counted(response, "@anthropic-ai/sdk APIPromise.asResponse"));
  };

  const { GoogleGenAI } = await import("@google/genai");
  const apiClient = Object.getPrototypeOf(new GoogleGenAI({ apiKey: "probe" }).apiClient);
  const real = apiClient.processStreamResponse;
  apiClient.processStreamResponse = function processStreamResponse(response, ...rest) {
    return real.call(this, counted(response, "@google/genai processStreamResponse"), ...rest);
  };
}
