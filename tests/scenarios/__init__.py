"""Every benchmark family's scenarios (`pytest_memorybench/scenarios/`), and the contract each one keeps."""
