// SPDX-License-Identifier: MIT
// Records one region and one mark with the installed agent (C++ header and C
// ABI) and prints what the agent counted. The collector is given on the
// command line; an absent one is fine: events are then counted as sent into
// ZeroMQ's queue or dropped, never an error.
#include <stallwatch/stallwatch.h>

#include <cstdio>
#include <stallwatch/stallwatch.hpp>

int main(int argc, char** argv) {
  stallwatch::Config config;
  if (argc > 1 && config.set("collector", argv[1]) != SW_OK) return 2;
  if (stallwatch::start(config) != SW_OK) return 3;
  static const stallwatch::Name kCat("compute");
  static const stallwatch::Name kName("consumer_step");
  { stallwatch::Region region(kCat, kName); }
  stallwatch::mark(kCat, stallwatch::Name("consumer_mark"), 1);
  stallwatch::flush(1000);
  const sw_stats stats = stallwatch::stats();
  std::printf("recorded %llu\n", static_cast<unsigned long long>(stats.events_recorded));
  return stallwatch::stop() == SW_OK ? 0 : 4;
}
