// SPDX-License-Identifier: MIT
// libFuzzer target: the HTTP router and the WebSocket client messages, on a
// daemon state with one job of two ranks. The input is split at the first
// three newlines into method, request target (path and query string, still
// encoded), Authorization header and the rest, a WebSocket client message.
// The router (bearer token "s3cret") answers the request; parse_client_message
// reads the message. Sanitizers catch memory errors; on top, the target aborts
// when an answer has a status outside 200..599, a 401 comes without a
// WWW-Authenticate header, or a request the token check refused got a 200.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "client_message.h"
#include "engine/decoded_batch.h"
#include "engine/engine.h"
#include "engine/name_table.h"
#include "router.h"
#include "serve/api_backend.h"

namespace {

using namespace stallwatch::collector;

constexpr std::int64_t kNow = 1'700'000'010'000'000'000;

class FuzzBackend : public ApiBackend {
 public:
  FuzzBackend() : engine_(EngineConfig{}, names_) {
    for (std::int32_t rank = 0; rank < 2; ++rank) {
      DecodedBatch batch;
      batch.source.job = "job-a";
      batch.source.rank = rank;
      batch.source.host = "n1";
      batch.source.pid = 100 + rank;
      batch.sent_at_ns = kNow - 1'000'000'000;
      const NameId compute = names_.intern("compute");
      const NameId fetch = names_.intern("dataloader");
      for (std::int64_t i = 0; i < 20; ++i) {
        Event e;
        e.ts_ns = kNow - 9'000'000'000 + i * 400'000'000;
        e.dur_ns = 150'000'000;
        e.cat = i % 2 == 0 ? compute : fetch;
        e.name = e.cat;
        e.kind = EventKind::kComplete;
        batch.events.push_back(e);
      }
      engine_.ingest(batch, kNow - 900'000'000);
    }
    state_ = std::make_shared<PublishedState>();
    state_->snapshot = engine_.tick(kNow);
  }
  std::shared_ptr<const PublishedState> current() const override { return state_; }
  std::optional<Timeline> timeline(std::string_view job, std::int32_t rank,
                                   std::int64_t seconds) const override {
    return engine_.timeline(job, rank, seconds);
  }
  std::optional<Series> series(std::string_view job, std::string_view metric,
                               std::int64_t window_ns, std::int64_t span_ns) const override {
    return engine_.series(job, metric, window_ns, span_ns);
  }

 private:
  NameTable names_;
  mutable Engine engine_;
  std::shared_ptr<PublishedState> state_;
};

struct Fixture {
  ServeConfig config;
  FuzzBackend backend;
  ServeCounters counters;
  std::unique_ptr<Router> router;
  Fixture() {
    config.bearer_token = "s3cret";
    router = std::make_unique<Router>(config, backend, counters);
  }
};

std::string_view take_line(std::string_view& rest) {
  const auto nl = rest.find('\n');
  const std::string_view line = rest.substr(0, nl);
  rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture fixture;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  HttpRequest request;
  request.method = take_line(rest);
  request.target = take_line(rest);
  request.authorization = take_line(rest);
  const HttpResponse response = fixture.router->handle(request);
  if (response.status < 200 || response.status > 599) std::abort();
  if (response.status == 401) {
    bool challenge = false;
    for (const auto& [name, value] : response.headers)
      challenge = challenge || name == "WWW-Authenticate";
    if (!challenge) std::abort();
  }
  (void)fixture.router->is_stream(request.target);
  (void)parse_client_message(rest);
  return 0;
}
