"""Elo: the model (:mod:`.model`: :class:`~.model.Elo`, :class:`~.model.FideK`, the formulas)
and its compiled update and replay (:mod:`.elo_kernel`).

This package may import :mod:`mindsport.errors`, :mod:`mindsport.match`, :mod:`mindsport._jit`
and the shared parts of :mod:`mindsport.rating` (replay machinery, settings, team shapes).
"""
