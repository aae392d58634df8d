#pragma once

namespace stallwatch::collector {

// The project version (CMake project(VERSION)), shown by --version, /healthz
// and the API.
inline constexpr const char* kVersion = STALLWATCH_VERSION;

}  // namespace stallwatch::collector
