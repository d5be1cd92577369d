"""What one seat may know: a seat's view of a game (:mod:`~canasta.views.seat`) and a whole
game written as a position and read back (:mod:`~canasta.views.position`)."""
