// Parallel file I/O of an n x n double array on a Block domain over a chosen grid of locales,
// against hand-written MPI-IO in the same run:
//   io_npy_write     dmap::write_npy(path, A)        the file does not exist before each write
//   io_npy_rewrite   dmap::write_npy(path, A)        the file exists: dmap writes a temporary
//                                                    and renames it over the old file, the
//                                                    baseline overwrites its file in place
//   io_npy_rewrite_vs_new   the rewrite against dmap's own write of a new file: baseline = that
//                    write (the file removed first, outside the timing), dmap = the rewrite that
//                    follows it, alternating in one loop; ratio = rewrite rate / new-file rate
//   io_npy_read      dmap::read_npy(path, A)
//   io_hdf5_write    dmap::write_hdf5(path, "/field", A)   (when built with dmap::hdf5)
//   io_hdf5_read     dmap::read_hdf5(path, "/field", A)    (when built with dmap::hdf5)
//   io_hdf5_rewrite_vs_new  as io_npy_rewrite_vs_new, for write_hdf5 (when built with dmap::hdf5)
// The baseline (every case's, HDF5's too): each rank holds its block in a std::vector<double>,
// builds MPI_Type_create_subarray (global n x n, its block's sizes and starts, MPI_ORDER_C),
// MPI_File_open, rank 0 writes the same .npy header (MPI_File_write_at), MPI_File_set_view at
// the header's size with the subarray as filetype, MPI_File_write_all / MPI_File_read_all,
// MPI_File_close. Before timing, both writers' files are compared byte for byte (locale 0 hashes
// them) and each side reads the other's file back and compares it with what it holds.
//
// Rates are the file's payload (n * n * 8 bytes) per second, GB/s; ratio = dmap's rate / the
// baseline's (for HDF5: HDF5's rate / hand-written MPI-IO's). msgs/bytes: dmap's messages of
// locale 0 in one operation (min_bytes = 0: each locale owns its block). Extra fields:
// file_bytes0 (dmap::file_statistics() of locale 0 for one operation: bytes_written or
// bytes_read), own_bytes0 (locale 0's block), header_bytes0 (what locale 0 may move besides:
// the .npy header; reading, the 12-byte probe of its preamble too), payload_of_others0 =
// file_bytes0 - own_bytes0 - header_bytes0 (must be 0: the bench exits 1 otherwise) and
// collectives0 (dmap's collective calls of locale 0 in one operation).
//
// Page cache: the files are written to and read from the operating system's page cache (no
// fsync; a 128 MiB file fits in memory many times over), so these are rates of the MPI-IO path
// and memory copies, not of the disk. dmap and the baseline alternate, one warm-up round first,
// so that both see the same cache state; for the write cases both files are removed before
// every timed write (outside the timing), so each side creates a new file each time.
//
//   mpirun -n P --bind-to none ./bench_io [--grid=RxC (R * C = P; default: dmap's factorisation)]
//                                          [--n=4096] [--reps=5] [--dir=/tmp]
// Exit 77 when the grid does not fit the rank count (scripts/bench.sh skips the run).
#include <dmap/dmap.hpp>

#if __has_include(<dmap/io/hdf5.hpp>) && defined(DMAP_HAS_HDF5)
#include <dmap/io/hdf5.hpp>
#define BENCH_IO_HDF5 1
#else
#define BENCH_IO_HDF5 0
#endif

#include "timing.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "bench_io (rank %d): %s\n", dmap::here(), what.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

struct options {
  std::optional<dmap::target_grid<2>> grid;  // none: the grid does not fit the rank count
  std::string grid_text = "default";
  index_t n = 4096;
  int reps = 5;
  std::string dir = "/tmp";
};

