// The exceptions dmap throws: each names the argument, the value and the rule it broke.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace dmap {

/// Which family an error belongs to; lets a rank rebuild the same exception type it
/// learnt about from another rank (error agreement, runtime/agreement.hpp).
enum class error_kind : std::int32_t {
  generic = 0,
  argument = 1,
  shape = 2,
  not_local = 3,
  out_of_bounds = 4,
  unsupported = 5,
  runtime = 6,
  io = 7,
  format = 8,
};

/// Base of every exception dmap throws.
class error : public std::runtime_error {
 public:
  /// An error carrying `message`, of family `kind`.
  explicit error(const std::string& message, error_kind kind = error_kind::generic)
      : std::runtime_error(message), kind_(kind) {}
  /// The family of this error.
  error_kind kind() const noexcept { return kind_; }

 private:
  error_kind kind_;
};

/// An argument broke a documented rule (block size 0, stride 0, bad grid shape, ...).
class argument_error : public error {
 public:
  /// An argument_error carrying `message`.
  explicit argument_error(const std::string& message) : error(message, error_kind::argument) {}
};

/// Operands of an operation have different shapes (zip, assignment).
class shape_error : public error {
 public:
  /// A shape_error carrying `message`.
  explicit shape_error(const std::string& message) : error(message, error_kind::shape) {}
};

/// A local-only access (`A.local(i)`) named an index this locale does not own.
class not_local_error : public error {
 public:
  /// A not_local_error carrying `message`.
  explicit not_local_error(const std::string& message) : error(message, error_kind::not_local) {}
};

/// An index lies outside the domain it was used with.
class out_of_bounds_error : public error {
 public:
  /// An out_of_bounds_error carrying `message`.
  explicit out_of_bounds_error(const std::string& message)
      : error(message, error_kind::out_of_bounds) {}
};

/// The request is valid but not supported (yet) by this version of dmap.
class unsupported_error : public error {
 public:
  /// An unsupported_error carrying `message`.
  explicit unsupported_error(const std::string& message)
      : error(message, error_kind::unsupported) {}
};

/// The communication layer (MPI) or the environment failed.
class runtime_error : public error {
 public:
  /// A runtime_error carrying `message`.
  explicit runtime_error(const std::string& message) : error(message, error_kind::runtime) {}
};

/// A file could not be opened, created, read, written or renamed, or ended too early (a
/// truncated file): the message names the path and what the system said.
class io_error : public error {
 public:
  /// An io_error carrying `message`.
  explicit io_error(const std::string& message) : error(message, error_kind::io) {}
};

/// A file's contents are not what was asked for: not an .npy or HDF5 file, a missing dataset,
/// another element type or storage order than the array's.
class format_error : public error {
 public:
  /// A format_error carrying `message`.
  explicit format_error(const std::string& message) : error(message, error_kind::format) {}
};

/// Throws the dmap exception of family `kind` carrying `message`.
[[noreturn]] inline void throw_error(error_kind kind, const std::string& message) {
  switch (kind) {
    case error_kind::argument: throw argument_error(message);
    case error_kind::shape: throw shape_error(message);
    case error_kind::not_local: throw not_local_error(message);
    case error_kind::out_of_bounds: throw out_of_bounds_error(message);
    case error_kind::unsupported: throw unsupported_error(message);
    case error_kind::runtime: throw runtime_error(message);
    case error_kind::io: throw io_error(message);
    case error_kind::format: throw format_error(message);
    case error_kind::generic: break;
  }
  throw error(message);
}

/// The same failure, seen on a locale other than the one that raised it.
/// `what()` is the original message; `origin()` the locale that raised it.
template <class Base>
class remote_failure : public Base {
 public:
  /// The failure `message`, first raised on locale `origin`.
  remote_failure(const std::string& message, int origin) : Base(message), origin_(origin) {}
  /// The locale on which the error was first raised.
  int origin() const noexcept { return origin_; }

 private:
  int origin_;
};

}  // namespace dmap
