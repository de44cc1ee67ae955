"""Running a real event: registration, Swiss rounds at tables of three with duplicate deals,
deal sheets, result entry with logged amendments, standings in rank points, and the final
results written into a rating league.

* :mod:`.model`: the values (:class:`EventSpec`, :class:`Player`, :class:`Round`,
  :class:`Table`, :class:`Board`, :class:`Result`, :class:`Standing`) and their enums;
* :mod:`.pairing`, :mod:`.deals`, :mod:`.standings`: the pure computations, on the tournament
  science of :mod:`mindsport.tournament` (Swiss tables of three, duplicate / equal-strength /
  random plans, rank points);
* :mod:`.storage`: :class:`EventStore`, events in the rating database, every write one
  transaction;
* :mod:`.sheets`: deal sheets (JSON and printable HTML) and the event page;
* :mod:`.simulate`: whole events played by graded bots, and how well their standings recover
  the bots' true order, per format.

May import: errors, files, match, store (events live beside the leagues), belief, games,
doudizhu, tournament and the command line's helpers (``event/cli.py``): the top of the game
layers (belief < games < the game packages < tournament < event).

Importing this package does no I/O and loads none of its modules.
"""

from __future__ import annotations
