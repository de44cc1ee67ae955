"""Replaying long histories through a rating model: what every model shares.

* :mod:`.blocks`: players as dense indices (:class:`~.blocks.PlayerIndex`) and matches as flat
  arrays (:class:`~.blocks.MatchBlock`, the input of the compiled replays), with their encoders;
* :mod:`.block_kernel`: the compiled passes over a block that every replayer shares;
* :mod:`.replayers`: the replayer protocol (:class:`~.replayers.Replayer`, what a block
  produced: :class:`~.replayers.Fed`), the compiled :class:`~.replayers.ArrayReplayer` the
  built-in models extend and :class:`~.replayers.ObjectReplayer` (``model.rate`` match by match);
* :mod:`.driver`: the one replay loop that :func:`mindsport.history.replay` and the store run.

This package may import :mod:`mindsport.errors`, :mod:`mindsport.match` and
:mod:`mindsport._jit`; the models import it, never the reverse.
"""
