// The 2-D heat equation (Laplace's equation at steady state) by Jacobi iteration with the
// 5-point stencil, on a dmap::stencil domain, written out as a PNG heat map, an .npy file and
// an HDF5 file; it can checkpoint its state and resume from a checkpoint.
//
//   heat [--n=256] [--tol=1e-4] [--max-iter=20000] [--every=500] [--check=10] [--out=heat]
//        [--checkpoint-every=0] [--restart=FILE]
//
// The picture is n x n cells: the (n-2) x (n-2) interior is the distributed domain, the
// outer ring holds fixed (Dirichlet) temperatures. Each locale stores its block of the
// interior plus one ghost layer (fluff 1); along the edges of the whole grid that layer is
// DAP "boundary padding": it belongs to no locale, halo updates never touch it, and `A[i]` for
// such an index reads and writes this locale's own copy. So the boundary temperatures are
// written once, into both arrays, and stay.
//
// Each iteration computes B from A's neighbourhoods, starts B's halo update, meanwhile (every
// --check iterations) reduces delta = max |B - A| over the interior, finishes the update and
// swaps A and B. It stops once delta < tol (or after --max-iter iterations). Every step is
// exact or done in a fixed order per cell, and the stopping test looks only at the exact max,
// so the field, the iteration count and the PNG are bit-identical for any number of locales
// and threads.
//
// Files (all locales write each one together, through MPI-IO / parallel HDF5):
//   <out>.png             the final field framed by the boundary ring, n x n pixels;
//   <out>.npy             the final interior field, (n-2) x (n-2) float64 in C order (row 0 at
//                         the top, as in the PNG): numpy.load opens it;
//   <out>.h5              the same interior as dataset /heat/u, with the attributes below;
//   <out>-checkpoint.h5   with --checkpoint-every=K, every K iterations: the state to resume
//                         from, in the layout of <out>.h5 (replaced whole each time: written
//                         under a temporary name, then renamed).
// Attributes of /heat/u: "iteration" (iterations done), "converged" (1 when the run has
// stopped on the tolerance), "delta" (the last max |change| measured), and the options the
// result depends on, "n", "tol", "check", "every". The boundary ring is not stored: it is a
// function of n (boundary_value below).
//
// --restart=FILE reads such a file (its interior must be (n-2) x (n-2) for this --n) and
// continues from its iteration. The loop depends only on the field and the iteration number
// (whether an iteration tests for convergence is a function of the iteration number), so with
// the same --n, --tol, --check and --every the final PNG and .npy are byte-identical to those
// of an uninterrupted run, whatever the locale counts of the two halves (the .h5 holds the same
// field and iteration; its dmap_map attribute names the writer's map). A missing or
// unusable restart file ends the run with status 2 on every locale (locale 0 says why).
//
// Run it as one locale (./heat) or under mpirun -n P; locale 0 prints progress.
#include <dmap/dmap.hpp>
#include <dmap/io/hdf5.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <limits>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "png_writer.hpp"

