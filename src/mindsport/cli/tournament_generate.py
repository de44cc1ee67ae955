"""``mindsport tournament generate``: Dou Dizhu deals of a requested difficulty on demand.

A ridge model of the GDI on card features is fitted on a library graded by simulation (or
loaded), deals are rejection-sampled until their predicted GDI is near the target, and the
deals found are verified by simulation at the grading tables. The command is added to the
``tournament`` group (:mod:`mindsport.cli.tournament`, whose engine plumbing it uses) by the root.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mindsport.cli.options import output_file, parse_numbers
from mindsport.cli.tournament import (
    GDI_CENTRE,
    GDI_LEVELS,
    AddressOption,
    ExecutorOption,
    WorkersOption,
    ddz_bot_specs,
    running_games,
)

__all__ = ["generate"]


def generate(
    target: Annotated[str, typer.Option(help="Requested GDI.")] = GDI_CENTRE,
    epsilon: Annotated[float, typer.Option(help="Accept within this distance.")] = 0.15,
    count: Annotated[int, typer.Option(help="Deals to generate.")] = 20,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    model: Annotated[
        Path | None, typer.Option(help="Load a fitted model (JSON) instead of training one.")
    ] = None,
    save_model: Annotated[
        Path | None, typer.Option(help="Write the fitted model here.", callback=output_file)
    ] = None,
    library_hands: Annotated[int, typer.Option(help="Graded one-bomb deals to train on.")] = 300,
    holdout: Annotated[float, typer.Option(help="Share of them held out for R^2.")] = 0.25,
    alpha: Annotated[float, typer.Option(help="Ridge penalty.")] = 1.0,
    graders: Annotated[str, typer.Option(help="Landlord bots of the GDI tables.")] = (
        "10,20,30,40,50,60,70,80,90,100"
    ),
    farmers: Annotated[str, typer.Option(help="The fixed farmer bots (one or two).")] = "0",
    verify: Annotated[bool, typer.Option(help="Grade the generated deals by simulation.")] = True,
    max_tries: Annotated[int, typer.Option(help="Give up after dealing this many.")] = 200_000,
    out: Annotated[
        Path | None, typer.Option(help="Write the deals (JSONL) here.", callback=output_file)
    ] = None,
    executor: ExecutorOption = "local",
    workers: WorkersOption = 0,
    address: AddressOption = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Deals of a requested difficulty (GDI within EPSILON of TARGET) on demand.

    Fits a ridge model GDI ~ card features on a simulated library (held-out R^2 and the noise
    ceiling printed), rejection-samples one-bomb deals whose predicted GDI is within EPSILON,
    then verifies them by simulation at the grading tables.
    """
    import json

    import numpy as np

    from mindsport.tournament.doudizhu.games import landlord_table, random_deals
    from mindsport.tournament.doudizhu.generator import (
        GdiModel,
        cross_validated_r2,
        feature_matrix,
        propose_deals,
        split_half_ceiling,
    )
    from mindsport.tournament.errors import TournamentError
    from mindsport.tournament.executors import task_rng
    from mindsport.tournament.gdi import grade_difficulty

    goal = parse_numbers(target, "--target")
    levels = [float(x) for x in GDI_LEVELS.split(",")]
    if len(goal) != len(levels) - 1:
        raise TournamentError(f"--target needs {len(levels) - 1} values, got {len(goal)}")
    if not 0 < holdout < 1:
        raise TournamentError(f"--holdout must lie strictly between 0 and 1, got {holdout}")
    farm = ddz_bot_specs(farmers, "--farmers")
    farm = farm * 2 if len(farm) == 1 else farm
    if len(farm) != 2:
        raise TournamentError(f"--farmers takes one or two bots, got {len(farm)}")
    tables = ddz_bot_specs(graders, "--graders")
    with running_games(executor, workers, address, quiet) as (ex, bar):
        if model is not None:
            fitted = GdiModel.load(model)
        else:
            deals = random_deals(library_hands, task_rng(seed, 10), one_bomb=True)
            bar.stage("grading the training library", len(deals) * len(tables) * 2)
            scores = landlord_table(
                deals,
                tables,
                (farm[0], farm[1]),
                seed,
                11,
                ex,
                replays=2,
                progress=bar.advance,
            )
            halves = [
                np.array([grade_difficulty(scores[:, j, h], levels) for j in range(len(deals))])
                for h in (0, 1)
            ]
            gdis = (halves[0] + halves[1]) / 2
            x = feature_matrix(deals)
            order = task_rng(seed, 12).permutation(len(deals))
            cut = round(len(deals) * (1 - holdout))
            train, test = order[:cut], order[cut:]
            if len(train) < 2 or len(test) < 3:
                raise TournamentError("--library-hands is too small to train and hold out")
            fitted = GdiModel.fit(x[train], gdis[train], alpha=alpha, levels=levels)
            r2 = fitted.r2(x[test], gdis[test])
            ceiling = split_half_ceiling(halves[0], halves[1])
            cv = cross_validated_r2(x, gdis, task_rng(seed, 15), alpha=alpha)
            typer.echo(
                f"model: ridge on {len(train)} hands graded at {len(tables)} tables x 2; "
                f"held-out R^2 on {len(test)}: "
                + ", ".join(f"g{i + 1} {v:.3f}" for i, v in enumerate(r2[:-1]))
                + f", pooled {r2[-1]:.3f}"
            )
            typer.echo(
                f"5-fold cross-validated R^2 on all {len(deals)}: "
                + ", ".join(f"g{i + 1} {v:.3f}" for i, v in enumerate(cv[:-1]))
                + f", pooled {cv[-1]:.3f}"
            )
            typer.echo(
                "noise ceiling of R^2 (split-half reliability of the simulated GDI): "
                + ", ".join(f"g{i + 1} {v:.3f}" for i, v in enumerate(ceiling))
            )
            near = np.linalg.norm(gdis - np.array(goal), axis=1) < epsilon
            same = np.linalg.norm(halves[1] - np.array(goal), axis=1) < epsilon
            first = np.linalg.norm(halves[0] - np.array(goal), axis=1) < epsilon
            again = f"{(first & same).sum() / first.sum():.1%}" if first.any() else "n/a"
            typer.echo(
                f"library: {near.mean():.1%} of graded one-bomb deals lie within {epsilon:g} "
                "of the target (blind acceptance); of the deals within it on one set of games, "
                f"{again} are within it again on a second set (simulation's own repeatability)"
            )
            if save_model is not None:
                fitted.save(save_model)
                typer.echo(f"model written to {save_model}")
        proposal = propose_deals(
            fitted, goal, epsilon, count, task_rng(seed, 13), max_tries=max_tries
        )
        typer.echo(
            f"generated {len(proposal.deals)} deals from {proposal.tried} dealt "
            f"(acceptance {proposal.acceptance:.2%}); "
            f"{proposal.seconds_per_deal * 1000:.1f} ms per accepted deal"
        )
        verified: list[tuple[float, ...]] = []
        if verify and proposal.deals:
            bar.stage("verifying", len(proposal.deals) * len(tables) * 2)
            check = landlord_table(
                list(proposal.deals),
                tables,
                (farm[0], farm[1]),
                seed,
                14,
                ex,
                replays=2,
                progress=bar.advance,
            )
            verified = [
                tuple(grade_difficulty(check[:, j, :].ravel(), levels).tolist())
                for j in range(len(proposal.deals))
            ]
    rows = []
    within = 0
    for j, d in enumerate(proposal.deals):
        row: dict[str, Any] = {
            "deal": str(d),
            "predicted": proposal.predicted[j].round(3).tolist(),
        }
        if verified:
            dist = float(np.linalg.norm(np.array(verified[j]) - np.array(goal)))
            within += dist < epsilon
            row.update(simulated=list(verified[j]), distance=round(dist, 4))
        rows.append(row)
    if verified:
        typer.echo(
            f"verified by simulation at {len(tables)} tables x 2: {within}/{len(verified)} "
            f"within {epsilon:g} of {goal}"
        )
    for row in rows[:10]:
        typer.echo(json.dumps(row))
    if out is not None:
        from mindsport.files import write_atomically

        text = "".join(json.dumps(r) + "\n" for r in rows)

        def write(tmp: Path) -> None:
            tmp.write_text(text, encoding="utf-8")

        write_atomically(out, write)
        typer.echo(f"{len(rows)} deals written to {out}")
