"""Playing matches: the service every interface drives.

:mod:`~canasta.play.match` plays a match hand after hand (scores, dealer, the end);
:mod:`~canasta.play.table` seats players and bots around one and answers each seat
with its view; :mod:`~canasta.play.record` writes and reads whole games (CGN);
:mod:`~canasta.engine.fairdeal` deals so that every player can check afterwards that
nobody chose the cards.  They use the engine; the engine knows nothing of them.
"""
