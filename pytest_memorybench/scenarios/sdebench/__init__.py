"""sdebench: vectorize-io/sde-bench's coding tasks, graded by hidden tests (`scenario.py`)."""
