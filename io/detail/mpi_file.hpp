// MPI-IO for dmap's file formats: a collectively opened file whose every failure reaches all
// locales as the same io_error, collective reads and writes of one locale's share of an array
// (file_part) through a file view, and the write-then-rename protocol that never leaves a
// half-written file under its final name (and its recovery rule, committed_file).
#pragma once

#include <mpi.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/environment.hpp"
#include "../../runtime/errors.hpp"
#include "file_part.hpp"

namespace dmap::detail {

/// MPI's text for error code `code`, with its class name where MPI-IO gives one.
inline std::string mpi_error_text(int code) {
  int error_class = 0;
  MPI_Error_class(code, &error_class);
  std::string name;
  switch (error_class) {
    case MPI_ERR_NO_SUCH_FILE: name = "no such file or directory"; break;
    case MPI_ERR_ACCESS: name = "permission denied"; break;
    case MPI_ERR_FILE_EXISTS: name = "the file exists"; break;
    case MPI_ERR_NO_SPACE: name = "no space left on the device"; break;
    case MPI_ERR_QUOTA: name = "quota exceeded"; break;
    case MPI_ERR_READ_ONLY: name = "read-only file system"; break;
    case MPI_ERR_BAD_FILE: name = "not a valid file name"; break;
    case MPI_ERR_IO: name = "input/output error"; break;
    default: break;
  }
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  std::string out(text, static_cast<std::size_t>(length));
  return name.empty() ? out : name + " (" + out + ")";
}

/// An MPI datatype freed on destruction.
class owned_datatype {
 public:
  owned_datatype() = default;
  explicit owned_datatype(MPI_Datatype t) : t_(t) {}
  owned_datatype(owned_datatype&& o) noexcept : t_(std::exchange(o.t_, MPI_DATATYPE_NULL)) {}
  owned_datatype& operator=(owned_datatype&& o) noexcept {
    std::swap(t_, o.t_);
    return *this;
  }
  ~owned_datatype() {
    if (t_ != MPI_DATATYPE_NULL) MPI_Type_free(&t_);
  }
  MPI_Datatype get() const noexcept { return t_; }

