// BlockCyclic (dists/block_cyclic.hpp, dists/dimensional.hpp) against ScaLAPACK.
//
// Oracle: ScaLAPACK's own index tools (TOOLS/numroc.f, indxg2p.f, indxg2l.f, indxl2g.f from
// Debian's libscalapack-openmpi), which define the 1-D block-cyclic layout that dmap's
// block_cyclic with column-major storage promises to reproduce. ScaLAPACK indices are 1-based,
// dmap's are whatever the domain says (0-based here, or shifted by `lo`); a source process
// ISRCPROC = src corresponds to dmap's block_cyclic_dim{nb, start = lo - src * nb} (block 0
// starts src blocks before the domain's low bound, so the block holding `lo` is block src).
//
// * 1-D (pure index math, no MPI): dmap::dimension_cut for every p along a dimension, not
//   just the locale count: owner == INDXG2P, local position == INDXG2L - 1, count == NUMROC,
//   INDXL2G inverts the local positions.
// * 2-D (real locales): dmap::domain<2> over block_cyclic<2>{{mb, nb}, grid pr x pc,
//   column_major}: locale_of == INDXG2P(row) * pc + INDXG2P(col) (a C-order grid is BLACS
//   "Row" order), every owned index sits at ScaLAPACK's column-major local offset with
//   LLD = max(1, NUMROC(m)), and an array's local buffer has NUMROC(m) * NUMROC(n) elements.
// * Interop: PDGEMM and PDGEADD (PBLAS) run directly on the local buffers of dmap arrays,
//   described by DESCINIT over a BLACS grid made from the same locales.
//
// The Fortran and BLACS entry points have no C header; the prototypes below follow the
// Fortran sources (LP64 build: INTEGER is int, every argument by pointer).
#include "../blacs_grid.hpp"
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace test_scalapack {  // one per file: the tests also build as unity batches (docs/testing.md)

extern "C" {
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
int indxg2p_(const int* indxglob, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
int indxg2l_(const int* indxglob, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
int indxl2g_(const int* indxloc, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
// PBLAS (C code): character arguments are plain char*, no hidden string lengths.
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca,
             const double* b, const int* ib, const int* jb, const int* descb, const double* beta,
             double* c, const int* ic, const int* jc, const int* descc);
void pdgeadd_(const char* trans, const int* m, const int* n, const double* alpha, const double* a,
              const int* ia, const int* ja, const int* desca, const double* beta, double* c,
              const int* ic, const int* jc, const int* descc);
}

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

// ------------------------------------------------------------------------------- ScaLAPACK

// Thin by-value wrappers; g and l are 1-based as in ScaLAPACK.
int sl_numroc(int n, int nb, int iproc, int src, int p) { return numroc_(&n, &nb, &iproc, &src, &p); }
int sl_g2p(int g, int nb, int src, int p) {
  const int dummy = 0;
  return indxg2p_(&g, &nb, &dummy, &src, &p);
}
int sl_g2l(int g, int nb, int src, int p) {
  const int dummy = 0;
  return indxg2l_(&g, &nb, &dummy, &src, &p);
}
int sl_l2g(int l, int nb, int iproc, int src, int p) { return indxl2g_(&l, &nb, &iproc, &src, &p); }

// ------------------------------------------------------------------------------- dmap side

// The dmap specifier equivalent to ScaLAPACK's (nb, ISRCPROC = src) over a dimension whose
// first index is lo: the default start for src 0 (exercises the default), else an explicit one.
dmap::block_cyclic_dim spec_for(index_t nb, index_t lo, int src) {
  if (src == 0) return dmap::block_cyclic_dim{nb, std::nullopt};
  return dmap::block_cyclic_dim{nb, lo - static_cast<index_t>(src) * nb};
}

// dmap's local position of i on coordinate k: the position of the piece holding i plus the
// order of i inside it; -1 when no piece of k holds i (or several do).
index_t local_position(const dmap::dimension_cut& cut, int k, index_t i) {
  const auto& pieces = cut.pieces(k);
  const auto& pos = cut.positions(k);
  index_t found = -1;
  for (std::size_t j = 0; j < pieces.size(); ++j)
    if (pieces[j].contains(i)) {
      if (found >= 0) return -1;
      found = pos[j] + pieces[j].order_of(i);
    }
  return found;
}

// The index at local position l on coordinate k (-1 if none).
index_t index_at_position(const dmap::dimension_cut& cut, int k, index_t l) {
  const auto& pieces = cut.pieces(k);
  const auto& pos = cut.positions(k);
  for (std::size_t j = 0; j < pieces.size(); ++j)
    if (l >= pos[j] && l < pos[j] + pieces[j].size()) return pieces[j].index_at(l - pos[j]);
  return -1;
}

std::string config_text(int n, int nb, int p, int src, index_t lo) {
  std::ostringstream s;
  s << "n=" << n << " nb=" << nb << " p=" << p << " src=" << src << " lo=" << lo;
  return s.str();
}

// Compares one dimension_cut with ScaLAPACK; returns the number of index checks made and
// appends a description of each mismatch (at most a few) to `errors`.
long compare_cut(int n, int nb, int p, int src, index_t lo, std::vector<std::string>& errors) {
  const dmap::dimension_cut cut(spec_for(nb, lo, src), range{lo, lo + n}, p);
  long checks = 0;
  const auto fail = [&](const std::string& what) {
    if (errors.size() < 8) errors.push_back(config_text(n, nb, p, src, lo) + ": " + what);
  };
  for (int k = 0; k < p; ++k) {
    ++checks;
    if (cut.count(k) != sl_numroc(n, nb, k, src, p))
      fail("count(" + std::to_string(k) + ") = " + std::to_string(cut.count(k)) + ", NUMROC = " +
           std::to_string(sl_numroc(n, nb, k, src, p)));
    // The pieces are disjoint, inside the dimension, and ascending.
    index_t total = 0;
    for (const auto& r : cut.pieces(k)) total += r.size();
    if (total != cut.count(k)) fail("pieces of " + std::to_string(k) + " do not add up to count");
  }
  for (int g = 0; g < n; ++g) {  // g: 0-based position in the dimension; dmap index lo + g
    const index_t i = lo + g;
    const int owner = sl_g2p(g + 1, nb, src, p);
    const int lpos = sl_g2l(g + 1, nb, src, p) - 1;
    checks += 3;
    if (cut.owner(i) != owner)
      fail("owner(" + std::to_string(i) + ") = " + std::to_string(cut.owner(i)) + ", INDXG2P = " +
           std::to_string(owner));
    const index_t mine = local_position(cut, owner, i);
    if (mine != lpos)
      fail("local position of " + std::to_string(i) + " on " + std::to_string(owner) + " = " +
           std::to_string(mine) + ", INDXG2L - 1 = " + std::to_string(lpos));
    for (int k = 0; k < p; ++k)  // nobody else holds it
      if (k != owner && local_position(cut, k, i) != -1)
        fail(std::to_string(i) + " is also in a piece of " + std::to_string(k));
  }
  for (int k = 0; k < p; ++k)
    for (index_t l = 0; l < cut.count(k); ++l) {
      ++checks;
      const int g = sl_l2g(static_cast<int>(l) + 1, nb, k, src, p) - 1;
      if (index_at_position(cut, k, l) != lo + g)
        fail("local position " + std::to_string(l) + " of " + std::to_string(k) + " holds " +
             std::to_string(index_at_position(cut, k, l)) + ", INDXL2G - 1 + lo = " +
             std::to_string(lo + g));
    }
  return checks;
}

const std::vector<int> sweep_n{0, 1, 2, 5, 7, 10, 13, 31, 64, 100};
const std::vector<int> sweep_nb{1, 2, 3, 4, 7, 16, 64};
const std::vector<int> sweep_p{1, 2, 3, 4, 5, 7};

// ------------------------------------------------------------------------------- 2-D helpers

std::vector<std::pair<int, int>> grid_shapes(int P) {
  std::vector<std::pair<int, int>> out;
  for (int pr = 1; pr <= P; ++pr)
    if (P % pr == 0) out.emplace_back(pr, P / pr);
  return out;
}

// ScaLAPACK's view of a 2-D block-cyclic matrix: m x n in mb x nb blocks over pr x pc with
// source (rsrc, csrc).
struct sl_matrix {
  int m, n, mb, nb, pr, pc, rsrc = 0, csrc = 0;

  int owner(int i, int j) const { return sl_g2p(i + 1, mb, rsrc, pr) * pc + sl_g2p(j + 1, nb, csrc, pc); }
  int local_rows(int myrow) const { return sl_numroc(m, mb, myrow, rsrc, pr); }
  int local_cols(int mycol) const { return sl_numroc(n, nb, mycol, csrc, pc); }
  int lld(int myrow) const { return std::max(1, local_rows(myrow)); }
  // Column-major local offset of the 0-based global (i, j) on its owner.
  long offset(int i, int j) const {
    const long li = sl_g2l(i + 1, mb, rsrc, pr) - 1, lj = sl_g2l(j + 1, nb, csrc, pc) - 1;
    return li + lj * lld(sl_g2p(i + 1, mb, rsrc, pr));
  }
  std::string text() const {
    std::ostringstream s;
    s << m << "x" << n << " in " << mb << "x" << nb << " blocks over " << pr << "x" << pc << " (source "
      << rsrc << ", " << csrc << ")";
    return s.str();
  }
};

dmap::domain<2> make_domain(const sl_matrix& s) {
  const dmap::target_grid<2> grid{{s.pr, s.pc}};
  const rect<2> box{{0, s.m}, {0, s.n}};
  if (s.rsrc == 0 && s.csrc == 0)
    return dmap::domain<2>{dmap::block_cyclic<2>{{s.mb, s.nb}, grid, dmap::storage_order::column_major}, box};
  const idx<2> start{-static_cast<index_t>(s.rsrc) * s.mb, -static_cast<index_t>(s.csrc) * s.nb};
  return dmap::domain<2>{
      dmap::block_cyclic<2>{{s.mb, s.nb}, start, grid, dmap::storage_order::column_major}, box};
}

// Checks one domain against ScaLAPACK for every locale (pure on this rank once D exists);
// returns the number of index checks and appends mismatches to `errors`.
long compare_domain(const dmap::domain<2>& D, const sl_matrix& s, std::vector<std::string>& errors) {
  long checks = 0;
  const auto fail = [&](const std::string& what) {
    if (errors.size() < 8) errors.push_back(s.text() + ": " + what);
  };
  for (int i = 0; i < s.m; ++i)
    for (int j = 0; j < s.n; ++j) {
      ++checks;
      if (D.locale_of({i, j}) != s.owner(i, j))
        fail("locale_of(" + std::to_string(i) + ", " + std::to_string(j) + ") = " +
             std::to_string(D.locale_of({i, j})) + ", ScaLAPACK owner " + std::to_string(s.owner(i, j)));
    }
  for (int q = 0; q < s.pr * s.pc; ++q) {
    const int myrow = q / s.pc, mycol = q % s.pc;  // BLACS "Row" order
    const long rows = s.local_rows(myrow), cols = s.local_cols(mycol);
    const auto owned = D.local_subdomains(q);
    const auto layouts = D.local_layouts(q);
    ++checks;
    if (owned.size() != layouts.size()) {
      fail("locale " + std::to_string(q) + " has " + std::to_string(owned.size()) + " subdomains but " +
           std::to_string(layouts.size()) + " layouts");
      continue;
    }
    std::vector<char> seen(static_cast<std::size_t>(rows * cols), 0);
    long count = 0;
    for (std::size_t b = 0; b < owned.size(); ++b) {
      ++checks;
      if (!(layouts[b].indices == owned[b]))
        fail("layout " + std::to_string(b) + " of " + std::to_string(q) + " is not over its subdomain");
      const range r0 = owned[b].dim(0), r1 = owned[b].dim(1);
      for (index_t a = 0; a < r0.size(); ++a)
        for (index_t c = 0; c < r1.size(); ++c) {
          const int i = static_cast<int>(r0.index_at(a)), j = static_cast<int>(r1.index_at(c));
          ++count;
          checks += 2;
          if (i < 0 || i >= s.m || j < 0 || j >= s.n || s.owner(i, j) != q) {
            fail("locale " + std::to_string(q) + " owns (" + std::to_string(i) + ", " + std::to_string(j) +
                 ") which ScaLAPACK gives elsewhere");
            continue;
          }
          const index_t mine = layouts[b].offset_of({i, j});
          const long want = s.offset(i, j);
          if (mine != want) {
            fail("offset of (" + std::to_string(i) + ", " + std::to_string(j) + ") on " + std::to_string(q) +
                 " = " + std::to_string(mine) + ", ScaLAPACK (INDXG2L-1) + (INDXG2L-1)*LLD = " +
                 std::to_string(want));
            continue;
          }
          if (want < 0 || want >= rows * cols || seen[static_cast<std::size_t>(want)]++)
            fail("offset " + std::to_string(want) + " on " + std::to_string(q) + " used twice or out of range");
        }
    }
    ++checks;
    if (count != rows * cols)
      fail("locale " + std::to_string(q) + " owns " + std::to_string(count) + " indices, NUMROC gives " +
           std::to_string(rows) + " x " + std::to_string(cols));
  }
  return checks;
}

std::string joined(const std::vector<std::string>& errors) {
  std::string s;
  for (const auto& e : errors) s += "\n  " + e;
  return s;
}

using dmap::testing::blacs_grid;  // a BLACS grid over all locales, released at scope exit

// The ScaLAPACK descriptor of a dmap array over make_domain(s); info from DESCINIT.
std::array<int, 9> descriptor(const sl_matrix& s, const blacs_grid& g, int& info) {
  std::array<int, 9> desc{};
  const int lld = s.lld(g.myrow()), ctxt = g.context();
  descinit_(desc.data(), &s.m, &s.n, &s.mb, &s.nb, &s.rsrc, &s.csrc, &ctxt, &lld, &info);
  return desc;
}

// The local buffer of a column-major block-cyclic array (one buffer for all its blocks).
double* buffer_of(dmap::array<double, 2>& A, double& dummy) {
  return A.local_blocks().empty() ? &dummy : A.local_blocks().front().base;
}

// Fills every owned element of A with f(i, j).
template <class F>
void fill(dmap::array<double, 2>& A, F f) {
  for (const auto& r : A.domain().local_subdomains())
    for (index_t a = 0; a < r.dim(0).size(); ++a)
      for (index_t c = 0; c < r.dim(1).size(); ++c) {
        const index_t i = r.dim(0).index_at(a), j = r.dim(1).index_at(c);
        A.local({i, j}) = f(i, j);
      }
}

}  // namespace

// ------------------------------------------------------------------------------- 1-D

TEST_CASE("block_cyclic dimension cut agrees with NUMROC and INDXG2P/INDXG2L/INDXL2G", "[scalapack][serial]") {
  long checks = 0, configs = 0;
  std::vector<std::string> errors;
  for (int n : sweep_n)
    for (int nb : sweep_nb)
      for (int p : sweep_p)
        for (int src = 0; src < p; ++src)
          for (index_t lo : {index_t{0}, index_t{-5}, index_t{3}}) {
            // Source processes other than 0 and shifted bounds: one lo for each nonzero src
            // keeps the sweep small while still covering both.
            if (src != 0 && lo != 0 && src != p - 1) continue;
            checks += compare_cut(n, nb, p, src, lo, errors);
            ++configs;
          }
  INFO(configs << " configurations, " << checks << " index checks; first mismatches:" << joined(errors));
  CHECK(errors.empty());
  CHECK(checks > 100000);
}

TEST_CASE("block_cyclic dimension cut: ScaLAPACK's worked cases", "[scalapack][serial]") {
  // numroc(7, 2, {0, 1}, 0, 2) = 4, 3: blocks {0,1} {4,5} on 0, {2,3} {6} on 1 (partial last block).
  const dmap::dimension_cut cut(dmap::block_cyclic_dim{2}, range{0, 7}, 2);
  CHECK(cut.count(0) == sl_numroc(7, 2, 0, 0, 2));
  CHECK(cut.count(1) == sl_numroc(7, 2, 1, 0, 2));
  CHECK(cut.count(0) == 4);
  CHECK(cut.count(1) == 3);
  REQUIRE(cut.pieces(1).size() == 2);
  CHECK(cut.pieces(1)[1] == range(6, 7));
  CHECK(cut.positions(1)[1] == 2);
  // More locales than blocks: 5 indices in blocks of 4 over 7 locales; 2..6 own nothing.
  const dmap::dimension_cut few(dmap::block_cyclic_dim{4}, range{0, 5}, 7);
  for (int k = 0; k < 7; ++k) {
    CHECK(few.count(k) == sl_numroc(5, 4, k, 0, 7));
    CHECK(few.pieces(k).empty() == (k >= 2));
  }
  // Empty dimension: nobody owns anything.
  const dmap::dimension_cut none(dmap::block_cyclic_dim{3}, range{0, 0}, 4);
  for (int k = 0; k < 4; ++k) CHECK(none.count(k) == sl_numroc(0, 3, k, 0, 4));
}

// ------------------------------------------------------------------------------- 2-D

TEST_CASE("block_cyclic<2> column-major domain is ScaLAPACK's 2-D layout", "[scalapack]") {
  const int P = dmap::num_locales();
  const std::vector<std::pair<int, int>> blocks{{1, 1}, {2, 3}, {3, 2}, {4, 4}, {16, 1}, {1, 7}};
  const std::vector<std::pair<int, int>> sizes{{0, 0}, {0, 5}, {1, 1}, {3, 2}, {7, 5}, {10, 13}, {31, 10}, {5, 33}};
  long checks = 0, configs = 0;
  for (const auto& [pr, pc] : grid_shapes(P))
    for (const auto& [mb, nb] : blocks)
      for (const auto& [m, n] : sizes)
        for (int src = 0; src < 2; ++src) {
          // A nonzero source process only where the grid has more than one locale.
          if (src == 1 && P == 1) continue;
          const sl_matrix s{m, n, mb, nb, pr, pc, src ? pr - 1 : 0, src ? pc - 1 : 0};
          const dmap::domain<2> D = make_domain(s);
          std::vector<std::string> errors;
          checks += compare_domain(D, s, errors);
          ++configs;

          // This locale's array: buffer length NUMROC(m) * NUMROC(n), and an element written
          // through dmap is where ScaLAPACK reads it.
          dmap::array<double, 2> A(D, -1.0);
          const int me = dmap::here(), myrow = me / pc, mycol = me % pc;
          const long want_size = static_cast<long>(s.local_rows(myrow)) * s.local_cols(mycol);
          if (A.local_size() != want_size)
            errors.push_back(s.text() + ": local_size() = " + std::to_string(A.local_size()) +
                             ", NUMROC * NUMROC = " + std::to_string(want_size));
          fill(A, [&](index_t i, index_t j) { return static_cast<double>(1000 * i + j); });
          double dummy = 0;
          const double* buf = buffer_of(A, dummy);
          for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j)
              if (s.owner(i, j) == me) {
                ++checks;
                const long at = s.offset(i, j);
                const bool ok = at < A.local_size() && buf[at] == 1000.0 * i + j;
                if (!ok && errors.size() < 8)
                  errors.push_back(s.text() + ": buffer at ScaLAPACK offset " + std::to_string(at) + " of (" +
                                   std::to_string(i) + ", " + std::to_string(j) + ") does not hold its element");
              }
          INFO(s.text() << ":" << joined(errors));
          DMAP_CHECK_ALL(errors.empty());
        }
  INFO(configs << " configurations, " << checks << " index checks on this locale");
  CHECK(configs > 0);
}

TEST_CASE("block_cyclic rejects a zero or negative block size on every locale", "[scalapack]") {
  const dmap::target_grid<2> grid = dmap::target_grid<2>::balanced(dmap::num_locales());
  for (const idx<2> bs : {idx<2>{0, 2}, idx<2>{2, 0}, idx<2>{-3, 1}}) {
    std::string message;
    bool right_type = false;
    try {
      const dmap::domain<2> D{dmap::block_cyclic<2>{bs, grid, dmap::storage_order::column_major},
                              rect<2>{{0, 5}, {0, 5}}};
    } catch (const dmap::argument_error& e) {
      right_type = true;
      message = e.what();
    } catch (...) {
    }
    const std::string dim = bs[0] < 1 ? "dimension 0" : "dimension 1";
    INFO("block size " << bs[0] << "x" << bs[1] << ": " << message);
    DMAP_CHECK_ALL(right_type && message.find("block_size") != std::string::npos &&
                   message.find(dim) != std::string::npos);
  }
}

// ------------------------------------------------------------------------------- interop

TEST_CASE("PDGEMM and PDGEADD run on dmap arrays' local storage", "[scalapack]") {
  const int P = dmap::num_locales();
  // (m, n, k, mb, nb, kb): partial last blocks, locales without rows or columns.
  const std::vector<std::array<int, 6>> cases{
      {7, 7, 7, 2, 2, 2}, {9, 5, 11, 2, 3, 4}, {3, 13, 6, 4, 2, 1}, {1, 1, 1, 1, 1, 1}, {12, 10, 8, 3, 3, 3}};
  for (const auto& [pr, pc] : grid_shapes(P)) {
    const blacs_grid g(pr, pc);
    const dmap::target_grid<2> tg{{pr, pc}};
    const auto coords = tg.coords_of(dmap::here());
    INFO("grid " << pr << "x" << pc);
    DMAP_CHECK_ALL(g.nprow() == pr && g.npcol() == pc && g.myrow() == coords[0] && g.mycol() == coords[1]);

    for (const auto& [m, n, k, mb, nb, kb] : cases)
      for (int src = 0; src < 2; ++src) {
        if (src == 1 && P == 1) continue;
        const int rs = src ? pr - 1 : 0, cs = src ? pc - 1 : 0;
        const sl_matrix sa{m, k, mb, kb, pr, pc, rs, cs}, sb{k, n, kb, nb, pr, pc, rs, cs},
            sc{m, n, mb, nb, pr, pc, rs, cs}, st{n, m, nb, mb, pr, pc, rs, cs};
        dmap::array<double, 2> A(make_domain(sa)), B(make_domain(sb)), C(make_domain(sc)), T(make_domain(st));
        const auto a = [](index_t i, index_t l) { return static_cast<double>((i + 1) - 2 * (l % 3)); };
        const auto b = [](index_t l, index_t j) { return static_cast<double>((l + 2 * j) % 5 - 2); };
        const auto c0 = [](index_t i, index_t j) { return static_cast<double>(i - j); };
        const auto t = [](index_t j, index_t i) { return static_cast<double>(3 * j - i); };
        fill(A, a);
        fill(B, b);
        fill(C, c0);
        fill(T, t);

        int ia = 0, ib = 0, ic = 0, it = 0;
        const auto da = descriptor(sa, g, ia), db = descriptor(sb, g, ib), dc = descriptor(sc, g, ic),
                   dt = descriptor(st, g, it);
        INFO("m=" << m << " n=" << n << " k=" << k << " blocks " << mb << "," << nb << "," << kb << " source "
                  << rs << "," << cs << "; DESCINIT info " << ia << " " << ib << " " << ic << " " << it);
        DMAP_REQUIRE_ALL(ia == 0 && ib == 0 && ic == 0 && it == 0);

        // C := 1 * A * B + 2 * C, then C := 1 * C + (-1) * T^T.
        double dummy_a = 0, dummy_b = 0, dummy_c = 0, dummy_t = 0;
        const double one = 1, two = 2, minus_one = -1;
        const int i1 = 1;
        pdgemm_("N", "N", &m, &n, &k, &one, buffer_of(A, dummy_a), &i1, &i1, da.data(), buffer_of(B, dummy_b),
                &i1, &i1, db.data(), &two, buffer_of(C, dummy_c), &i1, &i1, dc.data());
        pdgeadd_("T", &m, &n, &minus_one, buffer_of(T, dummy_t), &i1, &i1, dt.data(), &one,
                 buffer_of(C, dummy_c), &i1, &i1, dc.data());

        long wrong = 0;
        std::string first;
        for (const auto& r : C.domain().local_subdomains())
          for (index_t x = 0; x < r.dim(0).size(); ++x)
            for (index_t y = 0; y < r.dim(1).size(); ++y) {
              const index_t i = r.dim(0).index_at(x), j = r.dim(1).index_at(y);
              double want = 2 * c0(i, j) - t(j, i);
              for (index_t l = 0; l < k; ++l) want += a(i, l) * b(l, j);
              if (C.local({i, j}) != want && wrong++ == 0)
                first = "C(" + std::to_string(i) + ", " + std::to_string(j) + ") = " +
                        std::to_string(C.local({i, j})) + ", expected " + std::to_string(want);
            }
        INFO(wrong << " wrong elements here; first: " << first);
        DMAP_CHECK_ALL(wrong == 0);
      }
  }
}

}  // namespace test_scalapack
