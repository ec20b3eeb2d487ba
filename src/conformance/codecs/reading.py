"""How a provider reads one request: the one question the checks ask of the codecs.

`read_request(body, profile, url=..., headers=...)` applies the dialect's rule book to a wire
body: the structural rules its validator finds broken, the request fields the provider refuses, and
the token-limit rules. Each finding names its rule and carries the rule's source; a rule without a
source, or one whose effect is not a rejection, gives a `note`; a rule out of scope for the
provider or model gives nothing. `book_entries(dialect)` lists the book with the dialect's request
table (its equivalences, defaults and informational keys), for `conformance rules`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from conformance.capabilities import ProviderProfile
from conformance.codecs import codec_for
from conformance.codecs.request_form import RequestFinding, request_table
from conformance.codecs.rulebook import Rule, rule_book
from conformance.codecs.token_limits import token_limit_findings
from conformance.codecs.validation import PENDING_CALL, Violation

_MODEL_IN_PATH = re.compile(r"/(?:models|deployments)/([^/:]+)")


def request_model(body: Any, profile: ProviderProfile, url: str | None = None) -> str | None:
    """The model a request asks for: its `model`, else the one its URL names (Gemini, Azure)."""
    if isinstance(body, dict) and isinstance(body.get("model"), str) and body["model"]:
        return str(body["model"])
    if url:
        found = _MODEL_IN_PATH.search(unquote(urlsplit(url).path))
        if found:
            return found.group(1)
    return None


def broken(
    body: dict[str, Any], profile: ProviderProfile, model: str | None = None, *, awaiting_tools: bool = False
) -> list[tuple[Violation, Rule | None]]:
    """The validator's violations of `body` that hold for `profile` and `model` (in scope), each
    with its book entry (None: a rule id the book does not list)."""
    check = codec_for(profile).validate
    if check is None:
        return []
    book = rule_book(profile.dialect)
    named = request_table(profile.dialect).named(body)
    out: list[tuple[Violation, Rule | None]] = []
    for v in check(named, profile):
        if awaiting_tools and v.rule == PENDING_CALL:
            continue
        rule = book.rule(v.rule)
        if rule is None or rule.scope.holds(profile, model):
            out.append((v, rule))
    return out


def _verdict(rule: Rule | None) -> str:
    return "fail" if rule is not None and rule.sourced and rule.effect == "rejects" else "note"


def violation_finding(v: Violation, rule: Rule | None, profile: ProviderProfile) -> RequestFinding:
    if rule is None:
        fact = f"{v.message} ({v.rule}: not in {profile.dialect}'s rule book)"
        return RequestFinding(path=v.path, verdict="note", fact=fact)
    what = (
        rule.effect_text()
        if rule.effect != "rejects"
        else "rejects it"
        if rule.sourced
        else "may reject it (no source)"
    )
    return RequestFinding(
        path=v.path,
        verdict="fail" if _verdict(rule) == "fail" else "note",
        fact=f"{profile.name} {what}: {v.message} ({v.rule})",
        source=rule.source_text(),
    )


def read_request(
    body: Any,
    profile: ProviderProfile,
    *,
    url: str | None = None,
    headers: Mapping[str, str] | None = None,
    awaiting_tools: bool = False,
) -> list[RequestFinding]:
    """How `profile`'s provider reads `body`: the findings of its rule book (empty: accepted as sent).

    `headers` are accepted for rules that depend on them (none in the bundled books);
    `awaiting_tools`: a transcript waiting for its tools, so `pending_call` is left out."""
    del headers
    if not isinstance(body, dict):
        return [RequestFinding(path="", actual=body, verdict="fail", fact="a request body is a JSON object")]
    model = request_model(body, profile, url)
    findings = [
        violation_finding(v, r, profile) for v, r in broken(body, profile, model, awaiting_tools=awaiting_tools)
    ]
    for key, rule in rule_book(profile.dialect).rejected_fields(profile, model).items():
        if key in body:
            fact = f"{profile.name} {rule.does}"
            verdict = "fail" if _verdict(rule) == "fail" else "note"
            findings.append(
                RequestFinding(path=key, actual=body[key], verdict=verdict, fact=fact, source=rule.source_text())
            )
    findings += token_limit_findings(body, profile, model, presence=False)
    return findings


@dataclass(frozen=True)
class Entry:
    """One line of a printed rule book."""

    id: str
    does: str
    scope: str
    source: str
    checked: str
    kind: str
    sourced: bool


def book_entries(dialect: str, profile: ProviderProfile | None = None) -> list[Entry]:
    """The dialect's rule book, then its request table's equivalences, as printable entries (with a
    profile: only the rules whose scope can hold for it, whatever the model)."""
    rules = [r for r in rule_book(dialect).rules if profile is None or r.scope.holds_for_provider(profile)]
    out = [
        Entry(
            id=r.id,
            does=f"{r.effect_text()}: {r.does}",
            scope=r.scope.text()
            + (
                ""
                if not r.contradicted_by
                else " | real 2xx outside it: " + "; ".join(s.text() for s in r.contradicted_by)
            ),
            source=r.source_text() or "(no source: a note, never a fail)",
            checked=r.checked or "—",
            kind=r.kind,
            sourced=r.sourced,
        )
        for r in rules
    ]
    for kind, what, source in request_table(dialect).rules():
        out.append(
            Entry(
                id=f"{kind}:{what}",
                does=f"reads alike: {what}" if kind != "informational" else f"ignores a difference at {what}",
                scope="every provider of the dialect"
                if "(where " not in what
                else what.split("(where ", 1)[1].rstrip(")"),
                source=f"doc: {source}",
                checked="—",
                kind="equivalence",
                sourced=True,
            )
        )
    return out
