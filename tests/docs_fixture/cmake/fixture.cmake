# A fixture of scripts/check_docs.py: a cache variable docs/building.md does not describe.
set(FIXTURE_CACHE_VARIABLE "" CACHE STRING "Not described anywhere")
