"""``fit`` finds the scale that puts a deal's luck on the performance scale."""

from __future__ import annotations

import numpy as np

from mindsport.history import fit
from mindsport.match import Match


def test_fit_recovers_the_luck_scale_of_simulated_games() -> None:
    rng = np.random.default_rng(8)
    beta, scale = 25 / 6, 8.0
    skills = rng.normal(25.0, 3.0, 10)
    matches = []
    for k in range(1000):
        a, b = rng.choice(10, 2, replace=False)
        luck = float(rng.normal())  # the deal's expected result for a, standard-normal units
        d = skills[a] - skills[b] + scale * luck + rng.normal(0.0, beta * np.sqrt(2))
        matches.append(
            Match(f"m{k}", k, [[f"p{a}"], [f"p{b}"]], [0, 1] if d > 0 else [1, 0], luck=[luck, 0])
        )
    grid = {"luck_scale": (0.0, 2.0, 4.0, 8.0, 16.0, 32.0)}
    result = fit("cardplay", matches, 0.7, grid, fixed={"draw_probability": 0.0})
    assert result.params["luck_scale"] in (4.0, 8.0, 16.0)
    losses = dict((dict(k)["luck_scale"], v) for k, v in result.tried)
    assert losses[0.0] > losses[result.params["luck_scale"]] + 0.05  # luck matters, and is seen
