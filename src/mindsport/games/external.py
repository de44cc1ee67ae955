"""External bots: any program that speaks the JSON-lines bot protocol on stdin / stdout.

The protocol (written out with a full example exchange in ``docs/bots.md``): for every
decision the referee writes **one request line** to the program's stdin, a JSON object::

    {"type": "act", "game": "doudizhu", "player": 1, "decision": 0, "time_limit": 10.0,
     "seed": 123456789, "observation": {...}, "legal_actions": ["single:3", ..., "pass"]}

and reads **one reply line** from its stdout: ``{"action": "single:3"}``, the action being
one of the strings of ``legal_actions`` (copied exactly). ``observation`` is the player's view
as the game writes it (``to_json()`` of its observation), ``seed`` a number drawn from the
game's generator for the program's own randomness (so games replay from a seed), ``decision``
counts the requests sent to this program. Anything the program writes to stderr is logged
(logger ``mindsport.bots``, level INFO) and its last lines are quoted in a forfeit.

The program forfeits the game (:mod:`mindsport.games.referee`) when it does not answer within
``time_limit`` seconds (timeout; the program is then stopped), when it dies or closes its
stdout (crash), or when its answer is not a JSON object whose ``action`` is one of the legal
actions (illegal).

Life cycle: an :class:`ExternalBot` starts its program at its first decision and keeps it for
the session -- all the games it plays until :meth:`ExternalBot.close` (the command line closes
it when the command ends) -- so a program may keep state between decisions, but every request
carries the full observation and a stateless program works too. After a timeout or a crash
the program is stopped and reaped, and started afresh at the next decision (the next game).
Closing stops and reaps it too (no zombie processes); a bot that is garbage-collected or
still open at interpreter exit is closed the same way.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import os
import selectors
import shlex
import shutil
import subprocess
import threading
import time
import weakref
from collections.abc import Sequence
from types import TracebackType
from typing import IO, Any

import numpy as np

from mindsport.errors import MindsportError
from mindsport.games.contract import Game
from mindsport.games.referee import BotFailure, ForfeitReason

__all__ = ["ExternalBot", "ExternalBotError"]

logger = logging.getLogger("mindsport.bots")

_STDERR_LINES = 20
_STOP_GRACE = 1.0  # seconds a program gets to exit after its stdin closes


class ExternalBotError(MindsportError):
    """An external bot that cannot be set up (an empty command, a program that is not found,
    a time limit that is not a positive number)."""


def _stop(proc: subprocess.Popen[bytes], threads: list[threading.Thread]) -> None:
    """Close the pipes, stop the program (politely, then by force) and reap it."""
    if proc.stdin is not None and not proc.stdin.closed:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    try:
        proc.wait(timeout=_STOP_GRACE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None and not stream.closed:
            stream.close()
    for thread in threads:
        thread.join(timeout=_STOP_GRACE)


class ExternalBot:
    """A bot played by an external program (see the module note for the protocol).

    ``command`` is a command line (split like a shell would, no shell involved) or an argument
    list; ``game`` the game it plays (for the names of its actions); ``time_limit`` the
    seconds it may take per decision.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        game: Game,
        *,
        time_limit: float = 10.0,
        name: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        if not argv:
            raise ExternalBotError("an external bot needs a command, e.g. cmd:python my_bot.py")
        if shutil.which(argv[0]) is None and not os.path.exists(argv[0]):
            raise ExternalBotError(f"external bot {' '.join(argv)!r}: {argv[0]!r} is not found")
        if not (isinstance(time_limit, int | float) and time_limit > 0):
            raise ExternalBotError(f"time limit must be a positive number, got {time_limit!r}")
        self.argv = argv
        self.game = game
        self.time_limit = float(time_limit)
        self.name = name or "cmd:" + " ".join(argv)
        self._cwd = cwd
        self._env = env
        self._proc: subprocess.Popen[bytes] | None = None
        self._threads: list[threading.Thread] = []
        self._buffer = b""
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self._decisions = 0
        self._finalizer: weakref.finalize[Any, Any] | None = None

    # -- process handling -------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        """The running program's process id (None when it is not running)."""
        return None if self._proc is None else self._proc.pid

    def _drain(self, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self._stderr.append(line)
            logger.info("%s: %s", self.name, line)

    def _start(self) -> subprocess.Popen[bytes]:
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                cwd=self._cwd,
                env=self._env,
            )
        except OSError as exc:
            raise BotFailure(ForfeitReason.CRASH, f"cannot start {self.argv!r}: {exc}") from None
        assert proc.stderr is not None
        thread = threading.Thread(target=self._drain, args=(proc.stderr,), daemon=True)
        thread.start()
        self._proc = proc
        self._threads = [thread]
        self._buffer = b""
        self._finalizer = weakref.finalize(self, _stop, proc, self._threads)
        logger.info("%s: started (pid %d)", self.name, proc.pid)
        return proc

    def close(self) -> None:
        """Stop the program and reap it (idempotent); the next decision starts it again."""
        if self._finalizer is not None:
            self._finalizer()  # runs _stop once
            self._finalizer = None
        self._proc = None
        self._threads = []

    def __enter__(self) -> ExternalBot:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _last_words(self) -> str:
        time.sleep(0.05)  # let the stderr reader catch up with a program that just died
        if not self._stderr:
            return ""
        return "; its stderr ended with: " + " | ".join(list(self._stderr)[-5:])

    def _fail(self, reason: ForfeitReason, detail: str) -> BotFailure:
        proc = self._proc
        if reason is not ForfeitReason.ILLEGAL:
            self.close()
            if proc is not None and proc.returncode is not None:
                detail += f" (exit status {proc.returncode})"
        return BotFailure(reason, detail + self._last_words())

    def _readline(self, deadline: float) -> bytes:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.perf_counter()
                if left <= 0 or not selector.select(left):
                    raise self._fail(
                        ForfeitReason.TIMEOUT, f"no reply within {self.time_limit:g} s"
                    )
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise self._fail(ForfeitReason.CRASH, "the program closed its output")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    # -- one exchange -----------------------------------------------------------------
    def _running(self) -> subprocess.Popen[bytes]:
        """The program, started if it is not running (a crash if it died since)."""
        proc = self._proc if self._proc is not None and self._proc.poll() is None else None
        if proc is None:
            if self._proc is not None:  # died between two decisions
                raise self._fail(ForfeitReason.CRASH, "the program exited")
            proc = self._start()
        return proc

    def exchange(self, request: bytes) -> bytes:
        """Write one request line (``request``, without its newline) to the program, starting
        it if needed, and read its one reply line within the time limit (without the newline).
        Raises :class:`~mindsport.games.referee.BotFailure` on a timeout or a crash, the
        program then stopped. Other protocols over the same pipes use it (mahjong's mjai)."""
        proc = self._running()
        self._decisions += 1
        deadline = time.perf_counter() + self.time_limit
        assert proc.stdin is not None
        try:
            proc.stdin.write(request + b"\n")
        except OSError:
            raise self._fail(ForfeitReason.CRASH, "the program closed its input") from None
        return self._readline(deadline)

    def illegal(self, detail: str) -> BotFailure:
        """The failure of an illegal or malformed reply (the program keeps running), its last
        lines of stderr quoted."""
        return self._fail(ForfeitReason.ILLEGAL, detail)

    # -- the bot ------------------------------------------------------------------------
    def act(self, observation: Any, legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        self._running()
        state_strings = [self._action_string(a) for a in legal_actions]
        request = {
            "type": "act",
            "game": self.game.info.name,
            "player": int(observation.player),
            "decision": self._decisions,
            "time_limit": self.time_limit,
            "seed": int(rng.integers(2**63 - 1)),
            "observation": observation.to_json(),
            "legal_actions": state_strings,
        }
        line = self.exchange(json.dumps(request, separators=(",", ":")).encode())
        try:
            reply = json.loads(line)
            chosen = reply["action"] if isinstance(reply, dict) else None
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError):
            chosen = None
        if not isinstance(chosen, str):
            text = line.decode("utf-8", "replace")[:200]
            raise self.illegal(f'replied {text!r}, not {{"action": <a legal action>}}')
        try:
            index = state_strings.index(chosen)
        except ValueError:
            raise self.illegal(f"played {chosen!r}, which is not a legal action here") from None
        return legal_actions[index]

    def _action_string(self, action: Any) -> str:
        return str(self.game.action_to_string(action))

    def __repr__(self) -> str:
        return f"ExternalBot({self.argv!r}, time_limit={self.time_limit:g})"
