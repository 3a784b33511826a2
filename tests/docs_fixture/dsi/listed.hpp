// A fixture of scripts/check_docs.py: a public header docs/api.md lists.
