"""Whole-history TrueSkill (TrueSkill Through Time): each player's skill a chain through time.

* :mod:`.model`: :class:`~.model.TrueSkillThroughTime` (settings, one game's update, what a
  history converged to);
* :mod:`.skill_history`: :class:`~.skill_history.SkillHistory`, the settled graph of a history,
  kept current by incremental adds; :mod:`.graph`: its arrays;
* the compiled message passing: :mod:`.chain_kernel` (the chains of a player's skills through
  time), :mod:`.game_kernel` (a game's messages to its players), :mod:`.level_kernel` (the level
  of the skills through time), :mod:`.sweep_kernel` (the sweeps until everything settled).

This package may import :mod:`mindsport.errors`, :mod:`mindsport.match`, :mod:`mindsport._jit`,
TrueSkill (:mod:`mindsport.rating.trueskill`) and the shared parts of :mod:`mindsport.rating`.
"""
