"""conformance: replayable, diffable conformance checks for multi-provider LLM runtimes.

Data flow::

    scenarios/<topic>/<id>.yaml ──► scenarios.load ──► Scenario ──► harness.run(scenario, provider, runtime under test)
                                                                      │  each check needs capabilities; a runtime without one: skipped
    cassettes/<provider>/<id>.yaml ──► replay (cassette transport ────┤  runtime.encode ─► request  (body-matched; diffed for encode checks)
                     for httpx, vcrpy format; parsed once per run)    │  runtime.decode: wire.sse / wire.ndjson ─► codecs.<dialect> ─► canonical
                                                                      │  runtime.repair / runtime.turn (requests, keys, waits on a fake clock)
                                                                      │  runtime.load_transcript / store_session / context
                                                                      ▼
                                  compare (deepdiff, normalized paths) ─► Verdict ─► matrix.json ─► terminal (rich) | HTML report
    strategies (hypothesis) ─► pathological transcripts / re-chunked streams ─► the same runtime, judged by properties
"""

__version__ = "0.1.0"