 private:
  MPI_Datatype t_ = MPI_DATATYPE_NULL;
};

/// Throws io_error "`who`: `what`: <MPI's text>" unless `code` is MPI_SUCCESS.
inline void check_mpi_io(int code, const std::string& who, const std::string& what) {
  if (code != MPI_SUCCESS) throw io_error(who + ": " + what + ": " + mpi_error_text(code));
}

/// Throws io_error naming `who` and `shown` (the user's name for it) unless MPI can open a file
/// named `path`: Open MPI's OMPIO formats "<path>.locktest.<rank>" into a 256-byte buffer at
/// every MPI_File_open (sharedfp/lockedfile) and aborts the process on a longer name.
inline void check_mpi_file_name(const std::string& path, const std::string& who, const std::string& shown) {
#ifdef OPEN_MPI
  const std::size_t longest = 256 - 1 - 10 - std::to_string(num_locales() - 1).size();
  if (path.size() > longest)
    throw io_error(who + ": cannot open '" + shown + "': Open MPI's MPI-IO takes file names of at most " +
                   std::to_string(longest) + " characters" +
                   (path != shown ? " ('" + path + "' has " : " (it has ") + std::to_string(path.size()) + ")");
#else
  (void)path, (void)who, (void)shown;
#endif
}

/// The arguments of collective file call `who` that every locale must pass alike: `path`, as
/// given and as this locale resolves it (std::filesystem::absolute: its working directory), and
/// `more` (object names). Agreed by the call's first agreement (runtime/agreement.hpp): a path
/// naming another file on one locale is an argument_error on every locale. `who` must outlive
/// the agreement.
inline call_arguments file_arguments(const std::string& who, const std::string& path, const std::string& more = {}) {
  std::error_code ec;
  const std::string resolved = path.empty() ? std::string() : std::filesystem::absolute(path, ec).lexically_normal().string();
  fingerprint f;
  f.add(path).add(std::size_t{path.size()}).add(resolved).add(std::size_t{resolved.size()}).add(more);
  return {who.c_str(), f.value(), [path, resolved, more] {
            std::string shown = "path '" + path + "'";
            if (resolved != path) shown += " (here '" + resolved + "')";
            if (!more.empty()) shown += ", " + more;
            return shown;
          }};
}

/// Not collective. Throws io_error naming `who` and `shown` (the user's name for it) unless
/// this locale can open `path`: reading, it exists and is neither a directory nor a FIFO;
/// creating (`creating`), its directory exists. The caller agrees the verdict.
inline void check_file_here(const std::string& path, bool creating, const std::string& who, const std::string& shown) {
  const std::string on = num_locales() > 1 ? " (on locale " + std::to_string(here()) + ")" : std::string();
  struct stat st {};
  if (creating) {
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    if (::stat(dir.c_str(), &st) != 0)
      throw io_error(who + ": cannot create '" + shown + "': its directory '" + dir + "': " + std::strerror(errno) + on);
    if (!S_ISDIR(st.st_mode))
      throw io_error(who + ": cannot create '" + shown + "': '" + dir + "' is not a directory" + on);
    return;
  }
  if (::stat(path.c_str(), &st) != 0)
    throw io_error(who + ": cannot open '" + shown + "': " + std::strerror(errno) + on);
  if (S_ISDIR(st.st_mode) || S_ISFIFO(st.st_mode))
    throw io_error(who + ": cannot open '" + shown + "': it is " +
                   (S_ISDIR(st.st_mode) ? "a directory" : "a FIFO (named pipe), not a file") + on);
}

/// A committed datatype of the runs' elements: at their positions (`file`: byte displacement
/// position * element bytes, ascending) or at their memory offsets. Runs longer than 2^31 - 1
/// elements are split.
inline owned_datatype run_type(const std::vector<file_run>& runs, std::size_t element_bytes, bool file,
                         const std::string& who) {
  std::vector<file_run> split;
  const std::vector<file_run>* use = &runs;
  for (const auto& r : runs)
    if (r.count > INT_MAX) {
      for (const auto& q : runs)
        for (index_t done = 0; done < q.count; done += INT_MAX)
          split.push_back({q.position + done * q.step, std::min<index_t>(INT_MAX, q.count - done), q.step,
                           q.memory + done * q.memory_step, q.memory_step});
      use = &split;
      break;
    }
  const auto& rs = *use;
  if (rs.size() > static_cast<std::size_t>(INT_MAX))
    throw unsupported_error(who + ": this locale's part has more than 2^31 - 1 runs of positions");
  MPI_Datatype element_raw = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(static_cast<int>(element_bytes), MPI_BYTE, &element_raw);
  const owned_datatype element(element_raw);
  const auto bytes = static_cast<MPI_Aint>(element_bytes);
  const auto start = [&](const file_run& r) { return (file ? r.position : r.memory) * bytes; };
  const auto step = [&](const file_run& r) { return (file ? r.step : r.memory_step); };
  bool unit = true;
  for (const auto& r : rs) unit = unit && (r.count == 1 || step(r) == 1);
  MPI_Datatype out = MPI_DATATYPE_NULL;
  const int n = static_cast<int>(rs.size());
  if (unit) {
    std::vector<int> lengths(rs.size());
    std::vector<MPI_Aint> displacements(rs.size());
    for (std::size_t k = 0; k < rs.size(); ++k) {
      lengths[k] = static_cast<int>(rs[k].count);
      displacements[k] = start(rs[k]);
    }
    MPI_Type_create_hindexed(n, lengths.data(), displacements.data(), element.get(), &out);
  } else {
    std::map<std::pair<index_t, index_t>, owned_datatype> strided;  // (count, step) -> hvector
    std::vector<int> lengths(rs.size());
    std::vector<MPI_Aint> displacements(rs.size());
    std::vector<MPI_Datatype> types(rs.size());
    for (std::size_t k = 0; k < rs.size(); ++k) {
      const file_run& r = rs[k];
      displacements[k] = start(r);
      if (r.count == 1 || step(r) == 1) {
        lengths[k] = static_cast<int>(r.count);
        types[k] = element.get();
        continue;
      }
      auto& t = strided[{r.count, step(r)}];
      if (t.get() == MPI_DATATYPE_NULL) {
        MPI_Datatype v = MPI_DATATYPE_NULL;
        MPI_Type_create_hvector(static_cast<int>(r.count), 1, step(r) * bytes, element.get(), &v);
        t = owned_datatype(v);
      }
      lengths[k] = 1;
      types[k] = t.get();
    }
    MPI_Type_create_struct(n, lengths.data(), displacements.data(), types.data(), &out);
  }
  MPI_Type_commit(&out);
  return owned_datatype(out);
}

/// True when the runs' elements lie one after another in memory in the runs' order.
inline bool memory_in_file_order(const std::vector<file_run>& runs) {
  for (std::size_t k = 0; k < runs.size(); ++k) {
    if (runs[k].count > 1 && runs[k].memory_step != 1) return false;
    if (k > 0 && runs[k].memory != runs[k - 1].memory + runs[k - 1].count) return false;
  }
  return true;
}

/// A file opened by every locale (MPI_File_open on dmap's communicator). Every call is
/// collective unless it says otherwise, and a failure on any locale throws on all of them.
/// The destructor closes a file still open: it is reached on every locale, since failures
/// are agreed.
class mpi_file {
 public:
  /// Collective. Opens `path` with MPI access mode `mode`; `who` and `shown` (the path the
  /// user named) go into error messages; `args`, the call's arguments, are agreed first
  /// (file_arguments). Each locale checks the path as it sees it (empty, NUL, too long for
  /// Open MPI, missing, a directory or FIFO; when creating, a missing directory), agreed.
  mpi_file(const std::string& path, int mode, std::string who, std::string shown, const call_arguments& args = {})
      : who_(std::move(who)), shown_(std::move(shown)) {
    // Every check reads what this locale sees (its argument, its file system) and is agreed
    // before any locale opens: MPI_File_open waits forever when the file is missing on one
    // locale only, and opening a FIFO waits for a writer forever.
    agreed(args, [&] {
      if (path.empty()) throw argument_error(who_ + ": the file name is empty");
      if (path.find('\0') != std::string::npos)
        throw argument_error(who_ + ": the file name '" + shown_ + "' contains a NUL character");
      check_mpi_file_name(path, who_, shown_);
      check_file_here(path, (mode & MPI_MODE_CREATE) != 0, who_, shown_);
    });
    agreed([&] {
      const int code = MPI_File_open(env().comm(), path.c_str(), mode, MPI_INFO_NULL, &fh_);
      if (code != MPI_SUCCESS) {
        fh_ = MPI_FILE_NULL;
        const bool creating = (mode & MPI_MODE_CREATE) != 0;
        throw io_error(who_ + ": cannot " + (creating ? "create '" : "open '") + shown_ + "'" +
                       (path != shown_ ? " (as '" + path + "')" : std::string()) + ": " + mpi_error_text(code));
      }
    });
    // a locale whose open failed has no handle; the agreed failure already threw everywhere
  }
  mpi_file(const mpi_file&) = delete;
  mpi_file& operator=(const mpi_file&) = delete;
  ~mpi_file() {
    if (fh_ != MPI_FILE_NULL) MPI_File_close(&fh_);
  }

