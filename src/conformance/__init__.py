"""conformance: replayable, diffable conformance checks for multi-provider LLM runtimes.

Data flow::

    scenarios/<topic>/<id>.yaml ──► scenarios.load ──► Scenario ──► harness.run(scenario, provider, runtime under test)
                                                                      │  in process, or a program over JSON lines (--runtime-cmd)
                                                                      │  its declaration: outside it not_offered; no capability: skipped
    cassettes/<provider>/<id>.yaml ──► replay (cassette transport ────┤  runtime.encode ─► request  (read as the provider reads it:
       authored: meta.sources cite     for httpx; faults as the      │      codecs.reading.read_request, the dialect's rule book:
       what real traffic lacks         transport sees them)          │      every rule sourced, findings, not byte equality)
    corpus/<provider>/<api>/*.yaml ──► real recorded calls ──────────┤  runtime.decode: wire.sse / wire.ndjson ─► codecs.<dialect> ─► canonical
       + corpus/expected (reviewed     (judged for any runtime)      │  runtime.repair / runtime.turn (requests, keys, waits on a fake clock)
         against the official SDKs)                                  │  runtime.load_transcript / store_session / context / agent
                                                                      ▼
                                  compare (deepdiff, the row's focus) ─► Verdict + kind + evidence (wire source, rule source,
                                                                         class: defect | limitation | policy | unverified)
                                                                            ─► matrix.json ─► terminal (rich) | HTML report
                                                                                       └─► conformance publish ─► static site
    strategies (hypothesis) ─► pathological transcripts / re-chunked / re-streamed answers ─► the same runtime, judged by properties
    corpus + cassettes ─► conformance lint --realism (authored shapes seen in real traffic, or cited)
"""

__version__ = "0.1.0"
