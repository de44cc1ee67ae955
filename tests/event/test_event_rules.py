"""The event rules on their own: pairing against a brute-force search, byes, deals per format,
standings under table scoring, and the refusals (each names the input)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from event_reference import (
    PlayedRound,
    PlayedTable,
    board_scores,
    brute_standings,
    played_round,
    repeat_free_split_exists,
)
from typer.testing import CliRunner

from mindsport.cli.event import app
from mindsport.doudizhu import Deal
from mindsport.event.deals import pool_by_model, round_deals
from mindsport.event.model import (
    DealSource,
    EventError,
    EventFormat,
    EventSpec,
    Player,
    Result,
    Round,
    Scoring,
    Table,
)
from mindsport.event.pairing import pair_round
from mindsport.event.standings import check_scores, standings
from mindsport.tournament.doudizhu.games import bomb_count, random_deals
from mindsport.tournament.doudizhu.generator import (
    FEATURE_NAMES,
    GdiModel,
    deal_features,
    feature_matrix,
)
from mindsport.tournament.executors import task_rng


def run(
    spec: EventSpec, players: list[Player], seed: int
) -> tuple[list[Round], dict[tuple[int, int], Result], list[PlayedRound]]:
    rng = random.Random(seed)
    rounds: list[Round] = []
    results: dict[tuple[int, int], Result] = {}
    played: list[PlayedRound] = []
    for _ in range(spec.rounds):
        this = pair_round(spec, players, rounds, results)
        tables = []
        for t in this.tables:
            s = board_scores(rng, spec.boards)
            results[(this.number, t.number)] = check_scores(t, s)
            tables.append(PlayedTable(t.players, s))
        rounds.append(this)
        played.append(PlayedRound(tables, list(this.byes)))
    return rounds, results, played


@pytest.mark.parametrize(("n", "rounds"), [(6, 4), (7, 4), (9, 5), (10, 5), (12, 5)])
def test_no_repeat_whenever_a_repeat_free_split_exists(n: int, rounds: int) -> None:
    spec = EventSpec("e", "l", rounds=rounds, seed=n)
    players = [Player(f"p{i}", i + 1) for i in range(n)]
    done, _, _ = run(spec, players, n)
    met: set[frozenset[str]] = set()
    byes: dict[str, int] = {}
    for r in done:
        seated = [p for t in r.tables for p in t.players]
        assert sorted(seated + list(r.byes)) == sorted(p.name for p in players)  # once each
        new = [
            frozenset(pair)
            for t in r.tables
            for pair in (
                (t.players[0], t.players[1]),
                (t.players[0], t.players[2]),
                (t.players[1], t.players[2]),
            )
        ]
        if repeat_free_split_exists(seated, met):
            assert not set(new) & met, f"round {r.number} repeats a pair it could avoid"
        # byes go to players with the fewest byes so far
        fewest = min(byes.get(p.name, 0) for p in players)
        assert all(byes.get(p, 0) == fewest for p in r.byes)
        for p in r.byes:
            byes[p] = byes.get(p, 0) + 1
        met.update(new)


@pytest.mark.parametrize("scoring", [Scoring.FIELD, Scoring.TABLE])
def test_standings_match_the_brute_force(scoring: Scoring) -> None:
    spec = EventSpec("e", "l", rounds=4, deals=2, scoring=scoring, seed=3)
    players = [Player(f"p{i}", i + 1) for i in range(11)]
    rounds, results, played = run(spec, players, 5)
    got = {
        s.player: (s.place, s.rank_points, s.score, s.opponents)
        for s in standings(spec, players, rounds, results)
    }
    assert got == brute_standings([p.name for p in players], played, str(scoring))


def test_rank_points_of_a_worked_round() -> None:
    """Worked by hand. Table (a, b, c) boards: a holds the landlord's cards on board 1, b on
    board 2, c on board 3 (rotation); a = 4 - 1 - 0.5 = 2.5, b = -2 + 2 - 0.5 = -0.5,
    c = -2 - 1 + 1 = -2. Table (d, e, f): d = -2 + 4 + 1 = 3, e = 1 - 8 + 1 = -6,
    f = 1 + 4 - 2 = 3. Field of 6: d, f share place 1, a 3, b 4, c 5, e 6, so
    R = 2 (6 - place + 1) = 12, 12, 8, 6, 4, 2; g's bye earns the mean, 7."""
    spec = EventSpec("e", "l", rounds=1)
    t1 = Table(1, 1, ("a", "b", "c"), ("h",))
    t2 = Table(1, 2, ("d", "e", "f"), ("h",))
    r1 = Result(1, 1, ((4.0, -2.0, -2.0), (2.0, -1.0, -1.0), (1.0, -0.5, -0.5)))
    r2 = Result(1, 2, ((-2.0, 1.0, 1.0), (-8.0, 4.0, 4.0), (-2.0, 1.0, 1.0)))
    scores = {**r1.player_scores(t1), **r2.player_scores(t2)}
    assert scores == {"a": 2.5, "b": -0.5, "c": -2.0, "d": 3.0, "e": -6.0, "f": 3.0}
    players = [Player(p, i + 1) for i, p in enumerate("abcdefg")]
    rows = standings(spec, players, [Round(1, (t1, t2), ("g",))], {(1, 1): r1, (1, 2): r2})
    assert {s.player: s.rank_points for s in rows} == {
        "d": 12,
        "f": 12,
        "a": 8,
        "b": 6,
        "c": 4,
        "e": 2,
        "g": 7,
    }
    assert [s.place for s in rows] == [1, 1, 3, 4, 5, 6, 7]