options parse(int argc, char** argv) {
  options o;
  o.grid = dmap::target_grid<2>{};
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    const auto value = [&](const std::string& key) -> std::optional<std::string> {
      if (a.rfind(key + "=", 0) == 0) return a.substr(key.size() + 1);
      return std::nullopt;
    };
    if (auto v = value("--grid")) {
      o.grid_text = *v;
      const auto x = v->find('x');
      const int rows = x == std::string::npos ? 0 : std::atoi(v->substr(0, x).c_str());
      const int cols = x == std::string::npos ? 0 : std::atoi(v->substr(x + 1).c_str());
      if (rows <= 0 || cols <= 0 || rows * cols != dmap::num_locales()) {
        if (dmap::here() == 0)
          std::fprintf(stderr, "bench_io: grid '%s' must be RxC with R * C = %d ranks (exit 77: skipped)\n",
                       v->c_str(), dmap::num_locales());
        o.grid.reset();
      } else {
        o.grid = dmap::target_grid<2>({rows, cols});
      }
    } else if (auto v = value("--n")) {
      o.n = std::atoll(v->c_str());
    } else if (auto v = value("--reps")) {
      o.reps = std::atoi(v->c_str());
    } else if (auto v = value("--dir")) {
      o.dir = *v;
    } else {
      if (dmap::here() == 0) std::fprintf(stderr, "bench_io: unknown argument '%s'\n", a.c_str());
      std::exit(2);
    }
  }
  if (o.n < 1 || o.reps < 1) {
    if (dmap::here() == 0) std::fprintf(stderr, "bench_io: --n and --reps must be >= 1\n");
    std::exit(2);
  }
  return o;
}

/// Block's cut of [0, n) over p parts: part k owns [cut(k), cut(k + 1)).
index_t cut(index_t n, int p, int k) { return (n * k + p - 1) / p; }

double value(index_t i, index_t j, index_t n) { return 0.5 + static_cast<double>((i * n + j) % 1000003); }

/// FNV-1a of a whole file (locale 0's check that both writers produced the same bytes).
std::uint64_t file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open '" + path + "' to compare it");
  std::vector<char> buffer(1 << 20);
  std::uint64_t h = 1469598103934665603ULL;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = in.gcount();
    for (std::streamsize k = 0; k < got; ++k) h = (h ^ static_cast<unsigned char>(buffer[static_cast<std::size_t>(k)])) * 1099511628211ULL;
  }
  return h;
}

/// The hand-written side: this rank's block in a plain vector, written and read with one
/// subarray file view.
struct mpi_io_baseline {
  index_t n = 0;
  std::array<int, 2> sizes{}, subsizes{}, starts{};
  std::vector<double> block;
  std::string header;

  void write(const std::string& path) const {
    MPI_Datatype filetype = MPI_DATATYPE_NULL;
    MPI_Type_create_subarray(2, sizes.data(), subsizes.data(), starts.data(), MPI_ORDER_C, MPI_DOUBLE, &filetype);
    MPI_Type_commit(&filetype);
    MPI_File fh = MPI_FILE_NULL;
    if (MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS)
      fail("baseline: cannot create '" + path + "'");
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Status status;
    if (rank == 0)
      MPI_File_write_at(fh, 0, header.data(), static_cast<int>(header.size()), MPI_BYTE, &status);
    MPI_File_set_view(fh, static_cast<MPI_Offset>(header.size()), MPI_DOUBLE, filetype, "native", MPI_INFO_NULL);
    if (MPI_File_write_all(fh, block.data(), static_cast<int>(block.size()), MPI_DOUBLE, &status) != MPI_SUCCESS)
      fail("baseline: cannot write '" + path + "'");
    MPI_File_close(&fh);
    MPI_Type_free(&filetype);
  }

