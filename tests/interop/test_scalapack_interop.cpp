// interop/scalapack.hpp against ScaLAPACK itself.
//
// Oracles: DESCINIT (the descriptor ScaLAPACK builds from M, N, MB, NB, RSRC, CSRC, the
// context and LLD = max(1, NUMROC)), INDXL2G (which global element a ScaLAPACK local buffer
// holds where) and PDGEADD (a PBLAS routine reading and writing through the descriptors).
//
// * scalapack_descriptor(A) equals DESCINIT's for every grid shape of the locales (1xP and
//   Px1 included), block sizes, partial blocks, sources RSRC/CSRC != 0 (block_cyclic_dim
//   start = lo - src * nb) and domains that do not start at 0; its context is a "Row" grid
//   over dmap's locales, made once per shape.
// * What ScaLAPACK cannot describe is an unsupported_error on every locale.
// * scalapack_import adopts a matrix made by ScaLAPACK code (its own BLACS grid, its buffer
//   filled by INDXL2G): every element reads right from every locale, nothing is copied or
//   sent; descriptor -> import -> descriptor round trips.
// * Bad descriptors, entry by entry, on every locale or on one only: the named error on
//   every locale, and dmap still works afterwards.
#include "../blacs_grid.hpp"
#include "../support.hpp"

#include "../../interop/scalapack.hpp"

#include <array>
#include <complex>
#include <optional>
#include <sstream>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace test_scalapack_interop {  // one per file: the tests also build as unity batches (docs/testing.md)

extern "C" {
int indxl2g_(const int* indxloc, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
// PBLAS (C code): character arguments are plain char*, no hidden string lengths.
void pdgeadd_(const char* trans, const int* m, const int* n, const double* alpha, const double* a,
              const int* ia, const int* ja, const int* desca, const double* beta, double* c,
              const int* ic, const int* jc, const int* descc);
}

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::rect;
using dmap::testing::throws_as;

int sl_numroc(int n, int nb, int iproc, int src, int p) { return numroc_(&n, &nb, &iproc, &src, &p); }
int sl_l2g(int l, int nb, int iproc, int src, int p) { return indxl2g_(&l, &nb, &iproc, &src, &p); }

std::vector<std::pair<int, int>> grid_shapes(int P) {
  std::vector<std::pair<int, int>> out;
  for (int pr = 1; pr <= P; ++pr)
    if (P % pr == 0) out.emplace_back(pr, P / pr);
  return out;
}

using user_grid = dmap::testing::blacs_grid;  // a grid the caller (not dmap) makes

// A ScaLAPACK matrix m x n in mb x nb blocks with sources (rs, cs) on grid g: DESCINIT's
// descriptor (LLD = max(1, local rows) + pad) and a local buffer holding f(i, j) (0-based
// global indices) where INDXL2G says.
struct sl_matrix {
  std::array<int, 9> desc{};
  std::vector<double> buffer;
  int info = 0, rows = 0, cols = 0;
};

template <class F>
sl_matrix make_sl_matrix(const user_grid& g, int m, int n, int mb, int nb, int rs, int cs, F f, int pad = 0) {
  sl_matrix s;
  s.rows = sl_numroc(m, mb, g.myrow(), rs, g.nprow());
  s.cols = sl_numroc(n, nb, g.mycol(), cs, g.npcol());
  const int lld = std::max(1, s.rows) + pad, ctxt = g.context();
  descinit_(s.desc.data(), &m, &n, &mb, &nb, &rs, &cs, &ctxt, &lld, &s.info);
  // One element more than the matrix: the pointer is never null, even with nothing local.
  s.buffer.assign(static_cast<std::size_t>(lld) * std::max(1, s.cols) + 1, -999.0);
  for (int lj = 0; lj < s.cols; ++lj)
    for (int li = 0; li < s.rows; ++li) {
      const int i = sl_l2g(li + 1, mb, g.myrow(), rs, g.nprow()) - 1;
      const int j = sl_l2g(lj + 1, nb, g.mycol(), cs, g.npcol()) - 1;
      s.buffer[static_cast<std::size_t>(li) + static_cast<std::size_t>(lj) * lld] = f(i, j);
    }
  return s;
}

double value_at(index_t i, index_t j) { return 1000.0 * static_cast<double>(i) + static_cast<double>(j) + 0.5; }

// The dmap domain of an m x n matrix whose first index is (lo0, lo1), in mb x nb blocks over
// pr x pc with sources (rs, cs): start = lo - src * block (unset for source 0, the default).
dmap::domain<2> make_domain(int m, int n, int mb, int nb, int pr, int pc, int rs, int cs, index_t lo0 = 0,
                            index_t lo1 = 0) {
  const dmap::target_grid<2> grid{{pr, pc}};
  const rect<2> box{{lo0, lo0 + m}, {lo1, lo1 + n}};
  std::optional<idx<2>> start;
  if (rs != 0 || cs != 0) start = idx<2>{lo0 - static_cast<index_t>(rs) * mb, lo1 - static_cast<index_t>(cs) * nb};
  return dmap::domain<2>{dmap::block_cyclic<2>{{mb, nb}, start, grid, dmap::storage_order::column_major}, box};
}

// Whether scalapack_descriptor accepts arrays of T.
template <class T>
concept describable = requires(const dmap::array<T, 2>& a) { dmap::scalapack_descriptor(a); };

std::string text(const std::array<int, 9>& d) {
  std::ostringstream s;
  for (std::size_t k = 0; k < 9; ++k) s << (k ? " " : "") << d[k];
  return s.str();
}

// Every element of A read with A[i] on this locale (remote ones included): the first wrong one.
template <class T, class F>
std::string check_elements(const dmap::array<T, 2>& A, F want) {
  const auto& D = A.domain();
  for (index_t i = D.dim(0).lo(); i < D.dim(0).hi(); ++i)
    for (index_t j = D.dim(1).lo(); j < D.dim(1).hi(); ++j)
      if (!(A[{i, j}] == want(i, j))) {
        std::ostringstream s;
        s << "A[" << i << ", " << j << "] is wrong on locale " << dmap::here();
        return s.str();
      }
  return {};
}

}  // namespace

