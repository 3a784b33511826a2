// A fixture of scripts/check_docs.py (never compiled): the census threshold is 500.
TEST_CASE("census", "[fixture]") { CHECK(count >= 500); }
