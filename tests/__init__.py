"""scorehouse test suite (a regular package, so that it wins over any "tests" package a
dependency installs)."""
