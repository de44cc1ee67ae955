"""Tenhou R: the model (:mod:`.model`: :class:`~.model.TenhouRating`, the formulas) and its
compiled update and replay (:mod:`.tenhou_kernel`).

This package may import :mod:`mindsport.errors`, :mod:`mindsport.match`, :mod:`mindsport._jit`,
Elo's logistic curve (:mod:`mindsport.rating.elo`) and the shared parts of
:mod:`mindsport.rating` (replay machinery, settings, team shapes).
"""
