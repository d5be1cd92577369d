"""The tools that measure and check the engine, apart from it: nothing in the engine,
the families, the play service or an interface depends on them.

* :mod:`canasta.tools.perft`: pinned legal-move counts and whole-hand hashes per preset;
* :mod:`canasta.tools.reference`: a slow exhaustive enumerator of a turn's outcomes that
  checks the generating set, and :mod:`canasta.tools.soak`, its timing soak;
* :mod:`canasta.tools.selfcheck`: the invariants, checked after every move;
* :mod:`canasta.tools.bench`: the engine's speed (``canasta bench``);
* :mod:`canasta.tools.arena`: duplicate-deal matches between two bots, and
  :mod:`canasta.tools.ladder`: ratings of every level from them.
"""
