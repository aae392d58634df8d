// SPDX-License-Identifier: MIT
#include "config/class_presets.h"

namespace stallwatch::collector {

namespace {

ClassMask bits(std::initializer_list<EventClass> classes) {
  ClassMask mask = 0;
  for (EventClass c : classes)
    mask = static_cast<ClassMask>(mask | class_bit(c));
  return mask;
}

std::vector<ClassRule> dlio_rules() {
  const ClassMask fetch = bits({EventClass::kFetch, EventClass::kAppIo});
  return {
      {{"ai_framework"}, {"*Framework.compute"}, false, bits({EventClass::kCompute})},
      // Other framework hooks (trace_object, get_loader...) are bookkeeping.
      {{"ai_framework"}, {}, false, 0},
      {{}, {"loop.iter", "fetch.iter", "fetch-data.iter", "<module>.iter"}, false, fetch},
      // The step body between two fetches; its compute is traced separately.
      {{}, {"loop.yield"}, false, 0},
      {{"data_loader", "reader", "checkpoint"}, {}, false, bits({EventClass::kAppIo})},
      {{"POSIX", "STDIO", "posix", "stdio"}, {}, false, bits({EventClass::kIo})},
      {{},
       {"DLIOBenchmark.run", "DLIOBenchmark._train", "DLIOBenchmark._eval"},
       false,
       bits({EventClass::kPipeline})},
  };
}

}  // namespace

const std::vector<std::string_view>& class_preset_names() {
  static const std::vector<std::string_view> names = {"default", "dlio"};
  return names;
}

std::optional<ClassMapping> class_preset(std::string_view name) {
  if (name == "default") return ClassMapping::defaults();
  if (name == "dlio") {
    ClassMapping mapping = ClassMapping::defaults();
    mapping.prepend(dlio_rules());
    return mapping;
  }
  return std::nullopt;
}

}  // namespace stallwatch::collector
