"""The replay loop: a long history fed to a model's replayer, block by block, in order.

Every replay of a history runs this one loop (:func:`drive`): chunk the items, encode each chunk
into a block of matches (:class:`~mindsport.rating.replay.blocks.MatchBlock`), feed the block to
the replayer (:class:`~mindsport.rating.replay.replayers.Replayer`), name the failing match in
the error, hand each fed block to the caller, report progress, let the replayer finish. The
caller says what an item is (a :class:`~mindsport.match.Match`, a stored row) through the
function that encodes a chunk, and what a refused item's error says.

:func:`mindsport.history.replay` (and through it ``evaluate``, ``fit`` and the rolling refits)
runs it on Match objects, keeping every block for its lazy views; the store runs it on its
stored rows, turning each block into rows of its own as soon as it is fed.

>>> from mindsport.match import Match
>>> from mindsport.rating import Elo
>>> from mindsport.rating.replay.blocks import PlayerIndex, encode_matches
>>> index, replayer = PlayerIndex(), Elo().replayer()
>>> ms = [Match(f"m{i}", i, [["ann"], ["bob"]], [0, 1]) for i in range(5)]
>>> seen = []
>>> fed = drive(replayer, ms, lambda chunk: encode_matches(chunk, index), chunk=2,
...             on_block=lambda c: seen.append((c.first, len(c.items))))
>>> seen, len(fed), round(replayer.value(index.get("ann")).rating, 1)
([(0, 2), (2, 2), (4, 1)], 3, 1544.6)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Generic, TypeVar

from mindsport.errors import MindsportError
from mindsport.rating.replay.blocks import MatchBlock
from mindsport.rating.replay.replayers import Fed, Replayer

__all__ = ["CHUNK", "Chunk", "drive", "named_by"]

#: matches encoded and rated at a time
CHUNK = 65_536

T = TypeVar("T")


@dataclass(frozen=True)
class Chunk(Generic[T]):
    """One block of a replay as it was fed: its ``items``, the position of the first of them in
    the whole replay (``first``), the ``block`` encoded from them and what the replayer made of
    it (``fed``: the per-slot states with ``keep``, the predictions with ``predict``)."""

    first: int
    items: list[T]
    block: MatchBlock
    fed: Fed


def named_by(match_id: Callable[[T], str]) -> Callable[[MindsportError, T], MindsportError]:
    """The error of a refused item that :func:`drive` raises by default: the replayer's own
    error, of its own type where it can be made, with the item's match id first (``match 'x':
    ...``)."""

    def named(exc: MindsportError, item: T) -> MindsportError:
        msg = f"match {match_id(item)!r}: {exc}"
        try:
            err = type(exc)(msg)
        except TypeError:
            err = MindsportError(msg)
        err.__cause__ = exc
        return err

    return named


def _item_id(item: object) -> str:
    """An item's match id: its ``id`` (a :class:`~mindsport.match.Match`), else the item."""
    return str(getattr(item, "id", item))


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def drive(
    replayer: Replayer,
    items: Iterable[T],
    encode: Callable[[list[T]], MatchBlock],
    *,
    predict: bool = False,
    keep: bool = False,
    chunk: int = CHUNK,
    on_block: Callable[[Chunk[T]], None] | None = None,
    refused: Callable[[MindsportError, T], Exception] | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[Fed]:
    """Feed ``items`` (in order) to ``replayer``, ``chunk`` at a time; return what every block
    produced, as the replayer's ``finish`` leaves it.

    ``encode(items)`` turns a chunk of items into a block (new players numbered by the caller's
    player index). Each block is fed with ``predict`` and ``keep`` and then handed to
    ``on_block`` (a :class:`Chunk`) before the next is encoded. A match the replayer refuses
    (its error carries the match's ``match_index``) raises ``refused(error, item)`` (default:
    the error naming the item's ``id``, :func:`named_by`); any other error passes unchanged.
    ``progress(done)`` is called after every block with the number of items fed so far, and
    once with 0 when there was nothing to feed.
    """
    name = refused if refused is not None else named_by(_item_id)
    fed: list[Fed] = []
    done = 0
    for part in _chunks(items, chunk):
        block = encode(part)
        try:
            out = replayer.feed(block, predict=predict, keep=keep)
        except MindsportError as exc:
            at = getattr(exc, "match_index", None)
            if at is None:
                raise
            raise name(exc, part[int(at)]) from exc
        fed.append(out)
        if on_block is not None:
            on_block(Chunk(done, part, block, out))
        done += len(part)
        if progress is not None:
            progress(done)
    if progress is not None and done == 0:
        progress(0)
    return replayer.finish(fed)
