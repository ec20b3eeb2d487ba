"""The files `conformance init` writes: a user project layered over the bundled data, and CI workflows."""

from __future__ import annotations

from conformance import __version__

ROOT = "conformance"
RUNTIME = "my_runtime:make"

MANIFEST = """\
# This root is layered over the scenarios and cassettes the conformance package ships:
# a scenario here with a bundled id replaces it, a new one is added.
bundled: true
features:
  - {id: my_greeting, group: my project, title: The model greets in plain text}
"""

SCENARIO = """\
title: A plain-text greeting, as this project's model answers it
feature: my_greeting
check: decode
applies_to: [anthropic]
input:
  messages: [{role: user, content: "Say hello"}]
  options: {max_tokens: 64}
providers:
  anthropic: {}
expected:
  message:
    role: assistant
    content: [{type: text, text: "Hello!"}]
    stop_reason: stop
    raw_stop_reason: end_turn
    usage: {input_tokens: 12, output_tokens: 4}
"""

CASSETTE = """\
meta: {provider: anthropic, model: claude-sonnet-4-5-20250929, recorded: '2026-11-22'}
interactions:
- request:
    method: POST
    uri: https://api.anthropic.com/v1/messages
    headers: {content-type: [application/json]}
    body: null
  response:
    status: {code: 200, message: OK}
    headers: {content-type: [application/json], request-id: [req_011CV1]}
    body:
      string: '{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Hello!"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":4,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}'
version: 1
"""

ADAPTER = '''\
"""The runtime under test. `decode` turns one provider response into the normalized outcome.

Replace the body of `decode` with a call into your own runtime and a mapping of its result; the
capabilities it does not implement (encode, repair, retry, ...) are reported as not offered.
"""

from __future__ import annotations

from typing import Any

from conformance.runtime.reference import ReferenceRuntime


class MyRuntime:
    """A runtime offering `decode` only."""

    def __init__(self) -> None:
        self._stand_in = ReferenceRuntime()  # replace with your runtime

    def decode(
        self, provider: str, status: int, headers: dict[str, str], chunks: list[bytes], stream: bool
    ) -> dict[str, Any]:
        return self._stand_in.decode(provider, status, headers, chunks, stream)


def make() -> MyRuntime:
    return MyRuntime()
'''

PYTEST_INI = f"""\
[pytest]
pythonpath = .
testpaths = {ROOT}/scenarios
conformance_root = {ROOT}
addopts = --conformance-runtime={RUNTIME}
"""

DISTRIBUTION = "llm-conformance"
"""The project's name on the package index (the import package is `conformance`; the name
`conformance` there belongs to an unrelated project)."""

INSTALL = f'pip install "{DISTRIBUTION}=={__version__}"'

PULL_REQUEST = f"""\
name: conformance
on:
  pull_request:
  push:
    branches: [main]
permissions:
  contents: read
jobs:
  replay:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: {INSTALL}
      - name: Replay the matrix against the recorded cassettes
        run: conformance run --root {ROOT} --runtime {RUNTIME} --no-progress --out reports/current
      - name: Replay the base branch for the release gate
        if: github.event_name == 'pull_request'
        run: |
          git fetch --depth=1 origin "$BASE_REF"
          git worktree add ../base FETCH_HEAD
          (cd ../base && conformance run --root {ROOT} --runtime {RUNTIME} --no-progress --out "$GITHUB_WORKSPACE/reports/base") || true
        env:
          BASE_REF: ${{{{ github.base_ref }}}}
      - name: Release gate (a regressed scenario fails the check)
        if: github.event_name == 'pull_request'
        run: conformance report --input reports/current/matrix.json --previous reports/base/matrix.json --fail-on-regression --format github
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: conformance-report
          path: reports/
"""

RECORD = f"""\
name: record cassettes
on:
  schedule:
    - cron: "17 5 * * 1"
  workflow_dispatch:
permissions:
  contents: read
jobs:
  record:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: {INSTALL}
      - name: Record from the live provider (fails when its key is missing)
        run: conformance record --root {ROOT} --provider anthropic --record-mode all --require-keys --runtime {RUNTIME} --no-progress
        env:
          ANTHROPIC_API_KEY: ${{{{ secrets.ANTHROPIC_API_KEY }}}}
      - run: conformance lint {ROOT}/cassettes --root {ROOT}
      - uses: actions/upload-artifact@v4
        with:
          name: recorded-cassettes
          path: {ROOT}/cassettes/
"""

PAGES = f"""\
name: publish
on:
  push:
    branches: [main]
  workflow_dispatch:
permissions:
  contents: read
  pages: write
  id-token: write
concurrency:
  group: pages
  cancel-in-progress: false
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: {INSTALL}
      - run: conformance run --root {ROOT} --runtime {RUNTIME} --no-progress --out runs/latest || true
      - run: conformance publish runs --out site
      - uses: actions/upload-pages-artifact@v3
        with:
          path: site
  deploy:
    needs: build
    runs-on: ubuntu-latest
    environment:
      name: github-pages
      url: ${{{{ steps.deployment.outputs.page_url }}}}
    steps:
      - id: deployment
        uses: actions/deploy-pages@v4
"""

PROJECT: dict[str, str] = {
    f"{ROOT}/conformance.yaml": MANIFEST,
    f"{ROOT}/scenarios/my_project/my_greeting.yaml": SCENARIO,
    f"{ROOT}/cassettes/anthropic/my_greeting.yaml": CASSETTE,
    "my_runtime.py": ADAPTER,
    "pytest.ini": PYTEST_INI,
}
"""Path → text of the project files."""

GITHUB: dict[str, str] = {
    ".github/workflows/conformance.yml": PULL_REQUEST,
    ".github/workflows/record.yml": RECORD,
    ".github/workflows/publish.yml": PAGES,
}
"""Path → text of the GitHub Actions workflows (`--ci github`)."""
