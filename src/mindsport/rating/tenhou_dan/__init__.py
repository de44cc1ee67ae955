"""The Tenhou dan ladder (段位): the published tables (:mod:`.ladder`), the model
(:mod:`.model`: :class:`~.model.TenhouDanLadder`, the value :class:`~.model.TenhouDan`) and its
compiled update and replay (:mod:`.dan_kernel`).

This package may import :mod:`mindsport.errors`, :mod:`mindsport.match`, :mod:`mindsport._jit`,
Elo's logistic curve (:mod:`mindsport.rating.elo`) and the shared parts of
:mod:`mindsport.rating` (replay machinery, settings, team shapes).
"""