def test_deals_per_format() -> None:
    hands = tuple(str(d) for d in random_deals(40, task_rng(1, 2)))
    dup = round_deals(EventSpec("e", "l", deals=2, seed=4), 1, 5)
    assert len(set(dup)) == 1 and len(dup[0]) == 2 and dup[0][0] != dup[0][1]
    assert round_deals(EventSpec("e", "l", deals=2, seed=5), 1, 5) != dup
    pooled = EventSpec("e", "l", rounds=3, deals=2, source=DealSource.POOL, pool=hands[:6])
    assert [round_deals(pooled, r, 4)[0] for r in (1, 2, 3)] == [hands[0:2], hands[2:4], hands[4:6]]
    equal = EventSpec(
        "e", "l", format=EventFormat.EQUAL_STRENGTH, deals=2, source=DealSource.POOL, pool=hands
    )
    tables = round_deals(equal, 1, 10)
    flat = [h for t in tables for h in t]
    assert len(set(flat)) == 20 and set(flat) <= set(hands)
    with pytest.raises(
        EventError, match="need 42 different equal-strength hands; the pool holds 40"
    ):
        round_deals(equal, 1, 21)
    rand = round_deals(EventSpec("e", "l", format=EventFormat.RANDOM, seed=1), 2, 6)
    assert len({t[0] for t in rand}) == 6
    for t in rand:
        Deal.parse(t[0])  # valid deals


def test_refusals_name_the_input() -> None:
    with pytest.raises(EventError, match="rounds must be an integer from 1 to 50, got 0"):
        EventSpec("e", "l", rounds=0)
    with pytest.raises(EventError, match="format 'swiss': use one of duplicate"):
        EventSpec("e", "l", format="swiss")  # type: ignore[arg-type]
    with pytest.raises(EventError, match="needs a pool of equal-strength hands"):
        EventSpec("e", "l", format=EventFormat.EQUAL_STRENGTH)
    with pytest.raises(EventError, match="a duplicate event of 3 rounds with 2 deals each needs 6"):
        EventSpec("e", "l", rounds=3, deals=2, source=DealSource.POOL, pool=("x",) * 1)
    with pytest.raises(EventError, match="event name 'a b'"):
        EventSpec("a b", "l")
    table = Table(2, 4, ("a", "b", "c"), ("h",))
    with pytest.raises(
        EventError, match=r"round 2 table 4 board 2: the farmers score -1\.0 and -2\.0"
    ):
        check_scores(table, [[2, -1, -1], [3, -1, -2], [0, 0, 0]])
    with pytest.raises(EventError, match="board 1: score nan is out of range"):
        check_scores(table, [[float("nan"), 0, 0]] * 3)
    with pytest.raises(EventError, match="expected scores for 3 boards, got 1 rows"):
        check_scores(table, [[2, -1, -1]])
    spec = EventSpec("e", "l", rounds=1)
    two = [Player("a", 1), Player("b", 2)]
    with pytest.raises(EventError, match="round 1 needs at least 3 players; 2 can play"):
        pair_round(spec, two, [], {})
    four = [*two, Player("c", 3), Player("d", 4)]
    with pytest.raises(EventError, match="'e' is not a player of this round"):
        pair_round(spec, four, [], {}, manual=[["a", "b", "e"]])
    # issue 40: a round seated partly by hand pairs the rest (or gives them byes)
    with pytest.raises(EventError, match="round 1: no table is seated"):
        pair_round(spec, four, [], {}, manual=[], rest="byes")
    assert pair_round(spec, four, [], {}, manual=[]) == pair_round(spec, four, [], {})
    done = pair_round(spec, four, [], {})
    results = {(1, 1): check_scores(done.tables[0], [[1, -0.5, -0.5]] * 3)}
    with pytest.raises(EventError, match="event 'e' has 1 rounds; all are paired"):
        pair_round(spec, four, [done], results)


