"""PostgreSQL and Redis instances of a test's own, started from the machine's binaries
(``initdb``/``pg_ctl``, ``redis-server``) on free ports in a temporary folder, so that a
test may stop, kill and restart them without touching the machine's shared services.

:func:`postgres_binaries` and :func:`redis_binary` say whether they are there; a test
that needs them skips with the reason (fails where ``CANASTA_SERVICES_REQUIRED=1``)."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def postgres_binaries() -> Path | None:
    """The folder of PostgreSQL's server programs (initdb, pg_ctl), or None."""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.access(os.path.join(folder, "initdb"), os.X_OK) and os.access(os.path.join(folder, "pg_ctl"), os.X_OK):
            return Path(folder)
    found = shutil.which("pg_ctl")
    return Path(found).parent if found and shutil.which("initdb") else None


def redis_binary() -> str | None:
    return shutil.which("redis-server")


def _run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.strip() or done.stdout.strip()}")


def _wait_port(port: int, up: bool, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            s.settimeout(0.2)
            is_up = s.connect_ex(("127.0.0.1", port)) == 0
        if is_up == up:
            return
        time.sleep(0.05)
    raise RuntimeError(f"port {port} did not go {'up' if up else 'down'} in {timeout:g} s")


class Postgres:
    """A PostgreSQL cluster of its own (trust authentication, user ``postgres``)."""

    def __init__(self, folder: Path) -> None:
        bindir = postgres_binaries()
        if bindir is None:
            raise RuntimeError("PostgreSQL's initdb and pg_ctl are not installed")
        self.bindir = bindir
        self.folder = folder
        self.data = folder / "data"
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root: run it as its own user
            user = "postgres"
            pwd.getpwnam(user)
            shutil.chown(folder, user)
            self.as_user = ["runuser", "-u", user, "--"]
        _run([*self.as_user, str(bindir / "initdb"), "-D", str(self.data), "-A", "trust",
              "-U", "postgres", "--no-sync", "-E", "UTF8"])

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _ctl(self, *args: str) -> None:
        _run([*self.as_user, str(self.bindir / "pg_ctl"), "-D", str(self.data), *args])

    def start(self) -> Postgres:
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c max_connections=200")
        self._ctl("-o", options, "-l", str(self.folder / "log"), "-w", "start")
        _wait_port(self.port, up=True)
        return self

    def stop(self) -> None:
        """A fast shutdown: open connections are cut, the port closes."""
        self._ctl("-m", "fast", "-w", "stop")
        _wait_port(self.port, up=False)

    def processes(self) -> list[int]:
        """The postmaster and every process it started (backends, checkpointer, ...)."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    # the field after the parenthesised command: state, then the parent's pid
                    parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        return [postmaster, *(pid for pid, parent in parents.items() if parent == postmaster)]

    def pause(self) -> list[int]:
        """SIGSTOP every process of the cluster: the port stays open, nothing answers (a hung
        database, not a stopped one); the paused pids, for :meth:`resume`."""
        pids = self.processes()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
        return pids

    def resume(self, pids: list[int]) -> None:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):  # not running
            self._ctl("-m", "immediate", "-w", "stop")


class Redis:
    """A Redis server of its own (no persistence: a restart comes back empty, as the
    machine's does)."""

    def __init__(self, folder: Path) -> None:
        binary = redis_binary()
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        self.binary = binary
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> Redis:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder), "--logfile", str(self.folder / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_port(self.port, up=True)
        return self

    def kill(self) -> None:
        """SIGKILL: every connection drops, every key is lost."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        _wait_port(self.port, up=False)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


__all__ = ["Postgres", "Redis", "free_port", "postgres_binaries", "redis_binary"]