  /// Not collective. The file's size in bytes.
  index_t size_here() {
    MPI_Offset bytes = 0;
    check_mpi_io(MPI_File_get_size(fh_, &bytes), who_, "cannot get the size of '" + shown_ + "'");
    return static_cast<index_t>(bytes);
  }

  /// Not collective. Writes `bytes` at byte `offset` (a header, from one locale).
  void write_at(index_t offset, const std::string& bytes) {
    MPI_Status status;
    check_mpi_io(MPI_File_write_at(fh_, offset, bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, &status),
                 who_, "cannot write to '" + shown_ + "'");
    check_moved(status, MPI_BYTE, bytes.size(), true);
    auto& c = env().files();
    ++c.writes;
    c.bytes_written += bytes.size();
  }
  /// Not collective. Reads up to `count` bytes at byte `offset`; fewer when the file ends.
  std::string read_at(index_t offset, index_t count) {
    std::string out(static_cast<std::size_t>(count), '\0');
    MPI_Status status;
    check_mpi_io(MPI_File_read_at(fh_, offset, out.data(), static_cast<int>(count), MPI_BYTE, &status), who_,
                 "cannot read '" + shown_ + "'");
    int got = 0;
    MPI_Get_count(&status, MPI_BYTE, &got);
    out.resize(static_cast<std::size_t>(got < 0 ? 0 : got));
    auto& c = env().files();
    ++c.reads;
    c.bytes_read += out.size();
    return out;
  }

