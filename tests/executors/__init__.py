"""The executor tests. Pytest imports this package as `executors` (tests/ has no
`__init__.py`) without putting tests/ on `sys.path`; a spawned worker, which gets the driver's
`sys.path`, could then not import the functions of `executors.helpers` it is sent. tests/ goes
last on the path, so no test folder hides a library of the same name (`datasets`, `types`)."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.append(_TESTS)
