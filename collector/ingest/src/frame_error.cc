// SPDX-License-Identifier: MIT
#include "ingest/frame_error.h"

namespace stallwatch::collector {

std::string_view frame_error_reason_name(FrameErrorReason reason) {
  switch (reason) {
    case FrameErrorReason::kTooLarge:
      return "too_large";
    case FrameErrorReason::kBadIdentifier:
      return "bad_identifier";
    case FrameErrorReason::kMalformed:
      return "malformed";
    case FrameErrorReason::kVersion:
      return "version";
    case FrameErrorReason::kSemantic:
      return "semantic";
  }
  return "unknown";
}

}  // namespace stallwatch::collector
