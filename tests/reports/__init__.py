"""What a run shows (`pytest_memorybench/reports/`): terminal, report.html, JUnit, the gate, comparisons."""
