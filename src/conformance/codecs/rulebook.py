"""The provider rule book: every request rule a dialect's provider enforces, as data with its source.

One book per dialect (`codecs/<dialect>/rules.py`, `BOOK`). An entry (`Rule`) says what the provider
does with a request that breaks it (`effect`: rejects with `status`, ignores, reads differently),
where that fact comes from (`sources`: a provider document and the quoted sentence, a real recorded
4xx and the provider's message, or real recorded 2xx acceptance), where it holds (`scope`:
providers, profile flags, model families, API version) and when it was last checked. Real traffic
outranks documents: a rule a real 2xx contradicts is scoped to where it holds, the 2xx kept in
`contradicted_by`.

The dialect's validator (`codecs/<dialect>/validate.py`) finds where a body breaks a rule and names
the rule by id; the book decides what that means for one provider and model. An entry without a
source is a note: it is listed and reported, never fails a request.

A `field` rule is a request field the provider refuses (`Rule.field`): it replaces the profiles'
former `rejected_request_fields`, so the fact carries its source and scope.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from conformance.capabilities import BuiltinDialect

if TYPE_CHECKING:
    from conformance.capabilities import ProviderProfile

CHECKED = "2026-11-27"
"""The date the entries marked with it were verified against their source."""

SourceKind = Literal["doc", "real_4xx", "real_2xx"]
Effect = Literal["rejects", "ignores", "reads_as"]
RuleKind = Literal["structure", "schema", "value", "field", "token_limit"]
"""`structure` and `schema`: the shape of the conversation and tools; `value`: an option's value
(`temperature`); `field`: a field the provider refuses; `token_limit`: the output-token limit."""


@dataclass(frozen=True)
class Source:
    """Where a provider fact comes from."""

    kind: SourceKind
    where: str
    """A document's URL, a recording's path (corpus-relative), or an issue thread showing a real answer."""
    says: str = ""
    """The quoted sentence, or the provider's own error message."""

    def text(self) -> str:
        label = {"doc": "doc", "real_4xx": "real 4xx", "real_2xx": "real 2xx"}[self.kind]
        return f"{label}: {self.where}" + (f' — "{self.says}"' if self.says else "")


@dataclass(frozen=True)
class Scope:
    """Where a rule holds: every empty part means "every"."""

    profiles: tuple[str, ...] = ()
    """Provider profiles (by name) it holds for."""
    without_profiles: tuple[str, ...] = ()
    flag: str = ""
    """A `ProviderProfile` flag that must be set (`"!flag"`: must be unset)."""
    models: tuple[str, ...] = ()
    """Model-id prefixes it holds for."""
    without_models: tuple[str, ...] = ()
    api: str = ""
    """The API version or endpoint it was checked on (free text)."""

    def holds_for_provider(self, profile: ProviderProfile) -> bool:
        """Whether the rule can hold for `profile`, for some model."""
        return self.holds(profile, self.models[0] if self.models else None) or bool(self.without_models)

    def holds(self, profile: ProviderProfile, model: str | None) -> bool:
        if self.profiles and profile.name not in self.profiles:
            return False
        if profile.name in self.without_profiles:
            return False
        if self.flag:
            want = not self.flag.startswith("!")
            if bool(getattr(profile, self.flag.lstrip("!"), False)) != want:
                return False
        name = model or profile.default_model
        if self.models and not name.startswith(self.models):
            return False
        return not (self.without_models and name.startswith(self.without_models))

    def text(self) -> str:
        parts = []
        if self.profiles:
            parts.append("providers " + ", ".join(self.profiles))
        if self.without_profiles:
            parts.append("not " + ", ".join(self.without_profiles))
        if self.flag:
            parts.append(("without " + self.flag[1:]) if self.flag.startswith("!") else ("where " + self.flag))
        if self.models:
            parts.append("models " + ", ".join(f"{m}*" for m in self.models))
        if self.without_models:
            parts.append("not models " + ", ".join(f"{m}*" for m in self.without_models))
        if self.api:
            parts.append(self.api)
        return "; ".join(parts) or "every provider of the dialect"


