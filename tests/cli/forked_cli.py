"""`python -m conformance.cli ARGS` as a process, without paying the interpreter start, the
imports and the parser for each command: one server process per test process imports the command
line and builds its parser once and forks a child per command. The child is the command's own process (its cwd, environment, exit
code, stdout and stderr, and a kill at the time limit), as with `subprocess.run`; an exception that
escapes `main` prints its traceback and exits 1, as the interpreter does.

Run as a script it is the server: one JSON request a line on stdin (`args`, `cwd`, `env`, `out`,
`err`), answered by two lines on stdout: the child's pid, then its exit code."""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any


def _child(request: dict[str, Any]) -> None:
    """In the forked child: become the command's process, run it, exit with its code."""
    import traceback

    import conformance.cli

    code = 1
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        for fd, to in ((null, 0), (out, 1), (err, 2)):
            os.dup2(fd, to)
            os.close(fd)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own stdin, never closed
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = [conformance.cli.__file__, *request["args"]]
        try:
            code = conformance.cli.main(request["args"])
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
    except BaseException:  # the interpreter's own report of an uncaught exception
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve() -> None:
    import conformance.cli
    from conformance.capabilities import provider_names

    # imported, and the parser built, once before any fork: a command whose environment reads the
    # same (`CI`, the providers) finds it built, one that differs builds its own
    conformance.cli._parser(bool(os.environ.get("CI")), tuple(provider_names()))
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            _child(request)
        print(json.dumps(pid), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps(os.waitstatus_to_exitcode(status)), flush=True)


class ForkedCli:
    """The server of one test process, started at its first command and stopped at exit."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        atexit.register(self.close)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=30)

    def _answer(self, stdout: IO[str], timeout: float | None) -> int | None:
        if timeout is not None and not select.select([stdout], [], [], timeout)[0]:
            return None
        line = stdout.readline()
        if not line:
            raise RuntimeError("the command-line server exited")
        value = json.loads(line)
        assert isinstance(value, int)
        return value

    def run(self, args: list[str], cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
        """As `subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True,
        text=True, ...)`, raising `subprocess.TimeoutExpired` once the command runs past `timeout`."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        with tempfile.TemporaryDirectory() as tmp:
            out, err = Path(tmp, "out"), Path(tmp, "err")
            request = {"args": args, "cwd": str(cwd), "env": env, "out": str(out), "err": str(err)}
            self.proc.stdin.write(json.dumps(request) + "\n")
            pid = self._answer(self.proc.stdout, 30)
            if pid is None:
                raise RuntimeError("the command-line server did not start the command")
            code = self._answer(self.proc.stdout, timeout)
            if code is None:
                os.kill(pid, signal.SIGKILL)
                self._answer(self.proc.stdout, None)
                raise subprocess.TimeoutExpired(["conformance", *args], timeout)
            cmd = [sys.executable, "-m", "conformance.cli", *args]
            return subprocess.CompletedProcess(cmd, code, out.read_text(), err.read_text())


_SERVER: list[ForkedCli] = []


def run_cli(args: list[str], cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    """`conformance ARGS` in its own process, forked from this test process's server."""
    if not _SERVER or _SERVER[0].proc.poll() is not None:
        _SERVER[:] = [ForkedCli()]
    return _SERVER[0].run(args, cwd, env, timeout)


if __name__ == "__main__":
    serve()
