"""``python -m sklearn_rankmetrics COMMAND ...``: the ``rankmetrics`` command (see :mod:`._command`)."""

import sys

from ._command import main

sys.exit(main())
