"""Run ``canasta serve`` in a child process (for tests, the benchmark, and demos)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

#: how long a child server or worker may take to answer before it counts as hung: it is waited
#: for by its answer, so this bounds only a hang, and is generous for a machine busy with other
#: work (a test suite beside long runs took over 20 s to start a server)
START_TIMEOUT = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class _Child:
    """A child process of the tests and the load tool: killed at once, or asked to end."""

    proc: subprocess.Popen[bytes] | None = None

    def kill(self) -> None:
        """Kill at once (SIGKILL): no shutdown code runs.  The processes it started (a pool's
        workers, multiprocessing's resource tracker) go with it: it leads its own process group."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._kill_group()

    def _end(self) -> None:
        """Ask it to end (SIGTERM), and kill it if it has not within 5 s; then whatever it left
        running in its process group."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()
        self._kill_group()

    def _kill_group(self) -> None:
        if self.proc is not None and os.name == "posix":
            with contextlib.suppress(ProcessLookupError, PermissionError):  # nothing left of it
                os.killpg(self.proc.pid, signal.SIGKILL)


class ServerProcess(_Child):
    """``canasta serve`` on 127.0.0.1:``port`` in a child process."""

    def __init__(self, db: str, port: int | None = None, args: Sequence[str] = (),
                 env: Mapping[str, str] | None = None, db_in_env: bool = False) -> None:
        self.db = db
        self.port = port or free_port()
        self.args = list(args)
        self.env = env  # the child's environment (None: this process's)
        self.db_in_env = db_in_env  # the URL in $CANASTA_DB, not in the arguments
        self.proc: subprocess.Popen[bytes] | None = None
        self.errors: Any = None
        self.last_words = ""  # what it wrote, kept when it is stopped

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = START_TIMEOUT) -> ServerProcess:
        code = "import sys; from canasta.cli import main; sys.exit(main(sys.argv[1:]))"
        env = dict(os.environ if self.env is None else self.env)
        db = [] if self.db_in_env else ["--db", self.db]
        if self.db_in_env:
            env["CANASTA_DB"] = self.db
        # its log in a file: a pipe nobody reads would stop the server once full
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, "serve", "--port", str(self.port), *db, *self.args],
            stdout=self.errors, stderr=self.errors, env=env,
            start_new_session=True)  # its own process group: kill() ends what it started too
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.stderr_text()}")
            try:
                with urllib.request.urlopen(self.url + "/api/presets", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()  # a hung server is not left behind
        raise RuntimeError(f"the server did not answer in {timeout:.0f} s: {self.last_words}")

    def stderr_text(self) -> str:
        """What it wrote (its stdout and stderr) so far, or until it was stopped."""
        if self.errors is None or self.errors.closed:
            return self.last_words
        self.errors.seek(0)
        data: bytes = self.errors.read()
        return data.decode(errors="replace")

    def stop(self) -> None:
        self._end()
        if self.errors is not None:
            with contextlib.suppress(Exception):
                self.last_words = self.stderr_text()
                self.errors.close()

    def rss_mb(self) -> float:
        """The server's resident memory in MB (Linux)."""
        if self.proc is None:
            return 0.0
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0


class WorkerProcess(_Child):
    """``canasta serve --worker`` (a cluster's worker) in a child process."""

    def __init__(self, db: str, args: Sequence[str] = (), env: Mapping[str, str] | None = None) -> None:
        self.db = db
        self.args = list(args)
        self.env = env  # the child's environment (None: this process's)
        self.proc: subprocess.Popen[bytes] | None = None
        self.errors: Any = None

    def start(self, timeout: float = START_TIMEOUT) -> WorkerProcess:
        import select

        code = "import sys; from canasta.cli import main; sys.exit(main(sys.argv[1:]))"
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115 - its stderr, never a full pipe; closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, "serve", "--worker", "--db", self.db, *self.args],
            stdout=subprocess.PIPE, stderr=self.errors, env=None if self.env is None else dict(self.env),
            start_new_session=True)
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        seen = b""
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the worker exited: {self.stderr_text()}")
            if select.select([self.proc.stdout], [], [], 0.1)[0]:
                seen += os.read(self.proc.stdout.fileno(), 4096)
                if b"worker ready" in seen:
                    return self
        said = self.stderr_text()
        self.stop()  # a hung worker is not left behind
        raise RuntimeError(f"the worker was not ready in {timeout:.0f} s: {said}")

    def stderr_text(self) -> str:
        self.errors.seek(0)
        data: bytes = self.errors.read()
        return data.decode(errors="replace")

    def stop(self) -> None:
        self._end()
        for stream in (self.proc.stdout if self.proc is not None else None, self.errors):
            if stream is not None:
                with contextlib.suppress(Exception):
                    stream.close()


__all__ = ["ServerProcess", "WorkerProcess", "free_port"]
