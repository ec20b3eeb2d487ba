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

    name = "my_runtime"  # how reports, badges and the published site name this runtime (e.g. "mylib 1.4")

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

ACTIONS = {
    "checkout": "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1  # v7.0.1",
    "setup-python": "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97  # v7.0.0",
    "upload-artifact": "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f  # v7.0.0",
    "download-artifact": "actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c  # v8.0.1",
    "upload-pages-artifact": "actions/upload-pages-artifact@fc324d3547104276b827a68afc52ff2a11cc49c9  # v5.0.0",
    "deploy-pages": "actions/deploy-pages@cd2ce8fcbc39b97be8ca5fce6e763baed58fa128  # v5.0.0",
    "create-pull-request": "peter-evans/create-pull-request@5f6978faf089d4d20b00c7766989d076bb2fc7f1  # v8.1.1",
}
"""The actions the workflows use, each pinned to the commit of its release (the tag in the comment)."""

SETUP = f"""\
      - uses: {ACTIONS["checkout"]}
        with:
          persist-credentials: false
      - uses: {ACTIONS["setup-python"]}
        with:
          python-version: "3.11"
      - run: {INSTALL}
"""

REPLAY = (
    "status=0\n"
    "          conformance run --root {root} --runtime {runtime} --no-progress --out {out}{extra} || status=$?\n"
    "          # 1: a failing cell, which the gate judges against the base; 2 (bad input) stops here\n"
    '          test "$status" -le 1'
)

DEPLOY = f"""\
  deploy:
    needs: {{needs}}
    runs-on: ubuntu-latest
    permissions:
      pages: write
      id-token: write
    environment:
      name: github-pages
      url: ${{{{{{{{ steps.deployment.outputs.page_url }}}}}}}}
    steps:
      - id: deployment
        uses: {ACTIONS["deploy-pages"]}
"""
"""The job deploying the site the job `needs` uploaded to GitHub Pages."""

PULL_REQUEST = f"""\
name: conformance
on:
  pull_request:
  push:
    branches: [main]
permissions: {{}}
jobs:
  replay:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
{SETUP}\
      - name: Check out the base branch (its matrix is what the gate compares against)
        if: github.event_name == 'pull_request'
        uses: {ACTIONS["checkout"]}
        with:
          ref: ${{{{ github.base_ref }}}}
          path: .conformance-base
          persist-credentials: false
      - name: Replay the matrix against the recorded cassettes
        run: |
          {REPLAY.format(root=ROOT, runtime=RUNTIME, out="reports/current", extra=" --junit-xml reports/current/junit.xml")}
      - name: Replay the base branch
        if: github.event_name == 'pull_request'
        working-directory: .conformance-base
        run: |
          if [ -d {ROOT}/scenarios ]; then
            conformance run --root {ROOT} --runtime {RUNTIME} --no-progress --no-html --out ../reports/base || true
          fi
      - name: Release gate (fails on a regression against the base branch only)
        if: ${{{{ !cancelled() && github.event_name == 'pull_request' }}}}
        run: |
          if [ ! -f reports/base/matrix.json ]; then
            echo "::notice title=conformance gate::the base branch has no conformance matrix yet; nothing to compare, the gate passes"
            echo "The base branch has no conformance matrix yet: nothing to compare, the gate passes." >> "$GITHUB_STEP_SUMMARY"
            exit 0
          fi
          conformance report --input reports/current/matrix.json --previous reports/base/matrix.json --out reports/current \\
            --root {ROOT} --fail-on-regression --format github --summary "$GITHUB_STEP_SUMMARY"
      - uses: {ACTIONS["upload-artifact"]}
        if: ${{{{ !cancelled() }}}}
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
permissions: {{}}
jobs:
  record:
    runs-on: ubuntu-latest
    permissions:
      contents: write
      pull-requests: write
    steps:
{SETUP}\
      - name: Record this project's scenarios from the live provider (fails when its key is missing)
        # --own: the project's scenarios only, not the bundled ones it layers over; an answer of another
        # status class than a cassette's (a 404 from a wrong URL over a 200) is refused, exit 1
        run: |
          conformance record --root {ROOT} --own --provider anthropic --record-mode all --require-keys --no-progress \\
            | tee "$RUNNER_TEMP/record.txt"
        env:
          ANTHROPIC_API_KEY: ${{{{ secrets.ANTHROPIC_API_KEY }}}}
      - run: conformance lint {ROOT}/cassettes --root {ROOT}
      - name: Open a pull request with the drift for review
        uses: {ACTIONS["create-pull-request"]}
        with:
          branch: conformance/recorded-cassettes
          add-paths: {ROOT}/cassettes
          commit-message: "cassettes: re-recorded from the live provider"
          title: "Re-recorded cassettes (review the drift)"
          body-path: ${{{{ runner.temp }}}}/record.txt
"""