// ------------------------------------------------------------------------------- descriptor

TEST_CASE("scalapack_descriptor equals DESCINIT's descriptor", "[scalapack][interop]") {
  const int P = dmap::num_locales();
  const std::vector<std::pair<int, int>> blocks{{1, 1}, {2, 3}, {4, 4}, {16, 1}};
  const std::vector<std::pair<int, int>> sizes{{0, 0}, {0, 5}, {1, 1}, {7, 5}, {10, 13}, {5, 33}};
  int configs = 0;
  for (const auto& [pr, pc] : grid_shapes(P)) {
    const int ctxt = dmap::blacs_context(pr, pc);
    int gr = -1, gc = -1, myrow = -1, mycol = -1;
    Cblacs_gridinfo(ctxt, &gr, &gc, &myrow, &mycol);
    INFO("grid " << pr << "x" << pc);
    DMAP_CHECK_ALL((gr == pr && gc == pc && myrow == dmap::here() / pc && mycol == dmap::here() % pc));
    DMAP_CHECK_ALL(dmap::blacs_context(pr, pc) == ctxt);  // made once per shape
    for (const auto& [mb, nb] : blocks)
      for (const auto& [m, n] : sizes)
        for (int src = 0; src < 2; ++src)
          for (const index_t lo : {index_t{0}, index_t{-3}, index_t{5}}) {
            if (src == 1 && P == 1) continue;
            const int rs = src ? pr - 1 : 0, cs = src ? pc - 1 : 0;
            const dmap::domain<2> D = make_domain(m, n, mb, nb, pr, pc, rs, cs, lo, -lo);
            const dmap::array<double, 2> A(D);
            const dmap::scalapack_desc got = dmap::scalapack_descriptor(A);
            const dmap::scalapack_desc of_domain = dmap::scalapack_descriptor(D);
            std::array<int, 9> want{};
            int info = 0;
            const int lld = std::max(1, sl_numroc(m, mb, myrow, rs, pr));
            descinit_(want.data(), &m, &n, &mb, &nb, &rs, &cs, &ctxt, &lld, &info);
            INFO(m << "x" << n << " in " << mb << "x" << nb << " source " << rs << "," << cs << " lo " << lo
                   << ": got " << text(got.desc) << ", DESCINIT " << text(want) << " (info " << info << ")");
            DMAP_CHECK_ALL((info == 0 && got.desc == want && got.context == ctxt &&
                            of_domain.desc == want));
            ++configs;
          }
  }
  CHECK(configs > 0);
}

