"""conformance: replayable, diffable conformance checks for multi-provider LLM runtimes.

Data flow::

    scenarios/<topic>/<id>.yaml ──► scenarios.load ──► Scenario ──► harness.run(scenario, provider, runtime under test)
                                                                      │  in process, or a program over JSON lines (--runtime-cmd)
                                                                      │  its declaration: outside it not_offered; no capability: skipped
    cassettes/<provider>/<id>.yaml ──► replay (cassette transport ────┤  runtime.encode ─► request  (read as the provider reads it:
                     for httpx, vcrpy format; parsed once per run)    │      codecs.<dialect>.request_reader; findings, not byte equality)
                                                                      │  runtime.decode: wire.sse / wire.ndjson ─► codecs.<dialect> ─► canonical
                                                                      │  runtime.repair / runtime.turn (requests, keys, waits on a fake clock)
                                                                      │  runtime.load_transcript / store_session / context
                                                                      ▼
                                  compare (deepdiff, the row's focus) ─► Verdict + kind ─► matrix.json ─► terminal (rich) | HTML report
                                                                                                └─► conformance publish ─► static site
    strategies (hypothesis) ─► pathological transcripts / re-chunked streams ─► the same runtime, judged by properties
"""

__version__ = "0.1.0"
