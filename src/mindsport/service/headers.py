"""The security headers of every answer: :class:`SecurityHeadersMiddleware`.

* ``X-Content-Type-Options: nosniff``: a browser takes an answer for what its Content-Type says
  (a JSON answer is never run as a script or shown as a page);
* ``X-Frame-Options: DENY`` and the policy's ``frame-ancestors 'none'``: no page is framed by
  another site;
* ``Referrer-Policy: no-referrer``: the links of a page send no address of it;
* ``Content-Security-Policy`` (:func:`page_policy`): nothing is loaded or run but what the pages
  hold themselves: their inline ``<style>`` and ``<script>`` elements, allowed by their SHA-256
  (no other inline script, style, event handler or ``style`` attribute runs), requests to this
  server only (the leaderboard page reads the JSON API), forms sent to this server only. FastAPI's
  documentation pages (``/docs``, ``/redoc``), which load their scripts from a CDN, get every
  header but this one.

The hashes are those of the leaderboard template's and the event pages' inline elements, taken
from their sources once, so a page changed without its hash changing is refused by the browser
(``tests/service/test_page.py`` loads every page in Chromium with this policy).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from functools import cache

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mindsport.event.sheets import PAGE_SCRIPT, PAGE_STYLE
from mindsport.service.routes.page import leaderboard_template

__all__ = ["SecurityHeadersMiddleware", "inline_elements", "page_policy"]

_ELEMENT = re.compile(r"<(script|style)(\s[^>]*)?>(.*?)</\1>", re.DOTALL)


def inline_elements(html: str) -> tuple[list[str], list[str]]:
    """The texts of the inline scripts and styles of ``html`` (a JSON data block is data, not a
    script: left out)."""
    scripts: list[str] = []
    styles: list[str] = []
    for tag, attrs, text in _ELEMENT.findall(html):
        if tag == "style":
            styles.append(text)
        elif "application/json" not in (attrs or ""):
            scripts.append(text)
    return scripts, styles


def _hashes(texts: Iterable[str]) -> str:
    digests = {base64.b64encode(hashlib.sha256(t.encode()).digest()).decode() for t in texts}
    return " ".join(f"'sha256-{d}'" for d in sorted(digests))


@cache
def page_policy() -> str:
    """The Content-Security-Policy of every answer (see the module)."""
    scripts, styles = inline_elements(leaderboard_template().template)
    return "; ".join(
        (
            "default-src 'none'",
            f"script-src {_hashes([*scripts, PAGE_SCRIPT])}",
            f"style-src {_hashes([*styles, PAGE_STYLE])}",
            "connect-src 'self'",
            "form-action 'self'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        )
    )


class SecurityHeadersMiddleware:
    """Add the security headers (see the module) to every HTTP answer; the paths of
    ``without_policy`` (FastAPI's documentation pages) get them without the
    Content-Security-Policy."""

    def __init__(self, app: ASGIApp, without_policy: Iterable[str | None] = ()) -> None:
        self.app = app
        self.plain = [
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"no-referrer"),
        ]
        self.policed = [*self.plain, (b"content-security-policy", page_policy().encode())]
        self.without_policy = frozenset(p for p in without_policy if p)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.plain if scope["path"] in self.without_policy else self.policed

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)
