// SPDX-License-Identifier: MIT
#include "engine/event_class.h"

#include <fnmatch.h>

#include <array>
#include <string>
#include <utility>

namespace stallwatch::collector {
namespace {

constexpr std::array<std::string_view, kEventClassCount> kClassNames{
    "compute", "device_busy", "fetch", "app_io", "io", "comm", "pipeline"};

bool any_match(const std::vector<std::string>& patterns, std::string_view text) {
  if (patterns.empty()) return true;
  for (const auto& p : patterns) {
    if (glob_match(p, text)) return true;
  }
  return false;
}

}  // namespace

std::string_view to_string(EventClass c) {
  return kClassNames[static_cast<std::size_t>(c)];
}

std::optional<EventClass> event_class_from_string(std::string_view s) {
  for (std::size_t i = 0; i < kClassNames.size(); ++i) {
    if (kClassNames[i] == s) return static_cast<EventClass>(i);
  }
  return std::nullopt;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  return fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), 0) == 0;
}

ClassMapping ClassMapping::defaults() {
  const ClassMask fetch = class_bit(EventClass::kFetch) | class_bit(EventClass::kAppIo);
  return ClassMapping({
      // Loop bodies of pydftracer's `.iter()` ("<name>.block") and dft_fn's
      // ("loop.yield") are the step itself, not I/O: structure only.
      {{}, {"*.block", "*.yield"}, false, class_bit(EventClass::kPipeline)},
      {{}, {"fetch.iter", "loop.iter"}, false, fetch},
      {{"dataloader"}, {"fetch"}, true, fetch},
      // Host threads waiting for the device (stream, event, context and
      // device synchronization) are neither device work nor host compute.
      {{"CUDA_SYNC"}, {}, false, 0},
      {{"CUDA_RUNTIME_API", "CUDA_DRIVER_API", "HIP_RUNTIME_API"},
       {"*Synchronize*", "*StreamWaitEvent*"},
       false,
       0},
      // NCCL/RCCL kernels (HTA's rule: the name starts with "nccl" and has
      // "Kernel" after it) are communication, not device work: a device
      // spinning in them while its rank waits for peers is not busy.
      {{"gpu", "CUDA_KERNEL", "KERNEL_DISPATCH"},
       {"nccl*Kernel*"},
       false,
       class_bit(EventClass::kComm)},
      // Work on the device: stallwatch's own `gpu` lanes, DFTracer's CUPTI
      // activity kinds (kernels, copies, memsets, CUDA graph launches) and its
      // rocprofiler kinds (kernel dispatches, copies).
      {{"gpu", "CUDA_KERNEL", "CUDA_MEMCPY", "CUDA_MEMCPY_P2P", "CUDA_MEMSET", "CUDA_GRAPH",
        "KERNEL_DISPATCH", "MEMORY_COPY"},
       {},
       false,
       class_bit(EventClass::kDeviceBusy)},
      {{"compute", "ai_framework"}, {}, false, class_bit(EventClass::kCompute)},
      {{"dataloader", "data", "checkpoint", "reader"}, {}, false, class_bit(EventClass::kAppIo)},
      {{"POSIX", "STDIO"}, {}, false, class_bit(EventClass::kIo)},
      {{"comm"}, {}, false, class_bit(EventClass::kComm)},
      {{"pipeline"}, {}, false, class_bit(EventClass::kPipeline)},
  });
}

ClassMask ClassMapping::classify(std::string_view cat, std::string_view name,
                                 bool main_thread) const {
  for (const auto& rule : rules_) {
    if (rule.main_thread_only && !main_thread) continue;
    if (!any_match(rule.cat, cat) || !any_match(rule.name, name)) continue;
    ClassMask mask = rule.classes;
    if (mask & class_bit(EventClass::kFetch)) mask |= class_bit(EventClass::kAppIo);
    return mask;
  }
  return 0;
}

void ClassMapping::prepend(std::vector<ClassRule> rules) {
  rules.insert(rules.end(), std::make_move_iterator(rules_.begin()),
               std::make_move_iterator(rules_.end()));
  rules_ = std::move(rules);
}

}  // namespace stallwatch::collector
