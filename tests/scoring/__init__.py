"""The scorers and scoring profiles (`pytest_memorybench/scoring/`), each on concrete replies."""
