"""conformance: replayable, diffable conformance checks for multi-provider LLM runtimes.

Data flow::

    scenarios/<topic>/<id>.yaml ──► scenarios.load ──► Scenario ──► harness.run(scenario, provider, runtime)
                                                                      │
    cassettes/<provider>/<id>.yaml ──► replay (vcrpy over httpx) ─────┤  runtime.encode ─► request  (diffed for encode checks)
                                                                      │  wire.sse / wire.ndjson ─► codecs.<dialect> ─► canonical
                                                                      │  runtime.repair / runtime.retry / transcripts
                                                                      ▼
                                  compare (deepdiff, normalized paths) ─► Verdict ─► matrix.json ─► terminal (rich) | HTML report
    strategies (hypothesis) ─► pathological transcripts / re-chunked streams ─► the same runtime, judged by properties
"""

__version__ = "0.1.0"
