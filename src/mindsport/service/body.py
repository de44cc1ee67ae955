"""Reading request bodies: the size limit (413) before anything is parsed, strict JSON, and the
422 error list naming each bad field.

A body is read chunk by chunk and refused as soon as it passes the limit, whether its size is
declared (``Content-Length``: refused before a byte is read) or not (chunked transfer). The
caller checks the API key before calling :func:`read_limited`, so a request without a valid key
costs no more than its headers.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from mindsport.errors import MindsportError
from mindsport.match import InvalidMatchError, Match
from mindsport.service.limits import MAX_BATCH
from mindsport.service.schemas import MatchBatch, MatchIn

__all__ = [
    "BodyTooLargeError",
    "UnprocessableError",
    "declared_size",
    "parse_json",
    "parse_matches",
    "parse_model",
    "read_limited",
]

M = TypeVar("M", bound=BaseModel)


class BodyTooLargeError(MindsportError):
    """The request body is larger than the service accepts (HTTP 413)."""


class UnprocessableError(MindsportError):
    """The body is not valid JSON or not a valid request (HTTP 422); ``errors`` lists each
    problem as ``{"loc": [...], "msg": ..., "type": ...}``."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors))
        self.errors = errors


def declared_size(declared: str | None) -> int:
    """The body size a Content-Length header ``declared`` announces; -1 without one, or when it
    is not a number (the body read then says how large it is)."""
    if declared is None:
        return -1
    try:
        return int(declared)
    except ValueError:
        return -1


async def read_limited(chunks: AsyncIterator[bytes], declared: str | None, limit: int) -> bytes:
    """The whole body from ``chunks``, refused (:class:`BodyTooLargeError`) as soon as it passes
    ``limit`` bytes; ``declared`` is the Content-Length header, if any."""
    too_large = BodyTooLargeError(f"request body: at most {limit} bytes")
    if declared_size(declared) > limit:
        raise too_large
    parts: list[bytes] = []
    total = 0
    async for chunk in chunks:
        total += len(chunk)
        if total > limit:
            raise too_large
        parts.append(chunk)
    return b"".join(parts)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(body: bytes) -> Any:
    """Strict JSON: UTF-8, no NaN/Infinity literals, not nested absurdly deep (422 otherwise)."""
    try:
        return json.loads(body, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        why = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
        raise UnprocessableError(
            [{"loc": ["body"], "msg": f"invalid JSON: {why}", "type": "json_invalid"}]
        ) from None


def _errors(exc: ValidationError, prefix: Sequence[str | int]) -> list[dict[str, Any]]:
    """Pydantic's errors without the offending input (it may not even be encodable)."""
    return [
        {"loc": [*prefix, *e["loc"]], "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_input=False, include_context=False)
    ]


def parse_model(body: bytes, model: type[M]) -> M:
    """``body`` as a ``model`` request (422 naming the bad fields)."""
    data = parse_json(body)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UnprocessableError(_errors(exc, ["body"])) from None


_MATCH_LIST = TypeAdapter(list[MatchIn])


def parse_matches(body: bytes) -> list[Match]:
    """One match object, a list of them, or ``{"matches": [...]}`` as :class:`Match` records
    (422 naming the bad field, and for a list the index of the bad match)."""
    data = parse_json(body)
    prefix: list[str | int] = ["body"]
    try:
        if isinstance(data, list):
            if len(data) > MAX_BATCH:
                raise UnprocessableError(
                    [
                        {
                            "loc": ["body"],
                            "msg": f"at most {MAX_BATCH} matches per request, got {len(data)}",
                            "type": "too_long",
                        }
                    ]
                )
            items: Iterable[MatchIn] = _MATCH_LIST.validate_python(data)
        elif isinstance(data, dict) and "matches" in data:
            items = MatchBatch.model_validate(data).matches
            prefix.append("matches")
        else:
            items = [MatchIn.model_validate(data)]
    except ValidationError as exc:
        raise UnprocessableError(_errors(exc, prefix)) from None
    out = []
    many = isinstance(data, list) or len(prefix) > 1
    for i, item in enumerate(items):
        try:
            out.append(item.to_match())
        except InvalidMatchError as exc:
            loc = [*prefix, *([i] if many else []), *([exc.field] if exc.field else [])]
            raise UnprocessableError(
                [{"loc": loc, "msg": str(exc), "type": "invalid_match"}]
            ) from None
    return out
