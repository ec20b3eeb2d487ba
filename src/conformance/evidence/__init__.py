"""Real recorded traffic behind the matrix: a manifest of public recordings (where each comes
from, its content hash, its licence) and the facts drawn from them (which provider × feature
cells each backs, and whether the decode agrees with the official SDK).

The recordings stay in their source projects; `conformance evidence fetch` brings them into a
local cache and `conformance evidence derive` draws the facts again from it.
"""
