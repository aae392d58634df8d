// SPDX-License-Identifier: MIT
#include "ingest/ipc_endpoint.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace stallwatch::collector {
namespace {

constexpr std::string_view kIpcPrefix = "ipc://";

std::string errno_text(int error) {
  return std::strerror(error);
}

// mkdir -p with mode 0700 for the components that do not exist yet.
std::optional<std::string> make_directories(const std::string& dir) {
  for (std::size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string prefix = dir.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      return "cannot create directory " + prefix + ": " + errno_text(errno);
    }
    if (slash == std::string::npos) return std::nullopt;
  }
}

std::optional<std::string> check_directory(const std::string& dir) {
  struct stat info {};
  if (::stat(dir.c_str(), &info) != 0) return dir + ": " + errno_text(errno);
  if (!S_ISDIR(info.st_mode)) return dir + " is not a directory";
  if (info.st_uid != ::geteuid() && info.st_uid != 0) {
    return dir + " is owned by another user (uid " + std::to_string(info.st_uid) + ")";
  }
  return std::nullopt;
}

// True when a process accepts connections on the socket file `path`.
bool socket_is_live(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool live =
      ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  ::close(fd);
  return live;
}

std::optional<std::string> clear_stale_socket(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    return errno == ENOENT ? std::nullopt : std::optional(path + ": " + errno_text(errno));
  }
  if (!S_ISSOCK(info.st_mode)) return path + " exists and is not a socket";
  if (socket_is_live(path)) return std::string(std::strerror(EADDRINUSE));
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return "cannot remove stale socket " + path + ": " + errno_text(errno);
  }
  return std::nullopt;
}

}  // namespace

std::string default_ipc_endpoint() {
  const char* runtime_dir = std::getenv("XDG_RUNTIME_DIR");
  if (runtime_dir != nullptr && runtime_dir[0] != '\0') {
    return std::string(kIpcPrefix) + runtime_dir + "/stallwatch/ingest.sock";
  }
  return std::string(kIpcPrefix) + "/tmp/stallwatch-" + std::to_string(::getuid()) + "/ingest.sock";
}

std::optional<std::string> prepare_ipc_endpoint(std::string_view endpoint) {
  if (!endpoint.starts_with(kIpcPrefix)) return std::nullopt;
  const std::string path(endpoint.substr(kIpcPrefix.size()));
  // "*": ZeroMQ picks a path; "@name": the Linux abstract namespace, no file.
  if (path.empty() || path == "*" || path.front() == '@') return std::nullopt;
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    return "socket path of " + std::to_string(path.size()) + " bytes, longer than " +
           std::to_string(sizeof(sockaddr_un::sun_path) - 1);
  }
  const std::size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string dir = path.substr(0, slash);
    if (auto error = make_directories(dir)) return error;
    if (auto error = check_directory(dir)) return error;
  }
  return clear_stale_socket(path);
}

}  // namespace stallwatch::collector