@dataclass(frozen=True)
class Rule:
    """One provider fact about requests."""

    id: str
    does: str
    """What the provider does, in words (`answers 400 to a tool_use without a tool_result after it`)."""
    sources: tuple[Source, ...] = ()
    scope: Scope = Scope()
    checked: str = ""
    """The date the sources were last checked (empty: not known)."""
    effect: Effect = "rejects"
    status: int | None = 400
    kind: RuleKind = "structure"
    field: str = ""
    """A `field` rule: the top-level request key the provider refuses."""
    contradicted_by: tuple[Source, ...] = ()
    """Real 2xx traffic outside the scope: why the rule is scoped."""
    path: str = ""
    """Where in a body the rule speaks: a dotted pattern, `*` for one key or list index and `**` for
    any run of keys (`tools.*.input_schema.**.default`). A difference between two bodies there is a
    note when the rule is an `ignores` one or has no source."""

    @property
    def sourced(self) -> bool:
        return bool(self.sources)

    def source_text(self) -> str:
        return "; ".join(s.text() for s in self.sources)

    def effect_text(self) -> str:
        if self.effect == "rejects":
            return f"rejects ({self.status})" if self.status else "rejects"
        return "ignores" if self.effect == "ignores" else "reads differently"


@dataclass(frozen=True)
class RuleBook:
    """A dialect's rules, by id."""

    dialect: str
    rules: tuple[Rule, ...]

    def __post_init__(self) -> None:
        ids = [r.id for r in self.rules]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"rule book {self.dialect}: duplicate rule ids {', '.join(dupes)}")
        object.__setattr__(self, "_by_id", {r.id: r for r in self.rules})

    def rule(self, rule_id: str) -> Rule | None:
        found: Rule | None = self._by_id.get(rule_id)  # type: ignore[attr-defined]
        return found

    def fields(self) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.kind == "field")

    def applies(self, rule_id: str, profile: ProviderProfile, model: str | None) -> bool:
        """Whether the rule fails a request of `profile` for `model`: listed, sourced and in scope."""
        rule = self.rule(rule_id)
        return rule is not None and rule.sourced and rule.scope.holds(profile, model)

    def ignored_at(self, pattern: str, profile: ProviderProfile, model: str | None) -> Rule | None:
        """The rule that makes a difference at `pattern` (`messages.*.reasoning_content`) a note: one
        the provider ignores, or an unsourced claim that it rejects it; None when there is none."""
        for r in self.rules:
            quiet = r.effect == "ignores" or not r.sourced
            if quiet and r.path and _covers(r.path, pattern) and r.scope.holds(profile, model):
                return r
        return None

    def rejected_fields(self, profile: ProviderProfile, model: str | None) -> dict[str, Rule]:
        """The request fields `profile`'s provider refuses for `model`, with the rule saying so."""
        return {r.field: r for r in self.fields() if r.scope.holds(profile, model)}


def _covers(rule_path: str, pattern: str) -> bool:
    """Whether `pattern` (a difference's path, indices as `*`) lies at or under `rule_path`."""
    regex = _PATTERNS.get(rule_path)
    if regex is None:
        parts = [
            r"(?:\.[^.]+)*" if p == "**" else r"\.[^.]+" if p == "*" else r"\." + re.escape(p)
            for p in rule_path.split(".")
        ]
        regex = _PATTERNS[rule_path] = re.compile("".join(parts)[2:] + r"(?:\..*)?")
    return regex.fullmatch(pattern) is not None


_PATTERNS: dict[str, re.Pattern[str]] = {}
_BOOKS: dict[str, RuleBook] = {}


def register_rule_book(book: RuleBook) -> None:
    """Make a dialect's rule book available (a registered codec's dialect, or a replacement)."""
    _BOOKS[book.dialect] = book


def rule_book(dialect: str) -> RuleBook:
    """The dialect's book (built-in dialects' are imported on first use; unknown: an empty book)."""
    book = _BOOKS.get(dialect)
    if book is None:
        if dialect in get_args(BuiltinDialect):
            book = importlib.import_module(f"conformance.codecs.{dialect}.rules").BOOK
        else:
            book = RuleBook(dialect=dialect, rules=())
        _BOOKS[dialect] = book
    return book


def doc(url: str, says: str) -> Source:
    return Source("doc", url, says)


def real_4xx(where: str, says: str) -> Source:
    return Source("real_4xx", where, says)


def real_2xx(where: str, says: str = "") -> Source:
    return Source("real_2xx", where, says)
