"""Parsing request bodies: strict JSON, posts of matches, and the 422 error list naming each bad
field.

JSON is strict: UTF-8, no NaN or Infinity, not nested absurdly deep. The size of a body is
bounded before it is parsed, by :class:`mindsport.service.middleware.BodyLimitMiddleware`.
:func:`parse_matches` runs in the server and in the worker processes of
:mod:`mindsport.service.prepare`, so that both refuse a post with the same errors.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from mindsport.errors import MindsportError
from mindsport.match import InvalidMatchError, Match
from mindsport.service.limits import MAX_BATCH
from mindsport.service.schemas import MatchBatch, MatchIn

__all__ = ["UnprocessableError", "errors_of", "parse_json", "parse_matches"]


class UnprocessableError(MindsportError):
    """The body is not valid JSON or not a valid request (HTTP 422); ``errors`` lists each
    problem as ``{"loc": [...], "msg": ..., "type": ...}``."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors))
        self.errors = errors


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


def errors_of(exc: ValidationError, prefix: Sequence[str | int]) -> list[dict[str, Any]]:
    """Pydantic's errors without the offending input (it may not even be encodable)."""
    return [
        {"loc": [*prefix, *e["loc"]], "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_input=False, include_context=False)
    ]


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
        raise UnprocessableError(errors_of(exc, prefix)) from None
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
