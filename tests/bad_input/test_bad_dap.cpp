// Bad inputs to the Distributed Array Protocol interop (interop/dap.hpp): dimension
// dictionaries breaking each rule validate() lists (num_owned_indices and to_json must refuse
// them too: never a division by zero, never invalid JSON), descriptions breaking each rule of
// validate(dap_description), and dap_export of arrays DAP cannot describe. dap.hpp has no
// import side (adopting a foreign buffer is a later release), so there is nothing to feed.
#include "support.hpp"

#include <climits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../../interop/dap_json.hpp"

namespace test_bad_dap {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::dap_description;
using dmap::dap_dimension;
using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::bad_input::int64_max;
using dmap::bad_input::int64_min;
using dmap::bad_input::int64_min;

namespace {

/// A valid block ('b') dictionary: one locale holding all 10 positions.
dap_dimension block_dim() {
  dap_dimension d;
  d.dist_type = 'b';
  d.size = 10;
  d.proc_grid_size = 1;
  d.proc_grid_rank = 0;
  d.start = 0;
  d.stop = 10;
  return d;
}
/// A valid middle block of three: grid rank 1 holding positions [4, 8) of 12.
dap_dimension middle_block_dim() {
  dap_dimension d = block_dim();
  d.size = 12;
  d.proc_grid_size = 3;
  d.proc_grid_rank = 1;
  d.start = 4;
  d.stop = 8;
  return d;
}
/// A valid cyclic ('c') dictionary: grid rank 1 of 2, blocks of 3.
dap_dimension cyclic_dim() {
  dap_dimension d;
  d.dist_type = 'c';
  d.size = 10;
  d.proc_grid_size = 2;
  d.proc_grid_rank = 1;
  d.start = 3;
  d.block_size = 3;
  return d;
}
/// A valid unstructured ('u') dictionary: positions 7, 1 and 4 of 10.
dap_dimension listed_dim() {
  dap_dimension d;
  d.dist_type = 'u';
  d.size = 10;
  d.indices = {7, 1, 4};
  d.one_to_one = true;
  return d;
}
/// `d` with `change` applied.
template <class F>
dap_dimension with(dap_dimension d, F&& change) {
  change(d);
  return d;
}

/// A valid description of this locale's 10 doubles in `buffer`: a 1-D block over all
/// locales (10 positions each).
dap_description<double, 1> valid_description(std::vector<double>& buffer) {
  buffer.assign(10, 0.0);
  dap_description<double, 1> x;
  x.buffer = buffer.data();
  x.shape = {10};
  x.strides = {1};
  dap_dimension& d = x.dim_data[0];
  d.dist_type = 'b';
  d.size = 10 * static_cast<index_t>(dmap::num_locales());
  d.proc_grid_size = dmap::num_locales();
  d.proc_grid_rank = dmap::here();
  d.start = 10 * static_cast<index_t>(dmap::here());
  d.stop = d.start + 10;
  return x;
}

}  // namespace

TEST_CASE("bad input: DAP dimension dictionaries breaking each rule", "[bad_input][dap]") {
  // The base dictionaries are valid: the checks below each break one rule.
  CHECK_NOTHROW(dmap::validate(block_dim()));
  CHECK_NOTHROW(dmap::validate(middle_block_dim()));
  CHECK_NOTHROW(dmap::validate(cyclic_dim()));
  CHECK_NOTHROW(dmap::validate(listed_dim()));

  // Every kind.
  BAD_INPUT("dap validate: dist_type 'x' (no such kind)", dmap::argument_error,
            dmap::validate(with(block_dim(), [](auto& d) { d.dist_type = 'x'; })));
  BAD_INPUT("dap validate: dist_type '\\0' (a control character)", dmap::argument_error,
            dmap::validate(with(block_dim(), [](auto& d) { d.dist_type = '\0'; })));
  BAD_INPUT("dap validate: dist_type '\"' (a JSON quote)", dmap::argument_error,
            dmap::validate(with(block_dim(), [](auto& d) { d.dist_type = '"'; })));
  BAD_INPUT("dap validate: dist_type 0xff (a byte above ASCII)", dmap::argument_error,
            dmap::validate(with(block_dim(), [](auto& d) { d.dist_type = static_cast<char>(0xff); })));
  BAD_INPUT("dap validate: size -1", dmap::argument_error,
            dmap::validate(with(block_dim(), [](auto& d) { d.size = -1; })));
  BAD_INPUT("dap validate: size INT64_MIN ('c')", dmap::argument_error,
            dmap::validate(with(cyclic_dim(), [](auto& d) { d.size = int64_min; })));
  BAD_INPUT("dap validate: proc_grid_size 0", dmap::argument_error,
            dmap::validate(with(block_dim(), [](auto& d) { d.proc_grid_size = 0; })));
  BAD_INPUT("dap validate: proc_grid_size INT_MIN", dmap::argument_error,
            dmap::validate(with(listed_dim(), [](auto& d) { d.proc_grid_size = INT_MIN; })));
  BAD_INPUT("dap validate: proc_grid_rank == proc_grid_size", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.proc_grid_rank = 3; })));
  BAD_INPUT("dap validate: proc_grid_rank -1", dmap::argument_error,
            dmap::validate(with(cyclic_dim(), [](auto& d) { d.proc_grid_rank = -1; })));
  BAD_INPUT("dap validate: proc_grid_rank INT_MAX", dmap::argument_error,
            dmap::validate(with(listed_dim(), [](auto& d) { d.proc_grid_rank = INT_MAX; })));

  // 'u'.
  BAD_INPUT("dap validate 'u': an index -1", dmap::argument_error,
            dmap::validate(with(listed_dim(), [](auto& d) { d.indices.push_back(-1); })));
  BAD_INPUT("dap validate 'u': an index == size", dmap::argument_error,
            dmap::validate(with(listed_dim(), [](auto& d) { d.indices.insert(d.indices.begin(), 10); })));
  BAD_INPUT("dap validate 'u': an index INT64_MAX", dmap::argument_error,
            dmap::validate(with(listed_dim(), [](auto& d) { d.indices[1] = int64_max; })));
  BAD_INPUT("dap validate 'u': an index INT64_MIN", dmap::argument_error,
            dmap::validate(with(listed_dim(), [](auto& d) { d.indices[2] = int64_min; })));
  BAD_INPUT("dap validate 'u': one index listed twice", dmap::argument_error,
            dmap::validate(with(listed_dim(), [](auto& d) { d.indices.push_back(7); })));

  // 'b'.
  BAD_INPUT("dap validate 'b': start -1", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.start = -1; })));
  BAD_INPUT("dap validate 'b': start INT64_MIN", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.start = int64_min; })));
  BAD_INPUT("dap validate 'b': stop < start", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.stop = 3; })));
  BAD_INPUT("dap validate 'b': stop > size", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.stop = 13; })));
  BAD_INPUT("dap validate 'b': stop INT64_MAX", dmap::argument_error,
            dmap::validate(with(block_dim(), [](auto& d) { d.stop = int64_max; })));
  BAD_INPUT("dap validate 'b': start INT64_MAX past stop and size", dmap::argument_error,
            dmap::validate(with(block_dim(), [](auto& d) { d.start = int64_max; })));
  BAD_INPUT("dap validate 'b': padding[0] -1", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.padding = {-1, 0}; })));
  BAD_INPUT("dap validate 'b': padding[1] INT64_MIN", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.padding = {0, int64_min}; })));
  BAD_INPUT("dap validate 'b': padding[0] wider than stop - start", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.padding = {5, 0}; })));
  BAD_INPUT("dap validate 'b': both paddings together wider than stop - start", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.padding = {3, 2}; })));
  BAD_INPUT("dap validate 'b': padding[0] INT64_MAX", dmap::argument_error,
            dmap::validate(with(block_dim(), [](auto& d) { d.padding = {int64_max, 0}; })));
  BAD_INPUT("dap validate 'b': padding (1, INT64_MAX) (a sum past int64)", dmap::argument_error,
            dmap::validate(with(block_dim(), [](auto& d) { d.padding = {1, int64_max}; })));
  BAD_INPUT("dap validate 'b': start != 0 on grid rank 0", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.proc_grid_rank = 0; })));
  BAD_INPUT("dap validate 'b': stop != size on the last grid rank", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.proc_grid_rank = 2; })));
  BAD_INPUT("dap validate 'b': a padded buffer of no positions (stop == start, padding 1)", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.stop = 4, d.padding = {0, 1}; })));

  // 'c'.
  BAD_INPUT("dap validate 'c': block_size 0", dmap::argument_error,
            dmap::validate(with(cyclic_dim(), [](auto& d) { d.block_size = 0, d.start = 0; })));
  BAD_INPUT("dap validate 'c': block_size INT64_MIN", dmap::argument_error,
            dmap::validate(with(cyclic_dim(), [](auto& d) { d.block_size = int64_min; })));
  BAD_INPUT("dap validate 'c': start != proc_grid_rank * block_size", dmap::argument_error,
            dmap::validate(with(cyclic_dim(), [](auto& d) { d.start = 4; })));
  BAD_INPUT("dap validate 'c': start -1", dmap::argument_error,
            dmap::validate(with(cyclic_dim(), [](auto& d) { d.start = -1; })));
  BAD_INPUT("dap validate 'c': proc_grid_rank * block_size past int64 (2 * INT64_MAX)", dmap::argument_error,
            dmap::validate(with(cyclic_dim(), [](auto& d) {
              d.proc_grid_size = 3, d.proc_grid_rank = 2, d.block_size = int64_max, d.start = int64_max;
            })));
}

