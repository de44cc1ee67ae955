"""Match records, their files, chronological replay and evaluation."""

from mindsport.history.evaluate import CalibrationBin, Evaluation, Metrics, evaluate
from mindsport.history.fit import FitResult, fit
from mindsport.history.importers import (
    Dropped,
    Imported,
    import_matches,
    load_matches,
    read_atp,
    read_halo,
    read_ti4,
)
from mindsport.history.io import MatchFileError, iter_matches, read_matches, write_matches
from mindsport.history.replay import MatchPrediction, Replay, replay
from mindsport.match import InvalidMatchError, Match, ranks_from_scores

__all__ = [
    "CalibrationBin",
    "Dropped",
    "Evaluation",
    "FitResult",
    "Imported",
    "InvalidMatchError",
    "Match",
    "MatchFileError",
    "MatchPrediction",
    "Metrics",
    "Replay",
    "evaluate",
    "fit",
    "import_matches",
    "iter_matches",
    "load_matches",
    "ranks_from_scores",
    "read_atp",
    "read_halo",
    "read_matches",
    "read_ti4",
    "replay",
    "write_matches",
]
