import sys

from canasta.review.commands import main

sys.exit(main())