def test_deals_generated_at_a_requested_difficulty(tmp_path: Path) -> None:
    """A GDI model (fitted here on made-up GDIs of real deals) generates the pool: every hand a
    one-bomb deal whose predicted GDI lies within epsilon of the target; through the CLI too."""
    sample = random_deals(40, task_rng(5, 1), one_bomb=True)
    x = feature_matrix(sample)
    lord = [FEATURE_NAMES.index(f) for f in ("L_control", "L_bombs")]
    fake = np.clip(0.3 + 0.05 * x[:, lord[0]] + 0.1 * x[:, lord[1]], 0, 1)
    model = GdiModel.fit(x, np.stack([fake, fake * 0.8, fake * 0.5], axis=1), alpha=0.1)
    target = np.median(model.predict(x), axis=0).tolist()
    hands = pool_by_model(model, target, 0.08, 12, seed=3)
    assert len(set(hands)) == 12
    for h in hands:
        d = Deal.parse(h)
        assert bomb_count(d) == 1
        assert np.linalg.norm(model.predict(deal_features(d))[0] - target) < 0.08
    with pytest.raises(EventError, match="of 5 deals found within 1e-09"):
        pool_by_model(model, [0.99, 0.01, 0.99], 1e-9, 5, seed=3, max_tries=50)
    model.save(tmp_path / "gdi.json")
    out = CliRunner().invoke(
        app,
        [
            "create",
            "gen",
            "--league",
            "l",
            "--create-league",
            "--gdi-model",
            str(tmp_path / "gdi.json"),
            "--target",
            ",".join(map(str, target)),
            "--epsilon",
            "0.08",
            "--count",
            "6",
            "--rounds",
            "3",
            "--deals",
            "2",
            "--db",
            f"sqlite:///{tmp_path / 'gen.db'}",
        ],
    )
    assert out.exit_code == 0 and "pool deals (6 hands)" in out.output, out.output


@pytest.mark.parametrize("late_points", ["zero", "mean"])
def test_late_entrants_are_seated_and_start_with_the_set_points(late_points: str) -> None:
    """Five players, then a sixth late: in round 2 all six are seated, and the late entrant
    starts with 0 or round 1's mean (a bye's n + 1 = 4 over the three seated); checked
    against the brute-force reference of round 1."""
    spec = EventSpec("e", "l", rounds=2, late_points=late_points)  # type: ignore[arg-type]
    five = [Player(n, i + 1) for i, n in enumerate("abcde")]
    first = pair_round(spec, five, [], {})
    assert len(first.tables) == 1 and len(first.byes) == 2
    scores = [[2, -1, -1], [1, -0.5, -0.5], [-1, 0.5, 0.5]]
    results = {(1, 1): check_scores(first.tables[0], scores)}
    players = [*five, Player("late", 6, joined=2)]
    second = pair_round(spec, players, [first], results)
    seated = {p for t in second.tables for p in t.players}
    assert len(second.tables) == 2 and not second.byes and "late" in seated
    results.update({(2, t.number): check_scores(t, [[0, 0, 0]] * 3) for t in second.tables})
    rows = {s.player: s for s in standings(spec, players, [first, second], results)}
    # round 2: everyone scores 0, so all six share place 1: 2 * 6 = 12 rank points
    want_round1 = {"late": 4 if late_points == "mean" else 0}
    r1 = played_round(
        {"tables": [{"players": list(first.tables[0].players)}], "byes": list(first.byes)},
        [scores],
    )
    ref = brute_standings("abcde", [r1])
    for p in "abcde":
        want_round1[p] = ref[p][1]
    assert {p: s.rank_points for p, s in rows.items()} == {
        p: v + 12 for p, v in want_round1.items()
    }
    assert rows["late"].rounds == 1 and rows["late"].byes == 0 and rows["late"].score == 0


def test_partial_manual_seating_pairs_or_byes_the_rest(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'e.db'}"
    runner = CliRunner()

    def run(*args: str) -> str:
        out = runner.invoke(app, [*args, "--db", db])
        assert out.exit_code == 0, out.output
        return out.output

    run("create", "p", "-l", "l", "--create-league", "--rounds", "2")
    run("register", "p", *"abcdefghij")
    out = run("pair", "p", "--tables", "j,a,b")
    # the rest (7 players) paired by the Swiss rule: two tables and one bye
    assert "table 1: j, a, b" in out and "round 1: 3 tables" in out and out.count("byes: ") == 1
    byes = out.split("byes: ")[1].split()
    assert len(byes) == 1 and byes[0] in "cdefghi"
    run("unpair", "p", "--why", "the rest sit out")
    out = run("pair", "p", "--tables", "j,a,b", "--rest", "byes")
    assert "round 1: 1 tables" in out and "byes: " in out
    assert sorted(out.split("byes: ")[1].replace(",", " ").split()) == list("cdefghi")
