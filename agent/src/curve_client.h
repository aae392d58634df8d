// SPDX-License-Identifier: MIT
#pragma once

#include <string>

#include "agent_config.h"

namespace stallwatch::agent {

// Makes the sender's PUSH socket a CURVE client when the configuration gives
// the collector's public key (collector_key, or collector_key_file): the
// agent's own key pair comes from agent_key_file (a secret key, readable by
// its owner only; the public key is derived), else a fresh one per process
// (enough unless the collector has an allow-list). Without a collector key
// the socket stays plaintext, as local agents are.
//
// Called by Sender::open() on the starting thread, before connecting.
// Returns SW_OK, or SW_ERR_TRANSPORT after one report_problem() line (an
// unreadable or malformed key, a libzmq without CURVE).
int configure_curve_client(void* socket, const AgentConfig& config) noexcept;

}  // namespace stallwatch::agent
