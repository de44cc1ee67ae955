"""The shared scalar functions of the rating models, compiled once for every kernel (numba).

:func:`mindsport._jit.compiling.compile_functions` compiles the functions listed in the
``__kernels__`` of :mod:`mindsport.match` (a pair's outcome from ranks),
:mod:`mindsport.rating.gaussian` (normal distribution), :mod:`mindsport.rating.truncation`
(truncated-Gaussian moments) and :mod:`mindsport.rating.formulas` (the formulas the TrueSkill
models share). The kernel modules take them from here, so each is compiled (and cached) once. A
model's own formulas are compiled by its kernel module (e.g. :mod:`.elo.elo_kernel`).
"""

from __future__ import annotations

from mindsport import match
from mindsport._jit.compiling import compile_functions
from mindsport.rating import formulas, gaussian, truncation

__all__ = ["F"]  # and each compiled function by its name, below

#: the compiled functions, by name
F = compile_functions(match, gaussian, truncation, formulas)

# the ones the kernels call, by name
pair_outcome = F.pair_outcome
erfcx = F.erfcx
norm_cdf = F.norm_cdf
truncated = F.truncated
difference_moments = F.difference_moments
margin_moments = F.margin_moments
win_moments = F.win_moments
win_main = F.win_main
drifted_sigma = F.drifted_sigma
margin_from_quantile = F.margin_from_quantile
clip_margin = F.clip_margin
ahead_probability = F.ahead_probability
ahead_given = F.ahead_given
win_loss = F.win_loss