TEST_CASE("bad input: num_owned_indices and to_json refuse invalid dictionaries", "[bad_input][dap]") {
  // Never a division by zero, a negative count, or text that is not a valid dictionary.
  BAD_INPUT("dap num_owned_indices 'c': block_size 0 (no division by zero)", dmap::argument_error,
            dmap::num_owned_indices(with(cyclic_dim(), [](auto& d) { d.block_size = 0, d.start = 0; })));
  BAD_INPUT("dap num_owned_indices 'c': proc_grid_size 0 (no division by zero)", dmap::argument_error,
            dmap::num_owned_indices(with(cyclic_dim(), [](auto& d) { d.proc_grid_size = 0, d.proc_grid_rank = 0; })));
  BAD_INPUT("dap num_owned_indices 'b': padding wider than the buffer (no negative count)", dmap::argument_error,
            dmap::num_owned_indices(with(middle_block_dim(), [](auto& d) { d.padding = {4, 4}; })));
  BAD_INPUT("dap num_owned_indices 'u': an index outside [0, size)", dmap::argument_error,
            dmap::num_owned_indices(with(listed_dim(), [](auto& d) { d.indices.push_back(int64_max); })));
  BAD_INPUT("dap to_json: dist_type '\"' (never invalid JSON)", dmap::argument_error,
            dmap::to_json(with(block_dim(), [](auto& d) { d.dist_type = '"'; })));
  BAD_INPUT("dap to_json: dist_type '\\0' (never invalid JSON)", dmap::argument_error,
            dmap::to_json(with(block_dim(), [](auto& d) { d.dist_type = '\0'; })));
  BAD_INPUT("dap to_json 'c': block_size 0", dmap::argument_error,
            dmap::to_json(with(cyclic_dim(), [](auto& d) { d.block_size = 0, d.start = 0; })));
  BAD_INPUT("dap to_json 'u': one index listed twice", dmap::argument_error,
            dmap::to_json(with(listed_dim(), [](auto& d) { d.indices = {3, 3}; })));
  BAD_INPUT("dap to_json 'b': stop > size", dmap::argument_error,
            dmap::to_json(with(block_dim(), [](auto& d) { d.stop = 11; })));
  BAD_INPUT("dap to_json 'b': proc_grid_rank outside the grid", dmap::argument_error,
            dmap::to_json(with(middle_block_dim(), [](auto& d) { d.proc_grid_rank = 7; })));
}

