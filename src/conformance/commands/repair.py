"""`conformance repair`: a JSONL transcript repaired for one provider, with the actions taken."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser("repair", help="print a transcript repaired for a provider, with the actions and warnings")
    p.add_argument("--provider", required=True, help="target provider")
    p.add_argument("--model", help="target model (decides whether signed thinking may be sent back)")
    p.add_argument("transcript", metavar="TRANSCRIPT.jsonl")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from conformance.capabilities import get_profile
    from conformance.model import dump
    from conformance.runtime.repair import repair
    from conformance.runtime.transcripts import load_transcript

    profile = get_profile(args.provider)
    loaded = load_transcript(Path(args.transcript))
    result = repair(loaded.messages, profile, model=args.model)
    out = {
        "messages": [dump(m) for m in result.messages],
        "actions": [_action(a) for a in result.actions],
        "warnings": [*(str(w) for w in loaded.warnings), *(str(w) for w in result.warnings)],
    }
    sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    return 0


def _action(action: Any) -> dict[str, Any]:
    return {"rule": action.rule, "index": action.index, "detail": action.detail}
