"""API keys: where each provider expects them, where they come from, and several per provider.

`apply_auth` puts a key where the profile's `auth_style` says and nowhere else (a header, or the
`key` query parameter). `resolve_key` reads it from the provider's environment variables as a
`secrets.Secret` (a value whose `repr` is its fingerprint) and registers it with the log filter.
`AuthPool` holds several keys (auth profiles): a 429 puts the current one on cooldown and the turn
moves to the next; a 401 marks it for refresh. Keys never appear in a repr, a trace or an error:
profiles are shown by index and a short fingerprint.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlencode

from conformance.capabilities import ProviderProfile
from conformance.codecs import WireRequest
from conformance.exceptions import InputError, MissingKeyError
from conformance.runtime import logsafe
from conformance.secrets import Secret, key_fingerprint, reveal

logsafe.install()

_HEADERS: dict[str, tuple[str, str]] = {
    "bearer": ("authorization", "Bearer {key}"),
    "api-key": ("api-key", "{key}"),
    "x-api-key": ("x-api-key", "{key}"),
    "x-goog-api-key": ("x-goog-api-key", "{key}"),
}


def validate_key(key: str, *, where: str = "key") -> str:
    """`key` when its format can be a key (seed 002: "Validate API key format before use"): not
    empty, no whitespace or control character inside (a key pasted with its line end, or with
    `Bearer ` in front, would go out as a malformed header or another credential), otherwise a
    typed one-line error naming the key by fingerprint only."""
    if not key.strip():
        raise InputError("the API key is empty", where=where)
    bad = next((c for c in key if c.isspace() or ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        what = "a space" if bad == " " else f"the character U+{ord(bad):04X}"
        raise InputError(f"API key {fingerprint(key)} holds {what}: not a key as providers issue them", where=where)
    return key


def apply_auth(
    request: WireRequest, profile: ProviderProfile, secret: str | Secret | None
) -> tuple[str, dict[str, str]]:
    """The request URL and headers with the key in place (its format checked first: `validate_key`)."""
    key = reveal(secret)
    if key is not None and profile.auth_style != "none":
        validate_key(key, where=f"{profile.name} API key")
    url = request.url(profile)
    headers = dict(request.headers)
    if profile.auth_style == "none" or key is None:
        return url, headers
    if profile.auth_style == "query-key":
        return url + ("&" if "?" in url else "?") + urlencode({"key": key}), headers
    name, template = _HEADERS[profile.auth_style]
    headers[name] = template.format(key=key)
    return url, headers


def resolve_key(profile: ProviderProfile, env: Mapping[str, str]) -> Secret | None:
    """The first non-empty key among the profile's variables, as a `Secret` (registered with the
    log filter, so an echo of it is scrubbed from every HTTP log line); None for keyless providers."""
    if profile.auth_style == "none":
        return None
    for name in profile.key_env:
        value = env.get(name, "").strip()
        if value:
            secret = Secret(validate_key(value, where=name))
            logsafe.register(secret)
            return secret
    raise MissingKeyError(profile.name, profile.key_env)


def fingerprint(key: str) -> str:
    return "key#" + key_fingerprint(key)[3:11]


@dataclass
class _Slot:
    key: str = field(repr=False)
    cooling_until: float = 0.0
    needs_refresh: bool = False


@dataclass
class AuthPool:
    """Several keys for one provider, used in order, skipping those cooling down or to refresh."""

    slots: list[_Slot] = field(default_factory=list)
    current: int = 0

    @classmethod
    def of(cls, keys: Sequence[str]) -> AuthPool:
        if not keys or any(not k.strip() for k in keys):
            raise InputError("every auth profile needs a non-empty API key", where="keys")
        return cls([_Slot(validate_key(k, where=f"keys[{i}]")) for i, k in enumerate(keys)])

    def __repr__(self) -> str:
        return f"AuthPool({', '.join(fingerprint(s.key) for s in self.slots)}; current={self.current})"

    def __len__(self) -> int:
        return len(self.slots)

    def usable(self, now: float) -> list[int]:
        return [i for i, s in enumerate(self.slots) if not s.needs_refresh and s.cooling_until <= now]

    def pick(self, now: float) -> int | None:
        """The current profile if usable, else the next usable one; None when none is."""
        order = [(self.current + n) % len(self.slots) for n in range(len(self.slots))]
        for i in order:
            if i in self.usable(now):
                self.current = i
                return i
        return None

    def key(self, index: int) -> str:
        return self.slots[index].key

    def cool_down(self, index: int, until: float) -> None:
        self.slots[index].cooling_until = max(self.slots[index].cooling_until, until)
        self.current = (index + 1) % len(self.slots)

    def mark_refresh(self, index: int) -> None:
        self.slots[index].needs_refresh = True
        self.current = (index + 1) % len(self.slots)

    def refreshed(self, index: int, key: str) -> None:
        self.slots[index] = _Slot(key)

    def next_ready(self, now: float) -> float | None:
        """When the first cooling profile is usable again (None when all need a refresh)."""
        times = [s.cooling_until for s in self.slots if not s.needs_refresh]
        return min(times) if times else None
