// SPDX-License-Identifier: MIT
#include "ingest/endpoint_scope.h"

#include <gtest/gtest.h>

namespace stallwatch::collector {
namespace {

TEST(EndpointScopeTest, LoopbackAndIpcEndpointsAreLocal) {
  for (const char* endpoint :
       {"ipc:///tmp/x/ingest.sock", "tcp://127.0.0.1:5557", "tcp://127.0.0.2:*",
        "tcp://127.255.255.254:1", "tcp://localhost:5557", "tcp://[::1]:5557"}) {
    EXPECT_TRUE(is_local_endpoint(endpoint)) << endpoint;
  }
}

TEST(EndpointScopeTest, EveryOtherAddressCanBeReachedFromElsewhere) {
  for (const char* endpoint :
       {"tcp://0.0.0.0:5557", "tcp://*:5557", "tcp://10.0.0.7:5557", "tcp://128.0.0.1:5557",
        "tcp://eth0:5557", "tcp://head.example:5557", "tcp://[::]:5557", "tcp://127.0.0.1",
        "tcp://:5557", "udp://127.0.0.1:5557", "inproc://x"}) {
    EXPECT_FALSE(is_local_endpoint(endpoint)) << endpoint;
  }
}

}  // namespace
}  // namespace stallwatch::collector
