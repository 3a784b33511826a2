// A fixture of scripts/check_docs.py: a detail header, not API.
