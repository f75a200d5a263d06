"""The production stack on loopback, for benches and fault tests.

Starts and stops real processes: a private redis-server on a free port (so that killing
or restarting it disturbs nobody else on the machine), uvicorn ASGI servers and Celery
workers, all pointed at one PostgreSQL database. Nothing here is used by the running
site; bench/load.py and tests/production/ import it.

    stack = Stack(database_url, workdir)
    stack.start_redis()
    web = stack.start_web()
    stack.start_worker("bots-1", queues="bots")
    ...
    stack.stop_all()
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_available() -> bool:
    return shutil.which("redis-server") is not None


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen
    port: int | None = None
    log: Path | None = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole process group (uvicorn/celery children included)."""
        if self.alive():
            try:
                os.killpg(self.popen.pid, sig)
            except ProcessLookupError:
                pass
        if sig in (signal.SIGKILL, signal.SIGTERM):
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait(timeout=10)

    def tail(self, lines: int = 30) -> str:
        if self.log and self.log.exists():
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        return ""


@dataclass
class Stack:
    database_url: str
    workdir: Path
    extra_env: dict[str, str] = field(default_factory=dict)
    redis_port: int | None = None
    procs: list[Proc] = field(default_factory=list)

    # --- environment ------------------------------------------------------------------

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def env(self, **overrides: str) -> dict[str, str]:
        env = {
            **os.environ,
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "DEBUG": "0",
            "SECRET_KEY": "loopback-stack-only-" + "k" * 50,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0",
            "LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "PYTHONUNBUFFERED": "1",
        }
        env.pop("DATABASE_NAME", None)
        env.update(self.extra_env)
        env.update(overrides)
        return env

    def _spawn(self, name: str, argv: list[str], env: dict[str, str], port=None) -> Proc:
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = self.workdir / f"{name}.log"
        with open(log, "ab") as out:
            popen = subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        proc = Proc(name, popen, port, log)
        self.procs.append(proc)
        return proc

    # --- redis ------------------------------------------------------------------------

    def start_redis(self, port: int | None = None) -> Proc:
        self.redis_port = port or self.redis_port or free_port()
        proc = self._spawn(
            f"redis-{self.redis_port}",
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.redis_port),
             "--save", "", "--appendonly", "no", "--daemonize", "no",
             "--dir", str(self.workdir), "--maxclients", "10000"],
            dict(os.environ), port=self.redis_port,
        )  # fmt: skip
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.redis_port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return proc
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start: {proc.tail()}")

    # --- web --------------------------------------------------------------------------

    def start_web(self, port: int | None = None, **env: str) -> Proc:
        port = port or free_port()
        bin_dir = Path(sys.executable).parent
        proc = self._spawn(
            f"web-{port}",
            [str(bin_dir / "uvicorn"), "config.asgi:application", "--host", "127.0.0.1",
             "--port", str(port), "--no-access-log", "--log-level", "warning",
             "--no-proxy-headers", "--ws-max-size", "65536"],
            self.env(**env), port=port,
        )  # fmt: skip
        self.wait_http(proc)
        return proc

    def wait_http(self, proc: Proc, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not proc.alive():
                raise RuntimeError(f"{proc.name} exited early:\n{proc.tail()}")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{proc.port}/accounts/login/", timeout=1)
                return
            except urllib.error.HTTPError as exc:
                raise RuntimeError(f"{proc.name} answers {exc.code}:\n{proc.tail()}") from exc
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{proc.name} did not answer within {timeout}s:\n{proc.tail()}")

    def healthz(self, proc: Proc) -> tuple[int, dict]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{proc.port}/healthz", timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    # --- celery -----------------------------------------------------------------------

    def start_worker(
        self,
        name: str,
        queues: str = "bots",
        pool: str = "solo",
        concurrency: int = 1,
        app: str = "config",
        wait: bool = True,
        **env: str,
    ) -> Proc:
        node = f"{name}-{os.getpid()}@localhost"
        proc = self._spawn(
            name,
            [sys.executable, "-m", "celery", "-A", app, "worker", "-Q", queues, "-P", pool,
             "-c", str(concurrency), "-l", "warning", "-n", node, "--without-gossip",
             "--without-mingle", "--without-heartbeat", "--prefetch-multiplier", "1"],
            self.env(**env),
        )  # fmt: skip
        proc.node = node  # type: ignore[attr-defined]
        if wait:
            self.wait_worker(proc)
        return proc

    def wait_worker(self, proc: Proc, timeout: float = 60) -> None:
        from celery import Celery

        # Not the current app: shared_task proxies (game.tasks) in this process must
        # keep publishing through config.celery's broker, not this probe's.
        probe = Celery(broker=self.redis_url, set_as_current=False)
        try:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if not proc.alive():
                    raise RuntimeError(f"{proc.name} exited early:\n{proc.tail()}")
                if probe.control.ping(destination=[proc.node], timeout=0.5):  # type: ignore[attr-defined]
                    return
            raise RuntimeError(f"{proc.name} did not answer a ping:\n{proc.tail()}")
        finally:
            probe.close()

    def start_beat(self, **env: str) -> Proc:
        schedule = self.workdir / f"beat-{os.getpid()}-{time.monotonic_ns()}"
        return self._spawn(
            "beat",
            [sys.executable, "-m", "celery", "-A", "config", "beat", "-l", "warning",
             "-s", str(schedule)],
            self.env(**env),
        )  # fmt: skip

    # --- teardown ---------------------------------------------------------------------

    def stop(self, proc: Proc, sig: int = signal.SIGTERM) -> None:
        proc.kill(sig)

    def stop_all(self) -> None:
        for proc in reversed(self.procs):
            if proc.alive():
                try:
                    os.killpg(proc.popen.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in reversed(self.procs):
            try:
                proc.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.popen.pid, signal.SIGKILL)
                proc.popen.wait(timeout=10)
        self.procs.clear()
