// SPDX-License-Identifier: MIT
#include "top_app.h"

#include <signal.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <ostream>

#include "api_parse.h"
#include "api_paths.h"
#include "curses_screen.h"
#include "fetch_worker.h"
#include "frame.h"
#include "stream_client.h"
#include "top_model.h"
#include "top_once.h"
#include "top_state.h"

namespace stallwatch::tui {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kSeedSeconds = 240;
constexpr int kPollMs = 100;
constexpr auto kTimelineRefresh = std::chrono::seconds(1);
constexpr const char* kSeriesKey = "series";
constexpr const char* kTimelineKey = "timeline";

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int signal) {
  g_signal = signal;
}

// Routes SIGINT, SIGTERM and SIGHUP to a flag the loop polls, for as long as
// it lives. Installed before curses starts, so that ncurses keeps its hands
// off them and the loop restores the terminal itself.
class SignalGuard {
 public:
  SignalGuard() {
    g_signal = 0;
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i)
      sigaction(kSignals[i], &action, &previous_[i]);
  }
  ~SignalGuard() {
    for (std::size_t i = 0; i < kSignals.size(); ++i)
      sigaction(kSignals[i], &previous_[i], nullptr);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> previous_{};
};

bool same(const LinkView& a, const LinkView& b) {
  return a.state == b.state && a.error == b.error && a.retry_in_seconds == b.retry_in_seconds;
}

// The live loop's state: owns the stream and fetch threads, the model and
// the user's choices. Everything here runs on the thread that calls run();
// the stream and fetch threads only hand results over through their queues.
class TopApp {
 public:
  explicit TopApp(const TopOptions& options)
      : options_(options),
        stream_(options.url, options.token, options.ca_file),
        fetches_(options.url, fetch_options(options)) {
    model_.url = options.url.text;
    model_.interactive = true;
    model_.link.state = LinkView::State::kConnecting;
    state_.job = options.job;
    state_.job_pinned = !options.job.empty();
    state_.window = options.window;
  }

  int run(std::ostream& err);

 private:
  static FetchOptions fetch_options(const TopOptions& options) {
    FetchOptions f;
    f.token = options.token;
    f.ca_file = options.ca_file;
    return f;
  }

  bool absorb_stream();
  bool absorb_fetches();
  bool absorb_link();
  void apply(const KeyEffect& effect);
  void observe_history();
  void request_seed();
  void request_timeline();
  bool in_detail() const {
    return state_.view == View::kDetail ||
           (state_.view == View::kHelp && state_.behind_help == View::kDetail);
  }

  const TopOptions& options_;
  StreamClient stream_;
  FetchWorker fetches_;
  TopModel model_;
  TopState state_;
  std::uint64_t connection_ = 0;
  Clock::time_point next_timeline_{};
};

bool TopApp::absorb_stream() {
  StreamInbox in = stream_.take();
  if (in.empty()) return false;
  if (in.hello) {
    model_.windows = std::move(in.hello->windows);
    model_.verdict_window = std::move(in.hello->verdict_window);
    model_.spark_window = spark_window_of(model_.windows);
  }
  if (in.tick) {
    model_.jobs = std::move(in.tick->jobs);
    model_.alerts = std::move(in.tick->alerts);
    if (in.tick->job && in.tick->job->head.job == state_.job)
      model_.detail = std::move(in.tick->job);
    // A collector that no longer knows the job (restarted, or forgot it) must not leave its old
    // ranks on screen.
    if (model_.find_job(state_.job) == nullptr) model_.detail.reset();
  }
  apply(reconcile(state_, model_));
  observe_history();
  if (in.connection != connection_) {
    // A new connection: the history may have a gap to fill.
    connection_ = in.connection;
    request_seed();
  }
  return true;
}

