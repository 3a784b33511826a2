// A fixture of scripts/check_docs.py (never compiled): one unit test case.
TEST_CASE("one", "[fixture]") {}
