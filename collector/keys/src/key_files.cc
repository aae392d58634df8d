// SPDX-License-Identifier: MIT
#include "keys/key_files.h"

#include <fcntl.h>
#include <stallwatch/curve_key.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace stallwatch::collector {
namespace {

bool read_text(const std::string& path, std::string& text, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read key file '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream out;
  out << in.rdbuf();
  text = out.str();
  return true;
}

std::string write_file(const std::string& path, const std::string& text, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return "cannot create '" + path + "': " + std::strerror(errno);
  // The umask may have narrowed `mode`; a secret file must not be wider anyway.
  ::fchmod(fd, mode);
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int saved = errno;
  ::close(fd);
  if (!ok) return "cannot write '" + path + "': " + std::strerror(saved);
  return {};
}

}  // namespace

std::optional<std::string> read_key_file(const std::string& path, std::string& error) {
  std::string text;
  if (!read_text(path, text, error)) return std::nullopt;
  const std::string_view key = wire::key_in_text(text);
  if (key.empty()) {
    error = "key file '" + path + "' holds no key (40 characters of Z85)";
    return std::nullopt;
  }
  return std::string(key);
}

std::optional<std::string> read_secret_key_file(const std::string& path, std::string& error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    error = "cannot read key file '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    error = "secret key file '" + path + "' can be read by others; run: chmod 600 '" + path + "'";
    return std::nullopt;
  }
  return read_key_file(path, error);
}

std::string write_key_pair(const CurveKeyPair& pair, const std::string& secret_path,
                           const std::string& public_path) {
  if (auto err = write_file(
          secret_path, "# stallwatch CURVE secret key: keep it private\n" + pair.secret_key + "\n",
          0600);
      !err.empty()) {
    return err;
  }
  return write_public_key_file(pair.public_key, public_path);
}

std::string write_public_key_file(const std::string& public_key, const std::string& path) {
  ::unlink(path.c_str());
  return write_file(
      path, "# stallwatch CURVE public key: give it to the other side\n" + public_key + "\n", 0644);
}

}  // namespace stallwatch::collector