TEST_CASE("bad input: DAP descriptions breaking each rule", "[bad_input][dap]") {
  std::vector<double> buffer;
  const auto valid = valid_description(buffer);
  CHECK_NOTHROW(dmap::validate(valid));
  const auto changed = [&](auto&& change) {
    auto x = valid;
    change(x);
    return x;
  };
  BAD_INPUT("dap description: version \"\"", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.version = ""; })));
  BAD_INPUT("dap description: version \"0.10\" (two parts)", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.version = "0.10"; })));
  BAD_INPUT("dap description: version \"0.10.0.1\" (four parts)", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.version = "0.10.0.1"; })));
  BAD_INPUT("dap description: version \"v0.10.0\" (not a digit)", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.version = "v0.10.0"; })));
  BAD_INPUT("dap description: version \"0..0\" (an empty part)", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.version = "0..0"; })));
  BAD_INPUT("dap description: version \"0.10.\" (an empty last part)", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.version = "0.10."; })));
  BAD_INPUT("dap description: buffer.shape != stop - start ('b')", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.shape = {9}; })));
  BAD_INPUT("dap description: buffer.shape -1", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.shape = {-1}; })));
  BAD_INPUT("dap description: buffer.shape != num_owned_indices ('c')", dmap::argument_error, dmap::validate(changed([](auto& x) {
              x.dim_data[0] = dap_dimension{'c', 10 * static_cast<index_t>(dmap::num_locales()), dmap::num_locales(),
                                            dmap::here(), static_cast<index_t>(dmap::here()), 0, {0, 0}, false, 1, {}, false};
              x.shape = {11};  // it owns 10
            })));
  BAD_INPUT("dap description: a null buffer holding elements", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.buffer = nullptr; })));
  BAD_INPUT("dap description: strides INT64_MAX (bytes past int64)", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.strides = {int64_max}; })));
  BAD_INPUT("dap description: strides INT64_MIN (bytes below int64)", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.strides = {int64_min}; })));
  BAD_INPUT("dap description: proc_grid_size product num_locales() + 1", dmap::argument_error,
            dmap::validate(changed([](auto& x) {
              auto& d = x.dim_data[0];
              d.proc_grid_size = dmap::num_locales() + 1;
              d.size = 10 * static_cast<index_t>(d.proc_grid_size);
            })));
  BAD_INPUT("dap description: an invalid dimension dictionary inside", dmap::argument_error,
            dmap::validate(changed([](auto& x) { x.dim_data[0].dist_type = 'q'; })));
  {
    // 2-D: proc_grid_sizes whose product passes 2^31 - 1 (no int overflow to a match), and an
    // invalid second dimension (the message names dimension 1).
    std::vector<double> two(10);
    dap_description<double, 2> x;
    x.buffer = two.data();
    x.shape = {10, 1};
    x.strides = {1, 1};
    x.dim_data[0] = valid.dim_data[0];
    x.dim_data[1] = dap_dimension{'b', 1, 1, 0, 0, 1, {0, 0}, false, 1, {}, false};
    CHECK_NOTHROW(dmap::validate(x));
    auto huge = x;
    huge.dim_data[1] = dap_dimension{'c', 1, INT_MAX, 0, 0, 0, {0, 0}, false, 1, {}, false};
    huge.dim_data[0].proc_grid_size = INT_MAX;
    huge.dim_data[0].size = int64_max;
    huge.dim_data[0].start = 0, huge.dim_data[0].stop = 10, huge.dim_data[0].proc_grid_rank = 0;
    huge.dim_data[0].dist_type = 'c', huge.dim_data[0].block_size = 10;
    huge.shape = {dmap::num_owned_indices(huge.dim_data[0]), 1};  // all else valid: the grid check must fail
    BAD_INPUT("dap description: proc_grid_size product INT_MAX * INT_MAX", dmap::argument_error, dmap::validate(huge));
    auto second = x;
    second.dim_data[1].stop = 2;
    BAD_INPUT("dap description: dimension 1 breaks a rule (stop > size)", dmap::argument_error,
              dmap::validate(second));
  }
  BAD_INPUT("dap to_json(description): version \"0.10.0\\\"\" (never invalid JSON)", dmap::argument_error,
            dmap::to_json(changed([](auto& x) { x.version = "0.10.0\""; })));
  BAD_INPUT("dap to_json(description): a null buffer holding elements", dmap::argument_error,
            dmap::to_json(changed([](auto& x) { x.buffer = nullptr; })));
}

