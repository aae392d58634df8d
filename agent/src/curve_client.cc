// SPDX-License-Identifier: MIT
#include "curve_client.h"

#include <sys/stat.h>
#include <zmq.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "diagnostics.h"
#include "stallwatch/curve_key.h"
#include "stallwatch/stallwatch.h"

namespace stallwatch::agent {
namespace {

// The key of a key file, or "" after reporting why there is none.
std::string key_from_file(const std::string& path, const char* what, bool secret) {
  if (secret) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
      report_problem("%s '%s' can be read by others; run: chmod 600 '%s'", what, path.c_str(),
                     path.c_str());
      return {};
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    report_problem("cannot read %s '%s': %s", what, path.c_str(), std::strerror(errno));
    return {};
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string_view key = wire::key_in_text(text.str());
  if (key.empty()) {
    report_problem("%s '%s' holds no key (40 characters of Z85)", what, path.c_str());
    return {};
  }
  return std::string(key);
}

bool set_key(void* socket, int option, const std::string& key) {
  return zmq_setsockopt(socket, option, key.c_str(), key.size()) == 0;
}

}  // namespace

int configure_curve_client(void* socket, const AgentConfig& config) noexcept {
  try {
    std::string server_key = config.collector_key;
    if (server_key.empty() && !config.collector_key_file.empty()) {
      server_key = key_from_file(config.collector_key_file, "collector key file", false);
      if (server_key.empty()) return SW_ERR_TRANSPORT;
    }
    if (server_key.empty()) {
      if (!config.agent_key_file.empty()) {
        report_problem(
            "agent_key_file is set but no collector key: the connection stays "
            "plaintext (set STALLWATCH_COLLECTOR_KEY)");
      }
      return SW_OK;
    }
    if (zmq_has("curve") == 0) {
      report_problem("a collector key is set but this libzmq has no CURVE");
      return SW_ERR_TRANSPORT;
    }
    char public_key[wire::kZ85KeyChars + 1] = {};
    char secret_key[wire::kZ85KeyChars + 1] = {};
    if (!config.agent_key_file.empty()) {
      const std::string secret = key_from_file(config.agent_key_file, "agent key file", true);
      if (secret.empty()) return SW_ERR_TRANSPORT;
      std::memcpy(secret_key, secret.c_str(), wire::kZ85KeyChars);
      if (zmq_curve_public(public_key, secret_key) != 0) {
        report_problem("agent key file '%s' does not hold a secret key",
                       config.agent_key_file.c_str());
        return SW_ERR_TRANSPORT;
      }
    } else if (zmq_curve_keypair(public_key, secret_key) != 0) {
      report_problem("cannot make a CURVE key pair: %s", zmq_strerror(errno));
      return SW_ERR_TRANSPORT;
    }
    if (!set_key(socket, ZMQ_CURVE_SERVERKEY, server_key) ||
        !set_key(socket, ZMQ_CURVE_PUBLICKEY, public_key) ||
        !set_key(socket, ZMQ_CURVE_SECRETKEY, secret_key)) {
      report_problem("cannot set up CURVE on the ZeroMQ socket: %s", zmq_strerror(errno));
      return SW_ERR_TRANSPORT;
    }
    return SW_OK;
  } catch (...) {
    report_problem("cannot set up CURVE: out of memory");
    return SW_ERR_TRANSPORT;
  }
}

}  // namespace stallwatch::agent