  /// Collective. Writes each locale's share `part` of an array whose first element is at
  /// byte `displacement`, after `prologue` (a local step, such as locale 0 writing a header,
  /// agreed with the preparation of the transfer).
  template <class T, std::size_t N, class Prologue>
  void write_part(index_t displacement, const file_part<T, N>& part, Prologue&& prologue) {
    move_part(displacement, part, true, prologue);
  }
  /// Collective. Reads each locale's share `part` (finish_reading() is the caller's).
  template <class T, std::size_t N>
  void read_part(index_t displacement, const file_part<T, N>& part) {
    move_part(displacement, part, false, [] {});
  }

  /// Collective. Closes the file, flushing what was written.
  void close() {
    agreed([&] {
      const int code = MPI_File_close(&fh_);
      fh_ = MPI_FILE_NULL;
      check_mpi_io(code, who_, "cannot close '" + shown_ + "'");
    });
  }

 private:
  /// Throws io_error unless `status` (of a transfer of `type` items) moved `bytes` bytes: Open
  /// MPI's OMPIO reports a failed or short write(2) (EFBIG, ENOSPC) as MPI_SUCCESS with a
  /// smaller count.
  void check_moved(const MPI_Status& status, MPI_Datatype type, std::uint64_t bytes, bool writing) const {
    if (bytes == 0) return;
    MPI_Count moved = 0;
    if (MPI_Get_elements_x(&status, type, &moved) != MPI_SUCCESS || moved != static_cast<MPI_Count>(bytes))
      throw io_error(who_ + ": cannot " + (writing ? "write to '" : "read '") + shown_ + "': " +
                     std::to_string(moved < 0 ? 0 : moved) + " of " + std::to_string(bytes) + " bytes " +
                     (writing ? "written" : "read") + " (file size limit, full disk or a short file?)");
  }

  template <class T, std::size_t N, class Prologue>
  void move_part(index_t displacement, const file_part<T, N>& part, bool writing, const Prologue& prologue) {
    const auto& runs = part.runs();
    owned_datatype file_type, memory_type;
    const void* from = part.base();
    agreed([&] {
      prologue();
      if (runs.empty()) return;
      file_type = run_type(runs, sizeof(T), true, who_);
      if (memory_in_file_order(runs)) {
        std::vector<file_run> one{{0, part.elements(), 1, 0, 1}};
        memory_type = run_type(one, sizeof(T), false, who_);
        from = part.base() + runs.front().memory;
      } else {
        memory_type = run_type(runs, sizeof(T), false, who_);
      }
    });
    const MPI_Datatype view = runs.empty() ? MPI_BYTE : file_type.get();
    agreed([&] {
      check_mpi_io(MPI_File_set_view(fh_, displacement, MPI_BYTE, view, "native", MPI_INFO_NULL), who_,
                   "cannot set the file view of '" + shown_ + "'");
    });
    agreed([&] {
      MPI_Status status;
      const int count = runs.empty() ? 0 : 1;
      const MPI_Datatype type = runs.empty() ? MPI_BYTE : memory_type.get();
      auto& c = env().files();
      const auto bytes = static_cast<std::uint64_t>(part.elements()) * sizeof(T);
      if (writing) {
        check_mpi_io(MPI_File_write_all(fh_, from, count, type, &status), who_, "cannot write to '" + shown_ + "'");
        check_moved(status, type, bytes, true);
        ++c.writes;
        c.bytes_written += bytes;
      } else {
        check_mpi_io(MPI_File_read_all(fh_, const_cast<void*>(from), count, type, &status), who_,
                     "cannot read '" + shown_ + "'");
        check_moved(status, type, bytes, false);
        ++c.reads;
        c.bytes_read += bytes;
      }
    });
  }

