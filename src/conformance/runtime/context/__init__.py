"""Context management for the reference runtime: token accounting (`tokens`), history trimming
(`trim`), compaction through the turn loop (`compact`), session files that survive a crash during
compaction (`session`), Gemini-proxy recovery (`proxy`) and the `context` protocol entry (`api`).

Nothing is imported here, so `runtime.turn` can import the small hook types without a cycle.
"""