namespace {

using dmap::index_t;

struct options {
  index_t n = 256;          // picture size in cells, boundary included
  double tol = 1e-4;        // stop once max |change| per iteration is below this
  long long max_iter = 20000;
  long long every = 500;    // progress line every this many iterations (0: none)
  long long check = 10;     // convergence test every this many iterations
  std::string out = "heat"; // writes <out>.png, <out>.npy, <out>.h5
  long long checkpoint_every = 0;  // write <out>-checkpoint.h5 every this many iterations (0: never)
  std::string restart;             // resume from this checkpoint (empty: start afresh)
};

constexpr const char* usage =
    "usage: heat [--n=N] [--tol=T] [--max-iter=K] [--every=E] [--check=C] [--out=PREFIX]\n"
    "            [--checkpoint-every=K] [--restart=FILE]\n"
    "  --n=N         grid of N x N cells including the fixed boundary ring, 3 <= N <= 8192 (256)\n"
    "  --tol=T       stop once max |change| of an iteration is below T, T >= 0 (1e-4; 0: never)\n"
    "  --max-iter=K  at most K iterations, 1 <= K <= 1e9 (20000); a restarted run counts those done\n"
    "                before the restart\n"
    "  --every=E     locale 0 prints a progress line every E iterations, 0 = never (500)\n"
    "  --check=C     test for convergence every C iterations, 1 <= C <= 1e6 (10)\n"
    "  --out=PREFIX  write the final field to PREFIX.png (N x N, boundary ring included), and its\n"
    "                (N-2) x (N-2) interior to PREFIX.npy (float64) and PREFIX.h5 (dataset /heat/u,\n"
    "                attribute \"iteration\") (heat)\n"
    "  --checkpoint-every=K\n"
    "                every K iterations write the state to PREFIX-checkpoint.h5 (the interior as\n"
    "                /heat/u with its iteration), replacing the previous one; 0 = never (0)\n"
    "  --restart=FILE\n"
    "                resume from FILE (a PREFIX-checkpoint.h5 or PREFIX.h5 of the same N); with the\n"
    "                same --tol, --check and --every the result is bit-identical to an uninterrupted\n"
    "                run. A missing or unusable FILE: exit status 2\n";

template <class Int>
std::optional<std::string> parse_int(std::string_view name, std::string_view text, Int lo, Int hi, Int& out) {
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value < lo || value > hi) {
    std::ostringstream s;
    s << "--" << name << "='" << text << "': expected an integer in [" << lo << ", " << hi << "]";
    return s.str();
  }
  out = value;
  return std::nullopt;
}

std::optional<std::string> parse_tolerance(std::string_view text, double& out) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value) ||
      value < 0)
    return "--tol='" + std::string(text) + "': expected a finite number >= 0";
  out = value;
  return std::nullopt;
}

/// Parses the command line into `o`. Returns an error message, "help" for --help, or nothing.
/// Every locale parses the same argv, so every locale reaches the same verdict.
std::optional<std::string> parse(int argc, char** argv, options& o) {
  for (int k = 1; k < argc; ++k) {
    const std::string_view arg = argv[k];
    if (arg == "--help" || arg == "-h") return std::string("help");
    const auto eq = arg.find('=');
    if (!arg.starts_with("--") || eq == std::string_view::npos)
      return "unknown argument '" + std::string(arg) + "' (options take the form --name=value)";
    const std::string_view name = arg.substr(2, eq - 2), value = arg.substr(eq + 1);
    std::optional<std::string> problem;
    if (name == "n") problem = parse_int<index_t>(name, value, 3, 8192, o.n);
    else if (name == "tol") problem = parse_tolerance(value, o.tol);
    else if (name == "max-iter") problem = parse_int<long long>(name, value, 1, 1000000000, o.max_iter);
    else if (name == "every") problem = parse_int<long long>(name, value, 0, 1000000000, o.every);
    else if (name == "check") problem = parse_int<long long>(name, value, 1, 1000000, o.check);
    else if (name == "checkpoint-every")
      problem = parse_int<long long>(name, value, 0, 1000000000, o.checkpoint_every);
    else if (name == "out") {
      if (value.empty()) problem = "--out='': expected a non-empty file name prefix";
      else o.out = value;
    } else if (name == "restart") {
      if (value.empty()) problem = "--restart='': expected a file name";
      else o.restart = value;
    } else {
      problem = "unknown option '--" + std::string(name) + "'";
    }
    if (problem) return problem;
  }
  return std::nullopt;
}

