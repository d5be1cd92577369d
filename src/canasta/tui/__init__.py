"""The terminal interface (``canasta play``, ``canasta replay``): a Textual app,
a thin client of :class:`canasta.play.table.Table`.  Needs the ``play`` extra."""
