"""The public API as a user's code meets it: the names the package exports, and what mypy
--strict says of user-style test code (the positive file) and of its mistakes (the negative file)."""
