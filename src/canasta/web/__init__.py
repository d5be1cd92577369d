"""The online card room (``canasta serve``): FastAPI + uvicorn + SQLAlchemy,
a thin client of :class:`canasta.play.table.Table`.  Needs the ``serve`` extra."""