TEST_CASE("bad input: dap_export of arrays DAP cannot describe", "[bad_input][dap]") {
  const int p = dmap::num_locales();
  BAD_INPUT_DO("dap_export: a moved-from array", dmap::argument_error, {
    dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 10)});
    dmap::array<double, 1> A(D), B(std::move(A));
    (void)dmap::dap_export(A);
  });
  BAD_INPUT_DO("dap_export: a replicated array", dmap::unsupported_error, {
    dmap::domain<1> D(dmap::replicated<1>{}, rect<1>{range(0, 10)});
    dmap::array<double, 1> A(D);
    (void)dmap::dap_export(A);
  });
  BAD_INPUT_DO("dap_export: a 2-D hashed array (indices placed one by one)", dmap::unsupported_error, {
    dmap::domain<2> D(dmap::hashed<2>{}, rect<2>{range(0, 4), range(0, 5)});
    dmap::array<double, 2> A(D);
    (void)dmap::dap_export(A);
  });
  // Deals by value over strided domains, explicit starts and descending dimensions are no
  // longer refused: the export lists their positions ('u'; tests/interop/test_dap_examples.cpp).
  BAD_INPUT_DO("dap_export: a version dmap does not write", dmap::unsupported_error, {
    dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 10)});
    dmap::array<double, 1> A(D);
    (void)dmap::dap_export(A, "1.0.0");
  });
  BAD_INPUT_DO("dap_export: a version that is not major.minor.patch", dmap::argument_error, {
    dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 10)});
    dmap::array<double, 1> A(D);
    (void)dmap::dap_export(A, "0.10");
  });
  BAD_INPUT("padded: cut points that decrease", dmap::argument_error,
            dmap::padded<1>({std::vector<index_t>{5, 2}}, {std::vector<dmap::padding_widths>(3)},
                            {false}, dmap::target_grid<1>({3}, 3)));
  BAD_INPUT("padded: a negative padding width", dmap::argument_error,
            dmap::padded<1>({std::vector<index_t>(static_cast<std::size_t>(p - 1), 0)},
                            {std::vector<dmap::padding_widths>(static_cast<std::size_t>(p), {0, -1})}));
  BAD_INPUT_DO("padded: a frame past INT64_MAX", dmap::argument_error, {
    dmap::domain<1> D(dmap::padded<1>({std::vector<index_t>(static_cast<std::size_t>(p - 1), int64_max - 1)},
                                      {std::vector<dmap::padding_widths>(static_cast<std::size_t>(p), {0, 5})}),
                      rect<1>{range(int64_max - 3, int64_max - 1)});
  });
  BAD_INPUT_DO("array adopting a foreign buffer of size INT64_MIN", dmap::argument_error, {
    dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 10)});
    std::vector<double> b(10);
    dmap::array<double, 1> A(D, dmap::foreign_buffer<double, 1>{b.data(), int64_min, {1}});
  });
  BAD_INPUT_DO("array adopting a null foreign buffer of size INT64_MAX", dmap::argument_error, {
    dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 10 * p)});
    dmap::array<double, 1> A(D, dmap::foreign_buffer<double, 1>{nullptr, int64_max, {1}});
  });
  BAD_INPUT_DO("dap_import: size INT64_MAX on a block dimension", dmap::argument_error, {
    dmap::dap_description<double, 1> x;
    x.dim_data[0].size = int64_max;
    x.dim_data[0].proc_grid_size = p;
    x.dim_data[0].proc_grid_rank = dmap::here();
    x.dim_data[0].start = dmap::here() == 0 ? 0 : int64_max;
    x.dim_data[0].stop = int64_max;
    (void)dmap::dap_import(x);
  });
  if (p >= 2) {
    BAD_INPUT_DO("dap_export: a stencil array whose last grid rank owns nothing", dmap::unsupported_error, {
      dmap::domain<1> D(dmap::stencil<1>{idx<1>{1}}, rect<1>{range(0, 1)});
      dmap::array<double, 1> A(D);
      (void)dmap::dap_export(A);
    });
  }
}