bool TopApp::absorb_fetches() {
  auto done = fetches_.take();
  for (FetchDone& d : done) {
    if (d.key == kSeriesKey) {
      if (!d.result.ok()) continue;
      const auto parsed = parse_series(d.result.body);
      if (parsed.ok()) model_.history.seed(*parsed.value);
    } else if (d.key == kTimelineKey) {
      if (!d.result.ok()) {
        model_.timeline_error = describe_failure(d.result);
        continue;
      }
      auto parsed = parse_timeline(d.result.body);
      if (parsed.ok()) {
        model_.timeline = std::move(parsed.value);
        model_.timeline_error.clear();
      } else {
        model_.timeline_error = parsed.error;
      }
    }
  }
  return !done.empty();
}

bool TopApp::absorb_link() {
  const LinkStatus status = stream_.status();
  LinkView view;
  switch (status.state) {
    case LinkState::kConnecting:
      view.state = LinkView::State::kConnecting;
      break;
    case LinkState::kLive:
      view.state = LinkView::State::kLive;
      break;
    case LinkState::kReconnecting:
      view.state = LinkView::State::kReconnecting;
      break;
  }
  if (view.state != LinkView::State::kLive) {
    view.error = status.error;
    const auto left = std::chrono::ceil<std::chrono::seconds>(status.retry_at - Clock::now());
    view.retry_in_seconds = static_cast<int>(std::max<std::int64_t>(0, left.count()));
  }
  if (same(view, model_.link)) return false;
  model_.link = std::move(view);
  return true;
}

void TopApp::apply(const KeyEffect& effect) {
  if (effect.job_changed) {
    stream_.subscribe(state_.job);
    if (model_.detail && model_.detail->head.job != state_.job) model_.detail.reset();
    model_.history.reset(state_.job);
    model_.timeline.reset();
    request_seed();
  }
  if (effect.timeline_changed) {
    model_.timeline_error.clear();
    request_timeline();
  }
}

void TopApp::observe_history() {
  if (!model_.detail || model_.detail->head.job != model_.history.job() ||
      model_.spark_window.empty())
    return;
  for (const RankRow& r : model_.detail->ranks) {
    if (const Metrics* m = r.window(model_.spark_window)) {
      model_.history.observe(r.rank, m->end_ns, m->get(catalog::Metric::kDataStallRatio));
    }
  }
}

void TopApp::request_seed() {
  if (state_.job.empty() || model_.spark_window.empty()) return;
  fetches_.submit(kSeriesKey,
                  series_path(state_.job, model_.spark_metric, model_.spark_window, kSeedSeconds));
}

void TopApp::request_timeline() {
  if (!in_detail() || !state_.rank || state_.job.empty()) return;
  fetches_.submit(kTimelineKey, timeline_path(state_.job, *state_.rank, state_.timeline_seconds));
  next_timeline_ = Clock::now() + kTimelineRefresh;
}

int TopApp::run(std::ostream& err) {
  const SignalGuard signals;
  CursesScreen screen;
  if (!screen.ok()) {
    err << "stallwatch top: needs an interactive terminal (stdin and stdout a tty, a known TERM); "
           "use --once for scripts\n";
    return 1;
  }
  stream_.start();
  if (!state_.job.empty()) {
    stream_.subscribe(state_.job);
    model_.history.reset(state_.job);
  }
  bool dirty = true;
  while (g_signal == 0) {
    dirty = absorb_stream() || dirty;
    dirty = absorb_fetches() || dirty;
    dirty = absorb_link() || dirty;
    if (in_detail() && Clock::now() >= next_timeline_ && !fetches_.pending(kTimelineKey))
      request_timeline();
    dirty = screen.take_resized() || dirty;
    if (dirty) {
      const auto [cols, rows] = screen.size();
      const int width = options_.width > 0 ? std::min(options_.width, cols) : cols;
      screen.paint(compose_frame(state_, model_, width, rows));
      dirty = false;
    }
    const Key key = screen.read_key(kPollMs);
    if (key == Key::kNone) continue;
    const KeyEffect effect = apply_key(state_, key, model_);
    if (effect.quit) break;
    apply(effect);
    dirty = effect.redraw || dirty;
  }
  stream_.stop();
  screen.close();
  return g_signal != 0 ? 128 + g_signal : 0;
}

}  // namespace

int run_top_live(const TopOptions& options, std::ostream& err) {
  TopApp app(options);
  return app.run(err);
}

}  // namespace stallwatch::tui
