"""Whole-history TrueSkill (TrueSkill Through Time): each player's skill a chain through time.

* :mod:`.model`: :class:`~.model.TrueSkillThroughTime` (the settings, one game's update) and
  :class:`~.model.SkillHistory`, the settled graph of a history, kept current by incremental
  adds; :mod:`.graph`: the graph's arrays and the named views the kernels read;
  :mod:`.clock`: match times and time steps;
* the compiled message passing: :mod:`.chain_kernel` (the chains of a player's skills through
  time), :mod:`.game_kernel` (a game's messages to its players), :mod:`.level_kernel` (the level
  of the skills through time), :mod:`.sweep_kernel` (the sweeps until everything settled).

This package may import :mod:`mindsport.errors`, :mod:`mindsport.match`, :mod:`mindsport._jit`,
TrueSkill (:mod:`mindsport.rating.trueskill`) and the shared parts of :mod:`mindsport.rating`.
"""