TEST_CASE("scalapack_descriptor runs PBLAS on dmap arrays and adopted matrices", "[scalapack][interop]") {
  const int P = dmap::num_locales();
  for (const auto& [pr, pc] : grid_shapes(P)) {
    const user_grid g(pr, pc);
    for (int src = 0; src < 2; ++src) {
      if (src == 1 && P == 1) continue;
      const int m = 9, n = 7, mb = 2, nb = 3, rs = src ? pr - 1 : 0, cs = src ? pc - 1 : 0;
      // C is ScaLAPACK's (adopted by dmap), B is dmap's (described for ScaLAPACK).
      sl_matrix c = make_sl_matrix(g, m, n, mb, nb, rs, cs, value_at);
      auto C = dmap::scalapack_import(c.desc, c.buffer.data());
      dmap::array<double, 2> B(make_domain(m, n, mb, nb, pr, pc, rs, cs));
      dmap::forall(B.domain(), [&](idx<2> i) { B.local(i) = static_cast<double>(i[0] - 2 * i[1]); });
      double dummy = 0;
      const double* b = B.local_size() > 0 ? B.local_data() : &dummy;
      const double one = 1, two = 2, minus_three = -3;
      const int i1 = 1;
      INFO("grid " << pr << "x" << pc << " source " << rs << "," << cs);
      // PBLAS needs both operands in one context: B described in ScaLAPACK's (the user's) ...
      const auto db = dmap::scalapack_descriptor(B, g.context());
      DMAP_CHECK_ALL((db.context == g.context() && db.desc[1] == g.context()));
      pdgeadd_("N", &m, &n, &two, b, &i1, &i1, db.data(), &one, c.buffer.data(), &i1, &i1, c.desc.data());
      dmap::barrier();  // every locale's part written before any locale reads it one-sidedly
      CHECK_NO_FAILURE(check_elements(C.array, [](index_t i, index_t j) { return value_at(i, j) + 2.0 * (i - 2 * j); }));
      // ... or C described again in dmap's.
      const auto dc = dmap::scalapack_descriptor(C.array), dmap_b = dmap::scalapack_descriptor(B);
      pdgeadd_("N", &m, &n, &minus_three, b, &i1, &i1, dmap_b.data(), &one, C.array.local_data(), &i1, &i1, dc.data());
      dmap::barrier();
      CHECK_NO_FAILURE(check_elements(C.array, [](index_t i, index_t j) { return value_at(i, j) - 1.0 * (i - 2 * j); }));
    }
  }
  // A context whose grid is not the domain's target grid.
  if (P > 1) {
    const user_grid other(1, P);
    const dmap::domain<2> D = make_domain(4, 4, 2, 2, P, 1, 0, 0);
    const auto [ok, what] = throws_as<dmap::argument_error>([&] { (void)dmap::scalapack_descriptor(D, other.context()); });
    INFO(what);
    DMAP_CHECK_ALL((ok && what.find("is a 1x" + std::to_string(P) + " grid placing locale") != std::string::npos));
  }
}

TEST_CASE("scalapack_descriptor refuses what ScaLAPACK cannot describe", "[scalapack][interop]") {
  const int P = dmap::num_locales();
  const dmap::target_grid<2> grid = dmap::target_grid<2>::balanced(P);
  const rect<2> box{{0, 8}, {0, 6}};
  const auto refuses = [](const dmap::domain<2>& D, const std::string& part) {
    const auto [ok, what] = throws_as<dmap::unsupported_error>([&] { (void)dmap::scalapack_descriptor(D); });
    INFO(what);
    DMAP_CHECK_ALL((ok && what.find("dmap::scalapack_descriptor: ") == 0 && what.find(part) != std::string::npos));
  };
  refuses(dmap::domain<2>{dmap::block<2>{grid}, box}, "is not block-cyclic");
  refuses(dmap::domain<2>{dmap::block_cyclic<2>{{2, 2}, grid}, box}, "row-major");
  refuses(dmap::domain<2>{dmap::dimensional<2>{{dmap::block_cyclic_dim{2}, dmap::cyclic_dim{}}, grid,
                                               dmap::storage_order::column_major},
                          box},
          "dimension 1 of dimensional(block_cyclic(2), cyclic; grid");
  refuses(dmap::domain<2>{dmap::block_cyclic<2>{{2, 2}, grid, dmap::storage_order::column_major},
                          rect<2>{{0, 8}, dmap::range(0, 12, 2)}},
          "dimension 1 of the domain has stride 2");
  refuses(dmap::domain<2>{dmap::block_cyclic<2>{{4, 2}, idx<2>{1, 0}, grid, dmap::storage_order::column_major}, box},
          "dimension 0: block 0 starts at 1, so the first index 0 is not at a block boundary");
  refuses(dmap::domain<2>{dmap::block_cyclic<2>{{1 << 20, 2}, grid, dmap::storage_order::column_major},
                          rect<2>{{0, index_t{3} << 30}, {0, 2}}},
          "dimension 0 has 3221225472 indices; ScaLAPACK's M_ and N_ are ints");
  refuses(dmap::domain<2>{dmap::block_cyclic<2>{{2, index_t{1} << 32}, grid, dmap::storage_order::column_major}, box},
          "dimension 1 has block size 4294967296");
  // A local matrix of 2 * (2^31 - 1) elements on every locale: 2^31 - 1 rows, two columns each.
  refuses(dmap::domain<2>{dmap::block_cyclic<2>{{1 << 20, 1}, dmap::target_grid<2>{{1, P}},
                                                dmap::storage_order::column_major},
                          rect<2>{{0, 2147483647}, {0, 2 * P}}},
          "LP64 ScaLAPACK indexes a local matrix with ints");
  // The element types are ScaLAPACK's four; others do not compile.
  static_assert(dmap::scalapack_scalar<double> && dmap::scalapack_scalar<std::complex<float>>);
  static_assert(!dmap::scalapack_scalar<int> && !dmap::scalapack_scalar<long double>);
  static_assert(describable<double> && describable<std::complex<double>> && !describable<int>);
  // dmap still works after the refusals.
  dmap::array<double, 2> A(dmap::domain<2>{dmap::block_cyclic<2>{{2, 2}, grid, dmap::storage_order::column_major}, box}, 1.0);
  CHECK(dmap::reduce(A, 0.0) == 48.0);
}

