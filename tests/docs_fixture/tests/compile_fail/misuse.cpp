// expect: fixture
// A fixture of scripts/check_docs.py (never compiled).
