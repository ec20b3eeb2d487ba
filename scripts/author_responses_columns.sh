#!/usr/bin/env bash
# The Responses columns' cassettes, authored with scripts/author_cassettes.py (see its docstring).
# Usage: scripts/author_responses_columns.sh TARGET ERRORS_SOURCE REASONING_MODEL
#   TARGET           openai_responses | azure_responses | xai_responses | openrouter_responses
#   ERRORS_SOURCE    the Chat Completions column whose HTTP error bodies the target shares
#   REASONING_MODEL  the model the thinking scenarios ask for
set -euo pipefail
target=$1 errors=$2 reasoning=$3
author() { python scripts/author_cassettes.py responses --target "$target" "$@" >/dev/null; }
author --source "$errors" context_overflow error_auth error_invalid_request error_not_found error_overloaded \
  error_rate_limit error_server
author --source openai refusal refusal_stream stop_content_filter stop_length text_basic usage_cached_tokens \
  usage_stream stream_error_midstream stream_text_multibyte stream_text_multibyte_3 stream_truncated \
  empty_arguments_json empty_arguments_stream invalid_arguments_stream parallel_tool_calls_stream \
  tool_call_single tool_call_stream retry_429_retry_after retry_auth_rotation retry_compress_payload_too_large
author --source anthropic --model "$reasoning" thinking_signature thinking_signature_json redacted_thinking \
  redacted_thinking_stream
author --source anthropic --model "$reasoning" --thinking-last thinking_after_text
author --source gemini --model "$reasoning" gemini_part_signatures_json gemini_part_signatures_stream
author --source anthropic --openai-errors retry_overloaded_backoff
conformance sync-requests --provider "$target" --yes >/dev/null
if [ "$target" = openrouter_responses ]; then  # OpenRouter's keep-alive comments and opaque upstream errors
  author --source openrouter --comment ": OPENROUTER PROCESSING" sse_framing
  author --source openrouter retry_compress_tool_results retry_compress_tool_results_stream
  conformance sync-requests --provider "$target" --yes >/dev/null
fi