// ------------------------------------------------------------------------------- import

TEST_CASE("scalapack_import adopts a ScaLAPACK matrix without copying", "[scalapack][interop]") {
  const int P = dmap::num_locales();
  // (m, n, mb, nb): partial last blocks, locales with nothing, one block only.
  const std::vector<std::array<int, 4>> cases{{7, 5, 2, 2}, {10, 13, 3, 4}, {1, 1, 1, 1}, {4, 9, 8, 1}, {0, 3, 2, 2}};
  for (const auto& [pr, pc] : grid_shapes(P)) {
    const user_grid g(pr, pc);
    for (const auto& [m, n, mb, nb] : cases)
      for (int src = 0; src < 2; ++src) {
        if (src == 1 && P == 1) continue;
        const int rs = src ? pr - 1 : 0, cs = src ? pc - 1 : 0;
        sl_matrix s = make_sl_matrix(g, m, n, mb, nb, rs, cs, value_at);
        INFO("grid " << pr << "x" << pc << ", " << m << "x" << n << " in " << mb << "x" << nb << " source " << rs
                     << "," << cs << ", desc " << text(s.desc));
        DMAP_REQUIRE_ALL(s.info == 0);

        dmap::reset_counters();
        auto M = dmap::scalapack_import(s.desc, s.buffer.data());
        const dmap::comm_counters used = dmap::counters();
        const dmap::domain<2> same = make_domain(m, n, mb, nb, pr, pc, rs, cs);
        // Synchronising collectives only (agreement); no payload moved.
        DMAP_CHECK_ALL((used.messages_sent == 0 && used.messages_received == 0 && used.bytes_sent == 0 &&
                        used.bytes_received == 0));
        DMAP_CHECK_ALL((M.array.adopted() && M.array.local_data() == s.buffer.data() &&
                        M.array.domain() == M.domain && M.domain.same_map(same) &&
                        M.domain.indices() == rect<2>{{0, m}, {0, n}} &&
                        M.array.local_size() == static_cast<index_t>(s.rows) * s.cols));
        CHECK_NO_FAILURE(check_elements(M.array, value_at));

        // Writes through dmap land where ScaLAPACK keeps the element.
        dmap::forall(M.domain, [&](idx<2> i) { M.array.local(i) = -value_at(i[0], i[1]); });
        std::string wrong;
        for (int lj = 0; lj < s.cols; ++lj)
          for (int li = 0; li < s.rows; ++li) {
            const int i = sl_l2g(li + 1, mb, g.myrow(), rs, pr) - 1, j = sl_l2g(lj + 1, nb, g.mycol(), cs, pc) - 1;
            if (s.buffer[static_cast<std::size_t>(li + lj * s.desc[8])] != -value_at(i, j))
              wrong = "local (" + std::to_string(li) + ", " + std::to_string(lj) + ") does not hold -f(" +
                      std::to_string(i) + ", " + std::to_string(j) + ")";
          }
        CHECK_NO_FAILURE(wrong);

        // Round trip: the descriptor dmap gives the adopted array is the original but for
        // the context (dmap's own grid), and importing that gives the same again.
        const auto back = dmap::scalapack_descriptor(M.array);
        std::array<int, 9> expected = s.desc;
        expected[1] = back.context;
        DMAP_CHECK_ALL(back.desc == expected);
        auto again = dmap::scalapack_import(back.desc, M.array.local_data());
        const auto twice = dmap::scalapack_descriptor(again.array);
        DMAP_CHECK_ALL((again.array.local_data() == s.buffer.data() && again.domain.same_map(M.domain) &&
                        twice.desc == back.desc));
        CHECK_NO_FAILURE(check_elements(again.array, [](index_t i, index_t j) { return -value_at(i, j); }));
      }
  }
}

