"""Where the tests find the project's own files, and the reference data beside a developer's clone.

`REFERENCE` is `../shared/reference`: real data from the original projects, present on the
project's machines only; a test that reads it skips when it is absent (a user's clone).
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
EXAMPLES = REPO / "examples"
FIXTURES = REPO / "tests" / "fixtures"
REFERENCE = REPO.parent / "shared" / "reference"
