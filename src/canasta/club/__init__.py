"""The club: ratings for people and duplicate tournaments, an optional interface over the core
(the ``club`` extra brings ``openskill`` for the ratings; the tournaments need nothing more).

* :mod:`canasta.club.ratings`: team-aware Bayesian ratings per pool (``classic-4p`` ...),
  leaderboards, histories, a JSON file of every pool;
* :mod:`canasta.club.boards`: a round's committed secret and each board's deal derived from it;
* :mod:`canasta.club.movement`: who meets whom (Swiss pairs, the duplicate pairs' Mitchell
  movement) and when a board may be shown to spectators;
* :mod:`canasta.club.scoring`: matchpoints, victory points, standings;
* :mod:`canasta.club.tournament`: a tournament played by bots (or driven by a room), its records;
* :mod:`canasta.club.commands`: ``canasta tournament``.

Nothing of the engine, the families, the views, the play service or the bots imports it
(``docs/tournaments.md``).
"""
