// heat_png: the C++ heat demo's PNG encoder and colour map (examples/heat/png_writer.hpp) for
// examples/python/heat.py, so that the Python heat example writes its picture with the same
// libpng calls as the C++ one: equal fields give byte-identical files. Built by
// cmake/dmapPython.cmake (target heat_png, into <build>/python next to the package dmap).
//
//   heat_png.heat_colour(t)            -> (r, g, b) of one temperature
//   heat_png.heat_colours(field)       -> uint8 array of field.shape + (3,) (every element)
//   heat_png.write_png(path, pixels)   pixels: uint8 (height, width, 3), C order, top row first
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "../heat/png_writer.hpp"

namespace py = pybind11;

PYBIND11_MODULE(heat_png, m) {
  m.doc() = "The C++ heat demo's colour map and PNG writer (examples/heat/png_writer.hpp), for examples/python/heat.py.";

  m.def(
      "heat_colour",
      [](double t) {
        const heat::rgb c = heat::heat_colour(t);
        return std::make_tuple(int{c.r}, int{c.g}, int{c.b});
      },
      py::arg("t"), "heat::heat_colour(t): the 8-bit (r, g, b) of the temperature t (clamped to [0, 1]).");

  m.def(
      "heat_colours",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& field) {
        std::vector<py::ssize_t> shape(field.shape(), field.shape() + field.ndim());
        shape.push_back(3);
        py::array_t<std::uint8_t> out(shape);
        const double* in = field.data();
        std::uint8_t* p = out.mutable_data();
        const auto count = static_cast<std::size_t>(field.size());
        for (std::size_t k = 0; k < count; ++k) {
          const heat::rgb c = heat::heat_colour(in[k]);
          p[3 * k] = c.r;
          p[3 * k + 1] = c.g;
          p[3 * k + 2] = c.b;
        }
        return out;
      },
      py::arg("field"), "heat::heat_colour of every element: a uint8 array of shape field.shape + (3,).");

  m.def(
      "write_png",
      [](const std::string& path, const py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>& pixels) {
        if (pixels.ndim() != 3 || pixels.shape(2) != 3)
          throw std::invalid_argument("heat_png.write_png: " + path + ": pixels must have shape (height, width, 3)");
        const auto height = static_cast<std::size_t>(pixels.shape(0)), width = static_cast<std::size_t>(pixels.shape(1));
        const std::vector<std::uint8_t> bytes(pixels.data(), pixels.data() + pixels.size());
        heat::write_png(path, width, height, bytes);  // std::runtime_error -> Python RuntimeError
      },
      py::arg("path"), py::arg("pixels"),
      "heat::write_png: writes pixels (uint8, shape (height, width, 3), top row first) as an 8-bit RGB PNG "
      "with the C++ heat demo's libpng settings.");
}
