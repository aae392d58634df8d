#pragma once

// The device-lane layout of the wire protocol (stallwatch/device_lane.h),
// under this component's namespace.

#include "stallwatch/device_lane.h"

namespace stallwatch::agent {

using wire::device_lane;
using wire::is_device_lane;
using wire::kDeviceWideStream;
using wire::kLaneBit;
using wire::kLaneDeviceMask;
using wire::kLaneStreamMask;
using wire::lane_device;
using wire::lane_stream;

}  // namespace stallwatch::agent