  MPI_File fh_ = MPI_FILE_NULL;
  std::string who_, shown_;
};

/// The suffix of the name an existing file is moved aside to while its replacement takes its
/// name (file_commit::publish): "<path>.dmap-previous".
inline constexpr const char* previous_suffix = ".dmap-previous";

/// Test hook of the crash tests (tests/io_crash): when the environment variable DMAP_IO_KILL_AT
/// is `step`, locale 0 kills its own process there with SIGKILL (no unwinding, no destructors),
/// as a writer dying at that step would. Steps: "created" (the temporary exists, nothing
/// written), "written" (the temporary is whole and closed), "aside" (the old file is moved
/// aside, the new one not yet in place), "published" (the new file is in place, the old one
/// not yet removed).
inline void io_crash_point(const char* step) {
  if (here() != 0) return;
  const char* at = std::getenv("DMAP_IO_KILL_AT");
  if (at != nullptr && std::strcmp(at, step) == 0) ::kill(::getpid(), SIGKILL);
}

/// Collective. The file that holds the last complete write of `path` (file_commit's recovery
/// rule, decided by locale 0 and told to all): `path` itself, unless it does not exist and
/// "<path>.dmap-previous" (beside the file `path` resolves to) is a regular file, which a writer
/// that died between moving the old file aside and putting the new one in place leaves.
inline std::string committed_file(const std::string& path) {
  std::string use = path;
  if (here() == 0 && !path.empty() && path.find('\0') == std::string::npos) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
      std::error_code ec;
      const auto resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
      const std::string previous = (ec ? path : resolved.string()) + previous_suffix;
      if (::stat(previous.c_str(), &st) == 0 && S_ISREG(st.st_mode)) use = previous;
    }
  }
  if (num_locales() > 1) {
    bool moved = use != path;
    broadcast(moved, 0);
    if (moved) broadcast(use, 0);
    else use = path;
  }
  return use;
}

