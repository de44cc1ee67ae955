"""Match histories: records and their files, public data sets, replay, evaluation and fitting.

* :mod:`.io`: reading and writing match files (JSONL, CSV long format, Parquet; the formats in
  :mod:`.formats`); :mod:`.importers`: public data sets (ATP tennis, Halo, Twilight Imperium);
  :mod:`.reading`: ``read_matches``, one reader for either;
* :mod:`.replay`: chronological replay through a rating model (on the one replay driver of
  :mod:`mindsport.rating.replay.driver`); :mod:`.evaluate`: one-step-ahead prediction metrics;
  :mod:`.fit`: settings by predictive likelihood; :mod:`.rolling`: refits of whole-history
  models before each block of matches; :mod:`.threeway`: win/draw/loss forecasts and scores of
  two-team matches; :mod:`.calibration`: calibration curves.

This package may import :mod:`mindsport.errors`, :mod:`mindsport.match`, :mod:`mindsport.files`
and the rating models (:mod:`mindsport.rating`), its commands also the command-line boundary;
nothing above it (store, service).
"""

from typing import TYPE_CHECKING

from mindsport import lazy_exports

if TYPE_CHECKING:
    from mindsport.history.evaluate import CalibrationBin, Evaluation, Metrics, evaluate
    from mindsport.history.fit import FitResult, fit
    from mindsport.history.importers import (
        Dropped,
        Imported,
        import_matches,
        read_atp,
        read_halo,
        read_ti4,
    )
    from mindsport.history.io import MatchFileError, iter_matches, write_matches
    from mindsport.history.reading import read_matches
    from mindsport.history.replay import MatchPrediction, Replay, replay
    from mindsport.history.threeway import ThreeWay
    from mindsport.match import InvalidMatchError, Match, ranks_from_scores

# what the package exports, by module: imported on first use (see mindsport.lazy_exports)
_EXPORTS = {
    "CalibrationBin": "mindsport.history.evaluate",
    "Evaluation": "mindsport.history.evaluate",
    "Metrics": "mindsport.history.evaluate",
    "evaluate": "mindsport.history.evaluate",
    "ThreeWay": "mindsport.history.threeway",
    "FitResult": "mindsport.history.fit",
    "fit": "mindsport.history.fit",
    "Dropped": "mindsport.history.importers",
    "Imported": "mindsport.history.importers",
    "import_matches": "mindsport.history.importers",
    "read_atp": "mindsport.history.importers",
    "read_halo": "mindsport.history.importers",
    "read_ti4": "mindsport.history.importers",
    "MatchFileError": "mindsport.history.io",
    "iter_matches": "mindsport.history.io",
    "read_matches": "mindsport.history.reading",
    "write_matches": "mindsport.history.io",
    "MatchPrediction": "mindsport.history.replay",
    "Replay": "mindsport.history.replay",
    "replay": "mindsport.history.replay",
    "InvalidMatchError": "mindsport.match",
    "Match": "mindsport.match",
    "ranks_from_scores": "mindsport.match",
}

lazy_exports(__name__, _EXPORTS)


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
    "ThreeWay",
    "evaluate",
    "fit",
    "import_matches",
    "iter_matches",
    "ranks_from_scores",
    "read_atp",
    "read_halo",
    "read_matches",
    "read_ti4",
    "replay",
    "write_matches",
]
