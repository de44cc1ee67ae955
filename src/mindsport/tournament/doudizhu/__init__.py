"""Tournament experiments with Dou Dizhu games: the game-specific runners beside the game-free
mathematics of :mod:`mindsport.tournament`.

* :mod:`.games`: Dou Dizhu games in bulk (deals as :class:`~mindsport.doudizhu.Deal` values),
  seed 004's one-bomb deals, landlord tables for grading;
* :mod:`.simulation`: formats and seed 001's test-case validation with bot entrants;
* :mod:`.validation`: seed 001's P1/P2 grid and seed 004's format comparison at scale;
* :mod:`.generator`: deals of a requested GDI on demand;
* :mod:`.swiss_play`: Swiss events played by bots.

Every game runs through the game-free runner (:mod:`mindsport.tournament.runner`) on an
executor (serial, local processes, Ray) with per-game seeds, so results do not depend on the
executor or the number of workers.
"""
