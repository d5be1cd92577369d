"""The online card room (``canasta serve``): FastAPI + uvicorn + SQLAlchemy,
a thin client of :class:`canasta.table.Table`.  Needs the ``serve`` extra."""
