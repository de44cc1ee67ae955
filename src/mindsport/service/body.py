"""Parsing request bodies: their media type, strict JSON, posts of matches, and the 422 error
list naming each bad field.

A body is sent as ``application/json`` (a ``charset`` parameter, if any, says UTF-8), otherwise it
is refused before it is read (:func:`media_type_problem`, 415). JSON is strict: UTF-8 (no
byte-order mark, no UTF-16 or UTF-32), no NaN or Infinity, no key twice in one object, not nested
absurdly deep. The size of a body is bounded before it is parsed, by
:class:`mindsport.service.middleware.BodyLimitMiddleware`.
:func:`parse_matches` runs in the server and in the worker processes of
:mod:`mindsport.service.prepare`, so that both refuse a post with the same errors.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from mindsport.errors import MindsportError
from mindsport.match import InvalidMatchError, Match
from mindsport.service.limits import MAX_BATCH
from mindsport.service.schemas import MatchBatch, MatchIn

__all__ = [
    "JSON_MEDIA_TYPE",
    "UnprocessableError",
    "errors_of",
    "media_type_problem",
    "parse_json",
    "parse_matches",
]

#: the media type of every request body
JSON_MEDIA_TYPE = "application/json"


class UnprocessableError(MindsportError):
    """The body is not valid JSON or not a valid request (HTTP 422); ``errors`` lists each
    problem as ``{"loc": [...], "msg": ..., "type": ...}``."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors))
        self.errors = errors


def media_type_problem(scope: Mapping[str, Any]) -> str | None:
    """What is wrong with the declared type of the body of a request of ASGI ``scope``: a body
    not declared as ``application/json``, or with a ``charset`` other than UTF-8; ``None`` when
    it is right, or when the request has no body (its route says what is missing)."""
    content_type: bytes | None = None
    has_body = False
    for name, value in scope["headers"]:
        if name == b"content-type":
            content_type = value
        elif name == b"content-length":
            has_body = value.strip() != b"0"
        elif name == b"transfer-encoding":
            has_body = True
    if not has_body:
        return None
    if content_type is None:
        return f"the request has a body but no Content-Type: send it as {JSON_MEDIA_TYPE}"
    text = content_type.decode("latin-1")
    media, _, parameters = text.partition(";")
    if media.strip().lower() != JSON_MEDIA_TYPE:
        return f"Content-Type {text[:100]!r}: request bodies are JSON, sent as {JSON_MEDIA_TYPE}"
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        charset = value.strip().strip('"').lower()
        if name.strip().lower() == "charset" and charset not in ("utf-8", "utf8"):
            return f"Content-Type {text[:100]!r}: request bodies are JSON in UTF-8, not {charset!r}"
    return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class _DuplicateKeyError(ValueError):
    """A key twice in one JSON object."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of ``pairs``, refused when a key comes twice (JSON leaves it undefined; the
    last one would win silently)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(f"duplicate key {key[:100]!r} in an object")
            seen.add(key)
    return obj


def _invalid(msg: str, kind: str) -> UnprocessableError:
    return UnprocessableError([{"loc": ["body"], "msg": msg, "type": kind}])


def parse_json(body: bytes) -> Any:
    """Strict JSON: UTF-8 without a byte-order mark, no NaN/Infinity literals, no key twice in
    an object, not nested absurdly deep (422 naming the problem otherwise)."""
    if body.startswith(codecs.BOM_UTF8):
        raise _invalid("not JSON in UTF-8: the body starts with a byte-order mark", "json_utf8")
    encoding = json.detect_encoding(body)
    if encoding != "utf-8":  # what json.loads would have read as UTF-16 or UTF-32
        raise _invalid(f"not JSON in UTF-8: the body looks like {encoding.upper()}", "json_utf8")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid(
            f"not JSON in UTF-8: {exc.reason} at byte {exc.start} (0x{body[exc.start]:02x})",
            "json_utf8",
        ) from None
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except _DuplicateKeyError as exc:
        raise _invalid(f"invalid JSON: {exc}", "json_duplicate_key") from None
    except (ValueError, RecursionError) as exc:
        why = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
        raise _invalid(f"invalid JSON: {why}", "json_invalid") from None


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
