"""``python -m webrefs.evals.miniwob``: the suite over several seeds (see :mod:`.seeds`)."""

import sys

from .seeds import main

sys.exit(main())
