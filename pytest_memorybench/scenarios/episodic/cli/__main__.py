"""`python -m pytest_memorybench.scenarios.episodic.cli`: see the package's docstring."""

from pytest_memorybench.scenarios.episodic.cli import main

raise SystemExit(main())
