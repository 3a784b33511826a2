// A fixture of scripts/check_docs.py (never compiled): one bad-input test case.
TEST_CASE("one bad input", "[fixture]") {}