TEST_CASE("scalapack_import: a larger LLD_ with one local column, and every element type", "[scalapack][interop]") {
  const int P = dmap::num_locales();
  const user_grid g(P, 1);
  // n = 1: every locale has at most one column, so its LLD_ may exceed its row count.
  sl_matrix s = make_sl_matrix(g, 11, 1, 2, 1, 0, 0, value_at, 3);
  auto M = dmap::scalapack_import(s.desc, s.buffer.data());
  DMAP_CHECK_ALL(M.array.local_data() == s.buffer.data());
  CHECK_NO_FAILURE(check_elements(M.array, value_at));

  const auto typed = [&](auto zero) {
    using T = decltype(zero);
    const int m = 5, n = 4, mb = 2, nb = 2, rs = 0, cs = 0, ctxt = g.context();
    const int rows = sl_numroc(m, mb, g.myrow(), rs, P), cols = sl_numroc(n, nb, 0, cs, 1);
    const int lld = std::max(1, rows);
    std::array<int, 9> desc{};
    int info = 0;
    descinit_(desc.data(), &m, &n, &mb, &nb, &rs, &cs, &ctxt, &lld, &info);
    std::vector<T> local(static_cast<std::size_t>(lld * cols) + 1);
    for (int lj = 0; lj < cols; ++lj)
      for (int li = 0; li < rows; ++li)
        local[static_cast<std::size_t>(li + lj * lld)] =
            static_cast<T>(value_at(sl_l2g(li + 1, mb, g.myrow(), rs, P) - 1, lj));
    auto A = dmap::scalapack_import(desc, local.data());
    INFO(typeid(T).name());
    DMAP_CHECK_ALL((info == 0 && A.array.local_data() == local.data()));
    CHECK_NO_FAILURE(check_elements(A.array, [](index_t i, index_t j) { return static_cast<T>(value_at(i, j)); }));
  };
  typed(float{});
  typed(double{});
  typed(std::complex<float>{});
  typed(std::complex<double>{});
}

