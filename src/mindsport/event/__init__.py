"""Running a real event: registration, Swiss rounds with duplicate deals (Dou Dizhu at tables of
three, Luzhanqi at tables of two), deal sheets, result entry with logged amendments and undos,
standings in rank points (exported as CSV and JSON), and the final results written into a
rating league (and brought up to date after a correction).

* :mod:`.model`: the values (:class:`EventSpec`, :class:`Player`, :class:`Round`,
  :class:`Table`, :class:`Board`, :class:`Result`, :class:`Standing`) and their enums;
* :mod:`.pairing`, :mod:`.deals`, :mod:`.standings`: the pure computations, on the tournament
  science of :mod:`mindsport.tournament` (Swiss tables of three, duplicate / equal-strength /
  random plans, rank points);
* :mod:`.storage`: :class:`EventStore`, events in the rating database, every write one
  transaction;
* :mod:`.sheets`: deal sheets (JSON and printable HTML) and the event page;
* :mod:`.games`: each game's table size, seats, deals and scoring; :mod:`.entrants`: bot
  entrants, their play and forfeits; :mod:`.exports`: the standings as CSV and JSON with a
  legend; :mod:`.undo`: un-pairing, reinstating, deleting; :mod:`.errors`: the refusal of an
  event operation;
* :mod:`.simulate`: whole events played by graded bots, and how well their standings recover
  the bots' true order, per format.

May import: errors, files, match, store (events live beside the leagues), belief, games,
doudizhu, junqi, tournament and the command line's helpers (``event/cli.py``): the top of the game
layers (belief < games < the game packages < tournament < event).

Importing this package does no I/O and loads none of its modules.
"""

from __future__ import annotations
