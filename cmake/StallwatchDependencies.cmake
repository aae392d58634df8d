# SPDX-License-Identifier: MIT
# Every third-party dependency is found here, once, from Debian packages
# (scripts/install-deps.sh). Nothing is downloaded at configure or build time.

find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)

# ZeroMQ: Debian ships a pkg-config file; cppzmq is header-only.
pkg_check_modules(ZMQ REQUIRED IMPORTED_TARGET libzmq>=4.3)
add_library(stallwatch_zmq INTERFACE)
target_link_libraries(stallwatch_zmq INTERFACE PkgConfig::ZMQ)
add_library(stallwatch::zmq ALIAS stallwatch_zmq)

# Only FlatBuffers' header-only runtime is used (builder + verifier), so no
# library is linked: Debian's libflatbuffers.a is not position-independent.
find_package(FlatBuffers 2.0.8 REQUIRED CONFIG)
get_target_property(STALLWATCH_FLATBUFFERS_INCLUDE flatbuffers::flatbuffers INTERFACE_INCLUDE_DIRECTORIES)
find_program(STALLWATCH_FLATC flatc REQUIRED)
execute_process(COMMAND ${STALLWATCH_FLATC} --version OUTPUT_VARIABLE _flatc_version
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _flatc_version MATCHES "2\\.0\\.8")
  message(WARNING "stallwatch is tested with flatc 2.0.8; found '${_flatc_version}'")
endif()

find_package(Boost 1.74 REQUIRED)
# TLS for the API server and the terminal dashboard's wss:// stream (Boost.Asio ssl).
find_package(OpenSSL REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(simdjson REQUIRED)
# zlib writes the gzip files of tests and benchmarks; traces are inflated
# with ISA-L's igzip (libisal-dev), about three times faster (bench/inflate).
find_package(ZLIB REQUIRED)
pkg_check_modules(ISAL REQUIRED IMPORTED_TARGET libisal>=2.30)
find_package(toml11 REQUIRED)
find_package(CLI11 2.1 REQUIRED CONFIG)
pkg_check_modules(SYSTEMD IMPORTED_TARGET libsystemd)

set(CURSES_NEED_NCURSES TRUE)
set(CURSES_NEED_WIDE TRUE)
find_package(Curses REQUIRED)
add_library(stallwatch_curses INTERFACE)
target_include_directories(stallwatch_curses SYSTEM INTERFACE ${CURSES_INCLUDE_DIRS})
target_link_libraries(stallwatch_curses INTERFACE ${CURSES_LIBRARIES})
add_library(stallwatch::curses ALIAS stallwatch_curses)

if(STALLWATCH_BUILD_PYTHON)
  # Debian's interpreter, never the first python3 on PATH (see README).
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python with torch/numpy/pytest")
  find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)
endif()

if(STALLWATCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(STALLWATCH_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