  void read(const std::string& path, std::vector<double>& into) const {
    MPI_Datatype filetype = MPI_DATATYPE_NULL;
    MPI_Type_create_subarray(2, sizes.data(), subsizes.data(), starts.data(), MPI_ORDER_C, MPI_DOUBLE, &filetype);
    MPI_Type_commit(&filetype);
    MPI_File fh = MPI_FILE_NULL;
    if (MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
      fail("baseline: cannot open '" + path + "'");
    MPI_File_set_view(fh, static_cast<MPI_Offset>(header.size()), MPI_DOUBLE, filetype, "native", MPI_INFO_NULL);
    MPI_Status status;
    if (MPI_File_read_all(fh, into.data(), static_cast<int>(into.size()), MPI_DOUBLE, &status) != MPI_SUCCESS)
      fail("baseline: cannot read '" + path + "'");
    MPI_File_close(&fh);
    MPI_Type_free(&filetype);
  }
};

/// Medians of `reps` alternating timings of `a` and `b` (one warm-up round first), `prepare`
/// run before each of them outside the timing (removing the files a write creates).
template <class P, class A, class B>
std::pair<double, double> median_times_prepared(int reps, P&& prepare, A&& a, B&& b) {
  std::vector<double> ta, tb;
  for (int r = 0; r <= reps; ++r) {
    prepare();
    const double x = bench::timed(a);
    prepare();
    const double y = bench::timed(b);
    if (r > 0) ta.push_back(x), tb.push_back(y);
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  return {ta[ta.size() / 2], tb[tb.size() / 2]};
}

/// Medians of `reps` rounds (one warm-up round first) of: `prepare` (outside the timing), a timed
/// `write` of a new file, a timed `write` again over the file the first left. Returns (rewrite,
/// new file).
template <class P, class W>
std::pair<double, double> median_rewrite_and_new(int reps, P&& prepare, W&& write) {
  std::vector<double> again, fresh;
  for (int r = 0; r <= reps; ++r) {
    prepare();
    const double x = bench::timed(write);
    const double y = bench::timed(write);
    if (r > 0) fresh.push_back(x), again.push_back(y);
  }
  std::sort(again.begin(), again.end());
  std::sort(fresh.begin(), fresh.end());
  return {again[again.size() / 2], fresh[fresh.size() / 2]};
}

/// dmap's communication and file counters of locale 0 for one operation, after a first run
/// (bench::counters_of_repeat, with the file counters beside).
struct repeat_counters {
  dmap::comm_counters comm;
  dmap::file_counters files;
};
template <class P, class F>
repeat_counters counters_of_repeat(P&& prepare, F&& f) {
  prepare();
  f();
  prepare();
  dmap::barrier();
  dmap::reset_counters();
  dmap::reset_file_statistics();
  f();
  return {dmap::counters(), dmap::file_statistics()};
}

struct context {
  index_t n = 0;
  std::string grid;
  std::uint64_t payload = 0;      // bytes of elements in the file
  std::uint64_t own_bytes0 = 0;   // locale 0's block
  std::uint64_t header_bytes = 0;  // the .npy header
};

/// One `bench ...` line (docs/design.md section 10) plus the file fields; exits 1 on every
/// locale when locale 0 moved another locale's payload.
void line(const context& cx, const char* name, double td, double tb, const repeat_counters& c, bool writing,
          std::uint64_t header_bytes0) {
  const std::uint64_t file_bytes0 = writing ? c.files.bytes_written : c.files.bytes_read;
  const long long others = static_cast<long long>(file_bytes0) - static_cast<long long>(cx.own_bytes0) -
                           static_cast<long long>(header_bytes0);
  if (dmap::here() == 0) {
    const double bytes = static_cast<double>(cx.payload);
    std::printf("bench %s ranks=%d threads=%d transfers=%s n=%lld dmap=%.3f baseline=%.3f unit=GB/s ratio=%.3f msgs=%llu bytes=%llu "
                "min_bytes=0 grid=%s file_bytes0=%llu own_bytes0=%llu header_bytes0=%llu payload_of_others0=%lld "
                "collectives0=%llu\n",
                name, dmap::num_locales(), dmap::num_threads(), bench::transfers_field(), static_cast<long long>(cx.n * cx.n), bytes / td / 1e9,
                bytes / tb / 1e9, tb / td, static_cast<unsigned long long>(c.comm.messages_sent),
                static_cast<unsigned long long>(c.comm.bytes_sent), cx.grid.c_str(),
                static_cast<unsigned long long>(file_bytes0), static_cast<unsigned long long>(cx.own_bytes0),
                static_cast<unsigned long long>(header_bytes0), others,
                static_cast<unsigned long long>(c.comm.collectives));
    std::fflush(stdout);
  }
  int bad = dmap::here() == 0 && others != 0;
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (bad) {
    if (dmap::here() == 0)
      std::fprintf(stderr, "bench_io: %s: locale 0 moved %lld bytes besides its own block and the header\n", name,
                   others);
    std::exit(1);
  }
}

/// Removes `paths` (locale 0), everyone waiting for it.
void remove_files(const std::vector<std::string>& paths) {
  if (dmap::here() == 0)
    for (const auto& p : paths) std::remove(p.c_str());
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const options o = parse(argc, argv);
  if (!o.grid) return 77;
  const dmap::target_grid<2>& grid = *o.grid;
  const index_t n = o.n;
  const int me = dmap::here();

  // File names: the directory, locale 0's pid (told to all) and the writer.
  long long pid = static_cast<long long>(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  const std::string stem = o.dir + "/bench_io_" + std::to_string(pid);
  const std::string dmap_npy = stem + "_dmap.npy", mpi_npy = stem + "_mpiio.npy";

  const rect<2> space{range(0, n), range(0, n)};
  dmap::domain<2> D{dmap::block<2>{grid}, space};
  dmap::array<double, 2> A(D), B(D);
  dmap::forall(dmap::zip(A, D), [n](double& a, const idx<2>& i) { a = value(i[0], i[1], n); });

  // The baseline's block, from its own cut (checked against dmap's).
  mpi_io_baseline base;
  base.n = n;
  const auto c = grid.coords_of(me);
  const index_t r0 = cut(n, grid.extent(0), c[0]), r1 = cut(n, grid.extent(0), c[0] + 1);
  const index_t k0 = cut(n, grid.extent(1), c[1]), k1 = cut(n, grid.extent(1), c[1] + 1);
  if (r1 <= r0 || k1 <= k0) fail("every locale needs a non-empty block: make --n at least the grid's extents");
  const rect<2> mine = D.local_subdomain();
  if (mine.dim(0).first() != r0 || mine.dim(0).size() != r1 - r0 || mine.dim(1).first() != k0 ||
      mine.dim(1).size() != k1 - k0)
    fail("dmap's Block cut differs from the baseline's");
  base.sizes = {static_cast<int>(n), static_cast<int>(n)};
  base.subsizes = {static_cast<int>(r1 - r0), static_cast<int>(k1 - k0)};
  base.starts = {static_cast<int>(r0), static_cast<int>(k0)};
  base.block.resize(static_cast<std::size_t>((r1 - r0) * (k1 - k0)));
  for (index_t i = r0; i < r1; ++i)
    for (index_t j = k0; j < k1; ++j) base.block[static_cast<std::size_t>((i - r0) * (k1 - k0) + j - k0)] = value(i, j, n);
  base.header = dmap::detail::npy_header_bytes("<f8", {n, n});
  if (base.header != dmap::detail::npy_header_bytes(dmap::npy_descr<double>(), {n, n}))
    fail("the baseline's header differs from dmap's");

  // dmap's local block as a row-major copy (its storage may have another row stride).
  const auto& blk = A.local_blocks().front();
  const index_t pitch = blk.layout.strides[0];
  const auto local_rows = [&](const dmap::array<double, 2>& X) {
    std::vector<double> out(base.block.size());
    const double* p = X.local_data() + blk.layout.offset_of(mine.first());
    for (index_t i = 0; i < r1 - r0; ++i) std::copy(p + i * pitch, p + i * pitch + (k1 - k0), out.data() + i * (k1 - k0));
    return out;
  };
  if (local_rows(A) != base.block) fail("dmap's array and the baseline's block hold different values");

  context cx;
  cx.n = n;
  cx.grid = std::to_string(grid.extent(0)) + "x" + std::to_string(grid.extent(1));
  cx.payload = static_cast<std::uint64_t>(n * n) * sizeof(double);
  cx.own_bytes0 = static_cast<std::uint64_t>(D.local_subdomains(0).front().size()) * sizeof(double);
  cx.header_bytes = base.header.size();

  // Correctness, once: both writers' files are the same bytes, and each side reads the other's.
  remove_files({dmap_npy, mpi_npy});
  dmap::write_npy(dmap_npy, A);
  base.write(mpi_npy);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0 && file_hash(dmap_npy) != file_hash(mpi_npy)) fail("dmap's .npy file differs from the baseline's");
  dmap::read_npy(mpi_npy, B);
  std::vector<double> got(base.block.size());
  base.read(dmap_npy, got);
  int wrong = local_rows(B) != base.block || got != base.block;
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (wrong) fail("reading back gave other values than were written");

  const auto write_dmap = [&] { dmap::write_npy(dmap_npy, A); };
  const auto write_base = [&] { base.write(mpi_npy); };
  const auto remove_both = [&] { remove_files({dmap_npy, mpi_npy}); };
  const auto nothing = [] {};

  // io_npy_write: new files each time.
  {
    const auto counts = counters_of_repeat(remove_both, write_dmap);
    const auto [td, tb] = median_times_prepared(o.reps, remove_both, write_dmap, write_base);
    line(cx, "io_npy_write", td, tb, counts, true, cx.header_bytes);
  }
  // io_npy_rewrite: the files exist (dmap: temporary + rename over the old file; the baseline
  // overwrites its own in place).
  {
    write_dmap(), write_base();
    const auto counts = counters_of_repeat(nothing, write_dmap);
    const auto [td, tb] = bench::median_times(o.reps, write_dmap, write_base);
    line(cx, "io_npy_rewrite", td, tb, counts, true, cx.header_bytes);
  }
  // io_npy_rewrite_vs_new: dmap's rewrite against dmap's write of a new file (crash-safe
  // replacement must not cost much more than writing).
  {
    const auto remove_dmap = [&] { remove_files({dmap_npy}); };
    write_dmap();
    const auto counts = counters_of_repeat(nothing, write_dmap);
    const auto [td, tb] = median_rewrite_and_new(o.reps, remove_dmap, write_dmap);
    line(cx, "io_npy_rewrite_vs_new", td, tb, counts, true, cx.header_bytes);
  }
  // io_npy_read: both read the same file (dmap's), alternating.
  {
    const auto read_dmap = [&] { dmap::read_npy(dmap_npy, B); };
    const auto read_base = [&] { base.read(dmap_npy, got); };
    const auto counts = counters_of_repeat(nothing, read_dmap);
    const auto [td, tb] = bench::median_times(o.reps, read_dmap, read_base);
    wrong = local_rows(B) != base.block || got != base.block;
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (wrong) fail("io_npy_read: the timed reads gave other values");
    // Locale 0 reads the header's first 12 bytes (the preamble), then the whole header.
    line(cx, "io_npy_read", td, tb, counts, false, 12 + cx.header_bytes);
  }

#if BENCH_IO_HDF5
  {
    const std::string h5 = stem + "_dmap.h5";
    remove_files({h5});
    dmap::write_hdf5(h5, "/field", A);
    dmap::forall(B, [](double& b) { b = -1.0; });
    dmap::read_hdf5(h5, "/field", B);
    wrong = local_rows(B) != base.block;
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (wrong) fail("io_hdf5: reading back gave other values than were written");
    const auto write_h5 = [&] { dmap::write_hdf5(h5, "/field", A); };
    const auto remove_h5 = [&] { remove_files({h5, mpi_npy}); };
    {
      const auto counts = counters_of_repeat(remove_h5, write_h5);
      const auto [td, tb] = median_times_prepared(o.reps, remove_h5, write_h5, write_base);
      // HDF5's own metadata is written by the HDF5 library; dmap's counters hold what dmap
      // handed to it, so no header is allowed for.
      line(cx, "io_hdf5_write", td, tb, counts, true, 0);
    }
    {
      write_h5(), write_base();
      const auto read_h5 = [&] { dmap::read_hdf5(h5, "/field", B); };
      const auto read_base = [&] { base.read(mpi_npy, got); };
      const auto counts = counters_of_repeat(nothing, read_h5);
      const auto [td, tb] = bench::median_times(o.reps, read_h5, read_base);
      line(cx, "io_hdf5_read", td, tb, counts, false, 0);
    }
    {
      const auto remove_only_h5 = [&] { remove_files({h5}); };
      write_h5();
      const auto counts = counters_of_repeat(nothing, write_h5);
      const auto [td, tb] = median_rewrite_and_new(o.reps, remove_only_h5, write_h5);
      line(cx, "io_hdf5_rewrite_vs_new", td, tb, counts, true, 0);
    }
    remove_files({h5});
  }
#else
  if (me == 0) std::fprintf(stderr, "bench_io: built without dmap::hdf5: no io_hdf5_* cases\n");
#endif

  remove_files({dmap_npy, mpi_npy});
  return 0;
}
