"""Warnings that point at the user's line, however deep inside the library they are raised."""

import os
import sys
import warnings
from pathlib import Path

PACKAGE = str(Path(__file__).resolve().parents[1]) + os.sep  # the package folder (not a file that starts so)


def warn(message, category):
    """``warnings.warn`` with the stack level of the first caller outside this package.

    A fixed ``stacklevel`` breaks as soon as a decorator or a helper adds a frame (the Array API
    wrapper does); counting the package's own frames keeps the reported location on the caller.
    """
    frame, level = sys._getframe(1), 2  # stacklevel 1 would be this function
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