TEST_CASE("bad input: DAP empty buffers and periodic padding that lie", "[bad_input][dap]") {
  const int p = dmap::num_locales();
  const int k = dmap::here();
  // start == size marks an empty buffer (DAP's "Empty local buffers"), and only that.
  BAD_INPUT("dap validate 'c': start == size on a grid rank the deal gives a block", dmap::argument_error,
            dmap::validate(with(cyclic_dim(), [](auto& d) { d.start = d.size; })));
  BAD_INPUT("dap validate 'c': start == size on grid rank 0 of a nonempty dimension", dmap::argument_error,
            dmap::validate(with(cyclic_dim(), [](auto& d) { d.proc_grid_rank = 0, d.start = d.size; })));
  BAD_INPUT("dap validate 'b': start == size with padding (0.10)", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.start = d.stop = 12, d.padding = {0, 1}; })));
  BAD_INPUT("dap validate 'b': start == size with communication padding (0.9)", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.start = d.stop = 12, d.padding = {1, 1}; }), 9));
  BAD_INPUT("dap validate 'b': start == size past stop (stop < start)", dmap::argument_error,
            dmap::validate(with(middle_block_dim(), [](auto& d) { d.start = 12, d.stop = 8; })));
  // A periodic dimension's edge padding counts in size (0.10): a start below 0 or a stop past
  // size is the padding lying about where the buffer sits.
  const auto ring = [](int rank, int ranks) {
    dap_dimension d;
    d.dist_type = 'b';
    d.size = 3 * static_cast<index_t>(ranks) + 2;
    d.proc_grid_size = ranks;
    d.proc_grid_rank = rank;
    d.periodic = true;
    d.padding = {1, 1};
    d.start = 3 * static_cast<index_t>(rank);
    d.stop = d.start + 5;
    return d;
  };
  CHECK_NOTHROW(dmap::validate(ring(0, 2)));
  CHECK_NOTHROW(dmap::validate(ring(1, 2)));
  BAD_INPUT("dap validate 'b' periodic: start -padding[0] on grid rank 0 (edge padding outside size)",
            dmap::argument_error, dmap::validate(with(ring(0, 2), [](auto& d) { d.start = -1, d.stop = 4, d.size = 6; })));
  BAD_INPUT("dap validate 'b' periodic: stop size + padding[1] on the last grid rank", dmap::argument_error,
            dmap::validate(with(ring(1, 2), [](auto& d) { d.size = 7; })));
  BAD_INPUT("dap validate 'b' periodic: padding wider than the buffer", dmap::argument_error,
            dmap::validate(with(ring(0, 1), [](auto& d) { d.padding = {3, 3}; })));
  // Descriptions every locale passes to dap_import: refused on every locale.
  const auto import_ring = [&](auto&& change) {
    std::vector<double> buffer(16, 0.0);
    dap_description<double, 1> x;
    x.dim_data[0] = ring(k, p);
    change(x.dim_data[0]);
    x.shape = {x.dim_data[0].stop - x.dim_data[0].start};
    x.strides = {1};
    x.buffer = buffer.data();
    (void)dmap::dap_import(x);
  };
  BAD_INPUT_DO("dap_import periodic: edge padding 1 before grid rank 0, 2 after the last", dmap::argument_error, {
    import_ring([&](dap_dimension& d) {
      d.size += 1;
      if (k == p - 1) d.padding[1] = 2, d.stop += 1;
    });
  });
  BAD_INPUT_DO("dap_import periodic: edge padding outside [0, size) (start -1, size without the edges)",
               dmap::argument_error, {
                 import_ring([&](dap_dimension& d) {
                   d.size -= 2;
                   d.start -= 1, d.stop -= 1;
                 });
               });
  if (p >= 2) {
    BAD_INPUT_DO("dap_import periodic: communication padding wider than the neighbour's indices", dmap::argument_error, {
      import_ring([&](dap_dimension& d) {
        d.padding = {k == 0 ? 1 : 4, k == p - 1 ? 1 : 4};
        d.start = 3 * static_cast<index_t>(k) + 1 - d.padding[0];
        d.stop = 3 * static_cast<index_t>(k) + 4 + d.padding[1];
      });
    });
    BAD_INPUT_DO("dap_import 'b': grid rank 0 says start == size, the next one starts past 0", dmap::argument_error, {
      std::vector<double> buffer(8, 0.0);
      dap_description<double, 1> x;
      dap_dimension& d = x.dim_data[0];
      d.dist_type = 'b';
      d.size = 4 * static_cast<index_t>(p);
      d.proc_grid_size = p;
      d.proc_grid_rank = k;
      d.start = k == 0 ? d.size : 4 * static_cast<index_t>(k);
      d.stop = k == 0 ? d.size : d.start + 4;
      x.shape = {d.stop - d.start};
      x.strides = {1};
      x.buffer = buffer.data();
      (void)dmap::dap_import(x);
    });
    BAD_INPUT_DO("dap_import 'c': the last grid rank says start == size but is dealt a block", dmap::argument_error, {
      std::vector<double> buffer(8, 0.0);
      dap_description<double, 1> x;
      dap_dimension& d = x.dim_data[0];
      d.dist_type = 'c';
      d.size = 2 * static_cast<index_t>(p);
      d.proc_grid_size = p;
      d.proc_grid_rank = k;
      d.block_size = 2;
      d.start = k == p - 1 ? d.size : 2 * static_cast<index_t>(k);
      x.shape = {2};
      x.strides = {1};
      x.buffer = buffer.data();
      (void)dmap::dap_import(x);
    });
  }
}

