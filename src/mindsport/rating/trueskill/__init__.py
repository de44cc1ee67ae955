"""TrueSkill: the model, its factor graph, its compiled update, and the models built on it.

* :mod:`.model`: :class:`~.model.TrueSkill` (settings, ``rate``, predictions) and its replayer;
  :mod:`.game`: what a game given to ``rate`` is (validation, errors); :mod:`.predictions`: match
  quality and place probabilities;
* :mod:`.factors`: the readable factor graph of one game (factor objects and the patent's
  schedule in plain Python), which the tests hold against the compiled update;
* :mod:`.trueskill_kernel`: the compiled update of one game (the one implementation of its
  arithmetic, the closed form of two teams included); :mod:`.replay_kernel`: the compiled
  replay of a block of matches;
* :mod:`.pairwise` (+ :mod:`.pairwise_kernel`): the naive "every pair, repeated" update of the
  mahjong article; :mod:`.cardplay` (+ :mod:`.cardplay_kernel`): TrueSkill with roles, deal luck
  and score margins; :mod:`.margins`: what a score margin observes.

This package may import :mod:`mindsport.errors`, :mod:`mindsport.match`, :mod:`mindsport._jit`
and the shared parts of :mod:`mindsport.rating` (Gaussian maths, replay machinery, settings).
"""
