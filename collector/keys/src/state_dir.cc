// SPDX-License-Identifier: MIT
#include "keys/state_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "keys/key_files.h"

namespace stallwatch::collector {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

}  // namespace

std::string default_state_dir() {
  if (auto dir = env("STATE_DIRECTORY"); !dir.empty()) {
    // systemd lists several directories separated by ':' when asked to.
    return dir.substr(0, dir.find(':'));
  }
  if (auto dir = env("XDG_STATE_HOME"); !dir.empty()) return dir + "/stallwatch";
  if (auto home = env("HOME"); !home.empty()) return home + "/.local/state/stallwatch";
  return "/tmp/stallwatch-" + std::to_string(::getuid()) + "/state";
}

std::optional<CurveKeyPair> load_or_create_key_pair(const std::string& state_dir, bool& created,
                                                    std::string& error) {
  created = false;
  const std::string secret_path = state_dir + "/" + kSecretKeyFileName;
  const std::string public_path = state_dir + "/" + kPublicKeyFileName;
  if (::access(secret_path.c_str(), F_OK) == 0) {
    auto secret = read_secret_key_file(secret_path, error);
    if (!secret) return std::nullopt;
    auto public_key = public_key_of(*secret);
    if (!public_key) {
      error = "'" + secret_path + "' does not hold a CURVE secret key";
      return std::nullopt;
    }
    std::string ignored;
    const auto written = read_key_file(public_path, ignored);
    if (!written || *written != *public_key) {
      // A missing or stale public key file is rewritten from the secret key.
      if (auto err = write_public_key_file(*public_key, public_path); !err.empty()) {
        error = err;
        return std::nullopt;
      }
    }
    return CurveKeyPair{*public_key, *secret};
  }
  std::error_code ec;
  const bool made = std::filesystem::create_directories(state_dir, ec);
  if (ec) {
    error = "cannot create state directory '" + state_dir + "': " + ec.message();
    return std::nullopt;
  }
  if (made) ::chmod(state_dir.c_str(), 0700);
  auto pair = generate_key_pair(error);
  if (!pair) return std::nullopt;
  if (auto err = write_key_pair(*pair, secret_path, public_path); !err.empty()) {
    error = err;
    return std::nullopt;
  }
  created = true;
  return pair;
}

}  // namespace stallwatch::collector
