"""Glicko-2: the model (:mod:`.model`: :class:`~.model.Glicko2`, the formulas) and its compiled
update (steps 2-8 of a rating period) and replay (:mod:`.glicko2_kernel`).

This package may import :mod:`mindsport.errors`, :mod:`mindsport.match`, :mod:`mindsport._jit`
and the shared parts of :mod:`mindsport.rating` (replay machinery, settings, team shapes).
"""
