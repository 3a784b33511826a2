// A minimal 8-bit RGB PNG writer on Debian's libpng (link PNG::PNG), and the colour map the
// heat example paints its field with. Writes no time stamp or other varying chunk, so equal
// pixels give byte-identical files.
#pragma once

#include <png.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace heat {

/// An 8-bit RGB colour.
struct rgb {
  std::uint8_t r, g, b;
};

/// A black-body ("inferno-like") ramp: 0 -> black, through purple, red and orange, 1 -> pale
/// yellow. Piecewise linear between nine control colours; values outside [0, 1] (and NaN)
/// are clamped.
inline rgb heat_colour(double t) {
  static constexpr std::array<rgb, 9> stops{{{0, 0, 4},
                                              {31, 12, 72},
                                              {85, 15, 109},
                                              {136, 34, 106},
                                              {186, 54, 85},
                                              {227, 89, 51},
                                              {249, 140, 10},
                                              {249, 201, 50},
                                              {252, 255, 164}}};
  if (!(t > 0.0)) t = 0.0;  // also catches NaN
  if (t > 1.0) t = 1.0;
  const double x = t * static_cast<double>(stops.size() - 1);
  const std::size_t k = std::min(static_cast<std::size_t>(x), stops.size() - 2);
  const double f = x - static_cast<double>(k);
  const auto mix = [f](std::uint8_t a, std::uint8_t b) {
    return static_cast<std::uint8_t>(std::lround(a + (static_cast<double>(b) - a) * f));
  };
  return {mix(stops[k].r, stops[k + 1].r), mix(stops[k].g, stops[k + 1].g),
          mix(stops[k].b, stops[k + 1].b)};
}

namespace detail {

/// Where libpng's error callback leaves its message before jumping back.
struct png_failure {
  char message[256];
};

inline void png_on_error(png_structp png, png_const_charp message) {
  auto* failure = static_cast<png_failure*>(png_get_error_ptr(png));
  std::snprintf(failure->message, sizeof failure->message, "%s", message);
  png_longjmp(png, 1);
}
inline void png_on_warning(png_structp, png_const_charp) {}

/// Writes the image to an open file; C-style (no C++ objects live across the setjmp).
/// Returns false with `failure.message` set when libpng reports an error.
inline bool write_png_stream(std::FILE* file, png_uint_32 width, png_uint_32 height,
                             const std::uint8_t* pixels, png_failure& failure) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &failure, png_on_error, png_on_warning);
  if (png == nullptr) {
    std::snprintf(failure.message, sizeof failure.message, "png_create_write_struct failed");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    std::snprintf(failure.message, sizeof failure.message, "png_create_info_struct failed");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, file);
  png_set_compression_level(png, 6);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const std::size_t row_bytes = static_cast<std::size_t>(width) * 3;
  for (png_uint_32 y = 0; y < height; ++y) png_write_row(png, pixels + y * row_bytes);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace detail

/// Writes `pixels` (height rows of width RGB triples, top row first) to `path` as an 8-bit
/// RGB PNG. Throws std::runtime_error naming the file and the cause on failure.
inline void write_png(const std::string& path, std::size_t width, std::size_t height,
                      const std::vector<std::uint8_t>& pixels) {
  if (width == 0 || height == 0 || width > PNG_UINT_31_MAX || height > PNG_UINT_31_MAX)
    throw std::runtime_error("write_png: " + path + ": bad image size " + std::to_string(width) +
                             " x " + std::to_string(height));
  if (pixels.size() != width * height * 3)
    throw std::runtime_error("write_png: " + path + ": " + std::to_string(pixels.size()) +
                             " bytes of pixels for a " + std::to_string(width) + " x " +
                             std::to_string(height) + " RGB image");
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr)
    throw std::runtime_error("write_png: cannot open " + path + " for writing: " + std::strerror(errno));
  detail::png_failure failure{};
  const bool written = detail::write_png_stream(file, static_cast<png_uint_32>(width),
                                                static_cast<png_uint_32>(height), pixels.data(), failure);
  const bool closed = std::fclose(file) == 0;
  if (!written) throw std::runtime_error("write_png: " + path + ": libpng: " + failure.message);
  if (!closed) throw std::runtime_error("write_png: " + path + ": closing failed: " + std::strerror(errno));
}

}  // namespace heat
