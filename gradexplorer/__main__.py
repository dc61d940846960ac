"""``python -m gradexplorer``: the same as the ``gradexplorer`` command."""

import sys

from .launch import main

sys.exit(main())