TEST_CASE("bad input: DAP JSON nested 200,000 deep fails on every locale, never overflows the stack",
          "[bad_input][dap]") {
  // nlohmann's parser copes with any depth, but printing or copying such a value recurses once
  // per level: dmap must refuse the text past a documented depth before it describes any part.
  const int p = dmap::num_locales(), k = dmap::here();
  std::vector<double> buffer(4, 1.0);
  const std::string dims = "[{\"dist_type\": \"b\", \"size\": " + std::to_string(4 * p) +
                           ", \"proc_grid_size\": " + std::to_string(p) + ", \"proc_grid_rank\": " + std::to_string(k) +
                           ", \"start\": " + std::to_string(4 * k) + ", \"stop\": " + std::to_string(4 * k + 4) + "}]";
  const auto text = [&](const std::string& version, const std::string& dim_data) {
    return "{\"__version__\": " + version + ", \"buffer\": {\"shape\": [4], \"itemsize\": 8}, \"dim_data\": " +
           dim_data + "}";
  };
  const std::string good = text("\"0.10.0\"", dims);
  const std::string arrays = std::string(200000, '[') + std::string(200000, ']');
  std::string objects;
  for (int d = 0; d < 200000; ++d) objects += "{\"a\": ";
  objects += "0" + std::string(200000, '}');
  const std::vector<std::pair<std::string, std::string>> deep = {
      {"the whole text: 200,000 nested arrays", arrays},
      {"the whole text: 200,000 nested objects", objects},
      {"'__version__': 200,000 nested arrays", text(arrays, dims)},
      {"'__version__': 200,000 nested objects", text(objects, dims)},
      {"'dim_data': 200,000 nested arrays", text("\"0.10.0\"", arrays)},
      {"'buffer': 200,000 nested arrays", "{\"__version__\": \"0.10.0\", \"buffer\": " + arrays + "}"},
      {"'size' of a dimension: 200,000 nested arrays",
       text("\"0.10.0\"", "[{\"dist_type\": \"b\", \"size\": " + arrays + "}]")},
  };
  for (const auto& [where, bad] : deep) {
    BAD_INPUT("dap_from_json: " + where, dmap::argument_error, dmap::dap_from_json<double, 1>(bad, buffer.data()));
    BAD_INPUT("dap_import_json: " + where, dmap::argument_error, dmap::dap_import_json<double, 1>(bad, buffer.data()));
    CHECK(dmap::bad_input::census().insert("dap_import_json on one locale: " + where).second);
    CHECK_NO_FAILURE((dmap::bad_input::fails_from<dmap::argument_error, dmap::argument_error>(
        p - 1, [&] { (void)dmap::dap_import_json<double, 1>(k == p - 1 ? bad : good, buffer.data()); })));
  }
  // The error names the limit; text within it is read as before.
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
      [&] { (void)dmap::dap_from_json<double, 1>(arrays, buffer.data()); },
      "nested deeper than " + std::to_string(dmap::dap_json_depth_limit)));
  const std::string within = std::string(dmap::dap_json_depth_limit - 1, '[') + std::string(dmap::dap_json_depth_limit - 1, ']');
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
      [&] { (void)dmap::dap_from_json<double, 1>(text(within, dims), buffer.data()); }, "'__version__' is array"));
  auto A = dmap::dap_import_json<double, 1>(good, buffer.data());
  DMAP_CHECK_ALL(A.adopted());
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

}  // namespace test_bad_dap
