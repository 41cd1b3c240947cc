"""``python -m bench.productchat``: see ``bench.productchat.run``."""

import sys

from bench.productchat.run import main

sys.exit(main())
