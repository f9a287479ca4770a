// Temp file, fsync, rename; signal-safe clean-up of the temp file.
#include "recommend/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <streambuf>
#include <string>

#include "fhe/core/error.h"

namespace fhelium {
namespace {

// State the signal handler may touch: a fixed buffer and a flag.
char g_temp_path[4096];
volatile std::sig_atomic_t g_temp_active = 0;
struct sigaction g_previous_int, g_previous_term;

extern "C" void remove_temp_and_reraise(int signal_number) {
  if (g_temp_active) unlink(g_temp_path);  // async-signal-safe
  g_temp_active = 0;
  sigaction(signal_number, signal_number == SIGINT ? &g_previous_int : &g_previous_term, nullptr);
  raise(signal_number);
}

// Installs the handlers for the lifetime of one write.
class TempFileGuard {
 public:
  explicit TempFileGuard(const std::string& path) {
    std::strncpy(g_temp_path, path.c_str(), sizeof g_temp_path - 1);
    g_temp_path[sizeof g_temp_path - 1] = '\0';
    g_temp_active = 1;
    struct sigaction action {};
    action.sa_handler = remove_temp_and_reraise;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &g_previous_int);
    sigaction(SIGTERM, &action, &g_previous_term);
  }
  ~TempFileGuard() {
    sigaction(SIGINT, &g_previous_int, nullptr);
    sigaction(SIGTERM, &g_previous_term, nullptr);
    g_temp_active = 0;
  }
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
};

// A minimal buffered streambuf over a file descriptor.
class FdStreambuf : public std::streambuf {
 public:
  explicit FdStreambuf(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  ~FdStreambuf() override { sync(); }

 protected:
  int_type overflow(int_type ch) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override {
    const char* data = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0) {
      const ssize_t written = ::write(fd_, data, left);
      if (written < 0) {
        if (errno == EINTR) continue;
        return -1;
      }
      data += written;
      left -= static_cast<std::size_t>(written);
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return 0;
  }

 private:
  int fd_;
  char buffer_[1 << 16];
};

std::string system_error(const std::string& what, const std::filesystem::path& path) {
  return what + " " + path.string() + ": " + std::strerror(errno);
}

}  // namespace

void check_output_path(const std::filesystem::path& target) {
  if (target.empty()) throw fhe::InvalidArgument("output path is empty");
  std::error_code error;
  if (std::filesystem::is_directory(target, error))
    throw fhe::InvalidArgument("output " + target.string() + " is a directory");
  // The rename would replace a device or a FIFO (as root, /dev/null) with a
  // regular file: only a new file or a regular one is an output.
  const auto status = std::filesystem::status(target, error);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw fhe::InvalidArgument("output " + target.string() + " exists and is not a regular file");
  const std::filesystem::path dir =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::exists(dir, error))
    throw fhe::InvalidArgument("output directory " + dir.string() + " does not exist");
  if (!std::filesystem::is_directory(dir, error))
    throw fhe::InvalidArgument("output directory " + dir.string() + " is not a directory");
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw fhe::InvalidArgument("output directory " + dir.string() + " is not writable");
  // access() answers yes for root where creating a file still fails (/proc):
  // create and remove a probe now rather than lose a whole run's samples.
  std::string probe = (dir / ".fhelium-probe-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0) throw fhe::InvalidArgument(system_error("cannot create a file in output directory", dir));
  close(fd);
  unlink(probe.c_str());
}

void write_file_atomically(const std::filesystem::path& target,
                           const std::function<void(std::ostream&)>& write) {
  check_output_path(target);
  const std::filesystem::path dir =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  // A hidden name beside the target (same file system, so rename is atomic).
  std::string temp_name = target.filename().string();
  temp_name.insert(temp_name.begin(), '.');
  temp_name += ".tmp-XXXXXX";
  std::string temp = (dir / temp_name).string();
  const int fd = mkstemp(temp.data());
  if (fd < 0) throw std::runtime_error(system_error("cannot create a temporary file beside", target));
  TempFileGuard guard(temp);
  int open_fd = fd;
  try {
    {
      FdStreambuf buffer(fd);
      std::ostream out(&buffer);
      write(out);
      out.flush();
      if (!out) throw std::runtime_error(system_error("cannot write", temp));
    }
    // mkstemp creates 0600; give the output the permissions a plain create would.
    const mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || fsync(fd) != 0)
      throw std::runtime_error(system_error("cannot finish", temp));
    open_fd = -1;
    if (close(fd) != 0) throw std::runtime_error(system_error("cannot close", temp));
  } catch (...) {
    if (open_fd >= 0) close(open_fd);
    unlink(temp.c_str());
    throw;
  }
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    const std::string message = system_error("cannot rename the temporary file to", target);
    unlink(temp.c_str());
    throw std::runtime_error(message);
  }
  // Make the rename itself durable.
  const int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir_fd >= 0) {
    fsync(dir_fd);
    close(dir_fd);
  }
}

}  // namespace fhelium
