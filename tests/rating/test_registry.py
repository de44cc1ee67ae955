"""The model registry: each spec against its class, settings checked by name, one source for the
command line, ``fit`` and the store."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from mindsport.history import Match, fit, replay
from mindsport.rating import (
    MODELS,
    Elo,
    Estimate,
    FideK,
    Kind,
    ParameterError,
    TrueSkill,
    UnknownModelError,
    build_model,
    default_grid,
    get_spec,
    model_names,
)
from mindsport.rating.params import Param


def class_defaults(cls: type) -> dict[str, Any]:
    return {
        f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING
    }


def test_names_and_display() -> None:
    online = ("trueskill", "elo", "fide", "glicko2", "tenhou", "pairwise", "cardplay")
    assert model_names() == (*online, "trueskill-history", "tenhou-dan")
    assert model_names(Estimate.ONLINE) == (*online, "tenhou-dan")
    d = {n: MODELS[n].display for n in MODELS}
    assert (d["trueskill"].conservative, d["trueskill"].deviation_label) == (
        "mu - 3 sigma",
        "sigma",
    )
    assert (d["glicko2"].conservative, d["glicko2"].deviation_label) == ("rating - 2 RD", "RD")
    assert d["elo"].deviation is None and d["tenhou"].deviation is None
    assert d["tenhou"].conservative == "R"
    assert (d["tenhou-dan"].conservative, d["tenhou-dan"].value_label) == ("dan", "pt")
    assert d["tenhou-dan"].levels is not None and d["tenhou-dan"].levels[13] == "四段"
    assert d["tenhou-dan"].deviation is None and d["trueskill"].levels is None


@pytest.mark.parametrize("name", list(MODELS))
def test_spec_defaults_are_the_class_defaults(name: str) -> None:
    spec = MODELS[name]
    model = spec.build()
    defaults = class_defaults(spec.cls)
    for p in spec.params:
        if name == "fide" and p.name in ("new_k", "new_games", "regular_k", "top_k", "threshold"):
            field = {"regular_k": "k"}.get(p.name, p.name)
            assert getattr(model.k, field) == p.default == class_defaults(FideK)[field]
        else:
            assert defaults[p.name] == p.default, p.name
            assert getattr(model, p.name) == p.default
        assert p.ok(p.default), p.name
    assert isinstance(model.rating(), spec.value_type)
    if spec.estimate is Estimate.ONLINE:
        assert model.replayer().compiled


def out_of_range(p: Param) -> Any:
    if p.kind is Kind.CHOICE:
        return "nonsense"
    if p.kind is Kind.BOOLEAN:
        return "yes"
    if p.kind is Kind.TABLE:
        return [[1.0]]
    if p.low is not None:
        return p.low - 1.0
    return math.inf


@pytest.mark.parametrize("name", list(MODELS))
def test_every_setting_is_checked_by_name(name: str) -> None:
    spec = MODELS[name]
    for p in spec.params:
        bad = out_of_range(p)
        with pytest.raises(ParameterError) as err:
            build_model(name, **{p.name: bad})
        msg = str(err.value)
        assert p.name in msg and repr(bad) in msg and p.allowed() in msg, msg
    with pytest.raises(UnknownModelError, match=r"no parameter 'gamma' \(known: "):
        build_model(name, gamma=1.0)


@pytest.mark.parametrize("name", list(MODELS))
def test_every_number_setting_is_bounded_on_both_sides(name: str) -> None:
    # issue 42: a setting that passed "a number > 0" (beta=1e-300) broke every later post; now
    # every number has a finite range, and a value above it is refused with that range
    for p in MODELS[name].params:
        if p.kind not in (Kind.REAL, Kind.INTEGER, Kind.TABLE):
            continue
        assert p.low is not None and p.high is not None, p.name
        assert math.isfinite(p.low) and math.isfinite(p.high), p.name
        too_big = p.high * 2 + 1
        bad: Any = [[too_big, 0.0]] if p.kind is Kind.TABLE else too_big
        with pytest.raises(ParameterError) as err:
            build_model(name, **{p.name: bad})
        msg = str(err.value)
        assert f"model {name!r}: {p.name} must be {p.allowed()}, got {bad!r}" == msg
        if p.kind is Kind.INTEGER:  # an integer too large for a float is out of range too
            with pytest.raises(ParameterError):
                build_model(name, **{p.name: 10**400})


def test_the_reported_settings_are_refused_with_their_range() -> None:
    with pytest.raises(
        ParameterError,
        match=r"^model 'trueskill': beta must be a number in \[0\.001, 1e\+06\], got 1e-300$",
    ):
        build_model("trueskill", beta=1e-300)
    # the draw margin Phi^-1((p + 1) / 2) is infinite for p within 1e-16 of 1
    with pytest.raises(ParameterError, match=r"draw_probability must be a number in \[0, 0\.999\]"):
        build_model("cardplay", draw_probability=1 - 2**-53)
    with pytest.raises(ParameterError, match=r"epsilon must be a number in \[1e-12, 0\.1\]"):
        build_model("glicko2", epsilon=1e-300)
    for name in MODELS:  # the bounds themselves are allowed
        for p in MODELS[name].params:
            if p.kind in (Kind.REAL, Kind.INTEGER):
                assert p.low is not None and p.high is not None
                for edge in (p.low, p.high):
                    if not (edge == p.low and p.low_open):
                        v = int(edge) if p.kind is Kind.INTEGER else edge
                        build_model(name, **{p.name: v})


def test_values_in_their_own_type() -> None:
    m = build_model("pairwise", iterations=3.0, both_orders=False)
    assert m.iterations == 3 and type(m.iterations) is int
    assert get_spec("glicko2").parse("period", "7") == 7.0
    assert get_spec("glicko2").parse("max_rd", "none") is None
    assert get_spec("pairwise").parse("both_orders", "false") is False
    t = get_spec("tenhou").parse("bonuses", "[[20, -20], [30, 0, -30]]")
    assert build_model("tenhou", bonuses=t).bonuses == ((20.0, -20.0), (30.0, 0.0, -30.0))
    with pytest.raises(
        ParameterError, match=r"iterations must be an integer in \[1, 1000\], got 2\.5"
    ):
        build_model("pairwise", iterations=2.5)
    fide = build_model("fide", new_games=5, regular_k=24.0)
    assert fide.k == FideK(new_games=5, k=24.0)
    with pytest.raises(UnknownModelError, match="unknown model 'chess9'"):
        build_model("chess9")


def test_classes_check_themselves_with_the_same_descriptions() -> None:
    with pytest.raises(ParameterError):
        build_model("trueskill", draw_probability=1.0)
    with pytest.raises(ValueError, match=r"draw_probability must be a number in \[0, 0\.999\]"):
        TrueSkill(draw_probability=1.0)
    with pytest.raises(ValueError, match="team_strength must be 'average' or 'sum'"):
        Elo(team_strength="max")  # type: ignore[arg-type]
    assert Elo(k=lambda r: 10.0).k_factor(Elo().rating()) == 10.0  # a K schedule is allowed


def test_fit_reads_the_registered_grids() -> None:
    assert default_grid("elo") == dict(MODELS["elo"].grid) == default_grid(Elo)
    assert default_grid(TrueSkill)["beta"] == MODELS["trueskill"].grid["beta"]
    ms = [Match(str(i), i, [["a"], ["b"]], [int(i % 3 == 0), int(i % 3 != 0)]) for i in range(30)]
    res = fit("tenhou", ms, 0.5)
    assert set(res.params) == {"prob_scale"}
    assert res.params["prob_scale"] in MODELS["tenhou"].grid["prob_scale"]


@pytest.mark.parametrize("name", model_names(Estimate.ONLINE))
def test_every_model_replays_through_its_compiled_replayer(name: str) -> None:
    ms = [Match(str(i), i, [[f"p{i % 3}"], [f"p{(i + 1) % 3}"]], [0, 1]) for i in range(12)]
    if name == "tenhou-dan":  # four-player tables only
        ms = [
            Match(str(i), i, [[f"p{(i + k) % 3}"] for k in range(3)] + [["p3"]], [1, 3, 2, 0])
            for i in range(40)
        ]
    model = build_model(name)
    quick = replay(model, ms, fast=True)
    slow = replay(model, ms, fast=False)
    players = {"p0", "p1", "p2"} | ({"p3"} if name == "tenhou-dan" else set())
    assert quick.ratings.keys() == slow.ratings.keys() == players
    for p, r in slow.ratings.items():
        q = quick.ratings[p]
        for f in dataclasses.fields(r):
            assert getattr(q, f.name) == pytest.approx(getattr(r, f.name), abs=1e-9)