/// Writing a file under a temporary name in its directory and moving it to the final name only
/// when every locale succeeded: an existing file is replaced whole or not at all, and a writer
/// killed at any moment leaves a complete file that committed_file() finds.
///
/// publish() (locale 0), after the temporary "<dir>/.<name>.dmap-<pid>-<k>.tmp" is whole:
///   1. if `path` exists: remove "<path>.dmap-previous" (a leftover; `path` is complete) and
///      rename `path` to "<path>.dmap-previous";
///   2. rename the temporary to `path`;
///   3. remove "<path>.dmap-previous".
/// No rename replaces an existing file: on ext4 (auto_da_alloc) a rename over an existing file
/// first writes the new file's data to disk, which made a rewrite 3-5x slower than writing a new
/// file. Recovery rule (committed_file, used by read_npy, read_npy_header and hdf5_reader): the
/// last complete write is `path` when it exists, otherwise "<path>.dmap-previous" when that
/// exists. Killed before step 1 or in it, `path` is the old file; between 1 and 2, `path` is
/// missing and the old file is "<path>.dmap-previous"; after 2, `path` is the new file.
/// Temporaries are never complete writes. Nothing is synced to disk: this protects against the
/// writing process dying, not against the machine losing power.
class file_commit {
 public:
  /// Collective. Chooses the temporary name (locale 0's choice, told to all) for `path`, in the
  /// directory locale 0 resolves it to (an absolute path, links followed). Every locale must
  /// pass the same path from the same working directory (file_arguments: argument_error
  /// otherwise). A symbolic link is followed (its target is replaced, the link stays); an
  /// existing `path` or "<path>.dmap-previous" that is not a regular file (a directory, device,
  /// FIFO or socket) is an io_error on every locale, as replacing it would remove it.
  file_commit(std::string path, std::string who) : final_(std::move(path)), who_(std::move(who)) {
    agreed(file_arguments(who_, final_), [&] {
      if (final_.empty()) throw argument_error(who_ + ": the file name is empty");
      if (final_.find('\0') != std::string::npos)
        throw argument_error(who_ + ": the file name '" + final_ + "' contains a NUL character");
      check_mpi_file_name(final_, who_, final_);  // the temporary name is longer still
      if (here() != 0) return;
      static std::atomic<unsigned> serial{0};
      // Locale 0 resolves the path (links, its working directory) and every locale writes to
      // what it found: a path that names another directory on some locale (a link resolved
      // per process) cannot scatter the file's parts.
      std::error_code ec;
      const bool trailing = final_.back() == '/';
      const auto resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(final_, ec), ec);
      if (ec) throw io_error(who_ + ": cannot resolve '" + final_ + "': " + ec.message());
      target_ = resolved.string();
      if (trailing && (target_.empty() || target_.back() != '/')) target_ += '/';
      previous_ = target_ + previous_suffix;
      for (const std::string* name : {&target_, &previous_}) {
        const auto status = std::filesystem::status(*name, ec);
        if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
          throw io_error(who_ + ": cannot write '" + final_ + "': " +
                         (name == &target_ ? std::string("it") : "'" + previous_ + "'") +
                         " exists and is not a regular file (a directory, device, FIFO or socket); dmap replaces "
                         "regular files only");
      }
      const auto slash = target_.rfind('/');
      const std::string dir = slash == std::string::npos ? std::string() : target_.substr(0, slash + 1);
      const std::string base = slash == std::string::npos ? target_ : target_.substr(slash + 1);
      temp_ = dir + "." + base + ".dmap-" + std::to_string(::getpid()) + "-" + std::to_string(serial++) + ".tmp";
    });
    broadcast(temp_, 0);
  }
  file_commit(const file_commit&) = delete;
  file_commit& operator=(const file_commit&) = delete;
  /// Removes the temporary file unless publish() succeeded (locale 0; not collective).
  ~file_commit() {
    if (!published_ && here() == 0) std::remove(temp_.c_str());
  }
  /// The name to write under.
  const std::string& temporary() const noexcept { return temp_; }
  /// The final name.
  const std::string& path() const noexcept { return final_; }
  /// Collective, after the file was closed: moves it to its final name (the steps in the class
  /// comment). With `expected_bytes` >= 0, first checks the file has that size (OMPIO reports a
  /// collective write cut short by EFBIG or ENOSPC as a success: the file then ends early).
  void publish(index_t expected_bytes = -1) {
    agreed([&] {
      if (here() != 0) return;
      io_crash_point("written");
      struct stat st {};
      if (expected_bytes >= 0 && (::stat(temp_.c_str(), &st) != 0 || st.st_size != expected_bytes))
        throw io_error(who_ + ": cannot write '" + final_ + "': the written file has " + std::to_string(st.st_size) +
                       " bytes, not " + std::to_string(expected_bytes) + " (file size limit or full disk?)");
      const auto failed = [&](const std::string& what) {
        return io_error(who_ + ": cannot write '" + final_ + "': " + what + ": " + std::strerror(errno));
      };
      bool aside = false;
      if (::lstat(target_.c_str(), &st) == 0) {
        if (::unlink(previous_.c_str()) != 0 && errno != ENOENT)
          throw failed("cannot remove the leftover '" + previous_ + "'");
        if (std::rename(target_.c_str(), previous_.c_str()) != 0)
          throw failed("cannot move the old file aside to '" + previous_ + "'");
        aside = true;
        io_crash_point("aside");
      }
      if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
        const io_error e = failed("cannot rename the written file to it");
        if (aside) std::rename(previous_.c_str(), target_.c_str());  // the old file back under its name
        throw e;
      }
      io_crash_point("published");
      ::unlink(previous_.c_str());  // a failure leaves a file the recovery rule ignores
    });
    published_ = true;
  }

 private:
  std::string final_, who_, temp_;
  std::string target_;    ///< locale 0: the file replaced (final_ resolved: absolute, links followed)
  std::string previous_;  ///< locale 0: where the replaced file waits (target_ + previous_suffix)
  bool published_ = false;
};

}  // namespace dmap::detail
