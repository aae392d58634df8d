// SPDX-License-Identifier: MIT
// libFuzzer target: any bytes as what `stallwatch top` and `stallwatch
// status` read from a collector (docs/api.md): the input is cut at NUL bytes,
// and every piece goes through every parser of the client (jobs page, job
// detail, series, timeline, alerts, status, stream message, error body).
// What parses fills one model, as `stallwatch top --once` fills it, and the
// screen is composed from it in every view at a wide and a narrow size, and
// `stallwatch status` formats what it would print. Nothing may crash, leak or
// report undefined behaviour. Seeds: answers of a real stallwatchd fed by
// two browser_feeder ranks (tests/browser).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api_parse.h"
#include "frame.h"
#include "status_text.h"
#include "top_model.h"
#include "top_once.h"
#include "top_state.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stallwatch::tui;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  TopModel model;
  model.url = "http://127.0.0.1:8787";
  model.interactive = true;
  JobsPage page;
  for (std::size_t begin = 0; begin <= input.size();) {
    std::size_t end = input.find('\0', begin);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view piece = input.substr(begin, end - begin);
    begin = end + 1;

    if (auto p = parse_jobs_page(piece); p.ok()) {
      page = *p.value;
      model.windows = p.value->windows;
      model.verdict_window = p.value->verdict_window;
      model.jobs = p.value->jobs;
      model.spark_window = spark_window_of(model.windows);
      if (!model.jobs.empty()) model.history.reset(model.jobs.front().job);
    }
    if (auto d = parse_job_detail(piece); d.ok()) model.detail = std::move(d.value);
    if (auto s = parse_series(piece); s.ok()) model.history.seed(*s.value);
    if (auto t = parse_timeline(piece); t.ok()) model.timeline = std::move(t.value);
    if (auto a = parse_alerts(piece); a.ok()) model.alerts = std::move(*a.value);
    if (auto s = parse_status(piece); s.ok()) format_status(model.url, *s.value, page);
    (void)parse_stream_message(piece);
    (void)api_error_text(piece);
  }
  TopState state;
  reconcile(state, model);
  for (View view : {View::kMain, View::kDetail, View::kHelp}) {
    state.view = view;
    (void)compose_frame(state, model, 160, 48);
    (void)compose_frame(state, model, 24, 6);
  }
  return 0;
}