PAGES = f"""\
name: publish
on:
  push:
    branches: [main]
  workflow_dispatch:
permissions: {{}}
concurrency:
  group: pages
  cancel-in-progress: false
jobs:
  build:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
{SETUP}\
      - name: Replay the matrix
        run: |
          {REPLAY.format(root=ROOT, runtime=RUNTIME, out="runs/latest", extra=" --no-html")}
      - run: conformance publish runs --out site
      - uses: {ACTIONS["upload-pages-artifact"]}
        with:
          path: site
{DEPLOY.format(needs="build")}"""

FANOUT = f"""\
# One job per runtime × library release (the CI system's job matrix), their matrix.json files
# published as one site and judged by one gate against the baselines committed under
# {ROOT}/baseline/<run>/matrix.json (a run without a baseline passes with a notice).
name: conformance fan-out
on:
  workflow_dispatch:
  schedule:
    - cron: "41 4 * * 1"
permissions: {{}}
jobs:
  replay:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    strategy:
      fail-fast: false
      matrix:
        runtime: ["{RUNTIME}"]
        release: ["current"]  # pip requirements of the library releases, e.g. "mylib==1.4.0"
    steps:
{SETUP}\
      - name: Install the library release
        if: matrix.release != 'current'
        run: pip install "$RELEASE"
        env:
          RELEASE: ${{{{ matrix.release }}}}
      - name: Replay the matrix
        run: |
          name="$(printf '%s-%s' "$RUNTIME" "$RELEASE" | tr -c 'A-Za-z0-9._-' '_')"
          echo "RUN_NAME=$name" >> "$GITHUB_ENV"
          {REPLAY.format(root=ROOT, runtime='"$RUNTIME"', out='"runs/$name"', extra=" --no-html")}
        env:
          RUNTIME: ${{{{ matrix.runtime }}}}
          RELEASE: ${{{{ matrix.release }}}}
      - uses: {ACTIONS["upload-artifact"]}
        with:
          name: matrix-${{{{ env.RUN_NAME }}}}
          path: runs/
  merge:
    needs: replay
    if: ${{{{ !cancelled() }}}}
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
{SETUP}\
      - uses: {ACTIONS["download-artifact"]}
        with:
          pattern: matrix-*
          path: runs
          merge-multiple: true
      - run: conformance publish runs --out site
      - name: One gate over every run (a regression against its baseline fails)
        run: |
          status=0
          for current in runs/*/matrix.json; do
            name="$(basename "$(dirname "$current")")"
            baseline="{ROOT}/baseline/$name/matrix.json"
            if [ ! -f "$baseline" ]; then
              echo "::notice title=conformance gate::$name has no baseline ($baseline); nothing to compare"
              continue
            fi
            conformance report --input "$current" --previous "$baseline" --out "reports/$name" --root {ROOT} \\
              --fail-on-regression --format github --summary "$GITHUB_STEP_SUMMARY" || status=1
          done
          exit "$status"
      - uses: {ACTIONS["upload-pages-artifact"]}
        if: ${{{{ !cancelled() }}}}
        with:
          path: site
{DEPLOY.format(needs="merge")}"""

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
    ".github/workflows/fanout.yml": FANOUT,
}
"""Path → text of the GitHub Actions workflows (`--ci github`)."""
