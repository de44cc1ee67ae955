"""Answers checked against the OpenAPI document: :func:`undocumented` (used by the event API and
page tests on every answer they get)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["undocumented"]


def undocumented(spec: dict[str, Any], answers: list[tuple[str, str, int, str]]) -> set[str]:
    """The answers ``(method, path, status, media type)`` whose status, or whose media type for
    that status, the OpenAPI document ``spec`` does not list for the operation they answer."""
    templates = []
    for template, ops in spec["paths"].items():
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        templates.append((re.compile(f"^{pattern}$"), template.count("{"), ops))
    out = set()
    for method, path, status, media in answers:
        found = [(n, ops) for rx, n, ops in templates if rx.match(path)]
        op = min(found, key=lambda f: f[0])[1].get(method.lower()) if found else None
        if op is None:
            out.add(f"{method} {path}: no such operation")
            continue
        documented = op["responses"].get(str(status))
        if documented is None:
            out.add(f"{method} {path}: {status} not documented")
        elif media not in documented.get("content", {}):
            listed = list(documented.get("content", {}))
            out.add(f"{method} {path}: {status} as {media}, documented as {listed}")
    return out