TEST_CASE("scalapack_import rejects bad descriptors on every locale", "[scalapack][interop]") {
  const int P = dmap::num_locales(), last = P - 1;
  const auto shapes = grid_shapes(P);
  const auto [pr, pc] = shapes[shapes.size() / 2];
  const user_grid g(pr, pc);
  const sl_matrix good = make_sl_matrix(g, 7, 5, 2, 2, 0, 0, value_at);
  std::vector<double> buffer = good.buffer;

  // `change` edits this locale's copy of the descriptor (on the locales `where` names).
  const auto rejects = [&](const std::string& what, auto error_type, auto change, const std::string& part) {
    using E = decltype(error_type);
    std::array<int, 9> d = good.desc;
    change(d);
    const auto [ok, message] = throws_as<E>([&] { (void)dmap::scalapack_import(d, buffer.data()); });
    INFO(what << ": " << message);
    DMAP_CHECK_ALL((ok && message.find(part) != std::string::npos));
  };
  const dmap::argument_error bad_argument("");
  const dmap::unsupported_error unsupported("");
  const auto everywhere = [](std::size_t k, int v) { return [=](std::array<int, 9>& d) { d[k] = v; }; };
  const auto on_last = [last](std::size_t k, int v) {
    return [=](std::array<int, 9>& d) {
      if (dmap::here() == last) d[k] = v;
    };
  };

  rejects("DTYPE", unsupported, everywhere(0, 2), "dmap::scalapack_import: desc[0] (DTYPE_) is 2; dmap adopts dense");
  rejects("CTXT -1", bad_argument, everywhere(1, -1), "desc[1] (CTXT_) is -1; it must be a BLACS context");
  rejects("CTXT 9999", bad_argument, everywhere(1, 9999), "desc[1] (CTXT_) is 9999; it must be a BLACS context");
  rejects("M", bad_argument, everywhere(2, -1), "dmap::scalapack_import: desc[2] (M_) is -1; it must be >= 0");
  rejects("N", bad_argument, everywhere(3, -4), "desc[3] (N_) is -4; it must be >= 0");
  rejects("MB", bad_argument, everywhere(4, 0), "dmap::scalapack_import: desc[4] (MB_) is 0; it must be >= 1");
  rejects("NB", bad_argument, everywhere(5, -2), "desc[5] (NB_) is -2; it must be >= 1");
  rejects("RSRC", bad_argument, everywhere(6, pr), "desc[6] (RSRC_) is " + std::to_string(pr) + "; it must be in [0, NPROW)");
  rejects("RSRC < 0", bad_argument, everywhere(6, -1), "desc[6] (RSRC_) is -1; it must be in [0, NPROW)");
  rejects("CSRC", bad_argument, everywhere(7, pc), "desc[7] (CSRC_) is " + std::to_string(pc) + "; it must be in [0, NPCOL)");
  rejects("LLD 0", bad_argument, everywhere(8, 0), "desc[8] (LLD_) is 0 on locale ");
  // A larger LLD_ with several local columns: valid for ScaLAPACK, not adoptable (on the
  // locales that have rows and several columns; locale 0 always has both here).
  rejects("LLD padded", unsupported, [](std::array<int, 9>& d) { d[8] += 1; }, "a larger LLD_ cannot be adopted");
  {
    const auto [ok, message] = throws_as<dmap::argument_error>(
        [&] { (void)dmap::scalapack_import(good.desc, static_cast<double*>(nullptr)); });
    INFO(message);
    DMAP_CHECK_ALL((ok && message.find("dmap::scalapack_import: local is null on locale 0") == 0));
  }
  {
    const auto [ok, message] = throws_as<dmap::argument_error>(
        [&] { (void)dmap::scalapack_import(static_cast<const int*>(nullptr), buffer.data()); });
    INFO(message);
    DMAP_CHECK_ALL((ok && message.find("desc is null") != std::string::npos));
  }

  // A wrong entry on one locale only reaches every locale.
  rejects("CTXT on one locale", bad_argument, on_last(1, -1), "desc[1] (CTXT_) is -1");
  rejects("LLD on one locale", bad_argument, on_last(8, 0), "desc[8] (LLD_) is 0 on locale " + std::to_string(last));
  rejects("MB on one locale", bad_argument, on_last(4, 0), "desc[4] (MB_) is 0");
  if (P > 1)
    rejects("M differs", bad_argument, on_last(2, 8),
            "desc[2] (M_) is 7 on locale 0 but 8 on locale " + std::to_string(last) + "; every locale must pass the same");
  if (pr > 1)
    rejects("RSRC differs", bad_argument, on_last(6, 1), "desc[6] (RSRC_) is 0 on locale 0 but 1 on locale " + std::to_string(last));

  // Grids dmap cannot adopt from: fewer processes than locales, and a "Col" ordered grid.
  if (P > 1) {
    const user_grid one(1, 1);
    std::array<int, 9> d = good.desc;
    d[1] = one.context();
    const auto [ok, message] = throws_as<dmap::unsupported_error>([&] { (void)dmap::scalapack_import(d, buffer.data()); });
    INFO(message);
    DMAP_CHECK_ALL((ok && message.find("a 1x1 grid; a dmap array spans all " + std::to_string(P) + " locales") !=
                              std::string::npos));
  }
  if (P == 4) {
    const user_grid col(2, 2, "Col");
    std::array<int, 9> d = good.desc;
    d[1] = col.context();
    const auto [ok, message] = throws_as<dmap::unsupported_error>([&] { (void)dmap::scalapack_import(d, buffer.data()); });
    INFO(message);
    DMAP_CHECK_ALL((ok && message.find("whose grid places locale 1 at (1, 0); dmap places it at (0, 1)") !=
                              std::string::npos));
  }

  // And a good import still works afterwards.
  auto M = dmap::scalapack_import(good.desc, buffer.data());
  CHECK_NO_FAILURE(check_elements(M.array, value_at));
}

}  // namespace test_scalapack_interop