/// The fixed temperature of boundary cell (i, j) of the n x n grid (row 0 at the top): the
/// top edge is hot in the middle (a sine arch up to 1), the bottom edge has a hot spot
/// right of centre (0.8), the left and right edges are cold (0).
double boundary_value(const dmap::idx<2>& c, index_t n) {
  const double x = static_cast<double>(c[1]) / static_cast<double>(n - 1);
  if (c[0] == 0) return std::sin(std::numbers::pi * x);
  if (c[0] == n - 1) {
    const double z = (x - 0.7) / 0.08;
    return 0.8 * std::exp(-z * z);
  }
  return 0.0;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Where the Jacobi loop stands: with the field, all it needs to go on bit-identically (whether
/// an iteration tests for convergence depends on the iteration number alone).
struct loop_state {
  long long iterations = 0;                                  // iterations done
  double delta = std::numeric_limits<double>::infinity();   // the last max |change| measured
  bool converged = false;                                    // stopped on the tolerance
};

/// The dataset that holds the interior field in the .h5 files.
constexpr const char* dataset = "/heat/u";

/// Collective. Writes the interior field `A` and the loop state to the HDF5 file `path` (under
/// a temporary name, renamed when complete: an earlier `path` is replaced whole).
void write_state(const std::string& path, const dmap::array<double, 2>& A, const options& opt,
                 const loop_state& s) {
  dmap::hdf5_writer w{path};
  w.write(dataset, A);
  w.set_attribute(dataset, "iteration", static_cast<std::int64_t>(s.iterations));
  w.set_attribute(dataset, "converged", std::int64_t{s.converged ? 1 : 0});
  w.set_attribute(dataset, "delta", s.delta);
  w.set_attribute(dataset, "n", static_cast<std::int64_t>(opt.n));
  w.set_attribute(dataset, "tol", opt.tol);
  w.set_attribute(dataset, "check", static_cast<std::int64_t>(opt.check));
  w.set_attribute(dataset, "every", static_cast<std::int64_t>(opt.every));
  w.commit();
}

/// Collective. Attribute `name` of the dataset, or nothing when the file lacks it (or holds
/// another type): every locale reads the same file, so every locale gets the same answer.
template <class T>
std::optional<T> optional_attribute(dmap::hdf5_reader& r, const char* name) {
  try {
    return r.attribute<T>(dataset, name);
  } catch (const dmap::error&) {
    return std::nullopt;
  }
}

/// Collective. Reads the restart file into `A` (its interior) and returns the state it was
/// saved in. Throws a dmap::error on every locale when the file is missing, is no HDF5 file,
/// lacks /heat/u or its "iteration", or holds a field of another shape than this --n.
loop_state read_state(const options& opt, dmap::array<double, 2>& A) {
  const index_t m = opt.n - 2;
  dmap::hdf5_reader r{opt.restart};
  const auto info = r.info(dataset);
  dmap::agreed([&] {
    if (info.shape == std::vector<index_t>{m, m}) return;
    std::ostringstream s;
    s << "its " << dataset << " has shape (";
    for (std::size_t d = 0; d < info.shape.size(); ++d) s << (d ? ", " : "") << info.shape[d];
    s << ")";
    if (info.shape.size() == 2 && info.shape[0] == info.shape[1])
      s << ", the interior of a grid of --n=" << info.shape[0] + 2;
    s << "; this run has --n=" << opt.n << ", whose interior is (" << m << ", " << m << ")";
    throw dmap::shape_error(s.str());
  });
  r.read(dataset, A);
  loop_state state;
  const std::int64_t iteration = r.attribute<std::int64_t>(dataset, "iteration");
  const std::int64_t converged = optional_attribute<std::int64_t>(r, "converged").value_or(0);
  state.delta = optional_attribute<double>(r, "delta").value_or(std::numeric_limits<double>::infinity());
  dmap::agreed([&] {
    if (iteration < 0 || (converged != 0 && converged != 1))
      throw dmap::format_error("its attributes \"iteration\" (" + std::to_string(iteration) + ") and \"converged\" (" +
                               std::to_string(converged) + ") are not a state this program writes");
    if (iteration > opt.max_iter)
      throw dmap::argument_error("it was saved at iteration " + std::to_string(iteration) + ", beyond --max-iter=" +
                                 std::to_string(opt.max_iter));
  });
  state.iterations = iteration;
  state.converged = converged == 1;

  // The options the stopping iteration depends on: a different one is allowed, but then the
  // run need not end where an uninterrupted one would.
  const auto tol = optional_attribute<double>(r, "tol");
  const auto check = optional_attribute<std::int64_t>(r, "check");
  const auto every = optional_attribute<std::int64_t>(r, "every");
  if (dmap::here() == 0) {
    const auto note = [&](const char* name, const std::string& then, const std::string& now) {
      std::cerr << "heat: note: '" << opt.restart << "' was written with --" << name << "=" << then << ", this run has --"
                << name << "=" << now << ": it may stop at another iteration than an uninterrupted run\n";
    };
    const auto text = [](double x) {
      std::ostringstream s;
      s << x;
      return s.str();
    };
    if (tol && *tol != opt.tol) note("tol", text(*tol), text(opt.tol));
    if (check && *check != opt.check) note("check", std::to_string(*check), std::to_string(opt.check));
    if (every && *every != opt.every) note("every", std::to_string(*every), std::to_string(opt.every));
  }
  return state;
}

int run(const options& opt) {
  const bool root = dmap::here() == 0;
  const index_t n = opt.n;
  // The interior: indices 1 .. n-2 in both dimensions. Ghost width 1, not periodic.
  const dmap::rect<2> interior{{1, n - 1}, {1, n - 1}};
  dmap::domain D{dmap::stencil<2>{dmap::idx<2>{1, 1}}, interior};
  dmap::array<double, 2> A{D, 0.0}, B{D, 0.0};

  // Dirichlet boundary: every interior cell next to the edge writes the boundary cells it
  // touches (each edge cell touches exactly one interior cell; the corners are never read).
  // They lie outside D but in this locale's frame, so A[j] is a plain local store.
  const std::array<dmap::idx<2>, 4> around{{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}};
  for (auto* X : {&A, &B})
    dmap::forall(D, [&](dmap::idx<2> i) {
      for (const auto& o : around)
        if (const dmap::idx<2> j = i + o; !D.contains(j)) (*X)[j] = boundary_value(j, n);
    });

  // A restart replaces A's interior (the boundary ring is not stored: it is the same for
  // every run of this n) and the loop state.
  loop_state state;
  if (!opt.restart.empty()) {
    try {
      state = read_state(opt, A);
    } catch (const dmap::error& e) {  // on every locale alike
      if (root) std::cerr << "heat: cannot restart from '" << opt.restart << "': " << e.what() << "\n";
      return 2;
    }
  }

  if (root) {
    std::cout << "heat: " << n << " x " << n << " grid (interior " << interior << ") over " << D.name() << ", "
              << dmap::num_locales() << " locale(s) x " << dmap::num_threads() << " thread(s); tol " << opt.tol
              << ", at most " << opt.max_iter << " iterations" << std::endl;
    if (!opt.restart.empty())
      std::cout << "heat: restarting from " << opt.restart << " at iteration " << state.iterations
                << (state.converged ? " (converged there)" : "") << std::endl;
  }

  const std::string checkpoint = opt.out + "-checkpoint.h5";
  const auto t0 = std::chrono::steady_clock::now();
  dmap::update_halos(A);
  while (!state.converged && state.iterations < opt.max_iter) {
    const long long k = ++state.iterations;
    dmap::forall(dmap::zip(B, dmap::neighbors(std::as_const(A), 1)), [](double& b, const auto& a) {
      b = 0.25 * (a(-1, 0) + a(1, 0) + a(0, -1) + a(0, 1));
    });
    const bool progress = opt.every > 0 && k % opt.every == 0;
    const bool check = k % opt.check == 0 || progress || k == opt.max_iter;
    // B's ghost cells travel while its owned cells are read for the convergence test.
    auto halo = dmap::start_halo_update(B);
    if (check)
      state.delta = dmap::reduce(dmap::zip(std::as_const(A), std::as_const(B)), 0.0, dmap::maximum{},
                                 [](double a, double b) { return std::abs(a - b); });
    halo.finish();
    std::swap(A, B);  // A is the newest field again
    if (progress && root) {
      std::printf("  iteration %8lld  delta %.6e  %8.3f s\n", k, state.delta, seconds_since(t0));
      std::fflush(stdout);
    }
    if (check && state.delta < opt.tol) {
      state.converged = true;
      break;
    }
    // A checkpoint holds a state the loop goes on from (never a converged one).
    if (opt.checkpoint_every > 0 && k % opt.checkpoint_every == 0) {
      write_state(checkpoint, A, opt, state);
      if (root) {
        std::printf("  iteration %8lld  checkpoint %s\n", k, checkpoint.c_str());
        std::fflush(stdout);
      }
    }
  }
  const double compute_seconds = seconds_since(t0);

  // The final field on locale 0, framed by the boundary ring (the fixed values the boundary
  // cells hold), as a heat map.
  const std::vector<double> field = A.gather();
  const std::string png = opt.out + ".png", npy = opt.out + ".npy", h5 = opt.out + ".h5";
  dmap::agreed([&] {
    if (!root) return;
    const auto side = static_cast<std::size_t>(n), inner = static_cast<std::size_t>(n - 2);
    std::vector<std::uint8_t> pixels(side * side * 3);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) {
        const bool inside = i > 0 && i < n - 1 && j > 0 && j < n - 1;
        const auto at = static_cast<std::size_t>(i - 1) * inner + static_cast<std::size_t>(j - 1);
        const double t = inside ? field[at] : boundary_value(dmap::idx<2>{i, j}, n);
        const heat::rgb c = heat::heat_colour(t);
        std::uint8_t* p = &pixels[(static_cast<std::size_t>(i) * side + static_cast<std::size_t>(j)) * 3];
        p[0] = c.r;
        p[1] = c.g;
        p[2] = c.b;
      }
    heat::write_png(png, side, side, pixels);
  });
  // The interior field itself, written by every locale: numpy.load(npy) and h5py's
  // File(h5)["heat/u"] give the (n-2) x (n-2) array; the .h5 file can be restarted from.
  dmap::write_npy(npy, A);
  write_state(h5, A, opt, state);

  if (root) {
    std::printf("%s after %lld iterations: delta %.6e (tol %g), %.3f s, %d locale(s), %d thread(s) each\n",
                state.converged ? "converged" : "stopped (max-iter)", state.iterations, state.delta, opt.tol,
                compute_seconds, dmap::num_locales(), dmap::num_threads());
    std::printf("wrote %s (%lld x %lld, 8-bit RGB), %s and %s (the %lld x %lld interior, float64)\n", png.c_str(),
                static_cast<long long>(n), static_cast<long long>(n), npy.c_str(), h5.c_str(),
                static_cast<long long>(n - 2), static_cast<long long>(n - 2));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};  // MPI + oneTBB; one locale without mpirun
  const bool root = dmap::here() == 0;
  options opt;
  if (const auto problem = parse(argc, argv, opt)) {
    if (*problem == "help") {
      if (root) std::cout << usage;
      return 0;
    }
    if (root) std::cerr << "heat: " << *problem << "\n" << usage;
    return 2;  // every locale: they all parsed the same arguments
  }
  try {
    return run(opt);
  } catch (const std::exception& e) {
    // dmap's errors (and those agreed on with dmap::agreed) arrive on every locale; locale 0
    // reports them, any other failure is reported where it happened.
    if (root || dynamic_cast<const dmap::error*>(&e) == nullptr)
      std::cerr << "heat (locale " << dmap::here() << "): " << e.what() << "\n";
    return 1;
  }
}
